/* @func calls and parameters: binding arguments to a @func's parameters,
 * one specialization per distinct signature (argument types and
 * constexprs), its result, and the types parameter annotations name.
 * Needs: stmt.c for the body, scope.c. Guarantees: recursion is an error;
 * a @func whose body failed gives V_ERROR at every later call, silently. */
#include "internal.h"

#include <string.h>

/* ---- @func calls ---------------------------------------------------------- */

static bool param_is_constexpr(checker *c, const tk_param *p) {
    (void)c;
    return p->annotation && annotation_is_constexpr(p->annotation);
}

/* Binds positional and keyword arguments to a def's parameters, defaults
 * filled in. Returns false after reporting what does not match. */
static bool bind_arguments(checker *c, const tk_def *def, value *args, uint32_t count,
                           const char **kw_names, value *kw_values, const tk_loc *kw_locs,
                           uint32_t kw_count, tk_loc loc, value *out) {
    uint32_t n = def->params.len;
    bool *set = TK_NEW_ARRAY(c->arena, bool, n + 1);
    if (count > n) {
        sema_error(c, args[n].loc.src ? args[n].loc : loc, "'%s' takes %u argument%s but %u were given",
                   def->name, n, n == 1 ? "" : "s", count);
        tk_note(c->diag, def->name_loc, "'%s' is defined here", def->name);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        out[i] = args[i];
        set[i] = true;
    }
    for (uint32_t k = 0; k < kw_count; k++) {
        uint32_t i = 0;
        while (i < n && def->params.data[i].name != kw_names[k]) i++;
        if (i == n) {
            const char *cands[64];
            size_t nc = 0;
            for (uint32_t j = 0; j < n && nc < 64; j++) cands[nc++] = def->params.data[j].name;
            const char *s = suggest(c, kw_names[k], cands, nc);
            tk_loc at = kw_locs ? kw_locs[k] : loc;
            if (s) sema_error(c, at, "'%s' has no parameter '%s'; did you mean '%s'?", def->name, kw_names[k], s);
            else sema_error(c, at, "'%s' has no parameter '%s'", def->name, kw_names[k]);
            tk_note(c->diag, def->name_loc, "'%s' is defined here", def->name);
            return false;
        }
        if (set[i]) {
            sema_error(c, kw_locs ? kw_locs[k] : loc, "'%s' gets parameter '%s' twice", def->name, kw_names[k]);
            return false;
        }
        out[i] = kw_values[k];
        set[i] = true;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (set[i]) continue;
        const tk_param *p = &def->params.data[i];
        if (!p->default_value) {
            sema_error(c, loc, "'%s' is missing the argument '%s'", def->name, p->name);
            tk_note(c->diag, p->loc, "'%s' is declared here", p->name);
            return false;
        }
        frame *saved = c->frame;
        c->frame = NULL; /* defaults see only top-level names */
        out[i] = eval(c, p->default_value);
        c->frame = saved;
    }
    return true;
}

static void append_signature(checker *c, char **buf, const value *v) {
    const char *part = v->kind == V_RT ? tk_type_str(c->arena, v->u.rt->type) : const_text(c, v);
    *buf = tk_arena_printf(c->arena, "%s%s%s", *buf, **buf ? "," : "", part);
}

/* The items of the flat tuple in var, nested as `shape` (the value the
 * @func returned, whose compile-time items stay compile-time: the same on
 * every path that returns; NULL: flat). */
static value nest_items(checker *c, const value *shape, const tk_sema_var *var, uint32_t *next, tk_loc loc) {
    const tk_type *t = var->type;
    if (shape && shape->kind == V_TUPLE) {
        value tup = v_tuple(c, loc, shape->count);
        for (uint32_t i = 0; i < shape->count; i++) tup.items[i] = nest_items(c, &shape->items[i], var, next, loc);
        return tup;
    }
    if (shape && v_is_const(shape)) {
        value k = *shape;
        k.loc = loc;
        return k;
    }
    tk_sx *g = sx_new(c, TK_SX_TUPLE_GET, t->items[*next], loc);
    g->index = (*next)++;
    sx_add_arg(c, g, sx_var(c, var, loc));
    return v_rt(g);
}

