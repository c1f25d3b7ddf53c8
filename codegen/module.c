/* Tile IR -> LLVM IR for NVPTX: the module and one function per kernel
 * variant, whose body control.c emits op by op (one file an op family,
 * internal.h).
 * Needs: a tile IR program after the gpu passes (layouts, axis info,
 * shared memory). Guarantees: one ptx_kernel function per kernel variant;
 * every op the back end does not handle yet is reported at its source
 * position ("not supported by code generation yet") and nothing is built
 * for that kernel. Tile values become per-thread register arrays in the
 * order of their layout's register bits. */
#include "internal.h"

#include <string.h>

static LLVMTypeRef param_type(cg *c, const tk_type *t) {
    if (t->kind == TK_TYPE_POINTER) return c->t_ptr1;
    if (t->kind == TK_TYPE_BLOCK_PTR) return LLVMPointerTypeInContext(c->ctx, 0); /* a descriptor, byval */
    if (t->dtype == TK_I1) return c->t_i8;
    return cg_dtype_type(c, t->dtype);
}

const char *cg_entry_name(tk_arena *arena, const tk_tir_kernel *k, const tk_tir_program *program) {
    uint32_t same = 0;
    for (uint32_t i = 0; i < program->kernels.len; i++)
        same += strcmp(program->kernels.data[i]->sema->name, k->sema->name) == 0;
    uint32_t variants = 0;
    for (uint32_t i = 0; i < program->kernels.len; i++)
        variants += strcmp(program->kernels.data[i]->sema->name, k->sema->name) == 0 &&
                    program->kernels.data[i]->suffix[0] == 0;
    if (same <= 1) return k->sema->name;
    if (variants <= 1) return tk_arena_printf(arena, "%s%s", k->sema->name, k->suffix);
    return tk_arena_printf(arena, "%s__v%u%s", k->sema->name, k->sema->variant, k->suffix);
}

static bool is_wgmma_dot(const tk_tir_op *op) {
    return tk_tir_dot_impl(op) == TK_DOT_WGMMA;
}

/* Ops that codegen writes as a branch taken by some threads of a warp and
 * not others (the owners' atomics, prints, failing asserts). */
static bool is_thread_divergent(const tk_tir_op *op) {
    if (op->code != TIR_BUILTIN) return false;
    switch (op->sub) {
    case TK_B_ATOMIC_ADD: case TK_B_ATOMIC_MAX: case TK_B_ATOMIC_MIN: case TK_B_ATOMIC_AND:
    case TK_B_ATOMIC_OR: case TK_B_ATOMIC_XOR: case TK_B_ATOMIC_XCHG: case TK_B_ATOMIC_CAS:
    case TK_B_DEVICE_PRINT: case TK_B_DEVICE_ASSERT:
    case TK_B_SORT: case TK_B_TOPK: /* threads without a pair idle through a stage */
        return true;
    default:
        return false;
    }
}

static bool any_op(const tk_tir_block *blk, bool (*pred)(const tk_tir_op *)) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (!op->dead && pred(op)) return true;
        for (uint32_t r = 0; r < op->regions.len; r++)
            if (any_op(op->regions.data[r], pred)) return true;
    }
    return false;
}

