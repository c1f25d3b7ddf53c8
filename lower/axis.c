/* Axis info: for every integer and pointer value, per dimension, the
 * contiguity (runs of consecutive values), divisibility (the largest power
 * of two dividing each run's first value; bytes for pointers) and constancy
 * (runs of equal values). These decide vector widths and whether a mask is
 * uniform over a vector. All three are powers of two and runs start at
 * multiples of their length. Divisibility speaks of run starts only: where
 * a result's runs are shorter than an operand's, the operand's values at
 * the new run starts are run starts plus a multiple of the new length
 * (run_div), and where runs end (contiguity 1) every element counts; a
 * size-1 dimension's divisibility holds for every element of the tile.
 * Needs: SSA, sema's promises on parameters. Keeps: the IR; sets
 * value->contiguity/divisibility/constancy and has_axis. Loops: the block
 * arguments start from the inits and meet the yields until they hold. */
#include "internal.h"

#include <string.h>

enum { MAX_DIV = 1 << 30, MAX_ROUNDS = 256 };

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

static int64_t pow2_divisor(int64_t v) {
    if (v == 0) return MAX_DIV;
    int64_t d = 1;
    while (d < MAX_DIV && (v % (d * 2)) == 0) d *= 2;
    return d;
}

static uint32_t dims(const tk_tir_value *v) {
    uint32_t r = tir_rank(v->type);
    return r ? r : 1;
}

static int64_t dim_size(const tk_tir_value *v, uint32_t d) {
    return v->type->kind == TK_TYPE_TILE ? v->type->shape[d] : 1;
}

static void set_unknown(tk_tir_value *v) {
    for (uint32_t d = 0; d < dims(v); d++) {
        v->contiguity[d] = 1;
        v->divisibility[d] = 1;
        v->constancy[d] = 1;
    }
    v->has_axis = true;
}

static void set_uniform(tk_tir_value *v, int64_t div) {
    for (uint32_t d = 0; d < dims(v); d++) {
        v->contiguity[d] = 1;
        v->divisibility[d] = div;
        v->constancy[d] = dim_size(v, d);
    }
    v->has_axis = true;
}

static bool tracked(const tk_tir_value *v) {
    const tk_type *e = tir_elem(v->type);
    return e->kind == TK_TYPE_POINTER || (e->kind == TK_TYPE_SCALAR && tk_dtype_is_int(e->dtype));
}

static int64_t elem_bytes(const tk_type *ptr_type) {
    const tk_type *p = tir_elem(ptr_type)->elem;
    return p->kind == TK_TYPE_POINTER ? 8 : (int64_t)(tk_dtype_bits(p->dtype) + 7) / 8;
}

/* constant facts of an operand, as if it were a splat */
static int64_t c_of(const tk_tir_value *v, uint32_t d) { return v->has_axis ? v->constancy[d < dims(v) ? d : 0] : 1; }
static int64_t g_of(const tk_tir_value *v, uint32_t d) { return v->has_axis ? v->contiguity[d < dims(v) ? d : 0] : 1; }
static int64_t q_of(const tk_tir_value *v, uint32_t d) { return v->has_axis ? v->divisibility[d < dims(v) ? d : 0] : 1; }

/* The divisibility of v's values at the starts of runs of length m <=
 * its contiguity c (in elements; `scale` bytes each for pointers): a run
 * start of v plus a multiple of m. */
static int64_t run_div(int64_t q, int64_t c, int64_t m, int64_t scale) {
    return c > m ? min64(q, m * scale) : q;
}

static int64_t pow2_floor_divisor(int64_t v) { return v > 0 ? pow2_divisor(v) : 1; }

/* Arithmetic in fewer than 32 bits wraps (32 and 64 are taken not to, as
 * Triton does): an unsigned value where it passes a multiple of 2^bits, a
 * signed one also halfway (127 + 1 is -128 as i8), and so does a cast to
 * such a type. Runs of consecutive values stay so only in pieces that
 * start at a multiple of their length and fit between two such points
 * ((k + 3).to(int8) for k in 120 .. 127 is no run; k.to(int8) is, in
 * pieces of 128); divisibility by more than 2^bits is lost. Booleans keep
 * constancy alone. */