static value runtime_result(checker *c, tk_sx *call, const value *shape, tk_loc loc) {
    const tk_type *t = call->type;
    if (t->kind == TK_TYPE_VOID) {
        tk_ss *s = ss_new(c, TK_SS_EXPR, loc);
        s->value = call;
        emit_stmt(c, s);
        return (value){.kind = V_NONE, .loc = loc};
    }
    tk_sema_var *var = new_var(c, "_", t, loc);
    emit_assign(c, var, call, loc);
    if (t->kind != TK_TYPE_TUPLE) return v_rt(sx_var(c, var, loc));
    uint32_t next = 0;
    if (!shape || shape->kind != V_TUPLE) {
        value tup = v_tuple(c, loc, t->count);
        for (uint32_t i = 0; i < t->count; i++) tup.items[i] = nest_items(c, NULL, var, &next, loc);
        return tup;
    }
    return nest_items(c, shape, var, &next, loc);
}

typedef TK_VEC(const tk_type *) type_list;

/* A returned tuple's items, nested tuples flattened, to the tuple t. */
static bool flatten_returned(checker *c, const value *v, tk_sx *t, type_list *types) {
    for (uint32_t i = 0; i < v->count; i++) {
        if (v->items[i].kind == V_TUPLE) {
            if (!flatten_returned(c, &v->items[i], t, types)) return false;
            continue;
        }
        if (v_is_const(&v->items[i])) continue; /* the call has it */
        tk_sx *x = to_runtime(c, &v->items[i], NULL);
        if (!x) return false;
        tk_vec_push(c->arena, types, x->type);
        sx_add_arg(c, t, x);
    }
    return true;
}

/* The runtime form of a @func's return value. */
static tk_sx *return_sx(checker *c, const value *v) {
    if (v->kind == V_NONE) return NULL;
    if (v->kind == V_TUPLE) {
        /* runtime items travel flat; the call nests them again, with the
         * compile-time ones */
        type_list types = {0};
        tk_sx *t = sx_new(c, TK_SX_TUPLE, NULL, v->loc);
        if (!flatten_returned(c, v, t, &types)) return NULL;
        t->type = ty_tuple(c, types.len, types.data);
        return t;
    }
    return to_runtime(c, v, NULL);
}

