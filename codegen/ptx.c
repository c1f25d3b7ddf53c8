/* Calls below LLVM's instructions: NVVM intrinsics and external functions
 * (libdevice, vprintf, __assertfail), declared in the module on first use;
 * the special registers; the CTA barrier; and inline PTX. cg_asm_call is
 * the one place inline PTX is built: the predicated loads and stores with
 * cache hints (memory.c), f32 division (elementwise.c), the fp8 and
 * round-toward-zero conversions (cast.c) and the user's
 * inline_asm_elementwise all go through it.
 * Needs: the builder positioned where the call goes. */
#include "internal.h"

#include <string.h>

LLVMValueRef cg_declare(cg *c, const char *name, LLVMTypeRef ret, LLVMTypeRef *params, unsigned n) {
    LLVMValueRef f = LLVMGetNamedFunction(c->mod, name);
    if (f) return f;
    return LLVMAddFunction(c->mod, name, LLVMFunctionType(ret, params, n, 0));
}

LLVMValueRef cg_call(cg *c, const char *name, LLVMTypeRef ret, LLVMValueRef *args, unsigned n) {
    LLVMTypeRef params[12];
    for (unsigned i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMValueRef f = cg_declare(c, name, ret, params, n);
    return LLVMBuildCall2(c->b, LLVMFunctionType(ret, params, n, 0), f, args, n, "");
}

LLVMValueRef cg_asm_call(cg *c, LLVMTypeRef ret, const char *text, const char *constraints,
                         LLVMValueRef *args, unsigned n, bool side_effects) {
    /* wgmma: up to 128 accumulator registers and its descriptors */
    enum { MAX_ASM_ARGS = 260 };
    LLVMTypeRef params[MAX_ASM_ARGS];
    if (n > MAX_ASM_ARGS) {
        tk_internal_error(c->diag, (tk_loc){0}, "inline PTX with %u operands", n);
        c->failed = true;
        n = 0;
    }
    for (unsigned i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(ret, params, n, 0);
    LLVMValueRef a = LLVMGetInlineAsm(fty, text, strlen(text), constraints, strlen(constraints),
                                      side_effects, 0, LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(c->b, fty, a, args, n, "");
}

LLVMValueRef cg_sreg(cg *c, const char *name) {
    char full[96];
    snprintf(full, sizeof full, "llvm.nvvm.read.ptx.sreg.%s", name);
    return cg_call(c, full, c->t_i32, NULL, 0);
}

/* The aligned form promises ptxas that every warp arrives whole, and
 * ptxas then drops the warp synchronization of the shuffles after it.
 * After a branch only some lanes took (an owner's 16-bit cas loop) that
 * promise failed on the H200: synccheck found the warp divergent at the
 * barrier, and a shuffle after it read 0 from the other lanes (difftest
 * program 1186: 20 runs of 20 wrong; with barrier.sync, 0 of 20). A kernel
 * with such branches (module.c) takes the non-aligned form everywhere,
 * since a barrier in a loop may follow the branch of an earlier trip. */
void cg_barrier(cg *c) {
    LLVMValueRef zero = cg_i32(c, 0);
    c->barriers++;
    if (c->barrier_threads) {
        /* the consumers of a warp-specialized kernel: the producer warps
         * never reach their barriers */
        LLVMValueRef args[2] = {cg_i32(c, 1), cg_i32(c, c->barrier_threads)};
        cg_call(c, c->thread_divergent ? "llvm.nvvm.barrier.cta.sync.count" : "llvm.nvvm.barrier.cta.sync.aligned.count",
                c->t_void, args, 2);
        return;
    }
    cg_call(c, c->thread_divergent ? "llvm.nvvm.barrier.cta.sync.all" : "llvm.nvvm.barrier.cta.sync.aligned.all",
            c->t_void, &zero, 1);
}

/* Every lane of the warp waits here for the others (bar.warp.sync). */
void cg_warp_sync(cg *c) {
    LLVMValueRef all = cg_i32(c, -1);
    cg_call(c, "llvm.nvvm.bar.warp.sync", c->t_void, &all, 1);
}
