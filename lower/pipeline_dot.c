/* Multi-stage pipelining of the loads that feed a tensor-core dot
 * (Triton's software pipeliner for matmul loops).
 *
 * A `for` loop of S = num_stages >= 2 (tl.range(..., num_stages=), else the
 * kernel's) whose body computes tl.dot (impl mma_sync or wgmma, dot.c) on
 * a tile it loads there gets, for each such load, a shared-memory buffer
 * of S stages. Trip t's tile goes to stage t mod S, copied by cp.async
 * (async_copy) S - 1 trips ahead:
 *   before the loop: trips 0 .. S-2 copied, one commit group each;
 *   each trip: async_wait (at most S - 2 groups still in flight, then a
 *   barrier: this trip's stage is complete and every thread is done with
 *   the stage the previous trip read); the dot's operand read from this
 *   trip's stage (local_load into mma.sync's operand layout, or for wgmma
 *   the stage itself); the rest of the body; last, trip t + S - 1's copy
 *   into the stage trip t - 1 read, and a commit (first, before the rest,
 *   where a wgmma stays in flight with a buffer to spare; where it stays
 *   in flight without one, last, after its wait and a second barrier);
 *   after the loop: async_wait 0.
 * A copy for a trip past the loop's end is masked off (zero-fill).
 *
 * A dot operand that is a tl.trans (.T) of such a load is pipelined
 * through it: the copies read transposed pointers (and mask and other)
 * into a buffer of the transposed tile, attention's K as a K-major B.
 * A load that several dots read, each directly or through a tl.trans,
 * is copied once: a 16-bit tile read both ways round (the backward's Q
 * and dO) is read through a transposed view of its buffer (a local_view
 * with trans=1: wgmma's other major, ldmatrix's .trans); a wider one
 * gets a buffer for each way it is read.
 *
 * The loads' addresses may use the induction variable, values from
 * outside the loop, and loop-carried values that only advance themselves
 * (`a_ptrs += BK`): those run S - 1 trips ahead in new carried values, and
 * the originals, unused now, go in DCE.
 *
 * A buffer is laid out as its load reads memory: rows contiguous, or
 * (column_major) columns, each swizzled as wgmma and ldmatrix read it.
 *
 * The loop's other loads of rows (row_load: the backward's M and Delta,
 * one value per query of the trip) are staged with the tiles and read
 * back from their stages where the loads stood.
 *
 * A dot dot.c made a wgmma (sm_90a) reads what this pass stages as the
 * stages themselves (shared-memory descriptors): B always (a B whose
 * buffer wgmma could not read is left a load, for dot_operands.c to
 * store), A where its buffer suits wgmma (else by a local_load into
 * registers; a loop-invariant A whose buffer would not suit stays in
 * the registers it was loaded into).
 *
 * A descriptor parameter's desc_load that the descriptors pass kept is
 * copied by TMA instead, where tir_tma_box shows its boxes fill the
 * buffer's layout (else it is expanded into a pointer tile first): one
 * mbarrier a stage (a buffer of one i64 a stage, initialized before the
 * prologue, invalidated after the loop); each trip's copies, issued by
 * one thread after it arrives expecting their bytes, complete on their
 * stage's barrier, which every thread waits on (its phase carried,
 * flipping as the stages wrap) before the trip's barrier. A loop whose
 * copies are all TMA's has no cp.async group to commit or wait for. The
 * parameter's boxes go to the kernel's tma_maps, for the launcher.
 *
 * Needs: dot.c's impl, LICM, axis info (run here). Keeps: semantics
 * where the loop does not write through the loads' pointer parameters
 * (as Triton, distinct parameters are taken not to alias). */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

typedef tir_op_list op_list;

typedef struct dp_ctx {
    tk_arena *arena;
    tk_diag *diag;
    tk_tir_kernel *k;
    const tk_target *target;
    tk_tir_op *loop;
    tk_tir_block *body;
    uint32_t nvalues;     /* ids below this existed before the pass */
    tk_tir_value **subst; /* by id: a body value's copy in the trip being built */
    bool *ahead;          /* by body-arg index: a carried value that runs ahead */
    uint32_t *uses;       /* by id: uses inside the body */
    /* loop-invariant A operands an earlier loop copied into a buffer of
     * their own, those buffers, and the blocks the copies ran in: a later
     * loop of that block, or of an `if` in it, reads them there without a
     * copy of its own (attention's Q over the causal band and the
     * diagonal) */
    TK_VEC(const tk_tir_op *) filled_loads;
    TK_VEC(uint32_t) filled_buffers;
    TK_VEC(const tk_tir_block *) filled_in;
    uint32_t barriers; /* the loop's mbarriers: a buffer of one i64 a stage (TMA copies) */
} dp_ctx;

static void set_attr(dp_ctx *c, tk_tir_op *op, const char *name, const char *text, int64_t v);

static tk_tir_value *new_value(dp_ctx *c, const tk_type *t, tk_tir_op *def) {
    return tir_new_value(c->arena, c->k, t, def);
}

static tk_tir_op *emit(dp_ctx *c, op_list *out, tk_tir_block *at, tk_tir_opcode code, int sub, const tk_type *t,
                       tk_tir_value *a, tk_tir_value *b) {
    return tir_append_op(c->arena, c->k, out, at, c->loop->loc, code, sub, t, a, b);
}

static tk_tir_value *constant(dp_ctx *c, op_list *out, tk_tir_block *at, const tk_type *t, int64_t v) {
    return tir_append_const(c->arena, c->k, out, at, c->loop->loc, t, v);
}

static tk_tir_value *binary(dp_ctx *c, op_list *out, tk_tir_block *at, int op, tk_tir_value *a, tk_tir_value *b) {
    return emit(c, out, at, TIR_BINARY, op, a->type, a, b)->results.data[0];
}

static int body_arg(const dp_ctx *c, const tk_tir_value *v) {
    for (uint32_t i = 0; i < c->body->args.len; i++)
        if (c->body->args.data[i] == v) return (int)i;
    return -1;
}

/* Can v be computed for a later trip: from the induction variable, values
 * from outside, carried values marked ahead, through address ops? */
static bool computable(const dp_ctx *c, const tk_tir_value *v, int depth) {
    int arg = body_arg(c, v);
    if (arg == 0) return true;
    if (arg > 0) return c->ahead[arg];
    if (!v->def || v->def->parent != c->body) return true;
    if (!tir_is_address_op(v->def) || depth > 64) return false;
    for (uint32_t i = 0; i < v->def->operands.len; i++)
        if (!computable(c, v->def->operands.data[i], depth + 1)) return false;
    return true;
}

static const tk_tir_op *yield_of(const tk_tir_block *body) {
    for (uint32_t i = body->ops.len; i-- > 0;)
        if (!body->ops.data[i]->dead) return body->ops.data[i]->code == TIR_YIELD ? body->ops.data[i] : NULL;
    return NULL;
}

/* The carried values that only advance themselves by address math: all
 * candidates at first, then drop those whose next value is not computable
 * until nothing changes. */
static void find_ahead(dp_ctx *c, const tk_tir_op *yield) {
    uint32_t n = c->body->args.len;
    for (uint32_t i = 1; i < n; i++) c->ahead[i] = true;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 1; i < n; i++)
            if (c->ahead[i] && !computable(c, yield->operands.data[i - 1], 0)) {
                c->ahead[i] = false;
                changed = true;
            }
    }
}

/* v for the trip whose induction variable and ahead values subst holds */
static tk_tir_value *for_trip(dp_ctx *c, tk_tir_value *v, op_list *out, tk_tir_block *at) {
    if (v->id < c->nvalues && c->subst[v->id]) return c->subst[v->id];
    if (!v->def || v->def->parent != c->body) return v;
    const tk_tir_op *def = v->def;
    tk_tir_op *op = tir_clone_op(c->arena, def, at);
    for (uint32_t i = 0; i < def->operands.len; i++)
        tk_vec_push(c->arena, &op->operands, for_trip(c, def->operands.data[i], out, at));
    tk_tir_value *r = tir_copy_value(c->arena, c->k, v, op);
    tk_vec_push(c->arena, &op->results, r);
    tk_vec_push(c->arena, out, op);
    if (v->id < c->nvalues) c->subst[v->id] = r;
    return r;
}

/* subst reset to: induction variable iv, ahead carried values vals[] */
static void begin_trip(dp_ctx *c, tk_tir_value *iv, tk_tir_value **vals) {
    memset(c->subst, 0, sizeof(tk_tir_value *) * c->nvalues);
    c->subst[c->body->args.data[0]->id] = iv;
    for (uint32_t i = 1; i < c->body->args.len; i++)
        if (c->ahead[i]) c->subst[c->body->args.data[i]->id] = vals[i];
}

/* i1: does the trip with induction variable x run? */
static tk_tir_value *trip_runs(dp_ctx *c, tk_tir_value *x, op_list *out, tk_tir_block *at) {
    tk_tir_value *hi = c->loop->operands.data[1], *step = c->loop->operands.data[2];
    const tk_type *i1 = tk_type_scalar(c->arena, TK_I1);
    tk_tir_value *up = emit(c, out, at, TIR_CMP, TK_BINOP_LT, i1, x, hi)->results.data[0];
    if (step->def && step->def->code == TIR_CONST && step->def->value.i > 0) return up;
    tk_tir_value *zero = constant(c, out, at, step->type, 0);
    tk_tir_value *positive = emit(c, out, at, TIR_CMP, TK_BINOP_GT, i1, step, zero)->results.data[0];
    tk_tir_value *down = emit(c, out, at, TIR_CMP, TK_BINOP_GT, i1, x, hi)->results.data[0];
    tk_tir_op *pick = emit(c, out, at, TIR_SELECT, 0, i1, positive, up);
    tk_vec_push(c->arena, &pick->operands, down);
    return pick->results.data[0];
}

