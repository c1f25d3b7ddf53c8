/* tkc: the driver. Reads the options (options.c), runs the pipeline stage
 * by stage once an input (the flat list in compile_input), writes what
 * --emit asks for or the full build's header, cubin and PTX (files.c makes
 * them atomically), and the depfile; maps the outcome to an exit status:
 * 0 success, 1 errors in the input, 2 bad usage, 3 an internal compiler
 * error. All process-wide state lives in cli/. */
#include "cli.h"

#include "../codegen/codegen.h"
#include "../lexer/lexer.h"
#include "../lower/lower.h"
#include "../parser/parser.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* target: named when there are several */
static void print_stats(const tk_cg_output *c, const char *target) {
    for (uint32_t i = 0; i < c->kernels.len; i++) {
        const tk_cg_kernel_info *k = &c->kernels.data[i];
        tk_tir_conversion_counts n = tk_tir_count_conversions(k->kernel);
        fprintf(stderr, "tkc: stats: %s%s%s: %d registers, %d bytes spilled, %d bytes shared memory; "
                "%u conversions through shared memory (%u inside loops), %u by shuffles (%u), %u in registers (%u)\n",
                target ? target : "", target ? ": " : "", k->entry, k->registers, k->spill_bytes, k->shared_bytes,
                n.total[TK_CONVERT_SHARED], n.in_loops[TK_CONVERT_SHARED], n.total[TK_CONVERT_SHUFFLES],
                n.in_loops[TK_CONVERT_SHUFFLES], n.total[TK_CONVERT_REGISTERS], n.in_loops[TK_CONVERT_REGISTERS]);
    }
    fprintf(stderr, "tkc: stats: %s%scompile %.3f ms to PTX, %.3f ms ptxas\n", target ? target : "",
            target ? ": " : "", c->llvm_ms, c->ptxas_ms);
}

/* A path's last component without its extension, as a C identifier (the
 * header's module name). */
static const char *identifier_of(tk_arena *arena, const char *path, const char *ext) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base), ext_len = strlen(ext);
    if (len > ext_len && strcmp(base + len - ext_len, ext) == 0) len -= ext_len;
    char *name = tk_arena_strndup(arena, base, len);
    for (char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
    if (!*name || (name[0] >= '0' && name[0] <= '9')) name = tk_arena_printf(arena, "k_%s", name);
    return name;
}

/* path without a trailing ".EXT" (any extension after the last '/') */
static const char *without_extension(tk_arena *arena, const char *path) {
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path)) return path;
    return tk_arena_strndup(arena, path, (size_t)(dot - path));
}

/* The toolkit: CUDA_HOME, else the one whose ptxas is on PATH, else
 * /usr/local/cuda. */
static const char *find_cuda_home(tk_arena *arena) {
    const char *home = getenv("CUDA_HOME");
    if (home && *home) return home;
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        char *ptxas = tk_arena_printf(arena, "%.*s/ptxas", (int)len, len ? path : ".");
        char real[PATH_MAX];
        if (access(ptxas, X_OK) == 0 && realpath(ptxas, real)) {
            char *bin = strrchr(real, '/');
            if (bin) *bin = '\0';              /* .../bin */
            char *parent = strrchr(real, '/');
            if (parent) {
                *parent = '\0';                /* the toolkit */
                return tk_arena_strndup(arena, *real ? real : "/", strlen(*real ? real : "/"));
            }
        }
        path = colon ? colon + 1 : NULL;
    }
    return "/usr/local/cuda";
}

/* ptxas runs for what embeds a cubin, and for --stats (its report) */
static bool wants_cubin(const cli_options *opt) {
    return opt->emit == CLI_EMIT_ALL || opt->emit == CLI_EMIT_CUBIN || opt->emit == CLI_EMIT_HEADER || opt->stats;
}

/* One input's compilation: what it read (for the depfile), its status. */
typedef struct input_run {
    cli_paths deps;
    int status;
} input_run;

typedef struct driver {
    const cli_options *opt;
    const char *cuda_home, *tmp_dir;
    cli_output *text;          /* --emit's output, shared by the inputs */
} driver;

/* Where a full build of `input` goes: the header's path, and the path the
 * cubin and PTX take with their extensions. */