static bool emit_kernel(cg *c, const tk_tir_kernel *k, const char *entry) {
    c->k = k;
    c->fp_contract = c->fp_contract_allowed && k->sema->fp_fusion;
    c->failed = false;
    c->nflats = 0;
    c->leader_tid = c->barrier_threads = 0;
    c->wgmma = any_op(k->body, is_wgmma_dot);
    c->thread_divergent = any_op(k->body, is_thread_divergent);
    c->vals = TK_NEW_ARRAY(c->arena, cgval, k->value_count + 1);
    const tk_tir_block *body = k->body;
    LLVMTypeRef params[128];
    uint32_t np = body->args.len < 128 ? body->args.len : 128;
    for (uint32_t i = 0; i < np; i++) params[i] = param_type(c, body->args.data[i]->type);
    LLVMValueRef fn = LLVMAddFunction(c->mod, entry, LLVMFunctionType(c->t_void, params, np, 0));
    LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
    for (uint32_t i = 0; i < np; i++)
        if (body->args.data[i]->type->kind == TK_TYPE_BLOCK_PTR) cg_descriptor_param_attributes(c, fn, i);
    /* the header launches exactly num_warps * 32 threads (and a producer
     * warpgroup's): .reqntid, which ptxas may use (as Triton does), not
     * just an upper bound. setmaxnreg needs the registers capped at entry:
     * one block an SM (.minnctapersm 1) caps them at the block's share,
     * or the kernel's maxnreg where it is below that share. */
    char threads[16];
    snprintf(threads, sizeof threads, "%u", tk_tir_kernel_threads(k));
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(c->ctx, "nvvm.reqntid", 12, threads, (unsigned)strlen(threads)));
    bool capped = false;
    if (k->producer_warps) cg_entry_registers(k, &capped);
    if (k->producer_warps && !capped)
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(c->ctx, "nvvm.minctasm", 13, "1", 1));
    if (k->sema->maxnreg) {
        char regs[16];
        snprintf(regs, sizeof regs, "%u", (unsigned)k->sema->maxnreg);
        LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                LLVMCreateStringAttribute(c->ctx, "nvvm.maxnreg", 12, regs, (unsigned)strlen(regs)));
    }
    c->fn = fn;
    c->di_sp = NULL;
    if (c->dib) {
        LLVMMetadataRef type = LLVMDIBuilderCreateSubroutineType(c->dib, c->di_file, NULL, 0, LLVMDIFlagZero);
        unsigned line = k->sema->loc.line;
        c->di_sp = LLVMDIBuilderCreateFunction(c->dib, c->di_file, entry, strlen(entry), entry, strlen(entry),
                                               c->di_file, line, type, 0, 1, line, LLVMDIFlagZero, 1);
        LLVMSetSubprogram(fn, c->di_sp);
        LLVMSetCurrentDebugLocation2(c->b, LLVMDIBuilderCreateDebugLocation(c->ctx, line, k->sema->loc.col,
                                                                            c->di_sp, NULL));
    }
    /* dynamic shared memory: sized at launch (the header passes
     * k->shared_bytes), so more than the 48 KB of static memory works */
    c->smem = NULL;
    if (k->shared_bytes) {
        c->smem = LLVMGetNamedGlobal(c->mod, "tk_smem");
        if (!c->smem) {
            c->smem = LLVMAddGlobalInAddressSpace(c->mod, LLVMArrayType2(c->t_i8, 0), "tk_smem", 3);
            LLVMSetAlignment(c->smem, 16);
        }
        /* swizzled buffers repeat their pattern every 1024 bytes (smem.c);
         * one alignment for the whole program, so that modules compiled
         * apart declare tk_smem alike */
        if (c->smem_align > LLVMGetAlignment(c->smem)) LLVMSetAlignment(c->smem, c->smem_align);
    }
    c->entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry");
    LLVMBasicBlockRef start = LLVMAppendBasicBlockInContext(c->ctx, fn, "start");
    LLVMPositionBuilderAtEnd(c->b, c->entry);
    c->tid = cg_sreg(c, "tid.x");
    c->lane = LLVMBuildAnd(c->b, c->tid, cg_i32(c, 31), "lane");
    c->warp = LLVMBuildLShr(c->b, c->tid, cg_i32(c, 5), "warp");
    /* With wgmma, the warp index through shfl.sync from lane 0: the same
     * value, but ptxas then knows it to be the same in every lane, so what
     * derives from it (wgmma's descriptors, a warpgroup's rows) lives in
     * uniform registers: matmul.tk's 128x256x64 K loop needs 168 registers
     * instead of 202. (On mma.sync kernels it made ptxas spill.) The mask
     * keeps LLVM's bound on it: num_warps is a power of two. */
    if (c->wgmma) {
        LLVMValueRef shfl[4] = {cg_i32(c, -1), c->warp, cg_i32(c, 0), cg_i32(c, 31)};
        c->warp = LLVMBuildAnd(c->b, cg_call(c, "llvm.nvvm.shfl.sync.idx.i32", c->t_i32, shfl, 4),
                               cg_i32(c, (int64_t)k->num_warps - 1), "warp");
    }
    c->entry_br = LLVMBuildBr(c->b, start);
    LLVMPositionBuilderAtEnd(c->b, start);
    for (uint32_t i = 0; i < np; i++) {
        const tk_tir_value *a = body->args.data[i];
        LLVMValueRef p = LLVMGetParam(fn, i);
        if (a->type->kind == TK_TYPE_SCALAR && a->type->dtype == TK_I1) p = LLVMBuildTrunc(c->b, p, c->t_i1, "");
        cgval v = cg_newval(c, 1);
        v.r[0] = p;
        *cg_get(c, a) = v;
    }
    cg_emit_block(c, body);
    if (c->failed) {
        LLVMDeleteFunction(fn);
        return false;
    }
    LLVMBuildRetVoid(c->b);
    return true;
}

