/* Autotuning through a generated header (header_tune.tk) on the fake
 * driver: the fastest config is chosen once per key and context and then
 * looked up; trials restore or zero the buffers named for it; a capturing
 * stream is never timed; threads tuning one key tune it once; a kernel
 * whose writes nothing names takes the first config untimed.
 *
 *   header_tune_test FAKE_LIBCUDA.so      (header_tune.h on the include path)
 *
 * Prints "ok" and exits 0, or a FAIL line for each failure and exits 1. */
#include "header_tune.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
static unsigned *last_grid;
static int *launches, *events_live, *allocations_live;
static void (*set_kernel_ms)(const char *name, double ms);
static void (*set_capturing)(void *stream);
static void *(*context_create)(void);
static int (*set_current)(void *ctx);

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            printf("FAIL header_tune_test:%d: ", __LINE__);                                        \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* every entry of a config (its _d16 twin too) takes `ms` */
static void times(const char *kernel, const double *ms, int n)
{
    char name[128];
    int i;
    for (i = 0; i < n; i++) {
        snprintf(name, sizeof name, "%s__v%d", kernel, i);
        set_kernel_ms(name, ms[i]);
        snprintf(name, sizeof name, "%s__v%d_d16", kernel, i);
        set_kernel_ms(name, ms[i]);
    }
}

static void *hook(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        printf("FAIL header_tune_test: the fake driver lacks %s\n", name);
        exit(1);
    }
    return p;
}

static int shared_x[8192];

static void *launch_restore(void *arg)
{
    tk_status s = clobber_restore(NULL, shared_x, 5000);
    (void)arg;
    return (void *)(size_t)(s != TK_SUCCESS);
}

