/* Shared memory: the scratch each op needs (a reduction or scan across
 * warps, a layout conversion that moves data between warps or between
 * registers and lanes, join, split, cat), allocated by liveness. A
 * conversion lays its tile out there plain or swizzled, whichever costs
 * the fewest bank wavefronts for its writes and reads
 * (tk_ll_conversion_scratch), so a transposed read does not hit one bank
 * 32 times. Scratch lives only while its op runs, so
 * every op could start at 0; instead consecutive ops alternate between two
 * regions when both fit in a little memory, so the next op's writes never
 * meet the previous op's reads and barriers.c needs no barrier between
 * them (a reduction's max followed by its sum: one barrier each, not two).
 * Needs: layouts. Sets each op's scratch_offset/scratch_bytes (and a
 * conversion's scratch_layout) and the
 * kernel's shared_bytes. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* two regions only while together they stay this small: more shared
 * memory per program would cost occupancy, which the barrier saved is not
 * worth */
enum { TWO_REGION_LIMIT = 8192, SCRATCH_ALIGN = 16 };

static int64_t numel(const tk_type *t) {
    int64_t n = 1;
    for (uint32_t i = 0; t->kind == TK_TYPE_TILE && i < t->rank; i++) n *= t->shape[i];
    return n;
}

static int64_t bytes_of(const tk_type *t) {
    const tk_type *e = tir_elem(t);
    if (e->kind == TK_TYPE_POINTER) return 8;
    int64_t b = (tk_dtype_bits(e->dtype) + 7) / 8;
    return b < 4 ? 4 : b; /* scratch words are at least 32 bits */
}

/* does a warp bit of l select along `axis` (work crosses warps)? */
static bool crosses_warps(const tk_ll *l, int64_t axis) {
    uint32_t dim = axis < 0 ? 0 : (uint32_t)axis;
    for (uint32_t i = 0; i < l->warp_bits; i++)
        if (l->warp[i] && tk_ll_coord(l, l->warp[i], dim) != 0) return true;
    return false;
}

static bool is_builtin(const tk_tir_op *op, const char *name) {
    return op->code == TIR_BUILTIN && !strcmp(tk_sema_builtin_name(op->sub), name);
}

/* Does l give some element to more than one thread or register? */
static bool replicates(const tk_ll *l) {
    for (uint32_t i = 0; i < l->reg_bits; i++)
        if (!l->reg[i]) return true;
    for (uint32_t i = 0; i < TK_LL_LANE_BITS; i++)
        if (!l->lane[i]) return true;
    for (uint32_t i = 0; i < l->warp_bits; i++)
        if (!l->warp[i]) return true;
    return false;
}

/* The bytes of scratch op needs; codegen uses exactly these cases. */
static int64_t scratch_need(tk_arena *arena, tk_tir_op *op, const bool *used) {
    if (op->code == TIR_BUILTIN && !strncmp(tk_sema_builtin_name(op->sub), "atomic_", 7) && op->results.len &&
        used[op->results.data[0]->id]) {
        /* one copy of each element (one thread for a scalar) performs the
         * atomic; the old values it returns reach the other copies through
         * shared memory */
        const tk_tir_value *r = op->results.data[0];
        if (r->type->kind == TK_TYPE_TILE && (!r->layout || !replicates(r->layout))) return 0;
        return numel(r->type) * bytes_of(r->type);
    }
    if (op->code == TIR_REDUCE) {
        const tk_tir_value *in = op->operands.data[0];
        if (!in->layout || !crosses_warps(in->layout, tk_tir_attr_int(op, "axis", 0))) return 0;
        /* 8 bytes for each value a state carries: (value, index) for
         * argmax/argmin, each operand of a tuple reduce */
        const char *name = tk_sema_builtin_name(op->sub);
        int64_t slot = !strcmp(name, "argmax") || !strcmp(name, "argmin") ? 16 : 8 * (int64_t)op->operands.len;
        return numel(op->results.data[0]->type) * ((int64_t)1 << in->layout->warp_bits) * slot;
    }
    if (op->code == TIR_CONVERT_LAYOUT || (op->code == TIR_BROADCAST && op->operands.data[0]->layout)) {
        const tk_tir_value *in = op->operands.data[0], *out = op->results.data[0];
        uint64_t n = tk_ll_num_regs(out->layout);
        uint32_t *map = malloc(sizeof(uint32_t) * n), *lane_const = malloc(sizeof(uint32_t) * n);
        uint32_t lane_xor[TK_LL_LANE_BITS];
        int64_t bytes = 0;
        /* registers only, or warp shuffles: no scratch */
        if (map && lane_const && !tk_ll_register_map(in->layout, out->layout, map) &&
            !tk_ll_shuffle_map(in->layout, out->layout, map, lane_const, lane_xor))
        {
            tk_ll *shared = TK_NEW(arena, tk_ll);
            tk_ll_conversion_scratch(shared, in->layout, out->layout, (uint32_t)bytes_of(in->type));
            op->scratch_layout = shared;
            bytes = numel(in->type) * bytes_of(in->type);
        }
        free(map);
        free(lane_const);
        return bytes;
    }
    if (op->code != TIR_BUILTIN || !op->operands.len || !op->operands.data[0]->layout) return 0;
    const tk_ll *l = op->operands.data[0]->layout;
    if (is_builtin(op, "cumsum") || is_builtin(op, "cumprod") || is_builtin(op, "associative_scan"))
        /* a scan across warps: one 8-byte slot a thread, register and
         * scanned tile (several for a tuple scan) */
        return crosses_warps(l, tk_tir_attr_int(op, "axis", 0))
                   ? ((int64_t)32 << l->warp_bits) * (int64_t)tk_ll_num_regs(l) * 8 * (int64_t)op->operands.len
                   : 0;
    if (tk_tir_join_split_cat_in_registers(op)) return 0;
    if (is_builtin(op, "join") || is_builtin(op, "cat"))
        return numel(op->results.data[0]->type) * bytes_of(op->results.data[0]->type);
    if (is_builtin(op, "split")) return numel(op->operands.data[0]->type) * bytes_of(op->operands.data[0]->type);
    return 0;
}

