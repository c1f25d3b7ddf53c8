/* The module: imports, module-level constexprs, @func and @kernel
 * definitions gathered, then each kernel checked (kernel.c) in the order
 * written; tk_sema_check, the stage's entry.
 *
 * Needs: a parsed module. Guarantees: a tk_sema_program of every kernel
 * variant and every @func specialization they call, or errors reported. */
#include "internal.h"

#include <string.h>

static const tk_def *find_def(const def_list *defs, const char *name) {
    for (uint32_t i = 0; i < defs->len; i++)
        if (defs->data[i]->name == name) return defs->data[i];
    return NULL;
}

static void check_top_level(checker *c, const tk_module *module, user_module *um);

/* A name the current module binds: an error where it is bound already (by
 * a definition or an import), with a note at the first. */
static bool bind_global(checker *c, const char *name, value v, tk_loc loc) {
    for (uint32_t i = 0; i < c->globals.len; i++)
        if (c->globals.data[i].name == name && c->globals.data[i].val.kind != V_ERROR &&
            (c->globals.data[i].val.kind == V_FUNC || c->globals.data[i].val.kind == V_MODULE ||
             c->globals.data[i].val.kind == V_PYFUNC || v.kind == V_FUNC || v.kind == V_MODULE ||
             v.kind == V_PYFUNC)) {
            sema_error(c, loc, "'%s' is bound twice in this module", name);
            tk_note(c->diag, c->globals.data[i].def_loc, "the first is here");
            return false;
        }
    binding b = {0};
    b.name = name;
    b.val = v;
    b.def_loc = loc;
    tk_vec_push(c->arena, &c->globals, b);
    return true;
}

static const tk_sema_module_file *module_file(checker *c, const char *name) {
    for (uint32_t i = 0; i < c->options->modules.len; i++)
        if (strcmp(c->options->modules.data[i].name, name) == 0) return &c->options->modules.data[i];
    return NULL;
}

/* The imported module `name`, checked (in its own scope) on first use;
 * NULL after an error. */
static user_module *user_module_for(checker *c, const char *name, tk_loc loc) {
    const char *key = tk_intern_cstr(c->names, tk_arena_printf(c->arena, "%s.tk", name));
    user_module *um = sema_user_module(c, key);
    if (!um) {
        const tk_sema_module_file *file = module_file(c, name);
        if (!file) {
            sema_error(c, loc, "no module '%s' was found (tkc looks for %s.tk beside the file that imports it "
                       "and in the -I folders)", name, name);
            return NULL;
        }
        um = TK_NEW(c->arena, user_module);
        um->key = key;
        um->name = name;
        um->file = file;
        tk_vec_push(c->arena, &c->user_modules, um);
    }
    if (um->state == 1) {
        sema_error(c, loc, "module '%s' imports itself (through the modules it imports)", name);
        return NULL;
    }
    if (um->state == 0) {
        um->state = 1;
        scope saved = c->globals;
        frame *saved_frame = c->frame;
        c->globals = (scope){0};
        c->frame = NULL;
        check_top_level(c, um->file->module, um);
        um->globals = c->globals;
        c->globals = saved;
        c->frame = saved_frame;
        um->state = 2;
    }
    return um;
}

/* import NAME [as A], from NAME import f [as g], for a .tk module; from
 * PACKAGE import MODULE [as A] where there is no PACKAGE.tk but a
 * PACKAGE/MODULE.tk (the loader found it as the module PACKAGE.MODULE) */
static void import_user_module(checker *c, const tk_stmt *s) {
    const char *module = s->u.import.module, *name = s->u.import.name, *alias = s->u.import.alias;
    if (name && !module_file(c, module)) {
        const char *dotted = tk_arena_printf(c->arena, "%s.%s", module, name);
        if (module_file(c, dotted)) {
            user_module *sub = user_module_for(c, dotted, s->loc);
            if (!sub) return;
            value v = {.kind = V_MODULE, .loc = s->loc};
            v.u.module = sub->key;
            bind_global(c, tk_intern_cstr(c->names, alias ? alias : name), v, s->loc);
            return;
        }
    }
    user_module *um = user_module_for(c, module, s->loc);
    if (!um) return;
    if (!name) {
        if (!alias && strchr(module, '.')) {
            sema_error(c, s->loc, "import %s as NAME, so that the module has one name here", module);
            return;
        }
        value v = {.kind = V_MODULE, .loc = s->loc};
        v.u.module = um->key;
        bind_global(c, tk_intern_cstr(c->names, alias ? alias : module), v, s->loc);
        return;
    }
    const char *interned = tk_intern_cstr(c->names, name);
    for (uint32_t i = um->globals.len; i-- > 0;) {
        const binding *b = &um->globals.data[i];
        if (b->name != interned) continue;
        value v = b->val;
        v.loc = s->loc;
        bind_global(c, tk_intern_cstr(c->names, alias ? alias : name), v, s->loc);
        return;
    }
    const char *cands[256];
    size_t n = 0;
    for (uint32_t i = 0; i < um->globals.len && n < 256; i++) cands[n++] = um->globals.data[i].name;
    const char *best = suggest(c, name, cands, n);
    sema_error(c, s->loc, "module '%s' (%s) has no @func or constant '%s'%s%s%s", module, um->file->path, name,
               best ? "; did you mean '" : "", best ? best : "", best ? "'?" : "");
}

