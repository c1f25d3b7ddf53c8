/* Shared memory: the scratch each op needs (scratch.c: a reduction or
 * scan across warps, a layout conversion that moves data between warps or
 * between registers and lanes, join, split, cat, an atomic's old values),
 * allocated by liveness. Scratch lives only while its op runs, so
 * every op could start at 0; instead consecutive ops alternate between two
 * regions when both fit in a little memory, so the next op's writes never
 * meet the previous op's reads and barriers.c needs no barrier between
 * them (a reduction's max followed by its sum: one barrier each, not two).
 * The buffers of pipelined loops (pipeline_dot.c) live across whole
 * loops: they come first, each stage on a 1024-byte boundary (loops one
 * after another reusing the same memory), and the scratch regions after
 * them, except for ops after the buffers' last use (outside the loops
 * that use them), whose scratch may lie over them. The kernel needs what
 * ends highest: the buffers, or one op's scratch. passes.c builds a
 * kernel again less deep where the scratch beside its buffers does not
 * fit.
 * Needs: layouts. Sets each op's scratch_offset, scratch_bytes,
 * scratch_slot and scratch_layout, the buffers' offsets, and the kernel's
 * shared_bytes. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* two regions only while together they stay this small: more shared
 * memory per program would cost occupancy, which the barrier saved is not
 * worth */
enum { TWO_REGION_LIMIT = 8192, SCRATCH_ALIGN = 16 };

typedef struct smem_ctx {
    tk_arena *arena;
    bool *used;              /* by value id: operands of live ops */
    uint32_t count;          /* scratch ops seen, in program order */
    int64_t region_size[2];  /* the largest need of the even and odd ops */
} smem_ctx;

static uint32_t align_up(int64_t n) { return (uint32_t)((n + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN); }

static void size_op(tk_tir_op *op, void *ctx) {
    smem_ctx *s = ctx;
    tk_tir_scratch need = {0};
    if (!op->dead) need = tk_tir_scratch_need(s->arena, op, op->results.len && s->used[op->results.data[0]->id]);
    op->scratch_bytes = need.bytes ? align_up((int64_t)need.bytes) : 0;
    op->scratch_slot = need.slot_bytes;
    op->scratch_layout = need.layout;
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

static bool uses_buffers(const tk_tir_op *op) {
    switch (op->code) {
    case TIR_LOCAL_VIEW: case TIR_ASYNC_COPY: case TIR_ASYNC_COMMIT: case TIR_ASYNC_WAIT: case TIR_LOCAL_LOAD:
    case TIR_LOCAL_STORE: case TIR_DOT_WAIT:
        return true;
    case TIR_DOT: /* a wgmma reading a view */
        for (uint32_t i = 0; i < op->operands.len; i++)
            if (op->operands.data[i]->def && op->operands.data[i]->def->code == TIR_LOCAL_VIEW) return true;
        return false;
    default:
        return false;
    }
}

static bool subtree_uses_buffers(const tk_tir_op *op) {
    if (uses_buffers(op)) return true;
    for (uint32_t r = 0; r < op->regions.len; r++)
        for (uint32_t i = 0; i < op->regions.data[r]->ops.len; i++)
            if (!op->regions.data[r]->ops.data[i]->dead && subtree_uses_buffers(op->regions.data[r]->ops.data[i]))
                return true;
    return false;
}

/* The buffers are free once the last op that uses them has run, outside
 * any loop that uses them (a next trip would use them again); the drain
 * after a pipelined loop passes a barrier, so scratch after it may take
 * the buffers' memory (an f16 epilogue tile beside a matmul's stages). */
typedef struct lifetime {
    uint32_t seq, last_use;
    uint32_t buffer_bytes;
} lifetime;

static void find_last_use(lifetime *lt, const tk_tir_block *blk) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        lt->seq++;
        if (uses_buffers(op)) lt->last_use = lt->seq;
        for (uint32_t r = 0; r < op->regions.len; r++) find_last_use(lt, op->regions.data[r]);
    }
}

