/* Triton's launch-time specialization, ahead of time: which runtime
 * integer parameters each compiled variant of a kernel assumes equal to 1
 * or divisible by 16, and which pointers 16-byte aligned. Triton's JIT
 * specializes on every argument; tkc
 * compiles a few variants and the launcher picks the first whose
 * assumptions the arguments meet.
 *
 * The parameters that matter, found on the kernel lowered without
 * assumptions:
 * - unit strides: a parameter multiplying an index tile that varies along
 *   its last dimension only (`offs_k[None, :] * stride_ak`, `offs *
 *   stride`) into an address: == 1 makes the access contiguous, so loads
 *   and stores vectorize;
 * - other address parameters (outer strides, row offsets): % 16 keeps
 *   each row's start aligned;
 * - parameters compared with tiles (the `n` of `offs < n`): % 16 keeps a
 *   mask uniform over 16-byte vectors;
 * - pointers a tile is loaded or stored through: 16-byte aligned, as
 *   Triton assumes of the pointers it is given.
 *
 * Needs: a kernel lowered with no assumption. Guarantees: at most `budget`
 * specializations (at least 1), the general one (no assumption) last;
 * every assumption on a runtime integer parameter of 32 bits or more, or a
 * pointer, among the first 64, that has no promise and that no heuristic
 * computes; no two alike. */
#include "internal.h"

#include <string.h>

typedef struct carried { const tk_tir_value *arg, *init; } carried;

typedef struct param_uses {
    const tk_tir_kernel *kernel;
    const tk_tir_block *body;
    uint64_t tiles;      /* pointers a tile is loaded or stored through */
    uint64_t compared;   /* compared with tiles */
    uint64_t unit;       /* strides of a last dimension */
    uint64_t address;    /* other parameters an address is computed from */
    /* by pointer parameter: its strides of the last dimension, and of the
     * first of a 2-D tile (a transposed or K-major operand's unit stride) */
    uint64_t unit_of[64], lead_of[64];
    uint64_t dot_b, dot_a; /* pointers a dot's B (A) operand is loaded through */
    /* each run-time loop's carried value and what it starts as (the
     * pointers a loop advances: a_ptrs += BK) */
    TK_VEC(carried) carried;
    tk_arena *arena;
} param_uses;

static int param_index(const param_uses *u, const tk_tir_value *v) {
    for (uint32_t a = 0; a < u->body->args.len && a < 64; a++)
        if (u->body->args.data[a] == v) return (int)a;
    return -1;
}

/* the parameters scalar or tile v is computed from by + - * and casts
 * (matmul's k_left = K - k * BK: K), splats and broadcasts, a few levels deep */
static uint64_t params_of(const param_uses *u, const tk_tir_value *v, int depth) {
    if (!v->def) {
        int a = param_index(u, v);
        return a >= 0 ? 1ull << a : 0;
    }
    const tk_tir_op *d = v->def;
    bool arith = d->code == TIR_BINARY && (d->sub == TK_BINOP_ADD || d->sub == TK_BINOP_SUB || d->sub == TK_BINOP_MUL);
    bool shape = d->code == TIR_SPLAT || d->code == TIR_BROADCAST || d->code == TIR_RESHAPE;
    if (depth > 4 || !(arith || shape || d->code == TIR_CAST)) return 0;
    uint64_t mask = 0;
    for (uint32_t i = 0; i < d->operands.len; i++) mask |= params_of(u, d->operands.data[i], depth + 1);
    return mask;
}

/* v with splats, broadcasts and casts stripped */
static const tk_tir_value *strip_shape(const tk_tir_value *v) {
    while (v->def && (v->def->code == TIR_SPLAT || v->def->code == TIR_BROADCAST || v->def->code == TIR_CAST))
        v = v->def->operands.data[0];
    return v;
}

/* a tile whose elements differ along dimension `dim` only */
static bool varies_along(const tk_type *t, uint32_t dim) {
    if (t->kind != TK_TYPE_TILE || dim >= t->rank || t->shape[dim] < 2) return false;
    for (uint32_t d = 0; d < t->rank; d++)
        if (d != dim && t->shape[d] != 1) return false;
    return true;
}

/* an address offset from pointer parameter `ptr` (-1: none): its terms
 * (through + and -), each a stride times an index tile or an offset
 * parameters are part of */
