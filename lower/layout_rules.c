/* The layout each op gives its result or needs of an operand, described
 * once for the two passes that place tiles: layout propagation
 * (propagate.c), which predicts and chooses, and layout assignment
 * (layouts.c), which places and converts. Needs: dots chosen (dot.c and
 * pipeline_dot.c set impl, warps_m and warps_n), axis info (the vector
 * widths of loads and stores). Changes nothing in the kernel. */
#include "internal.h"

#include <string.h>

/* the widest access along dimension d a load or store of this pointer
 * tile allows */
uint32_t tir_access_width_along(const tk_tir_value *ptr, uint32_t d) {
    const tk_type *t = ptr->type;
    if (t->kind != TK_TYPE_TILE || !ptr->has_axis) return 1;
    const tk_type *pointee = tir_elem(t)->elem;
    int64_t bytes = pointee->kind == TK_TYPE_POINTER ? 8 : (int64_t)(tk_dtype_bits(pointee->dtype) + 7) / 8;
    int64_t w = 16 / bytes;
    if (ptr->contiguity[d] < w) w = ptr->contiguity[d];
    int64_t align = ptr->divisibility[d] / bytes;
    if (align < w) w = align < 1 ? 1 : align;
    if (w > t->shape[d]) w = t->shape[d];
    return w < 1 ? 1 : (uint32_t)w;
}

static tir_shape_width *find_shape(tir_layout_rules *r, const tk_type *t) {
    for (uint32_t i = 0; i < r->shapes.len; i++) {
        tir_shape_width *s = &r->shapes.data[i];
        if (s->rank == t->rank && memcmp(s->shape, t->shape, sizeof(int64_t) * t->rank) == 0) return s;
    }
    tir_shape_width s = {0};
    s.rank = t->rank;
    memcpy(s.shape, t->shape, sizeof(int64_t) * t->rank);
    s.vec = 1;
    tk_vec_push(r->arena, &r->shapes, s);
    return &r->shapes.data[r->shapes.len - 1];
}

static void collect_widths(tk_tir_op *op, void *ctx) {
    tir_layout_rules *r = ctx;
    if (op->code != TIR_LOAD && op->code != TIR_STORE && op->code != TIR_ASYNC_COPY) return;
    tk_tir_value *ptr = op->operands.data[op->code == TIR_ASYNC_COPY ? 1 : 0];
    if (ptr->type->kind != TK_TYPE_TILE) return;
    tir_shape_width *s = find_shape(r, ptr->type);
    uint32_t w = tir_access_width_along(ptr, ptr->type->rank - 1);
    if (w > s->vec) s->vec = w;
}

static void collect_dots(tk_tir_op *op, void *ctx) {
    tir_layout_rules *r = ctx;
    if (!op->dead && tir_is_mma(op)) tk_vec_push(r->arena, &r->dots, op);
}

void tir_layout_rules_init(tir_layout_rules *r, tk_arena *arena, tk_tir_kernel *k) {
    memset(r, 0, sizeof *r);
    r->arena = arena;
    r->kernel = k;
    tir_walk(k->body, collect_widths, r);
    tir_walk(k->body, collect_dots, r);
}

const tk_ll *tir_default_layout(tir_layout_rules *r, const tk_type *t) {
    tir_shape_width *s = find_shape(r, t);
    if (!s->layout) {
        tk_ll *l = TK_NEW(r->arena, tk_ll);
        tk_ll_default(l, t->rank, t->shape, r->kernel->num_warps, s->vec);
        s->layout = l;
    }
    return s->layout;
}

static bool has_impl(const tk_tir_op *op, tk_dot_impl impl) { return op && tk_tir_dot_impl(op) == impl; }

bool tir_is_mma(const tk_tir_op *op) { return has_impl(op, TK_DOT_MMA_SYNC) || has_impl(op, TK_DOT_WGMMA); }

static void dot_warps(const tk_tir_op *dot, uint32_t *warps) {
    warps[0] = (uint32_t)tk_tir_attr_int(dot, "warps_m", 1);
    warps[1] = (uint32_t)tk_tir_attr_int(dot, "warps_n", 1);
}

/* wgmma's warps of a warpgroup go down the rows, and one instruction
 * spans N / warps_n columns */
