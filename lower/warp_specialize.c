/* Warp specialization of a loop whose tensor-core dots read tensor
 * descriptor tiles (`tl.range(..., warp_specialize=True)`): Triton's
 * AutomaticWarpSpecialization for a matmul loop, and CUTLASS's sm90
 * producer/consumer GEMM.
 *
 * The kernel gains a producer warpgroup after its num_warps warps. The
 * producer only copies: it walks the same loops as the kernel and for
 * each trip of the loop holding the dots waits until the consumers have
 * freed the next stage of a ring (its `empty` mbarrier), expects the
 * trip's bytes on the stage's `full` mbarrier and issues the trip's TMA
 * copies. The kernel's own warps (the consumers) run the kernel as it was
 * written, with each of those loads replaced by a wait on the stage's
 * `full` barrier and a view of the stage; once the wgmma reading a stage
 * is done, each consumer warp arrives on its `empty` barrier. The ring
 * goes on across the trips of an enclosing loop (a persistent kernel's
 * tiles), so the producer fills the next tile's stages while the
 * consumers store the last one. A wgmma whose accumulator only feeds the
 * next trip stays in flight over one trip (its stage freed a trip late).
 * setmaxnreg moves registers from the producer to the consumers (codegen).
 *
 * Applies to a flagged `for` at the kernel's top level whose body, or the
 * one loop directly in its body, computes wgmma dots (dot.c) reading 2-D
 * desc_loads of descriptor parameters TMA can copy into buffers wgmma
 * reads, on a target with setmaxnreg (sm_90a). A dot's other operand may
 * be what the consumers compute (attention's Q from before the loop, its
 * probabilities P), but not another load in the loop. The loads' coordinates and
 * the loops' bounds must be scalars computed from the loop variables,
 * scalar loop-carried values, values from before the loop and the
 * kernel's plain scalars between flagged loops. Several flagged loops at
 * the top level (causal attention's band and diagonal block) are walked
 * by one producer and one ring, whose stage and phase run on from loop to
 * loop; a later loop's loads reuse an earlier loop's buffers of their
 * tile. Elsewhere (a warning where the target could) the loop is
 * pipelined as usual.
 *
 * Needs: dot.c's impl, before pipeline_dot.c (which finds these loads
 * gone). Guarantees: one warp_specialize op at the end of the kernel
 * body, holding everything after the scalar values the two partitions
 * share; the ring's buffers and barriers live all kernel long. */
#include "internal.h"

#include <string.h>

typedef tir_op_list op_list;

typedef struct ws_load {
    tk_tir_op *load, *trans; /* the desc_load and the tl.trans the dot reads (or NULL) */
    tk_tir_op *dot;
    uint32_t operand;
    uint32_t buffer;
} ws_load;

typedef TK_VEC(ws_load) ws_loads;

/* One flagged loop the partitions walk: the loop, the loop of its dots
 * (maybe the same), the loads staged there */
typedef struct ws_segment {
    tk_tir_op *outer, *inner;
    ws_loads loads;
} ws_segment;

typedef struct ws_ctx {
    tk_arena *arena;
    tk_tir_kernel *k;
    TK_VEC(ws_segment) segments; /* the flagged loops, in the kernel's order */
    tk_tir_op *outer, *inner;    /* the segment being looked at or built */
    ws_loads loads;              /* its loads */
    uint32_t stages, full, empty; /* ring depth; the two barrier buffers */
    uint32_t nvalues;
    uint8_t *needed;       /* by value id: the producer computes it */
    uint8_t *outside;      /* by value id: defined before the loop, left where it is */
    uint8_t *loaded;       /* by value id: loaded_in's answers */
    tk_tir_value **map;    /* by value id: its value in the producer */
    const char *why;
} ws_ctx;

static const tk_type *i32_type(ws_ctx *c) { return tk_type_scalar(c->arena, TK_I32); }
static const tk_type *i1_type(ws_ctx *c) { return tk_type_scalar(c->arena, TK_I1); }

static tk_tir_op *emit(ws_ctx *c, op_list *out, tk_tir_block *at, tk_tir_opcode code, int sub, const tk_type *t,
                       tk_tir_value *a, tk_tir_value *b) {
    return tir_append_op(c->arena, c->k, out, at, c->outer->loc, code, sub, t, a, b);
}

static void attr(ws_ctx *c, tk_tir_op *op, const char *name, int64_t v) {
    struct tk_sema_attr a = {name, NULL, v};
    tk_vec_push(c->arena, &op->attrs, a);
}

static tk_tir_value *constant(ws_ctx *c, op_list *out, tk_tir_block *at, const tk_type *t, int64_t v) {
    return tir_append_const(c->arena, c->k, out, at, c->outer->loc, t, v);
}

static tk_tir_value *binary(ws_ctx *c, op_list *out, tk_tir_block *at, int op, tk_tir_value *a, tk_tir_value *b) {
    return emit(c, out, at, TIR_BINARY, op, a->type, a, b)->results.data[0];
}

static tk_tir_value *select(ws_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *cond, tk_tir_value *a,
                            tk_tir_value *b) {
    tk_tir_op *pick = emit(c, out, at, TIR_SELECT, 0, a->type, cond, a);
    tk_vec_push(c->arena, &pick->operands, b);
    return pick->results.data[0];
}

static tk_tir_value *cmp(ws_ctx *c, op_list *out, tk_tir_block *at, int op, tk_tir_value *a, tk_tir_value *b) {
    return emit(c, out, at, TIR_CMP, op, i1_type(c), a, b)->results.data[0];
}

