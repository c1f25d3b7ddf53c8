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
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* ptxas takes time superlinear in a module's entries (3,000 entries: 12 s,
 * 10,000: more than a minute): past this many, the module goes to ptxas
 * in pieces of about this many entries, compiled in parallel as
 * relocatable objects and linked by nvlink. Relocatable code costs
 * registers (attention_bwd's 128x64 dQ: 149 where the whole module
 * compiles it in 125, one CTA an SM instead of two, 1.1-1.3x slower), so a
 * module of fewer entries goes whole, however large (matmul.tk's variants,
 * 0.7 MB of PTX): past PTXAS_PARALLEL_BYTES ptxas compiles its entries on
 * PTXAS_THREADS threads (-split-compile, where the toolkit's ptxas has it),
 * a fixed count so that the cubin does not depend on the machine's (as
 * fast as 8 on 2 cores; on 16, attention.tk 4.1 s where 8 took 4.5). */
enum { PTXAS_CHUNK_ENTRIES = 256, PTXAS_PARALLEL_BYTES = 256 * 1024, PTXAS_THREADS = 32 };

static bool is_entry_start(const char *line) { return strncmp(line, ".visible .entry ", 16) == 0; }

/* How many pieces the PTX goes to ptxas in: 1 below the threshold. */
static uint32_t ptx_chunks(const char *ptx) {
    /* an external function (vprintf, __assertfail) stays whole: the driver
     * resolves it when it loads the module, nvlink would not */
    if (strstr(ptx, ".extern .func")) return 1;
    uint32_t entries = 0;
    for (const char *l = ptx; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (is_entry_start(l)) entries++;
    return entries <= PTXAS_CHUNK_ENTRIES ? 1 : (entries + PTXAS_CHUNK_ENTRIES - 1) / PTXAS_CHUNK_ENTRIES;
}

static bool write_whole(const char *path, const char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f && fclose(f) != 0) ok = false;
    return ok;
}

/* Writes DIR/c<i>.ptx: each piece holds everything outside the entries
 * (the header, globals, internal .func bodies: internal, so a copy in each
 * piece links) and its share of the entries, whole. An entry runs from its
 * ".visible .entry" line (and the "// .globl" comment before it) to the
 * "}" that closes it at the start of a line. */
static bool write_chunks(const char *dir, const char *ptx, uint32_t chunks) {
    size_t len = strlen(ptx);
    char *common = malloc(len + 1), *entries = malloc(len + 1);
    size_t nc = 0, ne = 0;
    uint32_t total = 0;
    bool in_entry = false;
    const char *pending = NULL; /* a "// .globl" line waiting for its entry */
    for (const char *l = ptx; *l;) {
        const char *end = strchr(l, '\n');
        size_t n = end ? (size_t)(end - l) + 1 : strlen(l);
        if (!common || !entries) break;
        if (!in_entry && is_entry_start(l)) {
            in_entry = true;
            total++;
            if (pending) {
                memcpy(entries + ne, pending, (size_t)(l - pending));
                ne += (size_t)(l - pending);
                pending = NULL;
            }
        }
        if (in_entry) {
            memcpy(entries + ne, l, n);
            ne += n;
            if (l[0] == '}') in_entry = false;
        } else if (strncmp(l, "\t// .globl", 10) == 0 || strncmp(l, "// .globl", 9) == 0) {
            pending = l;
        } else {
            if (pending) { /* a comment that no entry followed */
                memcpy(common + nc, pending, (size_t)(l - pending));
                nc += (size_t)(l - pending);
                pending = NULL;
            }
            memcpy(common + nc, l, n);
            nc += n;
        }
        l += n;
    }
    bool ok = common && entries && !in_entry;
    /* the entries' text, cut at entry starts into `chunks` pieces */
    const char *e = entries, *stop = entries + ne;
    uint32_t per = (total + chunks - 1) / chunks;
    for (uint32_t i = 0; i < chunks && ok; i++) {
        const char *from = e;
        uint32_t seen = 0;
        while (e < stop) {
            const char *nl = memchr(e, '\n', (size_t)(stop - e));
            const char *next = nl ? nl + 1 : stop;
            if (is_entry_start(e) && seen++ == per) break;
            e = next;
        }
        /* step back over the "// .globl" comment that belongs to the next entry */
        if (e < stop) {
            const char *prev = e;
            while (prev > from && prev[-1] == '\n' && prev - 1 > from) {
                const char *ls = prev - 1;
                while (ls > from && ls[-1] != '\n') ls--;
                if (strncmp(ls, "\t// .globl", 10) != 0 && strncmp(ls, "// .globl", 9) != 0) break;
                prev = ls;
            }
            e = prev;
        }
        char path[1200];
        snprintf(path, sizeof path, "%s/c%u.ptx", dir, i);
        FILE *f = fopen(path, "wb");
        ok = f && fwrite(common, 1, nc, f) == nc && fwrite(from, 1, (size_t)(e - from), f) == (size_t)(e - from);
        if (f && fclose(f) != 0) ok = false;
    }
    free(common);
    free(entries);
    return ok;
}

