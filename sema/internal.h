/* Private to sema/: the checker's values, scopes and context, shared by its
 * files. The checker interprets each kernel variant over the AST with
 * constexprs known, and writes the runtime work it finds as the typed tree
 * of sema.h: value.c (values, the typed tree), scope.c (names), fold.c
 * (constant evaluation), expr.c, stmt.c, call.c (@func calls), the
 * builtins (builtins.c and a builtins_*.c a family, through builtin.h),
 * kernel.c (a @kernel's variants), module.c (imports), types.c, print.c;
 * comprehension.c, config.c and pyfunc.c evaluate the Python that builds
 * autotune configs (list comprehensions, config values, plain functions);
 * dtype_api.c, Triton's dtype introspection.
 * Errors never stop the checker: an erroneous value becomes V_ERROR, which
 * silences what follows from it. */
#ifndef TK_SEMA_INTERNAL_H
#define TK_SEMA_INTERNAL_H

#include "sema.h"

/* What an expression evaluates to while sema interprets a kernel: a
 * compile-time value, or runtime work (an sx with a type). */
typedef enum value_kind {
    V_ERROR,    /* already reported; silences follow-on errors */
    V_NONE, V_INT, V_FLOAT, V_BOOL, V_STR, V_DTYPE, V_TUPLE,
    V_RT,       /* runtime value: rt */
    V_BUILTIN,  /* a builtin function: builtin */
    V_METHOD,   /* a builtin bound to a receiver: builtin, items[0] */
    V_MODULE,   /* tl, triton, math: name */
    V_FUNC,     /* a user @func: def */
    V_META,     /* the parameter of a grid/heuristics lambda */
    V_CONFIG,   /* an autotune config: items are (V_STR name, value) pairs, count of them */
    V_PYFUNC    /* a plain function (no decorator), evaluated at compile time: def */
} value_kind;

typedef struct value value;
struct value {
    value_kind kind;
    tk_loc loc;      /* where this value was computed */
    tk_loc origin;   /* for constexprs: where the value was set (notes) */
    const char *origin_name;
    bool from_define; /* a -D value: a string naming a dtype may stand for it */
    union {
        int64_t i;
        double f;
        bool b;
        struct { const char *text; uint32_t len; } str;
        tk_dtype dtype;
        tk_sx *rt;
        int builtin;
        const char *module;
        const tk_def *def;
    } u;
    /* V_TUPLE items; V_METHOD receiver in items[0]; V_CONFIG's pairs */
    value *items;
    uint32_t count;
    /* V_DTYPE: a tile's .type (Triton's block_type), the tile type whose
     * element the dtype is; NULL for a plain dtype */
    const tk_type *block;
};

typedef enum binding_state { BOUND, ONLY_IN_BRANCH, ONLY_IN_LOOP } binding_state;

typedef struct binding {
    const char *name;
    value val;
    tk_sema_var *var;     /* the variable a runtime value lives in, if any */
    binding_state state;
    /* inside a runtime loop, a name live across iterations keeps one type */
    bool fixed;
    tk_loc fixed_loc;     /* the loop, for messages */
    tk_loc where;         /* the branch or loop for ONLY_IN_* */
    tk_loc def_loc;
} binding;

typedef TK_VEC(binding) scope;

typedef struct func_instance_key {
    const tk_def *def;
    const char *signature;   /* interned text of argument types and constexprs */
    tk_sema_func *func;
    bool failed;             /* its body had errors: calls give V_ERROR silently */
    bool const_result;       /* it returns a compile-time value: `result` */
    value result;
} func_instance_key;

typedef struct checker checker;
typedef TK_VEC(const char *) name_list;
typedef TK_VEC(const tk_def *) def_list;