static void shift_live_scratch(lifetime *lt, tk_tir_block *blk, bool in_buffer_loop) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        lt->seq++;
        if (op->scratch_bytes) {
            bool free_now = lt->seq > lt->last_use && !in_buffer_loop;
            if (!free_now) op->scratch_offset += lt->buffer_bytes;
        }
        bool loop = op->code == TIR_FOR || op->code == TIR_WHILE;
        bool inner = in_buffer_loop || (loop && subtree_uses_buffers(op));
        for (uint32_t r = 0; r < op->regions.len; r++) shift_live_scratch(lt, op->regions.data[r], inner);
    }
}

/* A 128-byte swizzle repeats every 1024 bytes, and wgmma descriptors take
 * its pattern from the address bits: every stage of a tile starts on such
 * a boundary. A row (rank 1, never a tensor-core operand) needs only
 * 16 bytes, its widest access. */
uint32_t tir_buffer_align(const tk_tir_buffer *b) { return b->tile->rank == 1 ? 16 : 1024; }

static uint32_t round_up(uint32_t x, uint32_t to) { return (x + to - 1) / to * to; }

uint32_t tir_buffer_stage_span(const tk_tir_buffer *b) { return round_up(b->stage_bytes, tir_buffer_align(b)); }

/* is loop `outer` the loop `inner` or one enclosing it? */
static bool loop_encloses(const tk_tir_op *outer, const tk_tir_op *inner) {
    for (const tk_tir_op *o = inner; o; o = o->parent ? o->parent->parent : NULL)
        if (o == outer) return true;
    return false;
}

/* Are the buffers of these two loops live at once? The drain after a
 * pipelined loop waits for its copies and passes a barrier, so a loop
 * after it may reuse its memory. */
static bool loops_overlap(const tk_tir_op *a, const tk_tir_op *b) {
    return !a || !b || loop_encloses(a, b) || loop_encloses(b, a);
}

uint32_t tir_place_buffers(tk_tir_kernel *k, uint32_t n, const tk_tir_op *loop, uint32_t *base_for) {
    uint32_t total = 0, base = 0;
    for (uint32_t i = 0; i < n; i++) {
        tk_tir_buffer *b = &k->buffers.data[i];
        b->stage_bytes = tir_buffer_stage_span(b);
        uint32_t at = 0;
        for (uint32_t j = 0; j < i; j++) {
            const tk_tir_buffer *o = &k->buffers.data[j];
            uint32_t end = o->offset + o->stage_bytes * o->stages;
            if (end > at && loops_overlap(o->loop, b->loop)) at = end;
        }
        b->offset = round_up(at, tir_buffer_align(b));
        uint32_t end = b->offset + b->stage_bytes * b->stages;
        if (end > total) total = end;
        if (loop && end > base && loops_overlap(b->loop, loop)) base = end;
    }
    if (base_for) *base_for = base;
    return total;
}

static void scratch_end(tk_tir_op *op, void *ctx) {
    uint32_t *end = ctx;
    if (op->scratch_bytes && op->scratch_offset + op->scratch_bytes > *end) *end = op->scratch_offset + op->scratch_bytes;
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
    /* buffers live across whole loops: scratch goes after them while they
     * are in use, over them once they are free */
    uint32_t buffers = tir_place_buffers(k, k->buffers.len, NULL, NULL);
    if (buffers) {
        lifetime lt = {0};
        find_last_use(&lt, k->body);
        lt.seq = 0;
        lt.buffer_bytes = buffers;
        shift_live_scratch(&lt, k->body, false);
        /* each op's scratch ends where it ends: an epilogue's conversion
         * over the dead buffers needs no room beside a loop's small
         * reduction scratch after them */
        uint32_t end = buffers;
        tir_walk(k->body, scratch_end, &end);
        k->shared_bytes = end;
    }
}

static void find_largest(tk_tir_op *op, void *ctx) {
    const tk_tir_op **largest = ctx;
    if (op->scratch_bytes > (*largest ? (*largest)->scratch_bytes : 0)) *largest = op;
}

