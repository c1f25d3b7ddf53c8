/* Part of runtime_stub/tkrt.c, compiled only through it (after the parts
 * before it, whose static functions and state it uses): autotuning: the
 * tuner's table of choices and timing a key's configs. */

/* ---- Autotuning ------------------------------------------------------ */

/* tkc compiles at most 64 variants of a kernel */
enum { MAX_CONFIGS = 64 };

/* One key's choice in one context. */
struct tune_entry {
    int used;
    int config;
    unsigned long long context_id;
    long long key[TKRT_MAX_KEYS];
};

/* A tuner's choices: open addressing, at most half full, its capacity a
 * power of two. Read and written under the tuner's lock. */
struct tune_table {
    unsigned count, capacity;
    struct tune_entry *entries;
};

/* One tuning at a time in the process: another thread wanting the same key
 * waits here, then finds it chosen. */
static pthread_mutex_t tuning_mutex = PTHREAD_MUTEX_INITIALIZER;

static void lock_tuner(tkrt_tuner *t)
{
    unsigned spins = 0;
    while (__atomic_exchange_n(&t->lock, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(&t->lock, __ATOMIC_RELAXED))
            if (++spins > 64)
                sched_yield();
}

static void unlock_tuner(tkrt_tuner *t)
{
    __atomic_store_n(&t->lock, 0, __ATOMIC_RELEASE);
}

static unsigned long long key_hash(unsigned long long id, const long long *key, unsigned n)
{
    unsigned long long h = 1469598103934665603ull ^ id;
    unsigned i;
    for (i = 0; i < n; i++) {
        h ^= (unsigned long long)key[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

/* The slot of (id, key) in the table, or of the free slot it would take;
 * NULL for an empty table. The tuner is locked. */
static struct tune_entry *table_slot(struct tune_table *tab, unsigned long long id,
                                     const long long *key, unsigned n)
{
    unsigned i;
    if (!tab || !tab->capacity)
        return NULL;
    i = (unsigned)key_hash(id, key, n) & (tab->capacity - 1);
    for (;;) {
        struct tune_entry *e = &tab->entries[i];
        if (!e->used || (e->context_id == id && !memcmp(e->key, key, sizeof *key * n)))
            return e;
        i = (i + 1) & (tab->capacity - 1);
    }
}

/* Records config for (id, key); the tuner is locked. 0 when out of memory
 * (the choice is then made again next time). */
static int table_put(tkrt_tuner *t, unsigned long long id, const long long *key, int config)
{
    struct tune_table *tab = (struct tune_table *)t->table;
    struct tune_entry *e;
    if (!tab) {
        tab = (struct tune_table *)calloc(1, sizeof *tab);
        if (!tab)
            return 0;
        t->table = tab;
    }
    if (2 * (tab->count + 1) > tab->capacity) {
        unsigned capacity = tab->capacity ? 2 * tab->capacity : 16, i;
        struct tune_table grown = { 0, capacity, (struct tune_entry *)calloc(capacity, sizeof(struct tune_entry)) };
        if (!grown.entries)
            return 0;
        for (i = 0; i < tab->capacity; i++)
            if (tab->entries[i].used) {
                *table_slot(&grown, tab->entries[i].context_id, tab->entries[i].key, t->num_keys) =
                    tab->entries[i];
                grown.count++;
            }
        free(tab->entries);
        *tab = grown;
    }
    e = table_slot(tab, id, key, t->num_keys);
    if (!e->used) {
        e->used = 1;
        e->context_id = id;
        memcpy(e->key, key, sizeof *key * t->num_keys);
        tab->count++;
    }
    e->config = config;
    return 1;
}

/* The config chosen for (id, key), or -1. */
static int table_get(tkrt_tuner *t, unsigned long long id, const long long *key)
{
    struct tune_entry *e;
    int config = -1;
    lock_tuner(t);
    e = table_slot((struct tune_table *)t->table, id, key, t->num_keys);
    if (e && e->used)
        config = e->config;
    unlock_tuner(t);
    return config;
}

/* How far apart two keys are: the sum over their values of about
 * |log2(a / b)| (of |a| + 1 and |b| + 1). */
static double key_distance(const tkrt_tuner *t, const long long *x, const long long *y)
{
    double d = 0;
    unsigned k;
    for (k = 0; k < t->num_keys; k++) {
        double a = (double)(x[k] < 0 ? -x[k] : x[k]) + 1;
        double b = (double)(y[k] < 0 ? -y[k] : y[k]) + 1;
        double r = a > b ? a / b : b / a;
        for (; r >= 2; r /= 2)
            d += 1;
        d += r - 1;
    }
    return d;
}

/* The config chosen for the key nearest to `key` among the header's
 * choices for this device, then (none there) this context's; -1 where
 * neither has one. */
static int nearest_choice(tkrt_tuner *t, unsigned long long id, const char *device, const long long *key,
                          const unsigned char *keep)
{
    struct tune_table *tab;
    double best = 0;
    int config = -1;
    unsigned i;
    for (i = 0; i < t->num_choices; i++) {
        double d = key_distance(t, key, t->choices[i].key);
        if (strcmp(t->choices[i].device, device) != 0 || t->choices[i].config < 0 ||
            t->choices[i].config >= (int)t->num_configs || !keep[t->choices[i].config])
            continue;
        if (config < 0 || d < best) {
            best = d;
            config = t->choices[i].config;
        }
    }
    if (config >= 0)
        return config;
    lock_tuner(t);
    tab = (struct tune_table *)t->table;
    for (i = 0; tab && i < tab->capacity; i++) {
        const struct tune_entry *e = &tab->entries[i];
        double d;
        if (!e->used || e->context_id != id || !keep[e->config])
            continue;
        d = key_distance(t, key, e->key);
        if (config < 0 || d < best) {
            best = d;
            config = e->config;
        }
    }
    unlock_tuner(t);
    return config;
}

/* The header's choice for exactly this key on this device, or -1. */
static int compiled_choice(const tkrt_tuner *t, const char *device, const long long *key)
{
    unsigned i;
    for (i = 0; i < t->num_choices; i++)
        if (!strcmp(t->choices[i].device, device) &&
            !memcmp(t->choices[i].key, key, sizeof *key * t->num_keys) && t->choices[i].config >= 0 &&
            t->choices[i].config < (int)t->num_configs)
            return t->choices[i].config;
    return -1;
}

static int tune_verbose(void)
{
    const char *v = getenv("TKC_TUNE_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

static void print_key(FILE *out, const tkrt_tuner *t, const long long *key)
{
    unsigned k;
    for (k = 0; k < t->num_keys; k++)
        fprintf(out, "%s%s=%lld", k ? ", " : "", t->key_names ? t->key_names[k] : "?", key[k]);
}

/* The first candidate, in order, that launches on these arguments; -1
 * (with the first one's failure recorded) when none does. */
static int launch_first(tkrt_tuner *t, CUstream stream, void **args, const unsigned char *keep)
{
    tk_status first = TK_SUCCESS;
    char message[sizeof last_message];
    int first_result = 0, tried = 0;
    unsigned c;
    for (c = 0; c < t->num_configs; c++) {
        tk_status s;
        if (!keep[c])
            continue;
        s = t->configs[c]((tk_stream)stream, args);
        if (s == TK_SUCCESS)
            return (int)c;
        if (!tried++) {
            first = s;
            first_result = last_result;
            memcpy(message, last_message, sizeof message);
        }
    }
    last_status = first;
    last_result = first_result;
    memcpy(last_message, message, sizeof message);
    return -1;
}

/* What the trials of one tuning share. */
struct trial_state {
    tkrt_tuner *t;
    CUstream stream;
    void **args;
    CUdeviceptr flush;     /* Triton's 256 MB, zeroed before each timed run to empty the L2; 0: none */
    CUdeviceptr *saved;    /* a copy of each restore_value buffer (0 for reset_to_zero ones) */
    CUevent events[128];   /* 64 (start, end) pairs */
};

static CUdeviceptr arg_pointer(void **args, unsigned i)
{
    CUdeviceptr p;
    memcpy(&p, args[i], sizeof p);
    return p;
}

/* Before a trial (and before the real launch): reset_to_zero buffers zeroed. */
static CUresult reset_buffers(struct trial_state *x)
{
    unsigned b;
    for (b = 0; b < x->t->num_buffers; b++) {
        const tkrt_tuned_buffer *buf = &x->t->buffers[b];
        CUresult r;
        if (!buf->reset || !arg_pointer(x->args, buf->arg)) /* an optional pointer passed as NULL */
            continue;
        r = cut.cuMemsetD8Async(arg_pointer(x->args, buf->arg), 0, (size_t)buf->bytes(x->args),
                                x->stream);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

/* After a trial: restore_value buffers copied back. */
static CUresult restore_buffers(struct trial_state *x)
{
    unsigned b;
    for (b = 0; b < x->t->num_buffers; b++) {
        const tkrt_tuned_buffer *buf = &x->t->buffers[b];
        CUresult r;
        if (buf->reset || !x->saved[b])
            continue;
        r = cut.cuMemcpyDtoDAsync(arg_pointer(x->args, buf->arg), x->saved[b],
                                  (size_t)buf->bytes(x->args), x->stream);
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

/* One untimed run of config c, buffers reset before and restored after. */
static int run_once(struct trial_state *x, unsigned c)
{
    return reset_buffers(x) == CUDA_SUCCESS && x->t->configs[c]((tk_stream)x->stream, x->args) == TK_SUCCESS &&
           restore_buffers(x) == CUDA_SUCCESS;
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* One config's timing: its repetitions and their times so far. */
struct config_timing {
    unsigned n_warmup, n_rep, done;
    float *times; /* NULL: the config does not launch (or timing it failed) */
};

/* The configs' timed runs go in TUNE_ROUNDS interleaved rounds (each
 * config a share of its runs a round), so that clocks drifting while the
 * configs are timed, one after another, do not decide between configs a
 * few percent apart: timed one block each, matmul.tk's choice at 8192^3
 * flipped between runs (0.95x the best config in one).
 *
 * Each share starts with warm-up runs of that config (about 60 ms unless
 * @autotune's warmup= says otherwise; Triton's do_bench warms up for 25
 * ms, once): the GPU's power controller sets the clock from the power
 * drawn over the last tens of milliseconds, so runs timed straight after
 * another config's run at a power cap go at the clock that config left.
 * Measured on an H100 at its 700 W cap, the clock took 40-80 ms to settle
 * after a switch, and an attention config drawing more power than the
 * others was timed 5% faster than it sustains (one run a share at 42 ms a
 * run), and picked. */
enum { TUNE_ROUNDS = 3, TUNE_WARMUP_MS = 60 };

/* How many runs of `estimate` ms fill about `ms` (at least one). */
static unsigned runs_for(double ms, float estimate)
{
    unsigned n = estimate > 0 && ms / estimate < 1e6 ? (unsigned)(ms / estimate) : 1000000;
    return n < 1 ? 1 : n;
}

/* Readies config c for timing as Triton's do_bench does: one run, an
 * estimate over 5; then counts the warm-up runs that start each round's
 * share (about warmup_ms, at least one) and the timed runs (about 100 ms,
 * rep_ms, at least one) into ct. 0 where it does not launch. */
static int prepare_config(struct trial_state *x, unsigned c, struct config_timing *ct)
{
    float estimate = 0;
    double warmup_ms = x->t->warmup_ms >= 0 ? x->t->warmup_ms : (double)TUNE_WARMUP_MS;
    double rep_ms = x->t->rep_ms >= 0 ? x->t->rep_ms : 100;
    unsigned i;
    memset(ct, 0, sizeof *ct);
    if (!run_once(x, c) || cut.cuStreamSynchronize(x->stream) != CUDA_SUCCESS)
        return 0;
    if (cut.cuEventRecord(x->events[0], x->stream) != CUDA_SUCCESS)
        return 0;
    for (i = 0; i < 5; i++) {
        if (x->flush && cut.cuMemsetD32Async(x->flush, 0, 64u << 20, x->stream) != CUDA_SUCCESS)
            return 0;
        if (!run_once(x, c))
            return 0;
    }
    if (cut.cuEventRecord(x->events[1], x->stream) != CUDA_SUCCESS ||
        cut.cuEventSynchronize(x->events[1]) != CUDA_SUCCESS ||
        cut.cuEventElapsedTime(&estimate, x->events[0], x->events[1]) != CUDA_SUCCESS)
        return 0;
    estimate /= 5;
    ct->n_warmup = runs_for(warmup_ms, estimate);
    ct->n_rep = runs_for(rep_ms, estimate);
    ct->times = (float *)malloc(sizeof *ct->times * ct->n_rep);
    return ct->times != NULL;
}

/* `count` untimed runs of config c, the L2 flushed before each as before a
 * timed one, so that they draw the power the timed ones will. */
static int warm_up(struct trial_state *x, unsigned c, unsigned count)
{
    unsigned i;
    for (i = 0; i < count; i++)
        if ((x->flush && cut.cuMemsetD32Async(x->flush, 0, 64u << 20, x->stream) != CUDA_SUCCESS) ||
            !run_once(x, c))
            return 0;
    return 1;
}

/* Times up to `count` more runs of config c (the L2 flushed before each,
 * buffers reset before and restored after, outside the events). 0 on a
 * failure. */
static int time_runs(struct trial_state *x, unsigned c, struct config_timing *ct, unsigned count)
{
    unsigned end = ct->done + count < ct->n_rep ? ct->done + count : ct->n_rep;
    while (ct->done < end) {
        unsigned batch = end - ct->done < 64 ? end - ct->done : 64, j;
        for (j = 0; j < batch; j++)
            if (reset_buffers(x) != CUDA_SUCCESS ||
                (x->flush && cut.cuMemsetD32Async(x->flush, 0, 64u << 20, x->stream) != CUDA_SUCCESS) ||
                cut.cuEventRecord(x->events[2 * j], x->stream) != CUDA_SUCCESS ||
                x->t->configs[c]((tk_stream)x->stream, x->args) != TK_SUCCESS ||
                cut.cuEventRecord(x->events[2 * j + 1], x->stream) != CUDA_SUCCESS ||
                restore_buffers(x) != CUDA_SUCCESS)
                return 0;
        if (cut.cuEventSynchronize(x->events[2 * batch - 1]) != CUDA_SUCCESS)
            return 0;
        for (j = 0; j < batch; j++)
            if (cut.cuEventElapsedTime(&ct->times[ct->done + j], x->events[2 * j], x->events[2 * j + 1]) !=
                CUDA_SUCCESS)
                return 0;
        ct->done += batch;
    }
    return 1;
}

static double median_time(struct config_timing *ct)
{
    unsigned n = ct->done;
    if (!ct->times || !n)
        return -1;
    qsort(ct->times, n, sizeof *ct->times, compare_float);
    return n % 2 ? ct->times[n / 2] : (ct->times[n / 2 - 1] + ct->times[n / 2]) / 2.0;
}

/* Times every candidate (keep) on these arguments and returns the fastest
 * (-1 where none launches, or the tools to time are missing: the caller
 * falls back). */
static int tune(tkrt_tuner *t, CUstream stream, const long long *key, void **args, const unsigned char *keep)
{
    struct trial_state x;
    struct config_timing *timing = NULL;
    double *ms, best = -1;
    int choice = -1;
    unsigned c, b, round, nevents = 0;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.stream = stream;
    x.args = args;
    ms = (double *)calloc(t->num_configs ? t->num_configs : 1, sizeof *ms);
    x.saved = (CUdeviceptr *)calloc(t->num_buffers ? t->num_buffers : 1, sizeof *x.saved);
    if (!ms || !x.saved)
        goto done;
    for (nevents = 0; nevents < 128; nevents++)
        if (cut.cuEventCreate(&x.events[nevents], 0) != CUDA_SUCCESS)
            goto done;
    if (cut.cuMemAlloc(&x.flush, 256u << 20) != CUDA_SUCCESS)
        x.flush = 0; /* no room: timed with a warm L2 */
    for (b = 0; b < t->num_buffers; b++) {
        size_t bytes = (size_t)t->buffers[b].bytes(args);
        if (t->buffers[b].reset || !bytes || !arg_pointer(args, t->buffers[b].arg))
            continue;
        if (cut.cuMemAlloc(&x.saved[b], bytes) != CUDA_SUCCESS ||
            cut.cuMemcpyDtoDAsync(x.saved[b], arg_pointer(args, t->buffers[b].arg), bytes, stream) !=
                CUDA_SUCCESS)
            goto done;
    }
    timing = (struct config_timing *)calloc(t->num_configs, sizeof *timing);
    if (!timing)
        goto done;
    for (c = 0; c < t->num_configs; c++)
        if (keep[c] && !prepare_config(&x, c, &timing[c])) {
            free(timing[c].times);
            timing[c].times = NULL;
        }
    for (round = 0; round < TUNE_ROUNDS; round++)
        for (c = 0; c < t->num_configs; c++) {
            unsigned share = (timing[c].n_rep + TUNE_ROUNDS - 1) / TUNE_ROUNDS;
            if (timing[c].times && timing[c].done < timing[c].n_rep &&
                (!warm_up(&x, c, timing[c].n_warmup) ||
                 !time_runs(&x, c, &timing[c], share))) {
                free(timing[c].times);
                timing[c].times = NULL;
            }
        }
    for (c = 0; c < t->num_configs; c++) {
        ms[c] = median_time(&timing[c]);
        free(timing[c].times);
        if (ms[c] >= 0 && (choice < 0 || ms[c] < best)) {
            best = ms[c];
            choice = (int)c;
        }
    }
    if (choice >= 0 && reset_buffers(&x) != CUDA_SUCCESS)
        choice = -1;
    if (tune_verbose()) {
        CUdevice device;
        char name[256] = "?";
        if (cu.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
            cut.cuDeviceGetName(name, (int)sizeof name, device) != CUDA_SUCCESS)
            strcpy(name, "?");
        fprintf(stderr, "tkc tune: %s (", t->name);
        print_key(stderr, t, key);
        fprintf(stderr, ") on %s: ", name);
        if (choice >= 0)
            fprintf(stderr, "%s, %.4f ms\n", t->config_text ? t->config_text[choice] : "?", best);
        else
            fprintf(stderr, "no config launched\n");
        for (c = 0; c < t->num_configs; c++) {
            if (ms[c] >= 0)
                fprintf(stderr, "tkc tune:   %.4f ms  %s\n", ms[c], t->config_text ? t->config_text[c] : "?");
            else if (!keep[c])
                fprintf(stderr, "tkc tune:   (pruned)  %s\n", t->config_text ? t->config_text[c] : "?");
            else
                fprintf(stderr, "tkc tune:   (does not launch)  %s\n", t->config_text ? t->config_text[c] : "?");
        }
    }
done:
    if (cut.cuStreamSynchronize)
        cut.cuStreamSynchronize(stream); /* before the copies go */
    for (b = 0; x.saved && b < t->num_buffers; b++)
        if (x.saved[b])
            cut.cuMemFree(x.saved[b]);
    if (x.flush)
        cut.cuMemFree(x.flush);
    for (c = 0; c < nevents; c++)
        cut.cuEventDestroy(x.events[c]);
    free(x.saved);
    free(timing);
    free(ms);
    return choice;
}