/* one pipelined load and its buffer; `trans` the tl.trans between it and
 * the dot (NULL if none): the buffer then holds the transposed tile, and
 * the copies read it through transposed pointers. A second way to read a
 * load another entry fills (`alias`, that entry's index + 1) copies
 * nothing: it reads that entry's buffer, through a transposed view where
 * the two orientations differ (`flip`). */
typedef struct staged {
    tk_tir_op *load, *trans;
    uint32_t buffer;
    uint32_t alias;
    bool flip;
    /* read back where the load was: a row no dot reads (row_load), or a
     * tile a dot reads converted (converted_operand) */
    bool reread;
    bool tma; /* a descriptor parameter's desc_load, copied by TMA */
} staged;

/* the dot operand a staged load gives: the load's tile or its transpose */
static tk_tir_value *staged_value(const staged *s) {
    return (s->trans ? s->trans : s->load)->results.data[0];
}
typedef TK_VEC(staged) staged_list;

static const tk_type *i32_type(dp_ctx *c) { return tk_type_scalar(c->arena, TK_I32); }

static tk_tir_value *view(dp_ctx *c, op_list *out, tk_tir_block *at, const staged *s, tk_tir_value *stage) {
    tk_tir_op *op = emit(c, out, at, TIR_LOCAL_VIEW, 0, staged_value(s)->type, stage, NULL);
    struct tk_sema_attr a = {"buffer", NULL, s->buffer};
    tk_vec_push(c->arena, &op->attrs, a);
    if (s->flip) {
        struct tk_sema_attr t = {"trans", NULL, 1};
        tk_vec_push(c->arena, &op->attrs, t);
    }
    return op->results.data[0];
}

/* v through the staged load's tl.trans (a tile; a scalar stays; a splat
 * stays one, so that codegen still sees other=0 as zero-fill) */
static tk_tir_value *through_trans(dp_ctx *c, op_list *out, tk_tir_block *at, const staged *s, tk_tir_value *v) {
    if (!s->trans || v->type->kind != TK_TYPE_TILE) return v;
    const tk_type *t = v->type;
    int64_t shape[2] = {t->shape[1], t->shape[0]};
    const tk_type *tt = tk_type_tile(c->arena, tir_elem(t), 2, shape);
    if (v->def && v->def->code == TIR_SPLAT)
        return emit(c, out, at, TIR_SPLAT, 0, tt, v->def->operands.data[0], NULL)->results.data[0];
    tk_tir_op *p = emit(c, out, at, TIR_PERMUTE, 0, tt, v, NULL);
    p->attrs = s->trans->attrs; /* its order */
    return p->results.data[0];
}

/* one stage of the loop's mbarriers (TMA copies complete on them) */
static tk_tir_value *barrier_view(dp_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *stage) {
    tk_tir_op *op = emit(c, out, at, TIR_LOCAL_VIEW, 0, c->k->buffers.data[c->barriers].tile, stage, NULL);
    struct tk_sema_attr a = {"buffer", NULL, c->barriers};
    tk_vec_push(c->arena, &op->attrs, a);
    return op->results.data[0];
}

/* a trip's TMA copies: their bytes, expected on the stage's barrier
 * before any is issued (nothing where the loop copies none by TMA) */
static void expect_copies(dp_ctx *c, op_list *out, tk_tir_block *at, const staged_list *loads, tk_tir_value *stage,
                          tk_tir_value *runs) {
    int64_t bytes = 0;
    for (uint32_t l = 0; l < loads->len; l++) {
        const staged *s = &loads->data[l];
        if (!s->tma || s->alias) continue;
        const tk_type *t = s->load->results.data[0]->type;
        bytes += t->shape[0] * t->shape[1] * (int64_t)tk_dtype_bits(tir_elem(t)->dtype) / 8;
    }
    if (!bytes) return;
    tk_tir_value *bar = barrier_view(c, out, at, stage);
    if (!runs) runs = constant(c, out, at, tk_type_scalar(c->arena, TK_I1), 1);
    tk_tir_op *op = emit(c, out, at, TIR_MBAR_EXPECT, 0, NULL, bar, runs);
    set_attr(c, op, "bytes", NULL, bytes);
}

/* the copy of load s for the trip subst describes, into `stage`, off when
 * `runs` is false (NULL: a load outside the loop, copied once) */
static void copy_for_trip(dp_ctx *c, op_list *out, tk_tir_block *at, const staged *s, tk_tir_value *stage,
                          tk_tir_value *runs) {
    const tk_tir_op *load = s->load;
    if (s->tma) {
        /* one thread copies the block at this trip's offsets; the copy
         * completes on the stage's barrier (its bytes expected first) */
        tk_tir_value *dst = view(c, out, at, s, stage);
        tk_tir_value *bar = barrier_view(c, out, at, stage);
        if (!runs) runs = constant(c, out, at, tk_type_scalar(c->arena, TK_I1), 1);
        tk_tir_value *coords[TK_MAX_RANK];
        for (uint32_t d = 1; d < load->operands.len; d++) coords[d - 1] = for_trip(c, load->operands.data[d], out, at);
        tk_tir_op *cp = emit(c, out, at, TIR_TMA_COPY, 0, NULL, dst, load->operands.data[0]);
        tk_vec_push(c->arena, &cp->operands, bar);
        tk_vec_push(c->arena, &cp->operands, runs);
        for (uint32_t d = 1; d < load->operands.len; d++) tk_vec_push(c->arena, &cp->operands, coords[d - 1]);
        const tk_type *t = load->results.data[0]->type;
        uint32_t box[2], swizzle;
        tir_tma_box(t, s->trans != NULL, box, &swizzle);
        set_attr(c, cp, "box_rows", NULL, box[0]);
        set_attr(c, cp, "box_cols", NULL, box[1]);
        set_attr(c, cp, "panels", NULL, t->shape[1] / box[1]);
        return;
    }
    const tk_type *t = load->results.data[0]->type;
    tk_tir_value *dst = view(c, out, at, s, stage);
    tk_tir_value *ptr = through_trans(c, out, at, s, for_trip(c, load->operands.data[0], out, at));
    const tk_type *mask_t = tk_type_tile(c->arena, tk_type_scalar(c->arena, TK_I1), t->rank, t->shape);
    tk_tir_value *mask = runs ? emit(c, out, at, TIR_SPLAT, 0, mask_t, runs, NULL)->results.data[0] : NULL;
    if (load->operands.len > 1) {
        tk_tir_value *m = for_trip(c, load->operands.data[1], out, at);
        mask = mask ? binary(c, out, at, TK_BINOP_AND, m, mask) : m;
    }
    if (mask) mask = through_trans(c, out, at, s, mask);
    /* a row's `other` is put in after it is read back (row_value): the
     * copy zero-fills, staying asynchronous whatever `other` is */
    tk_tir_value *other = load->operands.len > 2 && !s->reread
                              ? through_trans(c, out, at, s, for_trip(c, load->operands.data[2], out, at)) : NULL;
    tk_tir_op *cp = emit(c, out, at, TIR_ASYNC_COPY, 0, NULL, dst, ptr);
    if (!mask && other) /* other needs a mask before it */
        mask = emit(c, out, at, TIR_SPLAT, 0, mask_t, constant(c, out, at, tk_type_scalar(c->arena, TK_I1), 1),
                    NULL)->results.data[0];
    if (mask) tk_vec_push(c->arena, &cp->operands, mask);
    if (other) tk_vec_push(c->arena, &cp->operands, other);
    cp->attrs = load->attrs; /* cache modifiers */
}

/* stage + 1, wrapping at S */
static tk_tir_value *next_stage(dp_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *stage, uint32_t stages) {
    tk_tir_value *one = constant(c, out, at, i32_type(c), 1), *zero = constant(c, out, at, i32_type(c), 0);
    tk_tir_value *n = binary(c, out, at, TK_BINOP_ADD, stage, one);
    tk_tir_value *wrap = emit(c, out, at, TIR_CMP, TK_BINOP_EQ, tk_type_scalar(c->arena, TK_I1), n,
                              constant(c, out, at, i32_type(c), stages))->results.data[0];
    tk_tir_op *pick = emit(c, out, at, TIR_SELECT, 0, i32_type(c), wrap, zero);
    tk_vec_push(c->arena, &pick->operands, n);
    return pick->results.data[0];
}

/* The buffer of a staged load, as the load lies in memory: rows
 * contiguous, or (column_major) columns, so that the copies stay 16-byte
 * vectors; wgmma reads it K-major where B is column-major. */
static bool column_major(const staged *s) { return tir_loaded_column_major(s->load, s->trans != NULL); }

static uint32_t add_buffer(dp_ctx *c, const staged *s, uint32_t stages) {
    return tir_add_buffer(c->arena, c->k, staged_value(s)->type, stages, column_major(s), c->loop, s->load->loc);
}

static void count_uses(tk_tir_op *op, void *ctx) {
    dp_ctx *c = ctx;
    for (uint32_t i = 0; i < op->operands.len; i++)
        if (op->operands.data[i]->id < c->nvalues) c->uses[op->operands.data[i]->id]++;
}

