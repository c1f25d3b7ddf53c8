/* Names and scopes: binding a name, looking it up (the frame, the module's
 * globals, an imported module's), copying a scope for a branch, and the
 * "unknown name; did you mean" message. Needs: value.c, module.c. */
#include "internal.h"

#include <string.h>

user_module *sema_user_module(checker *c, const char *key) {
    for (uint32_t i = 0; i < c->user_modules.len; i++)
        if (c->user_modules.data[i]->key == key) return c->user_modules.data[i];
    return NULL;
}

user_module *sema_home_of(checker *c, const tk_def *def) {
    for (uint32_t i = 0; i < c->homes.len; i++)
        if (c->homes.data[i].def == def) return c->homes.data[i].home;
    return NULL;
}

binding *lookup_in(scope *s, const char *name) {
    for (uint32_t i = s->len; i-- > 0;)
        if (s->data[i].name == name) return &s->data[i];
    return NULL;
}

binding *lookup(checker *c, const char *name) {
    binding *b = lookup_in(&c->comp_names, name);
    if (b) return b;
    b = c->frame ? lookup_in(&c->frame->names, name) : NULL;
    if (b) return b;
    for (uint32_t i = c->globals.len; i-- > 0;)
        if (c->globals.data[i].name == name) return &c->globals.data[i];
    return NULL;
}

binding *bind(checker *c, scope *s, const char *name, value v, tk_loc def_loc) {
    binding *b = lookup_in(s, name);
    if (!b) {
        binding nb = {0};
        nb.name = name;
        tk_vec_push(c->arena, s, nb);
        b = &s->data[s->len - 1];
    }
    b->val = v;
    b->var = NULL;
    b->state = BOUND;
    b->def_loc = def_loc;
    return b;
}

void unknown_name(checker *c, const char *name, tk_loc loc) {
    /* a module of triton.language used without its import: say how to
     * reach it, not which name it looks like */
    if (tl_reexporting_module(name) || name == c->n_math) {
        sema_error(c, loc, "unknown name '%s'; write tl.%s, or import triton.language.%s as %s", name, name, name,
                   name);
        return;
    }
    if (strcmp(name, "num_sms") == 0) {
        sema_error(c, loc, "unknown name 'num_sms'; num_sms() is a kernel parameter's default: declare "
                   "'NUM_SMS: i32 = num_sms()', which the launcher fills in from the device");
        return;
    }
    if (strcmp(name, "libdevice") == 0) {
        sema_error(c, loc, "unknown name 'libdevice'; from triton.language.extra import libdevice");
        return;
    }
    const char *cands[512];
    size_t n = 0;
    if (c->frame)
        for (uint32_t i = 0; i < c->frame->names.len && n < 256; i++)
            cands[n++] = c->frame->names.data[i].name;
    for (uint32_t i = 0; i < c->globals.len && n < 300; i++) cands[n++] = c->globals.data[i].name;
    n += builtin_names(cands + n, 512 - n, false);
    const char *s = suggest(c, name, cands, n);
    if (s) {
        sema_error(c, loc, "unknown name '%s'; did you mean '%s'?", name, s);
    } else {
        sema_error(c, loc, "unknown name '%s'", name);
    }
}

scope copy_scope(checker *c, const scope *s) {
    scope out = {0};
    for (uint32_t i = 0; i < s->len; i++) tk_vec_push(c->arena, &out, s->data[i]);
    return out;
}
