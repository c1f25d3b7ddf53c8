/* Arena allocation and arena-backed growable arrays.
 * Needs: nothing. Guarantees: memory is zeroed and 16-byte aligned, and is
 * released all at once by tk_arena_free. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

struct tk_arena_block {
    tk_arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char bytes[];
};

enum { TK_ARENA_BLOCK = 64 * 1024 };

static void *out_of_memory(void) {
    fputs("tkc: out of memory\n", stderr);
    abort();
}

void *tk_arena_alloc(tk_arena *arena, size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (size == 0) size = 16;
    tk_arena_block *b = arena->head;
    if (!b || b->size - b->used < size) {
        size_t block_size = size > TK_ARENA_BLOCK ? size : TK_ARENA_BLOCK;
        b = malloc(sizeof *b + block_size);
        if (!b) return out_of_memory();
        b->size = block_size;
        b->used = 0;
        /* A block made for one large request goes behind the head, so the
         * head's free space is still used by the next small requests. */
        if (arena->head && block_size > TK_ARENA_BLOCK) {
            b->next = arena->head->next;
            arena->head->next = b;
        } else {
            b->next = arena->head;
            arena->head = b;
        }
    }
    void *p = b->bytes + b->used;
    b->used += size;
    arena->used_total += size;
    memset(p, 0, size);
    return p;
}

char *tk_arena_strndup(tk_arena *arena, const char *s, size_t len) {
    char *p = tk_arena_alloc(arena, len + 1);
    memcpy(p, s, len);
    p[len] = 0;
    return p;
}

char *tk_arena_printf(tk_arena *arena, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = tk_arena_alloc(arena, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void tk_arena_free(tk_arena *arena) {
    tk_arena_block *b = arena->head;
    while (b) {
        tk_arena_block *next = b->next;
        free(b);
        b = next;
    }
    arena->head = NULL;
    arena->used_total = 0;
}

void tk_vec_reserve_(tk_arena *arena, void **data, uint32_t *cap, uint32_t need,
                     size_t elem_size) {
    if (need <= *cap) return;
    uint32_t new_cap = *cap ? *cap * 2 : 8;
    while (new_cap < need) new_cap *= 2;
    void *p = tk_arena_alloc(arena, elem_size * new_cap);
    if (*data) memcpy(p, *data, elem_size * *cap);
    *data = p;
    *cap = new_cap;
}
