/* Async-proxy fences. Shared memory written through the generic proxy
 * (st.shared: local_store; cp.async: async_copy, complete at an
 * async_wait) and read through the async proxy (a wgmma's operand
 * descriptor, a TMA store's source) needs a fence.proxy.async by the
 * writing threads between their writes and the barrier that orders them
 * before the read. TMA copies write through the async proxy and need
 * none; ldmatrix and ld.shared read through the generic one.
 *
 * This pass decides where, as one attribute, proxy_fence=1: on a
 * local_store whose buffer is read through the async proxy, and on every
 * async_wait of a kernel where cp.async fills such a buffer (a wait
 * completes all of its thread's copy groups, so which buffers it
 * completes is not known op by op). Codegen fences there, before the
 * wait's barrier (codegen/async.c).
 *
 * Needs: the passes that make buffers and their readers (pipeline-dots,
 * pipeline, dot-operands, tma-stores). Guarantees: each generic-proxy
 * write of a buffer read through the async proxy is fenced before the
 * barrier that precedes the read; nothing else is. */
#include "internal.h"

typedef struct fence_ctx {
    tk_arena *arena;
    uint8_t *async_read; /* by buffer: read through the async proxy */
    bool cp_async_to_async_read;
} fence_ctx;

static int view_buffer(const tk_tir_value *v) {
    return v->def && v->def->code == TIR_LOCAL_VIEW ? (int)tk_tir_attr_int(v->def, "buffer", -1) : -1;
}

static void find_async_readers(tk_tir_op *op, void *ctx) {
    fence_ctx *c = ctx;
    if (op->dead) return;
    int b[2] = {-1, -1};
    if (op->code == TIR_DOT && tk_tir_dot_impl(op) == TK_DOT_WGMMA)
        b[0] = view_buffer(op->operands.data[0]), b[1] = view_buffer(op->operands.data[1]);
    else if (op->code == TIR_TMA_STORE)
        b[0] = view_buffer(op->operands.data[0]);
    for (int i = 0; i < 2; i++)
        if (b[i] >= 0) c->async_read[b[i]] = 1;
}

static void find_cp_async(tk_tir_op *op, void *ctx) {
    fence_ctx *c = ctx;
    int b = !op->dead && op->code == TIR_ASYNC_COPY ? view_buffer(op->operands.data[0]) : -1;
    if (b >= 0 && c->async_read[b]) c->cp_async_to_async_read = true;
}

static void mark(fence_ctx *c, tk_tir_op *op) {
    struct tk_sema_attr a = {"proxy_fence", NULL, 1};
    tk_vec_push(c->arena, &op->attrs, a);
}

static void mark_writes(tk_tir_op *op, void *ctx) {
    fence_ctx *c = ctx;
    if (op->dead) return;
    if (op->code == TIR_LOCAL_STORE) {
        int b = view_buffer(op->operands.data[0]);
        if (b >= 0 && c->async_read[b]) mark(c, op);
    } else if (op->code == TIR_ASYNC_WAIT && c->cp_async_to_async_read) {
        mark(c, op);
    }
}

void tir_pass_proxy_fences(tk_arena *arena, tk_tir_kernel *k) {
    fence_ctx c = {arena, TK_NEW_ARRAY(arena, uint8_t, k->buffers.len + 1), false};
    tir_walk(k->body, find_async_readers, &c);
    tir_walk(k->body, find_cp_async, &c);
    tir_walk(k->body, mark_writes, &c);
}
