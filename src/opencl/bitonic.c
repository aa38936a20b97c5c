/*
 * bitonic.c -- OpenCL bitonic sort (host side): keys, pairs and argsort, any n, stable.
 *
 * Exports gpusort__cl_bitonic_sort (opencl_internal.h). The network and its kernels are described
 * in kernels/bitonic.cl. Order of launches for N = next power of two >= n, LTILE = 2048:
 *   bitonic_sort_local                        all stages with blocks <= LTILE
 *   for size = 2 * LTILE .. N (doubling):      one stage of seed 004's stage / pass loop
 *       global passes, half = size/2 (a flip) .. LTILE: bitonic_pass2_global does two at a
 *       time, bitonic_pass_global the last one when their number is odd
 *       bitonic_merge_local                   distances LTILE/2 .. 1
 *   gather32/64 of the keys and values through the sorted indices (or the indices themselves
 *   for argsort).
 * O(n log^2 n) work: it is here for devices and sizes where the network's regular access pays
 * off, and as a cross-check of radix; AUTO uses radix.
 * Scratch: n * (K + 4) bytes (radix keys + indices), plus n * max(K, V) when sorting in place.
 */
#include "opencl_internal.h"

/* Must match kernels/bitonic.cl. */
#define WG 256
#define LTILE 2048

/* dst[i] = src[idx[i]] for i < n, with 32- or 64-bit elements; dst may not be src. */
static gpusort_status gather(gpusort_ctx *ctx, gpusort__cl_program_id prog, int bytes,
                             cl_mem src, cl_mem idx, cl_uint n, cl_mem dst)
{
    const char *name = bytes == 8 ? "gather64" : "gather32";
    cl_kernel k;
    gpusort_status s;
    if ((s = gpusort__cl_kernel(ctx, prog, name, &k)) ||
        (s = gpusort__cl_args(ctx, k, name, sizeof(cl_mem), &src, sizeof(cl_mem), &idx,
                              sizeof n, &n, sizeof(cl_mem), &dst, (size_t)0)))
        return s;
    return gpusort__cl_launch(ctx, k, name, ((size_t)n + WG - 1) / WG, WG);
}

/* Gather into out; when out is the source itself (in place), through scratch and a copy. */
static gpusort_status gather_to(gpusort_ctx *ctx, gpusort__cl_program_id prog, int bytes,
                                cl_mem src, cl_mem idx, cl_uint n, cl_mem out)
{
    if (out != src) return gather(ctx, prog, bytes, src, idx, n, out);
    cl_mem tmp;
    gpusort_status s;
    if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX, (size_t)n * bytes, &tmp)) ||
        (s = gather(ctx, prog, bytes, src, idx, n, tmp)))
        return s;
    cl_int err = clEnqueueCopyBuffer(gpusort__cl_queue(ctx), tmp, out, 0, 0, (size_t)n * bytes,
                                     0, NULL, NULL);
    return err == CL_SUCCESS ? GPUSORT_STATUS_SUCCESS
                             : gpusort__cl_fail(ctx, err, "clEnqueueCopyBuffer(gather)");
}