LLVMModuleRef cg_build_module(tk_arena *arena, tk_diag *diag, LLVMContextRef ctx,
                              const tk_tir_program *program, const bool *only, const tk_cg_options *options,
                              tk_cg_output *out) {
    bool line_info = options->line_info;
    cg c = {0};
    c.debug = options->debug;
    c.fp_contract_allowed = options->fp_contract;
    c.path_maps = options->path_maps;
    c.target = options->target;
    c.arena = arena;
    c.diag = diag;
    c.ctx = ctx;
    c.mod = LLVMModuleCreateWithNameInContext("tkc", ctx);
    c.b = LLVMCreateBuilderInContext(ctx);
    c.t_i1 = LLVMInt1TypeInContext(ctx);
    c.t_i8 = LLVMInt8TypeInContext(ctx);
    c.t_i16 = LLVMInt16TypeInContext(ctx);
    c.t_i32 = LLVMInt32TypeInContext(ctx);
    c.t_i64 = LLVMInt64TypeInContext(ctx);
    c.t_f16 = LLVMHalfTypeInContext(ctx);
    c.t_bf16 = LLVMBFloatTypeInContext(ctx);
    c.t_f32 = LLVMFloatTypeInContext(ctx);
    c.t_f64 = LLVMDoubleTypeInContext(ctx);
    c.t_ptr1 = LLVMPointerTypeInContext(ctx, 1);
    c.t_ptr3 = LLVMPointerTypeInContext(ctx, 3);
    c.t_void = LLVMVoidTypeInContext(ctx);
    if (line_info && program->kernels.len && program->kernels.data[0]->sema->loc.src) {
        const char *path = tk_path_remap(arena, program->kernels.data[0]->sema->loc.src->name, c.path_maps);
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;
        size_t dir_len = slash ? (size_t)(slash - path) : 1;
        c.dib = LLVMCreateDIBuilder(c.mod);
        c.di_file = LLVMDIBuilderCreateFile(c.dib, base, strlen(base), slash ? path : ".", dir_len);
        /* .file/.loc directives only (LLVM's DebugDirectivesOnly, which the
         * C enum does not name): no .debug sections and no ", debug"
         * target, so ptxas may still optimize */
        LLVMDIBuilderCreateCompileUnit(c.dib, LLVMDWARFSourceLanguageC, c.di_file, "tkc", 3, 1, "", 0, 0, "", 0,
                                       (LLVMDWARFEmissionKind)3, 0, 0, 0, "", 0, "", 0);
        LLVMAddModuleFlag(c.mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                          LLVMValueAsMetadata(LLVMConstInt(c.t_i32, LLVMDebugMetadataVersion(), 0)));
        LLVMAddModuleFlag(c.mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                          LLVMValueAsMetadata(LLVMConstInt(c.t_i32, 2, 0)));
    }
    bool ok = true;
    c.smem_align = 16;
    for (uint32_t i = 0; i < program->kernels.len; i++)
        if (program->kernels.data[i]->buffers.len) c.smem_align = 1024;
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        const tk_tir_kernel *k = program->kernels.data[i];
        if (only && !only[i]) continue;
        const char *entry = cg_entry_name(arena, k, program);
        if (emit_kernel(&c, k, entry)) {
            tk_cg_kernel_info info = {entry, k, -1, -1, (int)k->shared_bytes};
            tk_vec_push(arena, &out->kernels, info);
        } else {
            ok = false;
        }
    }
    if (c.dib) {
        LLVMDIBuilderFinalize(c.dib);
        LLVMDisposeDIBuilder(c.dib);
    }
    LLVMDisposeBuilder(c.b);
    if (c.user_asm.src && !out->user_asm.src) out->user_asm = c.user_asm;
    if (!ok) {
        LLVMDisposeModule(c.mod);
        return NULL;
    }
    return c.mod;
}
