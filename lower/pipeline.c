/* Software pipelining of loads in `for` loops.
 * Needs: LICM done (invariant address math already outside the loop).
 * Keeps: semantics, where loads and the loop's stores go through
 * different pointer parameters (as Triton's pipeliner, tkc treats distinct
 * pointer parameters as not aliasing). Breaks: leaves the replaced loads'
 * address math dead (DCE runs after layouts).
 *
 * A loop asked for num_stages >= 2 (tl.range(..., num_stages=S)) loads the
 * next trip's tiles at the top of each trip, into registers, while this
 * trip computes on the tiles the previous one loaded: the first trip's
 * loads move in front of the loop and every load gets a loop-carried
 * value. So a persistent kernel keeps a load in flight while it reduces
 * and stores. A load qualifies when its pointer, mask and `other` depend
 * only on the induction variable and loop-invariant values; a load past
 * the loop's end is masked off. Registers, not shared memory, hold the
 * prefetched tile, so the distance is one trip whatever S is, and a loop
 * prefetches at most PREFETCH_BYTES a thread: more registers would cost
 * occupancy, which lost more than the overlap gained (measured: softmax
 * with 16384-float rows on 8 warps went from 126 to 191 registers and one
 * program an SM instead of two). */
#include "internal.h"

#include <string.h>

typedef TK_VEC(tk_tir_op *) op_list;

enum { PREFETCH_BYTES = 32 };

typedef struct pipe_ctx {
    tk_arena *arena;
    tk_tir_kernel *k;
    tk_tir_block *body;
    tk_tir_value *iv;
    tk_tir_value **copy; /* by value id: the clone for the trip being built */
    uint32_t ncopy;
} pipe_ctx;

static tk_tir_value *new_value(pipe_ctx *c, const tk_type *type, tk_tir_op *def) {
    return tir_new_value(c->arena, c->k, type, def);
}

static tk_tir_op *new_op(pipe_ctx *c, tk_tir_opcode code, int sub, tk_loc loc, const tk_type *result) {
    tk_tir_op *op = tir_new_op(c->arena, code, sub, loc);
    if (result) tk_vec_push(c->arena, &op->results, new_value(c, result, op));
    return op;
}

bool tir_is_address_op(const tk_tir_op *op) {
    switch (op->code) {
    case TIR_CONST: case TIR_SPLAT: case TIR_MAKE_RANGE: case TIR_BROADCAST: case TIR_RESHAPE:
    case TIR_PERMUTE: case TIR_UNARY: case TIR_BINARY: case TIR_CMP: case TIR_SELECT: case TIR_CAST:
    case TIR_BITCAST: case TIR_ADDPTR: case TIR_HINT: case TIR_PROGRAM_ID: case TIR_NUM_PROGRAMS:
        return op->results.len == 1 && op->regions.len == 0 && !op->dead;
    default:
        return false;
    }
}

/* is v a function of the induction variable and values from outside? */
static bool from_iv(pipe_ctx *c, const tk_tir_value *v, int depth) {
    if (v == c->iv) return true;
    if (!v->def) {
        for (uint32_t i = 0; i < c->body->args.len; i++)
            if (c->body->args.data[i] == v) return false; /* carried */
        return true;
    }
    if (v->def->parent != c->body) return true; /* defined outside the loop */
    if (!tir_is_address_op(v->def) || depth > 32) return false;
    for (uint32_t i = 0; i < v->def->operands.len; i++)
        if (!from_iv(c, v->def->operands.data[i], depth + 1)) return false;
    return true;
}

/* v computed for the trip whose induction variable is `iv`, its ops
 * appended to out */
