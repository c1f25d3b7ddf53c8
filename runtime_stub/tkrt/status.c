/* Part of runtime_stub/tkrt.c, compiled only through it (after the parts
 * before it, whose static functions and state it uses): status strings and
 * the last CUDA error. */

const char *tkrt_status_string(tk_status status)
{
    if (status == last_status && status != TK_SUCCESS && last_message[0])
        return last_message;
    if ((status == TK_ERROR_NO_DRIVER || status == TK_ERROR_NO_DEVICE) &&
        __atomic_load_n(&driver_done, __ATOMIC_ACQUIRE) && status == driver_status)
        return driver_message;
    switch (status) {
    case TK_SUCCESS:
        return "success";
    case TK_ERROR_NO_DRIVER:
        return "the CUDA driver (libcuda.so.1) could not be loaded; is an NVIDIA driver installed?";
    case TK_ERROR_NO_DEVICE:
        return "the CUDA driver found no CUDA device";
    case TK_ERROR_NO_CONTEXT:
        return "there is no current CUDA context, and the primary context of device 0 could not "
               "be made current";
    case TK_ERROR_MODULE_LOAD:
        return "the kernel's module could not be loaded: neither its cubin nor its PTX suits this "
               "GPU and driver";
    case TK_ERROR_LAUNCH:
        return "launching the kernel failed (cuLaunchKernel, or opting into its shared memory)";
    case TK_ERROR_MISALIGNED:
        return "a pointer argument is not aligned as its `% 16` promise says";
    case TK_ERROR_NOT_DIVISIBLE:
        return "an integer argument is not a multiple of 16 as its `% 16` promise says";
    case TK_ERROR_NOT_ONE:
        return "an integer argument is not 1 as its `== 1` promise says";
    case TK_ERROR_INVALID_VALUE:
        return "an invalid value was passed to the tkc runtime (no kernel, a block of 0 or more "
               "than 1024 threads, or a grid larger than CUDA allows)";
    case TK_ERROR_TOO_MANY_CONTEXTS:
        return "a kernel was used in more than 16 CUDA contexts, the most the tkc runtime keeps "
               "a module loaded in";
    case TK_ERROR_CUDA:
        return "a CUDA driver call failed";
    case TK_ERROR_REQUIREMENT:
        return "an argument breaks a condition the kernel requires (its `requires=`)";
    }
    return "unknown tk_status value";
}

tk_status tkrt_status(void)
{
    return last_status;
}

int tkrt_last_cuda_error(void)
{
    return last_result;
}
