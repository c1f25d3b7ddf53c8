/* Autotuning through a generated header (header_tune.tk) on the fake
 * driver: the fastest config is chosen once per key and context and then
 * looked up; trials restore or zero the buffers named for it; a capturing
 * stream is never timed; threads tuning one key tune it once; @heuristics
 * variants are chosen within the config; choices go to TKC_TUNE_CACHE
 * and tkrt_tune_save, and come back with tkrt_tune_load; a kernel whose
 * writes nothing names takes the first config untimed.
 *
 *   header_tune_test FAKE_LIBCUDA.so      (header_tune.h on the include path)
 *
 * Prints "ok" and exits 0, or a FAIL line for each failure and exits 1. */
#define TKC_IMPLEMENTATION /* this file holds the module */
#include "header_tune.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
static unsigned *last_grid;
static int *launches, *events_live, *allocations_live;
static void (*set_kernel_ms)(const char *name, double ms);
static void (*set_kernel_fresh_ms)(const char *name, double fresh_ms, double settle_ms);
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

/* `s` came from one launch (since `before`) of a grid of `grid` blocks */
#define ONE_LAUNCH(what, grid)                                                                     \
    CHECK(s == TK_SUCCESS && *launches == before + 1 && last_grid[0] == (unsigned)(grid),          \
          "%s: %d launches, grid %u, not one of %u (%s)", what, *launches - before, last_grid[0],   \
          (unsigned)(grid), tkrt_status_string(s))

/* `s` came from tuning (trials, then the launch) since `before`, and the
 * launch had a grid of `grid` blocks: the chosen config's */
#define TUNED(what, grid)                                                                          \
    CHECK(s == TK_SUCCESS && *launches - before > 3 && last_grid[0] == (unsigned)(grid),           \
          "%s: %d launches, grid %u, not tuned to the config with %u (%s)", what, *launches - before, \
          last_grid[0], (unsigned)(grid), tkrt_status_string(s))