static void note_offset(param_uses *u, const tk_tir_value *v, int ptr, int depth) {
    const tk_tir_op *d = v->def;
    if (depth > 6) return;
    if (d && (d->code == TIR_CAST || d->code == TIR_BROADCAST || d->code == TIR_RESHAPE)) {
        note_offset(u, d->operands.data[0], ptr, depth + 1);
        return;
    }
    if (d && d->code == TIR_BINARY && (d->sub == TK_BINOP_ADD || d->sub == TK_BINOP_SUB)) {
        note_offset(u, d->operands.data[0], ptr, depth + 1);
        note_offset(u, d->operands.data[1], ptr, depth + 1);
        return;
    }
    if (d && d->code == TIR_BINARY && d->sub == TK_BINOP_MUL) {
        for (int side = 0; side < 2; side++) {
            const tk_tir_value *factor = strip_shape(d->operands.data[side]);
            const tk_tir_value *other = d->operands.data[1 - side];
            int a = factor->def ? -1 : param_index(u, factor);
            if (a < 0) continue;
            if (varies_along(other->type, other->type->kind == TK_TYPE_TILE ? other->type->rank - 1 : 0)) {
                u->unit |= 1ull << a;
                if (ptr >= 0) u->unit_of[ptr] |= 1ull << a;
                u->address |= params_of(u, other, 0);
                return;
            }
            if (ptr >= 0 && other->type->kind == TK_TYPE_TILE && other->type->rank == 2 && varies_along(other->type, 0))
                u->lead_of[ptr] |= 1ull << a;
        }
    }
    u->address |= params_of(u, v, 0);
}

/* The pointer parameter v is derived from, through addresses and the
 * values loops carry (-1: none). */
static int root_param(const param_uses *u, const tk_tir_value *v) {
    for (int hops = 0; hops < 8; hops++) {
        v = tir_strip_address(v);
        int a = param_index(u, v);
        if (a >= 0 || v->def) return a;
        const tk_tir_value *init = NULL;
        for (uint32_t i = 0; i < u->carried.len && !init; i++)
            if (u->carried.data[i].arg == v) init = u->carried.data[i].init;
        if (!init) return -1;
        v = init;
    }
    return -1;
}

static void find_carried(tk_tir_op *op, void *ctx) {
    param_uses *u = ctx;
    if (op->code != TIR_FOR || !op->regions.len) return;
    const tk_tir_block *body = op->regions.data[0];
    for (uint32_t i = 1; i < body->args.len && 2 + i < op->operands.len; i++) {
        carried c = {body->args.data[i], op->operands.data[2 + i]};
        tk_vec_push(u->arena, &u->carried, c);
    }
}

/* the pointer parameter a dot operand is loaded through (-1: none) */
static int operand_pointer(const param_uses *u, const tk_tir_value *v) {
    while (v->def && (v->def->code == TIR_CAST || v->def->code == TIR_CONVERT_LAYOUT || v->def->code == TIR_UNARY ||
                      v->def->code == TIR_BINARY))
        v = v->def->operands.data[0];
    if (!v->def || v->def->code != TIR_LOAD) return -1;
    return root_param(u, v->def->operands.data[0]);
}

static void find_uses(tk_tir_op *op, void *ctx) {
    param_uses *u = ctx;
    if (op->code == TIR_ADDPTR) {
        note_offset(u, op->operands.data[1], root_param(u, op->operands.data[0]), 0);
    } else if (op->code == TIR_DOT) {
        int a = operand_pointer(u, op->operands.data[0]), b = operand_pointer(u, op->operands.data[1]);
        if (a >= 0) u->dot_a |= 1ull << a;
        if (b >= 0) u->dot_b |= 1ull << b;
    } else if (op->code == TIR_LOAD || op->code == TIR_STORE) {
        const tk_tir_value *ptr = op->operands.data[0];
        int a = ptr->type->kind == TK_TYPE_TILE ? root_param(u, ptr) : -1;
        if (a >= 0) u->tiles |= 1ull << a;
    } else if (op->code == TIR_CMP) {
        for (uint32_t i = 0; i < op->operands.len; i++) {
            const tk_tir_value *v = op->operands.data[i];
            if (v->def && v->def->code == TIR_SPLAT) u->compared |= params_of(u, v->def->operands.data[0], 0);
            else if (!v->def) u->compared |= params_of(u, v, 0);
        }
    }
}

/* runtime integer parameters (of 32 bits or more) and pointers without a
 * promise */
static void free_params(const tk_sema_kernel *sk, uint64_t *integers, uint64_t *pointers) {
    uint32_t arg = 0;
    *integers = *pointers = 0;
    for (uint32_t i = 0; i < sk->params.len; i++) {
        const tk_sema_param *p = &sk->params.data[i];
        if (p->is_constexpr) continue;
        bool is_int = p->type->kind == TK_TYPE_SCALAR && tk_dtype_is_int(p->type->dtype) &&
                      tk_dtype_bits(p->type->dtype) >= 32;
        /* not a heuristic the launcher computes per variant: it is known
         * only after the choice */
        bool free = arg < 64 && !p->computed && (p->promise == TK_PROMISE_NONE || p->promise == TK_PROMISE_OPTIONAL);
        if (free && is_int) *integers |= 1ull << arg;
        if (free && p->type->kind == TK_TYPE_POINTER) *pointers |= 1ull << arg;
        arg++;
    }
}