static bool is_mma_dot(const tk_tir_op *op) {
    return !op->dead && (tk_tir_dot_impl(op) == TK_DOT_MMA_SYNC || tk_tir_dot_impl(op) == TK_DOT_WGMMA);
}

static bool is_wgmma(const tk_tir_op *dot) { return tk_tir_dot_impl(dot) == TK_DOT_WGMMA; }

static tk_dtype operand_dtype(const tk_tir_op *dot) { return tir_elem(dot->operands.data[0]->type)->dtype; }

/* The pointer parameter ptr derives from, through a carried value that
 * only advances itself (a_ptrs += BK) to its initial value; NULL if none. */
static const tk_tir_value *loop_root(const dp_ctx *c, const tk_tir_value *ptr) {
    const tk_tir_value *v = tir_strip_address(ptr);
    int arg = body_arg(c, v);
    if (arg > 0) {
        const tk_tir_op *y = yield_of(c->body);
        if (!y || tir_strip_address(y->operands.data[arg - 1]) != v) return NULL;
        v = c->loop->operands.data[3 + arg - 1];
    }
    return tir_root_pointer(c->k, v);
}

/* Is v a 2-D tl.trans (order 1, 0) of this body's, used once? */
static bool is_trans(const dp_ctx *c, const tk_tir_value *v) {
    const tk_tir_op *p = v->def;
    return p && tir_is_transpose(p) && p->parent == c->body && !p->dead && c->uses[v->id] == 1 && v->type->rank == 2;
}

typedef struct dot_uses {
    const dp_ctx *c;
    const tk_tir_value *v;
    uint32_t found;       /* uses as a dot's A or B, directly or through a tl.trans */
} dot_uses;

static void count_dot_use(tk_tir_op *op, void *ctx) {
    dot_uses *u = ctx;
    if (!is_mma_dot(op)) return;
    for (uint32_t j = 0; j < 2 && j < op->operands.len; j++) {
        const tk_tir_value *x = op->operands.data[j];
        if (x == u->v || (is_trans(u->c, x) && x->def->operands.data[0] == u->v)) u->found++;
    }
}

/* Is every use of v in the body a dot's A or B, directly or through a
 * tl.trans used once? Then each such operand gets a buffer of its own
 * (the backward's Q and dO: B of one dot as loaded, of another
 * transposed), and the load goes. */
static bool only_dot_operands(const dp_ctx *c, const tk_tir_value *v) {
    dot_uses u = {c, v, 0};
    tir_walk(c->body, count_dot_use, &u);
    return u.found == c->uses[v->id];
}

/* Is load, of this body, one the pipeline can copy ahead: through a tile
 * of pointers whose address it can run ahead, nothing in the loop
 * writing its memory? */
static bool copyable(dp_ctx *c, tk_tir_op *load) {
    if (!load->dead && load->code == TIR_DESC_LOAD && load->parent == c->body) {
        for (uint32_t k = 1; k < load->operands.len; k++)
            if (!computable(c, load->operands.data[k], 0)) return false;
        return !tir_block_may_write(c->k, c->body, load->operands.data[0]);
    }
    if (load->dead || load->code != TIR_LOAD || load->parent != c->body || tk_tir_attr_int(load, "volatile", 0))
        return false;
    const tk_type *pt = load->operands.data[0]->type;
    if (pt->kind != TK_TYPE_TILE || tir_elem(pt)->kind != TK_TYPE_POINTER) return false;
    for (uint32_t k = 0; k < load->operands.len; k++)
        if (!computable(c, load->operands.data[k], 0)) return false;
    return !tir_block_may_write(c->k, c->body, loop_root(c, load->operands.data[0]));
}

/* Operand i of dot, when it is a load of this body the pipeline can take,
 * or a tl.trans of one (the copies then transpose its pointers): *s gets
 * the load and the trans. */
static bool pipelinable(dp_ctx *c, const tk_tir_op *dot, uint32_t i, staged *s) {
    tk_tir_value *v = dot->operands.data[i];
    s->trans = is_trans(c, v) ? v->def : NULL;
    if (s->trans) v = s->trans->operands.data[0];
    tk_tir_op *load = v->def;
    if (!load || !copyable(c, load) || v->type->kind != TK_TYPE_TILE || v->type->rank != 2) return false;
    if (c->uses[v->id] != 1 && !only_dot_operands(c, v)) return false;
    s->load = load;
    s->tma = load->code == TIR_DESC_LOAD;
    /* a wgmma's B the buffer would not suit is stored from registers
     * instead (dot_operands.c); dot.c chose wgmma knowing it suits */
    bool cm = column_major(s);
    return i != 1 || !is_wgmma(dot) || tir_wgmma_reads(operand_dtype(dot), 1, cm, tir_swizzle_for(v->type, cm));
}

/* Operand i of an mma dot computed element-wise from a 2-D load of this
 * body (b = (b * 0.5).to(f16); w.to(f16) * scale[None, :]; tl.dot_scaled's
 * decoding of fp8 codes, whose steps read the codes several times), each
 * step read only by the others and the last by the dot: the load is
 * staged as it is and read back where it stood, and the steps convert it
 * there, in the operand's layout (layouts.c), as Triton converts after its
 * local_load. Loaded synchronously instead, the tile and its conversion
 * to the operand layout held registers across the dot (sm_80, 128x128x64
 * on 4 warps: 28-36 bytes spilled). */
static bool converted_operand(dp_ctx *c, const tk_tir_op *dot, uint32_t i, staged *s) {
    tk_tir_value *root = dot->operands.data[i];
    tir_cone cone;
    if (!tir_elementwise_cone(root, TIR_LOAD, &cone) || root->def->parent != c->body || c->uses[root->id] != 1)
        return false;
    for (uint32_t k = 1; k <= cone.len; k++) {
        const tk_tir_value *w = k < cone.len ? cone.values[k] : cone.source;
        uint32_t inside = 0;
        for (uint32_t j = 0; j < cone.len; j++) {
            const tk_tir_op *step = cone.values[j]->def;
            for (uint32_t o = 0; o < step->operands.len; o++) inside += step->operands.data[o] == w;
        }
        if (inside != c->uses[w->id]) return false;
    }
    tk_tir_value *v = cone.source;
    if (v->def->code == TIR_PERMUTE) { /* b.T: the load staged as it is, transposed in registers */
        v = v->def->operands.data[0];
        if (c->uses[v->id] != 1) return false;
    }
    if (!copyable(c, v->def)) return false;
    /* copies narrower than cp.async's 4 bytes go element by element
     * through registers: slower than the load they would replace (a
     * general version, whose rows may start at any element: f16
     * 3000x5000x2000 ran 206 -> 175 TFLOP/s on an H100) */
    uint32_t along = tir_loaded_column_major(v->def, false) ? 0 : 1;
    uint32_t bytes = tk_dtype_bits(tir_elem(v->type)->dtype) / 8;
    if (tir_access_width_along(v->def->operands.data[0], along) * bytes < 4) return false;
    s->load = v->def;
    s->trans = NULL;
    s->reread = true;
    return true;
}

/* A load the loop makes besides the dots' tiles, of a row: the
 * backward's M and Delta, one value per query of the trip's tile. Staged
 * with the tiles, it is copied S - 1 trips ahead instead of waited for in
 * full every trip, and read back from shared memory where the load stood
 * (Triton's pipeliner stages such loads too). Rank 1, of 4- or 8-byte
 * elements (cp.async's smallest copy is 4 bytes), its address one the
 * pipeline can run ahead, its memory not written in the loop. */
static bool row_load(dp_ctx *c, tk_tir_op *load, staged *s) {
    if (!copyable(c, load)) return false;
    const tk_type *t = load->results.data[0]->type;
    if (t->kind != TK_TYPE_TILE || t->rank != 1 || tir_elem(t)->kind == TK_TYPE_POINTER) return false;
    uint32_t bits = tk_dtype_bits(tir_elem(t)->dtype);
    if (bits != 32 && bits != 64) return false;
    s->load = load;
    s->reread = true;
    return true;
}

/* is v a splat of the constant 0 (+0.0), what a zero-filled copy holds? */
static bool zero_fill(const tk_tir_value *v) {
    if (v->def && v->def->code == TIR_SPLAT) v = v->def->operands.data[0];
    if (!v->def || v->def->code != TIR_CONST) return false;
    if (tk_dtype_is_float(tir_elem(v->type)->dtype)) return v->def->value.f == 0.0 && !signbit(v->def->value.f);
    return v->def->value.i == 0;
}

/* Could a store or atomic of op (or of the ops it holds) write through
 * root (NULL: anywhere)? */
static bool op_may_write(const dp_ctx *c, tk_tir_op *op, const tk_tir_value *root) {
    if (op->code == TIR_STORE || (tk_tir_props(op) & TIR_P_ATOMIC)) {
        const tk_tir_value *r = op->operands.len ? tir_root_pointer(c->k, op->operands.data[0]) : NULL;
        if (!root || !r || r == root) return true;
    }
    for (uint32_t i = 0; i < op->regions.len; i++)
        if (tir_block_may_write(c->k, op->regions.data[i], root)) return true;
    return false;
}

/* Does block `outer` hold `inner`, or is it `inner`? */
static bool block_encloses(const tk_tir_block *outer, const tk_tir_block *inner) {
    for (const tk_tir_block *b = inner; b; b = b->parent ? b->parent->parent : NULL)
        if (b == outer) return true;
    return false;
}

