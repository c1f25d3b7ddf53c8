/* sema: AST -> typed, specialized kernels (prefix tk_sema_).
 *
 * Sema interprets each kernel once per specialization (defaults, -D values,
 * autotune configs, heuristics variants): constexpr values are computed, a
 * constexpr `if` keeps only the branch taken, static_range is unrolled, and
 * each @func is specialized per distinct argument signature. Everything left
 * is runtime work with a known dtype and shape, in the tree below, which is
 * what lower/ consumes. Every error has its own message and position. */
#ifndef TK_SEMA_H
#define TK_SEMA_H

#include "../parser/parser.h"

enum { TK_MAX_RANK = 8 };
/* Triton's limit on the elements of one tile (TRITON_MAX_TENSOR_NUMEL). */
#define TK_MAX_TILE_ELEMENTS (1 << 20)

typedef enum tk_dtype {
    TK_I1, TK_I8, TK_I16, TK_I32, TK_I64, TK_U8, TK_U16, TK_U32, TK_U64,
    TK_F8E4M3, TK_F8E5M2, TK_F16, TK_BF16, TK_F32, TK_F64, TK_DTYPE_COUNT
} tk_dtype;

typedef enum tk_type_kind {
    TK_TYPE_VOID, TK_TYPE_SCALAR, TK_TYPE_POINTER, TK_TYPE_TILE, TK_TYPE_BLOCK_PTR,
    TK_TYPE_TUPLE
} tk_type_kind;

typedef struct tk_type tk_type;
struct tk_type {
    tk_type_kind kind;
    tk_dtype dtype;        /* SCALAR */
    const tk_type *elem;   /* POINTER: pointee; TILE: scalar or pointer element;
                              BLOCK_PTR: pointee scalar */
    uint32_t rank;         /* TILE, BLOCK_PTR: the block's shape */
    int64_t shape[TK_MAX_RANK];
    uint32_t count;        /* TUPLE */
    const tk_type **items;
    /* BLOCK_PTR made by tl.make_tensor_descriptor: what an out-of-bounds
     * element of a load reads (its offsets start at zero; desc.load and
     * desc.store give them) */
    enum { TK_DESC_NONE, TK_DESC_PAD_ZERO, TK_DESC_PAD_NAN } descriptor;
};

/* Type constructors, for sema and lower alike: a new type in the arena. */
const tk_type *tk_type_scalar(tk_arena *arena, tk_dtype d);
const tk_type *tk_type_pointer(tk_arena *arena, const tk_type *pointee);
const tk_type *tk_type_void(tk_arena *arena);
/* A tile of elem (a scalar or pointer type) with shape; rank 0 gives elem. */
const tk_type *tk_type_tile(tk_arena *arena, const tk_type *elem, uint32_t rank, const int64_t *shape);
const tk_type *tk_type_block_ptr(tk_arena *arena, tk_dtype elem, uint32_t rank, const int64_t *shape);
/* A tensor descriptor: a block pointer at offset zero that checks every
 * dimension; pad_nan: out-of-bounds elements load as NaN, not zero. */
const tk_type *tk_type_tensor_desc(tk_arena *arena, tk_dtype elem, uint32_t rank, const int64_t *shape, bool pad_nan);
const tk_type *tk_type_tuple(tk_arena *arena, uint32_t count, const tk_type **items);

const char *tk_dtype_name(tk_dtype d);          /* "f16" */
unsigned tk_dtype_bits(tk_dtype d);
bool tk_dtype_is_float(tk_dtype d);
bool tk_dtype_is_int(tk_dtype d);                /* including i1 */
bool tk_dtype_is_signed(tk_dtype d);
/* Writes a type as the dumps and messages spell it: i32, *f16, f32[64, 64]. */
void tk_type_print(FILE *out, const tk_type *t);
const char *tk_type_str(tk_arena *arena, const tk_type *t);
bool tk_type_equal(const tk_type *a, const tk_type *b);

/* ---- the typed tree ---------------------------------------------------- */

