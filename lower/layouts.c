/* Layout assignment: places every tile and inserts the conversions that
 * remain. Needs: layout propagation (propagate.c) and the per-op rules
 * (layout_rules.c). Guarantees: every tile value has a layout; the tile
 * operands of an element-wise op, a load, a store or an atomic share
 * their layout (and the atomic's result takes it), a broadcast's operand
 * is a register-only slice of its result, and loop/branch values keep
 * one layout across iterations and branches.
 * What propagation chose decides the free choices: the layout a loop
 * carries a value in (else its initial value's), an if's results (else
 * the then-branch's), a broadcast's result (else the default one) and
 * an element-wise op's (else that of an operand that cannot be
 * recomputed). Loads, stores and atomics of computed pointers take the
 * default blocked layout of their shape, with as many contiguous
 * elements per thread as the widest 16-byte access to a tile of that
 * shape allows; reductions give the reduced layout, reshape and permute
 * relabel their operand's layout, join, split and cat add or drop a
 * register bit. Where an operand has another layout, cheap ops that
 * define it (splat, make_range, broadcast, reshape, arithmetic, addptr)
 * are recomputed in the wanted layout, as Triton rematerializes them,
 * and so is a load of no more elements than the program has threads
 * (nothing between writes memory); outside every loop more ops may be
 * recomputed (they run once), and inside one, cheap ops over tiles of
 * the blocks around it are recomputed over those tiles, themselves
 * recomputed (or converted) once in front of the loop: a pipelined copy's
 * invariant pointers plus the trip's offset; a reshape, permute or broadcast of
 * what cannot be recomputed converts that instead where it is smaller or
 * lives outside the loop (converted once, before it); only what remains
 * is converted (convert_layout, done as tk_tir_plan_conversion says).
 * Breaks: recomputed ops leave their originals dead, so DCE runs after. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

/* a value recomputed in another layout, and the block it went into */
typedef struct clone {
    tk_tir_value *original, *value;
    tk_tir_block *block;
} clone;

/* a block being assigned and the ops it is rebuilt from so far */
typedef struct frame {
    tk_tir_block *blk;
    void *out; /* op_list * */
} frame;

typedef struct layout_ctx {
    tk_arena *arena;
    tk_diag *diag;
    tk_tir_kernel *kernel;
    tir_layout_rules rules;
    TK_VEC(frame) frames; /* the blocks enclosing the op being assigned, outermost first */
    TK_VEC(clone) clones;
    const tk_tir_op *current;        /* the op of the innermost block being assigned */
    bool failed;
} layout_ctx;

static int64_t elem_bytes_of(const tk_type *t) {
    const tk_type *e = tir_elem(t);
    if (e->kind == TK_TYPE_POINTER) return 8;
    return (int64_t)(tk_dtype_bits(e->dtype) + 7) / 8;
}

static const tk_ll *default_layout(layout_ctx *c, const tk_type *t) { return tir_default_layout(&c->rules, t); }

typedef TK_VEC(tk_tir_op *) op_list;

/* is `outer` the block `inner` or one enclosing it? */
static bool encloses(const tk_tir_block *outer, const tk_tir_block *inner) {
    for (const tk_tir_block *b = inner; b; b = b->parent ? b->parent->parent : NULL)
        if (b == outer) return true;
    return false;
}

/* recomputing a tile outside every loop (once): at most this many ops */
enum { HOISTED_REMAT_BUDGET = 64 };

static bool in_loop(const tk_tir_block *blk) {
    for (const tk_tir_block *b = blk; b && b->parent; b = b->parent->parent)
        if (b->parent->code == TIR_FOR || b->parent->code == TIR_WHILE) return true;
    return false;
}

/* v in layout `want` made earlier where block `at` sees it, or NULL */
static tk_tir_value *find_clone(const layout_ctx *c, const tk_tir_value *v, const tk_ll *want,
                                const tk_tir_block *at) {
    for (uint32_t i = 0; i < c->clones.len; i++) {
        const clone *k = &c->clones.data[i];
        if (k->original == v && tk_ll_equal(k->value->layout, want) && encloses(k->block, at)) return k->value;
    }
    return NULL;
}