/* Might an op of blk after `from` (NULL: from the first) and before
 * `until` write through root? Yes too where either is not in blk. */
static bool written_between(dp_ctx *c, const tk_tir_block *blk, const tk_tir_op *from, const tk_tir_op *until,
                            const tk_tir_value *root) {
    uint32_t i = 0;
    if (from) {
        while (i < blk->ops.len && blk->ops.data[i] != from) i++;
        i++;
    }
    for (; i < blk->ops.len && blk->ops.data[i] != until; i++)
        if (!blk->ops.data[i]->dead && op_may_write(c, blk->ops.data[i], root)) return true;
    return i >= blk->ops.len;
}

/* Operand 0 (A) of dot, when it is a load before the loop, in the block
 * that holds the loop or one holding the `if` (or nest of ifs) the loop is
 * in, that nothing between them may write over: a tile the loop reads
 * unchanged every trip (attention's Q). On a target with wgmma it is
 * copied once into a buffer of one stage before the loop and wgmma reads
 * it there (as Triton keeps Q in shared memory), instead of holding it in
 * registers all loop long (32 registers a thread for a 128 x 128 f16 Q
 * over 8 warps). */
static bool resident(dp_ctx *c, const tk_tir_op *dot, staged *s) {
    if (!is_wgmma(dot)) return false;
    tk_tir_value *v = dot->operands.data[0];
    tk_tir_op *load = v->def;
    if (!load || load->code != TIR_LOAD || load->dead || !load->parent) return false;
    if (tk_tir_attr_int(load, "volatile", 0) || v->type->kind != TK_TYPE_TILE || v->type->rank != 2) return false;
    const tk_type *pt = load->operands.data[0]->type;
    if (pt->kind != TK_TYPE_TILE || tir_elem(pt)->kind != TK_TYPE_POINTER) return false;
    const tk_tir_value *root = tir_root_pointer(c->k, load->operands.data[0]);
    /* from the loop out to the load's block, through ifs only */
    const tk_tir_op *inner = c->loop;
    while (inner->parent != load->parent) {
        if (written_between(c, inner->parent, NULL, inner, root)) return false;
        inner = inner->parent->parent;
        if (!inner || inner->code != TIR_IF || !inner->parent) return false;
    }
    if (written_between(c, load->parent, load, inner, root)) return false;
    s->load = load;
    s->trans = NULL;
    return true;
}

/* The buffer an earlier loop copied load into where this loop is (its
 * block or one holding it), or UINT32_MAX */
static uint32_t filled_buffer(const dp_ctx *c, const tk_tir_op *load) {
    for (uint32_t f = 0; f < c->filled_loads.len; f++)
        if (c->filled_loads.data[f] == load && block_encloses(c->filled_in.data[f], c->loop->parent))
            return c->filled_buffers.data[f];
    return UINT32_MAX;
}

/* op's attribute name set to text (or, text NULL, to v). An op's attrs
 * may be shared with its clones (tir_clone_op): they are copied first. */
static void set_attr(dp_ctx *c, tk_tir_op *op, const char *name, const char *text, int64_t v) {
    struct tk_sema_attr *copy = TK_NEW_ARRAY(c->arena, struct tk_sema_attr, op->attrs.len + 1);
    if (op->attrs.len) memcpy(copy, op->attrs.data, sizeof *copy * op->attrs.len);
    op->attrs.data = copy;
    op->attrs.cap = op->attrs.len + 1;
    struct tk_sema_attr a = {name, text, text ? 0 : v};
    for (uint32_t i = 0; i < op->attrs.len; i++)
        if (!strcmp(op->attrs.data[i].name, name)) {
            op->attrs.data[i] = a;
            return;
        }
    op->attrs.data[op->attrs.len++] = a;
}

/* Can wgmma read operand i of dot from this staged load's buffer? */
static bool view_readable(const dp_ctx *c, const tk_tir_op *dot, uint32_t i, const staged *s) {
    const tk_tir_buffer *b = &c->k->buffers.data[s->buffer];
    return tir_wgmma_reads(operand_dtype(dot), i, b->transposed != s->flip, b->swizzle_bytes);
}

/* The bytes of one stage of each of this loop's buffers (those from
 * `first` on), together */
static uint64_t loop_stage_bytes(const dp_ctx *c, uint32_t first) {
    uint64_t one = 0;
    for (uint32_t b = first; b < c->k->buffers.len; b++) one += tir_buffer_stage_span(&c->k->buffers.data[b]);
    return one;
}

/* Where this loop's buffers (those from `first` on) start: after the
 * buffers of loops live beside it (loops it holds; smem.c places them) */
static uint64_t buffers_base(dp_ctx *c, uint32_t first) {
    uint32_t base = 0;
    tir_place_buffers(c->k, first, c->loop, &base);
    return base;
}

/* The depth the target's shared memory allows for this loop's buffers
 * (those from `first` on), beside the buffers of loops live with it:
 * fewer stages than asked, with a warning, down to 2; as asked when even 2
 * do not fit (smem.c reports that, naming the tiles). */
static uint32_t fit_stages(dp_ctx *c, const tk_loc *at, uint32_t first, uint32_t stages) {
    /* an autotune config stays as written: where it does not fit, the
     * tuner skips it (passes.c) rather than time a copy of another */
    if (!c->target || c->k->sema->config >= 0) return stages;
    uint64_t before = buffers_base(c, first), one = loop_stage_bytes(c, first);
    uint32_t fits = stages;
    while (fits > 2 && before + one * fits > c->target->smem_per_block) fits--;
    if (fits == stages || before + one * fits > c->target->smem_per_block) return stages;
    tk_warning(c->diag, TK_W_NUM_STAGES, *at, "num_stages=%u would keep %" PRIu64 " bytes of this loop's tiles in shared memory, "
               "more than the %u a block has on %s: pipelined %u deep instead",
               stages, before + one * stages, c->target->smem_per_block, c->target->name, fits);
    return fits;
}

/* the pipelined loads that operands 0 and 1 of dot come from (or NULL) */
static void operand_sources(const staged_list *loads, const tk_tir_op *dot, const staged **from) {
    from[0] = from[1] = NULL;
    for (uint32_t l = 0; l < loads->len; l++)
        for (uint32_t j = 0; j < 2; j++)
            if (dot->operands.data[j] == staged_value(&loads->data[l])) from[j] = &loads->data[l];
}

/* v's only use in the body, where it is a transpose, gives that: a dot
 * computed transposed (dot.c's swap_operands) yields its result so */
static const tk_tir_value *past_transpose(const dp_ctx *c, const tk_tir_value *v) {
    if (c->uses[v->id] != 1) return v;
    for (uint32_t i = 0; i < c->body->ops.len; i++) {
        const tk_tir_op *op = c->body->ops.data[i];
        if (!op->dead && tir_is_transpose(op) && op->operands.data[0] == v) return op->results.data[0];
    }
    return v;
}

/* The carried value (its index in the yield) that wgmma `dot` writes and
 * nothing else in the trip reads, so that the wgmma may stay in flight
 * into the next trip; -1 if none. *wait_first: the next trip reads it
 * other than as the accumulator of this same wgmma (attention's
 * acc * alpha before its second dot), so the body waits for it before
 * that first read; matmul's acc += a @ b chains wgmma on wgmma, which the
 * tensor core orders by itself. */
static int chained_accumulator(const dp_ctx *c, const tk_tir_op *dot, const tk_tir_op *yield, bool *wait_first) {
    const tk_tir_value *r = past_transpose(c, dot->results.data[0]);
    if (c->uses[r->id] != 1) return -1;
    /* the accumulator read as it is carried, or through a transpose of its own */
    const tk_tir_value *acc = dot->operands.len > 2 ? dot->operands.data[2] : NULL;
    if (acc && tir_is_transpose(acc->def) && !acc->def->dead && c->uses[acc->id] == 1)
        acc = acc->def->operands.data[0];
    for (uint32_t j = 0; j < yield->operands.len; j++) {
        if (yield->operands.data[j] != r) continue;
        const tk_tir_value *arg = c->body->args.data[j + 1];
        bool direct = acc == arg && c->uses[arg->id] == 1;
        if (wait_first) *wait_first = !direct && c->uses[arg->id] > 0;
        return (int)j;
    }
    return -1;
}

/* the wgmma dots in blk and in the regions of its ops */
static uint32_t wgmma_dots_in(const tk_tir_block *blk) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        n += !op->dead && op->code == TIR_DOT && is_wgmma(op);
        for (uint32_t r = 0; r < op->regions.len; r++) n += wgmma_dots_in(op->regions.data[r]);
    }
    return n;
}

/* Does op, or an op nested in its regions, read v? */
static bool reads(const tk_tir_op *op, const tk_tir_value *v) {
    for (uint32_t i = 0; i < op->operands.len; i++)
        if (op->operands.data[i] == v) return true;
    for (uint32_t r = 0; r < op->regions.len; r++)
        for (uint32_t i = 0; i < op->regions.data[r]->ops.len; i++)
            if (reads(op->regions.data[r]->ops.data[i], v)) return true;
    return false;
}

/* A dot_wait of carried value `arg` in front of the body's first read of
 * it, every read in the body then taking the waited value */