const tk_ll *tir_mma_acc_layout(tir_layout_rules *r, const tk_tir_op *dot) {
    uint32_t warps[2];
    dot_warps(dot, warps);
    const tk_type *t = dot->results.data[0]->type;
    const int64_t *shape = t->shape + (t->rank - 2);
    tk_ll *acc = TK_NEW(r->arena, tk_ll);
    if (has_impl(dot, TK_DOT_WGMMA)) tk_ll_mma_acc(acc, shape, (uint32_t)(shape[1] / warps[1]), warps, true);
    else tk_ll_mma_acc(acc, shape, 8, warps, false);
    if (t->rank == 3) tk_ll_mma_batched(acc, t->shape[0], r->kernel->num_warps);
    return acc;
}

const tk_ll *tir_dot_result_layout(tir_layout_rules *r, const tk_tir_op *dot) {
    return tir_is_mma(dot) ? tir_mma_acc_layout(r, dot) : tir_default_layout(r, dot->results.data[0]->type);
}

/* wgmma's A from registers takes mma.sync's fragments, warps down the
 * rows first */
const tk_ll *tir_mma_operand_layout(tir_layout_rules *r, const tk_tir_op *dot, uint32_t i) {
    uint32_t warps[2];
    dot_warps(dot, warps);
    /* k_width: the elements of an operand a 32-bit register holds */
    uint32_t k_width = 32 / tk_dtype_bits(tir_elem(dot->operands.data[0]->type)->dtype);
    const tk_type *t = dot->operands.data[i]->type;
    tk_ll *l = TK_NEW(r->arena, tk_ll);
    tk_ll_mma_operand(l, t->shape + (t->rank - 2), i, k_width, warps, has_impl(dot, TK_DOT_WGMMA));
    if (t->rank == 3) tk_ll_mma_batched(l, t->shape[0], r->kernel->num_warps);
    return l;
}

const tk_ll *tir_dot_operand_need(tir_layout_rules *r, const tk_tir_op *dot, uint32_t i) {
    if (dot->code != TIR_DOT || i >= dot->operands.len) return NULL;
    if (!tir_is_mma(dot)) return i == 2 ? tir_default_layout(r, dot->results.data[0]->type) : NULL;
    if (i == 2) return tir_mma_acc_layout(r, dot);
    if (has_impl(dot, TK_DOT_MMA_SYNC)) return tir_mma_operand_layout(r, dot, i);
    const tk_tir_op *def = dot->operands.data[0]->def;
    return i == 0 && (!def || def->code != TIR_LOCAL_VIEW) ? tir_mma_operand_layout(r, dot, 0) : NULL;
}

const tk_ll *tir_view_layout(tir_layout_rules *r, const tk_tir_op *view) {
    const tk_ll *l = r->kernel->buffers.data[tk_tir_attr_int(view, "buffer", 0)].layout;
    if (!tk_tir_attr_int(view, "trans", 0)) return l;
    const uint32_t swap[2] = {1, 0};
    tk_ll *t = TK_NEW(r->arena, tk_ll);
    tk_ll_permute(t, l, swap);
    return t;
}

/* down the columns: the default layout of the transposed tile, transposed */
static const tk_ll *column_major_layout(tir_layout_rules *r, const tk_tir_value *ptr) {
    int64_t rows_first[2] = {ptr->type->shape[1], ptr->type->shape[0]};
    const uint32_t swap[2] = {1, 0};
    tk_ll t, *l = TK_NEW(r->arena, tk_ll);
    tk_ll_default(&t, 2, rows_first, r->kernel->num_warps, tir_access_width_along(ptr, 0));
    tk_ll_permute(l, &t, swap);
    return l;
}

const tk_ll *tir_coalesced_layout(tir_layout_rules *r, const tk_tir_value *ptr) {
    const tk_type *t = ptr->type;
    bool down = t->kind == TK_TYPE_TILE && t->rank == 2 && t->shape[1] > 1 && ptr->has_axis &&
                ptr->contiguity[0] > 1 && ptr->contiguity[1] == 1;
    return down ? column_major_layout(r, ptr) : tir_default_layout(r, t);
}

/* down the columns for a column-major buffer (pipeline_dot.c) */
const tk_ll *tir_copy_layout(tir_layout_rules *r, const tk_tir_op *copy) {
    const tk_tir_value *ptr = copy->operands.data[1];
    if (!r->kernel->buffers.data[tk_tir_attr_int(copy->operands.data[0]->def, "buffer", 0)].transposed)
        return tir_default_layout(r, ptr->type);
    return column_major_layout(r, ptr);
}