static void full_build_paths(const driver *d, tk_arena *arena, const char *input, const char *mod_name,
                             const char **header, const char **stem) {
    const char *out = d->opt->output;
    if (!out || out[strlen(out) - 1] == '/' || cli_is_folder(out)) {
        size_t len = out ? strlen(out) : 0;
        while (len > 1 && out[len - 1] == '/') len--;
        const char *name = strcmp(input, "-") == 0 ? mod_name : identifier_of(arena, input, ".tk");
        *stem = out ? tk_arena_printf(arena, "%.*s/%s", (int)len, out, name) : name;
        if (out && len == 1 && out[0] == '/') *stem = tk_arena_printf(arena, "/%s", name);
        *header = tk_arena_printf(arena, "%s.h", *stem);
    } else {
        *header = out;
        *stem = without_extension(arena, out);
    }
}

/* The header last, so that it is the newest of the files. One target's
 * cubin is STEM.cubin; several are STEM.SM.cubin; the PTX is the newest
 * target's. */
static bool write_full_build(tk_arena *arena, tk_diag *diag, const tk_cg_build *builds,
                             uint32_t nbuilds, const char *mod_name, const char *header_path, const char *stem,
                             const tk_cg_header_options *header, bool python) {
    enum { MAX_FILES = 16 };
    cli_output files[MAX_FILES];
    uint32_t nfiles = 0;
    bool ok = true;
    const tk_cg_output *newest = builds[nbuilds - 1].compiled;
    memset(files, 0, sizeof files);
    ok = cli_output_open(&files[nfiles], arena, tk_arena_printf(arena, "%s.ptx", stem));
    if (ok) fwrite(newest->ptx, 1, newest->ptx_len, files[nfiles++].f);
    for (uint32_t b = 0; b < nbuilds && ok && nfiles + 1 < MAX_FILES; b++) {
        const tk_cg_output *c = builds[b].compiled;
        if (!c->cubin) continue;
        const char *path = nbuilds == 1 ? tk_arena_printf(arena, "%s.cubin", stem)
                                        : tk_arena_printf(arena, "%s.%s.cubin", stem, builds[b].target->name);
        ok = cli_output_open(&files[nfiles], arena, path);
        if (ok) fwrite(c->cubin, 1, c->cubin_len, files[nfiles++].f);
    }
    if (ok && python) {
        /* STEM.py, and the library's source STEM_tkpy.c beside the header it includes */
        const char *slash = strrchr(stem, '/'), *header_slash = strrchr(header_path, '/');
        const char *base = slash ? slash + 1 : stem;
        tk_cg_python_options py = {header, header_slash ? header_slash + 1 : header_path,
                                   tk_arena_printf(arena, "%s_tkpy.so", base), base};
        ok = cli_output_open(&files[nfiles], arena, tk_arena_printf(arena, "%s.py", stem)) &&
             cli_output_open(&files[nfiles + 1], arena, tk_arena_printf(arena, "%s_tkpy.c", stem));
        if (ok) ok = tk_cg_write_python(files[nfiles].f, files[nfiles + 1].f, diag, builds, nbuilds, mod_name, &py);
        nfiles += files[nfiles + 1].f ? 2 : files[nfiles].f ? 1 : 0;
    }
    if (ok) ok = cli_output_open(&files[nfiles], arena, header_path);
    if (ok && !tk_cg_write_header(files[nfiles++].f, diag, builds, nbuilds, mod_name, header)) ok = false;
    for (uint32_t f = 0; f < nfiles; f++) {
        if (ok) ok = cli_output_commit(&files[f]);
        else cli_output_abandon(&files[f]);
    }
    if (!ok) return false;
    /* a cubin from an earlier build would not match this header */
    for (uint32_t b = 0; b < nbuilds; b++) {
        if (builds[b].compiled->cubin) continue;
        const char *cubin_path = nbuilds == 1 ? tk_arena_printf(arena, "%s.cubin", stem)
                                              : tk_arena_printf(arena, "%s.%s.cubin", stem, builds[b].target->name);
        if (unlink(cubin_path) != 0 && errno != ENOENT) {
            fprintf(stderr, "tkc: error: cannot remove the stale '%s': %s\n", cubin_path, strerror(errno));
            return false;
        }
    }
    for (uint32_t b = 0; b < nbuilds; b++)
        if (!builds[b].compiled->cubin) {
            fprintf(stderr, "tkc: note: %s\n", builds[b].compiled->cubin_note ? builds[b].compiled->cubin_note
                                                                              : "no cubin");
            break;
        }
    return true;
}

static const char *depfile_for(const driver *d, tk_arena *arena, const char *main_output, const char *input) {
    if (d->opt->depfile_path) return d->opt->depfile_path;
    if (main_output && strcmp(main_output, "-") != 0)
        return tk_arena_printf(arena, "%s.d", without_extension(arena, main_output));
    return tk_arena_printf(arena, "%s.d", identifier_of(arena, input, ".tk"));
}

