/* The command line, with gcc's and nvcc's habits: an option's value may be
 * attached (`--arch=sm_80`, `-DN=4`, `-obuild/x.h`) or the next argument
 * (`--arch sm_80`, `-D N=4`, `-o build/x.h`); nvcc's -arch and
 * --gpu-architecture; gcc's -W options for tkc's warnings; -MD/-MF/-MT/-MP
 * depfiles. Needs: nothing but argv. Guarantees: a usage error prints one
 * line and the --help hint, and returns CLI_EXIT_USAGE. */
#include "cli.h"

#include "../lower/lower.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef TK_LLVM_VERSION
#define TK_LLVM_VERSION "unknown"
#endif

static const char *const emit_names[] = {
    "tokens", "ast", "sema", "tir", "tir-gpu", "llvm", "ptx", "cubin", "header", "all",
};

static void usage(FILE *out) {
    fputs(
        "usage: tkc [options] file.tk...\n"
        "Compiles the GPU kernels of .tk files into PTX, a cubin and a C launch header.\n"
        "An input '-' is standard input. Options take their value as --opt=VALUE or --opt VALUE.\n"
        "\n"
        "output:\n"
        "  -o PATH            with --emit, the file (several inputs: one after another);\n"
        "                     otherwise DIR/ (or an existing folder) for DIR/NAME.{h,cubin,ptx},\n"
        "                     or the header's path, the cubin and PTX beside it; folders are\n"
        "                     made as needed, and files replaced only when the run succeeds\n"
        "  --emit=STAGE       write one stage: tokens, ast, sema, tir, tir-gpu, llvm, ptx, cubin, header\n"
        "  --emit=tir-after=PASS  the tile IR after one pass of the pipeline (fold, cse, dce,\n"
        "                     licm, pipeline, axis-info, layouts, shared-memory, barriers, ...)\n"
        "  --prefix=NAME      name the header's launchers NAME_KERNEL and its other symbols\n"
        "                     tk_NAME__..., so that two builds of one .tk file live in one program\n"
        "                     (default: the file's __prefix__ = \"NAME\", if it has one)\n"
        "  --python           with the header, write NAME.py (a Python module with a function per\n"
        "                     kernel, for torch tensors) and NAME_tkpy.c (the C source of the\n"
        "                     library it loads, NAME_tkpy.so)\n"
        "  --shared           with --python, build NAME_tkpy.so too, with the C compiler $CC\n"
        "                     (default cc) and the runtime installed beside tkc\n"
        "  -MD                write a depfile beside the output (NAME.d), as gcc -MD does\n"
        "  -MF FILE           write the depfile to FILE (implies -MD)\n"
        "  -MT TARGET         the depfile's target (may be given several times; default the output)\n"
        "  -MP                add a phony target for each dependency\n"
        "\n"
        "code:\n"
        "  --arch=SM          target: sm_80, sm_86, sm_89, sm_90, sm_90a (default sm_90a);\n"
        "                     also -arch SM and --gpu-architecture SM, as nvcc takes them;\n"
        "                     a list (--arch=sm_80,sm_90a) or all: one header with a cubin per\n"
        "                     target and the newest one's PTX, the runtime picks by the GPU\n"
        "  -D NAME=VALUE      set the constexpr parameter NAME of every kernel to VALUE\n"
        "                     (autotune configs that set NAME to another value are left out)\n"
        "  --kernel NAME      compile only the kernel NAME (or its dtype instance NAME_bf16)\n"
        "  -I DIR             look for imported modules (import NAME: NAME.tk) in DIR too,\n"
        "                     after the importing file's folder\n"
        "  -O0 -O1 -O2 -O3    optimization level (default -O3)\n"
        "  -g                 line tables for .tk source in the PTX (.loc), for debuggers\n"
        "  -lineinfo          the same line tables, for profilers\n"
        "  -ffile-prefix-map=OLD=NEW  write paths under OLD as NEW in line tables and assertion\n"
        "                     messages (also -fdebug-prefix-map), for identical outputs anywhere\n"
        "  -ffp-contract=fast|off  fast (default, as Triton's enable_fp_fusion): a float\n"
        "                     a * b + c may become one fma (rounded once); off: never\n"
        "  --debug            check device_assert and assert at run time (as -g does)\n"
        "  --tune-table=FILE  compile the autotuning choices in FILE (tkrt_tune_save's or\n"
        "                     TKC_TUNE_CACHE's lines) into the header's launchers\n"
        "  --tune=off         launchers never time configs: a choice compiled in for the\n"
        "                     nearest key, else the first config (default: --tune=on)\n"
        "  --specializations=N  compile each kernel (each autotune config) in at most N\n"
        "                     versions that assume integer arguments == 1 (unit strides) or\n"
        "                     divisible by 16, picked at launch, as Triton specializes (1-5,\n"
        "                     default 4; 1: none)\n"
        "\n"
        "warnings (all on by default; -Wall and -Wextra change nothing):\n"
        "  -Werror            treat warnings as errors; -Werror=NAME only warning NAME\n"
        "  -w                 suppress warnings\n"
        "  -Wno-NAME, -WNAME  turn warning NAME off or on; the names:\n",
        out);
    for (int k = 0; k < TK_WARNING_COUNT; k++)
        fprintf(out, "    %-20s %s\n", tk_warning_name((tk_warning_kind)k), tk_warning_what((tk_warning_kind)k));
    fputs(
        "\n"
        "other:\n"
        "  --time             print the milliseconds each phase took\n"
        "  --stats            print registers, spills, shared memory and layout conversions\n"
        "                     (through shared memory, by shuffles, in registers) per kernel\n"
        "  --version          print the version and exit\n"
        "  --help             print this help and exit\n"
        "\n"
        "environment: CUDA_HOME (the toolkit: ptxas, libdevice; else ptxas on PATH, else\n"
        "/usr/local/cuda), TMPDIR (ptxas's temporary files), NO_COLOR.\n"
        "exit status: 0 success, 1 errors in the input (or an output that cannot be\n"
        "written), 2 bad usage, 3 an internal compiler error.\n",
        out);
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...) {
    fputs("tkc: error: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n(run 'tkc --help' for the options)\n", stderr);
    return CLI_EXIT_USAGE;
}