int main(int argc, char **argv)
{
    static int x[8192];
    void *lib, *stream = (void *)(size_t)0x5150;
    int before, tuning_launches;
    tk_status s;
    if (argc != 2) {
        printf("FAIL header_tune_test: usage: header_tune_test FAKE_LIBCUDA.so\n");
        return 1;
    }
    setenv("TKRT_LIBCUDA", argv[1], 1);
    lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        printf("FAIL header_tune_test: %s\n", dlerror());
        return 1;
    }
    last_grid = (unsigned *)hook(lib, "fake_last_grid");
    launches = (int *)hook(lib, "fake_launches");
    events_live = (int *)hook(lib, "fake_events_live");
    allocations_live = (int *)hook(lib, "fake_allocations_live");
    *(void **)&set_kernel_ms = hook(lib, "fake_set_kernel_ms");
    *(void **)&set_capturing = hook(lib, "fake_set_capturing");
    *(void **)&context_create = hook(lib, "fake_context_create");
    *(void **)&set_current = hook(lib, "cuCtxSetCurrent");

    /* the middle config is fastest: chosen, launched on the arguments, and
     * the trials restore x each time (the real launch adds its 1) */
    {
        static const double ms[3] = {3.0, 1.0, 2.0};
        times("clobber_restore", ms, 3);
    }
    memset(x, 0, sizeof x);
    x[0] = 41;
    before = *launches;
    s = clobber_restore(NULL, x, 100);
    CHECK(s == TK_SUCCESS, "clobber_restore: %s", tkrt_status_string(s));
    tuning_launches = *launches - before;
    CHECK(tuning_launches > 3, "clobber_restore: %d launches, no trials", tuning_launches);
    CHECK(last_grid[0] == 4, "clobber_restore n=100: grid %u, not the B=32 config's 4", last_grid[0]);
    CHECK(x[0] == 42, "clobber_restore: x[0] is %d after the trials and one launch, not 42", x[0]);
    CHECK(*events_live == 0 && *allocations_live == 0, "tuning left %d events, %d allocations", *events_live,
          *allocations_live);
    /* the same key: looked up, one launch */
    before = *launches;
    s = clobber_restore(NULL, x, 100);
    CHECK(s == TK_SUCCESS && *launches == before + 1 && last_grid[0] == 4 && x[0] == 43,
          "clobber_restore again: %d launches, grid %u, x[0] %d", *launches - before, last_grid[0], x[0]);
    /* a new key is tuned again: now the last config wins */
    {
        static const double ms[3] = {3.0, 2.0, 0.5};
        times("clobber_restore", ms, 3);
    }
    before = *launches;
    s = clobber_restore(NULL, x, 1000);
    CHECK(s == TK_SUCCESS && *launches - before > 3, "clobber_restore n=1000 was not tuned (%d launches)",
          *launches - before);
    CHECK(last_grid[0] == 16, "clobber_restore n=1000: grid %u, not the B=64 config's 16", last_grid[0]);
    /* capturing: no trials; the nearest key's choice (1000 for 900, 100
     * for 110), one launch each */
    set_capturing(stream);
    before = *launches;
    s = clobber_restore(stream, x, 900);
    CHECK(s == TK_SUCCESS && *launches == before + 1 && last_grid[0] == 15,
          "capturing n=900: %d launches, grid %u (the n=1000 choice gives 15)", *launches - before, last_grid[0]);
    before = *launches;
    s = clobber_restore(stream, x, 110);
    CHECK(s == TK_SUCCESS && *launches == before + 1 && last_grid[0] == 4,
          "capturing n=110: %d launches, grid %u (the n=100 choice gives 4)", *launches - before, last_grid[0]);
    /* nothing tuned in a new context: the first config */
    {
        void *ctx = context_create(), *old = NULL;
        int (*get_current)(void **);
        *(void **)&get_current = hook(lib, "cuCtxGetCurrent");
        get_current(&old);
        set_current(ctx);
        before = *launches;
        s = clobber_restore(stream, x, 100);
        CHECK(s == TK_SUCCESS && *launches == before + 1 && last_grid[0] == 7,
              "capturing in a new context: %d launches, grid %u (the first config gives 7)", *launches - before,
              last_grid[0]);
        set_capturing(NULL);
        /* and, not capturing, that context tunes the key itself */
        before = *launches;
        s = clobber_restore(NULL, x, 100);
        CHECK(s == TK_SUCCESS && *launches - before > 3 && last_grid[0] == 2,
              "a new context tunes n=100 anew: %d launches, grid %u (B=64 now fastest: 2)", *launches - before,
              last_grid[0]);
        set_current(old);
    }
    /* threads wanting one new key: one of them tunes it */
    {
        pthread_t threads[8];
        void *failed;
        int t, tuned_before = *launches;
        static const double ms[3] = {3.0, 1.0, 2.0};
        times("clobber_restore", ms, 3);
        s = clobber_restore(NULL, x, 5001); /* how many launches a tuning takes now */
        tuning_launches = *launches - tuned_before;
        before = *launches;
        for (t = 0; t < 8; t++)
            pthread_create(&threads[t], NULL, launch_restore, NULL);
        for (t = 0; t < 8; t++) {
            pthread_join(threads[t], &failed);
            CHECK(!failed, "thread %d: launch failed", t);
        }
        CHECK(*launches - before == tuning_launches + 7, "8 threads, one key: %d launches, expected %d",
              *launches - before, tuning_launches + 7);
    }
    /* reset_to_zero: every trial and the real launch start from 0 */
    {
        static const double ms[2] = {1.0, 2.0};
        times("clobber_reset", ms, 2);
    }
    x[0] = 1000;
    s = clobber_reset(NULL, x, 64, 3);
    CHECK(s == TK_SUCCESS && x[0] == 1, "clobber_reset: x[0] is %d, not 1 (%s)", x[0], tkrt_status_string(s));
    CHECK(last_grid[0] == 4 && last_grid[1] == 3, "clobber_reset: grid (%u, %u), not (4, 3)", last_grid[0],
          last_grid[1]);
    /* may_clobber: the trials' writes stay */
    x[0] = 0;
    before = *launches;
    s = clobber_any(NULL, x, 64);
    CHECK(s == TK_SUCCESS && x[0] == *launches - before, "clobber_any: x[0] %d after %d launches", x[0],
          *launches - before);
    /* writes nothing names: the first config, one launch, no trials */
    {
        static const double ms[2] = {5.0, 1.0};
        times("untuned", ms, 2);
    }
    before = *launches;
    s = untuned(NULL, x, x + 1, 64);
    CHECK(s == TK_SUCCESS && *launches == before + 1 && last_grid[0] == 4,
          "untuned: %d launches, grid %u (the first config gives 4)", *launches - before, last_grid[0]);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
