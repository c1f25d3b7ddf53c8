/* Diagnostics: `file:line:col: error: message`, the source line, a caret and
 * underline over the range, then notes. Needs: locations inside their
 * tk_source (or a NULL src for messages about no place in particular). */
#include "support.h"

#include <stdlib.h>
#include <string.h>

enum severity { SEV_ERROR, SEV_WARNING, SEV_NOTE };

static const char *const sev_name[] = {"error", "warning", "note"};
static const char *const sev_color[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};

void tk_diag_init(tk_diag *d, FILE *out, bool color) {
    memset(d, 0, sizeof *d);
    d->out = out;
    d->color = color;
    d->error_limit = 50;
}

static void print_source_line(tk_diag *d, tk_loc loc, enum severity sev) {
    const tk_source *src = loc.src;
    if (!src || loc.line == 0 || loc.line > src->line_count) return;
    uint32_t start = src->line_starts[loc.line - 1];
    uint32_t stop = start;
    while (stop < src->len && src->text[stop] != '\n' && src->text[stop] != '\r') stop++;
    fprintf(d->out, "%5u | %.*s\n", loc.line, (int)(stop - start), src->text + start);
    fprintf(d->out, "      | ");
    uint32_t caret = loc.begin < start ? start : loc.begin;
    if (caret > stop) caret = stop;
    for (uint32_t i = start; i < caret; i++) fputc(src->text[i] == '\t' ? '\t' : ' ', d->out);
    uint32_t end = loc.end > stop ? stop : loc.end;
    if (d->color) fputs(sev_color[sev], d->out);
    fputc('^', d->out);
    for (uint32_t i = caret + 1; i < end; i++) fputc('~', d->out);
    if (d->color) fputs("\033[0m", d->out);
    fputc('\n', d->out);
}

/* Starts a new pending entry for an error or warning; notes append to the
 * last one. Returns the stream to render into (closed by finish_entry). */
static FILE *begin_entry(tk_diag *d, tk_loc loc, enum severity sev, char **buf, size_t *len) {
    if (sev == SEV_NOTE && d->pending_count) return open_memstream(buf, len);
    if (d->pending_count == d->pending_cap) {
        d->pending_cap = d->pending_cap ? d->pending_cap * 2 : 16;
        struct tk_diag_entry *bigger = realloc(d->pending, d->pending_cap * sizeof *bigger);
        if (!bigger) abort();
        d->pending = bigger;
    }
    struct tk_diag_entry *e = &d->pending[d->pending_count++];
    e->line = loc.src ? loc.line : 0;
    e->col = loc.src ? loc.col : 0;
    e->seq = d->pending_count;
    e->text = NULL;
    return open_memstream(buf, len);
}

static void finish_entry(tk_diag *d, FILE *f, char **buf_slot) {
    fclose(f); /* only now is *buf_slot final */
    char *buf = *buf_slot;
    struct tk_diag_entry *e = &d->pending[d->pending_count - 1];
    if (!e->text) {
        e->text = buf;
        return;
    }
    size_t a = strlen(e->text), b = strlen(buf);
    char *joined = realloc(e->text, a + b + 1);
    if (!joined) abort();
    memcpy(joined + a, buf, b + 1);
    e->text = joined;
    free(buf);
}