bool tl_reexporting_module(const char *name) { return strcmp(name, "core") == 0 || strcmp(name, "standard") == 0; }

/* triton.language, or one of its modules that are tl under another name */
static bool is_tl_module(const char *dotted) {
    static const char tl[] = "triton.language";
    if (strncmp(dotted, tl, sizeof tl - 1) != 0) return false;
    const char *rest = dotted + sizeof tl - 1;
    return *rest == '\0' || (*rest == '.' && tl_reexporting_module(rest + 1));
}

static void check_import(checker *c, const tk_stmt *s) {
    const char *module = s->u.import.module, *name = s->u.import.name, *alias = s->u.import.alias;
    const char *full = name ? tk_arena_printf(c->arena, "%s.%s", module, name) : module;
    const char *bound_as = alias ? alias : name ? name : module;
    value v = {.kind = V_MODULE, .loc = s->loc};
    bool tl_part = is_tl_module(module);
    if (is_tl_module(full)) v.u.module = c->n_tl;
    else if (strcmp(full, "triton") == 0) v.u.module = c->n_triton;
    else if (strcmp(full, "triton.language.math") == 0) v.u.module = c->n_math;
    else if (strcmp(full, "triton.language.extra.libdevice") == 0 ||
             strcmp(full, "triton.language.extra.cuda.libdevice") == 0) {
        v.u.module = c->n_libdevice;
        if (!alias && !name) {
            sema_error(c, s->loc, "import %s as NAME (or from %s import libdevice), so the module has a "
                       "name", full, name ? module : "triton.language.extra");
            return;
        }
    }
    else if (name && strcmp(module, "triton.language.extra.cuda") == 0 && builtin_lookup_cuda(name) >= 0) {
        v.kind = V_BUILTIN;
        v.u.builtin = builtin_lookup_cuda(name);
    }
    else if (strcmp(full, "triton.language.extra.cuda") == 0 || strcmp(full, "triton.language.extra") == 0)
        v.u.module = tk_intern_cstr(c->names, full); /* without `as`, `triton` is bound (below) */
    else if (name && (strcmp(module, "triton.language.extra.libdevice") == 0 ||
                      strcmp(module, "triton.language.extra.cuda.libdevice") == 0 ||
                      strcmp(module, "triton.language.math") == 0)) {
        /* from ...libdevice import fast_expf: one function; tl.math's names
         * are tl's where it has them, else libdevice's */
        bool math = module[16] == 'm';
        int id = math && builtin_lookup(c, name, true) >= 0 ? builtin_lookup(c, name, true) : builtin_lookup_libdevice(name);
        if (id < 0) {
            const char *cands[300];
            size_t n = builtin_names(cands, 300, true);
            const char *best = suggest(c, name, cands, n);
            sema_error(c, s->loc, "%s has no function '%s'%s%s%s", module, name, best ? "; did you mean '" : "",
                       best ? best : "", best ? "'?" : "");
            v = v_error();
        } else {
            v.kind = V_BUILTIN;
            v.u.builtin = id;
        }
    } else if (name && tl_part && builtin_lookup(c, name, true) >= 0) {
        v.kind = V_BUILTIN;
        v.u.builtin = builtin_lookup(c, name, true);
    } else if (strncmp(module, "triton", 6) != 0 || (module[6] != '\0' && module[6] != '.')) {
        import_user_module(c, s);
        return;
    } else {
        sema_error(c, s->loc, "tkc knows the modules triton, triton.language (with its core, standard and "
                   "math), triton.language.extra.libdevice (also as triton.language.extra.cuda.libdevice, "
                   "whole or a function at a time) and triton.language.extra.cuda (libdevice, gdc_wait, "
                   "gdc_launch_dependents); '%s' cannot be imported", full);
        /* the name stays bound, to an error: its uses report nothing more */
        binding b = {0};
        b.name = tk_intern_cstr(c->names, bound_as);
        b.val = v_error();
        tk_vec_push(c->arena, &c->globals, b);
        return;
    }
    if (!alias && !name && strchr(module, '.')) bound_as = c->n_triton, v.u.module = c->n_triton;
    binding b = {0};
    b.name = tk_intern_cstr(c->names, bound_as);
    b.val = v;
    tk_vec_push(c->arena, &c->globals, b);
}

