/* String interning: equal strings get one pointer, so names compare with ==.
 * Needs: an arena that outlives every use of the returned strings. */
#include "support.h"

#include <string.h>

uint64_t tk_hash_bytes(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

void tk_interner_init(tk_interner *in, tk_arena *arena) {
    in->arena = arena;
    in->cap = 256;
    in->count = 0;
    in->slots = TK_NEW_ARRAY(arena, const char *, in->cap);
}

static void grow(tk_interner *in) {
    uint32_t old_cap = in->cap;
    const char **old = in->slots;
    in->cap *= 2;
    in->slots = TK_NEW_ARRAY(in->arena, const char *, in->cap);
    for (uint32_t i = 0; i < old_cap; i++) {
        if (!old[i]) continue;
        uint32_t j = (uint32_t)tk_hash_bytes(old[i], strlen(old[i])) & (in->cap - 1);
        while (in->slots[j]) j = (j + 1) & (in->cap - 1);
        in->slots[j] = old[i];
    }
}

const char *tk_intern(tk_interner *in, const char *s, size_t len) {
    if (in->count * 2 >= in->cap) grow(in);
    uint32_t j = (uint32_t)tk_hash_bytes(s, len) & (in->cap - 1);
    while (in->slots[j]) {
        const char *t = in->slots[j];
        if (strncmp(t, s, len) == 0 && t[len] == 0) return t;
        j = (j + 1) & (in->cap - 1);
    }
    in->slots[j] = tk_arena_strndup(in->arena, s, len);
    in->count++;
    return in->slots[j];
}

const char *tk_intern_cstr(tk_interner *in, const char *s) {
    return tk_intern(in, s, strlen(s));
}