const tk_ll *tir_relabelled_layout(tir_layout_rules *r, const tk_tir_op *op, const tk_ll *from) {
    const tk_type *t = op->results.data[0]->type;
    tk_ll *l = TK_NEW(r->arena, tk_ll);
    switch (op->code) {
    case TIR_REDUCE:
        tk_ll_reduce(l, from, (uint32_t)tk_tir_attr_int(op, "axis", 0));
        if (tk_tir_attr_int(op, "keep_dims", 0)) tk_ll_reshape(l, l, t->rank, t->shape);
        return l;
    case TIR_RESHAPE:
        tk_ll_reshape(l, from, t->rank, t->shape);
        return l;
    case TIR_PERMUTE: {
        uint32_t perm[TK_MAX_RANK];
        tk_tir_permute_order(op, perm);
        tk_ll_permute(l, from, perm);
        return l;
    }
    default:
        return NULL;
    }
}

const tk_ll *tir_operand_layout_for(tir_layout_rules *r, const tk_tir_op *op, uint32_t i, const tk_ll *want) {
    const tk_type *t = op->operands.data[i]->type;
    if (t->kind != TK_TYPE_TILE || op->code == TIR_LOCAL_LOAD) return NULL; /* a view keeps its buffer's */
    tk_ll *l = TK_NEW(r->arena, tk_ll);
    switch (op->code) {
    case TIR_BROADCAST:
        tk_ll_unbroadcast(l, want, t->shape);
        return l;
    case TIR_RESHAPE:
        tk_ll_reshape(l, want, t->rank, t->shape);
        return l;
    case TIR_PERMUTE: {
        uint32_t perm[TK_MAX_RANK], inverse[TK_MAX_RANK], n = tk_tir_permute_order(op, perm);
        for (uint32_t d = 0; d < n; d++) inverse[perm[d]] = d;
        tk_ll_permute(l, want, inverse);
        return l;
    }
    default:
        return want; /* element-wise */
    }
}

/* an accumulator layout of the broadcast's shape of which `operand` is
 * the slice */
const tk_ll *tir_accumulator_of_slice(tir_layout_rules *r, const tk_tir_op *broadcast, const tk_ll *operand) {
    const tk_tir_value *a = broadcast->operands.data[0], *res = broadcast->results.data[0];
    for (uint32_t i = 0; operand && i < r->dots.len; i++) {
        const tk_tir_op *dot = r->dots.data[i];
        const tk_type *t = dot->results.data[0]->type;
        if (t->rank != res->type->rank || memcmp(t->shape, res->type->shape, sizeof(int64_t) * t->rank) != 0)
            continue;
        const tk_ll *acc = tir_mma_acc_layout(r, dot);
        tk_ll slice;
        tk_ll_unbroadcast(&slice, acc, a->type->shape);
        if (tk_ll_equal(&slice, operand)) return acc;
    }
    return NULL;
}

bool tir_cheap_op(const tk_tir_op *op) {
    switch (op->code) {
    case TIR_SPLAT: case TIR_MAKE_RANGE: case TIR_BROADCAST: case TIR_RESHAPE: case TIR_PERMUTE:
    case TIR_UNARY: case TIR_BINARY: case TIR_CMP: case TIR_SELECT: case TIR_CAST: case TIR_BITCAST:
    case TIR_ADDPTR: case TIR_HINT:
        return op->results.len == 1 && op->regions.len == 0;
    default:
        return false;
    }
}

tk_tir_value *tir_elementwise_source(const tk_tir_op *op) {
    switch (op->code) {
    case TIR_CAST: case TIR_UNARY: case TIR_BINARY: case TIR_SELECT: case TIR_BITCAST:
        break;
    default:
        return NULL;
    }
    if (op->dead || op->results.len != 1 || op->regions.len) return NULL;
    tk_tir_value *source = NULL;
    for (uint32_t i = 0; i < op->operands.len; i++) {
        tk_tir_value *v = op->operands.data[i];
        if (v->type->kind != TK_TYPE_TILE) continue;
        tk_tir_opcode code = v->def ? v->def->code : TIR_LOAD; /* a block argument: data */
        if (code == TIR_SPLAT || code == TIR_BROADCAST || code == TIR_CONST || code == TIR_MAKE_RANGE) continue;
        if (source) return NULL;
        source = v;
    }
    return source;
}

static bool same_shape(const tk_type *a, const tk_type *b) {
    return a->kind == TK_TYPE_TILE && b->kind == TK_TYPE_TILE && a->rank == b->rank &&
           memcmp(a->shape, b->shape, sizeof(int64_t) * a->rank) == 0;
}