value call_func(checker *c, const tk_def *def, value *args, uint32_t count,
                const char **kw_names, value *kw_values, const tk_loc *kw_locs,
                uint32_t kw_count, tk_loc loc) {
    if (c->frame && c->frame->in_grid) {
        sema_error(c, loc, "a @func cannot be called in a grid expression: grids are computed on "
                   "the host");
        return v_error();
    }
    for (uint32_t i = 0; i < c->call_stack.len; i++) {
        if (c->call_stack.data[i] == def) {
            sema_error(c, loc, "'%s' calls itself; recursion is not supported", def->name);
            return v_error();
        }
    }
    uint32_t n = def->params.len;
    value *bound = TK_NEW_ARRAY(c->arena, value, n + 1);
    if (!bind_arguments(c, def, args, count, kw_names, kw_values, kw_locs, kw_count, loc, bound))
        return v_error();
    char *sig = "";
    for (uint32_t i = 0; i < n; i++) {
        if (bound[i].kind == V_ERROR) return v_error();
        if (param_is_constexpr(c, &def->params.data[i]) && !v_is_const(&bound[i])) {
            sema_error(c, bound[i].loc, "'%s' is a constexpr parameter of '%s' but gets %s",
                       def->params.data[i].name, def->name, v_describe(c, &bound[i]));
            return v_error();
        }
        if (bound[i].kind == V_TUPLE && !v_is_const(&bound[i])) {
            sema_error(c, bound[i].loc, "passing a tuple of runtime values to a @func is not "
                       "supported yet; pass its items separately");
            return v_error();
        }
        append_signature(c, &sig, &bound[i]);
    }
    const char *key = tk_intern_cstr(c->names, sig);
    tk_sema_func *fn = NULL;
    uint32_t instance = 0;
    for (uint32_t i = 0; i < c->instances.len; i++) {
        if (c->instances.data[i].def == def && c->instances.data[i].signature == key) {
            if (c->instances.data[i].failed) return v_error();
            fn = c->instances.data[i].func;
            instance = i;
        }
    }
    if (!fn) {
        fn = TK_NEW(c->arena, tk_sema_func);
        fn->name = def->name;
        fn->loc = def->name_loc;
        uint32_t index = 0;
        for (uint32_t i = 0; i < c->instances.len; i++) index += c->instances.data[i].def->name == def->name; /* two modules may both define a name */
        fn->instance = index;
        func_instance_key k = {def, key, fn};
        tk_vec_push(c->arena, &c->instances, k);
        uint32_t counter = 0;
        frame f = {0};
        f.out = &fn->body;
        f.var_counter = &counter;
        f.def = def;
        frame *saved = c->frame;
        c->frame = &f;
        for (uint32_t i = 0; i < n; i++) {
            const tk_param *p = &def->params.data[i];
            if (bound[i].kind == V_RT) {
                tk_sema_var *var = new_var(c, p->name, bound[i].u.rt->type, p->loc);
                tk_vec_push(c->arena, &fn->params, var);
                binding *b = bind(c, &f.names, p->name, v_rt(sx_var(c, var, p->loc)), p->loc);
                b->var = var;
            } else {
                value cv = bound[i];
                cv.origin = p->loc;
                cv.origin_name = tk_arena_printf(c->arena, "%s is bound here by the call", p->name);
                bind(c, &f.names, p->name, cv, p->loc);
                tk_sema_const_binding cb = {p->name, const_text(c, &bound[i])};
                tk_vec_push(c->arena, &fn->constexprs, cb);
            }
        }
        uint32_t key_index = c->instances.len - 1;
        instance = key_index;
        int errors_before = c->diag->error_count;
        tk_vec_push(c->arena, &c->call_stack, def);
        /* an imported module's @func reads its own module's names */
        user_module *home = sema_home_of(c, def);
        scope caller_globals = c->globals;
        if (home) c->globals = home->globals;
        begin_func_body(c, &def->body, def->name_loc);
        exec_block(c, &def->body);
        c->globals = caller_globals;
        c->call_stack.len--;
        if (c->diag->error_count > errors_before) {
            tk_note(c->diag, loc, "in '%s', called here", def->name);
            c->instances.data[key_index].failed = true;
            c->frame = saved;
            return v_error();
        }
        fn->result = ty_void(c);
        binding *branch_ret = f.has_return_value ? NULL : lookup_in(&f.names, c->n_return);
        if (f.has_return_value && lookup_in(&f.names, c->n_return)) {
            /* a return inside a runtime if that the end would not see */
            tk_internal_error(c->diag, f.return_loc, "a return inside a runtime if of '%s' is lost", def->name);
            c->instances.data[key_index].failed = true;
            c->frame = saved;
            return v_error();
        }
        /* Python would give None on a bare return's path, or at the end */
        bool some_paths = (branch_ret && branch_ret->state != BOUND) || !func_paths_return(c, &def->body);
        if ((f.bare_return && f.value_return) || some_paths) {
            sema_error(c, def->name_loc, some_paths ? "'%s' returns a value on some paths only (a runtime if returns "
                                                      "in one branch)"
                                                    : "'%s' returns a value on some paths and nothing (a bare return) "
                                                      "on others; a @func returns one type",
                       def->name);
            tk_note(c->diag, loc, "in '%s', called here", def->name);
            c->instances.data[key_index].failed = true;
            c->frame = saved;
            return v_error();
        }
        if (branch_ret) {
            f.has_return_value = true;
            f.return_value = branch_ret->var ? v_rt(sx_var(c, branch_ret->var, f.return_loc)) : branch_ret->val;
        }
        if (f.has_return_value && f.return_value.kind != V_NONE && v_is_const(&f.return_value)) {
            /* a compile-time result (a block size, a dtype): the call is that
             * value, and runs the body only for its effects */
            c->instances.data[key_index].const_result = true;
            c->instances.data[key_index].result = f.return_value;
        } else if (f.has_return_value) {
            tk_sx *r = return_sx(c, &f.return_value);
            if (r) {
                tk_ss *s = ss_new(c, TK_SS_RETURN, f.return_loc);
                s->value = r;
                emit_stmt(c, s);
                fn->result = r->type;
                c->instances.data[key_index].result = f.return_value; /* how its tuples nest */
            } else if (f.return_value.kind != V_NONE) {
                tk_note(c->diag, loc, "in '%s', called here", def->name);
                c->instances.data[key_index].failed = true;
                c->frame = saved;
                return v_error();
            }
        }
        c->frame = saved;
        /* one that only computes a constant is never called */
        if (!c->instances.data[key_index].const_result || fn->body.len)
            tk_vec_push(c->arena, &c->program->funcs, fn);
    }
    tk_sx *call = sx_new(c, TK_SX_CALL, fn->result, loc);
    call->func = fn;
    for (uint32_t i = 0; i < n; i++)
        if (bound[i].kind == V_RT) sx_add_arg(c, call, bound[i].u.rt);
    const func_instance_key *inst = &c->instances.data[instance];
    if (inst->const_result) {
        if (fn->body.len) runtime_result(c, call, NULL, loc);
        value r = inst->result;
        r.loc = loc;
        r.origin = loc;
        r.origin_name = tk_arena_printf(c->arena, "returned by this call of '%s'", def->name);
        return r;
    }
    return runtime_result(c, call, &inst->result, loc);
}

