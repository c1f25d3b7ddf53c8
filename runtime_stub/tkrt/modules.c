/* Part of runtime_stub/tkrt.c, compiled only through it (after the parts
 * before it, whose static functions and state it uses): the current context,
 * and each kernel's module loaded once per context from the image that suits
 * the device. */

/* ---- Context --------------------------------------------------------- */

/* The calling thread's current context and its id. Where there is none,
 * retains device 0's primary context (again: a retain also brings back a
 * primary context that was reset) and makes it current: the runtime API
 * does the same, so both then share it. */
static tk_status current_context(const char *kernel, CUcontext *out, unsigned long long *id)
{
    CUcontext ctx = NULL;
    CUdevice device;
    CUresult r = cu.cuCtxGetCurrent(&ctx);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_CUDA, r, "%s: cuCtxGetCurrent failed", kernel);
    if (!ctx) {
        r = cu.cuDeviceGet(&device, 0);
        if (r != CUDA_SUCCESS)
            return record(TK_ERROR_NO_DEVICE, r,
                          "%s: no current CUDA context and no device 0 to make one on", kernel);
        r = cu.cuDevicePrimaryCtxRetain(&ctx, device);
        if (r != CUDA_SUCCESS)
            return record(TK_ERROR_NO_CONTEXT, r,
                          "%s: no current CUDA context, and the primary context of device 0 "
                          "could not be retained",
                          kernel);
        r = cu.cuCtxSetCurrent(ctx);
        if (r != CUDA_SUCCESS)
            return record(TK_ERROR_NO_CONTEXT, r,
                          "%s: no current CUDA context, and the primary context of device 0 "
                          "could not be made current",
                          kernel);
    }
    r = cu.cuCtxGetId(ctx, id);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_NO_CONTEXT, r,
                      "%s: the current CUDA context cannot be used (destroyed?)", kernel);
    *out = ctx;
    return TK_SUCCESS;
}

tk_status tkrt_num_sms(const char *kernel, int *out)
{
    CUcontext ctx;
    unsigned long long id;
    CUdevice device;
    int count = 0;
    CUresult r;
    tk_status s = driver();
    if (s != TK_SUCCESS)
        return s;
    s = current_context(kernel, &ctx, &id);
    if (s != TK_SUCCESS)
        return s;
    r = cu.cuCtxGetDevice(&device);
    if (r == CUDA_SUCCESS)
        r = cu.cuDeviceGetAttribute(&count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_CUDA, r, "%s: the device's number of multiprocessors (num_sms()) cannot be read",
                      kernel);
    if (count <= 0)
        return record(TK_ERROR_CUDA, NO_RESULT, "%s: the device reports %d multiprocessors (num_sms())", kernel,
                      count);
    *out = count;
    return TK_SUCCESS;
}

/* ---- Module cache ---------------------------------------------------- */

/* A spin lock that yields, then sleeps (a PTX JIT can take a while). */
static void lock_spin(volatile int *lock)
{
    unsigned spins = 0;
    while (__atomic_exchange_n(lock, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(lock, __ATOMIC_RELAXED)) {
            if (++spins < 64) {
                sched_yield();
            } else {
                struct timespec pause = { 0, 100000 }; /* 0.1 ms */
                nanosleep(&pause, NULL);
            }
        }
    }
}

static void unlock_spin(volatile int *lock)
{
    __atomic_store_n(lock, 0, __ATOMIC_RELEASE);
}

/* The function of the entry for context `id` (and its shared memory), or
 * NULL. Lock-free: see the comment at the top. */
static CUfunction lookup(tkrt_kernel *k, unsigned long long id, unsigned *shared_bytes, unsigned *pdl)
{
    unsigned n = __atomic_load_n(&k->count, __ATOMIC_ACQUIRE), i;
    if (n > TKRT_MAX_CONTEXTS)
        n = TKRT_MAX_CONTEXTS;
    for (i = 0; i < n; i++)
        if (__atomic_load_n(&k->loaded[i].context_id, __ATOMIC_ACQUIRE) == id) {
            *shared_bytes = __atomic_load_n(&k->loaded[i].shared_bytes, __ATOMIC_RELAXED);
            *pdl = __atomic_load_n(&k->loaded[i].pdl, __ATOMIC_RELAXED);
            return __atomic_load_n(&k->loaded[i].function, __ATOMIC_RELAXED);
        }
    return NULL;
}

/* The cubin for a GPU of compute capability major.minor: of those that run
 * there, the one for the newest minor, arch-specific before generic; -1
 * for none. */