/* Does argv[*i] spell option `name` with a value, as NAME=V or NAME V (or,
 * with `attached`, NAMEV as in -DN=4)? *value is then the value (NULL
 * when the option is last), and *i moves past a separate value. */
static bool option_value(int argc, char **argv, int *i, const char *name, bool attached, const char **value) {
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return false;
    if (a[n] == '=' && !attached) {
        *value = a + n + 1;
        return true;
    }
    if (a[n] == '\0') {
        *value = *i + 1 < argc ? argv[++*i] : NULL;
        return true;
    }
    if (attached) {
        *value = a + n;
        return true;
    }
    return false;
}

/* -W, -Wno-, -Werror= with a warning's name */
static int warning_option(cli_options *opt, const char *a) {
    if (strcmp(a, "-Wall") == 0 || strcmp(a, "-Wextra") == 0) return -1;
    if (strcmp(a, "-Werror") == 0) {
        opt->warnings_are_errors = true;
        return -1;
    }
    if (strcmp(a, "-Wno-error") == 0) {
        opt->warnings_are_errors = false;
        return -1;
    }
    const char *name = a + 2;
    tk_warning_state state = TK_WARN_ON;
    if (strncmp(name, "error=", 6) == 0) {
        name += 6;
        state = TK_WARN_ERROR;
    } else if (strncmp(name, "no-error=", 9) == 0) {
        name += 9;
    } else if (strncmp(name, "no-", 3) == 0) {
        name += 3;
        state = TK_WARN_OFF;
    }
    tk_warning_kind kind;
    if (!tk_warning_find(name, &kind)) {
        const char *best = NULL;
        unsigned best_distance = 3;
        for (int k = 0; k < TK_WARNING_COUNT; k++) {
            unsigned d = tk_edit_distance(name, tk_warning_name((tk_warning_kind)k));
            if (d < best_distance) {
                best_distance = d;
                best = tk_warning_name((tk_warning_kind)k);
            }
        }
        if (best) return usage_error("unknown warning option '%s'; did you mean '-W%s'?", a, best);
        return usage_error("unknown warning option '%s' ('tkc --help' lists the warnings)", a);
    }
    opt->warning_state[kind] = (unsigned char)state;
    return -1;
}