static void wait_before_first_read(dp_ctx *c, tk_tir_value *arg) {
    tk_tir_block *body = c->body;
    for (uint32_t i = 0; i < body->ops.len; i++) {
        tk_tir_op *op = body->ops.data[i];
        if (op->dead || !reads(op, arg)) continue;
        op_list one = {0};
        tk_tir_op *wait = emit(c, &one, body, TIR_DOT_WAIT, 0, arg->type, arg, NULL);
        tir_replace_uses(body, arg, wait->results.data[0], wait);
        tk_vec_push(c->arena, &body->ops, NULL);
        memmove(&body->ops.data[i + 1], &body->ops.data[i], sizeof(tk_tir_op *) * (body->ops.len - 1 - i));
        body->ops.data[i] = wait;
        return;
    }
}

/* A 32-bit operand read from its stage into mma fragments by ld.shared
 * along its contiguous dimension, M or N (wgmma's register A: the
 * transposed tf32 product's B^T; mma.sync's row-major tf32 B), from a
 * buffer no other operand reads and TMA does not fill: laid out for those
 * reads (tir_buffer_for_fragments) */
static void fragment_buffers(dp_ctx *c, const staged_list *loads, const op_list *dots, const bool *a_view) {
    for (uint32_t d = 0; d < dots->len; d++) {
        const staged *from[2];
        operand_sources(loads, dots->data[d], from);
        if (tk_dtype_bits(operand_dtype(dots->data[d])) != 32) continue;
        for (uint32_t j = 0; j < 2; j++) {
            bool in_registers = is_wgmma(dots->data[d]) ? j == 0 && !a_view[d] : true;
            if (!from[j] || !in_registers || from[j]->tma || from[j]->alias) continue;
            tk_tir_buffer *b = &c->k->buffers.data[from[j]->buffer];
            bool k_contiguous = (b->transposed != from[j]->flip) == (j == 1);
            if (k_contiguous || !b->swizzle_bytes) continue;
            uint32_t readers = 0;
            for (uint32_t e = 0; e < dots->len; e++) {
                const staged *other[2];
                operand_sources(loads, dots->data[e], other);
                for (uint32_t i = 0; i < 2; i++) readers += other[i] && other[i]->buffer == from[j]->buffer;
            }
            if (readers == 1) tir_buffer_for_fragments(c->arena, b);
        }
    }
}

/* Do this loop's buffers (from `first` on) fit `nbuf` deep beside the others? */
static bool buffers_fit(dp_ctx *c, uint32_t first, uint32_t nbuf) {
    uint64_t bytes = buffers_base(c, first) + loop_stage_bytes(c, first) * nbuf;
    return !c->target || bytes <= c->target->smem_per_block;
}

/* A wgmma in flight needs one buffer more than the loop's depth. Would
 * that buffer cost the SM a resident block (by shared memory: its
 * buffers, 1 KB reserved a block)? Then a loop of num_stages >= 4 goes one
 * stage shallower instead, keeping num_stages buffers as Triton's loop
 * does (still two copies ahead; shallower than that is not measured).
 * Small tiles gain: 64x64x32 at num_stages=5 takes 40 KB instead of 48,
 * five blocks an SM instead of four; the H200 at 4096^3 ran 64x64x32
 * 306 -> 314 TFLOP/s, 64x128x32 418 -> 440, 128x64x32 395 -> 406 (at
 * 3000x5000x2000 1-2% slower). Large tiles keep the extra buffer: one
 * block an SM either way. */
static bool extra_buffer_costs_a_block(dp_ctx *c, uint32_t first, uint32_t stages) {
    if (!c->target || !c->target->smem_per_sm || stages < 4) return false;
    uint64_t base = buffers_base(c, first), one = loop_stage_bytes(c, first);
    uint64_t with = c->target->smem_per_sm / (base + one * (stages + 1) + 1024);
    uint64_t without = c->target->smem_per_sm / (base + one * stages + 1024);
    return with < without;
}

/* Is v computed inside the loop body (or a region nested in it)? */
static bool inside_body(const dp_ctx *c, const tk_tir_value *v) {
    for (const tk_tir_op *op = v->def; op; op = op->parent ? op->parent->parent : NULL)
        if (op->parent == c->body) return true;
    return false;
}

/* The loop-invariant scalar by which carried value i, a tile of pointers,
 * advances each trip (`a_ptrs += BK * stride`: the yield gives
 * addptr(arg, splat(s))), or NULL. */
static tk_tir_value *scalar_advance(const dp_ctx *c, uint32_t i, const tk_tir_op *yield) {
    const tk_tir_value *arg = c->body->args.data[i], *next = yield->operands.data[i - 1];
    if (!tir_rank(arg->type) || !ty_elem_is_pointer_type(arg->type)) return NULL;
    const tk_tir_op *add = next->def;
    if (!add || add->code != TIR_ADDPTR || add->parent != c->body || add->operands.data[0] != arg) return NULL;
    const tk_tir_op *splat = add->operands.data[1]->def;
    if (!splat || splat->code != TIR_SPLAT || inside_body(c, splat->operands.data[0])) return NULL;
    return splat->operands.data[0];
}

/* A staged row read back from this trip's stage where its load stood,
 * its `other` put in where the mask is off; every use of the load then
 * takes it. */
static void row_value(dp_ctx *c, op_list *out, const staged *s, tk_tir_value *view) {
    tk_tir_op *load = s->load;
    tk_tir_value *v = emit(c, out, c->body, TIR_LOCAL_LOAD, 0, load->results.data[0]->type, view, NULL)->results.data[0];
    if (load->operands.len > 2 && !zero_fill(load->operands.data[2])) {
        tk_tir_op *pick = emit(c, out, c->body, TIR_SELECT, 0, v->type, load->operands.data[1], v);
        tk_vec_push(c->arena, &pick->operands, load->operands.data[2]);
        v = pick->results.data[0];
    }
    tir_replace_uses(c->body, load->results.data[0], v, NULL);
}

