/* Layout propagation (the idea of Triton's LayoutPropagation, in tkc's
 * terms): before assignment, the layout each tile value had best take,
 * carried from the ops whose layout is fixed (anchors) to the ops that
 * take whatever they are given, and chosen by cost where two meet.
 *
 * Anchors (layout_rules.c): a tensor-core dot's accumulator; a load or an
 * atomic of computed pointers (the coalesced layout); a buffer view.
 * Forward: an element-wise op takes its operands' layout, a reduce,
 * reshape or permute relabels its operand's, and a broadcast takes the
 * accumulator layout of which its operand is the slice.
 * Backward: a broadcast with no such accumulator takes the layout of its
 * first user (a row of M subtracted from a dot's result: the row, a
 * broadcast factor smaller, is what moves); a loop-carried value and an
 * if's result weigh what their users need (a store, a copy, a dot).
 * Loops: the carried values go round the body to a fixed point (at most
 * MAX_ROUNDS, and one round each once VISIT_BUDGET op visits are spent).
 * Conflicts: where operands, a loop's initial value and its trip's, or
 * an if's two branches disagree, the layout costing least: each tile that
 * would be converted costs what tk_tir_conversion_kind_of says it moves
 * (nothing in registers, an element a shuffle, bytes twice through shared
 * memory), TRIP_WEIGHT times more a loop deep; a tile that can be
 * recomputed costs nothing.
 * Needs: dots chosen, axis info. Guarantees: value->preferred is that
 * layout, or NULL where nothing reaches the value (layouts.c then decides
 * as before: the layout of an operand, or the default one). Changes no op. */
#include "internal.h"

#include <string.h>

enum { TRIP_WEIGHT = 8, DEEPEST_WEIGHED = 6, MAX_ROUNDS = 4, VISIT_BUDGET = 1 << 20 };

typedef struct prop_ctx {
    tir_layout_rules rules;
    uint32_t depth;   /* loops around the block being walked */
    uint32_t visits;  /* op visits left before loops go round once only */
} prop_ctx;

static uint64_t weight(uint32_t depth) {
    uint64_t w = 1;
    for (uint32_t d = 0; d < depth && d < DEEPEST_WEIGHED; d++) w *= TRIP_WEIGHT;
    return w;
}

static bool is_tile(const tk_tir_value *v) { return v->type->kind == TK_TYPE_TILE; }

static uint32_t block_depth(const tk_tir_block *blk) {
    uint32_t depth = 0;
    for (const tk_tir_block *b = blk; b && b->parent; b = b->parent->parent)
        depth += b->parent->code == TIR_FOR || b->parent->code == TIR_WHILE;
    return depth;
}

/* the loops around where v is made: a conversion of it hoists there */
static uint32_t value_depth(const prop_ctx *c, const tk_tir_value *v) {
    return v->def ? block_depth(v->def->parent) : c->depth;
}

/* a tile that cannot be recomputed where it is wanted: it moves */
static bool fixed(const tk_tir_value *v) { return is_tile(v) && tir_remat_cost(v, TIR_REMAT_BUDGET) < 0; }

/* what v costs to move from `from` to `to`, once */
static uint64_t move_cost(const tk_tir_value *v, const tk_ll *from, const tk_ll *to) {
    if (!from || !to || tk_ll_equal(from, to)) return 0;
    uint64_t elems = 1;
    for (uint32_t d = 0; d < v->type->rank; d++) elems *= (uint64_t)v->type->shape[d];
    switch (tk_tir_conversion_kind_of(from, to)) {
    case TK_CONVERT_REGISTERS: return 0;
    case TK_CONVERT_SHUFFLES: return elems;
    default: return 2 * elems * tir_convert_word_bytes(v->type);
    }
}

/* a value of no layout yet that takes what it meets: a broadcast no
 * accumulator placed (its layout follows its user), a loop-carried value
 * on the first round (its trip decides) */
static bool follows_user(const tk_tir_value *v) {
    return !v->preferred && (!v->def || v->def->code == TIR_BROADCAST);
}

static const tk_ll *use_need(prop_ctx *c, const tk_tir_block *blk, const tk_tir_value *v);

/* the layout operand i of user needs (a copy's pointers, a dot's
 * operands, a stored tile of computed pointers; through a permute, what
 * its result's use needs read the other way round: a transposed copy's
 * pointers), or NULL where any will do */