/* --arch=SM, a list SM,SM,... or all: the targets, oldest first, once each */
static int parse_arch(cli_options *opt, tk_arena *arena, const char *option, const char *value) {
    if (!value || !*value) return usage_error("%s needs a target (%s)", option, tk_target_names());
    opt->targets.len = 0;
    const char *at = strcmp(value, "all") == 0 ? tk_target_list() : value;
    while (*at) {
        const char *comma = strchr(at, ',');
        size_t len = comma ? (size_t)(comma - at) : strlen(at);
        char *name = tk_arena_strndup(arena, at, len);
        const tk_target *t = tk_target_find(name);
        if (!t) return usage_error("unsupported target '%s'; use %s, a list of them, or all", name, tk_target_names());
        uint32_t pos = 0;
        bool seen = false;
        for (uint32_t i = 0; i < opt->targets.len; i++) {
            const tk_target *o = opt->targets.data[i];
            seen |= o == t;
            if (o->sm < t->sm || (o->sm == t->sm && !o->arch_specific)) pos = i + 1;
        }
        if (!seen) {
            tk_vec_push(arena, &opt->targets, t);
            for (uint32_t i = opt->targets.len - 1; i > pos; i--) opt->targets.data[i] = opt->targets.data[i - 1];
            opt->targets.data[pos] = t;
        }
        at = comma ? comma + 1 : at + len;
        if (comma && !*at) return usage_error("'%s %s': a target list ends with a target, not ','", option, value);
    }
    if (!opt->targets.len) return usage_error("%s needs a target (%s)", option, tk_target_names());
    return -1;
}

