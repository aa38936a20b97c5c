/*
 * radix.c -- OpenCL LSD radix sort (host side): keys, pairs and argsort, all six key types.
 *
 * Exports gpusort__cl_radix_sort (opencl_internal.h). The kernels and the algorithm are described
 * in kernels/radix.cl: per 8-bit digit, histogram -> scan -> stable scatter.
 *
 * BUFFERS. A pass reads one buffer and writes another. With P passes (P = key bits / 8, always
 * even) and one temporary T, pass p reads   keys_in (p = 0), T (p odd), keys_out (p even > 0)
 *                                     writes T (p even), keys_out (p odd),
 * so the last pass lands in keys_out, keys_in is only read (argsort leaves the caller's keys
 * alone), and keys_out == keys_in (in place) works too. Values follow the same pattern; for
 * argsort the first pass generates the indices instead of reading values.
 * Scratch: n * (K + V) bytes for T, plus 2 * 4 * 256 * ceil(n / tile) bytes of digit counts
 * (tile = 4096 keys when K + V <= 8, else 2048).
 */
#include "opencl_internal.h"

/* Must match kernels/radix.cl. */
#define WG 256
#define DIGITS 256
#define SCAN_TILE 4096

gpusort_status gpusort__cl_radix_sort(gpusort_ctx *ctx, const gpusort__cl_sort_args *a)
{
    size_t ks = gpusort_type_size(a->key_type);
    int passes = (int)ks;                          /* 8-bit digits: one pass per key byte */
    gpusort__cl_program_id prog =
        (gpusort__cl_program_id)(GPUSORT_CL_PROG_RADIX_K32_V0 + (ks == 8 ? 3 : 0) +
                                 a->value_bytes / 4);
    cl_uint n = (cl_uint)a->n;                    /* the backend keeps n <= GPUSORT_CL_RADIX_MAX_N */
    size_t tile = (size_t)WG * GPUSORT_CL_RADIX_ITEMS((int)ks, a->value_bytes);
    cl_uint num_tiles = (cl_uint)((a->n + tile - 1) / tile);
    cl_uint m = num_tiles * DIGITS;               /* digit counts, digit-major */
    cl_uint scan_groups = (m + SCAN_TILE - 1) / SCAN_TILE;
    cl_int type = (cl_int)a->key_type, desc = a->order == GPUSORT_ORDER_DESC;
    cl_mem tk, tv = NULL, counts, offsets, sums;
    gpusort_status s;
    if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_KEYS, a->n * ks, &tk)) ||
        (a->value_bytes &&
         (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_VALUES, a->n * a->value_bytes, &tv))) ||
        (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX, (size_t)m * 4, &counts)) ||
        (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX2, (size_t)m * 4, &offsets)) ||
        (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX3, (size_t)scan_groups * 4, &sums)))
        return s;

    cl_kernel hist, reduce, spine, down, scatter;
    if ((s = gpusort__cl_kernel(ctx, prog, "radix_histogram", &hist)) ||
        (s = gpusort__cl_kernel(ctx, prog, "scan_reduce", &reduce)) ||
        (s = gpusort__cl_kernel(ctx, prog, "scan_spine", &spine)) ||
        (s = gpusort__cl_kernel(ctx, prog, "scan_down", &down)) ||
        (s = gpusort__cl_kernel(ctx, prog, "radix_scatter", &scatter)))
        return s;

    /* The scan's arguments are the same in every pass. */
    if ((s = gpusort__cl_args(ctx, reduce, "scan_reduce", sizeof(cl_mem), &counts,
                              sizeof m, &m, sizeof(cl_mem), &sums, (size_t)0)) ||
        (s = gpusort__cl_args(ctx, spine, "scan_spine", sizeof(cl_mem), &sums,
                              sizeof scan_groups, &scan_groups, (size_t)0)) ||
        (s = gpusort__cl_args(ctx, down, "scan_down", sizeof(cl_mem), &counts, sizeof m, &m,
                              sizeof(cl_mem), &sums, sizeof(cl_mem), &offsets, (size_t)0)))
        return s;

    for (int p = 0; p < passes; p++) {
        cl_mem kin = p == 0 ? a->keys_in : (p & 1) ? tk : a->keys_out;
        cl_mem kout = (p & 1) ? a->keys_out : tk;
        cl_mem vin = p == 0 ? a->values_in : (p & 1) ? tv : a->values_out;
        cl_mem vout = (p & 1) ? a->values_out : tv;
        cl_int gen_index = p == 0 && a->values_in == NULL;
        if (gen_index) vin = vout;                 /* unused by the kernel, must be valid */
        cl_uint shift = (cl_uint)(8 * p);
        if ((s = gpusort__cl_args(ctx, hist, "radix_histogram", sizeof(cl_mem), &kin,
                                  sizeof n, &n, sizeof type, &type, sizeof desc, &desc,
                                  sizeof shift, &shift, sizeof num_tiles, &num_tiles,
                                  sizeof(cl_mem), &counts, (size_t)0)) ||
            (s = gpusort__cl_launch(ctx, hist, "radix_histogram", num_tiles, WG)) ||
            (s = gpusort__cl_launch(ctx, reduce, "scan_reduce", scan_groups, WG)) ||
            (s = gpusort__cl_launch(ctx, spine, "scan_spine", 1, WG)) ||
            (s = gpusort__cl_launch(ctx, down, "scan_down", scan_groups, WG)))
            return s;
        if (a->value_bytes)
            s = gpusort__cl_args(ctx, scatter, "radix_scatter", sizeof(cl_mem), &kin,
                                 sizeof(cl_mem), &kout, sizeof(cl_mem), &vin, sizeof(cl_mem),
                                 &vout, sizeof gen_index, &gen_index, sizeof n, &n,
                                 sizeof type, &type, sizeof desc, &desc, sizeof shift, &shift,
                                 sizeof num_tiles, &num_tiles, sizeof(cl_mem), &offsets,
                                 (size_t)0);
        else
            s = gpusort__cl_args(ctx, scatter, "radix_scatter", sizeof(cl_mem), &kin,
                                 sizeof(cl_mem), &kout, sizeof n, &n, sizeof type, &type,
                                 sizeof desc, &desc, sizeof shift, &shift, sizeof num_tiles,
                                 &num_tiles, sizeof(cl_mem), &offsets, (size_t)0);
        if (s || (s = gpusort__cl_launch(ctx, scatter, "radix_scatter", num_tiles, WG))) return s;
    }
    return GPUSORT_STATUS_SUCCESS;
}
