/* What the rest of tkc reads of a builtin, by id: its name, namespaces,
 * lowering bits and scratch family, from builtins.def without the
 * checkers (those are builtins.c's table), so that printing and the
 * passes after sema need nothing of the checker. */
#include "internal.h"

#include <string.h>

static const struct builtin_props {
    const char *name;
    unsigned namespaces;
    unsigned lowering;          /* TK_BP_ bits */
    tk_scratch_kind scratch;
} props[] = {
#define BUILTIN(id, name, params, namespaces, check, lowering, scratch) {name, namespaces, lowering, scratch},
#include "builtins.def"
#undef BUILTIN
};

enum { PROPS_COUNT = sizeof props / sizeof props[0] };
_Static_assert((int)PROPS_COUNT == (int)TK_BUILTIN_COUNT, "builtins.def gives the table and the enum alike");

int tk_sema_builtin_id(const char *name) {
    for (int i = 0; i < PROPS_COUNT; i++)
        if (strcmp(props[i].name, name) == 0 && (props[i].namespaces & (B_TL | B_METHOD))) return i;
    return -1;
}

const char *tk_sema_builtin_name(int id) { return id >= 0 && id < PROPS_COUNT ? props[id].name : "?"; }

unsigned builtin_namespaces(int id) { return id >= 0 && id < PROPS_COUNT ? props[id].namespaces : 0; }

unsigned tk_builtin_lowering(int id) { return id >= 0 && id < PROPS_COUNT ? props[id].lowering : 0; }

tk_scratch_kind tk_builtin_scratch(int id) {
    return id >= 0 && id < PROPS_COUNT ? props[id].scratch : TK_SCRATCH_NONE;
}
