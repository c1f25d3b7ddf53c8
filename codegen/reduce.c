/* Reductions and scans along an axis, on states of up to 8 values
 * (argmax/argmin's (value, index), tl.reduce and tl.associative_scan over
 * tuples of tiles, whose combine function is emitted afresh at each step).
 * A reduction combines in-thread as a balanced tree, then by shuffles over
 * the lane bits of the axis, then through shared memory across warps. A
 * scan merges blocks of 2^k elements, least significant bit first: other
 * registers, shuffle partners, or (across warps) shared memory. A
 * histogram counts with shared-memory atomics.
 * Needs: the op's layouts and, across warps, its scratch (lower/scratch.c).
 * A layout with a basis along the axis that also moves along another
 * dimension is reported as not supported yet. */
#include "internal.h"

/* ---- reductions --------------------------------------------------------- */

static LLVMValueRef shfl_xor(cg *c, LLVMValueRef v, uint32_t lane_mask) {
    return cg_shuffle(c, v, "bfly", cg_i32(c, lane_mask));
}

/* A user combine function (tl.reduce, tl.associative_scan): its region is
 * emitted afresh with a and b as its arguments; the yield is the result. */
/* A combine function of k values: a[0..k) and b[0..k) in, the k combined
 * values out in a (tl.reduce / associative_scan over tuples). */
static void combine_region_n(cg *c, const tk_tir_block *region, LLVMValueRef *a, const LLVMValueRef *b, uint32_t k) {
    for (uint32_t i = 0; i < 2 * k && i < region->args.len; i++) {
        cgval v = cg_newval(c, 1);
        v.r[0] = i < k ? a[i] : b[i - k];
        *cg_get(c, region->args.data[i]) = v;
    }
    cg_emit_block(c, region);
    const tk_tir_op *y = NULL;
    for (uint32_t i = region->ops.len; i-- > 0 && !y;)
        if (!region->ops.data[i]->dead && region->ops.data[i]->code == TIR_YIELD) y = region->ops.data[i];
    for (uint32_t i = 0; y && i < k && i < y->operands.len; i++) {
        /* after an error the region stops early and leaves its yield unset */
        const cgval *v = cg_get(c, y->operands.data[i]);
        if (v->r && v->r[0]) a[i] = v->r[0];
    }
}

static LLVMValueRef combine_region(cg *c, const tk_tir_block *region, LLVMValueRef a, LLVMValueRef b) {
    combine_region_n(c, region, &a, &b, 1);
    return a;
}

static LLVMValueRef combine(cg *c, int kind, const tk_type *t, LLVMValueRef a, LLVMValueRef b) {
    if (kind == TK_B_REDUCE || kind == TK_B_ASSOCIATIVE_SCAN) return combine_region(c, c->combine_fn, a, b);
    if (kind == TK_B_SUM) return cg_is_float(t) ? cg_contractible(c, LLVMBuildFAdd(c->b, a, b, "")) : LLVMBuildAdd(c->b, a, b, "");
    if (kind == TK_B_XOR_SUM) return LLVMBuildXor(c->b, a, b, "");
    if (kind == TK_B_REDUCE_OR) return LLVMBuildOr(c->b, a, b, "");
    return cg_minmax(c, kind == TK_B_MAX, t, a, b);
}

static bool along(const tk_ll *l, uint64_t basis, uint32_t axis) {
    return basis && tk_ll_coord(l, basis, axis) != 0;
}

static bool only_along(const tk_ll *l, uint64_t basis, uint32_t axis) {
    for (uint32_t d = 0; d < l->rank; d++)
        if (d != axis && tk_ll_coord(l, basis, d) != 0) return false;
    return true;
}

/* (value, index) pairs for argmax/argmin: the larger (smaller) value, the
 * smaller index on ties (tie_break_left, Triton's default). */
