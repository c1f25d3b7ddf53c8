/* Barrier insertion.
 * Needs: shared memory placed (smem.c). Guarantees: no op writes scratch
 * that another thread may still be reading. Each scratch op writes its
 * range, passes its own barrier, then reads it; after it, its range has
 * reads pending until the next barrier. A local_store (a wgmma's operand
 * from registers, dot_operands.c) writes its buffer, and the wgmma reading
 * it leaves the buffer with reads pending (waited for in each warpgroup,
 * not yet in every one). A `barrier` goes in front of an op
 * whose range meets a pending range on some path that reaches it: through
 * loops (the back edge carries the end of the body to its start), both
 * arms of an `if`, and a `while`'s condition and body. debug_barrier
 * counts as a barrier. */
#include "internal.h"

#include <string.h>

enum { MAX_PENDING = 8 };

/* ranges with reads pending, as [lo, hi) byte intervals */
typedef struct pending {
    uint32_t n;
    uint32_t lo[MAX_PENDING], hi[MAX_PENDING];
} pending;

static bool has(const pending *p, uint32_t lo, uint32_t hi) {
    for (uint32_t i = 0; i < p->n; i++)
        if (p->lo[i] == lo && p->hi[i] == hi) return true;
    return false;
}

static void add(pending *p, uint32_t lo, uint32_t hi) {
    if (has(p, lo, hi)) return;
    if (p->n < MAX_PENDING) {
        p->lo[p->n] = lo;
        p->hi[p->n++] = hi;
        return;
    }
    /* too many to keep apart: one interval covering them (conservative) */
    for (uint32_t i = 1; i < p->n; i++) {
        if (p->lo[i] < p->lo[0]) p->lo[0] = p->lo[i];
        if (p->hi[i] > p->hi[0]) p->hi[0] = p->hi[i];
    }
    p->n = 1;
    if (lo < p->lo[0]) p->lo[0] = lo;
    if (hi > p->hi[0]) p->hi[0] = hi;
}

static void join(pending *into, const pending *other) {
    for (uint32_t i = 0; i < other->n; i++) add(into, other->lo[i], other->hi[i]);
}

static bool subset(const pending *a, const pending *b) {
    for (uint32_t i = 0; i < a->n; i++) {
        bool covered = false;
        for (uint32_t j = 0; j < b->n && !covered; j++) covered = b->lo[j] <= a->lo[i] && a->hi[i] <= b->hi[j];
        if (!covered) return false;
    }
    return true;
}

static bool meets(const pending *p, uint32_t lo, uint32_t hi) {
    for (uint32_t i = 0; i < p->n; i++)
        if (lo < p->hi[i] && p->lo[i] < hi) return true;
    return false;
}

static bool is_barrier(const tk_tir_op *op) {
    return tk_tir_props(op) & TIR_P_SYNC;
}

typedef struct barrier_ctx {
    tk_arena *arena;
    const tk_tir_kernel *k;
    bool insert;  /* false while looking for a loop's fixed point */
} barrier_ctx;

static void walk_block(barrier_ctx *c, tk_tir_block *blk, pending *st);

/* the shared memory a view's buffer takes, where registers fill it */
static bool stored_range(const barrier_ctx *c, const tk_tir_value *v, uint32_t *lo, uint32_t *hi) {
    if (!v->def || v->def->code != TIR_LOCAL_VIEW) return false;
    const tk_tir_buffer *b = &c->k->buffers.data[tk_tir_attr_int(v->def, "buffer", 0)];
    *lo = b->offset, *hi = b->offset + b->stage_bytes * b->stages;
    return b->from_registers;
}

/* the range op writes: its scratch (read after a barrier of its own), or
 * a local_store's buffer (a barrier op follows) */
static bool written_range(const barrier_ctx *c, const tk_tir_op *op, uint32_t *lo, uint32_t *hi) {
    if (op->code == TIR_LOCAL_STORE) return stored_range(c, op->operands.data[0], lo, hi);
    *lo = op->scratch_offset, *hi = op->scratch_offset + op->scratch_bytes;
    return op->scratch_bytes != 0;
}

/* the state at a loop's head: what enters it joined with what comes back */
static pending loop_head(barrier_ctx *c, const pending *entry, tk_tir_block *first, tk_tir_block *second) {
    bool insert = c->insert;
    c->insert = false;
    pending head = *entry;
    for (;;) {
        pending s = head;
        walk_block(c, first, &s);
        if (second) walk_block(c, second, &s);
        if (subset(&s, &head)) break;
        join(&head, &s);
    }
    c->insert = insert;
    return head;
}

static void walk_block(barrier_ctx *c, tk_tir_block *blk, pending *st) {
    TK_VEC(tk_tir_op *) rebuilt = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        uint32_t lo, hi;
        bool writes = !op->dead && written_range(c, op, &lo, &hi);
        if (writes && meets(st, lo, hi)) {
            if (c->insert) {
                tk_tir_op *bar = tir_new_op(c->arena, TIR_BARRIER, 0, op->loc);
                bar->parent = blk;
                tk_vec_push(c->arena, &rebuilt, bar);
            }
            st->n = 0;
        }
        if (c->insert) tk_vec_push(c->arena, &rebuilt, op);
        if (op->dead) continue;
        if (is_barrier(op)) {
            st->n = 0;
        } else if (op->code == TIR_FOR) {
            pending head = loop_head(c, st, op->regions.data[0], NULL);
            walk_block(c, op->regions.data[0], &head);
            join(st, &head); /* zero trips, or the end of the last one */
        } else if (op->code == TIR_WHILE) {
            pending head = loop_head(c, st, op->regions.data[0], op->regions.data[1]);
            walk_block(c, op->regions.data[0], &head);
            *st = head; /* the loop leaves after its condition */
            walk_block(c, op->regions.data[1], &head);
        } else if (op->code == TIR_WARP_SPECIALIZE) {
            /* the producer touches shared memory only by TMA and mbarriers */
            walk_block(c, op->regions.data[0], st);
        } else if (op->code == TIR_IF) {
            pending other = *st;
            walk_block(c, op->regions.data[0], st);
            if (op->regions.len > 1) walk_block(c, op->regions.data[1], &other);
            join(st, &other);
        }
        if (writes) {
            if (op->code != TIR_LOCAL_STORE) st->n = 0; /* a scratch op's own barrier */
            add(st, lo, hi);
        }
        for (uint32_t j = 0; op->code == TIR_DOT && j < op->operands.len; j++)
            if (stored_range(c, op->operands.data[j], &lo, &hi)) add(st, lo, hi);
    }
    if (c->insert) {
        blk->ops.data = rebuilt.data;
        blk->ops.len = rebuilt.len;
        blk->ops.cap = rebuilt.cap;
    }
}

void tir_pass_barriers(tk_arena *arena, tk_tir_kernel *k) {
    barrier_ctx c = {arena, k, true};
    pending st = {0};
    walk_block(&c, k->body, &st);
}