static void cap_narrow(tk_tir_value *r) {
    const tk_type *e = tir_elem(r->type);
    if (!r->has_axis || e->kind != TK_TYPE_SCALAR || !tk_dtype_is_int(e->dtype) || tk_dtype_bits(e->dtype) >= 32)
        return;
    unsigned bits = tk_dtype_bits(e->dtype);
    int64_t wrap = (int64_t)1 << bits, run_cap = tk_dtype_is_signed(e->dtype) ? wrap / 2 : wrap;
    for (uint32_t d = 0; d < dims(r); d++) {
        if (bits == 1) {
            r->contiguity[d] = 1, r->divisibility[d] = 1;
            continue;
        }
        int64_t g = r->contiguity[d], q = r->divisibility[d];
        int64_t piece = pow2_floor_divisor(min64(min64(g, q), run_cap));
        r->contiguity[d] = piece;
        r->divisibility[d] = min64(run_div(q, g, piece, 1), wrap);
    }
}

static bool is_const(const tk_tir_value *v, int64_t *out) {
    const tk_tir_value *s = v;
    if (s->def && s->def->code == TIR_SPLAT) s = s->def->operands.data[0];
    if (!s->def || s->def->code != TIR_CONST || tk_dtype_is_float(tir_elem(s->type)->dtype)) return false;
    *out = s->def->value.i;
    return true;
}

