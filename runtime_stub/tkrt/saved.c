/* Part of runtime_stub/tkrt.c, compiled only through it (after the parts
 * before it, whose static functions and state it uses): choices saved by
 * device name: tkrt_tune_save, tkrt_tune_load, TKC_TUNE_CACHE. */

/* ---- Saved choices ---------------------------------------------------- */

/* Every choice this process made or loaded, by kernel name, source hash,
 * device name and key: what tkrt_tune_save writes and what a first launch
 * looks for before timing. */
struct saved_choice {
    char kernel[128], hash[32], device[128];
    unsigned num_keys;
    long long key[TKRT_MAX_KEYS];
    int config;
};
static pthread_mutex_t saved_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct saved_choice *saved;
static size_t saved_count, saved_capacity;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void copy_text(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src ? src : "");
}

/* Adds (or updates) a choice; saved_mutex is held. 0 when out of memory. */
static int remember(const struct saved_choice *c)
{
    size_t i;
    for (i = 0; i < saved_count; i++)
        if (!strcmp(saved[i].kernel, c->kernel) && !strcmp(saved[i].hash, c->hash) &&
            !strcmp(saved[i].device, c->device) && saved[i].num_keys == c->num_keys &&
            !memcmp(saved[i].key, c->key, sizeof *c->key * c->num_keys)) {
            saved[i].config = c->config;
            return 1;
        }
    if (saved_count == saved_capacity) {
        size_t capacity = saved_capacity ? 2 * saved_capacity : 64;
        struct saved_choice *grown = (struct saved_choice *)realloc(saved, capacity * sizeof *grown);
        if (!grown)
            return 0;
        saved = grown;
        saved_capacity = capacity;
    }
    saved[saved_count++] = *c;
    return 1;
}

/* The current context's device name ("?" where the driver cannot say). */
static void device_name(char *name, size_t size)
{
    CUdevice device;
    copy_text(name, size, "?");
    if (cut.cuDeviceGetName && cu.cuCtxGetDevice(&device) == CUDA_SUCCESS &&
        cut.cuDeviceGetName(name, (int)size, device) != CUDA_SUCCESS)
        copy_text(name, size, "?");
    name[size - 1] = '\0';
    for (char *p = name; *p; p++) /* the file's fields are tab-separated lines */
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
}

static void describe_choice(const tkrt_tuner *t, const long long *key, int config, const char *device,
                            struct saved_choice *c)
{
    memset(c, 0, sizeof *c);
    copy_text(c->kernel, sizeof c->kernel, t->name);
    copy_text(c->hash, sizeof c->hash, t->source_hash);
    copy_text(c->device, sizeof c->device, device);
    c->num_keys = t->num_keys;
    memcpy(c->key, key, sizeof *key * t->num_keys);
    c->config = config;
}

/* One line of the file: kernel, hash, device, keys (comma-separated) and
 * config, tab-separated, then the config's text for the reader. */
static int write_choice(FILE *f, const struct saved_choice *c, const char *text)
{
    unsigned k;
    fprintf(f, "%s\t%s\t%s\t", c->kernel, c->hash, c->device);
    for (k = 0; k < c->num_keys; k++)
        fprintf(f, "%s%lld", k ? "," : "", c->key[k]);
    return fprintf(f, "\t%d\t%s\n", c->config, text ? text : "") > 0;
}

static tk_status load_file(const char *path, int missing_ok)
{
    char line[1024];
    FILE *f = fopen(path, "r");
    if (!f) {
        if (missing_ok)
            return TK_SUCCESS;
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_load: cannot read '%s'", path);
    }
    pthread_mutex_lock(&saved_mutex);
    while (fgets(line, sizeof line, f)) {
        struct saved_choice c;
        char *field[6], *p = line, *keys, *end;
        int n = 0;
        memset(&c, 0, sizeof c);
        while (n < 6 && (field[n] = p) != NULL) {
            p = strchr(p, n < 5 ? '\t' : '\n');
            n++;
            if (!p)
                break;
            *p++ = '\0';
        }
        if (n < 5 || line[0] == '#')
            continue; /* a comment or a line cut short */
        copy_text(c.kernel, sizeof c.kernel, field[0]);
        copy_text(c.hash, sizeof c.hash, field[1]);
        copy_text(c.device, sizeof c.device, field[2]);
        for (keys = field[3]; *keys && c.num_keys < TKRT_MAX_KEYS; c.num_keys++) {
            c.key[c.num_keys] = strtoll(keys, &end, 10);
            if (end == keys)
                break;
            keys = *end == ',' ? end + 1 : end;
        }
        c.config = (int)strtol(field[4], &end, 10);
        if (end != field[4] && c.config >= 0)
            remember(&c);
    }
    pthread_mutex_unlock(&saved_mutex);
    fclose(f);
    return TK_SUCCESS;
}

static void load_cache(void)
{
    const char *path = getenv("TKC_TUNE_CACHE");
    if (path && *path)
        load_file(path, 1);
}

/* The saved config for this tuner, key and device, or -1. */
static int saved_config(const tkrt_tuner *t, const long long *key, const char *device)
{
    struct saved_choice want;
    size_t i;
    int config = -1;
    describe_choice(t, key, -1, device, &want);
    pthread_mutex_lock(&saved_mutex);
    for (i = 0; i < saved_count && config < 0; i++)
        if (!strcmp(saved[i].kernel, want.kernel) && !strcmp(saved[i].hash, want.hash) &&
            !strcmp(saved[i].device, want.device) && saved[i].num_keys == want.num_keys &&
            !memcmp(saved[i].key, want.key, sizeof *want.key * want.num_keys) &&
            saved[i].config < (int)t->num_configs)
            config = saved[i].config;
    pthread_mutex_unlock(&saved_mutex);
    return config;
}

/* A new choice: kept for tkrt_tune_save, and appended to TKC_TUNE_CACHE. */
static void save_choice(const tkrt_tuner *t, const long long *key, int config, const char *device)
{
    struct saved_choice c;
    const char *path = getenv("TKC_TUNE_CACHE");
    describe_choice(t, key, config, device, &c);
    pthread_mutex_lock(&saved_mutex);
    remember(&c);
    if (path && *path) {
        FILE *f = fopen(path, "a");
        if (f) {
            write_choice(f, &c, t->config_text ? t->config_text[config] : "");
            fclose(f);
        }
    }
    pthread_mutex_unlock(&saved_mutex);
}

tk_status tkrt_tune_save(const char *path)
{
    FILE *f;
    size_t i;
    int ok = 1;
    if (!path)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_save: no path");
    f = fopen(path, "w");
    if (!f)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_save: cannot write '%s'", path);
    pthread_mutex_lock(&saved_mutex);
    ok &= fprintf(f, "# tkc autotuning choices: kernel, source hash, device, key, config\n") > 0;
    for (i = 0; i < saved_count; i++)
        ok &= write_choice(f, &saved[i], "");
    pthread_mutex_unlock(&saved_mutex);
    ok &= fclose(f) == 0;
    if (!ok)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_save: writing '%s' failed", path);
    last_status = TK_SUCCESS;
    return TK_SUCCESS;
}

tk_status tkrt_tune_load(const char *path)
{
    tk_status s;
    if (!path)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tune_load: no path");
    s = load_file(path, 0);
    if (s == TK_SUCCESS)
        last_status = TK_SUCCESS;
    return s;
}