typedef struct tk_sx tk_sx;
typedef struct tk_ss tk_ss;
typedef TK_VEC(tk_sx *) tk_sx_list;
typedef TK_VEC(tk_ss *) tk_ss_list;

/* A variable of a kernel or function instance: parameters and locals. */
typedef struct tk_sema_var {
    const char *name;
    uint32_t id;       /* unique in its instance; the dump shows name.id */
    const tk_type *type;
    tk_loc loc;
} tk_sema_var;

typedef enum tk_sx_kind {
    TK_SX_CONST,     /* a constant of scalar type: int_value or float_value */
    TK_SX_VAR,       /* var */
    TK_SX_UNARY,     /* op, args[0] */
    TK_SX_BINARY,    /* op, args[0], args[1]; operands already converted */
    TK_SX_CAST,      /* args[0] converted to type (bitcast flag) */
    TK_SX_BROADCAST, /* args[0] broadcast to type's shape */
    TK_SX_SELECT,    /* args: cond, then, otherwise (a runtime ternary) */
    TK_SX_BUILTIN,   /* builtin, args in the builtin's parameter order */
    TK_SX_CALL,      /* func instance, args: its runtime arguments */
    TK_SX_TUPLE,     /* args */
    TK_SX_TUPLE_GET  /* args[0] is a tuple; index */
} tk_sx_kind;

typedef struct tk_sema_func tk_sema_func;

struct tk_sx {
    tk_sx_kind kind;
    const tk_type *type;
    tk_loc loc;
    int op;                 /* tk_binop / tk_unop */
    int builtin;            /* tk_builtin id */
    bool bitcast;
    uint32_t index;
    union { int64_t i; double f; } value;
    const tk_sema_var *var;
    const tk_sema_func *func;
    tk_sx_list args;
    /* constant attributes of a builtin call: axis, cache modifiers, ... */
    TK_VEC(struct tk_sema_attr { const char *name; const char *text; int64_t i; }) attrs;
};

typedef enum tk_ss_kind {
    TK_SS_ASSIGN,   /* var = value */
    TK_SS_EXPR,     /* value, for its effect */
    TK_SS_IF,       /* cond, then, otherwise */
    TK_SS_FOR,      /* var in range(lo, hi, step), body; num_stages */
    TK_SS_WHILE,    /* cond, body */
    TK_SS_RETURN,   /* value (may be NULL) */
    TK_SS_BREAK, TK_SS_CONTINUE
} tk_ss_kind;

struct tk_ss {
    tk_ss_kind kind;
    tk_loc loc;
    const tk_sema_var *var;
    tk_sx *value, *lo, *hi, *step;
    tk_ss_list then, otherwise;  /* IF; FOR/WHILE use then as the body; WHILE's
                                    otherwise: the condition's own statements
                                    (effects, @func bodies), redone before each test */
    int64_t num_stages;          /* FOR: -1 when not given */
    bool warp_specialize;        /* FOR: tl.range(..., warp_specialize=True) */
};

/* A parameter of a kernel as the launcher sees it. */
typedef struct tk_sema_param {
    const char *name;
    tk_loc loc;
    bool is_constexpr;
    const tk_type *type;           /* runtime parameters */
    tk_promise promise;
    uint64_t promise_value;
    /* an optional pointer (`*T | None`) that this variant compiles as None:
     * the launcher passes it on and picks this variant when it is NULL */
    bool absent;
    /* a constexpr parameter that @heuristics computes from run-time
     * scalars (BLOCK=lambda a: next_power_of_2(a['n'])): a run-time
     * parameter here, which the launcher computes with this host
     * expression and passes on (it is not in the launcher's signature) */
    tk_sx *computed;
    /* annotated with Python's `int`: an i32 in the kernel; the launcher
     * takes int64_t and refuses a value outside i32 rather than wrap it */
    bool python_int;
    /* `NAME: i32 = num_sms()`: a run-time parameter that is not in the
     * launcher's signature; the launcher passes the number of
     * multiprocessors of the device it launches on (a persistent grid's
     * size: grid=(min(NAME, tiles),)) */
    bool num_sms;
    const tk_sema_var *var;
} tk_sema_param;