static void visit_op(tk_tir_op *op) {
    if (op->results.len == 0) return;
    tk_tir_value *r = op->results.data[0];
    if (!tracked(r) && op->code != TIR_CMP && !(op->code == TIR_BINARY && tir_elem(r->type)->dtype == TK_I1)) {
        if (op->code != TIR_FOR && op->code != TIR_IF && op->code != TIR_WHILE) return;
    }
    tk_tir_value *a = op->operands.len > 0 ? op->operands.data[0] : NULL;
    tk_tir_value *b = op->operands.len > 1 ? op->operands.data[1] : NULL;
    int64_t k;
    switch (op->code) {
    case TIR_CONST:
        set_uniform(r, pow2_divisor(op->value.i));
        return;
    case TIR_PROGRAM_ID:
    case TIR_NUM_PROGRAMS:
        set_uniform(r, 1);
        return;
    case TIR_DESC_FIELD: {
        /* what the launcher checks of a descriptor: data 16-byte aligned,
         * every stride (in elements) a multiple of 16 bytes */
        int64_t bytes = tk_dtype_bits(a->type->elem->dtype) / 8;
        set_uniform(r, op->sub == TIR_DESC_DATA ? 16 : op->sub == TIR_DESC_STRIDE && bytes < 16 ? 16 / bytes : 1);
        return;
    }
    case TIR_MAKE_RANGE:
        r->contiguity[0] = r->type->shape[0];
        r->divisibility[0] = pow2_divisor(tk_tir_attr_int(op, "start", 0));
        r->constancy[0] = 1;
        r->has_axis = true;
        return;
    case TIR_SPLAT:
        set_uniform(r, q_of(a, 0));
        return;
    case TIR_BROADCAST:
        for (uint32_t d = 0; d < dims(r); d++) {
            bool expanded = dim_size(a, d) == 1 && dim_size(r, d) != 1;
            r->contiguity[d] = expanded ? 1 : g_of(a, d);
            r->divisibility[d] = q_of(a, d);
            r->constancy[d] = expanded ? dim_size(r, d) : c_of(a, d);
        }
        r->has_axis = true;
        return;
    case TIR_RESHAPE: {
        /* size-1 dimensions inserted or removed: the others keep their
         * facts; a new one's divisibility holds for every element */
        uint32_t j = 0;
        int64_t every = MAX_DIV, scale = tir_elem(a->type)->kind == TK_TYPE_POINTER ? elem_bytes(a->type) : 1;
        for (uint32_t d = 0; d < dims(a); d++) every = min64(every, run_div(q_of(a, d), g_of(a, d), 1, scale));
        set_unknown(r);
        for (uint32_t d = 0; d < dims(r); d++) {
            if (dim_size(r, d) == 1) {
                r->divisibility[d] = every;
                continue;
            }
            while (j < dims(a) && dim_size(a, j) == 1) j++;
            if (j < dims(a) && dim_size(a, j) == dim_size(r, d)) {
                r->contiguity[d] = g_of(a, j);
                r->divisibility[d] = q_of(a, j);
                r->constancy[d] = c_of(a, j);
                j++;
            } else {
                set_unknown(r);
                return;
            }
        }
        return;
    }
    case TIR_PERMUTE: {
        /* result dimension d is the operand's dimension order[d] */
        uint32_t order[TK_MAX_RANK], n = tk_tir_permute_order(op, order);
        set_unknown(r);
        if (n != dims(r)) return;
        for (uint32_t d = 0; d < n; d++) {
            if (order[d] >= dims(a)) {
                set_unknown(r);
                return;
            }
            r->contiguity[d] = g_of(a, order[d]);
            r->divisibility[d] = q_of(a, order[d]);
            r->constancy[d] = c_of(a, order[d]);
        }
        return;
    }
    case TIR_CONVERT_LAYOUT:
    case TIR_CAST: {
        if (!a->has_axis) { set_unknown(r); return; }
        memcpy(r->contiguity, a->contiguity, sizeof r->contiguity);
        memcpy(r->divisibility, a->divisibility, sizeof r->divisibility);
        memcpy(r->constancy, a->constancy, sizeof r->constancy);
        r->has_axis = true;
        /* a pointer's run steps by its element's size, an integer's by 1:
         * an address as an integer (or back) is a run only for bytes */
        bool from_ptr = tir_elem(a->type)->kind == TK_TYPE_POINTER, to_ptr = tir_elem(r->type)->kind == TK_TYPE_POINTER;
        int64_t step = from_ptr ? elem_bytes(a->type) : to_ptr ? elem_bytes(r->type) : 1;
        if (from_ptr != to_ptr && step > 1)
            for (uint32_t d = 0; d < dims(r); d++) {
                r->divisibility[d] = run_div(r->divisibility[d], r->contiguity[d], 1, from_ptr ? step : 1);
                r->contiguity[d] = 1;
            }
        /* a pointer to another element size: a run of the old elements
         * is none of the new ones (the byte divisibility stays) */
        if (from_ptr && to_ptr && elem_bytes(a->type) != elem_bytes(r->type))
            for (uint32_t d = 0; d < dims(r); d++) r->contiguity[d] = 1;
        return;
    }
    case TIR_HINT: {
        memcpy(r->contiguity, a->contiguity, sizeof r->contiguity);
        memcpy(r->divisibility, a->divisibility, sizeof r->divisibility);
        memcpy(r->constancy, a->constancy, sizeof r->constancy);
        r->has_axis = true;
        uint32_t d = 0;
        for (uint32_t i = 0; i < op->attrs.len && d < dims(r); i++) {
            if (strcmp(op->attrs.data[i].name, "value") != 0) continue;
            /* facts are powers of two: runs of 12 are runs of 4 */
            int64_t v = pow2_floor_divisor(op->attrs.data[i].i);
            if (op->sub == TK_B_MULTIPLE_OF) r->divisibility[d] = v;
            else if (op->sub == TK_B_MAX_CONTIGUOUS) r->contiguity[d] = v;
            else r->constancy[d] = v;
            d++;
        }
        return;
    }
    case TIR_ADDPTR:
    case TIR_BINARY: {
        bool ptr = op->code == TIR_ADDPTR;
        int64_t scale = ptr ? elem_bytes(r->type) : 1;
        int sub = ptr ? TK_BINOP_ADD : op->sub;
        for (uint32_t d = 0; d < dims(r); d++) {
            int64_t ca = g_of(a, d), cb = g_of(b, d), ka = c_of(a, d), kb = c_of(b, d);
            int64_t da = q_of(a, d), db = q_of(b, d) * scale;
            if (db > MAX_DIV) db = MAX_DIV;
            switch (sub) {
            case TK_BINOP_ADD:
            case TK_BINOP_SUB: {
                /* a run plus a constant stays a run; a constant minus a run
                 * counts down, which is no run at all */
                int64_t m = sub == TK_BINOP_ADD ? max64(min64(ca, kb), min64(cb, ka)) : min64(ca, kb);
                r->contiguity[d] = m;
                r->divisibility[d] = min64(run_div(da, ca, m, ptr ? scale : 1), run_div(q_of(b, d), cb, m, 1) * scale);
                if (r->divisibility[d] > MAX_DIV) r->divisibility[d] = MAX_DIV;
                r->constancy[d] = min64(ka, kb);
                break;
            }
            case TK_BINOP_MUL: {
                int64_t one;
                bool by_one_b = is_const(b, &one) && one == 1, by_one_a = is_const(a, &one) && one == 1;
                r->contiguity[d] = by_one_b ? ca : by_one_a ? cb : 1;
                /* without a run left, every element's divisibility multiplies */
                r->divisibility[d] = by_one_b ? da : by_one_a ? db
                                   : min64(run_div(da, ca, 1, 1) * run_div(db, cb, 1, 1), MAX_DIV);
                r->constancy[d] = min64(ka, kb);
                break;
            }
            case TK_BINOP_AND:
            case TK_BINOP_OR:
            case TK_BINOP_XOR:
                r->contiguity[d] = 1;
                r->divisibility[d] = 1;
                r->constancy[d] = min64(ka, kb);
                break;
            default:
                r->contiguity[d] = 1;
                r->divisibility[d] = 1;
                r->constancy[d] = min64(ka, kb);
                if (sub == TK_BINOP_FLOORDIV && is_const(b, &k) && k > 0 && ka > 1) r->constancy[d] = ka;
            }
        }
        r->has_axis = true;
        return;
    }
    case TIR_CMP: {
        /* a run x of consecutive values against a splat s is constant over
         * aligned pieces no bigger than either side's divisibility where
         * the test turns between s - 1 and s, a multiple of the piece: x <
         * s, x >= s (and s > x, s <= x). x <= s turns between s and s + 1,
         * inside a piece; x == s holds at one element. */
        bool left_run = op->sub == TK_BINOP_LT || op->sub == TK_BINOP_GE;
        bool right_run = op->sub == TK_BINOP_GT || op->sub == TK_BINOP_LE;
        for (uint32_t d = 0; d < dims(r); d++) {
            int64_t ka = c_of(a, d), kb = c_of(b, d);
            int64_t k2 = min64(ka, kb);
            if (left_run && kb >= dim_size(r, d) && g_of(a, d) > 1)
                k2 = max64(k2, min64(g_of(a, d), min64(q_of(a, d), q_of(b, d))));
            if (right_run && ka >= dim_size(r, d) && g_of(b, d) > 1)
                k2 = max64(k2, min64(g_of(b, d), min64(q_of(b, d), q_of(a, d))));
            r->contiguity[d] = 1;
            r->divisibility[d] = 1;
            r->constancy[d] = k2;
        }
        r->has_axis = true;
        return;
    }
    case TIR_SELECT:
        for (uint32_t d = 0; d < dims(r); d++) {
            tk_tir_value *c = a, *x = b, *y = op->operands.data[2];
            int64_t m = c_of(c, d) >= dim_size(r, d) ? min64(g_of(x, d), g_of(y, d)) : 1;
            int64_t scale = tir_elem(r->type)->kind == TK_TYPE_POINTER ? elem_bytes(r->type) : 1;
            r->contiguity[d] = m;
            r->divisibility[d] = min64(run_div(q_of(x, d), g_of(x, d), m, scale), run_div(q_of(y, d), g_of(y, d), m, scale));
            r->constancy[d] = min64(c_of(c, d), min64(c_of(x, d), c_of(y, d)));
        }
        r->has_axis = true;
        return;
    case TIR_UNARY:
        for (uint32_t d = 0; d < dims(r); d++) {
            r->contiguity[d] = 1;
            r->divisibility[d] = op->sub == TIR_NEG ? run_div(q_of(a, d), g_of(a, d), 1, 1) : 1;
            r->constancy[d] = c_of(a, d);
        }
        r->has_axis = true;
        return;
    default:
        for (uint32_t i = 0; i < op->results.len; i++)
            if (!op->results.data[i]->has_axis) set_unknown(op->results.data[i]);
        return;
    }
}

