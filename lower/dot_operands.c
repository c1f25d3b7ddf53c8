/* wgmma's operands from registers (Triton's local_alloc of a dot
 * operand): a wgmma reads B from shared memory only, so a B that is not a
 * view of a pipelined buffer (a dot outside any loop, in a loop that is
 * not pipelined, or on a tile computed in registers: dequantized, scaled,
 * a product) is stored into a buffer of its own just before the dot, and
 * so is a loaded A (stored once and read by wgmma there, rather than
 * moved through shared memory into registers):
 *   %s = local_view %zero {buffer}; local_store %s, %b; barrier; dot %a, %s
 * A tile computed before a loop the dot is in (attention's Q where the
 * pipeliner did not stage it: a warp-specialized loop) is stored before
 * the outermost such loop instead, once; a later loop of that block
 * reading the same tile reads the same buffer.
 * local_store writes each thread's registers where the buffer's swizzled
 * layout puts them and makes them visible to wgmma (fence.proxy.async);
 * the barrier after a dot's stores, to every warp. barriers.c puts a
 * barrier before a store that wgmma may still be reading the last one of
 * (a next trip).
 * Needs: dot.c's impl, pipeline_dot.c (views of what it staged). Keeps:
 * semantics; every wgmma's B is a local_view. */
#include "internal.h"

typedef TK_VEC(tk_tir_op *) op_list;

typedef struct operands_ctx {
    tk_arena *arena;
    tk_tir_kernel *k;
} operands_ctx;

/* the loop the dot runs in, innermost (NULL: none) */
static const tk_tir_op *enclosing_loop(const tk_tir_op *dot) {
    for (const tk_tir_op *op = dot->parent ? dot->parent->parent : NULL; op; op = op->parent ? op->parent->parent : NULL)
        if (op->code == TIR_FOR || op->code == TIR_WHILE) return op;
    return NULL;
}

/* Does operand i of dot go through a buffer, and laid out how: columns
 * first (*column_major) or rows first? B always; A where it was loaded
 * (a tile computed in registers, attention's P, stays there: wgmma reads
 * A from registers too). The orientation it has in memory where wgmma
 * reads that, else the other; none where wgmma reads neither (an A too
 * small to swizzle stays in registers). */
static bool buffered(const tk_tir_op *dot, uint32_t i, bool *column_major) {
    const tk_tir_value *v = dot->operands.data[i];
    if (v->def && v->def->code == TIR_LOCAL_VIEW) return false;
    tk_dtype in = tir_elem(dot->operands.data[0]->type)->dtype;
    bool trans;
    const tk_tir_op *load = tir_operand_load(v, &trans);
    if (i == 0 && !load) return false;
    bool first = load ? tir_loaded_column_major(load, trans) : false;
    for (int tries = 0; tries < 2; tries++, first = !first)
        if (tir_wgmma_reads(in, i, first, tir_swizzle_for(v->type, first))) {
            *column_major = first;
            return true;
        }
    return false;
}

/* a new op in block `at` (where `near` is), appended to out */
static tk_tir_op *new_op(operands_ctx *c, op_list *out, tk_tir_block *at, const tk_tir_op *near, tk_tir_opcode code,
                         const tk_type *t) {
    tk_tir_op *op = tir_new_op(c->arena, code, 0, near->loc);
    op->parent = at;
    if (t) tk_vec_push(c->arena, &op->results, tir_new_value(c->arena, c->k, t, op));
    tk_vec_push(c->arena, out, op);
    return op;
}

/* stores operand i of dot into a buffer of its own (live over loop) and
 * makes the dot read that; the ops go to out, in block `at` */