/* ---- annotations ------------------------------------------------------ */

bool annotation_is_constexpr(const tk_expr *a) {
    const char *name = a->kind == TK_EXPR_NAME ? a->u.name : a->kind == TK_EXPR_ATTR ? a->u.attr.name : NULL;
    return name && (strcmp(name, "constexpr") == 0 || strcmp(name, "dtype") == 0);
}

/* Does e name n alone or as tl.n / triton.language.n? */
static bool names_tl(checker *c, const tk_expr *e, const char *n) {
    if (e->kind == TK_EXPR_NAME) return strcmp(e->u.name, n) == 0;
    if (e->kind != TK_EXPR_ATTR || strcmp(e->u.attr.name, n) != 0) return false;
    const tk_expr *o = e->u.attr.object;
    return (o->kind == TK_EXPR_NAME && (o->u.name == c->n_tl || o->u.name == c->n_triton)) ||
           (o->kind == TK_EXPR_ATTR && o->u.attr.name == c->n_language);
}

bool annotation_is_descriptor(checker *c, const tk_expr *a) {
    return a->kind == TK_EXPR_SUBSCRIPT && names_tl(c, a->u.subscript.object, "tensor_descriptor");
}

/* tensor_descriptor[DT, [B0, B1, ...]], optionally with "zero" or "nan"
 * padding third: a parameter the launcher builds from a tensor (its
 * data, shape and strides), loaded and stored by blocks of that shape.
 * Until the instance's constexprs are bound (the declaration's own
 * check) only the element type and padding are known. */
bool descriptor_annotation(checker *c, const tk_expr *a, bool evaluate, const tk_type **out) {
    const tk_expr_list *items = &a->u.subscript.indices;
    if (items->len < 2 || items->len > 3) {
        sema_error(c, a->loc, "a descriptor parameter is written tensor_descriptor[f16, [BLOCK_M, BLOCK_K]]: an "
                   "element type and a block shape, then optionally the padding \"zero\" or \"nan\"");
        return false;
    }
    const tk_type *elem;
    if (!annotation_type(c, items->data[0], &elem)) return false;
    if (!elem || elem->kind != TK_TYPE_SCALAR || elem->dtype == TK_I1) {
        sema_error(c, items->data[0]->loc, "a tensor descriptor holds numbers, not %s%s",
                   elem ? tk_type_str(c->arena, elem) : "constexpr", elem && elem->kind == TK_TYPE_SCALAR ? " (i8 holds booleans)" : "");
        return false;
    }
    bool nan = false;
    if (items->len == 3) {
        const tk_expr *pad = items->data[2];
        bool zero = pad->kind == TK_EXPR_STRING && !strcmp(pad->u.string.text, "zero");
        nan = pad->kind == TK_EXPR_STRING && !strcmp(pad->u.string.text, "nan");
        if (!zero && !nan) {
            sema_error(c, pad->loc, "a tensor descriptor's padding is \"zero\" or \"nan\"");
            return false;
        }
        if (nan && !tk_dtype_is_float(elem->dtype)) {
            sema_error(c, pad->loc, "\"nan\" padding needs floating-point elements, not %s", tk_dtype_name(elem->dtype));
            return false;
        }
    }
    uint32_t rank = 0;
    int64_t shape[TK_MAX_RANK] = {0};
    if (evaluate) {
        value block = eval(c, items->data[1]);
        if (!descriptor_block(c, &block, elem->dtype, &rank, shape)) return false;
    }
    *out = tk_type_tensor_desc(c->arena, elem->dtype, rank, shape, nan);
    return true;
}