/* The state of interpreting one kernel variant or @func instance. */
typedef struct frame {
    scope names;
    tk_ss_list *out;          /* where statements go */
    bool in_kernel;           /* a kernel body (else a @func body) */
    bool in_grid;             /* evaluating grid=/heuristics on the host */
    int runtime_loop_depth;
    int runtime_branch_depth;
    bool returned;
    value return_value;
    bool has_return_value;
    tk_loc return_loc;
    /* a @func with a return inside a loop: a return in a runtime if sets
     * the hidden flag n_returned, and what follows it (the rest of a block,
     * the remaining trips, a runtime loop's later trips) runs under
     * `if not returned` */
    bool loop_returns;
    uint32_t branch_returns;  /* returns inside runtime ifs so far */
    bool bare_return, value_return; /* `return` and `return x` seen (a @func has one kind) */
    /* where the outermost runtime loop being checked goes: a return value
     * first set inside it starts there (a zero), so every enclosing loop
     * carries it; loop_return_vars are those values' variables */
    tk_ss_list *loop_preheader;
    TK_VEC(const tk_sema_var *) loop_return_vars;
    uint32_t *var_counter;
    const tk_def *def;
} frame;

/* An imported .tk module: its own names (its functions resolve theirs
 * here, not in the importer's), checked once on its first import. */
typedef struct user_module {
    const char *key;      /* the V_MODULE value's name: "NAME.tk", apart from tl, math, ... */
    const char *name;     /* as imported */
    const tk_sema_module_file *file;
    scope globals;
    def_list funcs;
    int state;            /* 0 not checked, 1 being checked, 2 checked */
} user_module;

struct checker {
    tk_arena *arena;
    tk_interner *names;
    tk_diag *diag;
    const tk_module *module;
    const tk_sema_options *options;
    tk_sema_program *program;
    def_list funcs;                      /* @func definitions */
    def_list kernels;
    TK_VEC(func_instance_key) instances;
    def_list call_stack;                 /* recursion detection */
    scope globals;                       /* module-level constexprs, imports (of the module being checked) */
    scope comp_names;                    /* the variables of the comprehensions being evaluated,
                                          * or the locals of the plain function being run */
    int pyfunc_depth;                    /* plain-function calls nested now */
    uint32_t pyfunc_steps;               /* statements run by the outermost one */
    uint32_t frameless_vars;             /* ids of variables made where nothing can be emitted (after an error) */
    def_list plain_funcs, called_plain_funcs; /* of the module compiled */
    TK_VEC(user_module *) user_modules;  /* the imported .tk modules checked so far */
    TK_VEC(struct def_home { const tk_def *def; user_module *home; }) homes; /* @funcs of imported modules */
    frame *frame;
    /* the dtype parameters of the kernel instance being checked (DT of
     * `x: *DT`), which its signature's annotations name */
    TK_VEC(struct type_param { const char *name; tk_dtype dtype; }) type_params;
    /* static_range trips and statements of the kernel variant being
     * checked, nested loops multiplied: bounded, so no input exhausts
     * memory or time (reported once) */
    uint64_t unrolled_trips, emitted_statements;
    bool over_budget;
    /* interned names used by the checker */
    const char *n_tl, *n_triton, *n_language, *n_math, *n_libdevice;
    const char *n_return;   /* a @func's value returned inside a runtime if */
    const char *n_returned; /* whether it has returned, where a loop returns */
};

/* ---- types.c ---- */
/* the constructors of sema.h in the checker's arena */
static inline const tk_type *ty_scalar(checker *c, tk_dtype d) { return tk_type_scalar(c->arena, d); }
static inline const tk_type *ty_pointer(checker *c, const tk_type *pointee) { return tk_type_pointer(c->arena, pointee); }
static inline const tk_type *ty_void(checker *c) { return tk_type_void(c->arena); }
static inline const tk_type *ty_tile(checker *c, const tk_type *elem, uint32_t rank, const int64_t *shape) {
    return tk_type_tile(c->arena, elem, rank, shape);
}
static inline const tk_type *ty_block_ptr(checker *c, tk_dtype elem, uint32_t rank, const int64_t *shape) {
    return tk_type_block_ptr(c->arena, elem, rank, shape);
}
static inline const tk_type *ty_tuple(checker *c, uint32_t count, const tk_type **items) {
    return tk_type_tuple(c->arena, count, items);
}
/* The element type: the type itself for scalars and pointers. */
const tk_type *ty_elem(const tk_type *t);
uint32_t ty_rank(const tk_type *t);
const int64_t *ty_shape(const tk_type *t);
bool ty_is_tile(const tk_type *t);
bool ty_elem_is_pointer(const tk_type *t);
/* Same shape as `like`, element replaced. */
const tk_type *ty_with_elem(checker *c, const tk_type *like, const tk_type *elem);
bool dtype_from_name(const char *name, tk_dtype *out);
/* "core" or "standard": a module of triton.language holding names that
 * triton.language re-exports, so tl under another name (module.c) */