static tk_tir_value *buffer_view(ws_ctx *c, op_list *out, tk_tir_block *at, uint32_t buffer, const tk_type *t,
                                 tk_tir_value *stage) {
    tk_tir_op *op = emit(c, out, at, TIR_LOCAL_VIEW, 0, t, stage, NULL);
    attr(c, op, "buffer", buffer);
    return op->results.data[0];
}

static tk_tir_value *barrier(ws_ctx *c, op_list *out, tk_tir_block *at, uint32_t buffer, tk_tir_value *stage) {
    return buffer_view(c, out, at, buffer, c->k->buffers.data[buffer].tile, stage);
}


static bool is_wgmma(const tk_tir_op *op) {
    return !op->dead && op->code == TIR_DOT && tk_tir_dot_impl(op) == TK_DOT_WGMMA;
}

static int kernel_param(const ws_ctx *c, const tk_tir_value *v) {
    for (uint32_t i = 0; i < c->k->body->args.len; i++)
        if (c->k->body->args.data[i] == v) return (int)i;
    return -1;
}

typedef struct use_count { const tk_tir_value *v; uint32_t n; } use_count;
static void count_use(tk_tir_op *op, void *ctx) {
    use_count *u = ctx;
    for (uint32_t i = 0; i < op->operands.len; i++) u->n += !op->dead && op->operands.data[i] == u->v;
}
static uint32_t uses(ws_ctx *c, const tk_tir_value *v) {
    use_count u = {v, 0};
    tir_walk(c->k->body, count_use, &u);
    return u.n;
}

/* Operand i of dot as a TMA-copied stage: a desc_load of this body's of a
 * descriptor parameter (or its tl.trans), read by the dot alone, whose
 * boxes fill a buffer wgmma reads. *unreadable: all but the last (a
 * 32- or 8-bit operand that is not K-contiguous). */
static bool stageable(ws_ctx *c, tk_tir_op *dot, uint32_t i, ws_load *out, bool *unreadable) {
    tk_tir_value *v = dot->operands.data[i];
    tk_tir_op *trans = tir_is_transpose(v->def) ? v->def : NULL;
    tk_tir_op *load = trans ? trans->operands.data[0]->def : v->def;
    if (!load || load->code != TIR_DESC_LOAD || load->parent != dot->parent) return false;
    const tk_tir_value *desc = load->operands.data[0];
    if (kernel_param(c, desc) < 0 || desc->type->rank != 2 || tir_rank(load->results.data[0]->type) != 2) return false;
    if (uses(c, load->results.data[0]) != 1 || (trans && uses(c, v) != 1)) return false;
    uint32_t box[2], swizzle;
    if (!tir_tma_box(load->results.data[0]->type, trans != NULL, box, &swizzle)) return false;
    if (!tir_wgmma_reads(tir_elem(v->type)->dtype, i, tir_loaded_column_major(load, trans != NULL),
                         tir_swizzle_for(v->type, tir_loaded_column_major(load, trans != NULL)))) {
        *unreadable = true;
        return false;
    }
    *out = (ws_load){load, trans, dot, i, 0};
    return true;
}

/* The loop of the dots: the flagged loop, or the one loop in its body */
static bool find_loops(ws_ctx *c) {
    tk_tir_block *body = c->outer->regions.data[0];
    bool dots = false;
    tk_tir_op *inner = NULL;
    uint32_t loops = 0;
    for (uint32_t i = 0; i < body->ops.len; i++) {
        tk_tir_op *op = body->ops.data[i];
        dots |= is_wgmma(op);
        if (!op->dead && op->code == TIR_FOR) inner = op, loops++;
    }
    if (dots) {
        c->inner = c->outer;
        return true;
    }
    if (loops != 1) {
        c->why = "its body holds no wgmma dot, nor one loop that does";
        return false;
    }
    c->inner = inner;
    return true;
}

/* Is v computed in body from a load there (a tl.trans of one, a
 * converted or scaled one), other than through a dot? The consumers
 * compute a dot's other operands (a tile from before the loop,
 * attention's probabilities from the scores); a load in the loop would be
 * theirs to issue and pipeline, which this schedule does not do.
 * c->loaded memoizes by value id (1 no, 2 yes). */
static bool loaded_in(ws_ctx *c, const tk_tir_value *v, const tk_tir_block *body);

typedef struct region_loads { ws_ctx *c; const tk_tir_block *body; bool loaded; } region_loads;
static void scan_region_op(tk_tir_op *op, void *ctx) {
    region_loads *r = ctx;
    if (op->dead || r->loaded) return;
    r->loaded = op->code == TIR_LOAD || op->code == TIR_DESC_LOAD;
    for (uint32_t i = 0; !r->loaded && i < op->operands.len; i++) r->loaded = loaded_in(r->c, op->operands.data[i], r->body);
}

static bool loaded_in(ws_ctx *c, const tk_tir_value *v, const tk_tir_block *body) {
    const tk_tir_op *def = v->def;
    if (!def || def->parent != body || def->code == TIR_DOT) return false;
    if (v->id < c->nvalues && c->loaded[v->id]) return c->loaded[v->id] == 2;
    if (v->id < c->nvalues) c->loaded[v->id] = 1; /* no cycles in SSA; settles re-entry */
    bool loaded = def->code == TIR_LOAD || def->code == TIR_DESC_LOAD;
    for (uint32_t i = 0; !loaded && i < def->operands.len; i++) loaded = loaded_in(c, def->operands.data[i], body);
    /* an if's result: what its branches load or read from the loop's body */
    region_loads r = {c, body, loaded};
    for (uint32_t i = 0; !r.loaded && i < def->regions.len; i++) tir_walk(def->regions.data[i], scan_region_op, &r);
    if (v->id < c->nvalues) c->loaded[v->id] = r.loaded ? 2 : 1;
    return r.loaded;
}

