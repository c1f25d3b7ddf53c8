/* tkc: the driver. Reads options, runs the pipeline stage by stage (the flat
 * list in compile_file), prints what --emit asks for, and maps the outcome
 * to an exit status: 0 success, 1 errors in the input, 2 bad usage or a
 * stage that is not built yet. All process-wide state lives here. */
#include "../lexer/lexer.h"
#include "../parser/parser.h"
#include "../sema/sema.h"
#include "../lower/lower.h"
#include "../codegen/codegen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TK_LLVM_VERSION
#define TK_LLVM_VERSION "unknown"
#endif
#define TK_VERSION "0.1.0"

enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

typedef enum emit_kind {
    EMIT_TOKENS, EMIT_AST, EMIT_SEMA, EMIT_TIR, EMIT_TIR_GPU, EMIT_LLVM, EMIT_PTX,
    EMIT_CUBIN, EMIT_HEADER, EMIT_ALL
} emit_kind;

static const char *const emit_names[] = {
    "tokens", "ast", "sema", "tir", "tir-gpu", "llvm", "ptx", "cubin", "header", "all",
};

typedef struct options {
    const char *input;
    const char *output;
    emit_kind emit;
    const char *tir_after;   /* --emit=tir-after=PASS */
    const tk_target *target;
    int opt_level;
    bool debug_info, line_info, debug, time_phases, warnings_are_errors, no_warnings, stats;
    bool no_int32_offset_warning;
    tk_sema_options sema;
    const char *tune_table;  /* --tune-table=FILE */
    bool tune_off;           /* --tune=off */
} options;

static void usage(FILE *out) {
    fputs(
        "usage: tkc [options] file.tk\n"
        "Compiles the GPU kernels of a .tk file into PTX, a cubin and a C launch header.\n"
        "\n"
        "options:\n"
        "  -o PATH            write the output to PATH (a file for --emit, a folder otherwise)\n"
        "  --emit=STAGE       print one stage: tokens, ast, sema, tir, tir-gpu, llvm, ptx, cubin, header\n"
        "  --emit=tir-after=PASS  the tile IR after one pass of the pipeline (fold, cse, dce,\n"
        "                     licm, pipeline, axis-info, layouts, shared-memory, barriers, ...)\n"
        "  --arch=SM          target: sm_80, sm_86, sm_89, sm_90, sm_90a (default sm_90a)\n"
        "  -D NAME=VALUE      set the constexpr parameter NAME of every kernel to VALUE\n"
        "                     (autotune configs that set NAME to another value are left out)\n"
        "  --kernel NAME      compile only the kernel NAME\n"
        "  -O0 -O1 -O2 -O3    optimization level (default -O3)\n"
        "  -g                 line tables for .tk source in the PTX (.loc), for debuggers\n"
        "  -lineinfo          the same line tables, for profilers\n"
        "  --debug            check device_assert and assert at run time (as -g does)\n"
        "  -Werror            treat warnings as errors\n"
        "  -w                 suppress warnings\n"
        "  -Wno-int32-offset  no warning for i32 pointer offsets that may wrap past 2^31\n"
        "  --tune-table=FILE  compile the autotuning choices in FILE (tkrt_tune_save's or\n"
        "                     TKC_TUNE_CACHE's lines) into the header's launchers\n"
        "  --tune=off         launchers never time configs: a choice compiled in for the\n"
        "                     nearest key, else the first config (default: --tune=on)\n"
        "  --time             print the milliseconds each phase took\n"
        "  --stats            print registers, spills and shared memory per kernel\n"
        "  --version          print the version and exit\n"
        "  --help             print this help and exit\n",
        out);
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...) {
    fputs("tkc: error: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(run 'tkc --help' for the options)\n", stderr);
    return EXIT_USAGE;
}

static bool is_identifier(const char *s, size_t len) {
    if (len == 0 || (s[0] >= '0' && s[0] <= '9')) return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    return true;
}