static bool elementwise_step(const tk_tir_op *op) {
    switch (op->code) {
    case TIR_CAST: case TIR_UNARY: case TIR_BINARY: case TIR_SELECT: case TIR_BITCAST: case TIR_CMP:
        return !op->dead && op->results.len == 1 && !op->regions.len;
    default:
        return false;
    }
}

/* w: the result of an op source_code, or a tl.trans of one (b.T) */
static bool source_tile(const tk_tir_value *w, tk_tir_opcode source_code) {
    if (tir_is_transpose(w->def) && !w->def->dead) {
        const tk_tir_value *t = w->def->operands.data[0];
        return t->def && t->def->code == source_code && !t->def->dead && t->def->parent == w->def->parent;
    }
    return w->def->code == source_code && !w->def->dead;
}

bool tir_elementwise_cone(const tk_tir_value *v, tk_tir_opcode source_code, tir_cone *out) {
    out->len = 0;
    out->source = NULL;
    if (!v->def || !elementwise_step(v->def)) return false;
    const tk_tir_block *blk = v->def->parent;
    out->values[out->len++] = (tk_tir_value *)v;
    for (uint32_t next = 0; next < out->len; next++) {
        const tk_tir_op *op = out->values[next]->def;
        for (uint32_t i = 0; i < op->operands.len; i++) {
            tk_tir_value *w = op->operands.data[i];
            if (!same_shape(w->type, v->type) || !w->def || w->def->parent != blk) continue; /* from outside */
            if (source_tile(w, source_code)) {
                if (out->source && out->source != w) return false; /* two tiles it is computed from */
                out->source = w;
                continue;
            }
            if (!elementwise_step(w->def)) continue; /* a broadcast row, a splat: from outside */
            bool seen = false;
            for (uint32_t k = 0; k < out->len && !seen; k++) seen = out->values[k] == w;
            if (seen) continue;
            if (out->len == TIR_CONE_MAX) return false;
            out->values[out->len++] = w;
        }
    }
    return out->source && out->source->type->rank == 2;
}

/* A row read back from a pipeline stage (pipeline_dot.c's row_load) can
 * be read again in any layout anywhere later in its trip: nothing writes
 * the stage a trip reads before the trip ends. Its view stays as it is. */
static bool reread_row(const tk_tir_op *op) {
    return op->code == TIR_LOCAL_LOAD && op->results.len == 1 && op->results.data[0]->type->rank == 1;
}

int tir_remat_cost(const tk_tir_value *v, int budget) {
    if (v->type->kind != TK_TYPE_TILE) return 0;
    if (v->def && reread_row(v->def) && budget >= 1) return 1;
    if (!v->def || !tir_cheap_op(v->def) || budget < 1) return -1;
    int cost = 1;
    for (uint32_t i = 0; i < v->def->operands.len; i++) {
        int k = tir_remat_cost(v->def->operands.data[i], budget - cost);
        if (k < 0) return -1;
        cost += k;
    }
    return cost <= budget ? cost : -1;
}

bool tir_memory_op(const tk_tir_op *op) {
    return op->code == TIR_LOAD || op->code == TIR_STORE || (tk_tir_props(op) & TIR_P_ATOMIC);
}

static int64_t conversion_bytes(const tk_type *t) {
    int64_t n = tir_convert_word_bytes(t);
    for (uint32_t d = 0; d < t->rank; d++) n *= t->shape[d];
    return n;
}

/* A stored tile whose conversion to the coalesced layout would take more
 * shared memory than this is stored from where it is (an mma.sync
 * accumulator of 128 x 256 f32 would take 128 KB, more than sm_86 has):
 * narrower stores, but no conversion. The same tile in f16 takes 64 KB,
 * which after a pipelined loop reuses its buffers (smem.c). */
enum { LARGEST_STORE_CONVERSION = 64 * 1024 };

bool tir_stored_where_it_is(tir_layout_rules *r, const tk_tir_value *ptr, const tk_tir_value *v,
                            const tk_ll *layout) {
    const tk_ll *coalesced = tir_coalesced_layout(r, ptr);
    uint32_t d = tk_ll_run_dim(coalesced);
    return tk_ll_contiguous_regs_along(layout, d) >= tk_ll_contiguous_regs_along(coalesced, d) ||
           conversion_bytes(v->type) > LARGEST_STORE_CONVERSION;
}