/* op, a copy of v's definition with its operands set, made to compute v
 * in layout `want`: its result, the op appended to out, remembered */
static tk_tir_value *finish_clone(layout_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *v, tk_tir_op *op,
                                  const tk_ll *want) {
    tk_tir_value *r = tir_copy_value(c->arena, c->kernel, v, op);
    r->layout = want;
    tk_vec_push(c->arena, &op->results, r);
    tk_vec_push(c->arena, out, op);
    clone k = {v, r, at};
    tk_vec_push(c->arena, &c->clones, k);
    return r;
}

static void ensure(layout_ctx *c, op_list *out, tk_tir_op *op, uint32_t i, const tk_ll *want);
static tk_tir_value *remat(layout_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *v, const tk_ll *want,
                           bool hoisting);

/* operand i of op (a clone in block `at`), x, in layout l, where x comes
 * from a block around `at` or cannot be recomputed in `at` by itself:
 * recomputed once in its own block, in front of the loop holding `at`
 * (more ops allowed: they run once), else converted by ensure (once,
 * there, where that holds no more registers). Recomputed, not converted:
 * a pointer tile through shared memory took 64 KB beside the pipeline's
 * buffers, which the prologue has filled by then. */
static void hoisted_operand(layout_ctx *c, op_list *out, tk_tir_block *at, tk_tir_op *op, uint32_t i,
                            const tk_ll *l) {
    tk_tir_value *x = op->operands.data[i];
    if (x->def && x->def->parent == at && tir_remat_cost(x, TIR_REMAT_BUDGET) < 0) {
        op->operands.data[i] = remat(c, out, at, x, l, true);
        return;
    }
    uint32_t f = 0;
    while (x->def && f + 1 < c->frames.len && c->frames.data[f].blk != x->def->parent) f++;
    if (x->def && f + 1 < c->frames.len && tir_remat_cost(x, TIR_REMAT_BUDGET) < 0 &&
        !in_loop(c->frames.data[f].blk) && tir_remat_cost(x, HOISTED_REMAT_BUDGET) >= 0)
        op->operands.data[i] = remat(c, c->frames.data[f].out, c->frames.data[f].blk, x, l, false);
    else
        ensure(c, out, op, i, l);
}

/* tile v recomputed in layout `want`, its defining ops cloned into out
 * (in front of the op being assigned, in block `at`); hoisting: as
 * remat_cost_over_hoisted counted it, over tiles of the blocks around */
static tk_tir_value *remat(layout_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *v, const tk_ll *want,
                           bool hoisting) {
    if (v->type->kind != TK_TYPE_TILE || (v->layout && tk_ll_equal(v->layout, want))) return v;
    tk_tir_value *made = find_clone(c, v, want, at);
    if (made) return made;
    const tk_tir_op *def = v->def;
    tk_tir_op *op = tir_clone_op(c->arena, def, at);
    for (uint32_t i = 0; i < def->operands.len; i++) {
        tk_tir_value *x = def->operands.data[i];
        const tk_ll *l = tir_operand_layout_for(&c->rules, def, i, want);
        tk_vec_push(c->arena, &op->operands, l && !hoisting ? remat(c, out, at, x, l, false) : x);
        if (l && hoisting && x->type->kind == TK_TYPE_TILE) hoisted_operand(c, out, at, op, i, l);
    }
    return finish_clone(c, out, at, v, op, want);
}

/* The ops recomputing v in block `at` takes where the tiles of enclosing
 * blocks it is made from are recomputed (or converted) once, there,
 * instead of in `at` (each counts one op), or -1. A pipelined copy's pointers are the loop's
 * invariant pointers plus the trip's offset: where the invariant tile
 * costs more than the budget to recompute (B's columns wrapped with % N,
 * as Triton's tutorial does), converting the sum moved it through shared
 * memory every trip. */