static void remove_chunks(const char *dir, uint32_t chunks) {
    char path[1200];
    for (uint32_t i = 0; chunks > 1 && i < chunks; i++) {
        const char *ext[3] = {"ptx", "o", "log"};
        for (int k = 0; k < 3; k++) {
            snprintf(path, sizeof path, "%s/c%u.%s", dir, i, ext[k]);
            unlink(path);
        }
    }
    snprintf(path, sizeof path, "%s/failed", dir);
    unlink(path);
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
    const char *tmp = opt->tmp_dir && *opt->tmp_dir ? opt->tmp_dir : "/tmp";
    char *dir = tk_arena_printf(arena, "%s/tkc-XXXXXX", tmp);
    const char *bad_tmp = strchr(tmp, '\'') ? "it has a quote" : strlen(tmp) > 1000 ? "the path is too long" : NULL;
    if (bad_tmp || !mkdtemp(dir)) {
        tk_error(diag, (tk_loc){0}, "cannot make a temporary folder for ptxas in '%s' (TMPDIR): %s", tmp,
                 bad_tmp ? bad_tmp : strerror(errno));
        return false;
    }
    char ptx_path[1200], cubin_path[1200], nvlink[1024];
    snprintf(ptx_path, sizeof ptx_path, "%s/k.ptx", dir);
    snprintf(cubin_path, sizeof cubin_path, "%s/k.cubin", dir);
    snprintf(nvlink, sizeof nvlink, "%s/bin/nvlink", home);
    uint32_t chunks = file_exists(nvlink) ? ptx_chunks(out->ptx) : 1;
    bool written = chunks > 1 ? write_chunks(dir, out->ptx, chunks) : write_whole(ptx_path, out->ptx, out->ptx_len);
    bool ok = false;
    if (!written) {
        tk_error(diag, (tk_loc){0}, "cannot write the PTX for ptxas in '%s': %s", dir, strerror(errno));
    } else {
        char *cmd = NULL;
        size_t cmd_len = 0;
        FILE *script = open_memstream(&cmd, &cmd_len);
        char flags[64];
        snprintf(flags, sizeof flags, "-arch=%s %s-O%d %s", opt->target->name, opt->resource_report ? "-v " : "",
                 opt->opt_level < 3 ? opt->opt_level : 3, opt->line_info ? "-lineinfo " : "");
        if (chunks == 1 && out->ptx_len > PTXAS_PARALLEL_BYTES) {
            fprintf(script, "split=; '%s' --help 2>/dev/null | grep -q -- -split-compile && split='-split-compile %d'; "
                    "'%s' $split %s'%s' -o '%s' 2>&1", ptxas, PTXAS_THREADS, ptxas, flags, ptx_path, cubin_path);
        } else if (chunks == 1) {
            fprintf(script, "'%s' %s'%s' -o '%s' 2>&1", ptxas, flags, ptx_path, cubin_path);
        } else {
            /* relocatable pieces, as many at once as there are processors,
             * then nvlink makes one cubin of them */
            long cpus = sysconf(_SC_NPROCESSORS_ONLN);
            uint32_t at_once = cpus > 0 && cpus < 64 ? (uint32_t)cpus : 1;
            fprintf(script, "cd '%s' && {", dir);
            for (uint32_t i = 0; i < chunks; i++) {
                fprintf(script, " ('%s' -c %sc%u.ptx -o c%u.o > c%u.log 2>&1 || echo %u >> failed) &", ptxas, flags,
                        i, i, i, i);
                if ((i + 1) % at_once == 0 || i + 1 == chunks) fputs(" wait;", script);
            }
            fputs(" }; cat c*.log; test ! -f failed && '", script);
            fprintf(script, "%s' -arch=%s", nvlink, opt->target->name);
            for (uint32_t i = 0; i < chunks; i++) fprintf(script, " c%u.o", i);
            fputs(" -o k.cubin 2>&1", script);
        }
        fclose(script);
        double t0 = tk_now_ms();
        FILE *p = cmd ? popen(cmd, "r") : NULL;
        free(cmd);
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
                const char *why = report && *report ? report : "(no message)\n";
                const char *few = strstr(why, "Insufficient registers (");
                if (few && !out->user_asm.src) {
                    /* the kernel's maxnreg is below what an instruction
                     * needs: "Insufficient registers (N) ... in function F.
                     * Try to compile with register target of M or higher" */
                    const char *fn = strstr(few, " in function "), *need = strstr(few, "register target of ");
                    int len = 0;
                    if (fn) {
                        fn += strlen(" in function ");
                        while (fn[len] && fn[len] != '.' && fn[len] != ' ' && fn[len] != '\n') len++;
                    }
                    const char *least = need ? tk_arena_printf(arena, ": ptxas needs at least %d",
                                                               atoi(need + strlen("register target of ")))
                                             : "";
                    tk_error(diag, (tk_loc){0}, "kernel '%.*s': maxnreg=%d is too few registers a thread on %s%s",
                             fn ? len : 1, fn ? fn : "?", atoi(few + strlen("Insufficient registers (")),
                             opt->target->name, least);
                    tk_note_plain(diag, "raise maxnreg (or leave it out) for this kernel or config");
                } else if (out->user_asm.src) {
                    tk_error(diag, out->user_asm, "ptxas -arch=%s rejected the PTX, which holds this inline "
                             "assembly", opt->target->name);
                    tk_note_plain(diag, "ptxas said:\n%s", why);
                } else {
                    tk_internal_error(diag, (tk_loc){0}, "ptxas -arch=%s rejected the PTX tkc "
                             "wrote:\n%s", opt->target->name, why);
                }
            }
        }
        free(report);
    }
    unlink(ptx_path);
    unlink(cubin_path);
    remove_chunks(dir, chunks);
    rmdir(dir);
    return ok;
}