gpusort_status gpusort__cl_bitonic_sort(gpusort_ctx *ctx, const gpusort__cl_sort_args *a)
{
    int ks = (int)gpusort_type_size(a->key_type);
    gpusort__cl_program_id prog = ks == 8 ? GPUSORT_CL_PROG_BITONIC_K64 : GPUSORT_CL_PROG_BITONIC_K32;
    cl_uint n = (cl_uint)a->n;           /* the backend keeps n <= GPUSORT_CL_BITONIC_MAX_N */
    size_t npow = 1;
    while (npow < a->n) npow <<= 1;
    cl_int type = (cl_int)a->key_type, desc = a->order == GPUSORT_ORDER_DESC;
    cl_mem rk, idx;
    gpusort_status s;
    if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_KEYS, a->n * ks, &rk)) ||
        (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_VALUES, a->n * 4, &idx)))
        return s;
    cl_kernel sort_local, pass, pass2, merge_local;
    if ((s = gpusort__cl_kernel(ctx, prog, "bitonic_sort_local", &sort_local)) ||
        (s = gpusort__cl_kernel(ctx, prog, "bitonic_pass_global", &pass)) ||
        (s = gpusort__cl_kernel(ctx, prog, "bitonic_pass2_global", &pass2)) ||
        (s = gpusort__cl_kernel(ctx, prog, "bitonic_merge_local", &merge_local)))
        return s;
    size_t tiles = (a->n + LTILE - 1) / LTILE;
    if ((s = gpusort__cl_args(ctx, sort_local, "bitonic_sort_local", sizeof(cl_mem), &a->keys_in,
                              sizeof n, &n, sizeof type, &type, sizeof desc, &desc,
                              sizeof(cl_mem), &rk, sizeof(cl_mem), &idx, (size_t)0)) ||
        (s = gpusort__cl_launch(ctx, sort_local, "bitonic_sort_local", tiles, WG)) ||
        (s = gpusort__cl_args(ctx, merge_local, "bitonic_merge_local", sizeof(cl_mem), &rk,
                              sizeof(cl_mem), &idx, sizeof n, &n, (size_t)0)))
        return s;
    /* A global pass has npow / 2 comparators (npow / 4 work-items for a double pass); those
     * whose lower position is >= n exit at once. */
    for (size_t size = 2 * LTILE; size <= npow; size <<= 1) {
        for (size_t half = size / 2; half >= LTILE;) {
            /* Two passes per launch while two global distances remain (half/2 >= LTILE). */
            int two = half / 2 >= LTILE;
            cl_kernel k = two ? pass2 : pass;
            const char *name = two ? "bitonic_pass2_global" : "bitonic_pass_global";
            cl_uint h = (cl_uint)half;
            cl_int flip = half == size / 2;
            size_t items = npow / (two ? 4 : 2);
            if ((s = gpusort__cl_args(ctx, k, name, sizeof(cl_mem), &rk, sizeof(cl_mem), &idx,
                                      sizeof n, &n, sizeof h, &h, sizeof flip, &flip,
                                      (size_t)0)) ||
                (s = gpusort__cl_launch(ctx, k, name, items / WG, WG)))
                return s;
            half >>= two ? 2 : 1;
        }
        if ((s = gpusort__cl_launch(ctx, merge_local, "bitonic_merge_local", tiles, WG))) return s;
    }

    /* Move the original bits into sorted order. */
    if ((s = gather_to(ctx, prog, ks, a->keys_in, idx, n, a->keys_out))) return s;
    if (!a->value_bytes) return GPUSORT_STATUS_SUCCESS;
    if (a->values_in) return gather_to(ctx, prog, a->value_bytes, a->values_in, idx, n,
                                       a->values_out);
    if (a->value_bytes == 4) {           /* argsort, u32: the indices are the answer */
        cl_int err = clEnqueueCopyBuffer(gpusort__cl_queue(ctx), idx, a->values_out, 0, 0,
                                         (size_t)n * 4, 0, NULL, NULL);
        return err == CL_SUCCESS ? GPUSORT_STATUS_SUCCESS
                                 : gpusort__cl_fail(ctx, err, "clEnqueueCopyBuffer(indices)");
    }
    cl_kernel widen;
    if ((s = gpusort__cl_kernel(ctx, prog, "widen_index", &widen)) ||
        (s = gpusort__cl_args(ctx, widen, "widen_index", sizeof(cl_mem), &idx, sizeof n, &n,
                              sizeof(cl_mem), &a->values_out, (size_t)0)))
        return s;
    return gpusort__cl_launch(ctx, widen, "widen_index", ((size_t)n + WG - 1) / WG, WG);
}