/* Returns -1 when the options are fine, else the exit status. */
static int parse_options(int argc, char **argv, options *opt, tk_arena *arena) {
    opt->emit = EMIT_ALL;
    opt->target = tk_target_default();
    opt->opt_level = 3;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_INPUT);
        } else if (strcmp(a, "--version") == 0) {
            printf("tkc %s (LLVM %s)\n", TK_VERSION, TK_LLVM_VERSION);
            exit(fflush(stdout) == 0 && !ferror(stdout) ? EXIT_OK : EXIT_INPUT);
        } else if (strcmp(a, "-o") == 0) {
            if (++i == argc) return usage_error("%s needs a path", a);
            opt->output = argv[i];
        } else if (strncmp(a, "--emit=tir-after=", 17) == 0) {
            if (!tk_tir_pass_known(a + 17, NULL))
                return usage_error("unknown pass in '%s'; the passes are %s", a, tk_tir_pass_names(arena));
            opt->emit = EMIT_TIR;
            opt->tir_after = a + 17;
        } else if (strncmp(a, "--emit=", 7) == 0) {
            size_t k = 0;
            while (k < sizeof emit_names / sizeof emit_names[0] - 1 && strcmp(a + 7, emit_names[k]) != 0)
                k++;
            if (k == sizeof emit_names / sizeof emit_names[0] - 1)
                return usage_error("unknown stage in '%s'; use tokens, ast, sema, tir, tir-gpu, llvm, "
                                   "ptx, cubin or header", a);
            opt->emit = (emit_kind)k;
            opt->tir_after = NULL;
        } else if (strncmp(a, "--arch=", 7) == 0) {
            opt->target = tk_target_find(a + 7);
            if (!opt->target) return usage_error("unsupported target in '%s'; use %s", a, tk_target_names());
        } else if (strncmp(a, "-D", 2) == 0) {
            const char *def = a[2] ? a + 2 : (++i < argc ? argv[i] : NULL);
            if (!def) return usage_error("%s needs NAME=VALUE", a);
            const char *eq = strchr(def, '=');
            if (!eq || !is_identifier(def, (size_t)(eq - def)) || !eq[1])
                return usage_error("'-D %s' is not of the form NAME=VALUE", def);
            tk_sema_define d = {tk_arena_strndup(arena, def, (size_t)(eq - def)),
                                tk_arena_strndup(arena, eq + 1, strlen(eq + 1))};
            tk_vec_push(arena, &opt->sema.defines, d);
        } else if (strcmp(a, "--kernel") == 0 || strncmp(a, "--kernel=", 9) == 0) {
            const char *name = a[8] == '=' ? a + 9 : (++i < argc ? argv[i] : NULL);
            if (!name || !*name) return usage_error("%s needs a kernel name", a);
            opt->sema.only_kernel = name;
        } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
            opt->opt_level = a[2] - '0';
        } else if (strcmp(a, "-g") == 0) {
            opt->debug_info = true;
        } else if (strcmp(a, "-lineinfo") == 0 || strcmp(a, "--lineinfo") == 0) {
            opt->line_info = true;
        } else if (strcmp(a, "-Werror") == 0) {
            opt->warnings_are_errors = true;
        } else if (strcmp(a, "-Wno-int32-offset") == 0) {
            opt->no_int32_offset_warning = true;
        } else if (strcmp(a, "-Wint32-offset") == 0) {
            opt->no_int32_offset_warning = false;
        } else if (strcmp(a, "-w") == 0) {
            opt->no_warnings = true;
        } else if (strcmp(a, "--debug") == 0) {
            opt->debug = true;
        } else if (strcmp(a, "--stats") == 0) {
            opt->stats = true;
        } else if (strcmp(a, "--tune-table") == 0 || strncmp(a, "--tune-table=", 13) == 0) {
            const char *file = a[12] == '=' ? a + 13 : (++i < argc ? argv[i] : NULL);
            if (!file || !*file) return usage_error("%s needs a file", a);
            opt->tune_table = file;
        } else if (strcmp(a, "--tune=on") == 0 || strcmp(a, "--tune=off") == 0) {
            opt->tune_off = a[8] == 'f';
        } else if (strncmp(a, "--tune=", 7) == 0) {
            return usage_error("'%s': use --tune=on or --tune=off", a);
        } else if (strcmp(a, "--time") == 0) {
            opt->time_phases = true;
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else if (opt->input) {
            return usage_error("one input file at a time; '%s' is a second one", a);
        } else {
            opt->input = a;
        }
    }
    if (!opt->input) return usage_error("%s", "no input file");
    return -1;
}