/* A malloc'd message (threads report through these, not through diag). */
static char *message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *m = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (m) {
        va_start(ap, fmt);
        vsnprintf(m, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return m;
}

/* Links libdevice when the module calls __nv_ functions: its functions
 * become internal, so the optimizer keeps only what is used, and the
 * NVVMReflect flag says denormals are not flushed. */
static bool link_libdevice(char **error, LLVMContextRef ctx, LLVMModuleRef mod, const char *cuda_home) {
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
        *error = message("this kernel uses math from libdevice, which is not at %s (set CUDA_HOME to the "
                         "CUDA toolkit)", path);
        LLVMDisposeMessage(err);
        return false;
    }
    LLVMModuleRef lib = NULL;
    bool bad = LLVMParseBitcodeInContext2(ctx, buf, &lib);
    LLVMDisposeMemoryBuffer(buf);
    if (bad || !lib) {
        *error = message("cannot read libdevice at %s", path);
        return false;
    }
    LLVMSetTarget(lib, LLVMGetTarget(mod));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(mod));
    if (LLVMLinkModules2(mod, lib)) {
        *error = message("internal compiler error: linking libdevice failed");
        return false;
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
        if (!LLVMIsDeclaration(f) && LLVMGetFunctionCallConv(f) != LLVMPTXKernelCallConv)
            LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMAddModuleFlag(mod, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                      LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0)));
    return true;
}

