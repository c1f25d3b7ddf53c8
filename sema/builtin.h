/* Private to the builtin files of sema/ (builtins.c and builtins_*.c, one
 * a family): a call bound to its builtin's signature, and the argument
 * readers that check one parameter and report in the builtin's own words
 * ("'mask' of tl.load must be ..."). The families see the checker only
 * through internal.h's value and statement helpers. */
#ifndef TK_SEMA_BUILTIN_H
#define TK_SEMA_BUILTIN_H

#include "internal.h"

typedef struct call {
    int id;
    const char *name;      /* as the user would write it: tl.load */
    value *args;           /* one per parameter; kind V_ERROR+absent when not given */
    bool *given;
    uint32_t nparams;
    value *rest;           /* varargs */
    uint32_t rest_count;
    tk_loc loc;
} call;

typedef value (*builtin_fn)(checker *c, call *k);


typedef struct builtin_def {
    const char *name;
    const char *params; /* "pointer,mask=,*rest" */
    unsigned flags;     /* namespaces (B_TL, ...) */
    builtin_fn fn;
} builtin_def;

/* Every family's checkers, one a row of builtins.def. */
#define BUILTIN(id, name, params, namespaces, check, lowering, scratch) value check(checker *c, call *k);
#include "builtins.def"
#undef BUILTIN

/* ---- argument readers (builtins.c): each reports its own error --------- */

static inline bool given(call *k, uint32_t i) { return i < k->nparams && k->given[i]; }
/* parameter i's name, for messages */
const char *pname(call *k, uint32_t i);
/* parameter i as runtime work (a number becomes a constant); NULL on an error */
tk_sx *rt_arg(checker *c, call *k, uint32_t i);
bool const_int(checker *c, call *k, uint32_t i, int64_t *out);
/* dflt where not given or None */
bool const_bool(checker *c, call *k, uint32_t i, bool dflt, bool *out);
/* one of `allowed` ("" where not given) */
bool const_str(checker *c, call *k, uint32_t i, const char *const *allowed, size_t n, const char **out);
bool dtype_arg(checker *c, call *k, uint32_t i, tk_dtype *out);
/* A shape: a constant int or a tuple/list of them. */
bool shape_of(checker *c, const value *v, const char *what, uint32_t *rank, int64_t *shape);
/* The shape from varargs (f(x, 2, 3)) or a single tuple (f(x, (2, 3))). */
bool rest_shape(checker *c, call *k, const char *what, uint32_t *rank, int64_t *shape);
/* axis i of a tile of `rank`, negative counted from the end */
bool axis_value(checker *c, call *k, uint32_t i, uint32_t rank, int64_t *axis);
/* the typed call of this builtin, its arguments added by the caller */
tk_sx *builtin_sx(checker *c, call *k, const tk_type *type);
static inline bool is_float_tile(const tk_sx *x) {
    const tk_type *e = ty_elem(x->type);
    return e->kind == TK_TYPE_SCALAR && tk_dtype_is_float(e->dtype);
}
static inline tk_dtype elem_dtype(const tk_sx *x) { return ty_elem(x->type)->dtype; }
/* x (parameter i) holds numbers, not pointers */
bool elem_is_scalar(checker *c, call *k, tk_sx *x, uint32_t i);
static inline value result_rt(tk_sx *x) { return v_rt(x); }
/* Side-effecting builtins become statements: a value-returning one is
 * assigned to a fresh variable so its effect happens exactly once. */
value emit_effect(checker *c, tk_sx *x);
/* A builtin with several results: assigned once to a tuple variable whose
 * items the caller unpacks. */
value tuple_result(checker *c, tk_sx *x);

/* ---- builtins_memory.c, for the atomics and device_assert --------------- */

/* parameter i as the pointer (tile) a memory builtin goes through */
tk_sx *pointer_arg(checker *c, call *k, uint32_t i);
/* parameter i as a boolean mask for pointers `ptr`, broadcast to their
 * shape (NULL where not given, or after an error) */
tk_sx *mask_arg(checker *c, call *k, uint32_t i, const tk_type *ptr);
/* x (parameter i, `what`) broadcast up to the shape of pointers `ptr`,
 * not beyond */
tk_sx *fit_to(checker *c, call *k, uint32_t i, tk_sx *x, const tk_type *ptr, const char *what);

/* ---- builtins_shape.c, for the reductions -------------------------------- */

/* a reshape of x to `shape` (same number of elements) */
tk_sx *reshaped(checker *c, call *k, tk_sx *x, uint32_t rank, const int64_t *shape);
int64_t numel_of(const tk_type *t);

#endif
