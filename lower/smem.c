/* Shared memory: the scratch each op needs (a reduction across warps, a
 * layout conversion that moves data between threads). Every such op uses
 * its scratch only while it runs, between barriers codegen places around
 * it, so scratch is reused: the kernel needs the largest single need.
 * Needs: layouts. Sets kernel->shared_bytes. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static int64_t numel(const tk_type *t) {
    int64_t n = 1;
    for (uint32_t i = 0; t->kind == TK_TYPE_TILE && i < t->rank; i++) n *= t->shape[i];
    return n;
}

static int64_t bytes_of(const tk_type *t) {
    const tk_type *e = tir_elem(t);
    if (e->kind == TK_TYPE_POINTER) return 8;
    int64_t b = (tk_dtype_bits(e->dtype) + 7) / 8;
    return b < 4 ? 4 : b; /* scratch words are at least 32 bits */
}

static void visit(tk_tir_op *op, void *ctx) {
    uint32_t *need = ctx;
    int64_t bytes = 0;
    if (op->code == TIR_REDUCE) {
        const tk_tir_value *in = op->operands.data[0];
        if (in->layout && in->layout->warp_bits)
        {
            const char *name = tk_sema_builtin_name(op->sub);
            int64_t slot = !strcmp(name, "argmax") || !strcmp(name, "argmin") ? 16 : 8;
            bytes = numel(op->results.data[0]->type) * ((int64_t)1 << in->layout->warp_bits) * slot;
        }
    } else if (op->code == TIR_CONVERT_LAYOUT || (op->code == TIR_BROADCAST && op->operands.data[0]->layout)) {
        const tk_tir_value *in = op->operands.data[0], *out = op->results.data[0];
        uint32_t *map = malloc(sizeof(uint32_t) * tk_ll_num_regs(out->layout));
        if (map && !tk_ll_register_map(in->layout, out->layout, map))
            bytes = numel(in->type) * bytes_of(in->type);
        free(map);
    }
    if (op->code == TIR_BUILTIN && op->operands.len && op->operands.data[0]->layout) {
        /* a scan across warps: one slot a thread and register */
        const char *name = tk_sema_builtin_name(op->sub);
        const tk_ll *l = op->operands.data[0]->layout;
        if ((!strcmp(name, "cumsum") || !strcmp(name, "cumprod") || !strcmp(name, "associative_scan")) &&
            l->warp_bits)
            bytes = ((int64_t)32 << l->warp_bits) * (int64_t)tk_ll_num_regs(l) * 8;
        if (!strcmp(name, "join") || !strcmp(name, "cat"))
            bytes = numel(op->results.data[0]->type) * bytes_of(op->results.data[0]->type);
        if (!strcmp(name, "split")) bytes = numel(op->operands.data[0]->type) * bytes_of(op->operands.data[0]->type);
    }
    if (bytes > *need) *need = (uint32_t)bytes;
}

void tir_pass_shared_memory(tk_arena *arena, tk_tir_kernel *k) {
    (void)arena;
    uint32_t need = 0;
    tir_walk(k->body, visit, &need);
    k->shared_bytes = need;
}