static bool is_func_decorated(checker *c, const tk_def *def) {
    for (uint32_t i = 0; i < def->decorators.len; i++) {
        const char *name = decorator_name(c, def->decorators.data[i].expr);
        if (name && strcmp(name, "func") == 0) return true;
    }
    return false;
}

static bool is_kernel_decorated(checker *c, const tk_def *def) {
    for (uint32_t i = 0; i < def->decorators.len; i++) {
        const char *name = decorator_name(c, def->decorators.data[i].expr);
        if (name && strcmp(name, "kernel") == 0) return true;
    }
    return false;
}

/* The top level of a module: imports, @func and @kernel definitions,
 * constants, bound in c->globals (the module's own scope). um: the
 * imported module being checked, or NULL for the file compiled. */
static void check_top_level(checker *c, const tk_module *module, user_module *um) {
    tk_arena *arena = c->arena;
    tk_diag *diag = c->diag;
    for (uint32_t i = 0; i < module->body.len; i++) {
        const tk_stmt *s = module->body.data[i];
        if (s->kind == TK_STMT_IMPORT) {
            check_import(c, s);
        } else if (s->kind == TK_STMT_DEF) {
            const tk_def *def = s->u.def;
            def_list *funcs = um ? &um->funcs : &c->funcs;
            const tk_def *prev = find_def(funcs, def->name);
            if (!prev && !um) prev = find_def(&c->kernels, def->name);
            if (prev) {
                sema_error(c, def->name_loc, "'%s' is defined twice", def->name);
                tk_note(diag, prev->name_loc, "the first definition is here");
                continue;
            }
            if (is_func_decorated(c, def) && !is_kernel_decorated(c, def)) {
                if (def->decorators.len > 1)
                    sema_error(c, def->decorators.data[1].loc, "a @func takes no other decorators");
                tk_vec_push(arena, funcs, def);
                value v = {.kind = V_FUNC, .loc = def->name_loc};
                v.u.def = def;
                bind_global(c, def->name, v, def->name_loc);
                if (um) {
                    struct def_home h = {def, um};
                    tk_vec_push(arena, &c->homes, h);
                }
            } else if (is_kernel_decorated(c, def)) {
                /* an imported module's kernels are its own to compile */
                if (!um) tk_vec_push(arena, &c->kernels, def);
            } else if (def->decorators.len) {
                for (uint32_t d = 0; d < def->decorators.len; d++) {
                    const tk_decorator *dec = &def->decorators.data[d];
                    const char *name = decorator_name(c, dec->expr);
                    static const char *const known[] = {"kernel", "func", "autotune", "heuristics"};
                    const char *s2 = name ? suggest(c, name, known, 4) : NULL;
                    if (name && strcmp(name, "jit") == 0)
                        sema_error(c, dec->loc, "@jit is Triton's; in tkc write @kernel(grid=...) "
                                   "for a kernel and @func for a device function");
                    else if (s2)
                        sema_error(c, dec->loc, "unknown decorator '@%s'; did you mean '@%s'?", name, s2);
                    else if (name && (strcmp(name, "autotune") == 0 || strcmp(name, "heuristics") == 0))
                        sema_error(c, dec->loc, "@%s needs @kernel(grid=...) below it", name);
                    else
                        sema_error(c, dec->loc, "unknown decorator; tkc knows @kernel, @func, "
                                   "@autotune and @heuristics");
                }
            } else {
                /* a plain function: evaluated at compile time where called
                 * (pyfunc.c); one nothing calls is likely a kernel or a
                 * @func missing its decorator (reported at the end) */
                value v = {.kind = V_PYFUNC, .loc = def->name_loc};
                v.u.def = def;
                if (bind_global(c, def->name, v, def->name_loc) && !um) tk_vec_push(arena, &c->plain_funcs, def);
            }
        } else if (s->kind == TK_STMT_ASSIGN) {
            value v = eval_global(c, s->u.assign.value);
            if (v.kind == V_ERROR) continue;
            if (!v_is_const(&v)) {
                sema_error(c, s->u.assign.value->loc, "a top-level assignment must be a compile-time value");
                continue;
            }
            for (uint32_t t = 0; t < s->u.assign.targets.len; t++) {
                const tk_expr *target = s->u.assign.targets.data[t];
                if (target->kind != TK_EXPR_NAME) {
                    sema_error(c, target->loc, "a top-level assignment binds a single name");
                    continue;
                }
                binding b = {0};
                b.name = target->u.name;
                b.val = v;
                b.val.origin = target->loc;
                b.val.origin_name = tk_arena_printf(c->arena, "%s is set here", target->u.name);
                tk_vec_push(arena, &c->globals, b);
            }
        } else if (s->kind != TK_STMT_PASS &&
                   !(s->kind == TK_STMT_EXPR && s->u.expr->kind == TK_EXPR_STRING)) {
            sema_error(c, s->loc, "only functions, imports and constant assignments belong at the "
                       "top level of a .tk file");
        }
    }
}