static tk_tir_value *for_trip(pipe_ctx *c, tk_tir_value *v, tk_tir_value *iv, op_list *out,
                              tk_tir_block *at) {
    if (v == c->iv) return iv;
    if (!v->def || v->def->parent != c->body) return v;
    if (v->id < c->ncopy && c->copy[v->id]) return c->copy[v->id];
    const tk_tir_op *def = v->def;
    tk_tir_op *op = tir_clone_op(c->arena, def, at);
    for (uint32_t i = 0; i < def->operands.len; i++)
        tk_vec_push(c->arena, &op->operands, for_trip(c, def->operands.data[i], iv, out, at));
    tk_tir_value *r = tir_copy_value(c->arena, c->k, v, op);
    tk_vec_push(c->arena, &op->results, r);
    tk_vec_push(c->arena, out, op);
    if (v->id < c->ncopy) c->copy[v->id] = r;
    return r;
}

const tk_tir_value *tir_strip_address(const tk_tir_value *v) {
    while (v->def && (v->def->code == TIR_ADDPTR || v->def->code == TIR_SPLAT || v->def->code == TIR_BROADCAST ||
                      v->def->code == TIR_RESHAPE || v->def->code == TIR_PERMUTE || v->def->code == TIR_HINT ||
                      (v->def->code == TIR_DESC_FIELD && v->def->sub == TIR_DESC_DATA)))
        v = v->def->operands.data[0];
    return v;
}

/* The pointer parameter a pointer value is derived from, or NULL. */
const tk_tir_value *tir_root_pointer(const tk_tir_kernel *k, const tk_tir_value *v) {
    v = tir_strip_address(v);
    for (uint32_t i = 0; i < k->body->args.len; i++)
        if (k->body->args.data[i] == v) return v;
    return NULL;
}

/* The writes of a block that may go through one pointer parameter
 * (root; NULL: any) */
typedef struct writes {
    const tk_tir_kernel *k;
    const tk_tir_value *root;
    bool acquires;  /* an acquire (gdc_wait) counts: no load is hoisted above it */
    bool found;
} writes;

static void note_write(tk_tir_op *op, void *ctx) {
    writes *w = ctx;
    if (w->acquires && (tk_tir_props(op) & TIR_P_ACQUIRES)) w->found = true;
    if (op->code == TIR_DESC_STORE || op->code == TIR_TMA_STORE) { /* through a descriptor parameter */
        const tk_tir_value *desc = op->operands.data[op->code == TIR_TMA_STORE ? 1 : 0];
        w->found |= !w->root || desc == w->root;
        return;
    }
    if (op->code != TIR_STORE && !(tk_tir_props(op) & TIR_P_ATOMIC)) return;
    const tk_tir_value *root = op->operands.len ? tir_root_pointer(w->k, op->operands.data[0]) : NULL;
    w->found |= !root || root == w->root;
}

static bool may_write(const tk_tir_kernel *k, tk_tir_block *blk, const tk_tir_value *root, bool acquires) {
    writes w = {k, root, acquires, false};
    tir_walk(blk, note_write, &w);
    return w.found;
}

bool tir_block_may_write(const tk_tir_kernel *k, tk_tir_block *blk, const tk_tir_value *root) {
    return !root || may_write(k, blk, root, true);
}

/* what the kernel itself writes (the launcher's const-correct signature):
 * an acquire writes nothing */
bool tk_tir_writes_arg(const tk_tir_kernel *k, uint32_t arg) {
    return arg < k->body->args.len && may_write(k, k->body, k->body->args.data[arg], false);
}

