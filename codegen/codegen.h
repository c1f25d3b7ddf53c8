/* codegen: tile IR -> LLVM IR (through LLVM's C API) -> NVPTX -> PTX and a
 * cubin, and the C launch header (prefix tk_cg_).
 *
 * Each tile value becomes the registers its layout gives one thread; ops are
 * emitted per register, loads and stores as the widest vector accesses the
 * axis facts allow, reductions in-thread, then by shuffles over the lane
 * bits of the axis, then through shared memory across warps. */
#ifndef TK_CODEGEN_H
#define TK_CODEGEN_H

#include "../lower/lower.h"

typedef struct tk_cg_options {
    const tk_target *target;
    int opt_level;           /* 0..3 */
    bool line_info;          /* .loc lines for .tk source */
    bool debug;              /* device_assert checks (-g, --debug) */
    const char *cuda_home;   /* for ptxas; NULL or missing: PTX only */
    const char *tmp_dir;     /* where ptxas's files go (NULL: /tmp); each is removed after */
    const tk_path_maps *path_maps; /* -ffile-prefix-map, for line tables and assertion messages */
    bool want_cubin;
    bool resource_report;    /* ptxas -v: registers, spills (slow for many kernels: --stats only) */
    bool llvm_ir;            /* keep the optimized LLVM IR's text (out->llvm_ir) */
    /* LLVM modules compiled at once, their PTX joined: 0 lets the work's
     * size decide (one for small programs, or with line tables); tests ask
     * for more */
    unsigned llvm_modules;
    /* float a * b + c may be fused into an fma (Triton's enable_fp_fusion,
     * on by default there); a kernel's @kernel(enable_fp_fusion=False) wins */
    bool fp_contract;
    /* threads the modules are compiled on: 0, one a processor. The PTX is
     * the same for any count (tests compare) */
    unsigned threads;
} tk_cg_options;

typedef struct tk_cg_kernel_info {
    const char *entry;       /* PTX entry name */
    const tk_tir_kernel *kernel;
    int registers, spill_bytes, shared_bytes; /* from ptxas, -1 if unknown */
} tk_cg_kernel_info;

typedef struct tk_cg_output {
    char *llvm_ir;           /* optimized module text (options->llvm_ir); modules' one after another */
    char *ptx;
    size_t ptx_len;
    unsigned char *cubin;    /* NULL without a toolkit */
    size_t cubin_len;
    const char *cubin_note;  /* why there is no cubin */
    TK_VEC(tk_cg_kernel_info) kernels;
    double llvm_ms, ptxas_ms;
    /* The first inline_asm_elementwise (src NULL: none). tkc's own PTX is
     * checked, so when ptxas rejects a module with user assembly the
     * error goes to the user's source, not to tkc. */
    tk_loc user_asm;
} tk_cg_output;

/* Sets LLVM's process-wide code generation options; call once, before any
 * tk_cg_compile and before other threads start (LLVM keeps them in globals).
 * Without it the code is still right, only slower: LLVM's loop strength
 * reduction stays on, which in a pipelined K loop recomputes every
 * run-ahead copy pointer from a shared base each trip (matmul 128x256x64:
 * 590 against 643 TFLOP/s on the H200). */
void tk_cg_init_process(void);

/* Compiles every kernel variant of program into one PTX module (and a
 * cubin when a toolkit is found). Reports unsupported ops as errors at
 * their source position. Strings in out live in the arena. */
bool tk_cg_compile(tk_arena *arena, tk_diag *diag, const tk_tir_program *program,
                   const tk_cg_options *options, tk_cg_output *out);

/* Writes the launch header for `module_name` (the .tk file's base name):
 * the embedded cubin and PTX and one C function per kernel (with a tuner
 * where it has autotune configs to choose from). False (after an internal
 * error) where a host expression cannot be written in C. options may be
 * NULL. */
typedef struct tk_cg_header_options {
    /* --tune-table: the text of a file of tuning choices (tkrt_tune_save's
     * lines), compiled into the tuners; NULL for none */
    const char *tune_table, *tune_table_path;
    bool tune_off;            /* --tune=off: the launchers never time */
    /* --prefix: launchers are PREFIX_KERNEL and every other symbol
     * tk_PREFIX__...; NULL: launchers take the kernels' names */
    const char *prefix;
    /* what the header records of its build (a comment and macros) */
    const char *tkc_version;
    const char *defines;      /* the -D values, "NAME=VALUE ..." ("" for none) */
} tk_cg_header_options;

/* One target's compilation of a module, for the header. */
typedef struct tk_cg_build {
    const tk_target *target;
    const tk_tir_program *program;
    const tk_cg_output *compiled;
} tk_cg_build;

/* The launch header of a module built for nbuilds targets (oldest first):
 * declarations and launchers for every file that includes it, and behind
 * TKC_IMPLEMENTATION the module (a cubin per target with one, the newest
 * target's PTX) and the kernels' and tuners' state, for exactly one. The
 * launchers come from builds[0]; the others must have the same kernels. */
bool tk_cg_write_header(FILE *out, tk_diag *diag, const tk_cg_build *builds, uint32_t nbuilds,
                        const char *module_name, const tk_cg_header_options *options);

/* The Python binding of a module (tkc --python): `py` gets a module with
 * one function per launcher, which checks its arguments (dtype, device,
 * contiguity, integer ranges), launches through ctypes and raises with the
 * runtime's message on failure; `shim` gets the C source of the library the
 * module loads, which includes the header and exposes each launcher as
 * `int tkpy_LAUNCHER(void *stream, const uint64_t *slots)`, an 8-byte slot
 * an argument. */
typedef struct tk_cg_python_options {
    const tk_cg_header_options *header; /* the header's (prefix, version, defines) */
    const char *header_name;            /* as the library's source includes it: "NAME.h" */
    const char *library_name;           /* the library's file name, beside the module: "NAME_tkpy.so" */
    const char *python_name;            /* the module's name (its file's), which may differ from the header's */
} tk_cg_python_options;
/* module_name: the header's (as tk_cg_write_header took it) */
bool tk_cg_write_python(FILE *py, FILE *shim, tk_diag *diag, const tk_cg_build *builds, uint32_t nbuilds,
                        const char *module_name, const tk_cg_python_options *options);
#endif
