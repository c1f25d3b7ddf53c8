/* The target half of code generation: verify the LLVM module, optimize it
 * (default<O3> or the level asked), emit PTX through the NVPTX back end,
 * and assemble a cubin with the toolkit's ptxas when there is one (reading
 * its -v report for registers, spills and shared memory per kernel).
 * Needs: a built module. Guarantees: out->ptx, and out->cubin or a note
 * saying why not. */
#include "internal.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *copy_string(tk_arena *arena, const char *s, size_t len) {
    return tk_arena_strndup(arena, s, len);
}

static bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool read_file(tk_arena *arena, const char *path, unsigned char **data, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (n < 0) {
        fclose(f);
        return false;
    }
    *data = tk_arena_alloc(arena, (size_t)n + 1);
    *len = fread(*data, 1, (size_t)n, f);
    fclose(f);
    return *len == (size_t)n;
}

/* ptxas -v: "Compiling entry function 'NAME'" then "Used N registers" and
 * "N bytes spill stores" lines for it. */
static void parse_ptxas_report(const char *text, tk_cg_output *out) {
    tk_cg_kernel_info *cur = NULL;
    for (const char *line = text; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        const char *q = strstr(line, "entry function '");
        if (q && q < line + len) {
            q += 16;
            const char *qe = strchr(q, '\'');
            cur = NULL;
            for (uint32_t i = 0; qe && i < out->kernels.len; i++)
                if (strlen(out->kernels.data[i].entry) == (size_t)(qe - q) &&
                    strncmp(out->kernels.data[i].entry, q, (size_t)(qe - q)) == 0)
                    cur = &out->kernels.data[i];
        }
        const char *u = strstr(line, "Used ");
        if (cur && u && u < line + len) cur->registers = atoi(u + 5);
        const char *s = strstr(line, "bytes spill stores");
        if (cur && s && s < line + len) {
            const char *p = s;
            while (p > line && (p[-1] == ' ' || (p[-1] >= '0' && p[-1] <= '9'))) p--;
            cur->spill_bytes = atoi(p);
        }
        line = end ? end + 1 : NULL;
    }
}

/* A cubin from ptxas. No toolkit is not an error (the header then embeds
 * PTX only and says so in cubin_note); a toolkit whose ptxas fails or
 * cannot run is one: tkc wrote PTX that its own assembler rejects. */
static bool run_ptxas(tk_arena *arena, tk_diag *diag, const tk_cg_options *opt, tk_cg_output *out) {
    const char *home = opt->cuda_home ? opt->cuda_home : "/usr/local/cuda";
    char ptxas[1024];
    snprintf(ptxas, sizeof ptxas, "%s/bin/ptxas", home);
    if (strchr(home, '\'') || !file_exists(ptxas)) {
        out->cubin_note = tk_arena_printf(arena, "no CUDA toolkit at %s (ptxas not found): "
                                          "the header embeds PTX only, which the driver compiles", home);
        return true;
    }
    char dir[] = "/tmp/tkc-XXXXXX";
    if (!mkdtemp(dir)) {
        tk_error(diag, (tk_loc){0}, "cannot make a temporary folder for ptxas: %s", strerror(errno));
        return false;
    }
    char ptx_path[64], cubin_path[64];
    snprintf(ptx_path, sizeof ptx_path, "%s/k.ptx", dir);
    snprintf(cubin_path, sizeof cubin_path, "%s/k.cubin", dir);
    FILE *f = fopen(ptx_path, "wb");
    bool written = f && fwrite(out->ptx, 1, out->ptx_len, f) == out->ptx_len;
    if (f && fclose(f) != 0) written = false;
    bool ok = false;
    if (!written) {
        tk_error(diag, (tk_loc){0}, "cannot write '%s' for ptxas: %s", ptx_path, strerror(errno));
    } else {
        char cmd[1400];
        snprintf(cmd, sizeof cmd, "'%s' -arch=%s %s-O%d %s'%s' -o '%s' 2>&1", ptxas, opt->arch,
                 opt->resource_report ? "-v " : "", opt->opt_level < 3 ? opt->opt_level : 3,
                 opt->line_info ? "-lineinfo " : "", ptx_path, cubin_path);
        double t0 = tk_now_ms();
        FILE *p = popen(cmd, "r");
        char *report = NULL;
        size_t report_len = 0;
        if (!p) {
            tk_error(diag, (tk_loc){0}, "cannot run '%s': %s", ptxas, strerror(errno));
        } else {
            FILE *mem = open_memstream(&report, &report_len);
            char buf[4096];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, p)) > 0)
                if (mem) fwrite(buf, 1, n, mem);
            int status = pclose(p);
            if (mem) fclose(mem);
            out->ptxas_ms = tk_now_ms() - t0;
            if (status == 0 && read_file(arena, cubin_path, &out->cubin, &out->cubin_len)) {
                if (report) parse_ptxas_report(report, out);
                ok = true;
            } else {
                out->cubin = NULL;
                tk_error(diag, (tk_loc){0}, "internal compiler error: ptxas -arch=%s rejected the PTX tkc "
                         "wrote:\n%s", opt->arch, report && *report ? report : "(no message)\n");
            }
        }
        free(report);
    }
    unlink(ptx_path);
    unlink(cubin_path);
    rmdir(dir);
    return ok;
}

