/* The tile IR's core: opcode names and properties (ops.def), constructors,
 * the walker and attribute look-ups. Every pass and codegen goes through
 * these instead of deciding an op's nature for itself. */
#include "internal.h"

#include <string.h>

static const struct {
    const char *name;
    unsigned props;
    tk_scratch_kind scratch;
    tk_tir_layout_rule layout;
} opcodes[TIR_OPCODE_COUNT] = {
#define TIR_OP(id, name, properties, scratch, layout) [TIR_##id] = {name, properties, scratch, layout},
#include "ops.def"
#undef TIR_OP
};

const char *tk_tir_opcode_name(tk_tir_opcode code) { return code < TIR_OPCODE_COUNT ? opcodes[code].name : "?"; }

unsigned tk_tir_props(const tk_tir_op *op) {
    unsigned p = opcodes[op->code].props;
    if (p & TIR_P_BUILTIN) {
        unsigned b = tk_builtin_lowering(op->sub);
        if (b & TK_BP_EFFECT) p = (p & ~TIR_P_PURE) | TIR_P_EFFECT;
        if (b & TK_BP_ATOMIC) p |= TIR_P_ATOMIC | TIR_P_READS;
        if (b & TK_BP_BARRIER) p |= TIR_P_SYNC;
        if (b & TK_BP_ACQUIRES) p |= TIR_P_ACQUIRES;
    }
    if (op->code == TIR_LOAD && tk_tir_attr_int(op, "volatile", 0)) p |= TIR_P_EFFECT;
    return p;
}

tk_tir_layout_rule tk_tir_layout_rule_of(const tk_tir_op *op) {
    tk_tir_layout_rule rule = opcodes[op->code].layout;
    if (opcodes[op->code].props & TIR_P_BUILTIN) {
        unsigned b = tk_builtin_lowering(op->sub);
        if (b & (TK_BP_ATOMIC | TK_BP_KEEPS_LAYOUT)) rule = TIR_L_SAME;
        else if (b & TK_BP_REGISTER_PAIR) rule = TIR_L_PAIR;
        else if (b & TK_BP_INDEXED) rule = TIR_L_INDEXED;
    }
    return rule;
}

tk_scratch_kind tk_tir_scratch_kind(const tk_tir_op *op) {
    tk_scratch_kind k = opcodes[op->code].scratch;
    if (k == TK_SCRATCH_NONE && (opcodes[op->code].props & TIR_P_BUILTIN)) k = tk_builtin_scratch(op->sub);
    return k;
}

tk_tir_value *tir_new_value(tk_arena *arena, tk_tir_kernel *k, const tk_type *type, tk_tir_op *def) {
    tk_tir_value *v = TK_NEW(arena, tk_tir_value);
    v->type = type;
    v->def = def;
    v->id = k->value_count++;
    return v;
}

tk_tir_value *tir_copy_value(tk_arena *arena, tk_tir_kernel *k, const tk_tir_value *v, tk_tir_op *def) {
    tk_tir_value *r = TK_NEW(arena, tk_tir_value);
    *r = *v;
    r->id = k->value_count++;
    r->def = def;
    return r;
}

tk_tir_op *tir_new_op(tk_arena *arena, tk_tir_opcode code, int sub, tk_loc loc) {
    tk_tir_op *op = TK_NEW(arena, tk_tir_op);
    op->code = code;
    op->sub = sub;
    op->loc = loc;
    return op;
}

const tk_tir_op *tir_terminator(const tk_tir_block *blk) {
    for (uint32_t i = blk->ops.len; i-- > 0;)
        if (!blk->ops.data[i]->dead)
            return blk->ops.data[i]->code == TIR_YIELD || blk->ops.data[i]->code == TIR_CONDITION ? blk->ops.data[i]
                                                                                                : NULL;
    return NULL;
}

tk_tir_op *tir_append_op(tk_arena *arena, tk_tir_kernel *k, tir_op_list *out, tk_tir_block *at, tk_loc loc,
                         tk_tir_opcode code, int sub, const tk_type *t, tk_tir_value *a, tk_tir_value *b) {
    tk_tir_op *op = tir_new_op(arena, code, sub, loc);
    op->parent = at;
    if (a) tk_vec_push(arena, &op->operands, a);
    if (b) tk_vec_push(arena, &op->operands, b);
    if (t) tk_vec_push(arena, &op->results, tir_new_value(arena, k, t, op));
    tk_vec_push(arena, out, op);
    return op;
}