tk_sema_program *tk_sema_check(tk_arena *arena, tk_interner *names, tk_diag *diag,
                               const tk_module *module, const tk_sema_options *options) {
    checker cc = {0};
    checker *c = &cc;
    c->arena = arena;
    c->names = names;
    c->diag = diag;
    c->module = module;
    c->options = options;
    c->program = TK_NEW(arena, tk_sema_program);
    c->n_tl = tk_intern_cstr(names, "tl");
    c->n_triton = tk_intern_cstr(names, "triton");
    c->n_language = tk_intern_cstr(names, "language");
    c->n_math = tk_intern_cstr(names, "math");
    c->n_libdevice = tk_intern_cstr(names, "libdevice");
    c->n_return = tk_intern_cstr(names, "(return value)");
    c->n_returned = tk_intern_cstr(names, "(returned)");
    check_top_level(c, module, NULL);
    /* __prefix__ = "NAME": the launch header's symbols' default prefix */
    const char *dunder = tk_intern_cstr(names, "__prefix__");
    for (uint32_t i = c->globals.len; i-- > 0;) {
        const binding *b = &c->globals.data[i];
        if (b->name != dunder) continue;
        bool ident = b->val.kind == V_STR && tk_is_c_identifier(b->val.u.str.text, b->val.u.str.len);
        if (ident)
            c->program->prefix = tk_arena_strndup(arena, b->val.u.str.text, b->val.u.str.len);
        else
            sema_error(c, b->def_loc.src ? b->def_loc : b->val.origin, "__prefix__ is the launch header's "
                       "prefix: a string that is a C identifier, not %s", v_describe(c, &b->val));
        break;
    }
    /* -D names must belong to some kernel */
    for (uint32_t i = 0; i < options->defines.len; i++) {
        const char *name = tk_intern_cstr(names, options->defines.data[i].name);
        bool found = launch_option_name(name);
        for (uint32_t k = 0; k < c->kernels.len && !found; k++) {
            const tk_param *p = find_param(c->kernels.data[k], name);
            found = p && p->annotation && annotation_is_constexpr(p->annotation);
        }
        if (!found)
            sema_error(c, (tk_loc){0}, "-D %s: no kernel in %s has a constexpr parameter '%s'",
                       name, module->src->name, name);
    }
    bool matched = false;
    for (uint32_t k = 0; k < c->kernels.len; k++) {
        const tk_def *def = c->kernels.data[k];
        /* --kernel names the kernel (every instance) or one dtype instance (scale_bf16) */
        const char *only = options->only_kernel;
        size_t len = strlen(def->name);
        if (only && strcmp(only, def->name) != 0 && (strncmp(only, def->name, len) != 0 || only[len] != '_'))
            continue;
        matched |= check_kernel(c, def, only && strcmp(only, def->name) != 0 ? only : NULL);
    }
    /* two kernels may not share a launcher: name= against the names */
    const tk_sema_program *pr = c->program;
    for (uint32_t i = 0; i < pr->kernels.len; i++)
        for (uint32_t j = 0; j < i; j++) {
            const tk_sema_kernel *a = pr->kernels.data[i], *b = pr->kernels.data[j];
            const char *na = a->launcher_name ? a->launcher_name : a->name;
            const char *nb = b->launcher_name ? b->launcher_name : b->name;
            if (strcmp(a->name, b->name) == 0 || strcmp(na, nb) != 0) continue;
            sema_error(c, a->loc, "the launchers of '%s' and '%s' would both be named '%s' (name=)", b->name,
                       a->name, na);
            tk_note(diag, b->loc, "'%s' is here", b->name);
            i = pr->kernels.len; /* once */
            break;
        }
    /* a plain function nothing called (checked only where every kernel was) */
    for (uint32_t i = 0; i < c->plain_funcs.len && !options->only_kernel; i++) {
        const tk_def *def = c->plain_funcs.data[i];
        bool called = false;
        for (uint32_t j = 0; j < c->called_plain_funcs.len && !called; j++)
            called = c->called_plain_funcs.data[j] == def;
        if (!called)
            sema_error(c, def->name_loc, "'%s' needs @kernel(grid=...) to be a kernel or @func to be a device "
                       "function (a function without a decorator is evaluated at compile time where it is "
                       "called, and nothing calls this one)", def->name);
    }
    if (options->only_kernel && !matched)
        sema_error(c, (tk_loc){0}, "--kernel %s: %s has no kernel of that name",
                   options->only_kernel, module->src->name);
    return c->program;
}
