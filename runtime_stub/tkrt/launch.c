/* Part of runtime_stub/tkrt.c, compiled only through it (after the parts
 * before it, whose static functions and state it uses): launching: a tuned
 * launch (pruning, the table, the trials), a plain launch, and the
 * launcher's argument and grid errors. */

/* Which configs prune_configs_by keeps for these arguments (keep[c] 1 or
 * 0); how many. As Triton prunes: the condition first, then of the
 * configs it keeps the top_k with the lowest estimates (ties to the
 * earlier config; an estimate that is not a number ranks last). */
static unsigned kept_configs(const tkrt_tuner *t, void **args, unsigned char *keep)
{
    double estimate[MAX_CONFIGS];
    unsigned char kept[MAX_CONFIGS];
    unsigned c, d, n = 0;
    for (c = 0; c < t->num_configs; c++) {
        kept[c] = keep[c] = !t->keep || t->keep(args, c);
        n += keep[c];
    }
    if (!t->estimate || !t->top_k || n <= t->top_k)
        return n;
    for (c = 0; c < t->num_configs; c++) {
        estimate[c] = kept[c] ? t->estimate(args, c) : 0;
        if (estimate[c] != estimate[c])
            estimate[c] = 1e308;
    }
    /* each kept config's rank among the kept ones (ties by order): the
     * first top_k ranks stay */
    for (c = 0; c < t->num_configs; c++) {
        unsigned rank = 0;
        for (d = 0; kept[c] && d < t->num_configs; d++)
            rank += kept[d] && (estimate[d] < estimate[c] || (estimate[d] == estimate[c] && d < c));
        keep[c] = kept[c] && rank < t->top_k;
    }
    return t->top_k;
}

/* Records that prune_configs_by keeps no config of t for this key. */
static tk_status none_kept(const tkrt_tuner *t, const long long *key)
{
    char text[512];
    size_t used = 0;
    unsigned k;
    text[0] = '\0';
    for (k = 0; k < t->num_keys && used < sizeof text; k++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s=%lld", k ? ", " : "",
                                 t->key_names ? t->key_names[k] : "?", key[k]);
    return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                  "%s: prune_configs_by keeps none of its %u configs for (%s): nothing to launch", t->name,
                  t->num_configs, text);
}

static int capturing(CUstream stream)
{
    int status = 0;
    return cut.cuStreamIsCapturing && cut.cuStreamIsCapturing(stream, &status) == CUDA_SUCCESS &&
           status != 0;
}

tk_status tkrt_tuned_launch(tkrt_tuner *t, tk_stream stream, const long long *key, void **args)
{
    unsigned long long id = 0;
    CUcontext ctx = NULL;
    char device[128];
    tk_status s;
    int config, timed = 0;
    unsigned char keep[MAX_CONFIGS];
    unsigned candidates;

    if (!t || !t->configs || !t->num_configs || t->num_configs > MAX_CONFIGS || t->num_keys > TKRT_MAX_KEYS ||
        (t->num_keys && !key))
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "tkrt_tuned_launch: an invalid tuner");
    s = driver();
    if (s != TK_SUCCESS)
        return s;
    if (cu.cuCtxGetId(NULL, &id) != CUDA_SUCCESS) {
        s = current_context(t->name, &ctx, &id);
        if (s != TK_SUCCESS)
            return s;
    }
    config = table_get(t, id, key);
    if (config >= 0)
        return t->configs[config](stream, args);
    candidates = kept_configs(t, args, keep);
    if (!candidates)
        return none_kept(t, key);
    pthread_once(&cache_once, load_cache);
    device_name(device, sizeof device);
    config = compiled_choice(t, device, key);
    if (config < 0 || !keep[config])
        config = saved_config(t, key, device);
    if (config >= 0 && keep[config]) {
        lock_tuner(t);
        table_put(t, id, key, config);
        unlock_tuner(t);
        return t->configs[config](stream, args);
    }
    if (capturing((CUstream)stream)) {
        /* no timing inside a graph: a choice already made for a key near
         * it, or the first config (neither kept: the next launch outside
         * a graph times) */
        config = nearest_choice(t, id, device, key, keep);
        if (config >= 0)
            return t->configs[config](stream, args);
        return launch_first(t, (CUstream)stream, args, keep) >= 0 ? TK_SUCCESS : last_status;
    }
    pthread_mutex_lock(&tuning_mutex);
    config = table_get(t, id, key);
    if (config < 0 && !t->tune)
        config = nearest_choice(t, id, device, key, keep); /* a tuner that may not time */
    if (config < 0 && t->tune && candidates > 1 && tuning_symbols) {
        config = tune(t, (CUstream)stream, key, args, keep);
        timed = config >= 0;
    }
    if (config >= 0) {
        s = t->configs[config](stream, args);
    } else {
        config = launch_first(t, (CUstream)stream, args, keep);
        s = config >= 0 ? TK_SUCCESS : last_status;
    }
    if (config >= 0) {
        lock_tuner(t);
        table_put(t, id, key, config);
        unlock_tuner(t);
    }
    if (timed)
        save_choice(t, key, config, device);
    pthread_mutex_unlock(&tuning_mutex);
    return s;
}