/* One module on its way to PTX, on its own LLVM context: what a thread
 * does (module_to_ptx), and what it leaves (malloc'd strings). */
typedef struct llvm_job {
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    const tk_cg_options *options;
    unsigned index;   /* > 0: internal symbols get a suffix, so that modules join */
    int ptx_version;  /* x 10, the same for every module of a program */
    char *ptx, *ir;
    char *error;      /* a message for the user, or an internal error */
} llvm_job;

/* Internal symbols (libdevice's functions, private strings) renamed apart:
 * the PTX of several modules is joined into one. */
static void rename_internals(LLVMModuleRef mod, unsigned index) {
    char name[512];
    for (LLVMValueRef g = LLVMGetFirstGlobal(mod); g; g = LLVMGetNextGlobal(g)) {
        LLVMLinkage l = LLVMGetLinkage(g);
        size_t len;
        const char *old = LLVMGetValueName2(g, &len);
        if ((l == LLVMInternalLinkage || l == LLVMPrivateLinkage) && len && len < 400) {
            snprintf(name, sizeof name, "%.*s_m%u", (int)len, old, index);
            LLVMSetValueName2(g, name, strlen(name));
        }
    }
    for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
        LLVMLinkage l = LLVMGetLinkage(f);
        size_t len;
        const char *old = LLVMGetValueName2(f, &len);
        if (!LLVMIsDeclaration(f) && (l == LLVMInternalLinkage || l == LLVMPrivateLinkage) && len && len < 400) {
            snprintf(name, sizeof name, "%.*s_m%u", (int)len, old, index);
            LLVMSetValueName2(f, name, strlen(name));
        }
    }
}

static void *module_to_ptx(void *arg) {
    llvm_job *job = arg;
    const tk_cg_options *options = job->options;
    LLVMModuleRef mod = job->mod;
    const char *triple = "nvptx64-nvidia-cuda";
    LLVMSetTarget(mod, triple);
    char *err = NULL;
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(triple, &target, &err)) {
        job->error = message("LLVM has no NVPTX target: %s", err ? err : "?");
        LLVMDisposeMessage(err);
        return NULL;
    }
    LLVMCodeGenOptLevel level = options->opt_level == 0 ? LLVMCodeGenLevelNone
                                : options->opt_level == 1 ? LLVMCodeGenLevelLess
                                : options->opt_level == 2 ? LLVMCodeGenLevelDefault
                                                          : LLVMCodeGenLevelAggressive;
    char features[16];
    snprintf(features, sizeof features, "+ptx%d", job->ptx_version);
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, triple, options->target->name, features, level,
                                                      LLVMRelocDefault, LLVMCodeModelDefault);
    LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(mod, layout);
    LLVMDisposeTargetData(layout);
    if (!link_libdevice(&job->error, job->ctx, mod, options->cuda_home)) {
        LLVMDisposeTargetMachine(tm);
        return NULL;
    }
    if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &err)) {
        job->error = message("internal compiler error: invalid LLVM IR:\n%s", err ? err : "?");
        LLVMDisposeMessage(err);
        LLVMDisposeTargetMachine(tm);
        return NULL;
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
        job->error = message("internal compiler error: LLVM passes failed: %s", msg);
        LLVMDisposeErrorMessage(msg);
        LLVMDisposeTargetMachine(tm);
        return NULL;
    }
    if (job->index) rename_internals(mod, job->index);
    if (options->llvm_ir) {
        char *ir = LLVMPrintModuleToString(mod);
        job->ir = message("%s", ir);
        LLVMDisposeMessage(ir);
    }
    LLVMMemoryBufferRef buf = NULL;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, mod, LLVMAssemblyFile, &err, &buf)) {
        job->error = message("internal compiler error: PTX emission failed: %s", err ? err : "?");
        LLVMDisposeMessage(err);
    } else {
        size_t n = LLVMGetBufferSize(buf);
        job->ptx = malloc(n + 1);
        if (job->ptx) {
            memcpy(job->ptx, LLVMGetBufferStart(buf), n);
            job->ptx[n] = 0;
        }
        LLVMDisposeMemoryBuffer(buf);
    }
    LLVMDisposeTargetMachine(tm);
    return NULL;
}