static void combine_arg(cg *c, bool is_max, const tk_type *t, LLVMValueRef *v, LLVMValueRef *i,
                        LLVMValueRef v2, LLVMValueRef i2) {
    LLVMValueRef better, equal;
    if (cg_is_float(t)) {
        better = LLVMBuildFCmp(c->b, is_max ? LLVMRealOGT : LLVMRealOLT, v2, *v, "");
        equal = LLVMBuildFCmp(c->b, LLVMRealOEQ, v2, *v, "");
    } else {
        bool s = cg_is_signed(t);
        better = LLVMBuildICmp(c->b, is_max ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT), v2, *v, "");
        equal = LLVMBuildICmp(c->b, LLVMIntEQ, v2, *v, "");
    }
    LLVMValueRef left = LLVMBuildICmp(c->b, LLVMIntSLT, i2, *i, "");
    LLVMValueRef take = LLVMBuildOr(c->b, better, LLVMBuildAnd(c->b, equal, left, ""), "");
    *v = LLVMBuildSelect(c->b, take, v2, *v, "");
    *i = LLVMBuildSelect(c->b, take, i2, *i, "");
}

/* One step of a reduction on states of k values: (value, index) for
 * argmax/argmin, the operands' values for a tuple reduce, one value else. */
static void combine_state(cg *c, const tk_tir_op *op, int kind, bool arg, bool arg_max, const tk_type *t,
                          LLVMValueRef *x, LLVMValueRef *y, uint32_t k) {
    if (arg) combine_arg(c, arg_max, t, &x[0], &x[1], y[0], y[1]);
    else if (k > 1) combine_region_n(c, op->regions.data[0], x, y, k);
    else x[0] = combine(c, kind, t, x[0], y[0]);
}