static void pipeline_loop(dp_ctx *c, tk_tir_op *loop, uint32_t stages, op_list *before, op_list *after) {
    tk_tir_block *body = loop->regions.data[0];
    c->loop = loop;
    c->body = body;
    tk_tir_op *yield = (tk_tir_op *)yield_of(body);
    if (!yield || yield->operands.len + 1 != body->args.len) return;
    c->ahead = TK_NEW_ARRAY(c->arena, bool, body->args.len + 1);
    c->uses = TK_NEW_ARRAY(c->arena, uint32_t, c->nvalues + 1);
    tir_walk(body, count_uses, c);
    find_ahead(c, yield);

    /* loop-invariant A operands of dots whose B the loop pipelines: each
     * a buffer of one stage, placed before the pipelined ones so that the
     * depth chosen below counts it */
    staged_list held = {0};
    for (uint32_t i = 0; i < body->ops.len; i++) {
        tk_tir_op *dot = body->ops.data[i];
        staged a = {0}, b = {0};
        if (!is_mma_dot(dot) || !pipelinable(c, dot, 1, &b) || !resident(c, dot, &a)) continue;
        bool seen = false;
        for (uint32_t h = 0; h < held.len; h++) seen |= held.data[h].load == a.load;
        if (seen) continue;
        a.buffer = filled_buffer(c, a.load);
        if (a.buffer == UINT32_MAX) a.buffer = add_buffer(c, &a, 1);
        tk_vec_push(c->arena, &held, a);
    }
    /* a buffer an earlier loop filled: complete since that loop's start */
    bool *filled = TK_NEW_ARRAY(c->arena, bool, held.len + 1);
    const tk_tir_op **filled_by = TK_NEW_ARRAY(c->arena, const tk_tir_op *, held.len + 1);
    for (uint32_t h = 0; h < held.len; h++) {
        filled[h] = filled_buffer(c, held.data[h].load) != UINT32_MAX;
        /* live from the loop that filled it through this one: the depth
         * chosen below counts it beside this loop's buffers (attention's Q
         * beside the diagonal loop's K and V) */
        tk_tir_buffer *buf = &c->k->buffers.data[held.data[h].buffer];
        if (filled[h]) filled_by[h] = buf->loop, buf->loop = NULL;
    }

    /* the loads to pipeline, and per dot its operands' */
    staged_list loads = {0};
    op_list dots = {0};
    uint32_t first_buffer = c->k->buffers.len;
    for (uint32_t i = 0; i < body->ops.len; i++) {
        tk_tir_op *dot = body->ops.data[i];
        if (!is_mma_dot(dot)) continue;
        bool any = false;
        for (uint32_t j = 0; j < 2; j++) {
            staged s = {0};
            if (!pipelinable(c, dot, j, &s)) continue;
            bool seen = false; /* a load two dots read as it is: one buffer */
            for (uint32_t l = 0; l < loads.len; l++) seen |= staged_value(&loads.data[l]) == staged_value(&s);
            any |= seen;
            if (seen) continue;
            /* the same load read another way round (the backward's Q and
             * dO): its 16-bit tile once in shared memory, read through a
             * transposed view (wgmma's MN-major operand, ldmatrix .trans) */
            for (uint32_t l = 0; l < loads.len && !s.alias; l++)
                if (loads.data[l].load == s.load && !loads.data[l].alias &&
                    tk_dtype_bits(tir_elem(staged_value(&s)->type)->dtype) == 16) {
                    s.alias = l + 1;
                    s.buffer = loads.data[l].buffer;
                    s.flip = (s.trans != NULL) != (loads.data[l].trans != NULL);
                }
            if (!s.alias) s.buffer = add_buffer(c, &s, stages);
            tk_vec_push(c->arena, &loads, s);
            any = true;
        }
        for (uint32_t j = 0; j < 2; j++) {
            staged s = {0};
            if (!converted_operand(c, dot, j, &s)) continue;
            s.buffer = add_buffer(c, &s, stages);
            tk_vec_push(c->arena, &loads, s);
            any = true;
        }
        if (any) tk_vec_push(c->arena, &dots, dot);
    }
    /* the loop's rows, with the tiles (row_load) */
    for (uint32_t i = 0; i < body->ops.len && loads.len; i++) {
        staged s = {0};
        if (!row_load(c, body->ops.data[i], &s)) continue;
        s.buffer = add_buffer(c, &s, stages);
        tk_vec_push(c->arena, &loads, s);
    }
    if (!loads.len) {
        for (uint32_t h = 0; h < held.len; h++) {
            tk_tir_buffer *buf = &c->k->buffers.data[held.data[h].buffer];
            if (filled[h]) buf->loop = filled_by[h];
            else buf->stages = 0;
        }
        return;
    }
    /* TMA copies complete on a barrier a stage; the launcher builds each
     * descriptor's tensor map for its box. A loop all of whose copies are
     * TMA's has no cp.async group to commit or wait for: its trips keep
     * only the barrier (every thread done with the stage the next copy
     * overwrites) */
    bool tma = false, cp_async = false;
    for (uint32_t l = 0; l < loads.len; l++) cp_async |= !loads.data[l].tma && !loads.data[l].alias;
    for (uint32_t l = 0; l < loads.len; l++) {
        const staged *s = &loads.data[l];
        if (!s->tma) continue;
        tma = true;
        uint32_t arg = 0, box[2], swizzle;
        while (arg < c->k->body->args.len && c->k->body->args.data[arg] != s->load->operands.data[0]) arg++;
        tir_tma_box(s->load->results.data[0]->type, s->trans != NULL, box, &swizzle);
        bool known = false;
        for (uint32_t m = 0; m < c->k->tma_maps.len; m++) known |= c->k->tma_maps.data[m].arg == arg;
        if (!known) {
            tk_tir_tma_map map = {arg, {box[0], box[1]}, swizzle};
            tk_vec_push(c->arena, &c->k->tma_maps, map);
        }
    }
    if (tma) {
        int64_t one = 1;
        c->barriers = tir_add_buffer(c->arena, c->k, tk_type_tile(c->arena, tk_type_scalar(c->arena, TK_I64), 1, &one),
                                     stages, false, loop, loads.data[0].load->loc);
    }
    stages = fit_stages(c, &loads.data[0].load->loc, first_buffer, stages);
    /* a wgmma whose accumulator only feeds the next trip's stays in flight
     * across the trip's end: one more buffer, so the copy S - 1 trips
     * ahead never lands in the stage it may still read */
    bool *b_view = TK_NEW_ARRAY(c->arena, bool, dots.len + 1), in_flight = false;
    bool *a_view = TK_NEW_ARRAY(c->arena, bool, dots.len + 1);
    bool *a_stays = TK_NEW_ARRAY(c->arena, bool, dots.len + 1), *chained = TK_NEW_ARRAY(c->arena, bool, dots.len + 1);
    bool *a_steps = TK_NEW_ARRAY(c->arena, bool, dots.len + 1);
    uint32_t wgmma_count = wgmma_dots_in(body);
    const staged **held_a = TK_NEW_ARRAY(c->arena, const staged *, dots.len + 1);
    bool *held_used = TK_NEW_ARRAY(c->arena, bool, held.len + 1);
    for (uint32_t d = 0; d < dots.len; d++) {
        const tk_tir_op *dot = dots.data[d];
        const staged *from[2];
        operand_sources(&loads, dot, from);
        for (uint32_t h = 0; h < held.len && !from[0]; h++)
            if (dot->operands.data[0] == staged_value(&held.data[h])) held_a[d] = &held.data[h];
        /* a wgmma reads its operands where they are staged, A where its
         * buffer suits (else from registers: a loop-invariant A as it
         * was loaded, a staged one by a local_load) */
        const staged *a = from[0] ? from[0] : held_a[d];
        b_view[d] = is_wgmma(dot) && from[1];
        a_view[d] = is_wgmma(dot) && a && view_readable(c, dot, 0, a);
        if (!a_view[d] || from[0]) held_a[d] = NULL;
        for (uint32_t h = 0; h < held.len; h++) held_used[h] |= held_a[d] == &held.data[h];
        /* A wgmma running on into the next trip reads its A there still.
         * From shared memory, or registers no trip writes (a loop-
         * invariant A, attention's Q), it may. From registers the trip
         * writes (a conversion, a transposed product's B^T, a staged A
         * read back) only where an earlier dot of the trip waits for
         * every wgmma before this one writes them again (attention's P:
         * QK^T's wait comes first): the words wgmma reads are the same
         * PTX registers every trip, written again before this dot's own
         * wait would retire the previous one (H200: wrong sums and NaNs
         * at 8 warps and many trips; Triton pipelines no such wgmma).
         * A staged A read back into registers (the transposed tf32
         * product's B^T) of the loop's only wgmma may, a K step at a time
         * (step_groups): each step's wgmmas a group, and before a step's
         * words are read again the previous trip's same step is waited
         * for (codegen/dot.c), so the words in flight are never the ones
         * written. For 32-bit operands, where it was measured and run
         * (8-bit ones read back, an M-major fp8 A, keep the wait at the
         * trip's end). */
        const tk_tir_value *av = dot->operands.data[0];
        bool earlier_waits = false;
        for (uint32_t e = 0; e < d; e++) earlier_waits |= is_wgmma(dots.data[e]) && !chained[e];
        chained[d] = b_view[d] && chained_accumulator(c, dot, yield, NULL) >= 0;
        a_steps[d] = b_view[d] && from[0] && !a_view[d] && wgmma_count == 1 &&
                     tk_dtype_bits(operand_dtype(dot)) == 32;
        a_stays[d] = a_view[d] || (!from[0] && !inside_body(c, av) && body_arg(c, av) < 0) || earlier_waits ||
                     a_steps[d];
        chained[d] = chained[d] && a_stays[d];
        in_flight |= chained[d];
    }
    fragment_buffers(c, &loads, &dots, a_view);
    if (in_flight && extra_buffer_costs_a_block(c, first_buffer, stages)) stages--;
    /* Where the buffer beyond the depth does not fit (tf32's big tiles,
     * 256x128x128 in 16 bits), the wgmma still stays in flight, over
     * num_stages buffers: each trip's copies then wait for the previous
     * trip's wgmma (the wgmma wait, then a second barrier), as Triton's
     * loop does, instead of a wgmma waited for at once, whose copies the
     * next trip then waits for in full. H200, 8192^3, tf32 with B K-major:
     * 128x256x64 242 -> 267 TFLOP/s, 128x128x64 248 -> 281; f16
     * 256x128x128 444 -> 435 (at 3000x5000x2000 324 either way). */
    uint32_t nbuf = stages;
    bool copies_late = false;
    if (in_flight && buffers_fit(c, first_buffer, stages + 1)) nbuf = stages + 1;
    else copies_late = in_flight;
    for (uint32_t b = first_buffer; b < c->k->buffers.len; b++) c->k->buffers.data[b].stages = nbuf;

    /* the loop-invariant operands: copied first, in a group of their own.
     * cp.async groups complete in order, so where the loop waits for its
     * own groups the first trip's wait (or the drain after a loop of no
     * trips) completes this one too: a wait here would cost every block a
     * second memory round trip before its first dot (attention's Q). A
     * loop of TMA copies alone waits on barriers: there the group is
     * waited for (every thread's copies, then a barrier) before the
     * pipeline starts. */
    tk_tir_block *outside = loop->parent;
    tk_tir_value **held_view = TK_NEW_ARRAY(c->arena, tk_tir_value *, held.len + 1);
    bool any_copied = false;
    for (uint32_t h = 0; h < held.len; h++) {
        tk_tir_buffer *buf = &c->k->buffers.data[held.data[h].buffer];
        if (!held_used[h]) {
            if (filled[h]) buf->loop = filled_by[h]; /* not read here: free after the loop that filled it */
            else buf->stages = 0;
            continue;
        }
        tk_tir_value *stage = constant(c, before, outside, i32_type(c), 0);
        if (!filled[h]) {
            copy_for_trip(c, before, outside, &held.data[h], stage, NULL);
            tk_vec_push(c->arena, &c->filled_loads, held.data[h].load);
            tk_vec_push(c->arena, &c->filled_buffers, held.data[h].buffer);
            tk_vec_push(c->arena, &c->filled_in, (const tk_tir_block *)outside);
            any_copied = true;
        }
        held_view[h] = view(c, before, outside, &held.data[h], stage);
    }
    if (any_copied) {
        emit(c, before, outside, TIR_ASYNC_COMMIT, 0, NULL, NULL, NULL);
        if (!cp_async) {
            tk_tir_op *complete = emit(c, before, outside, TIR_ASYNC_WAIT, 0, NULL, NULL, NULL);
            struct tk_sema_attr none = {"pending", NULL, 0};
            tk_vec_push(c->arena, &complete->attrs, none);
        }
    }

    /* ahead values at the start: the initial ones */
    uint32_t nargs = body->args.len;
    tk_tir_value **cur = TK_NEW_ARRAY(c->arena, tk_tir_value *, nargs + 1);
    for (uint32_t i = 1; i < nargs; i++) cur[i] = loop->operands.data[3 + i - 1];
    tk_tir_value *lo = loop->operands.data[0], *step = loop->operands.data[2];
    const tk_type *ivt = body->args.data[0]->type;

    /* the barriers, ready before any copy names them */
    if (tma) {
        for (uint32_t st = 0; st < nbuf; st++) {
            tk_tir_value *bar = barrier_view(c, before, outside, constant(c, before, outside, i32_type(c), st));
            emit(c, before, outside, TIR_MBAR_INIT, 0, NULL, bar, NULL);
        }
        emit(c, before, outside, TIR_BARRIER, 0, NULL, NULL, NULL);
    }

    /* prologue: trips 0 .. S-2 */
    tk_tir_value *iv = lo;
    for (uint32_t p = 0; p + 1 < stages; p++) {
        if (p) iv = binary(c, before, outside, TK_BINOP_ADD, iv, step);
        begin_trip(c, iv, cur);
        tk_tir_value *runs = trip_runs(c, iv, before, outside);
        tk_tir_value *stage = constant(c, before, outside, i32_type(c), p);
        expect_copies(c, before, outside, &loads, stage, runs);
        for (uint32_t l = 0; l < loads.len; l++)
            if (!loads.data[l].alias) copy_for_trip(c, before, outside, &loads.data[l], stage, runs);
        if (cp_async) emit(c, before, outside, TIR_ASYNC_COMMIT, 0, NULL, NULL, NULL);
        tk_tir_value **next = TK_NEW_ARRAY(c->arena, tk_tir_value *, nargs + 1);
        for (uint32_t i = 1; i < nargs; i++)
            if (c->ahead[i]) next[i] = for_trip(c, yield->operands.data[i - 1], before, outside);
        cur = next;
    }

    /* new carried values: the ahead ones, then the two stage counters.
     * With a wgmma in flight, a tile of pointers that advances by one
     * invariant scalar runs ahead as one i64 offset from the loop's initial
     * pointers, (S - 1) steps at first: each trip adds that uniform offset
     * to invariant pointers, as Triton's loop does. Carried as a tile of
     * pointers advanced in place, ptxas kept each pointer's halves apart
     * and moved them into a pair before every copy (matmul 128x128x64:
     * 217 instructions a trip against Triton's 131; H200 542 -> 582
     * TFLOP/s). The mma.sync loop keeps the tile: it holds its operands in
     * registers, and the invariant pointers made ptxas spill. */
    const tk_type *i64 = tk_type_scalar(c->arena, TK_I64);
    tk_tir_value **arg_of = TK_NEW_ARRAY(c->arena, tk_tir_value *, nargs + 1);
    tk_tir_value **advance = TK_NEW_ARRAY(c->arena, tk_tir_value *, nargs + 1);
    for (uint32_t i = 1; i < nargs; i++) {
        if (!c->ahead[i]) continue;
        advance[i] = in_flight ? scalar_advance(c, i, yield) : NULL;
        tk_tir_value *a;
        if (advance[i]) {
            a = new_value(c, i64, NULL);
            if (tir_elem(advance[i]->type)->dtype != TK_I64)
                advance[i] = emit(c, before, outside, TIR_CAST, 0, i64, advance[i], NULL)->results.data[0];
            tk_tir_value *ahead_steps = constant(c, before, outside, i64, stages - 1);
            tk_vec_push(c->arena, &loop->operands, binary(c, before, outside, TK_BINOP_MUL, advance[i], ahead_steps));
            tk_vec_push(c->arena, &loop->results, new_value(c, i64, loop));
        } else {
            a = tir_copy_value(c->arena, c->k, body->args.data[i], NULL);
            tk_vec_push(c->arena, &loop->operands, cur[i]);
            tk_vec_push(c->arena, &loop->results, tir_copy_value(c->arena, c->k, body->args.data[i], loop));
        }
        tk_vec_push(c->arena, &body->args, a);
        arg_of[i] = a;
    }
    tk_tir_value *read_stage = new_value(c, i32_type(c), NULL), *write_stage = new_value(c, i32_type(c), NULL);
    tk_vec_push(c->arena, &body->args, read_stage);
    tk_vec_push(c->arena, &loop->operands, constant(c, before, outside, i32_type(c), 0));
    tk_vec_push(c->arena, &loop->results, new_value(c, i32_type(c), loop));
    tk_vec_push(c->arena, &body->args, write_stage);
    tk_vec_push(c->arena, &loop->operands, constant(c, before, outside, i32_type(c), stages - 1));
    tk_vec_push(c->arena, &loop->results, new_value(c, i32_type(c), loop));
    /* the phase of the barrier of the stage read: flips as the stages wrap */
    tk_tir_value *read_phase = NULL;
    if (tma) {
        read_phase = new_value(c, i32_type(c), NULL);
        tk_vec_push(c->arena, &body->args, read_phase);
        tk_vec_push(c->arena, &loop->operands, constant(c, before, outside, i32_type(c), 0));
        tk_vec_push(c->arena, &loop->results, new_value(c, i32_type(c), loop));
    }

    /* the body's head: wait, read this trip's stage, copy trip t + S - 1 */
    op_list head = {0};
    if (tma) {
        tk_tir_value *bar = barrier_view(c, &head, body, read_stage);
        emit(c, &head, body, TIR_MBAR_WAIT, 0, NULL, bar, read_phase);
    }
    if (cp_async) {
        tk_tir_op *wait = emit(c, &head, body, TIR_ASYNC_WAIT, 0, NULL, NULL, NULL);
        struct tk_sema_attr pending = {"pending", NULL, stages - 2};
        tk_vec_push(c->arena, &wait->attrs, pending);
    } else {
        emit(c, &head, body, TIR_BARRIER, 0, NULL, NULL, NULL);
    }
    tk_tir_value **views = TK_NEW_ARRAY(c->arena, tk_tir_value *, loads.len);
    for (uint32_t l = 0; l < loads.len; l++) views[l] = view(c, &head, body, &loads.data[l], read_stage);
    TK_VEC(int) waited = {0}; /* carried values a dot_wait after the loop completes */
    TK_VEC(int) trip_waited = {0}; /* ... that one at the trip's end completes */
    for (uint32_t d = 0; d < dots.len; d++) {
        tk_tir_op *dot = dots.data[d];
        tk_tir_value *v[2] = {NULL, NULL};
        for (uint32_t l = 0; l < loads.len; l++)
            for (uint32_t j = 0; j < 2; j++)
                if (dot->operands.data[j] == staged_value(&loads.data[l])) v[j] = views[l];
        if (is_wgmma(dot)) {
            /* only a wgmma whose B is a stage may run on into the next
             * trip: a B stored from registers is stored again then */
            bool wait_first = false;
            int carried = in_flight && b_view[d] && a_stays[d] ? chained_accumulator(c, dot, yield, &wait_first) : -1;
            if (wait_first) wait_before_first_read(c, body->args.data[carried + 1]);
            /* one whose A the trip writes runs on over the trip's copies,
             * waited for at the trip's end (its A words then free) */
            int in_trip = carried < 0 && b_view[d] && !a_stays[d] ? chained_accumulator(c, dot, yield, NULL) : -1;
            set_attr(c, dot, "pending", NULL, carried >= 0 || in_trip >= 0 ? 1 : 0);
            if (carried >= 0 && a_steps[d]) set_attr(c, dot, "step_groups", NULL, 1);
            if (carried >= 0) tk_vec_push(c->arena, &waited, carried);
            if (in_trip >= 0) tk_vec_push(c->arena, &trip_waited, in_trip);
            if (!v[0] && held_a[d]) v[0] = held_view[held_a[d] - held.data];
            if (v[0] && a_view[d]) dot->operands.data[0] = v[0], v[0] = NULL;
            if (v[1]) dot->operands.data[1] = v[1], v[1] = NULL;
        }
        for (uint32_t j = 0; j < 2; j++)
            if (v[j]) {
                tk_tir_op *ld = emit(c, &head, body, TIR_LOCAL_LOAD, 0, dot->operands.data[j]->type, v[j], NULL);
                dot->operands.data[j] = ld->results.data[0];
            }
    }
    for (uint32_t l = 0; l < loads.len; l++) {
        loads.data[l].load->dead = true;
        if (loads.data[l].trans) loads.data[l].trans->dead = true;
    }

    /* trip t + S - 1's copies into the stage trip t - 1 read (nbuf = S) or
     * t - 2 read (nbuf = S + 1, a wgmma in flight) */
    op_list tail = {0};
    tk_tir_value *span = emit(c, &tail, body, TIR_CONST, 0, ivt, NULL, NULL)->results.data[0];
    span->def->value.i = stages - 1;
    tk_tir_value *ahead_iv = binary(c, &tail, body, TK_BINOP_ADD, body->args.data[0],
                                    binary(c, &tail, body, TK_BINOP_MUL, step, span));
    tk_tir_value **ptrs = TK_NEW_ARRAY(c->arena, tk_tir_value *, nargs + 1);
    for (uint32_t i = 1; i < nargs; i++) {
        ptrs[i] = arg_of[i];
        if (!c->ahead[i] || !advance[i]) continue;
        const tk_type *t = body->args.data[i]->type;
        const tk_type *offsets = tk_type_tile(c->arena, i64, t->rank, t->shape);
        tk_tir_value *o = emit(c, &tail, body, TIR_SPLAT, 0, offsets, arg_of[i], NULL)->results.data[0];
        ptrs[i] = emit(c, &tail, body, TIR_ADDPTR, 0, t, loop->operands.data[3 + i - 1], o)->results.data[0];
    }
    begin_trip(c, ahead_iv, ptrs);
    tk_tir_value *runs = trip_runs(c, ahead_iv, &tail, body);
    expect_copies(c, &tail, body, &loads, write_stage, runs);
    for (uint32_t l = 0; l < loads.len; l++)
        if (!loads.data[l].alias) copy_for_trip(c, &tail, body, &loads.data[l], write_stage, runs);
    if (cp_async) emit(c, &tail, body, TIR_ASYNC_COMMIT, 0, NULL, NULL, NULL);
    tk_tir_value **next = TK_NEW_ARRAY(c->arena, tk_tir_value *, nargs + 1);
    for (uint32_t i = 1; i < nargs; i++)
        if (c->ahead[i])
            next[i] = advance[i] ? binary(c, &tail, body, TK_BINOP_ADD, arg_of[i], advance[i])
                                 : for_trip(c, yield->operands.data[i - 1], &tail, body);
    tk_tir_value *read_next = next_stage(c, &tail, body, read_stage, nbuf);
    tk_tir_value *write_next = next_stage(c, &tail, body, write_stage, nbuf);
    tk_tir_value *phase_next = NULL;
    if (tma) {
        tk_tir_value *zero = constant(c, &tail, body, i32_type(c), 0), *one = constant(c, &tail, body, i32_type(c), 1);
        tk_tir_value *wrapped = emit(c, &tail, body, TIR_CMP, TK_BINOP_EQ, tk_type_scalar(c->arena, TK_I1), read_next,
                                     zero)->results.data[0];
        tk_tir_value *flipped = binary(c, &tail, body, TK_BINOP_XOR, read_phase, one);
        tk_tir_op *pick = emit(c, &tail, body, TIR_SELECT, 0, i32_type(c), wrapped, flipped);
        tk_vec_push(c->arena, &pick->operands, read_phase);
        phase_next = pick->results.data[0];
    }

    /* with a wgmma in flight the copies go first instead: measured on the
     * H200, they then overlap the multiply better (matmul.tk 128x128x64:
     * 421 against 402 TFLOP/s), while mma.sync gains from issuing its
     * ldmatrix and mma.sync before them (128x256x64: 378 against 221) */
    bool copies_first = in_flight && !copies_late;
    if (copies_first)
        for (uint32_t i = 0; i < tail.len; i++) tk_vec_push(c->arena, &head, tail.data[i]);
    for (uint32_t i = 0; i < body->ops.len; i++) {
        tk_tir_op *op = body->ops.data[i];
        for (uint32_t l = 0; l < loads.len; l++)
            if (loads.data[l].reread && loads.data[l].load == op) row_value(c, &head, &loads.data[l], views[l]);
        if (op != yield) tk_vec_push(c->arena, &head, op);
    }
    if (copies_late) emit(c, &head, body, TIR_BARRIER, 0, NULL, NULL, NULL);
    if (!copies_first)
        for (uint32_t i = 0; i < tail.len; i++) tk_vec_push(c->arena, &head, tail.data[i]);
    for (uint32_t w = 0; w < trip_waited.len; w++) {
        tk_tir_value **v = &yield->operands.data[trip_waited.data[w]];
        *v = emit(c, &head, body, TIR_DOT_WAIT, 0, (*v)->type, *v, NULL)->results.data[0];
    }
    tk_vec_push(c->arena, &head, yield);
    body->ops.data = head.data;
    body->ops.len = head.len;
    body->ops.cap = head.cap;
    for (uint32_t i = 1; i < nargs; i++)
        if (c->ahead[i]) tk_vec_push(c->arena, &yield->operands, next[i]);
    tk_vec_push(c->arena, &yield->operands, read_next);
    tk_vec_push(c->arena, &yield->operands, write_next);
    if (phase_next) tk_vec_push(c->arena, &yield->operands, phase_next);

    /* an accumulator whose wgmma may still run is waited for before
     * anything reads it; then no copy is left in flight, and the barrier
     * of that wait ends every use of the buffers (smem.c may put scratch
     * over them after it) */
    for (uint32_t w = 0; w < waited.len; w++) {
        tk_tir_value *result = loop->results.data[waited.data[w]];
        tk_tir_op *done = emit(c, after, outside, TIR_DOT_WAIT, 0, result->type, result, NULL);
        tir_replace_uses(c->k->body, result, done->results.data[0], done);
    }
    if (cp_async) {
        tk_tir_op *drain = emit(c, after, outside, TIR_ASYNC_WAIT, 0, NULL, NULL, NULL);
        struct tk_sema_attr none = {"pending", NULL, 0};
        tk_vec_push(c->arena, &drain->attrs, none);
    } else {
        emit(c, after, outside, TIR_BARRIER, 0, NULL, NULL, NULL);
    }
    /* every copy issued was waited for in the loop: the barriers' memory
     * may serve other uses after the drain's barrier */
    for (uint32_t st = 0; tma && st < nbuf; st++) {
        tk_tir_value *bar = barrier_view(c, after, outside, constant(c, after, outside, i32_type(c), st));
        emit(c, after, outside, TIR_MBAR_INVAL, 0, NULL, bar, NULL);
    }
}