/* ---- Public ---------------------------------------------------------- */

tk_status tkrt_launch(tkrt_kernel *kernel, tk_stream stream, unsigned grid_x, unsigned grid_y,
                      unsigned grid_z, void **args)
{
    CUcontext ctx = NULL;
    CUfunction function = NULL;
    unsigned long long id = 0;
    unsigned shared = 0, pdl = 0;
    CUresult r;
    tk_status s;

    if (!kernel || !kernel->name)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                      "tkrt_launch: called with no kernel (or a kernel without a name)");
    if (!kernel->module || (!kernel->module->num_images && !kernel->module->ptx))
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "%s: the kernel has neither cubin nor PTX",
                      kernel->name);
    if (kernel->num_threads == 0 || kernel->num_threads > 1024)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                      "%s: a block of %u threads; CUDA allows 1 to 1024", kernel->name,
                      kernel->num_threads);
    if (grid_x > 0x7fffffffu || grid_y > 65535 || grid_z > 65535)
        return tkrt_grid_invalid(kernel->name, grid_x, grid_y, grid_z, 0);

    s = driver();
    if (s != TK_SUCCESS)
        return s;
    if (grid_x == 0 || grid_y == 0 || grid_z == 0) {
        /* an empty input (no rows, a sequence of length 0): nothing to do,
         * as in Triton and cuBLAS */
        last_status = TK_SUCCESS;
        last_result = CUDA_SUCCESS;
        return TK_SUCCESS;
    }
    /* The usual case: a current context whose module is loaded. */
    if (cu.cuCtxGetId(NULL, &id) == CUDA_SUCCESS)
        function = lookup(kernel, id, &shared, &pdl);
    if (!function) {
        s = current_context(kernel->name, &ctx, &id);
        if (s != TK_SUCCESS)
            return s;
        lock_spin(&kernel->lock);
        function = lookup(kernel, id, &shared, &pdl);
        s = function ? TK_SUCCESS : load(kernel, ctx, id, &function, &shared, &pdl);
        unlock_spin(&kernel->lock);
        if (s != TK_SUCCESS)
            return s;
    }

    if (pdl) {
        CUlaunchAttribute attr;
        CUlaunchConfig config;
        memset(&attr, 0, sizeof attr);
        attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.allowed = 1;
        memset(&config, 0, sizeof config);
        config.grid_x = grid_x;
        config.grid_y = grid_y;
        config.grid_z = grid_z;
        config.block_x = kernel->num_threads;
        config.block_y = config.block_z = 1;
        config.shared_bytes = shared;
        config.stream = (CUstream)stream;
        config.attrs = &attr;
        config.num_attrs = 1;
        r = cuLaunchKernelEx(&config, function, args, NULL);
    } else {
        r = cu.cuLaunchKernel(function, grid_x, grid_y, grid_z, kernel->num_threads, 1, 1,
                              shared, (CUstream)stream, args, NULL);
    }
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_LAUNCH, r,
                      "%s: launching a grid of (%u, %u, %u) blocks of %u threads failed",
                      kernel->name, grid_x, grid_y, grid_z, kernel->num_threads);
    last_status = TK_SUCCESS;
    last_result = CUDA_SUCCESS;
    return TK_SUCCESS;
}