/* every entry of a config (its specializations too: _d16, _a, ...) takes `ms` */
static void times(const char *kernel, const double *ms, int n)
{
    static const char *const suffixes[] = {"", "_d16", "_a", "_u", "_u_a", "_u_d16"};
    char name[128];
    int i;
    size_t s;
    for (i = 0; i < n; i++)
        for (s = 0; s < sizeof suffixes / sizeof suffixes[0]; s++) {
            snprintf(name, sizeof name, "%s__v%d%s", kernel, i, suffixes[s]);
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
static char cache_path[64];

/* Does a line of the file at path equal `text` (a whole line, newline
 * included), or, with prefix set, start with it? */
static int file_line(const char *path, const char *text, int prefix)
{
    char buf[512];
    int found = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (!found && fgets(buf, sizeof buf, f))
        found = prefix ? !strncmp(buf, text, strlen(text)) : !strcmp(buf, text);
    fclose(f);
    return found;
}

static int file_has(const char *path, const char *line) { return file_line(path, line, 0); }

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
    *(void **)&set_kernel_fresh_ms = hook(lib, "fake_set_kernel_fresh_ms");
    *(void **)&set_capturing = hook(lib, "fake_set_capturing");
    *(void **)&context_create = hook(lib, "fake_context_create");
    *(void **)&set_current = hook(lib, "cuCtxSetCurrent");

    /* the middle config is fastest: chosen, launched on the arguments, and
     * the trials restore x each time (the real launch adds its 1) */
    {
        static const double ms[3] = {3.0, 1.0, 2.0};
        times("clobber_restore", ms, 3);
    }
    {
        int fd;
        strcpy(cache_path, "/tmp/header_tune_cache_XXXXXX");
        fd = mkstemp(cache_path);
        if (fd < 0) {
            printf("FAIL header_tune_test: mkstemp\n");
            return 1;
        }
        close(fd);
        setenv("TKC_TUNE_CACHE", cache_path, 1);
    }
    memset(x, 0, sizeof x);
    x[0] = 41;
    /* an empty input (n = 0: every config's grid is empty): success, no
     * trial, no launch, no copy of x, and no choice made for the key */
    before = *launches;
    s = clobber_restore(NULL, x, 0);
    CHECK(s == TK_SUCCESS && *launches == before && x[0] == 41 && *allocations_live == 0,
          "clobber_restore n=0: %s, %d launches, x[0] %d", tkrt_status_string(s), *launches - before, x[0]);
    {
        char empty_key[256];
        snprintf(empty_key, sizeof empty_key, "clobber_restore\t%s\tFake GPU\t0\t",
                 tk_header_tune__clobber_restore__tuner.source_hash);
        CHECK(!file_line(cache_path, empty_key, 1), "a choice was saved for the empty input n=0");
    }
    before = *launches;
    s = clobber_reset(NULL, x, 100, 0);
    CHECK(s == TK_SUCCESS && *launches == before && x[0] == 41,
          "clobber_reset m=0: %s, %d launches, x[0] %d (reset_to_zero ran?)", tkrt_status_string(s),
          *launches - before, x[0]);
    before = *launches;
    s = clobber_restore(NULL, x, 100);
    CHECK(s == TK_SUCCESS, "clobber_restore: %s", tkrt_status_string(s));
    tuning_launches = *launches - before;
    CHECK(tuning_launches > 3, "clobber_restore: %d launches, no trials", tuning_launches);
    CHECK(last_grid[0] == 4, "clobber_restore n=100: grid %u, not the B=32 config's 4", last_grid[0]);
    CHECK(x[0] == 42, "clobber_restore: x[0] is %d after the trials and one launch, not 42", x[0]);
    CHECK(*events_live == 0 && *allocations_live == 0, "tuning left %d events, %d allocations", *events_live,
          *allocations_live);
    /* TKC_TUNE_CACHE: the choice appended */
    {
        char want[256];
        snprintf(want, sizeof want, "clobber_restore\t%s\tFake GPU\t100\t1\tB=32\n",
                 tk_header_tune__clobber_restore__tuner.source_hash);
        CHECK(file_has(cache_path, want), "TKC_TUNE_CACHE lacks the line %s", want);
    }
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
    TUNED("clobber_restore n=1000: B=64", 16);
    /* capturing: no trials; the nearest key's choice (1000 for 900, 100
     * for 110), one launch each */
    set_capturing(stream);
    before = *launches;
    s = clobber_restore(stream, x, 900);
    ONE_LAUNCH("capturing n=900, the n=1000 choice", 15);
    before = *launches;
    s = clobber_restore(stream, x, 110);
    ONE_LAUNCH("capturing n=110, the n=100 choice", 4);
    /* a new context: a key chosen on the same device is not timed again;
     * capturing, an unknown key takes the first config; not capturing,
     * that context tunes it */
    {
        void *ctx = context_create(), *old = NULL;
        int (*get_current)(void **);
        *(void **)&get_current = hook(lib, "cuCtxGetCurrent");
        get_current(&old);
        set_current(ctx);
        before = *launches;
        s = clobber_restore(stream, x, 777);
        ONE_LAUNCH("capturing in a new context: the first config", 49);
        before = *launches;
        s = clobber_restore(stream, x, 100);
        ONE_LAUNCH("a new context, n=100 chosen on this device", 4);
        set_capturing(NULL);
        before = *launches;
        s = clobber_restore(NULL, x, 777);
        TUNED("a new context tunes n=777 (B=64 now fastest)", 13);
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
    /* @heuristics beside @autotune: the B=32 config wins, and its variant
     * for n's parity runs (the even one adds a block) */
    {
        static const double ms[4] = {3.0, 3.0, 1.0, 1.0}; /* B=16 even, odd; B=32 even, odd */
        times("clobber_parity", ms, 4);
    }
    s = clobber_parity(NULL, x, 100);
    CHECK(s == TK_SUCCESS && last_grid[0] == 5, "clobber_parity n=100: grid %u, not 4 + 1 (%s)", last_grid[0],
          tkrt_status_string(s));
    s = clobber_parity(NULL, x, 101);
    CHECK(s == TK_SUCCESS && last_grid[0] == 4, "clobber_parity n=101: grid %u, not 4", last_grid[0]);
    /* tkrt_tune_load: a matching line is taken untimed; one whose source
     * hash differs is not; tkrt_tune_save writes every choice */
    {
        char path[] = "/tmp/header_tune_load_XXXXXX", line[256];
        int fd = mkstemp(path);
        FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
        CHECK(f != NULL, "cannot write %s", path);
        if (f) {
            fprintf(f, "# a comment\nclobber_any\t%s\tFake GPU\t999\t1\n",
                    tk_header_tune__clobber_any__tuner.source_hash);
            fprintf(f, "clobber_any\t0000000000000000\tFake GPU\t998\t1\n");
            fclose(f);
        }
        s = tkrt_tune_load(path);
        CHECK(s == TK_SUCCESS, "tkrt_tune_load: %s", tkrt_status_string(s));
        before = *launches;
        s = clobber_any(NULL, x, 999);
        ONE_LAUNCH("a loaded choice: B=32", 32);
        before = *launches;
        s = clobber_any(NULL, x, 998);
        CHECK(s == TK_SUCCESS && *launches - before > 3, "a line of another source was taken (%d launches)",
              *launches - before);
        s = tkrt_tune_save(path);
        CHECK(s == TK_SUCCESS, "tkrt_tune_save: %s", tkrt_status_string(s));
        snprintf(line, sizeof line, "clobber_restore\t%s\tFake GPU\t1000\t2\t\n",
                 tk_header_tune__clobber_restore__tuner.source_hash);
        CHECK(file_has(path, line), "tkrt_tune_save wrote no line %s", line);
        snprintf(line, sizeof line, "clobber_any\t%s\tFake GPU\t999\t1\t\n",
                 tk_header_tune__clobber_any__tuner.source_hash);
        CHECK(file_has(path, line), "tkrt_tune_save wrote no line %s", line);
        CHECK(tkrt_tune_load("/nonexistent/tune") == TK_ERROR_INVALID_VALUE &&
                  strstr(tkrt_status_string(TK_ERROR_INVALID_VALUE), "/nonexistent/tune"),
              "loading a missing file: %s", tkrt_status_string(tkrt_status()));
        remove(path);
    }
    /* a config that does not launch is skipped */
    {
        static const double ms[2] = {0.5, 1.0};
        times("skipfirst", ms, 2);
    }
    s = skipfirst(NULL, x, 64);
    CHECK(s == TK_SUCCESS && last_grid[0] == 2, "skipfirst: grid %u, not the B=32 config's 2 (%s)", last_grid[0],
          tkrt_status_string(s));
    /* prune_configs_by's condition B <= n: B=64, fastest, is not timed
     * for n = 40, and is chosen for n = 100; for n = 10 no config is kept
     * and nothing launches */
    {
        static const double ms[3] = {3.0, 2.0, 1.0}, model_ms[3] = {1.0, 3.0, 2.0}, static_ms[2] = {2.0, 1.0};
        times("prune_keep", ms, 3);
        times("prune_model", model_ms, 3);
        times("prune_static", static_ms, 2);
    }
    before = *launches;
    s = prune_keep(NULL, x, 40);
    TUNED("prune_keep n=40: B=32", 2);
    before = *launches;
    s = prune_keep(NULL, x, 100);
    CHECK(s == TK_SUCCESS && last_grid[0] == 2, "prune_keep n=100: grid %u, not the B=64 config's 2 (%s)",
          last_grid[0], tkrt_status_string(s));
    before = *launches;
    s = prune_keep(NULL, x, 10);
    CHECK(s == TK_ERROR_INVALID_VALUE && *launches == before &&
              strstr(tkrt_status_string(s), "prune_keep: prune_configs_by keeps none of its 3 configs for (n=10)"),
          "prune_keep n=10: status %d, %d launches (%s)", (int)s, *launches - before, tkrt_status_string(s));
    /* capturing, n = 20: the nearest key's choice (n=40's B=32) is
     * pruned, so the first config kept, B=16 */
    set_capturing(stream);
    before = *launches;
    s = prune_keep(stream, x, 20);
    ONE_LAUNCH("prune_keep capturing n=20: the first config kept", 2);
    set_capturing(NULL);
    /* a perf_model with top_k = 2: for n = 200 the estimates keep B=32 and
     * B=64, so B=16, the fastest, is not timed */
    before = *launches;
    s = prune_model(NULL, x, 200);
    TUNED("prune_model n=200: B=64", 4);
    /* n = 40: estimates 576, 64, 576; the tie between B=16 and B=64 goes
     * to the earlier config, so B=16 (the fastest) and B=32 are timed */
    before = *launches;
    s = prune_model(NULL, x, 40);
    TUNED("prune_model n=40: B=16", 3);
    /* a condition on the config alone: B=32 (num_warps=4) is not in the
     * header; for n = 50 one config is kept and runs untimed */
    CHECK(tk_header_tune__prune_static__tuner.num_configs == 2, "prune_static has %u configs, not 2",
          tk_header_tune__prune_static__tuner.num_configs);
    before = *launches;
    s = prune_static(NULL, x, 50);
    ONE_LAUNCH("prune_static n=50: the one config kept, untimed", 4);
    before = *launches;
    s = prune_static(NULL, x, 500);
    TUNED("prune_static n=500: B=64", 8);
    /* warmup=0, rep=5 at 1 ms a run: each config runs once, 5 times for
     * the estimate, then in each of 3 rounds once to warm up and 2, 2 and
     * 1 times timed, not the default's 286 times */
    {
        static const double ms[2] = {1.0, 1.0};
        times("quick", ms, 2);
    }
    before = *launches;
    s = quick(NULL, x, 64);
    CHECK(s == TK_SUCCESS && *launches - before == 2 * 14 + 1,
          "quick: %d launches, not 2 configs of 14 and the launch (%s)", *launches - before,
          tkrt_status_string(s));
    /* B=16 takes 0.9 ms a run for 50 ms after B=32 ran, 1.2 ms after
     * that; B=32 1 ms: timed after each share's warm-up, B=32 wins */
    {
        static const double ms[2] = {1.2, 1.0};
        times("power_lag", ms, 2);
        set_kernel_fresh_ms("power_lag__v0", 0.9, 50);
        set_kernel_fresh_ms("power_lag__v0_d16", 0.9, 50);
    }
    before = *launches;
    s = power_lag(NULL, x, 64);
    TUNED("power_lag: B=32, faster sustained", 2);
    /* writes nothing names: the first config, one launch, no trials */
    {
        static const double ms[2] = {5.0, 1.0};
        times("untuned", ms, 2);
    }
    before = *launches;
    s = untuned(NULL, x, x + 1, 64);
    ONE_LAUNCH("untuned: the first config", 4);
    /* optional buffers passed as NULL: tuned without touching them (the
     * fake driver's memset and memcpy would fault on address 0) */
    {
        /* each config's four variants (x, y each None or not) */
        static const double ms[8] = {1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0};
        times("optional_buffers", ms, 8);
    }
    before = *launches;
    s = optional_buffers(NULL, NULL, NULL, 64);
    TUNED("optional_buffers, both NULL: B=16", 4);
    before = *launches;
    s = optional_buffers(NULL, x, NULL, 65);
    TUNED("optional_buffers, y NULL: B=16", 5);
    before = *launches;
    s = optional_buffers(NULL, NULL, x, 66);
    TUNED("optional_buffers, x NULL: B=16", 5);
    /* a heuristic computed per config: the chosen one (B=32) passes cdiv(100, 32) */
    {
        static const double ms[2] = {2.0, 1.0};
        unsigned *sizes = (unsigned *)hook(lib, "fake_arg_sizes");
        unsigned char(*passed)[8] = (unsigned char(*)[8])hook(lib, "fake_last_args");
        int32_t iters = 0;
        times("per_config", ms, 2);
        sizes[0] = 8;
        sizes[1] = 4;
        sizes[2] = 4;
        before = *launches;
        s = per_config(NULL, x, 100);
        TUNED("per_config: B=32", 1);
        memcpy(&iters, passed[2], 4);
        CHECK(iters == 4, "per_config n=100 with B=32 passed ITERS=%d, not 4", (int)iters);
        before = *launches;
        s = per_config(NULL, x, 100);
        memcpy(&iters, passed[2], 4);
        CHECK(s == TK_SUCCESS && *launches == before + 1 && iters == 4,
              "per_config again: %d launches, ITERS=%d", *launches - before, (int)iters);
        sizes[0] = 0;
    }
    remove(cache_path);
    if (failures)
        return 1;
    printf("ok\n");
    return 0;
}
