/* --shared: the library a --python module loads (NAME_tkpy.so), built
 * from NAME_tkpy.c and the runtime's source by the system C compiler.
 * The runtime is found beside tkc: installed, PREFIX/share/tkc (tkrt.c,
 * tkrt.h) for PREFIX/bin/tkc; in a build tree, runtime_stub/ one or two
 * levels above the binary; or where TKC_RUNTIME_DIR says. Compiled with
 * hidden visibility, so that two such libraries in one process keep their
 * own runtime. The library is written under a temporary name and renamed
 * into place, as every output is (files.c's cli_output). */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static const char *runtime_dir(tk_arena *arena) {
    const char *env = getenv("TKC_RUNTIME_DIR");
    if (env && *env) return env;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = '\0';
    static const char *const below[] = {"../share/tkc", "../runtime_stub", "../../runtime_stub"};
    for (size_t i = 0; i < sizeof below / sizeof below[0]; i++) {
        const char *dir = tk_arena_printf(arena, "%s/%s", exe, below[i]);
        if (is_file(tk_arena_printf(arena, "%s/tkrt.c", dir)) && is_file(tk_arena_printf(arena, "%s/tkrt.h", dir)))
            return dir;
    }
    return NULL;
}

bool cli_build_python_library(tk_arena *arena, const char *source, const char *library) {
    const char *rt = runtime_dir(arena);
    if (!rt) {
        fprintf(stderr, "tkc: error: --shared needs the runtime's source (tkrt.c, tkrt.h), found neither beside tkc "
                        "nor in TKC_RUNTIME_DIR; build %s yourself (its first lines say how)\n", source);
        return false;
    }
    /* the compiler writes the output's temporary file, which commit renames into place */
    cli_output out;
    if (!cli_output_open(&out, arena, library)) return false;
    const char *tmp = out.tmp_path;
    /* $CC split into words, as make does */
    const char *cc = getenv("CC");
    char *words = tk_arena_printf(arena, "%s", cc && *cc ? cc : "cc");
    const char *argv[64];
    int argc = 0;
    for (char *w = strtok(words, " \t"); w && argc < 40; w = strtok(NULL, " \t")) argv[argc++] = w;
    const char *rest[] = {"-O2", "-fPIC", "-shared", "-fvisibility=hidden", "-I", rt, source,
                          tk_arena_printf(arena, "%s/tkrt.c", rt), "-o", tmp, "-ldl", "-lpthread"};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) argv[argc++] = rest[i];
    argv[argc] = NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "tkc: error: cannot run the C compiler '%s' (CC): %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int status = 0;
    bool ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!ok && pid < 0) fprintf(stderr, "tkc: error: cannot start the C compiler: %s\n", strerror(errno));
    else if (!ok && !(WIFEXITED(status) && WEXITSTATUS(status) == 127))
        fprintf(stderr, "tkc: error: the C compiler '%s' failed to build %s\n", argv[0], library);
    if (!ok) {
        cli_output_abandon(&out);
        return false;
    }
    return cli_output_commit(&out);
}