/* The PTX of several modules as one: the first whole; of each other, what
 * follows its header (.version, .target, .address_size), without the
 * .extern declarations already there (tk_smem, vprintf: alike in every
 * module). */
static char *join_ptx(tk_arena *arena, llvm_job *jobs, uint32_t n) {
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    fputs(jobs[0].ptx, f);
    for (uint32_t j = 1; j < n; j++) {
        const char *p = strstr(jobs[j].ptx, "\n.address_size");
        p = p ? strchr(p + 1, '\n') : NULL;
        p = p ? p + 1 : jobs[j].ptx;
        while (*p) {
            const char *end = strchr(p, '\n');
            size_t line = end ? (size_t)(end - p) + 1 : strlen(p);
            if (strncmp(p, ".extern", 7) == 0) {
                /* the whole declaration: up to a line that ends in ';' */
                const char *stop = p;
                for (;;) {
                    const char *e = strchr(stop, '\n');
                    size_t l = e ? (size_t)(e - stop) : strlen(stop);
                    bool last = l && stop[l - 1] == ';';
                    stop = e ? e + 1 : stop + l;
                    if (last || !e) break;
                }
                fflush(f);
                char *decl = tk_arena_printf(arena, "%.*s", (int)(stop - p), p);
                if (!strstr(out, decl)) fputs(decl, f);
                p = stop;
                continue;
            }
            fwrite(p, 1, line, f);
            p += line;
        }
    }
    fclose(f);
    char *joined = tk_arena_printf(arena, "%s", out ? out : "");
    free(out);
    return joined;
}

/* The LLVM instructions kernel k is likely to make, roughly: a register
 * of each result of each op. */
static uint64_t block_weight(const tk_tir_block *blk) {
    uint64_t w = 0;
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        if (op->dead) continue;
        w += 1;
        for (uint32_t r = 0; r < op->results.len; r++) {
            const tk_tir_value *v = op->results.data[r];
            if (v->layout && !v->layout->shared) w += tk_ll_num_regs(v->layout);
        }
        for (uint32_t r = 0; r < op->regions.len; r++) w += block_weight(op->regions.data[r]);
    }
    return w;
}

/* Past this much work (block_weight) LLVM's passes and emission run on
 * several modules, one per PARALLEL_WEIGHT of work (matmul.tk's 18
 * kernels weigh about 70,000: 8 modules), on as many threads as there are
 * processors. The count depends on the work alone, not on the machine,
 * so that the PTX (its kernels' order, labels and symbol suffixes) is
 * the same wherever tkc runs. */
enum { PARALLEL_WEIGHT = 10000, MAX_MODULES = 64 };

/* Modules to PTX on one thread of a pool: each takes the next job. */
typedef struct job_pool {
    llvm_job *jobs;
    uint32_t count, next; /* next: taken with an atomic add */
} job_pool;

static void *pool_worker(void *arg) {
    job_pool *pool = arg;
    for (uint32_t m; (m = __atomic_fetch_add(&pool->next, 1, __ATOMIC_RELAXED)) < pool->count;)
        module_to_ptx(&pool->jobs[m]);
    return NULL;
}