void cg_emit_reduce(cg *c, const tk_tir_op *op) {
    int kind = op->sub;
    bool arg = kind == TK_B_ARGMAX || kind == TK_B_ARGMIN;
    bool arg_max = kind == TK_B_ARGMAX;
    const tk_tir_value *in = op->operands.data[0], *res = op->results.data[0];
    const tk_ll *l = in->layout;
    uint32_t axis = (uint32_t)tk_tir_attr_int(op, "axis", 0);
    bool all = tk_tir_attr_int(op, "axis", -1) < 0;
    if (all && l->rank != 1) {
        cg_not_yet(c, op, "a reduction over all dimensions of a tile of rank above 1");
        return;
    }
    /* the state each element carries: k values */
    uint32_t nin = op->operands.len, k = arg ? 2 : nin;
    if (k > 8) {
        cg_not_yet(c, op, "a reduction of more than 8 tiles at once");
        return;
    }
    const tk_type *t = arg ? in->type : res->type;
    c->combine_fn = op->regions.len ? op->regions.data[0] : NULL;
    cgval *iv[8];
    for (uint32_t j = 0; j < nin && j < 8; j++) iv[j] = cg_get(c, op->operands.data[j]);
    /* register bits: along the axis (combined), replicated (skipped), kept */
    uint32_t kept_bits[TK_LL_MAX_REG_BITS], nkept = 0;
    uint64_t skip_mask = tk_ll_copy_bits(l).reg;
    for (uint32_t i = 0; i < l->reg_bits; i++) {
        if (skip_mask >> i & 1) continue;
        else if (!along(l, l->reg[i], axis)) kept_bits[nkept++] = i;
        else if (!only_along(l, l->reg[i], axis)) {
            cg_not_yet(c, op, "a reduction over this layout");
            return;
        }
    }
    /* an element's index along the axis (argmax/argmin) */
    uint64_t stride = 1;
    for (uint32_t d = axis + 1; d < l->rank; d++) stride *= (uint64_t)l->shape[d];
    uint32_t nout = 1u << nkept;
    cgval acc[8];
    for (uint32_t j = 0; j < k; j++) acc[j] = cg_newval(c, nout);
    /* each output's registers, combined as a balanced tree: depth log n,
     * not a chain of n dependent operations */
    LLVMValueRef *group = TK_NEW_ARRAY(c->arena, LLVMValueRef, (iv[0]->n + 1) * k);
    for (uint32_t o = 0; o < nout; o++) {
        uint32_t m = 0;
        for (uint32_t r = 0; r < iv[0]->n; r++) {
            if (r & skip_mask) continue;
            uint32_t oo = 0;
            for (uint32_t b = 0; b < nkept; b++) oo |= ((r >> kept_bits[b]) & 1u) << b;
            if (oo != o) continue;
            if (arg) {
                group[m * k] = iv[0]->r[r];
                group[m * k + 1] = LLVMBuildAnd(c->b, LLVMBuildUDiv(c->b, cg_reg_flat(c, l, r), cg_i32(c, (int64_t)stride), ""),
                                                cg_i32(c, l->shape[axis] - 1), "");
            } else {
                for (uint32_t j = 0; j < k; j++) group[m * k + j] = iv[j]->r[r];
            }
            m++;
        }
        while (m > 1) {
            uint32_t half = (m + 1) / 2;
            for (uint32_t i = 0; i + half < m; i++)
                combine_state(c, op, kind, arg, arg_max, t, &group[i * k], &group[(i + half) * k], k);
            m = half;
        }
        for (uint32_t j = 0; j < k; j++) acc[j].r[o] = group[j];
    }
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++) {
        if (!along(l, l->lane[i], axis)) continue;
        for (uint32_t o = 0; o < nout; o++) {
            LLVMValueRef x[8], y[8];
            for (uint32_t j = 0; j < k; j++) {
                x[j] = acc[j].r[o];
                y[j] = shfl_xor(c, x[j], 1u << i);
            }
            combine_state(c, op, kind, arg, arg_max, t, x, y, k);
            for (uint32_t j = 0; j < k; j++) acc[j].r[o] = x[j];
        }
    }
    uint32_t warp_axis[TK_LL_MAX_WARP_BITS], nwa = 0;
    for (uint32_t i = 0; i < l->warp_bits; i++)
        if (along(l, l->warp[i], axis)) warp_axis[nwa++] = i;
    if (nwa) {
        uint32_t groups = 1u << nwa;
        LLVMValueRef g = cg_i32(c, 0);
        for (uint32_t b = 0; b < nwa; b++) {
            LLVMValueRef bit = LLVMBuildAnd(c->b, LLVMBuildLShr(c->b, c->warp, cg_i32(c, warp_axis[b]), ""), cg_i32(c, 1), "");
            g = LLVMBuildOr(c->b, g, LLVMBuildShl(c->b, bit, cg_i32(c, b), ""), "");
        }
        const tk_ll *ol = res->type->kind == TK_TYPE_TILE ? res->layout : NULL;
        /* a slot for the k values of a state (lower/scratch.c) */
        unsigned slot_bytes = cg_scratch_slot(c), value_bytes = TK_TIR_SCRATCH_VALUE_BYTES;
        for (uint32_t o = 0; o < nout; o++) {
            LLVMValueRef f = ol ? cg_reg_flat(c, ol, o) : cg_i32(c, 0);
            LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, f, cg_i32(c, groups), ""), g, "");
            LLVMValueRef off = LLVMBuildMul(c->b, slot, cg_i32(c, slot_bytes), "");
            for (uint32_t j = 0; j < k; j++)
                LLVMBuildStore(c->b, cg_to_scratch(c, acc[j].r[o]),
                               cg_smem_addr(c, LLVMBuildAdd(c->b, off, cg_i32(c, value_bytes * j), "")));
        }
        cg_barrier(c);
        for (uint32_t o = 0; o < nout; o++) {
            LLVMValueRef f = ol ? cg_reg_flat(c, ol, o) : cg_i32(c, 0);
            LLVMValueRef r[8], x[8];
            for (uint32_t q = 0; q < groups; q++) {
                LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, f, cg_i32(c, groups), ""), cg_i32(c, q), "");
                LLVMValueRef off = LLVMBuildMul(c->b, slot, cg_i32(c, slot_bytes), "");
                for (uint32_t j = 0; j < k; j++) {
                    LLVMTypeRef vt = LLVMTypeOf(acc[j].r[o]);
                    LLVMValueRef at = cg_smem_addr(c, LLVMBuildAdd(c->b, off, cg_i32(c, value_bytes * j), ""));
                    x[j] = cg_from_scratch(c, LLVMBuildLoad2(c->b, cg_scratch_type(c, vt), at, ""), vt);
                }
                if (q == 0) {
                    for (uint32_t j = 0; j < k; j++) r[j] = x[j];
                } else {
                    combine_state(c, op, kind, arg, arg_max, t, r, x, k);
                }
            }
            for (uint32_t j = 0; j < k; j++) acc[j].r[o] = r[j];
        }
    }
    uint32_t want = cg_nregs(res);
    if (want != nout) {
        cg_not_yet(c, op, "a reduction whose result layout differs from the reduced registers");
        return;
    }
    if (arg) {
        *cg_get(c, res) = acc[1];
        return;
    }
    for (uint32_t j = 0; j < k && j < op->results.len; j++) *cg_get(c, op->results.data[j]) = acc[j];
}