bool tl_reexporting_module(const char *name);
const char *dtype_triton_name(tk_dtype d); /* float16: tl.float16 in messages */
/* The dtype a constexpr number takes when it becomes runtime on its own. */
bool literal_dtype(const value *v, tk_dtype *out);
/* Triton's computation type of a binary arithmetic operation; sets *error
 * to a message when the pair is invalid. lit_a/lit_b: that side is a
 * constexpr number. */
tk_dtype promote_dtypes(tk_dtype a, bool lit_a, tk_dtype b, bool lit_b, bool div_or_mod,
                        const char **error);
tk_dtype int_promote(tk_dtype a, tk_dtype b);
int64_t dtype_int_min(tk_dtype d);
uint64_t dtype_int_max(tk_dtype d);

/* ---- value.c: values and the typed tree (the builtins' interface) ---- */
void sema_error(checker *c, tk_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
value v_error(void);
value v_int(tk_loc loc, int64_t i);
value v_float(tk_loc loc, double f);
value v_bool(tk_loc loc, bool b);
value v_rt(tk_sx *rt);
value v_tuple(checker *c, tk_loc loc, uint32_t count);
bool v_is_const(const value *v);
/* Python's truth of a compile-time value */
bool v_truth(const value *v);
bool v_is_number(const value *v);   /* INT, FLOAT, BOOL */
double v_as_double(const value *v);
int64_t v_as_int(const value *v);
const char *v_describe(checker *c, const value *v);
/* a constexpr as the dump prints it: 128, True, "relu" */
const char *const_text(checker *c, const value *v);
tk_sx *sx_new(checker *c, tk_sx_kind kind, const tk_type *type, tk_loc loc);
void sx_add_arg(checker *c, tk_sx *sx, tk_sx *arg);
void sx_add_attr_int(checker *c, tk_sx *sx, const char *name, int64_t i);
void sx_add_attr_text(checker *c, tk_sx *sx, const char *name, const char *text);
tk_sx *sx_var(checker *c, const tk_sema_var *var, tk_loc loc);
bool const_fits(int64_t i, tk_dtype d);
tk_sx *sx_const(checker *c, const value *v, tk_dtype d, tk_loc loc);
tk_sema_var *new_var(checker *c, const char *name, const tk_type *type, tk_loc loc);
tk_ss *ss_new(checker *c, tk_ss_kind kind, tk_loc loc);
/* the checker's budgets: static_range trips of one loop, and of a kernel
 * variant's nested loops multiplied; statements written */
enum { STATIC_UNROLL_LIMIT = 4096, UNROLLED_TRIPS_LIMIT = 1 << 16, STATEMENTS_LIMIT = 1 << 18 };
void emit_stmt(checker *c, tk_ss *s);
/* Whether code that runs on the GPU can be written here: not in a function
 * evaluated at compile time, a parameter's default or a module-level name
 * (no frame); reports an error at loc when not. */
bool can_emit(checker *c, tk_loc loc);
/* Makes a runtime sx of v (a constexpr number becomes a constant of its
 * literal dtype, or of `want` when want_dtype is set). NULL after an error. */
tk_sx *to_runtime(checker *c, const value *v, const tk_dtype *want);
tk_sx *convert(checker *c, tk_sx *x, tk_dtype d, tk_loc loc);
tk_sx *broadcast_to_shape(checker *c, tk_sx *x, uint32_t rank, const int64_t *shape, tk_loc loc);
/* numpy broadcasting of two shapes; false after reporting a mismatch */
bool broadcast_shapes(checker *c, const tk_type *a, const tk_type *b, tk_loc loc,
                      const char *what, uint32_t *rank, int64_t *shape);
bool check_tile_shape(checker *c, uint32_t rank, const int64_t *shape, tk_loc loc,
                      const value *origin);
/* The two halves of check_tile_shape: one dimension, and the total size. */
bool check_tile_dim(checker *c, int64_t dim, tk_loc loc, const value *origin);
bool check_tile_total(checker *c, uint32_t rank, const int64_t *shape, tk_loc loc);
/* a note at where the constexpr `origin` was set (a -D value, a default) */
void note_origin(checker *c, const value *origin);
/* the nearest of the candidates to a misspelt name, NULL if none is near */
const char *suggest(checker *c, const char *name, const char *const *candidates, size_t n);

/* ---- scope.c: names and scopes ---- */
binding *bind(checker *c, scope *s, const char *name, value v, tk_loc def_loc);
/* the innermost binding of name in s (NULL: none) */
binding *lookup_in(scope *s, const char *name);
/* name in the current frame, else in the module's globals */
binding *lookup(checker *c, const char *name);
scope copy_scope(checker *c, const scope *s);
/* "unknown name", with a suggestion or the import it lacks */
void unknown_name(checker *c, const char *name, tk_loc loc);
/* the imported module whose V_MODULE name is key, and the module a @func
 * was defined in (NULL: the file compiled); module.c fills both in */
user_module *sema_user_module(checker *c, const char *key);
user_module *sema_home_of(checker *c, const tk_def *def);

/* ---- fold.c: constant evaluation ---- */
value fold_binary(checker *c, tk_binop op, const value *a, const value *b, tk_loc loc);
bool const_equal(const value *a, const value *b);
/* reports msg and gives V_ERROR */
value fold_error(checker *c, tk_loc loc, const char *msg);

/* ---- expr.c: expressions ---- */
value eval(checker *c, const tk_expr *e);
/* a binary operator on constexprs (folded) or runtime values */
value arith(checker *c, tk_binop op, value a, value b, tk_loc loc);

/* ---- comprehension.c, config.c: compile-time lists and autotune configs ---- */
value eval_comprehension(checker *c, const tk_expr *e);
/* a for's iterable as a tuple: a compile-time tuple or list, or range()
 * of constant bounds (bounded in size); V_ERROR reported */
value const_sequence(checker *c, const tk_expr *iter);
/* config(...) or triton.Config(...), the call e */
value eval_config(checker *c, const tk_expr *e);

/* ---- dtype_api.c: Triton's dtype introspection ---- */
/* the predicate (is_fp16, ...) named: its index, -2 for is_ptr, -1 none */
int dtype_predicate_index(const char *name);
value dtype_predicate(checker *c, const value *dtype, int index, uint32_t nargs, tk_loc loc);
/* .primitive_bitwidth, .int_bitwidth, .fp_mantissa_width, .name of a
 * (non-pointer) dtype into *out; false where name is none of them */
bool dtype_attribute(checker *c, const value *dtype, const char *name, tk_loc name_loc, tk_loc loc, value *out);

/* ---- pyfunc.c: plain functions, evaluated at compile time ---- */
value call_pyfunc(checker *c, const tk_def *def, const value *args, uint32_t count, const char **kw_names,
                  const value *kw_values, const tk_loc *kw_locs, uint32_t kw_count, tk_loc loc);

/* ---- stmt.c: statements ---- */
void exec_block(checker *c, const tk_stmt_list *body);
/* before a @func's body runs: a return inside a static loop sets the
 * frame's loop_returns and binds the hidden flag */
void begin_func_body(checker *c, const tk_stmt_list *body, tk_loc loc);
/* after it: false where a path may end without a return, once a return
 * inside a static loop's runtime if made the others return a value */
bool func_paths_return(checker *c, const tk_stmt_list *body);
/* the compile-time error of `raise e` (e NULL: a bare raise) */
const char *raise_message(checker *c, const tk_expr *e);
/* var = rhs, written as a statement */
void emit_assign(checker *c, tk_sema_var *var, tk_sx *rhs, tk_loc loc);

/* ---- call.c: @func calls and parameters ---- */
value call_func(checker *c, const tk_def *def, value *args, uint32_t count,
                const char **kw_names, value *kw_values, const tk_loc *kw_locs,
                uint32_t kw_count, tk_loc loc);
/* the type a parameter's annotation names, NULL for constexpr; false on an error */
bool annotation_type(checker *c, const tk_expr *a, const tk_type **out);
/* Is annotation a a descriptor parameter's (tensor_descriptor[...])? */
bool annotation_is_descriptor(checker *c, const tk_expr *a);
/* The type of a descriptor parameter's annotation; evaluate: its block
 * from the constexprs bound in the current frame (else left empty) */
bool descriptor_annotation(checker *c, const tk_expr *a, bool evaluate, const tk_type **out);
/* A tensor descriptor's block shape v for elements of type elem
 * (builtins_memory.c) */
bool descriptor_block(checker *c, const value *v, tk_dtype elem, uint32_t *rank, int64_t *shape);
/* `constexpr` or `dtype` (a constexpr whose value is a dtype), read from
 * the annotation alone */
bool annotation_is_constexpr(const tk_expr *a);
/* num_warps, num_stages, maxnreg: a kernel's launch options, which -D, @kernel and
 * autotune configs may set */
bool launch_option_name(const char *name);

/* ---- builtin_props.c: what a builtin is, from builtins.def ---- */
/* The namespaces column of builtins.def: where a builtin's name is found */
enum {
    B_TL = 1,       /* tl.name */
    B_BARE = 2,     /* the bare name too */
    B_METHOD = 4,   /* x.name(...) on tiles */
    B_GRID = 8,     /* usable in grid expressions (host arithmetic) */
    B_PYTHON = 16,  /* the bare name is Python's builtin, only bare */
    B_LIBDEVICE = 32, /* libdevice.name (triton.language.extra.libdevice), and tl.math.name */
    B_MEMORY = 64,  /* reads or writes memory: never evaluated speculatively */
    B_CUDA = 128    /* triton.language.extra.cuda.name (tl.extra.cuda.name) */
};
#define TL (B_TL | B_BARE)                 /* tl.name, and the bare name */
#define TLM (B_TL | B_BARE | B_METHOD)     /* ... and x.name(...) */
/* builtin id's namespaces (0 for an id out of range) */
unsigned builtin_namespaces(int id);

/* ---- builtins.c ---- */
/* Finds a builtin by name: in the tl namespace (tl_only) or bare. -1 if none. */
int builtin_lookup(checker *c, const char *name, bool tl_namespace);
bool builtin_is_method(int id);
/* A libdevice function by its Triton name (libdevice.def). -1 if none. */
int builtin_lookup_libdevice(const char *name);
/* triton.language.extra.cuda's NAME (gdc_wait, ...), or -1 */
int builtin_lookup_cuda(const char *name);
bool builtin_not_supported_yet(const char *name);
bool builtin_allowed_in_grid(int id);
/* Reads or writes memory (a load, an atomic, inline assembly): evaluating
 * it where its value is not wanted may fault, so the short-circuit forms
 * branch around it. */
bool builtin_touches_memory(int id);
value builtin_call(checker *c, int id, const value *receiver, value *args, uint32_t count,
                   const char **kw_names, value *kw_values, tk_loc *kw_locs,
                   uint32_t kw_count, tk_loc loc);
/* The names of all builtins, for "did you mean". */
size_t builtin_names(const char **out, size_t max, bool libdevice);

/* ---- kernel.c, for module.c ---- */

/* a @kernel definition checked into its variants */
/* def's instances (one per combination of its listed dtypes), or only
 * the one named only_instance (NULL: all); false where none is so named */
bool check_kernel(checker *c, const tk_def *def, const char *only_instance);
/* @kernel, @autotune, ... (tl. and triton. prefixes dropped); NULL for others */
const char *decorator_name(checker *c, const tk_expr *e);
const tk_param *find_param(const tk_def *def, const char *name);
/* e evaluated outside any kernel or function (module-level names only) */
value eval_global(checker *c, const tk_expr *e);

#endif