static const tk_ll *need_of(prop_ctx *c, const tk_tir_op *user, uint32_t i) {
    if (user->code == TIR_PERMUTE && user->parent) {
        const tk_ll *after = use_need(c, user->parent, user->results.data[0]);
        return after ? tir_operand_layout_for(&c->rules, user, 0, after) : NULL;
    }
    if (user->code == TIR_ASYNC_COPY && i >= 1) return tir_copy_layout(&c->rules, user);
    if (user->code == TIR_DOT) return tir_dot_operand_need(&c->rules, user, i);
    if (user->code == TIR_STORE && i == 1 && !fixed(user->operands.data[0]))
        return tir_coalesced_layout(&c->rules, user->operands.data[0]);
    return NULL;
}

/* what it costs use i of user that its operand v is in layout l (a
 * store takes a tile as wide as the coalesced layout where it is) */
static uint64_t use_cost(prop_ctx *c, const tk_tir_op *user, uint32_t i, const tk_tir_value *v, const tk_ll *l) {
    const tk_ll *need = need_of(c, user, i);
    if (need && user->code == TIR_STORE && tir_stored_where_it_is(&c->rules, user->operands.data[0], v, l)) return 0;
    return move_cost(v, l, need);
}

/* what the first use of v among blk's ops that needs a layout needs, or NULL */
static const tk_ll *use_need(prop_ctx *c, const tk_tir_block *blk, const tk_tir_value *v) {
    for (uint32_t k = 0; k < blk->ops.len; k++) {
        const tk_tir_op *user = blk->ops.data[k];
        for (uint32_t i = 0; !user->dead && i < user->operands.len; i++) {
            const tk_ll *need = user->operands.data[i] == v ? need_of(c, user, i) : NULL;
            if (need) return need;
        }
    }
    return NULL;
}

static uint64_t uses_cost(prop_ctx *c, const tk_tir_block *blk, const tk_tir_value *v, const tk_ll *l) {
    uint64_t cost = 0;
    for (uint32_t k = 0; k < blk->ops.len; k++) {
        const tk_tir_op *user = blk->ops.data[k];
        for (uint32_t i = 0; !user->dead && i < user->operands.len; i++)
            if (user->operands.data[i] == v) cost += use_cost(c, user, i, v, l);
    }
    return cost;
}

/* Where an op's operands disagree, the layout costing least: the
 * operands converted to it, and its result converted for the uses that
 * need a layout (a store: a + b.T stored as a is laid out converts b.T
 * once, not b.T and then the sum). Ties keep the first. */
static const tk_ll *resolve_operands(prop_ctx *c, const tk_tir_op *op) {
    for (uint32_t i = 0; i < op->operands.len; i++) {
        const tk_tir_value *v = op->operands.data[i];
        if (fixed(v) && !v->preferred && !follows_user(v)) return NULL; /* unknown: layouts.c decides */
    }
    /* one layout among the operands: nothing to weigh (a long chain of
     * element-wise ops stays linear) */
    const tk_ll *only = NULL;
    bool disagree = false;
    for (uint32_t i = 0; i < op->operands.len; i++) {
        const tk_tir_value *cand = op->operands.data[i];
        if (!is_tile(cand) || !cand->preferred) continue;
        if (only && !tk_ll_equal(only, cand->preferred)) disagree = true;
        if (!only) only = cand->preferred;
    }
    if (!disagree) return only;
    const tk_ll *best = NULL;
    uint64_t best_cost = UINT64_MAX;
    /* the fixed operands' layouts first: ties keep the first of those */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < op->operands.len; i++) {
            const tk_tir_value *cand = op->operands.data[i];
            if (!is_tile(cand) || !cand->preferred || fixed(cand) != (pass == 0)) continue;
            uint64_t cost = 0;
            for (uint32_t j = 0; j < op->operands.len; j++) {
                const tk_tir_value *v = op->operands.data[j];
                if (fixed(v) && v->preferred)
                    cost += move_cost(v, v->preferred, cand->preferred) * weight(value_depth(c, v));
            }
            const tk_tir_value *r = op->results.len ? op->results.data[0] : NULL;
            if (r && is_tile(r) && op->parent) cost += uses_cost(c, op->parent, r, cand->preferred) * weight(c->depth);
            if (cost < best_cost) best = cand->preferred, best_cost = cost;
        }
    return best;
}