static bool collect_loads(ws_ctx *c) {
    tk_tir_block *body = c->inner->regions.data[0];
    for (uint32_t i = 0; i < body->ops.len; i++) {
        tk_tir_op *op = body->ops.data[i];
        if (!op->dead && op->code == TIR_DOT && !is_wgmma(op)) {
            c->why = "a dot in it is not a wgmma";
            return false;
        }
        if (!is_wgmma(op)) continue;
        for (uint32_t j = 0; j < 2; j++) {
            ws_load l;
            bool unreadable = false;
            if (stageable(c, op, j, &l, &unreadable)) {
                tk_vec_push(c->arena, &c->loads, l);
            } else if (unreadable) {
                c->why = j ? "a dot in it reads a B that wgmma cannot read from shared memory as the descriptor lays "
                             "it out: a 32- or 8-bit B must be K-contiguous (a descriptor of B^T, [N, K], and tl.trans "
                             "of its load)"
                           : "a dot in it reads an A that wgmma cannot read from shared memory as the descriptor lays "
                             "it out: a 32- or 8-bit A must be K-contiguous";
                return false;
            } else if (loaded_in(c, op->operands.data[j], body)) {
                c->why = "a dot in it reads a load that is not one of a tensor descriptor parameter TMA can copy";
                return false;
            }
        }
    }
    if (!c->loads.len) c->why = "no dot in its loop reads a load of a tensor descriptor parameter TMA can copy";
    return c->loads.len != 0;
}

/* ---- the producer's values ---------------------------------------------- */

static int arg_index(const tk_tir_block *blk, const tk_tir_value *v) {
    for (uint32_t i = 0; i < blk->args.len; i++)
        if (blk->args.data[i] == v) return (int)i;
    return -1;
}

/* Marks v and what it is computed from as the producer's; false (why
 * set) where the producer cannot compute it. */
static bool need(ws_ctx *c, const tk_tir_value *v, int depth) {
    if (v->id < c->nvalues && (c->needed[v->id] || c->outside[v->id])) return true;
    if (kernel_param(c, v) >= 0) return true;
    if (depth > 256) {
        c->why = "the loads' coordinates are computed too deep";
        return false;
    }
    if (v->type->kind != TK_TYPE_SCALAR) {
        c->why = "the loads' coordinates or the loops' bounds depend on a tile";
        return false;
    }
    c->needed[v->id] = 1;
    bool in_loops = false;
    for (uint32_t g = 0; g < c->segments.len; g++) {
        const tk_tir_op *loops[2] = {c->segments.data[g].outer, c->segments.data[g].inner};
        for (uint32_t l = 0; l < 2; l++) {
            tk_tir_block *body = loops[l]->regions.data[0];
            in_loops |= v->def && v->def->parent == body;
            int a = v->def ? -1 : arg_index(body, v);
            if (a < 0) continue;
            /* a loop's variable or carried value */
            if (a == 0) return true;
            const tk_tir_op *y = tir_terminator(body);
            return y && need(c, loops[l]->operands.data[3 + a - 1], depth + 1) &&
                   need(c, y->operands.data[a - 1], depth + 1);
        }
    }
    if (!v->def) {
        c->why = "the loads' coordinates or the loops' bounds depend on a value of another region";
        return false;
    }
    const tk_tir_op *def = v->def;
    /* the kernel's own scalars (between two flagged loops) the producer
     * computes again */
    if (!in_loops && def->parent != c->k->body) {
        c->why = "the loads' coordinates or the loops' bounds depend on a value of another region";
        return false;
    }
    if (!(tk_tir_props(def) & TIR_P_PURE) || def->regions.len) {
        c->why = "the loads' coordinates or the loops' bounds depend on a value that is not a plain scalar";
        return false;
    }
    for (uint32_t i = 0; i < def->operands.len; i++)
        if (!need(c, def->operands.data[i], depth + 1)) return false;
    return true;
}

/* The kernel's ops before the first flagged loop that stay before the
 * partitions: plain scalars (every warp computes them) */
static void mark_outside(ws_ctx *c) {
    tk_tir_block *top = c->k->body;
    for (uint32_t i = 0; i < top->ops.len && top->ops.data[i] != c->segments.data[0].outer; i++) {
        tk_tir_op *op = top->ops.data[i];
        bool stays = !op->dead && (tk_tir_props(op) & TIR_P_PURE) && !op->regions.len && op->results.len == 1 &&
                     op->results.data[0]->type->kind == TK_TYPE_SCALAR;
        for (uint32_t j = 0; stays && j < op->operands.len; j++) {
            const tk_tir_value *o = op->operands.data[j];
            stays = kernel_param(c, o) >= 0 || (o->id < c->nvalues && c->outside[o->id]);
        }
        if (stays) c->outside[op->results.data[0]->id] = 1;
    }
}

static tk_tir_value *mapped(ws_ctx *c, tk_tir_value *v) {
    return v->id < c->nvalues && c->map[v->id] ? c->map[v->id] : v;
}