static bool write_depfile(const driver *d, tk_arena *arena, const char *main_output, const char *depfile,
                          const input_run *run, uint32_t ninputs) {
    const cli_options *opt = d->opt;
    const char *const *targets = opt->dep_targets.len ? opt->dep_targets.data : &main_output;
    uint32_t ntargets = opt->dep_targets.len ? opt->dep_targets.len : 1;
    return cli_write_depfile(arena, opt, depfile, targets, ntargets, run->deps.data, run->deps.len, ninputs);
}

/* The pipeline, one stage after another; each may stop it with errors. */
static int compile_input(const driver *d, const char *input, tk_arena *arena, tk_diag *diag, input_run *run) {
    const cli_options *opt = d->opt;
    phase_times times = {0};
    double t0 = tk_now_ms();
    bool from_stdin = strcmp(input, "-") == 0;
    tk_source *src = from_stdin ? cli_read_stdin(arena) : tk_source_read(arena, input);
    if (!src) {
        fprintf(stderr, "tkc: error: cannot read '%s': %s\n", from_stdin ? "standard input" : input,
                strerror(errno));
        return CLI_EXIT_INPUT;
    }
    if (!from_stdin) tk_vec_push(arena, &run->deps, input);
    tk_interner names;
    tk_interner_init(&names, arena);
    double t1 = tk_now_ms();
    times.read = t1 - t0;

    tk_token_list tokens = tk_lex_source(arena, &names, diag, src);
    double t2 = tk_now_ms();
    times.lex = t2 - t1;
    if (opt->emit == CLI_EMIT_TOKENS) {
        if (diag->error_count) return CLI_EXIT_INPUT;
        tk_lex_print(d->text->f, &tokens);
        if (opt->time_phases) print_times(&times);
        return CLI_EXIT_OK;
    }

    tk_module *module = tk_parse_tokens(arena, &names, diag, src, &tokens);
    double t3 = tk_now_ms();
    times.parse = t3 - t2;
    if (diag->error_count) return CLI_EXIT_INPUT;
    if (opt->emit == CLI_EMIT_AST) {
        tk_ast_print(d->text->f, module);
        if (opt->time_phases) print_times(&times);
        return CLI_EXIT_OK;
    }

    tk_sema_options sema = opt->sema;
    cli_paths imported = {0};
    cli_load_imports(arena, &names, diag, opt, module, input, &sema, &imported);
    for (uint32_t i = 0; i < imported.len; i++) tk_vec_push(arena, &run->deps, imported.data[i]);
    if (diag->error_count) return CLI_EXIT_INPUT;
    tk_sema_program *program = tk_sema_check(arena, &names, diag, module, &sema);
    double t4 = tk_now_ms();
    times.sema = t4 - t3;
    if (diag->error_count || opt->emit == CLI_EMIT_SEMA) {
        if (opt->time_phases) print_times(&times);
        if (diag->error_count) return CLI_EXIT_INPUT;
        tk_sema_print(d->text->f, program);
        /* the versions lowering will build (--specializations); where lowering refuses
           something, the later stages say so and the listing is left out */
        tk_diag quiet;
        tk_diag_init(&quiet, stderr, false);
        quiet.suppress_warnings = true;
        tk_tir_program *versions = tk_tir_lower(arena, &quiet, program,
                                                opt->specializations ? opt->specializations : TK_TIR_DEFAULT_SPECIALIZATIONS);
        if (!quiet.error_count) tk_tir_print_versions(d->text->f, versions);
        tk_diag_discard(&quiet);
        return CLI_EXIT_OK;
    }

    /* the back end once a target: lowering and its passes depend on it */
    uint32_t ntargets = opt->targets.len;
    tk_cg_build *builds = TK_NEW_ARRAY(arena, tk_cg_build, ntargets);
    tk_tir_program **programs = TK_NEW_ARRAY(arena, tk_tir_program *, ntargets);
    bool gpu = opt->emit != CLI_EMIT_TIR;
    if (opt->tir_after) tk_tir_pass_known(opt->tir_after, &gpu);
    for (uint32_t t = 0; t < ntargets && !diag->error_count; t++) {
        tk_tir_program *tir = tk_tir_lower(arena, diag, program,
                                           opt->specializations ? opt->specializations : TK_TIR_DEFAULT_SPECIALIZATIONS);
        tk_tir_options tir_opts = {gpu, opt->targets.data[t], opt->tir_after};
        if (!diag->error_count) tk_tir_run_passes(arena, diag, tir, &tir_opts);
        builds[t].target = opt->targets.data[t];
        builds[t].program = programs[t] = tir;
    }
    if (!diag->error_count && gpu && !opt->tir_after)
    {
        tk_tir_leave_out_unfit_configs(arena, diag, programs, (const tk_target *const *)opt->targets.data, ntargets);
        tk_tir_leave_out_unsupported_instances(arena, diag, programs, (const tk_target *const *)opt->targets.data,
                                               ntargets);
    }
    times.lower = tk_now_ms() - t4;
    if (diag->error_count) {
        if (opt->time_phases) print_times(&times);
        return CLI_EXIT_INPUT;
    }
    if (opt->emit == CLI_EMIT_TIR || opt->emit == CLI_EMIT_TIR_GPU) {
        if (opt->time_phases) print_times(&times);
        tk_tir_print(d->text->f, builds[0].program, gpu);
        return CLI_EXIT_OK;
    }

    char *defines = tk_arena_printf(arena, "%s", "");
    for (uint32_t i = 0; i < opt->sema.defines.len; i++)
        defines = tk_arena_printf(arena, "%s%s%s=%s", defines, i ? " " : "", opt->sema.defines.data[i].name,
                                  opt->sema.defines.data[i].value);
    /* --prefix, else the file's __prefix__ */
    tk_cg_header_options header = {NULL, opt->tune_table, opt->tune_off, opt->prefix ? opt->prefix : program->prefix,
                                   CLI_VERSION, defines};
    if (opt->tune_table) {
        tk_source *table = tk_source_read(arena, opt->tune_table);
        if (!table) {
            fprintf(stderr, "tkc: error: cannot read '%s': %s\n", opt->tune_table, strerror(errno));
            return CLI_EXIT_INPUT;
        }
        header.tune_table = table->text;
        tk_vec_push(arena, &run->deps, opt->tune_table);
    }
    tk_cg_output *outputs = TK_NEW_ARRAY(arena, tk_cg_output, ntargets);
    bool ok = true;
    if (opt->time_phases) print_times(&times);
    for (uint32_t t = 0; t < ntargets; t++) {
        tk_cg_options cg = {opt->targets.data[t], opt->opt_level, opt->line_info || opt->debug_info,
                            opt->debug || opt->debug_info, d->cuda_home, d->tmp_dir, &opt->path_maps,
                            wants_cubin(opt), opt->stats, opt->emit == CLI_EMIT_LLVM, 0, !opt->no_fp_contract};
        ok &= tk_cg_compile(arena, diag, builds[t].program, &cg, &outputs[t]);
        builds[t].compiled = &outputs[t];
        if (opt->time_phases)
            fprintf(stderr, "tkc: time: %s: llvm+ptx %.3f ms, ptxas %.3f ms\n", opt->targets.data[t]->name,
                    outputs[t].llvm_ms, outputs[t].ptxas_ms);
        if (ok && opt->stats) print_stats(&outputs[t], ntargets > 1 ? opt->targets.data[t]->name : NULL);
    }
    if (!ok) return CLI_EXIT_INPUT;
    tk_cg_output compiled = outputs[0];
    const char *header_path = NULL, *stem = NULL;
    const char *mod_name = from_stdin ? "stdin" : identifier_of(arena, input, ".tk");
    if (opt->emit == CLI_EMIT_ALL) {
        if (from_stdin && opt->output && !(opt->output[strlen(opt->output) - 1] == '/' || cli_is_folder(opt->output)))
            mod_name = identifier_of(arena, opt->output, ".h");
        full_build_paths(d, arena, input, mod_name, &header_path, &stem);
    }
    switch (opt->emit) {
    case CLI_EMIT_LLVM: fputs(compiled.llvm_ir, d->text->f); return CLI_EXIT_OK;
    case CLI_EMIT_PTX: fwrite(compiled.ptx, 1, compiled.ptx_len, d->text->f); return CLI_EXIT_OK;
    case CLI_EMIT_HEADER:
        return tk_cg_write_header(d->text->f, diag, builds, ntargets, mod_name, &header) ? CLI_EXIT_OK
                                                                                          : CLI_EXIT_INPUT;
    case CLI_EMIT_CUBIN:
        if (!compiled.cubin) {
            fprintf(stderr, "tkc: error: no cubin: %s\n", compiled.cubin_note ? compiled.cubin_note : "?");
            return CLI_EXIT_INPUT;
        }
        fwrite(compiled.cubin, 1, compiled.cubin_len, d->text->f);
        return CLI_EXIT_OK;
    default: break;
    }
    if (!write_full_build(arena, diag, builds, ntargets, mod_name, header_path, stem, &header, opt->python))
        return CLI_EXIT_INPUT;
    if (opt->shared && !cli_build_python_library(arena, tk_arena_printf(arena, "%s_tkpy.c", stem),
                                                 tk_arena_printf(arena, "%s_tkpy.so", stem)))
        return CLI_EXIT_INPUT;
    if (opt->depfile &&
        !write_depfile(d, arena, header_path, depfile_for(d, arena, header_path, input), run, run->deps.len ? 1 : 0))
        return CLI_EXIT_INPUT;
    return CLI_EXIT_OK;
}

