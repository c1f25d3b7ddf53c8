/* Part of runtime_stub/tkrt.c, compiled only through it (after the parts
 * before it, whose static functions and state it uses): TMA: a descriptor
 * argument's checks and its tensor map. */

tk_status tkrt_tensor_arg_init(tkrt_tensor_arg *arg, const tk_tensor *t, unsigned rank, unsigned elem_bytes,
                               const char *kernel, const char *arg_name)
{
    unsigned d;
    if (!kernel)
        kernel = "kernel";
    if (!arg_name)
        arg_name = "?";
    memset(arg, 0, sizeof *arg);
    if (!t || rank < 1 || rank > 5 || !elem_bytes)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "%s: no tensor for descriptor argument '%s'", kernel,
                      arg_name);
    if (!t->data || (unsigned long long)(uintptr_t)t->data % 16 != 0)
        return record(TK_ERROR_MISALIGNED, NO_RESULT,
                      "%s: descriptor argument '%s': its data (0x%llx) is not 16-byte aligned, as a tensor "
                      "descriptor needs",
                      kernel, arg_name, (unsigned long long)(uintptr_t)t->data);
    for (d = 0; d < rank; d++) {
        long long size = t->shape[d], stride = t->strides[d];
        if (size < 0 || size > 2147483647LL)
            return record(TK_ERROR_REQUIREMENT, NO_RESULT,
                          "%s: descriptor argument '%s': shape[%u] = %lld is not in [0, 2^31)", kernel, arg_name,
                          d, size);
        if (d == rank - 1 && stride != 1)
            return record(TK_ERROR_REQUIREMENT, NO_RESULT,
                          "%s: descriptor argument '%s': its last stride (strides[%u]) is %lld, not 1, as a "
                          "tensor descriptor needs",
                          kernel, arg_name, d, stride);
        if (d < rank - 1 && (stride < 0 || stride >= (1LL << 40) / (long long)elem_bytes ||
                             stride * (long long)elem_bytes % 16 != 0))
            return record(TK_ERROR_REQUIREMENT, NO_RESULT,
                          "%s: descriptor argument '%s': strides[%u] = %lld (x %u bytes) is not a multiple "
                          "of 16 bytes in [0, 2^40), as a tensor descriptor needs",
                          kernel, arg_name, d, stride, elem_bytes);
        arg->shape[d] = size;
        arg->strides[d] = stride;
    }
    arg->data = (unsigned long long)(uintptr_t)t->data;
    return TK_SUCCESS;
}

tk_status tkrt_tensor_map_encode(tkrt_tensor_arg *arg, unsigned rank, int dtype, unsigned elem_bytes,
                                 const unsigned *box, unsigned swizzle_bytes, int nan_fill, const char *kernel,
                                 const char *arg_name)
{
    unsigned long long dims[5], strides[5];
    unsigned boxes[5], ones[5] = {1, 1, 1, 1, 1}, d;
    int swizzle = swizzle_bytes == 128 ? 3 : swizzle_bytes == 64 ? 2 : swizzle_bytes == 32 ? 1 : 0;
    tk_status s;
    CUresult r;
    if (!kernel)
        kernel = "kernel";
    if (!arg_name)
        arg_name = "?";
    if (rank < 1 || rank > 5)
        return record(TK_ERROR_INVALID_VALUE, NO_RESULT, "%s: descriptor argument '%s' has rank %u", kernel,
                      arg_name, rank);
    s = driver();
    if (s != TK_SUCCESS)
        return s;
    if (!cuTensorMapEncodeTiled)
        return record(TK_ERROR_CUDA, NO_RESULT,
                      "%s: descriptor argument '%s' is copied by TMA, and this CUDA driver has no "
                      "cuTensorMapEncodeTiled (CUDA 12.0 or newer has)",
                      kernel, arg_name);
    /* the map's order is innermost first; its strides are in bytes, for
     * every dimension but the innermost */
    for (d = 0; d < rank; d++) {
        unsigned from = rank - 1 - d;
        if (arg->shape[from] == 0)
            return record(TK_ERROR_REQUIREMENT, NO_RESULT,
                          "%s: descriptor argument '%s' is copied by TMA, which cannot describe an empty "
                          "tensor: shape[%u] = 0",
                          kernel, arg_name, from);
        dims[d] = (unsigned long long)arg->shape[from];
        strides[d] = (unsigned long long)arg->strides[from];
        boxes[d] = box[from];
    }
    for (d = 1; d < rank; d++)
        strides[d - 1] = strides[d] * elem_bytes;
    r = cuTensorMapEncodeTiled(arg->tensor_map, dtype, rank, (void *)(uintptr_t)arg->data, dims, strides, boxes,
                               ones, 0, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                               nan_fill ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA : 0);
    if (r != CUDA_SUCCESS)
        return record(TK_ERROR_CUDA, r, "%s: cuTensorMapEncodeTiled for descriptor argument '%s'", kernel, arg_name);
    return TK_SUCCESS;
}