static void clone_needed(ws_ctx *c, op_list *out, tk_tir_block *at, const tk_tir_op *op) {
    if (op->dead || !op->results.len || !c->needed[op->results.data[0]->id]) return;
    tk_tir_op *copy = tir_clone_op(c->arena, op, at);
    for (uint32_t i = 0; i < op->operands.len; i++) tk_vec_push(c->arena, &copy->operands, mapped(c, op->operands.data[i]));
    for (uint32_t i = 0; i < op->results.len; i++) {
        tk_tir_value *r = tir_copy_value(c->arena, c->k, op->results.data[i], copy);
        tk_vec_push(c->arena, &copy->results, r);
        c->map[op->results.data[i]->id] = r;
    }
    tk_vec_push(c->arena, out, copy);
}

/* stage + 1 wrapping at the ring's depth, and the phase flipped where it wraps */
static void advance(ws_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *stage, tk_tir_value *phase,
                    tk_tir_value **next_stage, tk_tir_value **next_phase) {
    tk_tir_value *one = constant(c, out, at, i32_type(c), 1), *zero = constant(c, out, at, i32_type(c), 0);
    tk_tir_value *n = binary(c, out, at, TK_BINOP_ADD, stage, one);
    tk_tir_value *wrap = cmp(c, out, at, TK_BINOP_EQ, n, constant(c, out, at, i32_type(c), c->stages));
    *next_stage = select(c, out, at, wrap, zero, n);
    *next_phase = select(c, out, at, wrap, binary(c, out, at, TK_BINOP_XOR, phase, one), phase);
}

/* the stage before `stage` in the ring */
static tk_tir_value *previous(ws_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *stage) {
    tk_tir_value *zero = constant(c, out, at, i32_type(c), 0);
    tk_tir_value *first = cmp(c, out, at, TK_BINOP_EQ, stage, zero);
    return select(c, out, at, first, constant(c, out, at, i32_type(c), c->stages - 1),
                  binary(c, out, at, TK_BINOP_SUB, stage, constant(c, out, at, i32_type(c), 1)));
}

/* One trip's copies into `stage`: the stage waited for (freed by the
 * consumers), its bytes expected on its full barrier, the TMA copies. */
static void producer_trip(ws_ctx *c, op_list *out, tk_tir_block *at, tk_tir_value *stage, tk_tir_value *phase) {
    /* a fresh barrier passes parity 1: the first round waits for nothing */
    tk_tir_value *one = constant(c, out, at, i32_type(c), 1);
    emit(c, out, at, TIR_MBAR_WAIT, 0, NULL, barrier(c, out, at, c->empty, stage),
         binary(c, out, at, TK_BINOP_XOR, phase, one));
    int64_t bytes = 0;
    for (uint32_t l = 0; l < c->loads.len; l++) {
        const tk_type *t = c->loads.data[l].load->results.data[0]->type;
        bytes += t->shape[0] * t->shape[1] * (int64_t)tk_dtype_bits(tir_elem(t)->dtype) / 8;
    }
    tk_tir_value *yes = constant(c, out, at, i1_type(c), 1);
    tk_tir_value *full = barrier(c, out, at, c->full, stage);
    attr(c, emit(c, out, at, TIR_MBAR_EXPECT, 0, NULL, full, yes), "bytes", bytes);
    for (uint32_t l = 0; l < c->loads.len; l++) {
        const ws_load *w = &c->loads.data[l];
        const tk_tir_op *load = w->load;
        const tk_type *t = load->results.data[0]->type;
        const tk_type *vt = (w->trans ? w->trans : w->load)->results.data[0]->type;
        tk_tir_value *dst = buffer_view(c, out, at, w->buffer, vt, stage);
        tk_tir_op *cp = emit(c, out, at, TIR_TMA_COPY, 0, NULL, dst, load->operands.data[0]);
        tk_vec_push(c->arena, &cp->operands, full);
        tk_vec_push(c->arena, &cp->operands, yes);
        for (uint32_t d = 1; d < load->operands.len; d++)
            tk_vec_push(c->arena, &cp->operands, mapped(c, load->operands.data[d]));
        uint32_t box[2], swizzle;
        tir_tma_box(t, w->trans != NULL, box, &swizzle);
        attr(c, cp, "box_rows", box[0]);
        attr(c, cp, "box_cols", box[1]);
        attr(c, cp, "panels", t->shape[1] / box[1]);
    }
}

/* A new loop in `at` like `loop`, carrying the producer's share of its
 * values and the ring's stage and phase (inits s0, p0); in its body the
 * producer's ops: the scalars it needs in order, the inner loop again
 * (the flagged loop around the dots' loop), or the trip's copies. */