static int remat_cost_over_hoisted(const tk_tir_value *v, const tk_tir_block *at, int budget) {
    if (v->type->kind != TK_TYPE_TILE) return 0;
    int cost = tir_remat_cost(v, budget);
    if (cost >= 0 || !v->def || budget < 1) return cost;
    if (v->def->parent != at) return encloses(v->def->parent, at) ? 1 : -1;
    if (!tir_cheap_op(v->def)) return -1;
    cost = 1;
    for (uint32_t i = 0; i < v->def->operands.len; i++) {
        int k = remat_cost_over_hoisted(v->def->operands.data[i], at, budget - cost);
        if (k < 0) return -1;
        cost += k;
    }
    return cost <= budget ? cost : -1;
}

/* Can tile v, a load, be issued again in another layout at the op being
 * assigned? Where it has no more elements than the program has threads
 * (Triton's test of a cheap load: a row of M or Delta), is not volatile,
 * its pointers, mask and other can be recomputed, and nothing between it
 * and that op, in the same block, writes memory or synchronises. Reading a
 * few hundred bytes again (from L1) costs less than moving them between
 * threads. */
static bool reloadable(layout_ctx *c, const tk_tir_value *v, const tk_tir_block *at) {
    const tk_tir_op *def = v->def;
    if (!def || def->code != TIR_LOAD || def->parent != at || !c->current || c->current->parent != at ||
        tk_tir_attr_int(def, "volatile", 0) || v->type->kind != TK_TYPE_TILE)
        return false;
    int64_t elems = 1;
    for (uint32_t d = 0; d < v->type->rank; d++) elems *= v->type->shape[d];
    if (elems > 32 * (int64_t)c->kernel->num_warps) return false;
    for (uint32_t k = 0; k < def->operands.len; k++)
        if (tir_remat_cost(def->operands.data[k], TIR_REMAT_BUDGET) < 0) return false;
    uint32_t i = 0;
    while (i < at->ops.len && at->ops.data[i] != def) i++;
    for (; i < at->ops.len && at->ops.data[i] != c->current; i++)
        if (tk_tir_props(at->ops.data[i]) & (TIR_P_EFFECT | TIR_P_SYNC | TIR_P_ATOMIC)) return false;
    return i < at->ops.len;
}

/* registers a thread that a conversion hoisted out of a loop may add */
enum { HOISTED_REGS = 8 };

/* reshape, permute and broadcast move no data: their result's layout is
 * their operand's, relabelled */
static bool relabel_op(const tk_tir_op *op) {
    return (op->code == TIR_RESHAPE || op->code == TIR_PERMUTE || op->code == TIR_BROADCAST) &&
           op->operands.len == 1 && op->results.len == 1 && op->regions.len == 0;
}

/* Does converting the tile that v relabels cost less than converting v?
 * Where v broadcasts it (fewer elements), where it comes from a block
 * enclosing `at` (converted once, before the loop), or where it can be
 * loaded again in the layout wanted (nothing moves). A permute or reshape
 * of a tile of the same block moves as much either way: v is converted. */
static bool moves_less_below(layout_ctx *c, const tk_tir_value *v, const tk_tir_block *at) {
    const tk_tir_value *x = v->def->operands.data[0];
    if (x->type->kind != TK_TYPE_TILE) return false;
    if (v->def->code == TIR_BROADCAST || reloadable(c, x, at)) return true;
    if (x->def && relabel_op(x->def)) return moves_less_below(c, x, at);
    return x->def && x->def->parent != at && encloses(x->def->parent, at);
}

/* v, a relabelling of a tile that cannot be recomputed, in layout `want`:
 * the tile is converted instead (no larger than v, and, where it comes
 * from a block enclosing the loop, converted once before it: the row of
 * M a dQ loop broadcasts every trip), then relabelled again in block at */
static tk_tir_value *relabel_converted(layout_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *v,
                                       const tk_ll *want) {
    tk_tir_value *made = find_clone(c, v, want, at);
    if (made) return made;
    const tk_tir_op *def = v->def;
    tk_tir_op *op = tir_clone_op(c->arena, def, at);
    tk_vec_push(c->arena, &op->operands, def->operands.data[0]);
    ensure(c, out, op, 0, tir_operand_layout_for(&c->rules, def, 0, want));
    return finish_clone(c, out, at, v, op, want);
}