static void pipeline_block(dp_ctx *c, tk_tir_block *blk) {
    op_list rebuilt = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        for (uint32_t r = 0; r < op->regions.len; r++) pipeline_block(c, op->regions.data[r]);
        op_list after = {0};
        int64_t stages = op->code == TIR_FOR ? tk_tir_attr_int(op, "num_stages", c->k->num_stages) : 1;
        if (c->k->max_stages && stages > c->k->max_stages) stages = c->k->max_stages;
        if (!op->dead && stages >= 2) {
            c->nvalues = c->k->value_count;
            c->subst = TK_NEW_ARRAY(c->arena, tk_tir_value *, c->nvalues + 1);
            pipeline_loop(c, op, (uint32_t)stages, &rebuilt, &after);
        }
        tk_vec_push(c->arena, &rebuilt, op);
        for (uint32_t k = 0; k < after.len; k++) tk_vec_push(c->arena, &rebuilt, after.data[k]);
    }
    blk->ops.data = rebuilt.data;
    blk->ops.len = rebuilt.len;
    blk->ops.cap = rebuilt.cap;
}

/* The desc_loads the descriptors pass kept for TMA: each stays where TMA
 * can fill the buffer the pipeline will give it (tir_tma_box), in the
 * same boxes as the parameter's other kept loads (one tensor map a
 * parameter); the others are expanded into pointer tiles here, before
 * the axis facts the pipeline reads are computed. */