static tk_tir_op *producer_loop(ws_ctx *c, op_list *out, tk_tir_block *at, tk_tir_op *loop, tk_tir_value *s0,
                                tk_tir_value *p0) {
    tk_tir_block *body = loop->regions.data[0];
    tk_tir_op *copy = tir_new_op(c->arena, TIR_FOR, 0, loop->loc);
    copy->parent = at;
    for (uint32_t i = 0; i < 3; i++) tk_vec_push(c->arena, &copy->operands, mapped(c, loop->operands.data[i]));
    tk_tir_block *nb = TK_NEW(c->arena, tk_tir_block);
    nb->parent = copy;
    tk_vec_push(c->arena, &copy->regions, nb);
    /* the variable, the carried values the producer needs, the ring */
    TK_VEC(uint32_t) kept = {0};
    for (uint32_t a = 0; a < body->args.len; a++) {
        tk_tir_value *arg = body->args.data[a];
        if (a && !c->needed[arg->id]) continue;
        tk_tir_value *na = tir_copy_value(c->arena, c->k, arg, NULL);
        c->map[arg->id] = na;
        tk_vec_push(c->arena, &nb->args, na);
        if (!a) continue;
        tk_vec_push(c->arena, &kept, a);
        tk_vec_push(c->arena, &copy->operands, mapped(c, loop->operands.data[3 + a - 1]));
        tk_vec_push(c->arena, &copy->results, tir_copy_value(c->arena, c->k, loop->results.data[a - 1], copy));
    }
    tk_tir_value *stage = tir_new_value(c->arena, c->k, i32_type(c), NULL);
    tk_tir_value *phase = tir_new_value(c->arena, c->k, i32_type(c), NULL);
    tk_vec_push(c->arena, &nb->args, stage);
    tk_vec_push(c->arena, &nb->args, phase);
    tk_vec_push(c->arena, &copy->operands, s0);
    tk_vec_push(c->arena, &copy->operands, p0);
    tk_vec_push(c->arena, &copy->results, tir_new_value(c->arena, c->k, i32_type(c), copy));
    tk_vec_push(c->arena, &copy->results, tir_new_value(c->arena, c->k, i32_type(c), copy));

    op_list ops = {0};
    tk_tir_value *s_out = stage, *p_out = phase;
    for (uint32_t i = 0; i < body->ops.len; i++) {
        tk_tir_op *op = body->ops.data[i];
        if (op == c->inner && loop != c->inner) {
            tk_tir_op *in = producer_loop(c, &ops, nb, op, stage, phase);
            s_out = in->results.data[in->results.len - 2];
            p_out = in->results.data[in->results.len - 1];
        } else {
            clone_needed(c, &ops, nb, op);
        }
    }
    if (loop == c->inner) {
        producer_trip(c, &ops, nb, stage, phase);
        advance(c, &ops, nb, stage, phase, &s_out, &p_out);
    }
    const tk_tir_op *y = tir_terminator(body);
    tk_tir_op *ny = emit(c, &ops, nb, TIR_YIELD, 0, NULL, NULL, NULL);
    for (uint32_t i = 0; i < kept.len; i++) tk_vec_push(c->arena, &ny->operands, mapped(c, y->operands.data[kept.data[i] - 1]));
    tk_vec_push(c->arena, &ny->operands, s_out);
    tk_vec_push(c->arena, &ny->operands, p_out);
    nb->ops.data = ops.data, nb->ops.len = ops.len, nb->ops.cap = ops.cap;
    tk_vec_push(c->arena, out, copy);
    return copy;
}

/* ---- the consumers ------------------------------------------------------ */

/* Is dot's result only the next trip's accumulator (carried to the dot's
 * own operand 2 and nowhere else)? Then its wgmma may stay in flight over
 * the trip's end; the index of that carried value, or -1. */
static int chained(ws_ctx *c, const tk_tir_op *dot) {
    tk_tir_block *body = c->inner->regions.data[0];
    const tk_tir_op *y = tir_terminator(body);
    if (!y || dot->operands.len < 3 || uses(c, dot->results.data[0]) != 1) return -1;
    for (uint32_t i = 0; i < y->operands.len; i++)
        if (y->operands.data[i] == dot->results.data[0])
            return body->args.data[i + 1] == dot->operands.data[2] && uses(c, body->args.data[i + 1]) == 1 ? (int)i
                                                                                                            : -1;
    return -1;
}

/* adds a carried i32 to loop (its init, its body's argument, its result) */
static tk_tir_value *carry(ws_ctx *c, tk_tir_op *loop, tk_tir_value *init, tk_tir_value **result) {
    tk_tir_value *arg = tir_new_value(c->arena, c->k, i32_type(c), NULL);
    tk_vec_push(c->arena, &loop->regions.data[0]->args, arg);
    tk_vec_push(c->arena, &loop->operands, init);
    *result = tir_new_value(c->arena, c->k, i32_type(c), loop);
    tk_vec_push(c->arena, &loop->results, *result);
    return arg;
}

/* The dots' loop for the consumers: each trip waits for its stage, reads
 * it and frees it; the ops to put after the loop go to `after` (in block
 * `outside`). */