/* Makes operand i of op have layout `want`: recomputed where that is cheap,
 * else through a conversion inserted into out, or, for a value from a
 * block enclosing op's (a loop-invariant Q in attention), into that block
 * in front of the loop or if holding op: converted once, not every trip
 * (through shared memory, with barriers), unless `want` holds more
 * registers a thread (copies across warps: mma.sync's A over 2 x 2 warps),
 * which would then stay live across the loop (sm_80 attention spilled
 * 708 bytes instead of 356). */
static void ensure(layout_ctx *c, op_list *out, tk_tir_op *op, uint32_t i, const tk_ll *want) {
    tk_tir_value *v = op->operands.data[i];
    if (v->type->kind != TK_TYPE_TILE || !want || (v->layout && tk_ll_equal(v->layout, want))) return;
    int budget = in_loop(op->parent) ? TIR_REMAT_BUDGET : HOISTED_REMAT_BUDGET;
    if (tir_remat_cost(v, budget) >= 0 || reloadable(c, v, op->parent)) {
        op->operands.data[i] = remat(c, out, op->parent, v, want, false);
        return;
    }
    if (v->def && v->def->parent == op->parent && remat_cost_over_hoisted(v, op->parent, TIR_REMAT_BUDGET) >= 0) {
        op->operands.data[i] = remat(c, out, op->parent, v, want, true);
        return;
    }
    if (v->def && relabel_op(v->def) && moves_less_below(c, v, op->parent)) {
        op->operands.data[i] = relabel_converted(c, out, op->parent, v, want);
        return;
    }
    /* a conversion's result is converted from what that conversion read:
     * one move instead of two in a row */
    while (v->def && v->def->code == TIR_CONVERT_LAYOUT && v->def->operands.data[0]->layout &&
           tk_ll_num_regs(v->def->operands.data[0]->layout) <= tk_ll_num_regs(v->layout))
        v = v->def->operands.data[0];
    if (v->layout && tk_ll_equal(v->layout, want)) {
        op->operands.data[i] = v;
        return;
    }
    tk_tir_block *at = op->parent;
    /* a few registers a thread (a row of statistics) may stay live */
    bool hoist = v->def && v->layout &&
                 (tk_ll_num_regs(want) <= tk_ll_num_regs(v->layout) || tk_ll_num_regs(want) <= HOISTED_REGS);
    for (uint32_t f = 0; hoist && f + 1 < c->frames.len; f++)
        if (c->frames.data[f].blk == v->def->parent && encloses(v->def->parent, at)) {
            at = c->frames.data[f].blk;
            out = c->frames.data[f].out;
            break;
        }
    tk_tir_value *made = find_clone(c, v, want, op->parent);
    if (made) {
        op->operands.data[i] = made;
        return;
    }
    tk_tir_op *cvt = tir_new_op(c->arena, TIR_CONVERT_LAYOUT, 0, op->loc);
    cvt->parent = at;
    tk_vec_push(c->arena, &cvt->operands, v);
    tk_tir_value *r = tir_copy_value(c->arena, c->kernel, v, cvt);
    r->layout = want;
    tk_vec_push(c->arena, &cvt->results, r);
    tk_vec_push(c->arena, out, cvt);
    op->operands.data[i] = r;
    clone x = {v, r, at};
    tk_vec_push(c->arena, &c->clones, x);
}

static void assign_block(layout_ctx *c, tk_tir_block *blk);

static const tk_tir_op *last_op(const tk_tir_block *blk) {
    for (uint32_t i = blk->ops.len; i-- > 0;)
        if (!blk->ops.data[i]->dead) return blk->ops.data[i];
    return NULL;
}

/* The yield (or condition) ending blk gets the layouts `want` (operands
 * from `first` on). */