typedef struct tk_sema_const_binding {
    const char *name;
    const char *value_text;        /* as the dump prints it: 128, True, "relu" */
} tk_sema_const_binding;

struct tk_sema_func {
    const char *name;
    tk_loc loc;
    uint32_t instance;             /* which specialization of this @func */
    TK_VEC(tk_sema_var *) params;  /* runtime parameters */
    TK_VEC(tk_sema_const_binding) constexprs;
    const tk_type *result;         /* VOID when it returns nothing */
    tk_ss_list body;
};

/* One specialization of a kernel: every constexpr bound to a value. */
typedef struct tk_sema_kernel {
    const char *name;
    tk_loc loc;
    uint32_t variant;              /* index among the kernel's variants */
    /* one of the dtype instances listed in dtypes=: the @kernel's own name
     * (NULL: the kernel is built once) */
    const char *instance_of;
    TK_VEC(tk_sema_param) params;
    TK_VEC(tk_sema_const_binding) constexprs;
    tk_sx *grid[3];                /* host expressions over scalar parameters */
    uint32_t grid_rank;
    int64_t num_warps, num_stages;
    /* 0, or the register cap ptxas keeps each thread under (.maxnreg,
     * Triton's maxnreg=): more threads' registers fit an SM, at the cost of
     * spills where the kernel needs more */
    int64_t maxnreg;
    /* @kernel(name="..."): the C launcher's name (NULL: the kernel's) */
    const char *launcher_name;
    /* @kernel(enable_fp_fusion=...): float a * b + c may become an fma */
    bool fp_fusion;
    /* @kernel(launch_pdl=True): launched with programmatic dependent
     * launch where the GPU has it (TKRT_KERNEL_PDL) */
    bool launch_pdl;
    /* @kernel(requires=[...]): conditions over the scalar parameters the
     * launcher checks before it launches this variant; `text` is the
     * condition as written, for the message when one does not hold */
    TK_VEC(struct tk_sema_requirement { tk_sx *cond; const char *text; }) requires;
    /* runtime conditions that select this variant: from @heuristics (a
     * boolean over scalar parameters), and for an optional pointer the
     * pointer itself (true: not NULL) */
    TK_VEC(struct tk_sema_condition { tk_sx *cond; bool value; const char *name; }) conditions;
    TK_VEC(const char *) autotune_key;
    int32_t config;                /* the autotune config this variant compiles (-1: none) */
    const char *config_text;       /* that config: "BM=128, BN=256, num_warps=8, num_stages=3" */
    tk_loc config_loc;             /* its config(...) in the @autotune decorator */
    /* pointer parameters the autotune trials may write: restored after each
     * (restore_value), zeroed before each (reset_to_zero), or left as the
     * trials leave them (may_clobber); `elements` the size of the first two */
    TK_VEC(struct tk_sema_tuned { const char *name; int kind; tk_sx *elements; }) tuned;
    /* @autotune's prune_configs_by for this config, over the key
     * parameters: the launcher times it only where `prune_keep` holds
     * (NULL: always) and, with a perf_model, where `prune_estimate` is
     * among the prune_top_k lowest of the configs kept (0: no perf_model) */
    tk_sx *prune_keep, *prune_estimate;
    uint32_t prune_top_k;
    /* @autotune's warmup= and rep=: do_bench's milliseconds of warm-up and
     * of timed runs per config (negative: not given, 25 and 100) */
    double tune_warmup_ms, tune_rep_ms;
    tk_ss_list body;
    uint32_t var_count;
} tk_sema_kernel;

enum { TK_TUNED_RESTORE, TK_TUNED_RESET, TK_TUNED_CLOBBER };

typedef struct tk_sema_program {
    TK_VEC(tk_sema_kernel *) kernels;
    TK_VEC(tk_sema_func *) funcs;
    /* `__prefix__ = "NAME"` at the top of the file: the header's default
     * --prefix (NULL: none) */
    const char *prefix;
} tk_sema_program;