/* ---- scans -------------------------------------------------------------- */

/* Inclusive scans along an axis. Each bit of the axis coordinate is
 * selected by one register, lane or warp bit of the layout; going from the
 * least significant, every element keeps the prefix within its block of
 * 2^k elements and that block's total, and merges with the block that
 * differs in bit k: another register, a shuffle partner, or (across warps)
 * shared memory. Replicated bits take no part. */
/* out = x combined with y (x first), on states of k values: cumsum and
 * cumprod add or multiply, a combine function takes 2k values. */
static void scan_combine(cg *c, int kind, const tk_type *t, const LLVMValueRef *x, const LLVMValueRef *y,
                         uint32_t k, LLVMValueRef *out) {
    if (k > 1) {
        /* out may be x or y itself */
        LLVMValueRef a[8], b[8];
        for (uint32_t j = 0; j < k; j++) a[j] = x[j], b[j] = y[j];
        combine_region_n(c, c->combine_fn, a, b, k);
        for (uint32_t j = 0; j < k; j++) out[j] = a[j];
        return;
    }
    bool f = cg_is_float(t);
    if (kind == TK_B_CUMSUM) out[0] = f ? LLVMBuildFAdd(c->b, x[0], y[0], "") : LLVMBuildAdd(c->b, x[0], y[0], "");
    else if (kind == TK_B_CUMPROD) out[0] = f ? LLVMBuildFMul(c->b, x[0], y[0], "") : LLVMBuildMul(c->b, x[0], y[0], "");
    else out[0] = combine(c, kind, t, x[0], y[0]);
}

