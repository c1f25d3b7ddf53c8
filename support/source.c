/* Source files and locations.
 * Guarantees: a tk_source's text is NUL-terminated and its line table covers
 * every byte, so any tk_loc inside it can be printed. */
#include "support.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void index_lines(tk_arena *arena, tk_source *src) {
    uint32_t lines = 1;
    for (uint32_t i = 0; i < src->len; i++)
        if (src->text[i] == '\n') lines++;
    src->line_starts = TK_NEW_ARRAY(arena, uint32_t, lines);
    src->line_count = lines;
    uint32_t n = 0;
    src->line_starts[n++] = 0;
    for (uint32_t i = 0; i < src->len; i++)
        if (src->text[i] == '\n') src->line_starts[n++] = i + 1;
}

tk_source *tk_source_from_string(tk_arena *arena, const char *name, const char *text,
                                 size_t len) {
    tk_source *src = TK_NEW(arena, tk_source);
    src->name = tk_arena_strndup(arena, name, strlen(name));
    src->text = tk_arena_strndup(arena, text, len);
    src->len = (uint32_t)len;
    index_lines(arena, src);
    return src;
}

tk_source *tk_source_read(tk_arena *arena, const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            char *bigger = realloc(buf, cap);
            if (!bigger) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) break;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed || len > UINT32_MAX / 2) {
        free(buf);
        errno = failed ? EIO : EFBIG;
        return NULL;
    }
    tk_source *src = tk_source_from_string(arena, path, buf, len);
    free(buf);
    return src;
}

tk_loc tk_loc_span(tk_loc a, tk_loc b) {
    /* an empty range (an %empty rule's) contributes nothing */
    if (!a.src || a.begin == a.end) return b.src ? b : a;
    if (!b.src || a.src != b.src || b.begin == b.end) return a;
    tk_loc r = a.begin <= b.begin ? a : b;
    uint32_t end = a.end > b.end ? a.end : b.end;
    r.end = end;
    return r;
}

tk_loc tk_loc_at(const tk_source *src, uint32_t at, uint32_t len) {
    tk_loc loc = {src, 1, 1, at, at + len};
    uint32_t lo = 0, hi = src->line_count;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (src->line_starts[mid] <= at) lo = mid; else hi = mid;
    }
    loc.line = lo + 1;
    loc.col = at - src->line_starts[lo] + 1;
    return loc;
}

unsigned tk_edit_distance(const char *a, const char *b) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63) return 64;
    unsigned row[64];
    for (size_t j = 0; j <= lb; j++) row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
            unsigned best = diag + cost;
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

bool tk_is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

double tk_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

void tk_format_double(char *buf, size_t size, double f) {
    if (f != f) {
        snprintf(buf, size, "nan");
        return;
    }
    if (f == 1.0 / 0.0 || f == -1.0 / 0.0) {
        snprintf(buf, size, f > 0 ? "inf" : "-inf");
        return;
    }
    for (int precision = 1; precision <= 17; precision++) {
        snprintf(buf, size, "%.*g", precision, f);
        if (strtod(buf, NULL) == f) break;
    }
    if (!strpbrk(buf, ".e")) {
        size_t n = strlen(buf);
        if (n + 3 <= size) memcpy(buf + n, ".0", 3);
    }
}

bool tk_is_c_identifier(const char *s, size_t len) {
    if (len == 0 || (s[0] >= '0' && s[0] <= '9')) return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

const char *tk_path_remap(tk_arena *arena, const char *path, const tk_path_maps *maps) {
    for (uint32_t i = maps ? maps->len : 0; i-- > 0;) {
        const tk_path_map *m = &maps->data[i];
        size_t n = strlen(m->old_prefix);
        /* "/a/b" maps "/a/b" and "/a/b/c", not "/a/bc"; "/a/b/" maps what it prefixes */
        if (strncmp(path, m->old_prefix, n) != 0) continue;
        if (n && m->old_prefix[n - 1] != '/' && path[n] != '\0' && path[n] != '/') continue;
        return tk_arena_printf(arena, "%s%s", m->new_prefix, path + n);
    }
    return path;
}