static void consumer_loop(ws_ctx *c, tk_tir_value *s0, tk_tir_value *p0, tk_tir_value **s_end, tk_tir_value **p_end,
                          op_list *after, tk_tir_block *outside) {
    tk_tir_op *loop = c->inner;
    tk_tir_block *body = loop->regions.data[0];
    tk_tir_value *stage = carry(c, loop, s0, s_end), *phase = carry(c, loop, p0, p_end);
    op_list head = {0};
    emit(c, &head, body, TIR_MBAR_WAIT, 0, NULL, barrier(c, &head, body, c->full, stage), phase);
    for (uint32_t l = 0; l < c->loads.len; l++) {
        ws_load *w = &c->loads.data[l];
        tk_tir_value *read = (w->trans ? w->trans : w->load)->results.data[0];
        w->dot->operands.data[w->operand] = buffer_view(c, &head, body, w->buffer, read->type, stage);
        w->load->dead = true;
        if (w->trans) w->trans->dead = true;
    }
    /* one dot: in flight over the trip's end where it only feeds the next
     * trip, its stage freed after the next trip's wgmma wait */
    tk_tir_op *last = NULL;
    uint32_t ndots = 0;
    for (uint32_t i = 0; i < body->ops.len; i++)
        if (is_wgmma(body->ops.data[i])) last = body->ops.data[i], ndots++;
    int carried = ndots == 1 ? chained(c, last) : -1;
    op_list release = {0};
    tk_tir_value *yes = constant(c, &release, body, i1_type(c), 1);
    if (carried >= 0) {
        tk_tir_value *not_first = cmp(c, &release, body, TK_BINOP_NE, body->args.data[0], loop->operands.data[0]);
        emit(c, &release, body, TIR_MBAR_ARRIVE, 0, NULL, barrier(c, &release, body, c->empty, previous(c, &release, body, stage)),
             not_first);
    } else {
        emit(c, &release, body, TIR_MBAR_ARRIVE, 0, NULL, barrier(c, &release, body, c->empty, stage), yes);
    }
    for (uint32_t i = 0; i < body->ops.len; i++) {
        tk_tir_op *op = body->ops.data[i];
        if (op->dead) continue;
        if (op->code == TIR_YIELD) break;
        if (is_wgmma(op)) {
            struct tk_sema_attr p = {"pending", NULL, carried >= 0 ? 1 : 0};
            struct tk_sema_attr *attrs = TK_NEW_ARRAY(c->arena, struct tk_sema_attr, op->attrs.len + 1);
            uint32_t n = 0;
            for (uint32_t a = 0; a < op->attrs.len; a++)
                if (strcmp(op->attrs.data[a].name, "pending")) attrs[n++] = op->attrs.data[a];
            attrs[n++] = p;
            op->attrs.data = attrs, op->attrs.len = n, op->attrs.cap = n;
        }
        tk_vec_push(c->arena, &head, op);
        if (op == last)
            for (uint32_t r = 0; r < release.len; r++) tk_vec_push(c->arena, &head, release.data[r]);
    }
    tk_tir_value *s_next, *p_next;
    advance(c, &head, body, stage, phase, &s_next, &p_next);
    tk_tir_op *y = (tk_tir_op *)tir_terminator(body);
    tk_vec_push(c->arena, &y->operands, s_next);
    tk_vec_push(c->arena, &y->operands, p_next);
    tk_vec_push(c->arena, &head, y);
    body->ops.data = head.data, body->ops.len = head.len, body->ops.cap = head.cap;
    if (carried < 0) return;
    /* after the loop: its last wgmma done, that stage freed (where the loop ran) */
    tk_tir_value *result = loop->results.data[carried];
    tk_tir_op *done = emit(c, after, outside, TIR_DOT_WAIT, 0, result->type, result, NULL);
    tir_replace_uses(c->k->body, result, done->results.data[0], done);
    tk_tir_value *ran = cmp(c, after, outside, TK_BINOP_LT, loop->operands.data[0], loop->operands.data[1]);
    tk_tir_value *step = loop->operands.data[2];
    if (!(step->def && step->def->code == TIR_CONST && step->def->value.i > 0)) {
        tk_tir_value *zero = constant(c, after, outside, step->type, 0);
        tk_tir_value *down = cmp(c, after, outside, TK_BINOP_GT, loop->operands.data[0], loop->operands.data[1]);
        ran = select(c, after, outside, cmp(c, after, outside, TK_BINOP_GT, step, zero), ran, down);
    }
    emit(c, after, outside, TIR_MBAR_ARRIVE, 0, NULL, barrier(c, after, outside, c->empty, previous(c, after, outside, *s_end)),
         ran);
}

/* Rebuilds block blk with loop's follow-up ops right after it */
static void insert_after(ws_ctx *c, tk_tir_block *blk, const tk_tir_op *loop, const op_list *after) {
    op_list ops = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_vec_push(c->arena, &ops, blk->ops.data[i]);
        if (blk->ops.data[i] == loop)
            for (uint32_t a = 0; a < after->len; a++) after->data[a]->parent = blk, tk_vec_push(c->arena, &ops, after->data[a]);
    }
    blk->ops.data = ops.data, blk->ops.len = ops.len, blk->ops.cap = ops.cap;
}

/* ---- the pass ------------------------------------------------------------ */

static bool holds_return(const tk_tir_block *blk) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (!op->dead && op->code == TIR_RETURN) return true;
        for (uint32_t r = 0; r < op->regions.len; r++)
            if (holds_return(op->regions.data[r])) return true;
    }
    return false;
}

typedef struct flagged { tk_arena *arena; TK_VEC(tk_tir_op *) loops; } flagged;
static void find_flagged(tk_tir_op *op, void *ctx) {
    flagged *f = ctx;
    if (!op->dead && op->code == TIR_FOR && tk_tir_attr_int(op, "warp_specialize", 0)) tk_vec_push(f->arena, &f->loops, op);
}

/* The flagged loop c->outer on its own: at the top level, its dots'
 * loads stageable (into c->loads); false with c->why where not. */
static bool segment_fits(ws_ctx *c) {
    if (c->outer->parent != c->k->body) return c->why = "it is not at the kernel's top level", false;
    if (c->k->num_warps % 4) return c->why = "num_warps is not a multiple of 4", false;
    if (holds_return(c->k->body)) return c->why = "the kernel returns early", false;
    c->loads = (ws_loads){0};
    return find_loops(c) && collect_loads(c);
}

/* The producer's share of every segment: the loads' coordinates and the
 * loops' bounds; the index of a segment it cannot compute, or -1. */
static int segment_needing_too_much(ws_ctx *c) {
    memset(c->needed, 0, c->nvalues + 1);
    memset(c->outside, 0, c->nvalues + 1);
    mark_outside(c);
    for (uint32_t g = 0; g < c->segments.len; g++) {
        const ws_segment *seg = &c->segments.data[g];
        for (uint32_t l = 0; l < seg->loads.len; l++)
            for (uint32_t d = 1; d < seg->loads.data[l].load->operands.len; d++)
                if (!need(c, seg->loads.data[l].load->operands.data[d], 0)) return (int)g;
        const tk_tir_op *loops[2] = {seg->outer, seg->inner};
        for (uint32_t l = 0; l < 2; l++)
            for (uint32_t i = 0; i < 3; i++)
                if (!need(c, loops[l]->operands.data[i], 0)) return (int)g;
    }
    return -1;
}

