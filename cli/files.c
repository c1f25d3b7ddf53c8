/* Files the driver writes: outputs made atomically (a temporary file in
 * the same folder, renamed over the real name only when the run succeeds,
 * so a failure never leaves a new header beside an old cubin), the folders
 * they need, depfiles as gcc writes them, standard input read whole, and
 * the clean-up of temporary files when a signal ends the process.
 * Process-wide state (the clean-up list) lives here, in cli/. */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- clean-up after signals ---- */

#define CLEANUP_SLOTS 16
static struct {
    char path[4096];
    volatile sig_atomic_t used, folder;
} cleanup[CLEANUP_SLOTS];

void cli_cleanup_register(const char *path, bool folder) {
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (!cleanup[i].used && strlen(path) < sizeof cleanup[i].path) {
            strcpy(cleanup[i].path, path);
            cleanup[i].folder = folder;
            cleanup[i].used = 1;
            return;
        }
}

void cli_cleanup_unregister(const char *path) {
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup[i].used && strcmp(cleanup[i].path, path) == 0) cleanup[i].used = 0;
}

/* A temporary folder and what is in it (ptxas's files one level down). */
static void remove_tree(const char *path, int depth) {
    DIR *dir = depth < 4 ? opendir(path) : NULL;
    struct dirent *e;
    char child[4096 + 256];
    while (dir && (e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(child, sizeof child, "%s/%s", path, e->d_name);
        if (unlink(child) != 0) remove_tree(child, depth + 1);
    }
    if (dir) closedir(dir);
    rmdir(path);
}

/* After a signal: not async-signal-safe for folders (opendir), but the
 * process ends right after, and a folder left behind is worse. */
static void remove_registered(void) {
    for (int i = 0; i < CLEANUP_SLOTS; i++) {
        if (!cleanup[i].used) continue;
        if (cleanup[i].folder) remove_tree(cleanup[i].path, 0);
        else unlink(cleanup[i].path);
    }
}

char *cli_make_temp_folder(tk_arena *arena) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char *dir = tk_arena_printf(arena, "%s/tkc-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "tkc: error: cannot make a temporary folder in '%s' (TMPDIR): %s\n", tmp, strerror(errno));
        return NULL;
    }
    cli_cleanup_register(dir, true);
    return dir;
}

void cli_remove_temp_folder(const char *dir) {
    if (!dir) return;
    remove_tree(dir, 0);
    cli_cleanup_unregister(dir);
}

static void on_interrupt(int sig) {
    remove_registered();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A crash is tkc's fault: say so, and exit with status 3 as for any other
 * internal compiler error (write and _exit are async-signal-safe). */
static void on_crash(int sig) {
    remove_registered();
    static const char text[] = "tkc: internal compiler error: the compiler crashed (signal ";
    char num[4] = {(char)('0' + sig / 10 % 10), (char)('0' + sig % 10), ')', '\n'};
    ssize_t ignored = write(2, text, sizeof text - 1);
    ignored = write(2, num, sizeof num);
    (void)ignored;
    _exit(CLI_EXIT_INTERNAL);
}

void cli_install_signal_handlers(void) {
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
    signal(SIGHUP, on_interrupt);
    /* the sanitizers report crashes themselves, with more to say */
#if !defined(__SANITIZE_ADDRESS__)
    signal(SIGSEGV, on_crash);
    signal(SIGBUS, on_crash);
    signal(SIGFPE, on_crash);
    signal(SIGILL, on_crash);
    signal(SIGABRT, on_crash);
#else
    (void)on_crash;
#endif
}

/* ---- folders and outputs ---- */

bool cli_is_folder(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool cli_make_folders(tk_arena *arena, const char *path) {
    char *p = tk_arena_strndup(arena, path, strlen(path));
    char *end = strrchr(p, '/');
    if (!end) return true;
    *end = '\0';
    for (char *s = p + 1; ; s++) {
        bool last = *s == '\0';
        if (*s == '/' || last) {
            char saved = *s;
            *s = '\0';
            if (*p && mkdir(p, 0777) != 0 && errno != EEXIST) {
                fprintf(stderr, "tkc: error: cannot make folder '%s': %s\n", p, strerror(errno));
                return false;
            }
            if (*p && !cli_is_folder(p)) {
                fprintf(stderr, "tkc: error: cannot make folder '%s': a file of that name is in the way\n", p);
                return false;
            }
            *s = saved;
        }
        if (last) break;
    }
    return true;
}

bool cli_output_open(cli_output *o, tk_arena *arena, const char *path) {
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        return true;
    }
    if (!cli_make_folders(arena, path)) return false;
    /* a device, a pipe or a terminal (/dev/stdout, /dev/null) is written as
     * it is: renaming over it would replace it with a file */
    struct stat st;
    char real[PATH_MAX];
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (!(o->f = fopen(path, "wb"))) {
            fprintf(stderr, "tkc: error: cannot write '%s': %s\n", path, strerror(errno));
            return false;
        }
        return true;
    }
    /* through a symbolic link to the file it names (made if need be), which
     * stays a link */
    for (int hops = 0; hops < 16 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
        ssize_t n = readlink(path, real, sizeof real - 1);
        if (n <= 0) break;
        real[n] = '\0';
        const char *slash = strrchr(path, '/');
        path = real[0] == '/' || !slash ? tk_arena_strndup(arena, real, (size_t)n)
                                        : tk_arena_printf(arena, "%.*s/%s", (int)(slash - path), path, real);
    }
    o->path = path;
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    o->tmp_path = tk_arena_printf(arena, "%.*s.%s.tkc-XXXXXX", (int)dir_len, path, slash ? slash + 1 : path);
    int fd = mkstemp(o->tmp_path);
    if (fd < 0) {
        fprintf(stderr, "tkc: error: cannot write '%s': %s\n", path, strerror(errno));
        o->tmp_path = NULL;
        return false;
    }
    cli_cleanup_register(o->tmp_path, false);
    /* mkstemp's 0600 would outlive the rename: give what fopen would */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
        fprintf(stderr, "tkc: error: cannot write '%s': %s\n", path, strerror(errno));
        close(fd);
        cli_output_abandon(o);
        return false;
    }
    return true;
}