static void visit(tk_tir_op *op) {
    visit_op(op);
    for (uint32_t i = 0; i < op->results.len; i++) cap_narrow(op->results.data[i]);
}

/* facts of v met with w: the weaker of each */
static bool meet(tk_tir_value *v, const tk_tir_value *w) {
    int64_t scale = tir_elem(v->type)->kind == TK_TYPE_POINTER ? elem_bytes(v->type) : 1;
    bool changed = !v->has_axis;
    for (uint32_t d = 0; d < dims(v); d++) {
        int64_t m = min64(g_of(v, d), g_of(w, d));
        int64_t q = min64(run_div(q_of(v, d), g_of(v, d), m, scale), run_div(q_of(w, d), g_of(w, d), m, scale));
        int64_t k = min64(c_of(v, d), c_of(w, d));
        changed |= q != v->divisibility[d] || m != v->contiguity[d] || k != v->constancy[d];
        v->divisibility[d] = q, v->contiguity[d] = m, v->constancy[d] = k;
    }
    v->has_axis = true;
    return changed;
}

static void copy_facts(tk_tir_value *v, const tk_tir_value *w) {
    if (!w->has_axis) {
        set_unknown(v);
        return;
    }
    memcpy(v->contiguity, w->contiguity, sizeof v->contiguity);
    memcpy(v->divisibility, w->divisibility, sizeof v->divisibility);
    memcpy(v->constancy, w->constancy, sizeof v->constancy);
    v->has_axis = true;
}