static void fix_terminator(layout_ctx *c, tk_tir_block *blk, const tk_ll **want, uint32_t n,
                           uint32_t first) {
    tk_tir_op *y = (tk_tir_op *)last_op(blk);
    if (!y || (y->code != TIR_YIELD && y->code != TIR_CONDITION)) return;
    op_list extra = {0};
    for (uint32_t i = 0; i < n && first + i < y->operands.len; i++) ensure(c, &extra, y, first + i, want[i]);
    if (!extra.len) return;
    /* insert the conversions before the terminator */
    op_list rebuilt = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        if (blk->ops.data[i] == y)
            for (uint32_t k = 0; k < extra.len; k++) tk_vec_push(c->arena, &rebuilt, extra.data[k]);
        tk_vec_push(c->arena, &rebuilt, blk->ops.data[i]);
    }
    blk->ops.data = rebuilt.data;
    blk->ops.len = rebuilt.len;
    blk->ops.cap = rebuilt.cap;
}

/* The operands' common layout for an op that needs them alike: that of
 * one that cannot be recomputed, else that of the first tile. */
static const tk_ll *common_layout(const tk_tir_op *op) {
    for (uint32_t i = 0; i < op->operands.len; i++)
        if (op->operands.data[i]->type->kind == TK_TYPE_TILE && tir_remat_cost(op->operands.data[i], TIR_REMAT_BUDGET) < 0)
            return op->operands.data[i]->layout;
    for (uint32_t i = 0; i < op->operands.len; i++)
        if (op->operands.data[i]->type->kind == TK_TYPE_TILE) return op->operands.data[i]->layout;
    return NULL;
}

/* join and cat take their operands in one layout and add a register bit;
 * split takes its operand where the pair is one register bit (converted
 * there from the halves' default layout when it is not): no data moves
 * between threads. */
static bool assign_join_split_cat(layout_ctx *c, op_list *out, tk_tir_op *op) {
    if (!op->operands.len || !op->results.len ||
        op->operands.data[0]->type->kind != TK_TYPE_TILE || op->results.data[0]->type->kind != TK_TYPE_TILE)
        return false;
    tk_ll *l = TK_NEW(c->arena, tk_ll);
    if (op->sub == TK_B_JOIN || op->sub == TK_B_CAT) {
        const tk_ll *want = common_layout(op);
        for (uint32_t i = 0; i < op->operands.len; i++) ensure(c, out, op, i, want);
        if (op->sub == TK_B_JOIN) tk_ll_join(l, want);
        else tk_ll_cat(l, want);
        op->results.data[0]->layout = l;
    } else if (op->sub == TK_B_SPLIT) {
        uint32_t pair_bit;
        if (!tk_ll_split(l, op->operands.data[0]->layout, &pair_bit)) {
            tk_ll *whole = TK_NEW(c->arena, tk_ll);
            l = (tk_ll *)default_layout(c, op->results.data[0]->type);
            tk_ll_join(whole, l);
            ensure(c, out, op, 0, whole);
        }
        for (uint32_t i = 0; i < op->results.len; i++) op->results.data[i]->layout = l;
    } else {
        return false;
    }
    tk_vec_push(c->arena, out, op);
    return true;
}

/* Does layout l hold some of tile t's elements in more than one thread
 * or register? */
static bool copies_elements(const tk_ll *l, const tk_type *t, uint32_t num_warps) {
    uint64_t elements = 1;
    for (uint32_t d = 0; d < t->rank; d++) elements *= (uint64_t)t->shape[d];
    return tk_ll_num_regs(l) * 32u * num_warps > elements;
}

/* A tile read from shared memory for an mma.sync operand is read there in
 * the operand's layout: no conversion after. So is one the operand is
 * computed from element-wise (b = (b * 0.5).to(f16); a decoding, staged by
 * pipeline_dot.c; tir_elementwise_cone): it is converted in the operand's
 * layout, as Triton converts after its local_load. */
