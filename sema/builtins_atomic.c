/* The atomics: atomic_add ... atomic_xchg and atomic_cas. Needs:
 * builtin.h's argument readers and builtins_memory.c's pointer and mask
 * handling. Guarantees: sem= and scope= are checked names. */
#include "builtin.h"

#include <string.h>

static const char *const sems[] = {"acquire", "release", "acq_rel", "relaxed"};
static const char *const scopes[] = {"gpu", "cta", "sys"};

static value atomic(checker *c, call *k, bool cas) {
    tk_sx *p = pointer_arg(c, k, 0);
    if (!p) return v_error();
    if (p->type->kind == TK_TYPE_BLOCK_PTR) {
        sema_error(c, k->args[0].loc, "%s takes a pointer or tile of pointers, not a block pointer", k->name);
        return v_error();
    }
    const tk_type *elem = ty_elem(p->type)->elem;
    if (elem->kind != TK_TYPE_SCALAR) return v_error();
    tk_dtype d = elem->dtype;
    const char *op = tk_sema_builtin_name(k->id) + strlen("atomic_");
    bool is_float = tk_dtype_is_float(d);
    unsigned bits = tk_dtype_bits(d);
    /* Triton's rules: compare-and-swap on any 16-, 32- or 64-bit element,
     * the others on 32 and 64 bits (and f16/bf16 add) */
    bool ok = cas ? bits == 16 || bits == 32 || bits == 64
                  : bits >= 16 && d != TK_I16 && d != TK_U16 && d != TK_F8E4M3 && d != TK_F8E5M2;
    if (ok && (d == TK_F16 || d == TK_BF16)) ok = strcmp(op, "add") == 0 || cas || strcmp(op, "xchg") == 0;
    if (ok && is_float && (strcmp(op, "max") == 0 || strcmp(op, "min") == 0)) ok = d == TK_F32 || d == TK_F64;
    if (!ok) {
        sema_error(c, k->args[0].loc, "%s does not support %s values", k->name, tk_dtype_name(d));
        return v_error();
    }
    uint32_t sem_i = cas ? 3 : 3, scope_i = cas ? 4 : 4;
    const char *sem, *scope_text;
    if (!const_str(c, k, sem_i, sems, 4, &sem) || !const_str(c, k, scope_i, scopes, 3, &scope_text)) return v_error();
    tk_sx *x = builtin_sx(c, k, ty_with_elem(c, p->type, elem));
    sx_add_arg(c, x, p);
    uint32_t nvals = cas ? 2 : 1;
    for (uint32_t i = 1; i <= nvals; i++) {
        value *v = &k->args[i];
        tk_sx *xv = v_is_number(v) ? to_runtime(c, v, &d) : rt_arg(c, k, i);
        if (!xv || !elem_is_scalar(c, k, xv, i)) return v_error();
        if (cas) {
            if (!tk_type_equal(ty_elem(xv->type), elem)) {
                sema_error(c, v->loc, "tl.atomic_cas: '%s' must be %s like the pointee, not %s",
                           pname(k, i), tk_dtype_name(d), tk_type_str(c->arena, xv->type));
                return v_error();
            }
        } else {
            xv = convert(c, xv, d, v->loc);
        }
        xv = fit_to(c, k, i, xv, p->type, pname(k, i));
        if (!xv) return v_error();
        sx_add_arg(c, x, xv);
    }
    if (!cas && given(k, 2) && k->args[2].kind != V_NONE) {
        tk_sx *m = mask_arg(c, k, 2, p->type);
        if (!m) return v_error();
        sx_add_arg(c, x, m);
    }
    sx_add_attr_text(c, x, "sem", *sem ? sem : "acq_rel");
    sx_add_attr_text(c, x, "scope", *scope_text ? scope_text : "gpu");
    return emit_effect(c, x);
}

value b_atomic(checker *c, call *k) { return atomic(c, k, false); }
value b_atomic_cas(checker *c, call *k) { return atomic(c, k, true); }