/* `in range` for the induction variable value x: x < hi going up, x > hi going down */
static tk_tir_value *in_range(pipe_ctx *c, tk_tir_op *loop, tk_tir_value *x, op_list *out,
                              tk_tir_block *at) {
    tk_tir_value *hi = loop->operands.data[1], *step = loop->operands.data[2];
    const tk_type *i1 = tk_type_scalar(c->arena, TK_I1);
    tk_tir_op *up = new_op(c, TIR_CMP, TK_BINOP_LT, loop->loc, i1);
    tk_vec_push(c->arena, &up->operands, x);
    tk_vec_push(c->arena, &up->operands, hi);
    tk_tir_value *result = up->results.data[0];
    tk_vec_push(c->arena, out, up);
    up->parent = at;
    bool step_positive = step->def && step->def->code == TIR_CONST && step->def->value.i > 0;
    if (!step_positive && !(step->def && step->def->code == TIR_NUM_PROGRAMS)) {
        /* a step of unknown sign: the header's own test */
        tk_tir_op *zero = new_op(c, TIR_CONST, 0, loop->loc, step->type);
        tk_tir_op *positive = new_op(c, TIR_CMP, TK_BINOP_GT, loop->loc, i1);
        tk_vec_push(c->arena, &positive->operands, step);
        tk_vec_push(c->arena, &positive->operands, zero->results.data[0]);
        tk_tir_op *down = new_op(c, TIR_CMP, TK_BINOP_GT, loop->loc, i1);
        tk_vec_push(c->arena, &down->operands, x);
        tk_vec_push(c->arena, &down->operands, hi);
        tk_tir_op *pick = new_op(c, TIR_SELECT, 0, loop->loc, i1);
        tk_vec_push(c->arena, &pick->operands, positive->results.data[0]);
        tk_vec_push(c->arena, &pick->operands, result);
        tk_vec_push(c->arena, &pick->operands, down->results.data[0]);
        tk_tir_op *ops[4] = {zero, positive, down, pick};
        for (int i = 0; i < 4; i++) {
            ops[i]->parent = at;
            tk_vec_push(c->arena, out, ops[i]);
        }
        result = pick->results.data[0];
    }
    return result;
}

/* the load of `load` for the trip with induction variable iv, masked off
 * when that trip does not run */
static tk_tir_value *load_for_trip(pipe_ctx *c, tk_tir_op *loop, tk_tir_op *load, tk_tir_value *iv,
                                   op_list *out, tk_tir_block *at) {
    memset(c->copy, 0, sizeof(tk_tir_value *) * c->ncopy);
    const tk_type *t = load->results.data[0]->type;
    tk_tir_value *guard = in_range(c, loop, iv, out, at);
    if (t->kind == TK_TYPE_TILE) {
        const tk_type *mask_t = tk_type_tile(c->arena, tk_type_scalar(c->arena, TK_I1), t->rank, t->shape);
        tk_tir_op *splat = new_op(c, TIR_SPLAT, 0, load->loc, mask_t);
        splat->parent = at;
        tk_vec_push(c->arena, &splat->operands, guard);
        tk_vec_push(c->arena, out, splat);
        guard = splat->results.data[0];
    }
    tk_tir_op *op = tir_clone_op(c->arena, load, at);
    tk_vec_push(c->arena, &op->operands, for_trip(c, load->operands.data[0], iv, out, at));
    tk_tir_value *mask = guard;
    if (load->operands.len > 1) {
        tk_tir_op *both = new_op(c, TIR_BINARY, TK_BINOP_AND, load->loc, guard->type);
        both->parent = at;
        tk_vec_push(c->arena, &both->operands, for_trip(c, load->operands.data[1], iv, out, at));
        tk_vec_push(c->arena, &both->operands, guard);
        tk_vec_push(c->arena, out, both);
        mask = both->results.data[0];
    }
    tk_vec_push(c->arena, &op->operands, mask);
    if (load->operands.len > 2) tk_vec_push(c->arena, &op->operands, for_trip(c, load->operands.data[2], iv, out, at));
    tk_tir_value *r = new_value(c, t, op);
    tk_vec_push(c->arena, &op->results, r);
    tk_vec_push(c->arena, out, op);
    return r;
}

/* the bytes of a load's tile each thread holds, spread over the program */
static int64_t bytes_per_thread(const pipe_ctx *c, const tk_tir_op *load) {
    const tk_type *t = load->results.data[0]->type;
    int64_t n = (tk_dtype_bits(tir_elem(t)->dtype) + 7) / 8;
    for (uint32_t d = 0; d < t->rank; d++) n *= t->shape[d];
    int64_t threads = 32 * (int64_t)c->k->num_warps;
    return (n + threads - 1) / threads;
}