typedef struct tk_sema_define { const char *name, *value; } tk_sema_define;

/* A .tk module that an `import NAME` or `from NAME import ...` names,
 * found and parsed by the driver: its @func and constant definitions. */
typedef struct tk_sema_module_file {
    const char *name;                /* as imported: "helpers", "lib.helpers" */
    const char *path;                /* the file, for messages */
    const tk_module *module;
} tk_sema_module_file;

typedef struct tk_sema_options {
    TK_VEC(tk_sema_define) defines;  /* -D NAME=VALUE */
    const char *only_kernel;         /* --kernel NAME */
    TK_VEC(tk_sema_module_file) modules; /* every module imported, directly or not */
} tk_sema_options;

tk_sema_program *tk_sema_check(tk_arena *arena, tk_interner *names, tk_diag *diag,
                               const tk_module *module, const tk_sema_options *options);
/* The stable dump of `tkc --emit=sema`. */
void tk_sema_print(FILE *out, const tk_sema_program *program);
/* ---- builtins ------------------------------------------------------------- */

/* What the tile IR's passes and codegen need to know of an op made from a
 * builtin (its row of builtins.def). */
enum {
    TK_BP_EFFECT = 1,        /* writes memory or is seen outside the program: never removed */
    TK_BP_ATOMIC = 2,        /* a read-modify-write: one copy of each element acts */
    TK_BP_BARRIER = 4,       /* synchronises the whole program */
    TK_BP_KEEPS_LAYOUT = 8,  /* the result takes its tile operand's layout (scans, rand, asm) */
    TK_BP_MATH = 16,         /* an elementwise function of its operands: a math op */
    TK_BP_REDUCTION = 32,    /* a reduction along an axis: a reduce op */
    TK_BP_HINT = 64,         /* a fact for axis info about its operand: a hint op */
    TK_BP_REGISTER_PAIR = 128, /* joins two tiles, or splits one, along a register bit (join, split, cat) */
    TK_BP_ACQUIRES = 256,    /* other grids' writes become visible here (gdc_wait): no load moves above it */
    TK_BP_INDEXED = 512,     /* the result takes its second operand's layout, the index of a gather; the first keeps its own */
};

/* The shared memory an op needs while it runs, by family: one function
 * each in lower/scratch.c sizes it for the allocator and places it for
 * codegen. */
typedef enum tk_scratch_kind {
    TK_SCRATCH_NONE,
    TK_SCRATCH_CONVERT,  /* a layout conversion or broadcast moving data between threads */
    TK_SCRATCH_REDUCE,   /* a reduction across warps */
    TK_SCRATCH_SCAN,     /* a scan across warps */
    TK_SCRATCH_ATOMIC,   /* old values shared with the copies that did not act */
    TK_SCRATCH_SHAPE,    /* join, split, cat moving elements between threads */
    TK_SCRATCH_DOT,      /* a matrix product's operands, where its instruction reads them */
    TK_SCRATCH_HISTOGRAM, /* tl.histogram's bins, counted by shared-memory atomics */
    TK_SCRATCH_GATHER,   /* tl.gather's source, read back at the indices */
    TK_SCRATCH_SORT,     /* tl.sort's and tl.topk's input, sorted in place by a bitonic network */
} tk_scratch_kind;

typedef enum tk_builtin {
#define BUILTIN(id, name, params, namespaces, check, lowering, scratch) TK_B_##id,
#include "builtins.def"
#undef BUILTIN
    TK_BUILTIN_COUNT
} tk_builtin;

unsigned tk_builtin_lowering(int id);
tk_scratch_kind tk_builtin_scratch(int id);
/* The name of builtin `id` as the dump prints it ("load"). */
const char *tk_sema_builtin_name(int id);
/* The id of the tl builtin `name`, or -1 (for passes that build ops). */
int tk_sema_builtin_id(const char *name);

#endif
