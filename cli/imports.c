/* The .tk modules a file imports (`import NAME`, `from NAME import f`),
 * found beside the importing file and then in the -I folders (NAME.tk;
 * a.b is a/b.tk; `from a import b` is a.tk's b, or else the module
 * a/b.tk), read, lexed and parsed here, so that sema gets every
 * module it may need and no stage reads files. Needs: a parsed module.
 * Guarantees: each module once in `sema->modules` (a module imported by
 * two others is read once), import cycles and missing modules reported at
 * the import that names them, each file read listed in `deps`. */
#include "cli.h"

#include "../lexer/lexer.h"
#include "../parser/parser.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct loader {
    tk_arena *arena;
    tk_interner *names;
    tk_diag *diag;
    const cli_options *opt;
    tk_sema_options *sema;
    cli_paths *deps;
    cli_paths stack;              /* the modules being loaded, outermost first */
    cli_paths stack_paths;        /* their files */
} loader;

static bool is_triton(const char *module) {
    return strncmp(module, "triton", 6) == 0 && (module[6] == '\0' || module[6] == '.');
}

/* folder/NAME.tk, with a.b as a/b */
static const char *candidate(tk_arena *arena, const char *folder, const char *name) {
    char *rel = tk_arena_printf(arena, "%s.tk", name);
    for (char *p = rel; p < rel + strlen(name); p++)
        if (*p == '.') *p = '/';
    return tk_arena_printf(arena, "%s/%s", folder, rel);
}

/* the file's canonical path (symbolic links and ./ resolved), to know it again */
static const char *real_path(tk_arena *arena, const char *path) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return path;
    return tk_arena_strndup(arena, real, strlen(real));
}

static void load_module(loader *l, const tk_module *module, const char *path);

/* NAME.tk beside the importer, then in each -I folder; NULL when none is
 * there, with the paths tried appended to *looked */
static const char *find_module(loader *l, const char *folder, const char *name, char **looked) {
    const char *path = candidate(l->arena, folder, name);
    *looked = *looked ? tk_arena_printf(l->arena, "%s, %s", *looked, path) : tk_arena_printf(l->arena, "%s", path);
    for (uint32_t i = 0; access(path, R_OK) != 0 && i < l->opt->include_dirs.len; i++) {
        path = candidate(l->arena, l->opt->include_dirs.data[i], name);
        *looked = tk_arena_printf(l->arena, "%s, %s", *looked, path);
    }
    return access(path, R_OK) == 0 ? path : NULL;
}

static void load_import(loader *l, const tk_stmt *s, const char *folder) {
    const char *name = s->u.import.module;
    char *looked = NULL;
    const char *path = find_module(l, folder, name, &looked);
    if (!path && s->u.import.name) {
        /* from PACKAGE import MODULE: PACKAGE/MODULE.tk, the module PACKAGE.MODULE */
        const char *dotted = tk_arena_printf(l->arena, "%s.%s", name, s->u.import.name);
        path = find_module(l, folder, dotted, &looked);
        if (path) name = dotted;
    }
    if (!path) {
        tk_error(l->diag, s->loc, "no module '%s': looked for %s", name, looked);
        if (!l->opt->include_dirs.len) tk_note_plain(l->diag, "-I DIR adds a folder to look in");
        return;
    }
    /* a cycle: the same file on the stack (under whatever name or path) */
    const char *real = real_path(l->arena, path);
    for (uint32_t i = 0; i < l->stack.len; i++) {
        if (strcmp(l->stack_paths.data[i], real) != 0) continue;
        char *chain = tk_arena_printf(l->arena, "%s", l->stack.data[i]);
        for (uint32_t j = i + 1; j < l->stack.len; j++)
            chain = tk_arena_printf(l->arena, "%s imports %s, which", chain, l->stack.data[j]);
        tk_error(l->diag, s->loc, "import cycle: %s imports %s (%s) again", chain, name, path);
        return;
    }
    for (uint32_t i = 0; i < l->sema->modules.len; i++)
        if (strcmp(l->sema->modules.data[i].name, name) == 0) return;
    tk_source *src = tk_source_read(l->arena, path);
    if (!src) {
        tk_error(l->diag, s->loc, "cannot read module '%s' (%s): %s", name, path, strerror(errno));
        return;
    }
    tk_vec_push(l->arena, l->deps, path);
    int errors = l->diag->error_count;
    tk_token_list tokens = tk_lex_source(l->arena, l->names, l->diag, src);
    if (l->diag->error_count > errors) return;
    tk_module *parsed = tk_parse_tokens(l->arena, l->names, l->diag, src, &tokens);
    if (l->diag->error_count > errors) return;
    tk_sema_module_file file = {name, path, parsed};
    tk_vec_push(l->arena, &l->sema->modules, file);
    tk_vec_push(l->arena, &l->stack, name);
    tk_vec_push(l->arena, &l->stack_paths, real);
    load_module(l, parsed, path);
    l->stack.len--;
    l->stack_paths.len--;
}

static void load_module(loader *l, const tk_module *module, const char *path) {
    const char *slash = strrchr(path, '/');
    const char *folder = strcmp(path, "-") == 0 ? "." : slash ? tk_arena_strndup(l->arena, path, (size_t)(slash - path)) : ".";
    if (slash == path) folder = "/";
    for (uint32_t i = 0; i < module->body.len; i++) {
        const tk_stmt *s = module->body.data[i];
        if (s->kind == TK_STMT_IMPORT && s->u.import.module && !is_triton(s->u.import.module))
            load_import(l, s, folder);
    }
}

void cli_load_imports(tk_arena *arena, tk_interner *names, tk_diag *diag, const cli_options *opt,
                      const tk_module *module, const char *path, tk_sema_options *sema, cli_paths *deps) {
    loader l = {arena, names, diag, opt, sema, deps, {0}, {0}};
    tk_vec_push(arena, &l.stack, "the file compiled");
    tk_vec_push(arena, &l.stack_paths, real_path(arena, path));
    load_module(&l, module, path);
}