static int choose_image(const tkrt_module *m, int major, int minor)
{
    int best = -1;
    unsigned i;
    for (i = 0; i < m->num_images; i++) {
        const tkrt_image *img = &m->images[i];
        int fits = img->cubin && img->size && (int)img->major == major &&
                   (img->arch_specific ? (int)img->minor == minor : (int)img->minor <= minor);
        if (fits && (best < 0 || img->minor > m->images[best].minor ||
                     (img->minor == m->images[best].minor && img->arch_specific)))
            best = (int)i;
    }
    return best;
}

/* "sm_80, sm_90a" */
static void image_list(const tkrt_module *m, char *out, size_t size)
{
    unsigned i;
    size_t at = 0;
    out[0] = '\0';
    for (i = 0; i < m->num_images && at < size; i++) {
        int n = snprintf(out + at, size - at, "%s%s", i ? ", " : "", m->images[i].arch ? m->images[i].arch : "?");
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

/* Loads module m into the current context: the cubin that suits the GPU,
 * else its PTX. `name` (a kernel's) is for messages. */
static tk_status load_module(tkrt_module *m, const char *name, CUmodule *module_out, unsigned *image_out)
{
    CUmodule module = NULL;
    CUresult r = CUDA_ERROR_NO_BINARY_FOR_GPU, cubin_result = CUDA_SUCCESS;
    char cubin_error[256] = "", cubins[128];
    CUdevice device;
    int major = -1, minor = -1, image;

    if (cu.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
        cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device) != CUDA_SUCCESS ||
        cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device) != CUDA_SUCCESS)
        major = minor = -1;
    image_list(m, cubins, sizeof cubins);
    image = choose_image(m, major, minor);
    if (image >= 0) {
        r = cu.cuModuleLoadData(&module, m->images[image].cubin);
        if (r != CUDA_SUCCESS) {
            cubin_result = r;
            cuda_error_text(r, cubin_error, sizeof cubin_error);
            module = NULL;
            if (!(m->ptx && (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE)))
                return record(TK_ERROR_MODULE_LOAD, r, "%s: loading its %s cubin failed%s", name,
                              m->images[image].arch ? m->images[image].arch : "?",
                              m->ptx ? "" : " (and it has no PTX to JIT)");
        }
    } else if (!m->ptx) {
        return record(TK_ERROR_MODULE_LOAD, NO_RESULT,
                      "%s: no cubin of its module suits this GPU (compute capability %d.%d; cubins for %s), "
                      "and it has no PTX to JIT-compile: build it with --arch for this GPU",
                      name, major, minor, m->num_images ? cubins : "no target");
    }
    if (!module) {
        char log[512] = "";
        int options[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
        void *values[2];
        values[0] = log;
        values[1] = (void *)(uintptr_t)sizeof log;
        r = cu.cuModuleLoadDataEx(&module, m->ptx, 2, options, values);
        if (r != CUDA_SUCCESS) {
            size_t len;
            log[sizeof log - 1] = '\0';
            for (len = strlen(log); len && (log[len - 1] == '\n' || log[len - 1] == ' ');)
                log[--len] = '\0';
            for (char *c = log; *c; c++) /* one line */
                if (*c == '\n' || *c == '\r' || *c == '\t')
                    *c = ' ';
            if (cubin_result != CUDA_SUCCESS)
                return record(TK_ERROR_MODULE_LOAD, r,
                              "%s: its cubin does not suit this GPU (%s) and JIT-compiling its "
                              "PTX failed%s%s",
                              name, cubin_error, log[0] ? " with: " : "", log);
            if (m->num_images)
                return record(TK_ERROR_MODULE_LOAD, r,
                              "%s: no cubin of its module suits this GPU (compute capability %d.%d; cubins "
                              "for %s), and its PTX (for %s) cannot be JIT-compiled for it%s%s",
                              name, major, minor, cubins, m->ptx_arch ? m->ptx_arch : "?",
                              log[0] ? ": " : "", log);
            return record(TK_ERROR_MODULE_LOAD, r, "%s: JIT-compiling its PTX failed%s%s",
                          name, log[0] ? " with: " : "", log);
        }
        image = (int)m->num_images;
    }
    *module_out = module;
    *image_out = (unsigned)image;
    return TK_SUCCESS;
}

/* The module m in context (`ctx`, `id`): loaded already, or now into the
 * entry of a dead context that had the same address, or a new one. */
static tk_status module_in_context(tkrt_module *m, const char *name, CUcontext ctx, unsigned long long id,
                                   CUmodule *module, unsigned *image)
{
    unsigned n, i;
    tk_status s = TK_SUCCESS;
    lock_spin(&m->lock);
    n = m->count;
    for (i = 0; i < n; i++)
        if (m->loaded[i].context_id == id)
            break;
    if (i < n) {
        *module = m->loaded[i].module;
        *image = m->loaded[i].image;
        unlock_spin(&m->lock);
        return TK_SUCCESS;
    }
    for (i = 0; i < n && m->loaded[i].context != ctx; i++)
        ;
    if (i == TKRT_MAX_CONTEXTS)
        s = record(TK_ERROR_TOO_MANY_CONTEXTS, NO_RESULT,
                   "%s: used in more than %d CUDA contexts, the most tkrt keeps a module loaded in", name,
                   TKRT_MAX_CONTEXTS);
    if (s == TK_SUCCESS)
        s = load_module(m, name, module, image);
    if (s == TK_SUCCESS) {
        /* entry i, if not new, belonged to a context that is gone, and its
         * module went with it */
        m->loaded[i].context = ctx;
        m->loaded[i].module = *module;
        m->loaded[i].image = *image;
        m->loaded[i].context_id = id;
        if (i == n)
            m->count = n + 1;
    }
    unlock_spin(&m->lock);
    return s;
}

/* k's function in the current context (`ctx`, `id`), its module loaded if
 * need be, filling an entry (a dead context's of the same address, or a new
 * one). The kernel is locked. */
static tk_status load(tkrt_kernel *k, CUcontext ctx, unsigned long long id, CUfunction *out, unsigned *shared_out,
                      unsigned *pdl_out)
{
    unsigned pdl;
    CUmodule module = NULL;
    CUfunction function = NULL;
    unsigned n = k->count, i, image = 0, shared;
    CUresult r;
    tk_status s;

    for (i = 0; i < n && k->loaded[i].context != ctx; i++)
        ;
    if (i == TKRT_MAX_CONTEXTS)
        return record(TK_ERROR_TOO_MANY_CONTEXTS, NO_RESULT,
                      "%s: used in more than %d CUDA contexts, the most tkrt keeps a module "
                      "loaded in",
                      k->name, TKRT_MAX_CONTEXTS);
    s = module_in_context(k->module, k->name, ctx, id, &module, &image);
    if (s != TK_SUCCESS)
        return s;
    shared = k->shared_bytes ? k->shared_bytes[image] : 0;
    /* the code loaded is for sm_90 or newer: it may wait with griddepcontrol */
    pdl = (k->flags & TKRT_KERNEL_PDL) && cuLaunchKernelEx &&
          (image < k->module->num_images ? k->module->images[image].major : arch_major(k->module->ptx_arch)) >= 9;
    r = cu.cuModuleGetFunction(&function, module, k->name);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_MODULE_LOAD, r, "%s: the module has no kernel of that name", k->name);
    if (shared > 48 * 1024) {
        r = cu.cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shared);
        if (r != CUDA_SUCCESS) {
            CUdevice device;
            int most = 0;
            if (cu.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
                cu.cuDeviceGetAttribute(&most, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                        device) != CUDA_SUCCESS)
                most = 0;
            if (most > 0 && (unsigned)most < shared)
                return record(TK_ERROR_LAUNCH, r,
                              "%s: needs %u bytes of shared memory a block, more than this GPU's "
                              "%d; use smaller tiles or fewer stages",
                              k->name, shared, most);
            return record(TK_ERROR_LAUNCH, r,
                          "%s: opting into %u bytes of dynamic shared memory a block failed",
                          k->name, shared);
        }
    }
    /* Readers match an entry by its id, stored last. */
    k->loaded[i].context = ctx;
    __atomic_store_n(&k->loaded[i].function, function, __ATOMIC_RELAXED);
    __atomic_store_n(&k->loaded[i].shared_bytes, shared, __ATOMIC_RELAXED);
    __atomic_store_n(&k->loaded[i].pdl, pdl, __ATOMIC_RELAXED);
    __atomic_store_n(&k->loaded[i].context_id, id, __ATOMIC_RELEASE);
    if (i == n)
        __atomic_store_n(&k->count, n + 1, __ATOMIC_RELEASE);
    *out = function;
    *shared_out = shared;
    *pdl_out = pdl;
    return TK_SUCCESS;
}