static void preset_local_loads(tk_tir_op *op, void *ctx_) {
    layout_ctx *c = ctx_;
    if (!tir_is_mma(op)) return;
    for (uint32_t i = 0; i < 2; i++) {
        const tk_ll *need = tir_dot_operand_need(&c->rules, op, i);
        tk_tir_value *v = op->operands.data[i];
        if (!need) continue;
        if (v->def && v->def->code == TIR_LOCAL_LOAD) {
            v->layout = need; /* mma.sync's operands; wgmma's A read into registers */
            continue;
        }
        tir_cone cone;
        if (!tir_elementwise_cone(v, TIR_LOCAL_LOAD, &cone)) continue;
        /* A chain of steps is cheap in any layout. Steps that combine
         * several of their values (a decoding: fp8 codes read three times)
         * would repeat in each copy of an operand layout that holds
         * elements several times (mma.sync's B, copied across warps along
         * M): sm_90 mxfp8 spilled 8 KB. Those convert once, after. */
        bool chain = true;
        for (uint32_t k = 0; k < cone.len && chain; k++) chain = tir_elementwise_source(cone.values[k]->def) != NULL;
        if (!chain && copies_elements(need, v->type, c->kernel->num_warps)) continue;
        if (cone.source->def->code == TIR_PERMUTE) { /* b.T: the tile read back transposed */
            const uint32_t swap[2] = {1, 0};
            tk_ll *read = TK_NEW(c->arena, tk_ll);
            tk_ll_permute(read, need, swap);
            cone.source->def->operands.data[0]->layout = read;
            cone.source->preferred = need;
        } else {
            cone.source->layout = need;
        }
        /* and so are the rows they are combined with (scale[None, :]):
         * broadcast in that layout, their rows are converted before the
         * loop, or where small, not the whole tile every trip */
        for (uint32_t k = 0; k < cone.len; k++) {
            cone.values[k]->preferred = need;
            const tk_tir_op *step = cone.values[k]->def;
            for (uint32_t j = 0; j < step->operands.len; j++) {
                tk_tir_value *w = step->operands.data[j];
                if (w->def && (w->def->code == TIR_BROADCAST || w->def->code == TIR_RESHAPE) &&
                    w->type->kind == TK_TYPE_TILE)
                    w->preferred = need;
            }
        }
    }
}

/* the layout an op whose tile operands and results take one layout
 * gives them: the one propagation chose for its result, else that of
 * the operands (common_layout) */
static const tk_ll *same_layout_of(const tk_tir_op *op) {
    const tk_tir_value *r = op->results.len ? op->results.data[0] : NULL;
    return r && r->type->kind == TK_TYPE_TILE && r->preferred ? r->preferred : common_layout(op);
}

/* a for or while loop: its values carried in the layout propagation
 * chose (a dot's accumulator, the row max and sum of it: its slice), else
 * in their initial values', those converted (or recomputed) once, before */
static void assign_loop(layout_ctx *c, op_list *out, tk_tir_op *op) {
    uint32_t first = op->code == TIR_FOR ? 3 : 0;
    uint32_t n = op->operands.len - first;
    const tk_ll **want = TK_NEW_ARRAY(c->arena, const tk_ll *, n + 1);
    for (uint32_t i = 0; i < n; i++) {
        want[i] = op->results.data[i]->preferred ? op->results.data[i]->preferred : op->operands.data[first + i]->layout;
        ensure(c, out, op, first + i, want[i]);
    }
    for (uint32_t r = 0; r < op->regions.len; r++) {
        tk_tir_block *blk = op->regions.data[r];
        uint32_t skip = op->code == TIR_FOR ? 1 : 0;
        for (uint32_t i = skip; i < blk->args.len; i++) blk->args.data[i]->layout = want[i - skip];
        assign_block(c, blk);
        fix_terminator(c, blk, want, n, op->regions.data[r]->ops.len && r == 0 && op->code == TIR_WHILE ? 1 : 0);
    }
    for (uint32_t i = 0; i < op->results.len; i++) op->results.data[i]->layout = want[i];
}

/* an if: its results in the layout propagation chose, else the
 * then-branch's; each branch converts what it yields to that */
