/* Choices compiled into a header (tkc --tune-table, with --tune=off):
 * header_tune.tk built with a table choosing config 2 of clobber_restore
 * for n=100 on "Fake GPU" (run.sh writes it). A key in the table takes its
 * config untimed, a key not in it the nearest one's, and a kernel the
 * table does not name its first config; nothing is ever timed.
 *
 *   header_tune_table_test FAKE_LIBCUDA.so   (that header on the include path)
 *
 * Prints "ok" and exits 0, or a FAIL line for each failure and exits 1. */
#define TKC_IMPLEMENTATION /* this file holds the module */
#include "header_tune.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL header_tune_table_test:%d: ", __LINE__);                                  \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* `s` came from one launch (since `before`) of a grid of `grid` blocks */
#define ONE_LAUNCH(what, grid)                                                                     \
    CHECK(s == TK_SUCCESS && *launches == before + 1 && last_grid[0] == (unsigned)(grid),          \
          "%s: %d launches, grid %u, not one of %u (%s)", what, *launches - before, last_grid[0],   \
          (unsigned)(grid), tkrt_status_string(s))

int main(int argc, char **argv)
{
    static int x[4096];
    unsigned *last_grid;
    int *launches, before;
    void *lib;
    tk_status s;
    if (argc != 2) {
        printf("FAIL header_tune_table_test: usage: header_tune_table_test FAKE_LIBCUDA.so\n");
        return 1;
    }
    setenv("TKRT_LIBCUDA", argv[1], 1);
    lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    last_grid = lib ? (unsigned *)dlsym(lib, "fake_last_grid") : NULL;
    launches = lib ? (int *)dlsym(lib, "fake_launches") : NULL;
    if (!last_grid || !launches) {
        printf("FAIL header_tune_table_test: cannot load the fake driver\n");
        return 1;
    }
    before = *launches;
    s = clobber_restore(NULL, x, 100);
    ONE_LAUNCH("n=100, in the table: B=64", 2);
    before = *launches;
    s = clobber_restore(NULL, x, 150);
    ONE_LAUNCH("n=150, the nearest (100) takes B=64", 3);
    before = *launches;
    s = clobber_any(NULL, x, 64);
    ONE_LAUNCH("clobber_any, no choices: its first config", 4);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
