/* support: the basics every stage shares (prefix tk_).
 *
 * - tk_arena: bump allocation per compilation; everything a compilation
 *   builds lives in one and dies with it (no frees, no free-lists).
 * - TK_VEC: growable arrays whose storage comes from an arena.
 * - tk_intern: unique copies of strings, compared by pointer.
 * - tk_source / tk_loc: the text of a file and exact positions in it.
 * - tk_diag: GCC-style diagnostics with the source line, a caret and an
 *   underline, notes, warnings that -Werror turns into errors.
 */
#ifndef TK_SUPPORT_H
#define TK_SUPPORT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "target.h"

/* ---- arena ---------------------------------------------------------- */

typedef struct tk_arena_block tk_arena_block;
typedef struct tk_arena {
    tk_arena_block *head;
    size_t used_total;
} tk_arena;

/* Returns zeroed memory aligned to 16 bytes; aborts only when malloc fails. */
void *tk_arena_alloc(tk_arena *arena, size_t size);
char *tk_arena_strndup(tk_arena *arena, const char *s, size_t len);
char *tk_arena_printf(tk_arena *arena, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tk_arena_free(tk_arena *arena);

#define TK_NEW(arena, T) ((T *)tk_arena_alloc((arena), sizeof(T)))
#define TK_NEW_ARRAY(arena, T, n) ((T *)tk_arena_alloc((arena), sizeof(T) * (size_t)(n)))

/* ---- growable arrays in an arena ------------------------------------ */

#define TK_VEC(T) struct { T *data; uint32_t len, cap; }

/* Makes room for `need` elements; the old storage stays in the arena. */
void tk_vec_reserve_(tk_arena *arena, void **data, uint32_t *cap, uint32_t need,
                     size_t elem_size);

#define tk_vec_push(arena, vec, value)                                          \
    (tk_vec_reserve_((arena), (void **)&(vec)->data, &(vec)->cap, (vec)->len + 1, \
                     sizeof *(vec)->data),                                      \
     (vec)->data[(vec)->len++] = (value))

/* ---- string interning ----------------------------------------------- */

typedef struct tk_interner {
    tk_arena *arena;
    const char **slots;
    uint32_t cap, count;
} tk_interner;

void tk_interner_init(tk_interner *in, tk_arena *arena);
const char *tk_intern(tk_interner *in, const char *s, size_t len);
const char *tk_intern_cstr(tk_interner *in, const char *s);

/* ---- sources and locations ------------------------------------------ */

typedef struct tk_source {
    const char *name;     /* as the user spelled it */
    const char *text;     /* NUL-terminated copy of the file */
    uint32_t len;
    uint32_t *line_starts; /* byte offset of each line, 1-based line n at [n-1] */
    uint32_t line_count;
} tk_source;

/* A range in one source: line/col (1-based, col counts bytes) of the first
 * byte, and the byte range [begin, end). */
typedef struct tk_loc {
    const tk_source *src;
    uint32_t line, col;
    uint32_t begin, end;
} tk_loc;

/* Reads a file into the arena; returns NULL and sets errno on failure. */
tk_source *tk_source_read(tk_arena *arena, const char *path);
tk_source *tk_source_from_string(tk_arena *arena, const char *name, const char *text,
                                 size_t len);
/* The location spanning from the start of a to the end of b. */
tk_loc tk_loc_span(tk_loc a, tk_loc b);
/* The location of byte offset `at` (length `len`) in src. */
tk_loc tk_loc_at(const tk_source *src, uint32_t at, uint32_t len);

/* ---- diagnostics ----------------------------------------------------- */

/* The warnings, each with its -W name (warnings.def). */
typedef enum tk_warning_kind {
#define TK_WARNING(id, name, what) TK_W_##id,
#include "warnings.def"
#undef TK_WARNING
    TK_WARNING_COUNT
} tk_warning_kind;

/* The -W name of a warning, and the warning of a -W name (false if none). */
const char *tk_warning_name(tk_warning_kind kind);
const char *tk_warning_what(tk_warning_kind kind);
bool tk_warning_find(const char *name, tk_warning_kind *kind);

typedef enum tk_warning_state { TK_WARN_ON, TK_WARN_OFF, TK_WARN_ERROR } tk_warning_state;

typedef struct tk_diag {
    FILE *out;
    bool color;
    bool warnings_are_errors;                         /* -Werror */
    bool suppress_warnings;                           /* -w */
    unsigned char warning_state[TK_WARNING_COUNT];    /* -Wno-NAME, -Werror=NAME (tk_warning_state) */
    int internal_error_count;                         /* of error_count: tk_internal_error's */
    int error_count, warning_count;
    int error_limit;      /* stop reporting after this many (0: no limit) */
    bool last_suppressed; /* notes after a suppressed error are dropped */
    /* Reports wait here until tk_diag_flush, which writes them in source
     * order (a report's notes stay with it). */
    struct tk_diag_entry { uint32_t line, col, seq; char *text; } *pending;
    uint32_t pending_count, pending_cap;
} tk_diag;

void tk_diag_init(tk_diag *d, FILE *out, bool color);
/* Drops the reports waiting for tk_diag_flush, unwritten. */
void tk_diag_discard(tk_diag *d);
void tk_error(tk_diag *d, tk_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A warning of `kind`: dropped when it is off, an error under -Werror or
 * -Werror=NAME; the report ends with "[-Wname]". */
void tk_warning(tk_diag *d, tk_warning_kind kind, tk_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Whether a warning of `kind` would be reported (to skip work that only warns). */
bool tk_warning_enabled(const tk_diag *d, tk_warning_kind kind);
/* An error that is tkc's fault, not the input's ("internal compiler error:
 * ..."): counted apart, so that the driver exits with status 3. */
void tk_internal_error(tk_diag *d, tk_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A note belongs to the error or warning reported just before it. */
void tk_note(tk_diag *d, tk_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A note with no position (hints like "did you mean"). */
void tk_note_plain(tk_diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tk_verror(tk_diag *d, tk_loc loc, const char *fmt, va_list ap);
/* Writes the pending reports sorted by position and frees them. */
void tk_diag_flush(tk_diag *d);

/* ---- paths written into outputs ----------------------------------------- */

/* -ffile-prefix-map=OLD=NEW: a path that starts with OLD (a whole path
 * component) is written with NEW instead, in line tables and assertion
 * messages, so that builds in different folders give the same bytes. */
typedef struct tk_path_map {
    const char *old_prefix, *new_prefix;
} tk_path_map;
typedef TK_VEC(tk_path_map) tk_path_maps;

/* path as the maps write it (the last map given that matches wins, as in
 * GCC); path itself when none matches */
const char *tk_path_remap(tk_arena *arena, const char *path, const tk_path_maps *maps);

/* ---- small helpers ----------------------------------------------------- */

/* Is s[0..len) a C identifier (letters, digits, '_'; not a digit first)? */
bool tk_is_c_identifier(const char *s, size_t len);
/* Edit distance used for "did you mean" suggestions. */
unsigned tk_edit_distance(const char *a, const char *b);
bool tk_is_pow2(int64_t v);
uint64_t tk_hash_bytes(const void *p, size_t n);
double tk_now_ms(void);
/* The shortest decimal that reads back as f, with a '.0' when it looks
 * like an integer (Python's repr). */
void tk_format_double(char *buf, size_t size, double f);

#endif