/* the largest scratch placed after the buffers (needed while they are in use) */
typedef struct beside_buffers {
    uint32_t from;
    const tk_tir_op *largest;
} beside_buffers;

static void find_largest_beside(tk_tir_op *op, void *ctx) {
    beside_buffers *b = ctx;
    if (op->scratch_bytes && op->scratch_offset >= b->from &&
        op->scratch_bytes > (b->largest ? b->largest->scratch_bytes : 0))
        b->largest = op;
}

bool tir_check_shared_memory(tk_arena *arena, tk_diag *diag, const tk_target *target, tk_tir_kernel *k) {
    if (!target || k->shared_bytes <= target->smem_per_block) return true;
    if (k->buffers.len) {
        /* the pipeline's buffers: name the tiles and the depth of those
         * that end highest and of those live beside them */
        const tk_tir_buffer *top = &k->buffers.data[0];
        for (uint32_t i = 1; i < k->buffers.len; i++) {
            const tk_tir_buffer *b = &k->buffers.data[i];
            if (b->offset + b->stage_bytes * b->stages > top->offset + top->stage_bytes * top->stages) top = b;
        }
        const tk_tir_buffer *b0 = NULL;
        uint32_t bytes = 0;
        bool same_depth = true;
        for (uint32_t i = 0; i < k->buffers.len; i++) {
            const tk_tir_buffer *b = &k->buffers.data[i];
            if (!loops_overlap(b->loop, top->loop)) continue;
            if (!b0) b0 = b;
            same_depth &= b->stages == b0->stages;
            bytes += b->stage_bytes * b->stages;
        }
        /* each tile with its copies where they differ (a loop-invariant
         * operand keeps one beside the loop's ring) */
        const char *tiles = "";
        for (uint32_t i = 0; i < k->buffers.len; i++) {
            const tk_tir_buffer *b = &k->buffers.data[i];
            if (!loops_overlap(b->loop, top->loop)) continue;
            const char *tile = tk_type_str(arena, b->tile);
            tiles = same_depth ? tk_arena_printf(arena, "%s%s%s", tiles, *tiles ? " and " : "", tile)
                               : tk_arena_printf(arena, "%s%s%u of %s", tiles, *tiles ? ", " : "", b->stages, tile);
        }
        const char *copies = same_depth ? tk_arena_printf(arena, "%u copies of the dot's tiles %s", b0->stages, tiles)
                                        : tk_arena_printf(arena, "copies of the dot's tiles: %s", tiles);
        tk_error(diag, b0->loc, "kernel '%s' needs %u bytes of shared memory, more than the %u a block may have "
                 "on %s: num_stages=%u keeps %s (%u bytes)",
                 k->sema->name, k->shared_bytes, target->smem_per_block, target->name,
                 same_depth ? b0->stages : k->num_stages, copies, bytes);
        beside_buffers beside = {bytes, NULL};
        tir_walk(k->body, find_largest_beside, &beside);
        if (beside.largest)
            tk_note(diag, beside.largest->loc, "and this %s needs %u bytes beside them while they are in use",
                    tk_tir_opcode_name(beside.largest->code), beside.largest->scratch_bytes);
        tk_note(diag, b0->loc, "use fewer stages (num_stages) or smaller tiles (BM, BN, BK)");
        return false;
    }
    const tk_tir_op *largest = NULL;
    tir_walk(k->body, find_largest, &largest);
    tk_loc at = largest ? largest->loc : k->sema->loc;
    tk_error(diag, at, "kernel '%s' needs %u bytes of shared memory, more than the %u a block may have on %s%s",
             k->sema->name, k->shared_bytes, target->smem_per_block, target->name,
             largest ? tk_arena_printf(arena, "; this %s alone takes %u (use smaller blocks)",
                                       tk_tir_opcode_name(largest->code), largest->scratch_bytes)
                     : "");
    return false;
}
