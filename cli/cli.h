/* cli: the tkc driver's own parts (prefix cli_), shared by its files:
 * options.c reads the command line, files.c writes outputs (atomically,
 * making folders) and depfiles and cleans up after signals, main.c runs
 * the pipeline once an input. Nothing outside cli/ includes this. */
#ifndef TK_CLI_H
#define TK_CLI_H

#include "../parser/parser.h"
#include "../sema/sema.h"
#include "../support/support.h"

#define CLI_VERSION "0.1.0"

/* Exit statuses, as documented in --help and README.md. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_INPUT = 1, CLI_EXIT_USAGE = 2, CLI_EXIT_INTERNAL = 3 };

typedef enum cli_emit {
    CLI_EMIT_TOKENS, CLI_EMIT_AST, CLI_EMIT_SEMA, CLI_EMIT_TIR, CLI_EMIT_TIR_GPU, CLI_EMIT_LLVM, CLI_EMIT_PTX,
    CLI_EMIT_CUBIN, CLI_EMIT_HEADER, CLI_EMIT_ALL
} cli_emit;

typedef TK_VEC(const char *) cli_paths;

typedef struct cli_options {
    TK_VEC(const char *) inputs;  /* "-" is standard input */
    const char *output;           /* -o, NULL when not given */
    cli_emit emit;
    const char *tir_after;        /* --emit=tir-after=PASS */
    TK_VEC(const tk_target *) targets; /* --arch, oldest first (sm_90a after sm_90) */
    int opt_level;
    bool debug_info, line_info, debug, time_phases, stats;
    bool no_fp_contract;     /* -ffp-contract=off: no a * b + c fused into an fma */
    bool warnings_are_errors, no_warnings;
    unsigned char warning_state[TK_WARNING_COUNT]; /* tk_warning_state, per -W option */
    tk_sema_options sema;
    const char *tune_table;       /* --tune-table=FILE */
    bool tune_off;                /* --tune=off */
    uint32_t specializations;     /* --specializations=N (0: not given, the default) */
    /* depfiles: -MD, -MF FILE, -MT TARGET (several), -MP */
    bool depfile, dep_phony;
    const char *depfile_path;
    TK_VEC(const char *) dep_targets;
    tk_path_maps path_maps;       /* -ffile-prefix-map=OLD=NEW */
    const char *prefix;           /* --prefix=NAME */
    bool python, shared;          /* --python: NAME.py and NAME_tkpy.c; --shared: NAME_tkpy.so */
    cli_paths include_dirs;       /* -I DIR: where imported modules are looked for */
} cli_options;

/* Reads argv into opt. Returns -1 when compilation should go on, else the
 * exit status (after --help, --version or a usage error, which it prints). */
int cli_parse_options(int argc, char **argv, cli_options *opt, tk_arena *arena);

/* ---- imports.c ---- */

/* Finds, reads and parses the modules `module` (read from `path`, "-" for
 * standard input) imports, and theirs, into sema->modules; appends each
 * file read to deps. Reports what it cannot find or read, and cycles. */
void cli_load_imports(tk_arena *arena, tk_interner *names, tk_diag *diag, const cli_options *opt,
                      const tk_module *module, const char *path, tk_sema_options *sema, cli_paths *deps);

/* ---- shared.c ---- */

/* --shared: builds `library` from `source` (a --python module's NAME_tkpy.c)
 * and the runtime's source with $CC. Reports and returns false on failure. */
bool cli_build_python_library(tk_arena *arena, const char *source, const char *library);

/* ---- files.c ---- */

/* An output file written to a temporary name beside it and renamed over
 * the real one only by cli_output_commit, so that a failed run leaves what
 * was there before. Standard output when path is NULL or "-". */
typedef struct cli_output {
    const char *path;
    char *tmp_path;   /* NULL for standard output */
    FILE *f;
} cli_output;

/* Makes the folders path needs; opens the temporary file. Reports and
 * returns false on failure. */
bool cli_output_open(cli_output *o, tk_arena *arena, const char *path);
/* Flushes, closes and renames into place; reports and returns false on
 * failure (the temporary file is removed then). */
bool cli_output_commit(cli_output *o);
/* Closes and removes the temporary file (nothing when never opened). */
void cli_output_abandon(cli_output *o);

/* Makes every folder of path's directory part (mkdir -p of its dirname),
 * or all of path when it ends with '/'. Reports and returns false on failure. */
bool cli_make_folders(tk_arena *arena, const char *path);

/* Whether path names a folder that exists. */
bool cli_is_folder(const char *path);

/* The whole of standard input as a source named "<stdin>" (NULL on a read
 * error, with errno set). */
tk_source *cli_read_stdin(tk_arena *arena);

/* Writes a make rule "TARGETS: DEPS" (and, with -MP, "DEP:" for each dep
 * after the first ninputs, the inputs themselves) to
 * depfile_path, atomically, escaping as GCC does. */
bool cli_write_depfile(tk_arena *arena, const cli_options *opt, const char *depfile_path,
                       const char *const *targets, uint32_t ntargets, const char *const *deps, uint32_t ndeps,
                       uint32_t ninputs);

/* Fatal signals (a crash is an internal compiler error: status 3) and
 * interrupts remove the temporary files and folders registered here. */
void cli_install_signal_handlers(void);
void cli_cleanup_register(const char *path, bool folder);
void cli_cleanup_unregister(const char *path);

/* The run's own folder under TMPDIR (else /tmp), removed with what is in
 * it by cli_remove_temp_folder or by a signal. NULL after reporting. */
char *cli_make_temp_folder(tk_arena *arena);
void cli_remove_temp_folder(const char *dir);

#endif