void tk_cg_init_process(void) {
    /* Loop strength reduction rewrites each pointer that a pipelined loop
     * carries ahead (a_ptrs + (num_stages-1) * BK, advanced by BK) as the
     * base pointer plus a 64-bit offset added every trip: twelve more
     * 64-bit adds a trip in matmul's K loop, where issue slots are what
     * limits it. Triton offers the same switch (DISABLE_LLVM_OPT). */
    const char *args[] = {"tkc", "-disable-lsr"};
    LLVMParseCommandLineOptions(2, args, NULL);
}

/* Does blk compute an mma.sync dot on fp8 operands? */
static bool has_fp8_mma(const tk_tir_block *blk) {
    for (uint32_t i = 0; i < blk->ops.len; i++) {
        const tk_tir_op *op = blk->ops.data[i];
        bool mma_sync = !op->dead && tk_tir_dot_impl(op) == TK_DOT_MMA_SYNC;
        tk_dtype in = mma_sync ? cg_elem_of(op->operands.data[0]->type)->dtype : TK_I32;
        if (mma_sync && (in == TK_F8E4M3 || in == TK_F8E5M2)) return true;
        for (uint32_t r = 0; r < op->regions.len; r++)
            if (has_fp8_mma(op->regions.data[r])) return true;
    }
    return false;
}

/* The PTX ISA version the program is written in: the target's (LLVM's
 * default, except sm_89, whose fp8 conversions need 8.1), or 8.4 where an
 * mma.sync takes fp8 operands (ptxas: "mma with FP8 floating point type
 * requires PTX ISA .version 8.4"), or at least 8.0 where a kernel copies
 * by TMA (cp.async.bulk.tensor, mbarrier expect_tx: sm_90's own 7.8 lacks
 * them), for every module alike (join_ptx keeps the first one's header). */
static int program_ptx_version(const tk_tir_program *program, const tk_target *target) {
    int version = target->ptx_version;
    for (uint32_t i = 0; i < program->kernels.len; i++) {
        if (has_fp8_mma(program->kernels.data[i]->body)) return target->ptx_version > 84 ? target->ptx_version : 84;
        if (program->kernels.data[i]->tma_maps.len && version < 80) version = 80;
    }
    return version;
}