static bool use_color(void) {
    const char *no_color = getenv("NO_COLOR");
    if (no_color && *no_color) return false;
    return isatty(fileno(stderr));
}

typedef struct phase_times {
    double read, lex, parse, sema, lower;
} phase_times;

static void print_times(const phase_times *t) {
    fprintf(stderr,
            "tkc: time: read %.3f ms, lex %.3f ms, parse %.3f ms, sema %.3f ms; front end %.3f ms",
            t->read, t->lex, t->parse, t->sema, t->lex + t->parse + t->sema);
    if (t->lower > 0) fprintf(stderr, "; lower %.3f ms", t->lower);
    fputc('\n', stderr);
}

static FILE *open_output(const options *opt) {
    if (!opt->output || strcmp(opt->output, "-") == 0) return stdout;
    FILE *f = fopen(opt->output, "w");
    if (!f) fprintf(stderr, "tkc: error: cannot write '%s': %s\n", opt->output, strerror(errno));
    return f;
}

/* A write that failed while stdio flushed its buffer leaves only the
 * stream's error flag: fclose can still succeed. Both count. */
static int finish_output(FILE *out, const options *opt) {
    bool failed = fflush(out) != 0 || ferror(out);
    int saved = errno;
    if (out != stdout && fclose(out) != 0) failed = true;
    else if (out != stdout) errno = saved;
    if (failed) {
        fprintf(stderr, "tkc: error: cannot write '%s': %s\n", out == stdout ? "standard output" : opt->output,
                strerror(errno ? errno : EIO));
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

static bool write_file(const char *path, const unsigned char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f && (fflush(f) != 0 || ferror(f))) ok = false;
    /* fclose always releases f, even when its flush fails */
    if (f && fclose(f) != 0) ok = false;
    if (!ok) fprintf(stderr, "tkc: error: cannot write '%s': %s\n", path, strerror(errno));
    return ok;
}

/* the .tk file's base name, as a C identifier (the header's prefix) */
static const char *module_name(tk_arena *arena, const char *input) {
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t len = strlen(base);
    if (len > 3 && strcmp(base + len - 3, ".tk") == 0) len -= 3;
    char *name = tk_arena_strndup(arena, base, len);
    for (char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
    if (name[0] >= '0' && name[0] <= '9') name = tk_arena_printf(arena, "k_%s", name);
    return name;
}

static void print_stats(const tk_cg_output *c) {
    for (uint32_t i = 0; i < c->kernels.len; i++) {
        const tk_cg_kernel_info *k = &c->kernels.data[i];
        fprintf(stderr, "tkc: stats: %s: %d registers, %d bytes spilled, %d bytes shared memory\n",
                k->entry, k->registers, k->spill_bytes, k->shared_bytes);
    }
    fprintf(stderr, "tkc: stats: compile %.3f ms to PTX, %.3f ms ptxas\n", c->llvm_ms, c->ptxas_ms);
}

/* The pipeline, one stage after another; each may stop it with errors. */
static int compile_file(const options *opt, tk_arena *arena, tk_diag *diag) {
    phase_times times = {0};
    double t0 = tk_now_ms();
    tk_source *src = tk_source_read(arena, opt->input);
    if (!src) {
        fprintf(stderr, "tkc: error: cannot read '%s': %s\n", opt->input, strerror(errno));
        return EXIT_INPUT;
    }
    tk_interner names;
    tk_interner_init(&names, arena);
    double t1 = tk_now_ms();
    times.read = t1 - t0;

    tk_token_list tokens = tk_lex_source(arena, &names, diag, src);
    double t2 = tk_now_ms();
    times.lex = t2 - t1;
    if (opt->emit == EMIT_TOKENS) {
        if (diag->error_count) return EXIT_INPUT;
        FILE *out = open_output(opt);
        if (!out) return EXIT_INPUT;
        tk_lex_print(out, &tokens);
        if (opt->time_phases) print_times(&times);
        return finish_output(out, opt);
    }

    tk_module *module = tk_parse_tokens(arena, &names, diag, src, &tokens);
    double t3 = tk_now_ms();
    times.parse = t3 - t2;
    if (diag->error_count) return EXIT_INPUT;
    if (opt->emit == EMIT_AST) {
        FILE *out = open_output(opt);
        if (!out) return EXIT_INPUT;
        tk_ast_print(out, module);
        if (opt->time_phases) print_times(&times);
        return finish_output(out, opt);
    }

    tk_sema_program *program = tk_sema_check(arena, &names, diag, module, &opt->sema);
    double t4 = tk_now_ms();
    times.sema = t4 - t3;
    if (diag->error_count || opt->emit == EMIT_SEMA) {
        if (opt->time_phases) print_times(&times);
        if (diag->error_count) return EXIT_INPUT;
        FILE *out = open_output(opt);
        if (!out) return EXIT_INPUT;
        tk_sema_print(out, program);
        return finish_output(out, opt);
    }

    tk_tir_program *tir = tk_tir_lower(arena, diag, program);
    bool gpu = opt->emit != EMIT_TIR;
    if (opt->tir_after) tk_tir_pass_known(opt->tir_after, &gpu);
    tk_tir_options tir_opts = {gpu, !opt->no_int32_offset_warning, opt->target, opt->tir_after};
    if (!diag->error_count) tk_tir_run_passes(arena, diag, tir, &tir_opts);
    times.lower = tk_now_ms() - t4;
    if (diag->error_count) {
        if (opt->time_phases) print_times(&times);
        return EXIT_INPUT;
    }
    if (opt->emit == EMIT_TIR || opt->emit == EMIT_TIR_GPU) {
        if (opt->time_phases) print_times(&times);
        FILE *out = open_output(opt);
        if (!out) return EXIT_INPUT;
        tk_tir_print(out, tir, gpu);
        return finish_output(out, opt);
    }

    tk_cg_header_options header = {NULL, opt->tune_table, opt->tune_off};
    if (opt->tune_table) {
        tk_source *table = tk_source_read(arena, opt->tune_table);
        if (!table) {
            fprintf(stderr, "tkc: error: cannot read '%s': %s\n", opt->tune_table, strerror(errno));
            return EXIT_INPUT;
        }
        header.tune_table = table->text;
    }
    tk_cg_options cg = {opt->target, opt->opt_level, opt->line_info || opt->debug_info,
                        opt->debug || opt->debug_info, getenv("CUDA_HOME"),
                        opt->emit == EMIT_ALL || opt->emit == EMIT_CUBIN || opt->emit == EMIT_HEADER || opt->stats,
                        opt->stats, opt->emit == EMIT_LLVM, 0};
    tk_cg_output compiled = {0};
    bool ok = tk_cg_compile(arena, diag, tir, &cg, &compiled);
    if (opt->time_phases) {
        print_times(&times);
        fprintf(stderr, "tkc: time: llvm+ptx %.3f ms, ptxas %.3f ms\n", compiled.llvm_ms, compiled.ptxas_ms);
    }
    if (!ok) return EXIT_INPUT;
    if (opt->stats) print_stats(&compiled);
    const char *mod_name = module_name(arena, opt->input);
    if (opt->emit == EMIT_LLVM || opt->emit == EMIT_PTX || opt->emit == EMIT_HEADER) {
        FILE *out = open_output(opt);
        if (!out) return EXIT_INPUT;
        if (opt->emit == EMIT_LLVM) fputs(compiled.llvm_ir, out);
        else if (opt->emit == EMIT_PTX) fwrite(compiled.ptx, 1, compiled.ptx_len, out);
        else if (!tk_cg_write_header(out, diag, tir, &compiled, mod_name, opt->target, &header)) {
            finish_output(out, opt);
            return EXIT_INPUT;
        }
        return finish_output(out, opt);
    }
    if (!compiled.cubin && (opt->emit == EMIT_CUBIN)) {
        fprintf(stderr, "tkc: no cubin: %s\n", compiled.cubin_note ? compiled.cubin_note : "?");
        return EXIT_INPUT;
    }
    if (opt->emit == EMIT_CUBIN) {
        if (!opt->output || strcmp(opt->output, "-") == 0) {
            fprintf(stderr, "tkc: --emit=cubin writes binary: give -o FILE\n");
            return EXIT_USAGE;
        }
        return write_file(opt->output, compiled.cubin, compiled.cubin_len) ? EXIT_OK : EXIT_INPUT;
    }
    /* everything: DIR/NAME.ptx, NAME.cubin, NAME.h */
    const char *dir = opt->output ? opt->output : ".";
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tkc: error: cannot make folder '%s': %s\n", dir, strerror(errno));
        return EXIT_INPUT;
    }
    char *path = tk_arena_printf(arena, "%s/%s.ptx", dir, mod_name);
    if (!write_file(path, (const unsigned char *)compiled.ptx, compiled.ptx_len)) return EXIT_INPUT;
    if (compiled.cubin) {
        path = tk_arena_printf(arena, "%s/%s.cubin", dir, mod_name);
        if (!write_file(path, compiled.cubin, compiled.cubin_len)) return EXIT_INPUT;
    } else {
        /* a cubin from an earlier build would not match this header */
        path = tk_arena_printf(arena, "%s/%s.cubin", dir, mod_name);
        if (unlink(path) != 0 && errno != ENOENT) {
            fprintf(stderr, "tkc: error: cannot remove the stale '%s': %s\n", path, strerror(errno));
            return EXIT_INPUT;
        }
        fprintf(stderr, "tkc: note: %s\n", compiled.cubin_note ? compiled.cubin_note : "no cubin");
    }
    path = tk_arena_printf(arena, "%s/%s.h", dir, mod_name);
    FILE *h = fopen(path, "w");
    if (!h) {
        fprintf(stderr, "tkc: error: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    bool written = tk_cg_write_header(h, diag, tir, &compiled, mod_name, opt->target, &header);
    bool flushed = fflush(h) == 0 && !ferror(h);
    if (fclose(h) != 0 || !flushed) {
        fprintf(stderr, "tkc: error: cannot write '%s': %s\n", path, strerror(errno));
        written = false;
    }
    if (!written) {
        remove(path);
        return EXIT_INPUT;
    }
    return EXIT_OK;
}

int main(int argc, char **argv) {
    tk_arena arena = {0};
    options opt = {0};
    int status = parse_options(argc, argv, &opt, &arena);
    if (status < 0) {
        tk_cg_init_process();
        tk_diag diag;
        tk_diag_init(&diag, stderr, use_color());
        diag.warnings_are_errors = opt.warnings_are_errors;
        diag.suppress_warnings = opt.no_warnings;
        status = compile_file(&opt, &arena, &diag);
        tk_diag_flush(&diag);
        if (diag.error_count && status == EXIT_OK) status = EXIT_INPUT;
    }
    tk_arena_free(&arena);
    return status;
}