typedef struct desc_loads {
    tk_arena *arena;
    tk_tir_kernel *k;
    TK_VEC(tk_tir_op *) ops;
} desc_loads;

static void collect_desc_load(tk_tir_op *op, void *ctx) {
    desc_loads *d = ctx;
    if (!op->dead && op->code == TIR_DESC_LOAD) tk_vec_push(d->arena, &d->ops, op);
}

/* is a use of load's tile a tl.trans (what a dot would read)? */
static bool read_transposed(const tk_tir_op *load) {
    const tk_tir_block *blk = load->parent;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (!op->dead && tir_is_transpose(op) && op->operands.data[0] == load->results.data[0]) return true;
    }
    return false;
}

static void settle_descriptor_loads(tk_arena *arena, tk_tir_kernel *k, bool leftovers) {
    desc_loads d = {arena, k, {0}};
    tir_walk(k->body, collect_desc_load, &d);
    typedef struct kept_map { const tk_tir_value *desc; uint32_t box[2], swizzle; } kept_map;
    TK_VEC(kept_map) kept = {0};
    /* the maps warp_specialize.c made: one a parameter */
    for (uint32_t m = 0; m < k->tma_maps.len; m++) {
        const tk_tir_tma_map *map = &k->tma_maps.data[m];
        kept_map km = {k->body->args.data[map->arg], {map->box[0], map->box[1]}, map->swizzle_bytes};
        tk_vec_push(arena, &kept, km);
    }
    for (uint32_t i = 0; i < d.ops.len; i++) {
        tk_tir_op *op = d.ops.data[i];
        uint32_t box[2], swizzle;
        bool ok = !leftovers && tir_tma_box(op->results.data[0]->type, read_transposed(op), box, &swizzle);
        for (uint32_t j = 0; ok && j < kept.len; j++)
            if (kept.data[j].desc == op->operands.data[0])
                ok = kept.data[j].box[0] == box[0] && kept.data[j].box[1] == box[1] && kept.data[j].swizzle == swizzle;
        if (ok) {
            kept_map kd = {op->operands.data[0], {box[0], box[1]}, swizzle};
            tk_vec_push(arena, &kept, kd);
        } else {
            tir_expand_descriptor_access(arena, k, op);
        }
    }
}

void tir_pass_pipeline_dots(tk_arena *arena, tk_diag *diag, tk_tir_kernel *k, const tk_target *target) {
    settle_descriptor_loads(arena, k, !target || !target->has_tma);
    /* which loads run down their columns (column_major); the axis-info
     * pass runs again after this one, over what it changed */
    tir_pass_axis_info(arena, k);
    dp_ctx c = {0};
    c.arena = arena;
    c.diag = diag;
    c.k = k;
    c.target = target;
    pipeline_block(&c, k->body);
    /* those no loop took: loaded as pointer tiles */
    settle_descriptor_loads(arena, k, true);
}