bool tk_tir_join_split_cat_in_registers(const tk_tir_op *op) {
    if (op->code != TIR_BUILTIN || !op->operands.len || !op->results.len) return false;
    const tk_tir_value *a = op->operands.data[0], *r = op->results.data[0];
    if (!a->layout || !r->layout || a->type->kind != TK_TYPE_TILE || r->type->kind != TK_TYPE_TILE) return false;
    tk_ll l;
    uint32_t pair_bit;
    if (is_builtin(op, "split")) return tk_ll_split(&l, a->layout, &pair_bit) && tk_ll_equal(&l, r->layout);
    bool join = is_builtin(op, "join");
    if (!join && !is_builtin(op, "cat")) return false;
    const tk_tir_value *b = op->operands.data[1];
    if (!b->layout || !tk_ll_equal(a->layout, b->layout)) return false;
    if (join) tk_ll_join(&l, a->layout);
    else tk_ll_cat(&l, a->layout);
    return tk_ll_equal(&l, r->layout);
}

typedef struct smem_ctx {
    tk_arena *arena;
    bool *used;              /* by value id: operands of live ops */
    uint32_t count;          /* scratch ops seen, in program order */
    int64_t region_size[2];  /* the largest need of the even and odd ops */
} smem_ctx;

static uint32_t align_up(int64_t n) { return (uint32_t)((n + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN); }

static void size_op(tk_tir_op *op, void *ctx) {
    smem_ctx *s = ctx;
    int64_t need = op->dead ? 0 : scratch_need(s->arena, op, s->used);
    op->scratch_bytes = need > 0 ? align_up(need) : 0;
    if (!op->scratch_bytes) return;
    int64_t *region = &s->region_size[s->count++ & 1];
    if (op->scratch_bytes > *region) *region = op->scratch_bytes;
}

static void place_op(tk_tir_op *op, void *ctx) {
    smem_ctx *s = ctx;
    if (!op->scratch_bytes) return;
    op->scratch_offset = (s->count++ & 1) ? (uint32_t)s->region_size[0] : 0;
}

static void mark_used(tk_tir_op *op, void *ctx) {
    smem_ctx *s = ctx;
    if (op->dead) return;
    for (uint32_t i = 0; i < op->operands.len; i++) s->used[op->operands.data[i]->id] = true;
}

void tir_pass_shared_memory(tk_arena *arena, tk_tir_kernel *k) {
    smem_ctx s = {0};
    s.arena = arena;
    s.used = TK_NEW_ARRAY(arena, bool, k->value_count + 1);
    tir_walk(k->body, mark_used, &s);
    tir_walk(k->body, size_op, &s);
    int64_t largest = s.region_size[0] > s.region_size[1] ? s.region_size[0] : s.region_size[1];
    int64_t both = s.region_size[0] + s.region_size[1];
    if (both <= TWO_REGION_LIMIT || both == largest) {
        s.count = 0;
        tir_walk(k->body, place_op, &s);
        k->shared_bytes = (uint32_t)both;
    } else {
        k->shared_bytes = (uint32_t)largest; /* every op at offset 0 */
    }
}