static int by_position(const void *pa, const void *pb) {
    const struct tk_diag_entry *a = pa, *b = pb;
    if (a->line != b->line) return a->line < b->line ? -1 : 1;
    if (a->col != b->col) return a->col < b->col ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void tk_diag_discard(tk_diag *d) {
    for (uint32_t i = 0; i < d->pending_count; i++) free(d->pending[i].text);
    free(d->pending);
    d->pending = NULL;
    d->pending_count = d->pending_cap = 0;
}

void tk_diag_flush(tk_diag *d) {
    if (d->pending_count == 0) return;
    qsort(d->pending, d->pending_count, sizeof *d->pending, by_position);
    for (uint32_t i = 0; i < d->pending_count; i++) {
        /* the same report twice (a kernel checked once per variant) shows once */
        bool repeated = false;
        for (uint32_t j = 0; j < i && !repeated; j++)
            repeated = strcmp(d->pending[j].text, d->pending[i].text) == 0;
        if (!repeated) fputs(d->pending[i].text, d->out);
    }
    tk_diag_discard(d);
    fflush(d->out);
}

static const char *const warning_names[] = {
#define TK_WARNING(id, name, what) name,
#include "warnings.def"
#undef TK_WARNING
};
static const char *const warning_whats[] = {
#define TK_WARNING(id, name, what) what,
#include "warnings.def"
#undef TK_WARNING
};

const char *tk_warning_name(tk_warning_kind kind) { return warning_names[kind]; }
const char *tk_warning_what(tk_warning_kind kind) { return warning_whats[kind]; }

bool tk_warning_find(const char *name, tk_warning_kind *kind) {
    for (int k = 0; k < TK_WARNING_COUNT; k++)
        if (strcmp(warning_names[k], name) == 0) {
            *kind = (tk_warning_kind)k;
            return true;
        }
    return false;
}

bool tk_warning_enabled(const tk_diag *d, tk_warning_kind kind) {
    return !d->suppress_warnings && d->warning_state[kind] != TK_WARN_OFF;
}

/* Is warning `name` silenced on the lines loc spans by a comment
 * `# tkc: no-NAME` (several may follow one another: `# tkc: no-a no-b`)? */
static bool silenced_by_comment(tk_loc loc, const char *name) {
    const tk_source *src = loc.src;
    if (!src || loc.line == 0 || loc.line > src->line_count) return false;
    uint32_t start = src->line_starts[loc.line - 1], stop = start;
    uint32_t last = loc.end > start ? loc.end : start;
    while (stop < src->len && (stop < last || (src->text[stop] != '\n' && src->text[stop] != '\r'))) stop++;
    size_t n = strlen(name);
    bool in_comment = false;
    for (uint32_t i = start; i < stop; i++) {
        if (src->text[i] == '\n') in_comment = false;
        if (src->text[i] == '#') in_comment = true;
        if (!in_comment || i + 3 + n > stop || strncmp(src->text + i, "no-", 3) != 0) continue;
        if (strncmp(src->text + i + 3, name, n) != 0) continue;
        char after = i + 3 + n < stop ? src->text[i + 3 + n] : ' ';
        if (after != ' ' && after != ',' && after != '\t' && after != '\n' && after != '\r') continue;
        /* within `# tkc: ...` */
        for (uint32_t j = i; j > start && src->text[j] != '#'; j--)
            if (j >= 4 && strncmp(src->text + j - 4, "tkc:", 4) == 0) return true;
    }
    return false;
}

/* kind: the warning's, or -1 for errors and notes */
static void report(tk_diag *d, tk_loc loc, enum severity sev, int kind, const char *fmt, va_list ap) {
    bool werror = false;
    if (sev == SEV_WARNING && (!tk_warning_enabled(d, (tk_warning_kind)kind) ||
                               silenced_by_comment(loc, tk_warning_name((tk_warning_kind)kind)))) {
        d->last_suppressed = true;
        return;
    }
    if (sev == SEV_WARNING && (d->warnings_are_errors || d->warning_state[kind] == TK_WARN_ERROR)) {
        sev = SEV_ERROR;
        werror = true;
    }
    if (sev == SEV_ERROR) {
        d->error_count++;
        d->last_suppressed = d->error_limit && d->error_count > d->error_limit;
        if (d->last_suppressed) {
            if (d->error_count == d->error_limit + 1) {
                tk_loc none = {0};
                char *buf = NULL;
                size_t len = 0;
                FILE *f = begin_entry(d, none, SEV_ERROR, &buf, &len);
                if (!f) abort();
                fprintf(f, "tkc: too many errors; stopping after %d\n", d->error_limit);
                finish_entry(d, f, &buf);
                d->pending[d->pending_count - 1].line = UINT32_MAX;
            }
            return;
        }
    } else if (sev == SEV_WARNING) {
        d->warning_count++;
        d->last_suppressed = false;
    } else if (d->last_suppressed) {
        return;
    }
    char *buf = NULL;
    size_t buf_len = 0;
    FILE *real_out = d->out;
    FILE *f = begin_entry(d, loc, sev, &buf, &buf_len);
    if (!f) abort();
    d->out = f;
    if (d->color) fputs("\033[1m", d->out);
    if (loc.src)
        fprintf(d->out, "%s:%u:%u: ", loc.src->name, loc.line, loc.col);
    else
        fputs("tkc: ", d->out);
    if (d->color) fputs(sev_color[sev], d->out);
    fprintf(d->out, "%s: ", sev_name[sev]);
    if (d->color) fputs("\033[0m\033[1m", d->out);
    vfprintf(d->out, fmt, ap);
    if (kind >= 0) fprintf(d->out, " [-W%s%s]", werror ? "error=" : "", warning_names[kind]);
    if (d->color) fputs("\033[0m", d->out);
    fputc('\n', d->out);
    print_source_line(d, loc, sev);
    d->out = real_out;
    finish_entry(d, f, &buf);
}

void tk_verror(tk_diag *d, tk_loc loc, const char *fmt, va_list ap) {
    report(d, loc, SEV_ERROR, -1, fmt, ap);
}

void tk_error(tk_diag *d, tk_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(d, loc, SEV_ERROR, -1, fmt, ap);
    va_end(ap);
}

void tk_internal_error(tk_diag *d, tk_loc loc, const char *fmt, ...) {
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    d->internal_error_count++;
    tk_error(d, loc, "internal compiler error: %s", text);
}

void tk_warning(tk_diag *d, tk_warning_kind kind, tk_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(d, loc, SEV_WARNING, (int)kind, fmt, ap);
    va_end(ap);
}

void tk_note(tk_diag *d, tk_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(d, loc, SEV_NOTE, -1, fmt, ap);
    va_end(ap);
}

void tk_note_plain(tk_diag *d, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    tk_loc none = {0};
    report(d, none, SEV_NOTE, -1, fmt, ap);
    va_end(ap);
}