int cli_parse_options(int argc, char **argv, cli_options *opt, tk_arena *arena) {
    opt->emit = CLI_EMIT_ALL;
    opt->opt_level = 3;
    bool stdin_taken = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = NULL;
        int status = -1;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            exit(fflush(stdout) == 0 && !ferror(stdout) ? CLI_EXIT_OK : CLI_EXIT_INPUT);
        } else if (strcmp(a, "--version") == 0) {
            printf("tkc %s (LLVM %s)\n", CLI_VERSION, TK_LLVM_VERSION);
            exit(fflush(stdout) == 0 && !ferror(stdout) ? CLI_EXIT_OK : CLI_EXIT_INPUT);
        } else if (strcmp(a, "-") == 0) {
            if (stdin_taken) return usage_error("%s", "standard input ('-') given twice");
            stdin_taken = true;
            tk_vec_push(arena, &opt->inputs, a);
        } else if (option_value(argc, argv, &i, "-o", true, &v)) {
            if (!v || !*v) return usage_error("%s needs a path", a);
            opt->output = v;
        } else if (option_value(argc, argv, &i, "--emit", false, &v)) {
            if (!v) return usage_error("%s needs a stage", a);
            if (strncmp(v, "tir-after=", 10) == 0) {
                if (!tk_tir_pass_known(v + 10, NULL))
                    return usage_error("unknown pass in '--emit=%s'; the passes are %s", v,
                                       tk_tir_pass_names(arena));
                opt->emit = CLI_EMIT_TIR;
                opt->tir_after = v + 10;
                continue;
            }
            size_t k = 0, count = sizeof emit_names / sizeof emit_names[0];
            while (k < count - 1 && strcmp(v, emit_names[k]) != 0) k++;
            if (k == count - 1)
                return usage_error("unknown stage in '--emit=%s'; use tokens, ast, sema, tir, tir-gpu, llvm, "
                                   "ptx, cubin or header", v);
            opt->emit = (cli_emit)k;
            opt->tir_after = NULL;
        } else if (option_value(argc, argv, &i, "--arch", false, &v) ||
                   option_value(argc, argv, &i, "-arch", false, &v) ||
                   option_value(argc, argv, &i, "--gpu-architecture", false, &v)) {
            status = parse_arch(opt, arena, a, v);
        } else if (option_value(argc, argv, &i, "-D", true, &v)) {
            if (!v) return usage_error("%s needs NAME=VALUE", a);
            const char *eq = strchr(v, '=');
            if (!eq || !tk_is_c_identifier(v, (size_t)(eq - v)) || !eq[1])
                return usage_error("'-D %s' is not of the form NAME=VALUE", v);
            tk_sema_define d = {tk_arena_strndup(arena, v, (size_t)(eq - v)),
                                tk_arena_strndup(arena, eq + 1, strlen(eq + 1))};
            tk_vec_push(arena, &opt->sema.defines, d);
        } else if (option_value(argc, argv, &i, "-I", true, &v)) {
            if (!v || !*v) return usage_error("%s needs a folder", a);
            tk_vec_push(arena, &opt->include_dirs, v);
        } else if (option_value(argc, argv, &i, "--kernel", false, &v)) {
            if (!v || !*v) return usage_error("%s needs a kernel name", a);
            opt->sema.only_kernel = v;
        } else if (option_value(argc, argv, &i, "--prefix", false, &v)) {
            if (!v || !tk_is_c_identifier(v, strlen(v)))
                return usage_error("--prefix needs a C identifier (letters, digits, '_'), not '%s'", v ? v : "");
            opt->prefix = v;
        } else if (a[0] == '-' && a[1] == 'O' && a[2] >= '0' && a[2] <= '3' && !a[3]) {
            opt->opt_level = a[2] - '0';
        } else if (strcmp(a, "-g") == 0) {
            opt->debug_info = true;
        } else if (strcmp(a, "-lineinfo") == 0 || strcmp(a, "--lineinfo") == 0 ||
                   strcmp(a, "--generate-line-info") == 0) {
            opt->line_info = true;
        } else if (strncmp(a, "-ffile-prefix-map=", 18) == 0 || strncmp(a, "-fdebug-prefix-map=", 19) == 0) {
            const char *map = strchr(a, '=') + 1, *eq = strchr(map, '=');
            if (!eq || eq == map) return usage_error("'%s' is not of the form -ffile-prefix-map=OLD=NEW", a);
            tk_path_map m = {tk_arena_strndup(arena, map, (size_t)(eq - map)), eq + 1};
            tk_vec_push(arena, &opt->path_maps, m);
        } else if (strncmp(a, "-ffp-contract=", 14) == 0) {
            if (strcmp(a + 14, "fast") && strcmp(a + 14, "off"))
                return usage_error("-ffp-contract takes fast or off, not '%s'", a + 14);
            opt->no_fp_contract = strcmp(a + 14, "off") == 0;
        } else if (strcmp(a, "-w") == 0) {
            opt->no_warnings = true;
        } else if (strncmp(a, "-W", 2) == 0 && a[2]) {
            status = warning_option(opt, a);
        } else if (strcmp(a, "--debug") == 0) {
            opt->debug = true;
        } else if (strcmp(a, "--stats") == 0) {
            opt->stats = true;
        } else if (strcmp(a, "--time") == 0) {
            opt->time_phases = true;
        } else if (option_value(argc, argv, &i, "--tune-table", false, &v)) {
            if (!v || !*v) return usage_error("%s needs a file", a);
            opt->tune_table = v;
        } else if (option_value(argc, argv, &i, "--tune", false, &v)) {
            if (!v || (strcmp(v, "on") != 0 && strcmp(v, "off") != 0))
                return usage_error("--tune takes on or off, not '%s'", v ? v : "");
            opt->tune_off = strcmp(v, "off") == 0;
        } else if (option_value(argc, argv, &i, "--specializations", false, &v)) {
            char *end = NULL;
            long n = v ? strtol(v, &end, 10) : 0;
            if (!v || !*v || *end || n < 1 || n > 5)
                return usage_error("--specializations takes a number from 1 to 5, not '%s'", v ? v : "");
            opt->specializations = (uint32_t)n;
        } else if (strcmp(a, "--python") == 0) {
            opt->python = true;
        } else if (strcmp(a, "--shared") == 0) {
            opt->shared = true;
        } else if (strcmp(a, "-MD") == 0) {
            opt->depfile = true;
        } else if (strcmp(a, "-MP") == 0) {
            opt->dep_phony = true;
        } else if (option_value(argc, argv, &i, "-MF", true, &v)) {
            if (!v || !*v) return usage_error("%s needs a file", a);
            opt->depfile = true;
            opt->depfile_path = v;
        } else if (option_value(argc, argv, &i, "-MT", true, &v)) {
            if (!v || !*v) return usage_error("%s needs a target", a);
            tk_vec_push(arena, &opt->dep_targets, v);
        } else if (a[0] == '-' && a[1]) {
            return usage_error("unknown option '%s'", a);
        } else {
            tk_vec_push(arena, &opt->inputs, a);
        }
        if (status >= 0) return status;
    }
    if (!opt->inputs.len) return usage_error("%s", "no input file");
    if (!opt->targets.len) tk_vec_push(arena, &opt->targets, tk_target_default());
    if (opt->targets.len > 1 && opt->emit != CLI_EMIT_ALL && opt->emit != CLI_EMIT_HEADER &&
        opt->emit != CLI_EMIT_TOKENS && opt->emit != CLI_EMIT_AST && opt->emit != CLI_EMIT_SEMA)
        return usage_error("--emit=%s writes one target's code: give one --arch (several go into a header)",
                           opt->tir_after ? "tir-after" : emit_names[opt->emit]);
    bool several = opt->inputs.len > 1;
    bool to_stdout = !opt->output || strcmp(opt->output, "-") == 0;
    if (opt->emit == CLI_EMIT_CUBIN && to_stdout)
        return usage_error("%s", "--emit=cubin writes binary: give -o FILE");
    if (opt->emit == CLI_EMIT_CUBIN && several)
        return usage_error("%s", "--emit=cubin takes one input: a cubin holds one module");
    if (opt->emit == CLI_EMIT_ALL && opt->output && strcmp(opt->output, "-") == 0)
        return usage_error("%s", "a full build writes three files: give -o DIR/ or -o NAME.h, not -o -");
    bool to_folder = opt->output && (opt->output[strlen(opt->output) - 1] == '/' || cli_is_folder(opt->output));
    if (opt->emit == CLI_EMIT_ALL && several && opt->output && !to_folder)
        return usage_error("-o %s names one header; with several inputs give a folder (-o DIR/)", opt->output);
    if (opt->depfile_path && several && opt->emit == CLI_EMIT_ALL)
        return usage_error("%s", "-MF names one depfile; with several inputs let -MD name one beside each header");
    if (opt->depfile && opt->emit != CLI_EMIT_ALL && to_stdout && !opt->depfile_path)
        return usage_error("%s", "-MD with the output on standard output needs -MF FILE");
    if (opt->depfile && opt->emit != CLI_EMIT_ALL && to_stdout && !opt->dep_targets.len)
        return usage_error("%s", "-MD with the output on standard output needs -MT TARGET");
    if (opt->python && opt->emit != CLI_EMIT_ALL)
        return usage_error("%s", "--python writes a module beside the header: not with --emit");
    if (opt->shared && !opt->python)
        return usage_error("%s", "--shared builds the library of --python's module: give --python too");
    if (opt->prefix && several && opt->emit == CLI_EMIT_ALL)
        return usage_error("%s", "--prefix names one header's symbols; give it with one input");
    return -1;
}
