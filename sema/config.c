/* Autotune configs as compile-time values:
 *     config(NAME=value, ..., num_warps=4, num_stages=3)
 *     triton.Config({'NAME': value, ...}, num_warps=4, num_stages=3)
 * evaluate to a V_CONFIG (the pairs NAME, value in the order written), so
 * a config list may be written out, built by a comprehension, bound to a
 * module-level name or returned by a plain function before @autotune
 * reads it (kernel.c checks the names against the kernel's parameters).
 * A special form: Config's dict is not a value anywhere else.
 *
 * Needs: expr.c's eval. Guarantees: a V_CONFIG whose names are interned
 * V_STRs located where they are written, or V_ERROR reported. */
#include "builtin.h"

#include <string.h>

typedef TK_VEC(value) value_list;

/* Config's own options after its dict: positional in this order */
static const char *const config_options[] = {"num_warps", "num_stages", "num_ctas", "maxnreg", "pre_hook"};
enum { N_CONFIG_OPTIONS = sizeof config_options / sizeof config_options[0] };

static bool add_entry(checker *c, value_list *pairs, const char *name, tk_loc name_loc, value v) {
    if (v.kind == V_RT) {
        sema_error(c, v.loc, "'%s' of a config must be a compile-time value, not %s", name, v_describe(c, &v));
        return false;
    }
    for (uint32_t i = 0; i < pairs->len; i += 2)
        if (pairs->data[i].u.str.text == name) {
            sema_error(c, name_loc, "'%s' is set twice in this config", name);
            tk_note(c->diag, pairs->data[i].loc, "the first is here");
            return false;
        }
    /* Triton's defaults for what tkc has no use for */
    bool is_default = (strcmp(name, "num_ctas") == 0 && v.kind == V_INT && v.u.i == 1) ||
                      ((strcmp(name, "maxnreg") == 0 || strcmp(name, "pre_hook") == 0) && v.kind == V_NONE);
    if (is_default) return true;
    if (strcmp(name, "num_ctas") == 0 || strcmp(name, "pre_hook") == 0) {
        sema_error(c, name_loc, "config option '%s' is not supported yet", name);
        return false;
    }
    value key = {.kind = V_STR, .loc = name_loc};
    key.u.str.text = name;
    key.u.str.len = (uint32_t)strlen(name);
    tk_vec_push(c->arena, pairs, key);
    tk_vec_push(c->arena, pairs, v);
    return true;
}

value eval_config(checker *c, const tk_expr *e) {
    const tk_expr_list *args = &e->u.call.args;
    value_list pairs = {0};
    bool ok = true;
    uint32_t positional = 0;
    const tk_expr *dict = args->len && args->data[0]->kind == TK_EXPR_DICT ? args->data[0] : NULL;
    if (dict) {
        for (uint32_t j = 0; j + 1 < dict->u.items.len; j += 2) {
            const tk_expr *key = dict->u.items.data[j];
            if (key->kind != TK_EXPR_STRING) {
                sema_error(c, key->loc, "the keys of a Config's dict are parameter names in quotes");
                ok = false;
                continue;
            }
            const char *name = tk_intern(c->names, key->u.string.text, key->u.string.len);
            for (uint32_t o = 0; o < N_CONFIG_OPTIONS; o++)
                if (strcmp(name, config_options[o]) == 0) {
                    sema_error(c, key->loc, "'%s' is an argument of Config, not a key of its dict", name);
                    name = NULL;
                    break;
                }
            value v = eval(c, dict->u.items.data[j + 1]);
            if (!name || v.kind == V_ERROR) {
                ok = false;
                continue;
            }
            ok &= add_entry(c, &pairs, name, key->loc, v);
        }
    }
    for (uint32_t i = dict ? 1 : 0; i < args->len; i++) {
        const tk_expr *a = args->data[i];
        const char *name;
        tk_loc name_loc;
        const tk_expr *val_expr;
        if (a->kind == TK_EXPR_KEYWORD) {
            name = a->u.keyword.name;
            name_loc = a->u.keyword.name_loc;
            val_expr = a->u.keyword.value;
        } else if (dict && positional < N_CONFIG_OPTIONS) {
            name = tk_intern_cstr(c->names, config_options[positional++]);
            name_loc = a->loc;
            val_expr = a;
        } else {
            sema_error(c, a->loc, "config() takes NAME=value arguments, or a dict first as in "
                       "triton.Config({'BM': 128}, num_warps=4)");
            ok = false;
            continue;
        }
        value v = eval(c, val_expr);
        if (v.kind == V_ERROR) {
            ok = false;
            continue;
        }
        ok &= add_entry(c, &pairs, name, name_loc, v);
    }
    if (!ok) return v_error();
    value cfg = {.kind = V_CONFIG, .loc = e->loc, .count = pairs.len / 2};
    cfg.items = TK_NEW_ARRAY(c->arena, value, pairs.len + 1);
    for (uint32_t i = 0; i < pairs.len; i++) cfg.items[i] = pairs.data[i];
    return cfg;
}

/* The table's checker: expr.c evaluates every call of config with
 * eval_config before its arguments (the dict is no value), so this only
 * answers a call that reached the table some other way. */
value b_config(checker *c, call *k) {
    sema_error(c, k->loc, "%s(...) builds an autotune config; its arguments are NAME=value", k->name);
    return v_error();
}