static bool qualifies(pipe_ctx *c, const tk_tir_op *op, tk_tir_block *body) {
    if (op->dead || op->code != TIR_LOAD || tk_tir_attr_int(op, "volatile", 0)) return false;
    if (op->results.data[0]->type->kind != TK_TYPE_TILE) return false;
    if (tir_elem(op->results.data[0]->type)->kind != TK_TYPE_SCALAR) return false; /* a tile of pointers */
    const tk_type *pt = op->operands.data[0]->type;
    if (pt->kind != TK_TYPE_TILE || tir_elem(pt)->kind != TK_TYPE_POINTER) return false; /* block pointers */
    for (uint32_t i = 0; i < op->operands.len; i++)
        if (!from_iv(c, op->operands.data[i], 0)) return false;
    return !tir_block_may_write(c->k, body, tir_root_pointer(c->k, op->operands.data[0]));
}

/* Pipelines loop's loads; the first trip's go into `before`. */
static void pipeline_loop(pipe_ctx *c, tk_tir_op *loop, op_list *before) {
    tk_tir_block *body = loop->regions.data[0];
    c->body = body;
    c->iv = body->args.data[0];
    op_list head = {0};
    tk_tir_value *next = NULL;
    tk_tir_op *yield = NULL;
    for (uint32_t i = body->ops.len; i-- > 0 && !yield;)
        if (!body->ops.data[i]->dead && body->ops.data[i]->code == TIR_YIELD) yield = body->ops.data[i];
    if (!yield) return;
    uint32_t nops = body->ops.len;
    int64_t budget = PREFETCH_BYTES;
    for (uint32_t i = 0; i < nops; i++) {
        tk_tir_op *load = body->ops.data[i];
        if (!qualifies(c, load, body) || bytes_per_thread(c, load) > budget) continue;
        budget -= bytes_per_thread(c, load);
        if (!next) {
            tk_tir_op *add = new_op(c, TIR_BINARY, TK_BINOP_ADD, loop->loc, c->iv->type);
            add->parent = body;
            tk_vec_push(c->arena, &add->operands, c->iv);
            tk_vec_push(c->arena, &add->operands, loop->operands.data[2]);
            tk_vec_push(c->arena, &head, add);
            next = add->results.data[0];
        }
        tk_tir_value *first = load_for_trip(c, loop, load, loop->operands.data[0], before, loop->parent);
        tk_tir_value *ahead = load_for_trip(c, loop, load, next, &head, body);
        /* the tile this trip uses arrives as a loop-carried value */
        tk_tir_value *current = new_value(c, load->results.data[0]->type, NULL);
        tk_vec_push(c->arena, &body->args, current);
        tk_vec_push(c->arena, &loop->operands, first);
        tk_vec_push(c->arena, &loop->results, new_value(c, current->type, loop));
        tk_vec_push(c->arena, &yield->operands, ahead);
        tir_replace_uses(body, load->results.data[0], current, NULL);
        load->dead = true;
    }
    if (!head.len) return;
    for (uint32_t i = 0; i < body->ops.len; i++) tk_vec_push(c->arena, &head, body->ops.data[i]);
    body->ops.data = head.data;
    body->ops.len = head.len;
    body->ops.cap = head.cap;
}

static void pipeline_block(pipe_ctx *c, tk_tir_block *blk) {
    op_list rebuilt = {0};
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        for (uint32_t r = 0; r < op->regions.len; r++) pipeline_block(c, op->regions.data[r]);
        if (!op->dead && op->code == TIR_FOR && tk_tir_attr_int(op, "num_stages", 1) >= 2) {
            c->ncopy = c->k->value_count;
            c->copy = TK_NEW_ARRAY(c->arena, tk_tir_value *, c->ncopy + 1);
            pipeline_loop(c, op, &rebuilt);
        }
        tk_vec_push(c->arena, &rebuilt, op);
    }
    blk->ops.data = rebuilt.data;
    blk->ops.len = rebuilt.len;
    blk->ops.cap = rebuilt.cap;
}

void tir_pass_pipeline(tk_arena *arena, tk_tir_kernel *k) {
    pipe_ctx c = {arena, k, NULL, NULL, NULL, 0};
    pipeline_block(&c, k->body);
}