static void assign_if(layout_ctx *c, tk_tir_op *op) {
    for (uint32_t r = 0; r < op->regions.len; r++) assign_block(c, op->regions.data[r]);
    const tk_tir_op *t = last_op(op->regions.data[0]);
    uint32_t n = op->results.len;
    const tk_ll **want = TK_NEW_ARRAY(c->arena, const tk_ll *, n + 1);
    for (uint32_t i = 0; i < n; i++) {
        tk_tir_value *yv = t && t->code == TIR_YIELD ? t->operands.data[i] : NULL;
        want[i] = op->results.data[i]->preferred ? op->results.data[i]->preferred
                  : yv && yv->layout ? yv->layout
                  : op->results.data[i]->type->kind == TK_TYPE_TILE ? default_layout(c, op->results.data[i]->type)
                                                                    : NULL;
        op->results.data[i]->layout = want[i];
    }
    fix_terminator(c, op->regions.data[0], want, n, 0);
    fix_terminator(c, op->regions.data[1], want, n, 0);
}

/* Operands and results in one layout. A load, store or atomic of
 * computed pointers takes the coalesced layout, unless the stored value
 * cannot move and already allows as wide an access; a scan keeps its
 * operand's layout (each element's prefix stays where the element is). */
static void assign_same(layout_ctx *c, op_list *out, tk_tir_op *op) {
    const tk_ll *want = NULL;
    tk_tir_value *ptr = op->operands.len ? op->operands.data[0] : NULL;
    if (tir_memory_op(op) && ptr->type->kind == TK_TYPE_TILE && tir_remat_cost(ptr, TIR_REMAT_BUDGET) >= 0) {
        want = tir_coalesced_layout(&c->rules, ptr);
        tk_tir_value *v = op->code == TIR_STORE ? op->operands.data[1] : NULL;
        if (v && v->type->kind == TK_TYPE_TILE && tir_remat_cost(v, TIR_REMAT_BUDGET) < 0 &&
            tir_stored_where_it_is(&c->rules, ptr, v, v->layout))
            want = v->layout;
    }
    if (!want) want = same_layout_of(op);
    for (uint32_t i = 0; i < op->operands.len; i++) ensure(c, out, op, i, want);
    for (uint32_t i = 0; i < op->results.len; i++)
        if (op->results.data[i]->type->kind == TK_TYPE_TILE) op->results.data[i]->layout = want;
}

/* a dot's result in the accumulator layout, mma.sync's operands in its
 * operand layouts (wgmma's stay the shared-memory views they are); for
 * fma the result and accumulator in the default layout, a and b in any
 * (they go through shared memory) */
static void assign_dot(layout_ctx *c, op_list *out, tk_tir_op *op) {
    op->results.data[0]->layout = tir_dot_result_layout(&c->rules, op);
    for (uint32_t i = 0; i < op->operands.len; i++) ensure(c, out, op, i, tir_dot_operand_need(&c->rules, op, i));
}

static void assign_default(layout_ctx *c, tk_tir_op *op) {
    for (uint32_t i = 0; i < op->results.len; i++)
        if (op->results.data[i]->type->kind == TK_TYPE_TILE)
            op->results.data[i]->layout = default_layout(c, op->results.data[i]->type);
}