bool tk_cg_compile(tk_arena *arena, tk_diag *diag, const tk_tir_program *program,
                   const tk_cg_options *options, tk_cg_output *out) {
    double t0 = tk_now_ms();
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    uint32_t nk = program->kernels.len;
    uint64_t *weight = TK_NEW_ARRAY(arena, uint64_t, nk + 1), total = 0;
    for (uint32_t i = 0; i < nk; i++) total += weight[i] = block_weight(program->kernels.data[i]->body);
    /* how many modules: one, unless the work is large; never with line
     * tables (each module would bring its own .file directives) */
    uint32_t modules = 1;
    if (!options->line_info && total > PARALLEL_WEIGHT && nk > 1) {
        uint64_t by_work = (total + PARALLEL_WEIGHT - 1) / PARALLEL_WEIGHT;
        modules = (uint32_t)(by_work < MAX_MODULES ? by_work : MAX_MODULES);
    }
    if (options->llvm_modules && !options->line_info) modules = options->llvm_modules < MAX_MODULES ? options->llvm_modules : MAX_MODULES;
    if (modules > nk) modules = nk ? nk : 1;
    /* kernels to modules in program order, cut where the work done so far
     * passes the next module's share, or where as many kernels are left
     * as modules (none stays empty): the joined PTX then lists the
     * kernels in program order, whatever the count (a thread that finishes
     * its module early takes the next one, so uneven cuts cost little) */
    uint32_t *module_of = TK_NEW_ARRAY(arena, uint32_t, nk + 1);
    uint64_t done = 0;
    for (uint32_t i = 0, m = 0; i < nk; i++) {
        module_of[i] = m;
        done += weight[i];
        bool share_done = done * modules >= total * (m + 1), kernels_left = nk - 1 - i <= modules - 1 - m;
        if (m + 1 < modules && (share_done || kernels_left)) m++;
    }
    llvm_job *jobs = TK_NEW_ARRAY(arena, llvm_job, modules);
    bool *only = TK_NEW_ARRAY(arena, bool, nk + 1);
    bool built = true;
    for (uint32_t m = 0; m < modules && built; m++) {
        for (uint32_t i = 0; i < nk; i++) only[i] = module_of[i] == m;
        jobs[m].ctx = LLVMContextCreate();
        jobs[m].mod = cg_build_module(arena, diag, jobs[m].ctx, program, modules > 1 ? only : NULL, options, out);
        jobs[m].options = options;
        jobs[m].index = m;
        jobs[m].ptx_version = program_ptx_version(program, options->target);
        built = jobs[m].mod != NULL;
    }
    if (built) {
        long cpus = options->threads ? (long)options->threads : sysconf(_SC_NPROCESSORS_ONLN);
        uint32_t workers = cpus > 1 ? (uint32_t)(cpus < (long)modules ? cpus : modules) : 1;
        job_pool pool = {jobs, modules, 0};
        pthread_t *threads = TK_NEW_ARRAY(arena, pthread_t, workers);
        bool *started = TK_NEW_ARRAY(arena, bool, workers);
        for (uint32_t w = 1; w < workers; w++) started[w] = pthread_create(&threads[w], NULL, pool_worker, &pool) == 0;
        pool_worker(&pool); /* this thread works too, and alone where no thread is to be had */
        for (uint32_t w = 1; w < workers; w++)
            if (started[w]) pthread_join(threads[w], NULL);
    }
    bool ok = built;
    for (uint32_t m = 0; m < modules; m++) {
        static const char ice[] = "internal compiler error: ";
        if (jobs[m].error && strncmp(jobs[m].error, ice, sizeof ice - 1) == 0)
            tk_internal_error(diag, (tk_loc){0}, "%s", jobs[m].error + sizeof ice - 1);
        else if (jobs[m].error)
            tk_error(diag, (tk_loc){0}, "%s", jobs[m].error);
        ok &= built && !jobs[m].error && jobs[m].ptx;
    }
    if (ok) {
        out->ptx = join_ptx(arena, jobs, modules);
        out->ptx_len = out->ptx ? strlen(out->ptx) : 0;
        if (options->llvm_ir) {
            out->llvm_ir = "";
            for (uint32_t m = 0; m < modules; m++)
                out->llvm_ir = tk_arena_printf(arena, "%s%s", out->llvm_ir, jobs[m].ir ? jobs[m].ir : "");
        }
    }
    for (uint32_t m = 0; m < modules; m++) {
        free(jobs[m].ptx);
        free(jobs[m].ir);
        free(jobs[m].error);
        if (jobs[m].mod) LLVMDisposeModule(jobs[m].mod);
        if (jobs[m].ctx) LLVMContextDispose(jobs[m].ctx);
    }
    /* the kernels' infos in program order (modules built them module by module) */
    for (uint32_t i = 1; i < out->kernels.len; i++)
        for (uint32_t j = i; j > 0; j--) {
            tk_cg_kernel_info *a = &out->kernels.data[j - 1], *b = &out->kernels.data[j];
            uint32_t ia = 0, ib = 0;
            while (ia < nk && program->kernels.data[ia] != a->kernel) ia++;
            while (ib < nk && program->kernels.data[ib] != b->kernel) ib++;
            if (ia <= ib) break;
            tk_cg_kernel_info t = *a;
            *a = *b;
            *b = t;
        }
    out->llvm_ms = tk_now_ms() - t0;
    if (!ok || !out->ptx || diag->error_count) return false;
    return !options->want_cubin || run_ptxas(arena, diag, options, out);
}