/* Adds, for pointer p whose 2-D tiles run along their first dimension
 * where that dimension's stride is 1 (a transposed x, a K-major B), the
 * candidate with p's unit stride there instead of along the last one. */
static uint32_t add_transposed(const param_uses *u, uint64_t integers, uint64_t pointers, uint64_t unit,
                               uint64_t strides, uint64_t want, tir_specialization *out, uint32_t n, uint32_t most) {
    for (uint32_t p = 0; p < 64 && n < most; p++) {
        /* both of p's strides left to the launcher (a promised unit stride
         * along the last dimension leaves the first a row stride) */
        if (!(want >> p & 1) || !(u->lead_of[p] & integers) || !(u->unit_of[p] & integers)) continue;
        uint64_t one = (unit & ~u->unit_of[p]) | (u->lead_of[p] & integers);
        out[n++] = (tir_specialization){one, (strides & integers & ~one) | pointers, "_t"};
    }
    return n;
}

uint32_t tir_specializations(tk_arena *arena, const tk_tir_kernel *general, uint32_t budget,
                             tir_specialization *out) {
    param_uses u = {0};
    u.kernel = general;
    u.body = general->body;
    u.arena = arena;
    tir_walk(general->body, find_carried, &u);
    tir_walk(general->body, find_uses, &u);
    uint64_t integers, pointers;
    free_params(general->sema, &integers, &pointers);
    pointers &= u.tiles;
    uint64_t unit = u.unit & integers;
    uint64_t compared = (u.compared & integers & ~unit) | pointers;
    uint64_t aligned = ((u.address | u.compared) & integers & ~unit) | pointers;
    /* in order of preference: contiguous and aligned; contiguous with
     * ragged sizes; one dot operand transposed (B first, then A: K-major
     * B is what wgmma reads without a transpose for fp8, tf32 and i8);
     * another tile transposed (read down its columns: an f16 x.T + y ran
     * 2.1x faster, where "strided but aligned" gained nothing, its
     * accesses element by element still); strided but aligned; the masks
     * uniform;
     * only the pointers aligned (as Triton assumes of every pointer it is
     * given 16-byte aligned) */
    tir_specialization candidates[6 + 3 * 8 + 1];
    uint32_t nc = 0;
    candidates[nc++] = (tir_specialization){unit, aligned, NULL};
    candidates[nc++] = (tir_specialization){unit, pointers, NULL};
    uint64_t strides = u.address | u.compared | u.unit;
    nc = add_transposed(&u, integers, pointers, unit, strides, u.dot_b, candidates, nc, 2 + 8);
    nc = add_transposed(&u, integers, pointers, unit, strides, u.dot_a & ~u.dot_b, candidates, nc, 2 + 16);
    nc = add_transposed(&u, integers, pointers, unit, strides, u.tiles & ~(u.dot_a | u.dot_b), candidates, nc, 2 + 24);
    candidates[nc++] = (tir_specialization){0, aligned, NULL};
    candidates[nc++] = (tir_specialization){0, compared, NULL};
    candidates[nc++] = (tir_specialization){0, pointers, NULL};
    candidates[nc++] = (tir_specialization){unit, compared, NULL};
    uint32_t n = 0;
    const char *bases[TIR_MAX_SPECIALIZATIONS];
    if (budget < 1) budget = 1;
    if (budget > TIR_MAX_SPECIALIZATIONS) budget = TIR_MAX_SPECIALIZATIONS;
    for (uint32_t c = 0; c < nc && n + 1 < budget; c++) {
        tir_specialization s = candidates[c];
        bool seen = !s.assume_one && !s.assume_div16;
        for (uint32_t j = 0; j < n; j++)
            seen |= out[j].assume_one == s.assume_one && out[j].assume_div16 == s.assume_div16;
        if (seen) continue;
        /* "_u": unit strides; "_a": the pointers aligned, "_d16": more
         * divisible by 16; a second of the same name numbered */
        const char *kind = !s.assume_div16 ? "" : s.assume_div16 == pointers ? "_a" : "_d16";
        /* "_t": a 2-D operand's unit stride along its first dimension */
        const char *base = tk_arena_printf(arena, "%s%s", s.suffix ? s.suffix : s.assume_one ? "_u" : "", kind);
        uint32_t same = 0;
        for (uint32_t j = 0; j < n; j++) same += strcmp(bases[j], base) == 0;
        bases[n] = base;
        s.suffix = same ? tk_arena_printf(arena, "%s_%u", base, same + 1) : base;
        out[n++] = s;
    }
    out[n++] = (tir_specialization){0, 0, ""};
    return n;
}