static void assign_op(layout_ctx *c, op_list *out, tk_tir_op *op) {
    tk_tir_value *r = op->results.len ? op->results.data[0] : NULL;
    tk_tir_value *a = op->operands.len ? op->operands.data[0] : NULL;
    bool tile = r && r->type->kind == TK_TYPE_TILE;
    switch (tk_tir_layout_rule_of(op)) {
    case TIR_L_REGIONS:
        if (op->code == TIR_IF || op->code == TIR_WARP_SPECIALIZE) assign_if(c, op); /* the latter: no results */
        else assign_loop(c, out, op);
        break;
    case TIR_L_COPY:
        /* the view keeps its shared layout */
        for (uint32_t i = 1; i < op->operands.len; i++) ensure(c, out, op, i, tir_copy_layout(&c->rules, op));
        break;
    case TIR_L_SAME:
        assign_same(c, out, op);
        break;
    case TIR_L_PAIR:
        if (assign_join_split_cat(c, out, op)) return; /* pushed there */
        assign_default(c, op);
        break;
    case TIR_L_RELABEL:
        if (!tile) break;
        /* a tuple reduce: every operand in the first's layout, every
         * result in the reduced one */
        for (uint32_t i = 1; op->code == TIR_REDUCE && i < op->operands.len; i++) ensure(c, out, op, i, a->layout);
        for (uint32_t i = 0; i < op->results.len; i++)
            op->results.data[i]->layout = tir_relabelled_layout(&c->rules, op, a->layout);
        break;
    case TIR_L_DOT:
        if (tile) assign_dot(c, out, op);
        break;
    case TIR_L_VIEW:
        if (tile) r->layout = tir_view_layout(&c->rules, op);
        break;
    case TIR_L_READ:
        if (tile && !r->layout) r->layout = default_layout(c, r->type);
        break;
    case TIR_L_BROADCAST:
        if (tile) { /* the operand as a slice of the result: registers only */
            r->layout = r->preferred ? r->preferred : default_layout(c, r->type);
            tk_ll *l = TK_NEW(c->arena, tk_ll);
            tk_ll_unbroadcast(l, r->layout, a->type->shape);
            ensure(c, out, op, 0, l);
        }
        break;
    case TIR_L_INDEXED:
        if (tile) r->layout = op->operands.data[1]->layout;
        break;
    case TIR_L_NONE: case TIR_L_FREE: case TIR_L_DEFAULT:
        assign_default(c, op);
        break;
    }
    tk_vec_push(c->arena, out, op);
}

static void assign_block(layout_ctx *c, tk_tir_block *blk) {
    for (uint32_t i = 0; i < blk->args.len; i++)
        if (blk->args.data[i]->type->kind == TK_TYPE_TILE && !blk->args.data[i]->layout)
            blk->args.data[i]->layout = default_layout(c, blk->args.data[i]->type);
    op_list out = {0};
    frame f = {blk, &out};
    tk_vec_push(c->arena, &c->frames, f);
    const tk_tir_op *enclosing = c->current;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        c->current = op;
        assign_op(c, &out, op);
    }
    c->current = enclosing;
    c->frames.len--;
    blk->ops.data = out.data;
    blk->ops.len = out.len;
    blk->ops.cap = out.cap;
}

/* A thread has 255 registers; a tile needing far more per thread spills
 * wholesale and compiles for minutes (LLVM's time grows with it). */
enum { MAX_REGISTERS_PER_VALUE = 1024 };

static void check_register_arrays(tk_tir_op *op, void *ctx_) {
    layout_ctx *c = ctx_;
    for (uint32_t i = 0; i < op->results.len && !c->failed; i++) {
        const tk_tir_value *v = op->results.data[i];
        if (v->type->kind != TK_TYPE_TILE || !v->layout || v->layout->shared) continue; /* views hold no registers */
        uint64_t words = tk_ll_num_regs(v->layout) * (uint64_t)(elem_bytes_of(v->type) > 4 ? 2 : 1);
        if (words <= MAX_REGISTERS_PER_VALUE) continue;
        uint64_t warps = c->kernel->num_warps;
        while (warps <= 32 && words * c->kernel->num_warps / warps > MAX_REGISTERS_PER_VALUE) warps *= 2;
        const char *how = warps <= 32 ? tk_arena_printf(c->arena, "smaller blocks or num_warps=%" PRIu64, warps)
                                      : "smaller blocks";
        tk_error(c->diag, op->loc, "this value (%s) needs %" PRIu64 " registers in each of the program's %u "
                 "threads; tkc allows %d for one value (a thread has 255): use %s",
                 tk_type_str(c->arena, v->type), words, c->kernel->num_warps * 32, MAX_REGISTERS_PER_VALUE, how);
        c->failed = true;
    }
}

bool tir_pass_layouts(tk_arena *arena, tk_diag *diag, tk_tir_kernel *k) {
    layout_ctx c = {arena, diag, k, {0}, {0}, {0}, NULL, false};
    tir_layout_rules_init(&c.rules, arena, k);
    tir_walk(k->body, preset_local_loads, &c);
    assign_block(&c, k->body);
    if (!c.failed) tir_walk(k->body, check_register_arrays, &c);
    return !c.failed;
}