const char *tkrt_kernel_code(tkrt_kernel *kernel, int *from_ptx)
{
    unsigned long long id;
    const char *arch = NULL;
    unsigned i;
    tkrt_module *m = kernel ? kernel->module : NULL;
    if (!m || driver() != TK_SUCCESS || cu.cuCtxGetId(NULL, &id) != CUDA_SUCCESS)
        return NULL;
    lock_spin(&m->lock);
    for (i = 0; i < m->count; i++)
        if (m->loaded[i].context_id == id) {
            unsigned image = m->loaded[i].image;
            arch = image < m->num_images ? m->images[image].arch : m->ptx_arch;
            if (from_ptx)
                *from_ptx = image >= m->num_images;
            break;
        }
    unlock_spin(&m->lock);
    return arch;
}

tk_status tkrt_grid_invalid(const char *kernel, long long x, long long y, long long z, int bad)
{
    if (!kernel)
        kernel = "kernel";
    if (bad)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                      "%s: computing the grid or a heuristic divided by zero or shifted by a negative amount or "
                      "by 64 or more",
                      kernel);
    if (x < 0 || y < 0 || z < 0)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                      "%s: a grid of (%lld, %lld, %lld) programs; a dimension cannot be negative",
                      kernel, x, y, z);
    return record(TK_ERROR_INVALID_VALUE, NO_RESULT,
                  "%s: a grid of (%lld, %lld, %lld) programs; CUDA allows at most (2147483647, "
                  "65535, 65535)",
                  kernel, x, y, z);
}

tk_status tkrt_requirement_failed(const char *kernel, const char *condition, const char *values_format, ...)
{
    char values[512];
    va_list ap;
    va_start(ap, values_format);
    vsnprintf(values, sizeof values, values_format ? values_format : "", ap);
    va_end(ap);
    return record(TK_ERROR_REQUIREMENT, NO_RESULT, "%s: the requirement %s does not hold%s%s",
                  kernel ? kernel : "kernel", condition ? condition : "?", values[0] ? " with " : "", values);
}

tk_status tkrt_promise_failed(tk_status status, const char *kernel, const char *arg,
                              unsigned long long value, unsigned divisor)
{
    if (!kernel)
        kernel = "kernel";
    if (!arg)
        arg = "?";
    switch (status) {
    case TK_ERROR_MISALIGNED:
        return record(status, NO_RESULT,
                      "%s: pointer argument '%s' (0x%llx) is not %u-byte aligned, as its `%% %u` "
                      "promise says",
                      kernel, arg, value, divisor, divisor);
    case TK_ERROR_NOT_DIVISIBLE:
        return record(status, NO_RESULT,
                      "%s: argument '%s' = %lld is not a multiple of %u, as its `%% %u` promise "
                      "says",
                      kernel, arg, (long long)value, divisor, divisor);
    case TK_ERROR_NOT_ONE:
        return record(status, NO_RESULT,
                      "%s: argument '%s' = %lld is not 1, as its `== 1` promise says", kernel, arg,
                      (long long)value);
    default:
        return record(status, NO_RESULT, "%s: argument '%s' = %lld breaks its promise", kernel, arg,
                      (long long)value);
    }
}