/* The choice where values meet (a loop's initial value and its trip's,
 * an if's branches): among their layouts and what the uses need, the one
 * costing least, ties to the first. */
typedef struct meeting {
    const tk_tir_value *value[3]; /* the values that meet (NULL: none) */
    uint32_t depth[3];            /* the loops around where each is converted */
    const tk_ll *need;            /* what the first needing use wants */
    const tk_tir_value *used;     /* the value whose uses weigh */
    const tk_tir_block *users;    /* ... in this block */
    uint32_t users_depth;
} meeting;

static const tk_ll *choose(prop_ctx *c, const meeting *m) {
    const tk_ll *cands[4];
    uint32_t n = 0;
    for (uint32_t i = 0; i < 3; i++)
        if (m->value[i] && m->value[i]->preferred) cands[n++] = m->value[i]->preferred;
    if (m->need) cands[n++] = m->need;
    const tk_ll *best = NULL;
    uint64_t best_cost = UINT64_MAX;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t cost = 0;
        for (uint32_t i = 0; i < 3; i++) {
            const tk_tir_value *v = m->value[i];
            if (v && fixed(v) && v->preferred) cost += move_cost(v, v->preferred, cands[k]) * weight(m->depth[i]);
        }
        if (m->used && m->users) cost += uses_cost(c, m->users, m->used, cands[k]) * weight(m->users_depth);
        if (cost < best_cost) best = cands[k], best_cost = cost;
    }
    return best;
}

static void visit_block(prop_ctx *c, tk_tir_block *blk);


/* a for or while loop: the carried values round the body until they settle */
static void visit_loop(prop_ctx *c, tk_tir_op *op) {
    bool is_for = op->code == TIR_FOR;
    uint32_t first = is_for ? 3 : 0, skip = is_for ? 1 : 0;
    uint32_t n = op->operands.len - first;
    const tk_ll **carried = TK_NEW_ARRAY(c->rules.arena, const tk_ll *, n + 1);
    for (uint32_t i = 0; i < n; i++) carried[i] = fixed(op->operands.data[first + i]) ? op->operands.data[first + i]->preferred : NULL;
    c->depth++;
    for (int round = 0; round < MAX_ROUNDS; round++) {
        for (uint32_t r = 0; r < op->regions.len; r++)
            for (uint32_t i = skip; i < op->regions.data[r]->args.len && i - skip < n; i++)
                op->regions.data[r]->args.data[i]->preferred = carried[i - skip];
        for (uint32_t r = 0; r < op->regions.len; r++) visit_block(c, op->regions.data[r]);
        /* the trip's values: a for's yield; a while's condition and its body's yield */
        const tk_tir_op *cond = !is_for && op->regions.len ? tir_terminator(op->regions.data[0]) : NULL;
        const tk_tir_op *yield = tir_terminator(op->regions.data[op->regions.len - 1]);
        bool changed = false;
        for (uint32_t i = 0; i < n; i++) {
            tk_tir_block *body = op->regions.data[op->regions.len - 1];
            meeting m = {{NULL, NULL, NULL}, {c->depth, c->depth, c->depth - 1}, NULL, NULL, NULL, c->depth};
            if (yield && yield->code == TIR_YIELD && i < yield->operands.len) m.value[0] = yield->operands.data[i];
            if (cond && cond->code == TIR_CONDITION && i + 1 < cond->operands.len) m.value[1] = cond->operands.data[i + 1];
            if (fixed(op->operands.data[first + i])) m.value[2] = op->operands.data[first + i];
            if (i + skip < body->args.len) {
                m.used = body->args.data[i + skip];
                m.users = body;
                m.need = use_need(c, body, m.used);
            }
            const tk_ll *l = is_tile(op->results.data[i]) ? choose(c, &m) : NULL;
            changed |= (l == NULL) != (carried[i] == NULL) || (l && !tk_ll_equal(l, carried[i]));
            carried[i] = l;
        }
        if (!changed || !c->visits) break;
    }
    c->depth--;
    for (uint32_t i = 0; i < op->results.len; i++) op->results.data[i]->preferred = i < n ? carried[i] : NULL;
}