bool tir_is_transpose(const tk_tir_op *op) {
    uint32_t order[TK_MAX_RANK];
    return op && op->code == TIR_PERMUTE && tk_tir_permute_order(op, order) == 2 && order[0] == 1;
}

tk_tir_value *tir_append_transpose(tk_arena *arena, tk_tir_kernel *k, tir_op_list *out, tk_tir_block *at, tk_loc loc,
                                   tk_tir_value *v, tk_tir_value *into) {
    int64_t shape[2] = {v->type->shape[1], v->type->shape[0]};
    const tk_type *t = into ? NULL : tk_type_tile(arena, tir_elem(v->type), 2, shape);
    tk_tir_op *p = tir_append_op(arena, k, out, at, loc, TIR_PERMUTE, 0, t, v, NULL);
    if (into) {
        into->def = p;
        tk_vec_push(arena, &p->results, into);
    }
    struct tk_sema_attr o1 = {"order", NULL, 1}, o0 = {"order", NULL, 0};
    tk_vec_push(arena, &p->attrs, o1);
    tk_vec_push(arena, &p->attrs, o0);
    return p->results.data[0];
}

tk_tir_value *tir_append_const(tk_arena *arena, tk_tir_kernel *k, tir_op_list *out, tk_tir_block *at, tk_loc loc,
                               const tk_type *t, int64_t v) {
    tk_tir_op *op = tir_append_op(arena, k, out, at, loc, TIR_CONST, 0, t, NULL, NULL);
    op->value.i = v;
    return op->results.data[0];
}

tk_tir_op *tir_clone_op(tk_arena *arena, const tk_tir_op *op, tk_tir_block *parent) {
    tk_tir_op *copy = tir_new_op(arena, op->code, op->sub, op->loc);
    copy->value = op->value;
    copy->attrs = op->attrs;
    copy->parent = parent;
    return copy;
}

void tir_replace_uses(tk_tir_block *blk, const tk_tir_value *from, tk_tir_value *to, const tk_tir_op *except) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        for (uint32_t k = 0; k < op->operands.len && op != except; k++)
            if (op->operands.data[k] == from) op->operands.data[k] = to;
        for (uint32_t r = 0; r < op->regions.len; r++) tir_replace_uses(op->regions.data[r], from, to, except);
    }
}

void tir_walk(tk_tir_block *blk, tir_visit_fn fn, void *ctx) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        fn(op, ctx);
        for (uint32_t r = 0; r < op->regions.len; r++) tir_walk(op->regions.data[r], fn, ctx);
    }
}

int64_t tk_tir_attr_int(const tk_tir_op *op, const char *name, int64_t dflt) {
    for (uint32_t i = 0; i < op->attrs.len; i++)
        if (strcmp(op->attrs.data[i].name, name) == 0 && !op->attrs.data[i].text) return op->attrs.data[i].i;
    return dflt;
}

uint32_t tk_tir_permute_order(const tk_tir_op *op, uint32_t *order) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < op->attrs.len && n < TK_MAX_RANK; i++)
        if (strcmp(op->attrs.data[i].name, "order") == 0) order[n++] = (uint32_t)op->attrs.data[i].i;
    return n;
}

const char *tk_tir_attr_text(const tk_tir_op *op, const char *name) {
    for (uint32_t i = 0; i < op->attrs.len; i++)
        if (strcmp(op->attrs.data[i].name, name) == 0 && op->attrs.data[i].text) return op->attrs.data[i].text;
    return NULL;
}

static const char *const dot_impl_names[] = {
    [TK_DOT_UNCHOSEN] = NULL, [TK_DOT_FMA] = "fma", [TK_DOT_MMA_SYNC] = "mma_sync", [TK_DOT_WGMMA] = "wgmma"};

const char *tk_tir_dot_impl_name(tk_dot_impl impl) { return dot_impl_names[impl]; }

tk_dot_impl tk_tir_dot_impl(const tk_tir_op *op) {
    const char *text = op && op->code == TIR_DOT ? tk_tir_attr_text(op, "impl") : NULL;
    for (int i = TK_DOT_FMA; text && i <= TK_DOT_WGMMA; i++)
        if (strcmp(text, dot_impl_names[i]) == 0) return (tk_dot_impl)i;
    return TK_DOT_UNCHOSEN;
}