/* Links libdevice when the module calls __nv_ functions: its functions
 * become internal, so the optimizer keeps only what is used, and the
 * NVVMReflect flag says denormals are not flushed. */
static bool link_libdevice(tk_diag *diag, LLVMContextRef ctx, LLVMModuleRef mod, const char *cuda_home) {
    bool needed = false;
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        size_t len;
        const char *name = LLVMGetValueName2(f, &len);
        if (LLVMIsDeclaration(f) && len > 5 && strncmp(name, "__nv_", 5) == 0) needed = true;
    }
    if (!needed) return true;
    char path[1024];
    snprintf(path, sizeof path, "%s/nvvm/libdevice/libdevice.10.bc", cuda_home ? cuda_home : "/usr/local/cuda");
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &err)) {
        tk_error(diag, (tk_loc){0}, "this kernel uses math from libdevice, which is not at %s (set "
                 "CUDA_HOME to the CUDA toolkit)", path);
        LLVMDisposeMessage(err);
        return false;
    }
    LLVMModuleRef lib = NULL;
    bool bad = LLVMParseBitcodeInContext2(ctx, buf, &lib);
    LLVMDisposeMemoryBuffer(buf);
    if (bad || !lib) {
        tk_error(diag, (tk_loc){0}, "cannot read libdevice at %s", path);
        return false;
    }
    LLVMSetTarget(lib, LLVMGetTarget(mod));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(mod));
    if (LLVMLinkModules2(mod, lib)) {
        tk_error(diag, (tk_loc){0}, "internal compiler error: linking libdevice failed");
        return false;
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f) && LLVMGetFunctionCallConv(f) != LLVMPTXKernelCallConv)
            LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMAddModuleFlag(mod, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0)));
    return true;
}

bool tk_cg_compile(tk_arena *arena, tk_diag *diag, const tk_tir_program *program,
                   const tk_cg_options *options, tk_cg_output *out) {
    double t0 = tk_now_ms();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef mod = cg_build_module(arena, diag, ctx, program, options, out);
    if (!mod) {
        LLVMContextDispose(ctx);
        return false;
    }
    const char *triple = "nvptx64-nvidia-cuda";
    LLVMSetTarget(mod, triple);
    char *err = NULL;
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        tk_error(diag, (tk_loc){0}, "LLVM has no NVPTX target: %s", err ? err : "?");
        LLVMDisposeMessage(err);
        LLVMDisposeModule(mod);
        LLVMContextDispose(ctx);
        return false;
    }
    LLVMCodeGenOptLevel level = options->opt_level == 0 ? LLVMCodeGenLevelNone
                                : options->opt_level == 1 ? LLVMCodeGenLevelLess
                                : options->opt_level == 2 ? LLVMCodeGenLevelDefault
                                                          : LLVMCodeGenLevelAggressive;
    /* LLVM's default PTX version per target, except sm_89, whose fp8
     * conversions (cvt ... e4m3x2 / e5m2x2) need PTX ISA 8.1 */
    const char *features = strcmp(options->arch, "sm_89") == 0 ? "+ptx81" : "";
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, options->arch, features, level,
                                                      LLVMRelocDefault, LLVMCodeModelDefault);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, layout);
    LLVMDisposeTargetData(layout);
    if (!link_libdevice(diag, ctx, mod, options->cuda_home)) {
        LLVMDisposeTargetMachine(tm);
        LLVMDisposeModule(mod);
        LLVMContextDispose(ctx);
        return false;
    }
    if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &err)) {
        tk_error(diag, (tk_loc){0}, "internal compiler error: invalid LLVM IR:\n%s", err ? err : "?");
        LLVMDisposeMessage(err);
        LLVMDisposeTargetMachine(tm);
        LLVMDisposeModule(mod);
        LLVMContextDispose(ctx);
        return false;
    }
    LLVMDisposeMessage(err);
    err = NULL;
    char pipeline[32];
    snprintf(pipeline, sizeof pipeline, "default<O%d>", options->opt_level);
    LLVMPassBuilderOptionsRef pb = LLVMCreatePassBuilderOptions();
    LLVMErrorRef perr = LLVMRunPasses(mod, pipeline, tm, pb);
    LLVMDisposePassBuilderOptions(pb);
    if (perr) {
        char *msg = LLVMGetErrorMessage(perr);
        tk_error(diag, (tk_loc){0}, "internal compiler error: LLVM passes failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
    }
    char *ir = LLVMPrintModuleToString(mod);
    out->llvm_ir = copy_string(arena, ir, strlen(ir));
    LLVMDisposeMessage(ir);
    LLVMMemoryBufferRef buf = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &buf)) {
        tk_error(diag, (tk_loc){0}, "internal compiler error: PTX emission failed: %s", err ? err : "?");
        LLVMDisposeMessage(err);
    } else {
        size_t n = LLVMGetBufferSize(buf);
        out->ptx = copy_string(arena, LLVMGetBufferStart(buf), n);
        out->ptx_len = strlen(out->ptx);
        LLVMDisposeMemoryBuffer(buf);
    }
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    out->llvm_ms = tk_now_ms() - t0;
    if (!out->ptx || diag->error_count) return false;
    return !options->want_cubin || run_ptxas(arena, diag, options, out);
}