static void visit_if(prop_ctx *c, tk_tir_op *op) {
    for (uint32_t r = 0; r < op->regions.len; r++) visit_block(c, op->regions.data[r]);
    const tk_tir_op *then_yield = op->regions.len > 0 ? tir_terminator(op->regions.data[0]) : NULL;
    const tk_tir_op *else_yield = op->regions.len > 1 ? tir_terminator(op->regions.data[1]) : NULL;
    for (uint32_t i = 0; i < op->results.len; i++) {
        tk_tir_value *r = op->results.data[i];
        meeting m = {{NULL, NULL, NULL}, {c->depth, c->depth, c->depth}, NULL, r, op->parent, c->depth};
        if (then_yield && i < then_yield->operands.len) m.value[0] = then_yield->operands.data[i];
        if (else_yield && i < else_yield->operands.len) m.value[1] = else_yield->operands.data[i];
        m.need = op->parent ? use_need(c, op->parent, r) : NULL;
        r->preferred = is_tile(r) ? choose(c, &m) : NULL;
    }
}

static void set_results(tk_tir_op *op, const tk_ll *l) {
    for (uint32_t i = 0; i < op->results.len; i++) op->results.data[i]->preferred = is_tile(op->results.data[i]) ? l : NULL;
}

static void visit_op(prop_ctx *c, tk_tir_op *op) {
    if (c->visits) c->visits--;
    const tk_tir_value *a = op->operands.len ? op->operands.data[0] : NULL;
    switch (tk_tir_layout_rule_of(op)) {
    case TIR_L_REGIONS:
        if (op->code == TIR_IF || op->code == TIR_WARP_SPECIALIZE) visit_if(c, op); /* the latter: no results */
        else visit_loop(c, op);
        return;
    case TIR_L_SAME:
        set_results(op, tir_memory_op(op) && is_tile(a) && !fixed(a) ? tir_coalesced_layout(&c->rules, a)
                                                                      : resolve_operands(c, op));
        return;
    case TIR_L_RELABEL:
        set_results(op, a->preferred ? tir_relabelled_layout(&c->rules, op, a->preferred) : NULL);
        return;
    case TIR_L_BROADCAST:
        set_results(op, tir_accumulator_of_slice(&c->rules, op, a->preferred));
        return;
    case TIR_L_DOT:
        set_results(op, tir_dot_result_layout(&c->rules, op));
        return;
    case TIR_L_VIEW:
        set_results(op, tir_view_layout(&c->rules, op));
        return;
    case TIR_L_INDEXED:
        set_results(op, op->operands.data[1]->preferred);
        return;
    /* free (recomputed where wanted), or placed by their own rule in layouts.c */
    case TIR_L_FREE: case TIR_L_READ: case TIR_L_PAIR:
        set_results(op, NULL);
        return;
    case TIR_L_NONE: case TIR_L_COPY: case TIR_L_DEFAULT:
        set_results(op, op->results.len && is_tile(op->results.data[0])
                            ? tir_default_layout(&c->rules, op->results.data[0]->type) : NULL);
        return;
    }
}

/* a broadcast no accumulator placed takes its first user's layout, where
 * that user is element-wise (it combines the broadcast with its partner) */
static void place_broadcasts_backward(tk_tir_block *blk) {
    for (uint32_t i = blk->ops.len; i-- > 0;) {
        tk_tir_op *op = blk->ops.data[i];
        if (op->dead || op->code != TIR_BROADCAST || op->results.data[0]->preferred) continue;
        const tk_tir_value *r = op->results.data[0];
        for (uint32_t k = i + 1; k < blk->ops.len; k++) {
            const tk_tir_op *user = blk->ops.data[k];
            bool uses = false;
            for (uint32_t j = 0; !user->dead && j < user->operands.len; j++) uses |= user->operands.data[j] == r;
            if (!uses) continue;
            if (tk_tir_layout_rule_of(user) == TIR_L_SAME && (tk_tir_props(user) & TIR_P_PURE) && user->results.len)
                op->results.data[0]->preferred = user->results.data[0]->preferred;
            break;
        }
    }
}

static void visit_block(prop_ctx *c, tk_tir_block *blk) {
    for (uint32_t i = 0; i < blk->ops.len; i++)
        if (!blk->ops.data[i]->dead) visit_op(c, blk->ops.data[i]);
    place_broadcasts_backward(blk);
}

void tir_pass_propagate_layouts(tk_arena *arena, tk_tir_kernel *k) {
    prop_ctx c;
    memset(&c, 0, sizeof c);
    tir_layout_rules_init(&c.rules, arena, k);
    c.visits = VISIT_BUDGET;
    visit_block(&c, k->body);
}