static int worse(int a, int b) {
    /* internal errors outrank errors in the input, which outrank success */
    if (a == CLI_EXIT_INTERNAL || b == CLI_EXIT_INTERNAL) return CLI_EXIT_INTERNAL;
    return a > b ? a : b;
}

int main(int argc, char **argv) {
    tk_arena arena = {0};
    cli_options opt = {0};
    int status = cli_parse_options(argc, argv, &opt, &arena);
    if (status >= 0) {
        tk_arena_free(&arena);
        return status;
    }
    cli_install_signal_handlers();
    tk_cg_init_process();
    driver d = {&opt, find_cuda_home(&arena), NULL, NULL};
    if (wants_cubin(&opt) && !(d.tmp_dir = cli_make_temp_folder(&arena))) {
        tk_arena_free(&arena);
        return CLI_EXIT_INPUT;
    }
    cli_output text;
    bool emit_one_file = opt.emit != CLI_EMIT_ALL;
    if (emit_one_file && !cli_output_open(&text, &arena, opt.output)) {
        cli_remove_temp_folder(d.tmp_dir);
        tk_arena_free(&arena);
        return CLI_EXIT_INPUT;
    }
    d.text = &text;
    input_run all = {0};  /* every input's dependencies, for --emit's one depfile */
    TK_VEC(const char *) others = {0};
    status = CLI_EXIT_OK;
    for (uint32_t i = 0; i < opt.inputs.len; i++) {
        tk_arena work = {0};
        tk_diag diag;
        tk_diag_init(&diag, stderr, use_color());
        diag.warnings_are_errors = opt.warnings_are_errors;
        diag.suppress_warnings = opt.no_warnings;
        memcpy(diag.warning_state, opt.warning_state, sizeof diag.warning_state);
        input_run run = {0};
        int one = compile_input(&d, opt.inputs.data[i], &work, &diag, &run);
        if (text.f == stdout) fflush(stdout); /* an input's output, then what was said of it */
        tk_diag_flush(&diag);
        if (diag.error_count && one == CLI_EXIT_OK) one = CLI_EXIT_INPUT;
        if (diag.internal_error_count) one = CLI_EXIT_INTERNAL;
        status = worse(status, one);
        /* the inputs first, then what they read (once each) */
        for (uint32_t k = 0; k < run.deps.len; k++) {
            bool seen = false;
            for (uint32_t j = 0; j < others.len && !seen; j++) seen = strcmp(others.data[j], run.deps.data[k]) == 0;
            if (seen || strcmp(run.deps.data[k], opt.inputs.data[i]) == 0) continue;
            tk_vec_push(&arena, &others, tk_arena_strndup(&arena, run.deps.data[k], strlen(run.deps.data[k])));
        }
        tk_arena_free(&work);
    }
    for (uint32_t i = 0; i < opt.inputs.len; i++)
        if (strcmp(opt.inputs.data[i], "-") != 0) tk_vec_push(&arena, &all.deps, opt.inputs.data[i]);
    uint32_t ninputs = all.deps.len;
    for (uint32_t k = 0; k < others.len; k++) tk_vec_push(&arena, &all.deps, others.data[k]);
    if (emit_one_file) {
        if (status != CLI_EXIT_OK) cli_output_abandon(&text);
        else if (!cli_output_commit(&text)) status = CLI_EXIT_INPUT;
    }
    if (emit_one_file && status == CLI_EXIT_OK && opt.depfile) {
        const char *first = opt.inputs.data[0];
        if (!write_depfile(&d, &arena, opt.output, depfile_for(&d, &arena, opt.output, first), &all, ninputs))
            status = CLI_EXIT_INPUT;
    }
    cli_remove_temp_folder(d.tmp_dir);
    tk_arena_free(&arena);
    return status;
}