static void use_segment(ws_ctx *c, const ws_segment *seg) {
    c->outer = seg->outer;
    c->inner = seg->inner;
    c->loads = seg->loads;
}

/* A buffer of `stages` for each staged load; a later segment's load takes
 * an earlier segment's buffer of its tile where one is free (the ring's
 * stages are the same slots all along) */
static void make_buffers(ws_ctx *c) {
    tk_tir_kernel *k = c->k;
    TK_VEC(uint32_t) made = {0};
    for (uint32_t g = 0; g < c->segments.len; g++) {
        ws_segment *seg = &c->segments.data[g];
        uint8_t *taken = TK_NEW_ARRAY(c->arena, uint8_t, made.len + 1);
        for (uint32_t l = 0; l < seg->loads.len; l++) {
            ws_load *w = &seg->loads.data[l];
            const tk_type *t = (w->trans ? w->trans : w->load)->results.data[0]->type;
            bool column_major = tir_loaded_column_major(w->load, w->trans != NULL);
            int found = -1;
            for (uint32_t m = 0; m < made.len && found < 0; m++) {
                const tk_tir_buffer *b = &k->buffers.data[made.data[m]];
                if (!taken[m] && b->transposed == column_major && tk_type_equal(b->tile, t)) found = (int)m;
            }
            if (found >= 0) {
                taken[found] = 1;
                w->buffer = made.data[found];
            } else {
                w->buffer = tir_add_buffer(c->arena, k, t, c->stages, column_major, NULL, w->load->loc);
            }
            uint32_t arg = (uint32_t)kernel_param(c, w->load->operands.data[0]), box[2], swizzle;
            tir_tma_box(w->load->results.data[0]->type, w->trans != NULL, box, &swizzle);
            bool known = false;
            for (uint32_t m = 0; m < k->tma_maps.len; m++) known |= k->tma_maps.data[m].arg == arg;
            if (!known) {
                tk_tir_tma_map map = {arg, {box[0], box[1]}, swizzle};
                tk_vec_push(c->arena, &k->tma_maps, map);
            }
        }
        /* this segment's new buffers join the shared ones */
        for (uint32_t l = 0; l < seg->loads.len; l++) {
            bool listed = false;
            for (uint32_t m = 0; m < made.len; m++) listed |= made.data[m] == seg->loads.data[l].buffer;
            if (!listed) tk_vec_push(c->arena, &made, seg->loads.data[l].buffer);
        }
    }
}

static const ws_segment *segment_of(const ws_ctx *c, const tk_tir_op *op) {
    for (uint32_t g = 0; g < c->segments.len; g++)
        if (c->segments.data[g].outer == op) return &c->segments.data[g];
    return NULL;
}