void cg_emit_scan(cg *c, const tk_tir_op *op) {
    const tk_tir_value *in = op->operands.data[0], *res = op->results.data[0];
    const tk_ll *l = in->layout;
    const tk_type *t = res->type;
    uint32_t axis = (uint32_t)tk_tir_attr_int(op, "axis", 0);
    bool reverse = tk_tir_attr_int(op, "reverse", 0) != 0;
    int kind = op->sub;
    c->combine_fn = op->regions.len ? op->regions.data[0] : NULL;
    /* each element carries a state of k values: one, or one of each tile
     * of a tuple scan; value j of register r is at [r * k + j] */
    uint32_t k = op->operands.len;
    if (k > 8) {
        cg_not_yet(c, op, "a scan of more than 8 tiles at once");
        return;
    }
    uint32_t n = cg_get(c, in)->n;
    LLVMValueRef *pre = TK_NEW_ARRAY(c->arena, LLVMValueRef, n * k), *tot = TK_NEW_ARRAY(c->arena, LLVMValueRef, n * k);
    for (uint32_t j = 0; j < k; j++) {
        const cgval *iv = cg_get(c, op->operands.data[j]);
        for (uint32_t r = 0; r < n; r++) pre[r * k + j] = tot[r * k + j] = iv->r[r];
    }
    /* the bits along the axis, by the power of two they select */
    enum { IN_REG, IN_LANE, IN_WARP };
    struct level { int where; uint32_t bit; int64_t step; } levels[40];
    uint32_t nl = 0;
    const uint64_t *sets[3] = {l->reg, l->lane, l->warp};
    uint32_t counts[3] = {l->reg_bits, TK_LL_LANE_BITS, l->warp_bits};
    for (int s = 0; s < 3; s++)
        for (uint32_t i = 0; i < counts[s]; i++) {
            if (!along(l, sets[s][i], axis)) continue;
            if (!only_along(l, sets[s][i], axis)) {
                cg_not_yet(c, op, "a scan over this layout");
                return;
            }
            levels[nl].where = s;
            levels[nl].bit = i;
            levels[nl].step = tk_ll_coord(l, sets[s][i], axis);
            nl++;
        }
    for (uint32_t a = 0; a < nl; a++)
        for (uint32_t b = a + 1; b < nl; b++)
            if (levels[b].step < levels[a].step) {
                struct level tmp = levels[a];
                levels[a] = levels[b];
                levels[b] = tmp;
            }
    bool scratch_read_pending = false;
    LLVMValueRef *partner = TK_NEW_ARRAY(c->arena, LLVMValueRef, n * k);
    for (uint32_t lvl = 0; lvl < nl; lvl++) {
        struct level lv = levels[lvl];
        if (lv.where == IN_REG) {
            for (uint32_t r = 0; r < n; r++) {
                if (r >> lv.bit & 1) continue;
                uint32_t hi = r | (1u << lv.bit);
                /* the earlier block in scan order comes first: the lower one,
                 * or the upper one in reverse (Triton's reverse scan is the
                 * forward scan of the flipped tile) */
                LLVMValueRef total[8];
                if (!reverse) {
                    scan_combine(c, kind, t, &tot[r * k], &tot[hi * k], k, total);
                    scan_combine(c, kind, t, &tot[r * k], &pre[hi * k], k, &pre[hi * k]);
                } else {
                    scan_combine(c, kind, t, &tot[hi * k], &tot[r * k], k, total);
                    scan_combine(c, kind, t, &tot[hi * k], &pre[r * k], k, &pre[r * k]);
                }
                for (uint32_t j = 0; j < k; j++) tot[r * k + j] = tot[hi * k + j] = total[j];
            }
            continue;
        }
        LLVMValueRef mine_is_upper;
        if (lv.where == IN_LANE) {
            mine_is_upper = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, c->lane, cg_i32(c, 1 << lv.bit), ""), cg_i32(c, 0), "");
            for (uint32_t r = 0; r < n * k; r++) partner[r] = shfl_xor(c, tot[r], 1u << lv.bit);
        } else {
            mine_is_upper = LLVMBuildICmp(c->b, LLVMIntNE, LLVMBuildAnd(c->b, c->warp, cg_i32(c, 1 << lv.bit), ""), cg_i32(c, 0), "");
            LLVMValueRef me = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, c->warp, cg_i32(c, 32), ""), c->lane, "");
            LLVMValueRef other_warp = LLVMBuildXor(c->b, c->warp, cg_i32(c, 1 << lv.bit), "");
            LLVMValueRef other = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, other_warp, cg_i32(c, 32), ""), c->lane, "");
            /* the previous level's partners may still be reading these slots */
            if (scratch_read_pending) cg_barrier(c);
            /* a slot a value, n * k a thread (lower/scratch.c) */
            for (uint32_t r = 0; r < n * k; r++) {
                LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, me, cg_i32(c, n * k), ""), cg_i32(c, r), "");
                LLVMBuildStore(c->b, cg_to_scratch(c, tot[r]), cg_smem_addr(c, LLVMBuildMul(c->b, slot, cg_i32(c, cg_scratch_slot(c)), "")));
            }
            cg_barrier(c);
            for (uint32_t r = 0; r < n * k; r++) {
                LLVMTypeRef vt = LLVMTypeOf(tot[r]);
                LLVMValueRef slot = LLVMBuildAdd(c->b, LLVMBuildMul(c->b, other, cg_i32(c, n * k), ""), cg_i32(c, r), "");
                partner[r] = cg_from_scratch(c, LLVMBuildLoad2(c->b, cg_scratch_type(c, vt),
                                                               cg_smem_addr(c, LLVMBuildMul(c->b, slot, cg_i32(c, cg_scratch_slot(c)), "")), ""), vt);
            }
            scratch_read_pending = true;
        }
        for (uint32_t r = 0; r < n; r++) {
            /* the earlier block in scan order comes first (the lower one,
             * the upper in reverse), and it is the partner's total that
             * extends the later block's prefixes */
            LLVMValueRef partner_first[8], mine_first[8], extended[8];
            scan_combine(c, kind, t, &partner[r * k], &tot[r * k], k, partner_first);
            scan_combine(c, kind, t, &tot[r * k], &partner[r * k], k, mine_first);
            scan_combine(c, kind, t, &partner[r * k], &pre[r * k], k, extended);
            LLVMValueRef later = reverse ? LLVMBuildNot(c->b, mine_is_upper, "") : mine_is_upper;
            for (uint32_t j = 0; j < k; j++) {
                pre[r * k + j] = LLVMBuildSelect(c->b, later, extended[j], pre[r * k + j], "");
                tot[r * k + j] = LLVMBuildSelect(c->b, later, partner_first[j], mine_first[j], "");
            }
        }
    }
    for (uint32_t j = 0; j < k && j < op->results.len; j++) {
        cgval out = cg_newval(c, n);
        for (uint32_t r = 0; r < n; r++) out.r[r] = pre[r * k + j];
        *cg_get(c, op->results.data[j]) = out;
    }
}