/* The type a parameter's or a name's annotation names (x: *f32, BLOCK:
 * tl.constexpr, x: *DT where DT is a dtype parameter of the kernel
 * instance being checked or a module-level dtype); NULL for constexpr. */
bool annotation_type(checker *c, const tk_expr *a, const tk_type **out) {
    if (a->kind == TK_EXPR_POINTER_TYPE) {
        const tk_type *inner;
        if (!annotation_type(c, a->u.pointee, &inner)) return false;
        if (!inner) {
            sema_error(c, a->loc, "a pointer to constexpr has no meaning");
            return false;
        }
        *out = ty_pointer(c, inner);
        return true;
    }
    if (annotation_is_descriptor(c, a)) return descriptor_annotation(c, a, false, out);
    const char *name = a->kind == TK_EXPR_NAME ? a->u.name : a->kind == TK_EXPR_ATTR ? a->u.attr.name : NULL;
    if (a->kind == TK_EXPR_ATTR) {
        const tk_expr *o = a->u.attr.object;
        bool known = (o->kind == TK_EXPR_NAME && (o->u.name == c->n_tl || o->u.name == c->n_triton)) ||
                     (o->kind == TK_EXPR_ATTR && o->u.attr.name == c->n_language);
        if (!known) name = NULL;
    }
    if (name && annotation_is_constexpr(a)) {
        *out = NULL;
        return true;
    }
    tk_dtype d;
    if (name && dtype_from_name(name, &d)) {
        *out = ty_scalar(c, d);
        return true;
    }
    if (a->kind == TK_EXPR_NAME) {
        for (uint32_t i = 0; i < c->type_params.len; i++)
            if (c->type_params.data[i].name == name) {
                *out = ty_scalar(c, c->type_params.data[i].dtype);
                return true;
            }
        const binding *g = lookup_in(&c->globals, name);
        if (g && g->val.kind == V_DTYPE && !g->val.count) {
            *out = ty_scalar(c, g->val.u.dtype);
            return true;
        }
    }
    /* Python's int and float, as Triton passes them: i32 (the launcher
     * checks the range) and f32 */
    if (a->kind == TK_EXPR_NAME && (strcmp(name, "int") == 0 || strcmp(name, "float") == 0)) {
        *out = ty_scalar(c, name[0] == 'i' ? TK_I32 : TK_F32);
        return true;
    }
    if (name && strcmp(name, "tensor") == 0) {
        sema_error(c, a->loc, "a tensor argument is a pointer here: write its element type, as in *f32");
        return false;
    }
    const char *cands[] = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16",
                           "bf16", "f32", "f64", "f8e4m3", "f8e5m2", "constexpr"};
    const char *s = name ? suggest(c, name, cands, sizeof cands / sizeof cands[0]) : NULL;
    if (s) sema_error(c, a->loc, "unknown type '%s'; did you mean '%s'?", name, s);
    else if (a->kind == TK_EXPR_NAME)
        sema_error(c, a->loc, "unknown type '%s': expected a dtype such as f32, a pointer such as *f16, constexpr, "
                   "or a dtype parameter of the kernel (x: *DT with DT: dtype = tl.float16)", name);
    else sema_error(c, a->loc, "not a type: expected a dtype such as f32, a pointer such as *f16, or constexpr");
    return false;
}