static void specialize(ws_ctx *c) {
    tk_tir_kernel *k = c->k;
    const ws_segment *first = &c->segments.data[0];
    int64_t one = 1;
    const tk_type *bar_t = tk_type_tile(c->arena, tk_type_scalar(c->arena, TK_I64), 1, &one);
    int64_t stages = tk_tir_attr_int(first->inner, "num_stages", tk_tir_attr_int(first->outer, "num_stages", k->num_stages));
    if (k->max_stages && stages > k->max_stages) stages = k->max_stages;
    c->stages = stages < 2 ? 2 : (uint32_t)stages;
    make_buffers(c);
    c->full = tir_add_buffer(c->arena, k, bar_t, c->stages, false, NULL, first->outer->loc);
    c->empty = tir_add_buffer(c->arena, k, bar_t, c->stages, false, NULL, first->outer->loc);

    tk_tir_block *top = k->body;
    tk_tir_op *ws = tir_new_op(c->arena, TIR_WARP_SPECIALIZE, 0, first->outer->loc);
    ws->parent = top;
    attr(c, ws, "producer_warps", 4);
    tk_tir_block *consumer = TK_NEW(c->arena, tk_tir_block), *producer = TK_NEW(c->arena, tk_tir_block);
    consumer->parent = producer->parent = ws;
    tk_vec_push(c->arena, &ws->regions, consumer);
    tk_vec_push(c->arena, &ws->regions, producer);
    k->producer_warps = 4;

    /* before the partitions: the shared scalars, the ring's barriers */
    op_list before = {0}, mine = {0};
    uint32_t at = 0;
    for (; at < top->ops.len && top->ops.data[at] != first->outer; at++) {
        tk_tir_op *op = top->ops.data[at];
        bool stays = op->results.len == 1 && c->outside[op->results.data[0]->id];
        op->parent = stays ? top : consumer;
        tk_vec_push(c->arena, stays ? &before : &mine, op);
    }
    for (uint32_t b = 0; b < 2; b++)
        for (uint32_t s = 0; s < c->stages; s++) {
            tk_tir_value *bar = barrier(c, &before, top, b ? c->empty : c->full, constant(c, &before, top, i32_type(c), s));
            tk_tir_op *init = emit(c, &before, top, TIR_MBAR_INIT, 0, NULL, bar, NULL);
            if (b) attr(c, init, "count", k->num_warps);
        }
    emit(c, &before, top, TIR_BARRIER, 0, NULL, NULL, NULL);
    tk_vec_push(c->arena, &before, ws);

    /* the producer: the kernel's scalars it needs and the loops again,
     * copying; the ring's stage and phase run on from loop to loop */
    op_list prod = {0};
    tk_tir_value *s = constant(c, &prod, producer, i32_type(c), 0), *p = s;
    for (uint32_t i = 0; i < top->ops.len; i++) {
        tk_tir_op *op = top->ops.data[i];
        const ws_segment *seg = segment_of(c, op);
        if (!seg) {
            clone_needed(c, &prod, producer, op);
            continue;
        }
        use_segment(c, seg);
        tk_tir_op *loop = producer_loop(c, &prod, producer, op, s, p);
        s = loop->results.data[loop->results.len - 2];
        p = loop->results.data[loop->results.len - 1];
    }
    emit(c, &prod, producer, TIR_YIELD, 0, NULL, NULL, NULL);
    producer->ops.data = prod.data, producer->ops.len = prod.len, producer->ops.cap = prod.cap;

    /* the consumers: the kernel from the first loop on, the loads now
     * stages; each loop's follow-up ops (its last wgmma's wait and
     * release) right after it */
    s = constant(c, &mine, consumer, i32_type(c), 0);
    p = constant(c, &mine, consumer, i32_type(c), 0);
    op_list *after = TK_NEW_ARRAY(c->arena, op_list, c->segments.len);
    for (uint32_t g = 0; g < c->segments.len; g++) {
        use_segment(c, &c->segments.data[g]);
        tk_tir_value *s_end, *p_end;
        if (c->inner == c->outer) {
            consumer_loop(c, s, p, &s_end, &p_end, &after[g], consumer);
            s = s_end, p = p_end;
        } else {
            tk_tir_value *s_res, *p_res;
            tk_tir_value *so = carry(c, c->outer, s, &s_res), *po = carry(c, c->outer, p, &p_res);
            /* the inner loop's inits go in front of it: they are the outer's arguments */
            tk_tir_block *ob = c->outer->regions.data[0];
            op_list inner_after = {0};
            consumer_loop(c, so, po, &s_end, &p_end, &inner_after, ob);
            insert_after(c, ob, c->inner, &inner_after);
            tk_tir_op *y = (tk_tir_op *)tir_terminator(ob);
            tk_vec_push(c->arena, &y->operands, s_end);
            tk_vec_push(c->arena, &y->operands, p_end);
            s = s_res, p = p_res;
        }
    }
    for (; at < top->ops.len; at++) {
        tk_tir_op *op = top->ops.data[at];
        op->parent = consumer;
        tk_vec_push(c->arena, &mine, op);
        for (uint32_t g = 0; g < c->segments.len; g++)
            if (op == c->segments.data[g].outer)
                for (uint32_t a = 0; a < after[g].len; a++)
                    after[g].data[a]->parent = consumer, tk_vec_push(c->arena, &mine, after[g].data[a]);
    }
    emit(c, &mine, consumer, TIR_YIELD, 0, NULL, NULL, NULL);
    consumer->ops.data = mine.data, consumer->ops.len = mine.len, consumer->ops.cap = mine.cap;
    top->ops.data = before.data, top->ops.len = before.len, top->ops.cap = before.cap;
}

static void warn(ws_ctx *c, tk_diag *diag, const tk_target *target, tk_tir_warned *warned, const tk_tir_op *loop) {
    for (uint32_t w = 0; w < warned->len; w++)
        if (warned->data[w].src == loop->loc.src && warned->data[w].line == loop->loc.line &&
            warned->data[w].col == loop->loc.col)
            return;
    if (!tk_warning_enabled(diag, TK_W_WARP_SPECIALIZE)) return;
    tk_vec_push(c->arena, warned, loop->loc);
    tk_warning(diag, TK_W_WARP_SPECIALIZE, loop->loc,
               "loop not warp-specialized on %s: %s; it runs as it would without warp_specialize", target->name,
               c->why);
}

void tir_pass_warp_specialize(tk_arena *arena, tk_diag *diag, tk_tir_kernel *k, const tk_target *target,
                              tk_tir_warned *warned) {
    flagged f = {arena, {0}};
    tir_walk(k->body, find_flagged, &f);
    if (!f.loops.len || !target || !target->has_setmaxnreg || !target->has_tma) return;
    ws_ctx c = {0};
    c.arena = arena;
    c.k = k;
    c.nvalues = k->value_count;
    c.needed = TK_NEW_ARRAY(arena, uint8_t, c.nvalues + 1);
    c.outside = TK_NEW_ARRAY(arena, uint8_t, c.nvalues + 1);
    c.loaded = TK_NEW_ARRAY(arena, uint8_t, c.nvalues + 1);
    c.map = TK_NEW_ARRAY(arena, tk_tir_value *, c.nvalues + 1);
    /* every flagged loop that fits on its own, in order (the walk's is
     * the kernel's at the top level) */
    for (uint32_t i = 0; i < f.loops.len; i++) {
        c.outer = f.loops.data[i];
        c.why = NULL;
        if (!segment_fits(&c)) {
            warn(&c, diag, target, warned, f.loops.data[i]);
            continue;
        }
        ws_segment seg = {c.outer, c.inner, c.loads};
        tk_vec_push(arena, &c.segments, seg);
    }
    /* then the producer's share of them all; a loop whose copies it
     * cannot place is left out, and the rest looked at again */
    for (int bad; c.segments.len && (bad = segment_needing_too_much(&c)) >= 0;) {
        warn(&c, diag, target, warned, c.segments.data[bad].outer);
        for (uint32_t g = (uint32_t)bad; g + 1 < c.segments.len; g++) c.segments.data[g] = c.segments.data[g + 1];
        c.segments.len--;
    }
    if (c.segments.len) specialize(&c);
}
