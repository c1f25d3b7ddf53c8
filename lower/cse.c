/* Common-subexpression elimination.
 * Needs: SSA, operands rewired by fold. Keeps: semantics. A pure op
 * (arithmetic, casts, splats, ranges, reshapes; not loads, not anything
 * with an effect or a region) equal to one earlier in the same block or an
 * enclosing one (same opcode, sub-kind, operands, attributes, constant and
 * result types) is dropped and its uses take the earlier result. */
#include "internal.h"

#include <string.h>

static bool pure(const tk_tir_op *op) {
    return (tk_tir_props(op) & TIR_P_PURE) && op->results.len == 1 && op->regions.len == 0;
}

static bool same_attrs(const tk_tir_op *a, const tk_tir_op *b) {
    if (a->attrs.len != b->attrs.len) return false;
    for (uint32_t i = 0; i < a->attrs.len; i++) {
        const struct tk_sema_attr *x = &a->attrs.data[i], *y = &b->attrs.data[i];
        if (strcmp(x->name, y->name) != 0 || x->i != y->i) return false;
        if ((x->text == NULL) != (y->text == NULL) || (x->text && strcmp(x->text, y->text) != 0)) return false;
    }
    return true;
}

static bool same(const tk_tir_op *a, const tk_tir_op *b) {
    if (a->code != b->code || a->sub != b->sub || a->operands.len != b->operands.len) return false;
    for (uint32_t i = 0; i < a->operands.len; i++)
        if (a->operands.data[i] != b->operands.data[i]) return false;
    if (!tk_type_equal(a->results.data[0]->type, b->results.data[0]->type)) return false;
    if (a->code == TIR_CONST && memcmp(&a->value, &b->value, sizeof a->value) != 0) return false;
    return same_attrs(a, b);
}

/* The pure ops visible from the op being looked at, hashed: a scope's
 * entries are pushed and popped in LIFO order, so each bucket is a chain
 * through earlier entries and leaving a block restores the heads. */
typedef struct cse_entry {
    const tk_tir_op *op;
    uint32_t hash;
    int32_t older;    /* the bucket's previous head, -1 for none */
} cse_entry;

enum { CSE_BUCKETS = 4096 };

typedef struct cse_ctx {
    tk_arena *arena;
    tk_tir_value **repl;               /* by value id */
    TK_VEC(cse_entry) visible;         /* pure ops of this block and the enclosing ones */
    int32_t head[CSE_BUCKETS];
} cse_ctx;

static uint32_t op_hash(const tk_tir_op *op) {
    uint64_t h = (uint64_t)op->code * 0x9e3779b97f4a7c15ull ^ (uint64_t)(uint32_t)op->sub;
    for (uint32_t i = 0; i < op->operands.len; i++) h = (h ^ op->operands.data[i]->id) * 0x100000001b3ull;
    if (op->code == TIR_CONST) {
        uint64_t bits;
        memcpy(&bits, &op->value, sizeof bits);
        h = (h ^ bits) * 0x100000001b3ull;
    }
    return (uint32_t)(h ^ h >> 32);
}

static void cse_block(cse_ctx *c, tk_tir_block *blk) {
    uint32_t mark = c->visible.len;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        for (uint32_t k = 0; k < op->operands.len; k++) {
            tk_tir_value *v = op->operands.data[k];
            while (c->repl[v->id]) v = c->repl[v->id];
            op->operands.data[k] = v;
        }
        for (uint32_t r = 0; r < op->regions.len; r++) cse_block(c, op->regions.data[r]);
        if (!pure(op)) continue;
        uint32_t h = op_hash(op);
        const tk_tir_op *earlier = NULL;
        for (int32_t k = c->head[h % CSE_BUCKETS]; k >= 0 && !earlier; k = c->visible.data[k].older)
            if (c->visible.data[k].hash == h && same(c->visible.data[k].op, op)) earlier = c->visible.data[k].op;
        if (earlier) {
            c->repl[op->results.data[0]->id] = earlier->results.data[0];
            op->dead = true;
        } else {
            cse_entry e = {op, h, c->head[h % CSE_BUCKETS]};
            c->head[h % CSE_BUCKETS] = (int32_t)c->visible.len;
            tk_vec_push(c->arena, &c->visible, e);
        }
    }
    /* this block's ops are not visible after it */
    while (c->visible.len > mark) {
        const cse_entry *e = &c->visible.data[--c->visible.len];
        c->head[e->hash % CSE_BUCKETS] = e->older;
    }
}

void tir_pass_cse(tk_arena *arena, tk_tir_kernel *k) {
    cse_ctx *c = TK_NEW(arena, cse_ctx);
    c->arena = arena;
    c->repl = TK_NEW_ARRAY(arena, tk_tir_value *, k->value_count + 1);
    for (uint32_t i = 0; i < CSE_BUCKETS; i++) c->head[i] = -1;
    cse_block(c, k->body);
}