/* A write that failed while stdio flushed its buffer leaves only the
 * stream's error flag: fclose can still succeed. Both count. */
bool cli_output_commit(cli_output *o) {
    bool failed = fflush(o->f) != 0 || ferror(o->f);
    int saved = errno;
    bool is_stdout = o->f == stdout;
    if (!is_stdout) {
        if (fclose(o->f) != 0) failed = true;
        else errno = saved;
        o->f = NULL;
        if (!failed && o->tmp_path && rename(o->tmp_path, o->path) != 0) failed = true;
    }
    if (failed) {
        fprintf(stderr, "tkc: error: cannot write '%s': %s\n", is_stdout ? "standard output" : o->path,
                strerror(errno ? errno : EIO));
        if (o->tmp_path) unlink(o->tmp_path);
    }
    if (o->tmp_path) cli_cleanup_unregister(o->tmp_path);
    o->tmp_path = NULL;
    return !failed;
}

void cli_output_abandon(cli_output *o) {
    if (o->f && o->f != stdout) fclose(o->f);
    o->f = NULL;
    if (o->tmp_path) {
        unlink(o->tmp_path);
        cli_cleanup_unregister(o->tmp_path);
    }
    o->tmp_path = NULL;
}

tk_source *cli_read_stdin(tk_arena *arena) {
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    for (;;) {
        if (len == cap) {
            char *bigger = cap < ((size_t)1 << 31) ? realloc(buf, cap * 2) : NULL;
            if (!bigger) {
                free(buf);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, stdin);
        len += n;
        if (n == 0) break;
    }
    if (ferror(stdin)) {
        free(buf);
        return NULL;
    }
    tk_source *src = tk_source_from_string(arena, "<stdin>", buf, len);
    free(buf);
    return src;
}

/* ---- depfiles ---- */

/* A name in a make rule: spaces and '#' escaped with '\', '$' doubled, as
 * gcc does (a target given with -MT is written as it is, as gcc's -MT). */
static void put_make_name(FILE *f, const char *s) {
    for (; *s; s++) {
        if (*s == ' ' || *s == '#') fputc('\\', f);
        if (*s == '$') fputc('$', f);
        fputc(*s, f);
    }
}

bool cli_write_depfile(tk_arena *arena, const cli_options *opt, const char *depfile_path,
                       const char *const *targets, uint32_t ntargets, const char *const *deps, uint32_t ndeps,
                       uint32_t ninputs) {
    cli_output out;
    if (!cli_output_open(&out, arena, depfile_path)) return false;
    for (uint32_t i = 0; i < ntargets; i++) {
        if (i) fputc(' ', out.f);
        if (opt->dep_targets.len) fputs(targets[i], out.f);
        else put_make_name(out.f, targets[i]);
    }
    fputc(':', out.f);
    for (uint32_t i = 0; i < ndeps; i++) {
        fputs(" \\\n ", out.f);
        put_make_name(out.f, deps[i]);
    }
    fputc('\n', out.f);
    /* -MP: each dependency but the inputs a target of its own, so that
     * make does not stop when one is deleted */
    for (uint32_t i = ninputs; opt->dep_phony && i < ndeps; i++) {
        fputc('\n', out.f);
        put_make_name(out.f, deps[i]);
        fputs(":\n", out.f);
    }
    return cli_output_commit(&out);
}