static void store_operand(operands_ctx *c, op_list *out, tk_tir_block *at, tk_tir_op *dot, uint32_t i,
                          bool column_major, const tk_tir_op *loop) {
    tk_tir_value *v = dot->operands.data[i];
    uint32_t buffer = tir_add_buffer(c->arena, c->k, v->type, 1, column_major, loop, dot->loc);
    c->k->buffers.data[buffer].from_registers = true;
    tk_tir_op *zero = new_op(c, out, at, dot, TIR_CONST, tk_type_scalar(c->arena, TK_I32));
    zero->value.i = 0;
    tk_tir_op *view = new_op(c, out, at, dot, TIR_LOCAL_VIEW, v->type);
    tk_vec_push(c->arena, &view->operands, zero->results.data[0]);
    struct tk_sema_attr a = {"buffer", NULL, buffer};
    tk_vec_push(c->arena, &view->attrs, a);
    tk_tir_op *store = new_op(c, out, at, dot, TIR_LOCAL_STORE, NULL);
    tk_vec_push(c->arena, &store->operands, view->results.data[0]);
    tk_vec_push(c->arena, &store->operands, v);
    dot->operands.data[i] = view->results.data[0];
}

/* Is op inside loop (at any depth)? */
static bool inside(const tk_tir_op *op, const tk_tir_op *loop) {
    for (; op; op = op->parent ? op->parent->parent : NULL)
        if (op == loop) return true;
    return false;
}

/* an operand stored before a loop of the block: its value and view */
typedef struct hoisted { const tk_tir_value *value; tk_tir_value *view; } hoisted;
typedef TK_VEC(hoisted) hoisted_list;

typedef struct hoist_ctx {
    operands_ctx *c;
    const tk_tir_op *loop;
    op_list *out;
    hoisted_list *done; /* stored before an earlier loop of this block */
    bool stored;
} hoist_ctx;

/* A wgmma in the loop whose buffered operand is computed before it (a
 * tile loaded once, attention's Q in a loop the pipeliner leaves to warp
 * specialization) has it stored once, before the loop, not every trip;
 * a later loop of the block reading the same tile reads that buffer,
 * which then lives all kernel long (two loops of causal attention). */
static void hoist_invariant(tk_tir_op *op, void *ctx) {
    hoist_ctx *h = ctx;
    if (op->dead || op->code != TIR_DOT || tk_tir_dot_impl(op) != TK_DOT_WGMMA) return;
    for (uint32_t j = 0; j < 2; j++) {
        const tk_tir_value *v = op->operands.data[j];
        bool column_major;
        if (!v->def || inside(v->def, h->loop) || !buffered(op, j, &column_major)) continue;
        tk_tir_value *view = NULL;
        for (uint32_t d = 0; d < h->done->len && !view; d++)
            if (h->done->data[d].value == v) view = h->done->data[d].view;
        if (view) {
            h->c->k->buffers.data[tk_tir_attr_int(view->def, "buffer", 0)].loop = NULL;
            op->operands.data[j] = view;
            continue;
        }
        /* the buffer lives over the loop that reads it */
        store_operand(h->c, h->out, h->loop->parent, op, j, column_major, h->loop);
        hoisted made = {v, op->operands.data[j]};
        tk_vec_push(h->c->arena, h->done, made);
        h->stored = true;
    }
}

static void rewrite_block(operands_ctx *c, tk_tir_block *blk) {
    op_list ops = {0};
    hoisted_list done = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        if (!op->dead && (op->code == TIR_FOR || op->code == TIR_WHILE)) {
            hoist_ctx h = {c, op, &ops, &done, false};
            for (uint32_t r = 0; r < op->regions.len; r++) tir_walk(op->regions.data[r], hoist_invariant, &h);
            if (h.stored) new_op(c, &ops, blk, op, TIR_BARRIER, NULL);
        }
        for (uint32_t r = 0; r < op->regions.len; r++) rewrite_block(c, op->regions.data[r]);
        bool column_major, stored = false;
        for (uint32_t j = 0; !op->dead && op->code == TIR_DOT && tk_tir_dot_impl(op) == TK_DOT_WGMMA && j < 2; j++)
            if (buffered(op, j, &column_major))
                store_operand(c, &ops, blk, op, j, column_major, enclosing_loop(op)), stored = true;
        if (stored) new_op(c, &ops, blk, op, TIR_BARRIER, NULL); /* every warp's stores there */
        tk_vec_push(c->arena, &ops, op);
    }
    blk->ops.data = ops.data;
    blk->ops.len = ops.len;
    blk->ops.cap = ops.cap;
}

void tir_pass_dot_operands(tk_arena *arena, tk_tir_kernel *k) {
    operands_ctx c = {arena, k};
    rewrite_block(&c, k->body);
}
