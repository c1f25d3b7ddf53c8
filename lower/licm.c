/* Loop-invariant code motion.
 * Needs: SSA, CSE done. Keeps: semantics. A pure scalar op in a `for` or
 * `while` body whose operands are all defined outside the loop (or by ops
 * already hoisted) moves in front of the loop, innermost loops first.
 * Loads stay (a store in the loop may change what they read), and so do
 * tiles: hoisted, a tile is live across the loop in registers (measured:
 * layernorm with an 8192 block lost 10%). After layout assignment, the
 * same motion takes a loop-invariant conversion out of its loop
 * (tir_pass_licm_conversions). */
#include "internal.h"

static bool pure(const tk_tir_op *op) {
    return (tk_tir_props(op) & TIR_P_PURE) && op->results.len == 1 && op->regions.len == 0;
}

/* What moves: scalars (tir_pass_licm), or after layout assignment the
 * conversions of tiles defined outside the loop that nothing else in the
 * loop reads (tir_pass_licm_conversions): converted once before the loop
 * rather than each trip, and as the source then ends before the loop, no
 * more registers are live across it. */
typedef struct licm_mode {
    bool conversions;
    uint32_t *uses;   /* conversions: each value's reads inside the loop */
} licm_mode;

static bool movable(const licm_mode *mode, const tk_tir_op *op) {
    if (op->dead) return false;
    if (!mode->conversions)
        /* scalars only: a tile hoisted out of a loop stays live across
         * it in registers, where recomputing it (a splat, a range) costs
         * less than the registers */
        return pure(op) && op->results.data[0]->type->kind != TK_TYPE_TILE;
    return op->code == TIR_CONVERT_LAYOUT && mode->uses[op->operands.data[0]->id] == 1;
}

static void count_uses(const tk_tir_block *blk, uint32_t *uses) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        for (uint32_t k = 0; k < op->operands.len; k++) uses[op->operands.data[k]->id]++;
        for (uint32_t r = 0; r < op->regions.len; r++) count_uses(op->regions.data[r], uses);
    }
}

typedef TK_VEC(tk_tir_op *) op_list;

/* values defined inside blk (its args, its ops' results, nested regions) */
static void mark_defined(tk_tir_block *blk, bool *inside) {
    for (uint32_t i = 0; i < blk->args.len; i++) inside[blk->args.data[i]->id] = true;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        for (uint32_t r = 0; r < op->results.len; r++) inside[op->results.data[r]->id] = true;
        for (uint32_t r = 0; r < op->regions.len; r++) mark_defined(op->regions.data[r], inside);
    }
}

/* Hoists from the loop op's body regions; returns the ops to put before it. */
static op_list hoist(tk_arena *arena, const licm_mode *mode, tk_tir_op *loop, bool *inside) {
    op_list out = {0};
    for (uint32_t r = 0; r < loop->regions.len; r++) {
        tk_tir_block *body = loop->regions.data[r];
        mark_defined(body, inside);
        bool moved = true;
        while (moved) {
            moved = false;
            op_list keep = {0};
            for (uint32_t i = 0; i < body->ops.len; i++) {
                tk_tir_op *op = body->ops.data[i];
                bool invariant = movable(mode, op);
                for (uint32_t k = 0; k < op->operands.len && invariant; k++)
                    invariant = !inside[op->operands.data[k]->id];
                if (invariant) {
                    op->parent = loop->parent;
                    tk_vec_push(arena, &out, op);
                    for (uint32_t k = 0; k < op->results.len; k++) inside[op->results.data[k]->id] = false;
                    moved = true;
                } else {
                    tk_vec_push(arena, &keep, op);
                }
            }
            body->ops.data = keep.data;
            body->ops.len = keep.len;
            body->ops.cap = keep.cap;
        }
    }
    return out;
}

static void licm_block(tk_arena *arena, const licm_mode *mode, tk_tir_block *blk, bool *inside, uint32_t nvalues) {
    op_list rebuilt = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        for (uint32_t r = 0; r < op->regions.len; r++) licm_block(arena, mode, op->regions.data[r], inside, nvalues);
        if (!op->dead && (op->code == TIR_FOR || op->code == TIR_WHILE)) {
            for (uint32_t v = 0; v < nvalues; v++) inside[v] = false;
            if (mode->conversions) {
                for (uint32_t v = 0; v < nvalues; v++) mode->uses[v] = 0;
                for (uint32_t r = 0; r < op->regions.len; r++) count_uses(op->regions.data[r], mode->uses);
            }
            op_list hoisted = hoist(arena, mode, op, inside);
            for (uint32_t k = 0; k < hoisted.len; k++) tk_vec_push(arena, &rebuilt, hoisted.data[k]);
        }
        tk_vec_push(arena, &rebuilt, op);
    }
    blk->ops.data = rebuilt.data;
    blk->ops.len = rebuilt.len;
    blk->ops.cap = rebuilt.cap;
}

void tir_pass_licm(tk_arena *arena, tk_tir_kernel *k) {
    bool *inside = TK_NEW_ARRAY(arena, bool, k->value_count + 1);
    licm_mode mode = {false, NULL};
    licm_block(arena, &mode, k->body, inside, k->value_count);
}

void tir_pass_licm_conversions(tk_arena *arena, tk_tir_kernel *k) {
    bool *inside = TK_NEW_ARRAY(arena, bool, k->value_count + 1);
    licm_mode mode = {true, TK_NEW_ARRAY(arena, uint32_t, k->value_count + 1)};
    licm_block(arena, &mode, k->body, inside, k->value_count);
}