static void analyze_block(tk_tir_block *blk);

static const tk_tir_op *terminator(const tk_tir_block *blk) {
    for (uint32_t i = blk->ops.len; i-- > 0;)
        if (!blk->ops.data[i]->dead && (blk->ops.data[i]->code == TIR_YIELD || blk->ops.data[i]->code == TIR_CONDITION))
            return blk->ops.data[i];
    return NULL;
}

static void analyze_loop(tk_tir_op *op) {
    bool is_for = op->code == TIR_FOR;
    uint32_t first = is_for ? 3 : 0;
    for (uint32_t r = 0; r < op->regions.len; r++) {
        tk_tir_block *blk = op->regions.data[r];
        uint32_t skip = is_for ? 1 : 0;
        if (is_for) {
            tk_tir_value *iv = blk->args.data[0], *lo = op->operands.data[0], *step = op->operands.data[2];
            set_uniform(iv, min64(q_of(lo, 0), q_of(step, 0)));
        }
        for (uint32_t i = skip; i < blk->args.len; i++) copy_facts(blk->args.data[i], op->operands.data[first + i - skip]);
    }
    /* until the arguments hold: a fact carried through several arguments
     * (r = q; q = p; p += 3) weakens one argument a round. Meets only lower
     * facts, powers of two, so this ends; the cap is a guard */
    for (int round = 0;; round++) {
        for (uint32_t r = 0; r < op->regions.len; r++) analyze_block(op->regions.data[r]);
        const tk_tir_op *y = terminator(op->regions.data[op->regions.len - 1]);
        bool changed = false;
        for (uint32_t r = 0; r < op->regions.len && y; r++) {
            tk_tir_block *blk = op->regions.data[r];
            uint32_t skip = is_for ? 1 : 0;
            for (uint32_t i = skip; i < blk->args.len && i - skip < y->operands.len; i++)
                changed |= meet(blk->args.data[i], y->operands.data[i - skip]);
        }
        if (!changed) break;
        if (round == MAX_ROUNDS) {
            for (uint32_t r = 0; r < op->regions.len; r++)
                for (uint32_t i = is_for ? 1 : 0; i < op->regions.data[r]->args.len; i++)
                    set_unknown(op->regions.data[r]->args.data[i]);
            break;
        }
    }
    for (uint32_t r = 0; r < op->regions.len; r++) analyze_block(op->regions.data[r]);
    tk_tir_block *body = op->regions.data[op->regions.len - 1];
    uint32_t skip = is_for ? 1 : 0;
    for (uint32_t i = 0; i < op->results.len; i++) copy_facts(op->results.data[i], body->args.data[i + skip]);
}

static void analyze_block(tk_tir_block *blk) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        if (op->code == TIR_FOR || op->code == TIR_WHILE) {
            analyze_loop(op);
        } else if (op->code == TIR_WARP_SPECIALIZE) {
            for (uint32_t r = 0; r < op->regions.len; r++) analyze_block(op->regions.data[r]);
        } else if (op->code == TIR_IF) {
            for (uint32_t r = 0; r < op->regions.len; r++) analyze_block(op->regions.data[r]);
            const tk_tir_op *t = terminator(op->regions.data[0]), *e = terminator(op->regions.data[1]);
            for (uint32_t k = 0; k < op->results.len; k++) {
                if (t) copy_facts(op->results.data[k], t->operands.data[k]);
                if (e) meet(op->results.data[k], e->operands.data[k]);
            }
        } else {
            visit(op);
        }
    }
}

void tir_pass_axis_info(tk_arena *arena, tk_tir_kernel *k) {
    (void)arena;
    const tk_sema_kernel *sk = k->sema;
    uint32_t arg = 0;
    for (uint32_t i = 0; i < sk->params.len; i++) {
        const tk_sema_param *p = &sk->params.data[i];
        if (p->is_constexpr) continue;
        bool assumed = arg < 64 && (k->assume_div16 >> arg & 1);
        tk_tir_value *v = k->body->args.data[arg++];
        set_uniform(v, p->promise == TK_PROMISE_DIVISIBLE ? (int64_t)p->promise_value : assumed ? 16 : 1);
    }
    analyze_block(k->body);
}