/* tl.histogram: the bins zeroed in the op's scratch, a barrier, every
 * register adds to its value's bin (1 by its owner when the value is in
 * 0 .. bins - 1, else 0 to bin 0: no branch, so the kernel stays
 * convergent), a barrier, the bins read in the result's layout. */
void cg_emit_histogram(cg *c, const tk_tir_op *op) {
    const tk_tir_value *x = op->operands.data[0], *res = op->results.data[0];
    uint64_t bins = (uint64_t)res->type->shape[0];
    unsigned scope = LLVMGetSyncScopeID(c->ctx, "block", 5);
    for (uint32_t r = 0; r < cg_nregs(res); r++)
        LLVMBuildStore(c->b, cg_i32(c, 0), cg_smem_addr(c, LLVMBuildMul(c->b, cg_reg_flat(c, res->layout, r), cg_i32(c, 4), "")));
    cg_barrier(c);
    bool sgn = cg_is_signed(x->type);
    for (uint32_t r = 0; r < cg_nregs(x); r++) {
        LLVMValueRef v = cg_operand(c, op, 0, r);
        if (LLVMGetIntTypeWidth(LLVMTypeOf(v)) < 64)
            v = sgn ? LLVMBuildSExt(c->b, v, c->t_i64, "") : LLVMBuildZExt(c->b, v, c->t_i64, "");
        LLVMValueRef in = LLVMBuildICmp(c->b, LLVMIntULT, v, LLVMConstInt(c->t_i64, bins, 0), "");
        LLVMValueRef counts = LLVMBuildAnd(c->b, in, cg_owner(c, x->layout, r), "");
        LLVMValueRef bin = LLVMBuildSelect(c->b, in, LLVMBuildTrunc(c->b, v, c->t_i32, ""), cg_i32(c, 0), "");
        LLVMValueRef at = cg_smem_addr(c, LLVMBuildMul(c->b, bin, cg_i32(c, 4), ""));
        LLVMBuildAtomicRMWSyncScope(c->b, LLVMAtomicRMWBinOpAdd, at, LLVMBuildZExt(c->b, counts, c->t_i32, ""),
                                    LLVMAtomicOrderingMonotonic, scope);
    }
    cg_barrier(c);
    *cg_get(c, res) = cg_scratch_read(c, res->type, res->layout, 1, 0, 4);
}
