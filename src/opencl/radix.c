/*
 * radix.c -- OpenCL LSD radix sort (host side): keys, pairs and argsort, all six key types.
 *
 * Exports gpusort__cl_radix_sort (opencl_internal.h). The kernels and the algorithm are described
 * in kernels/radix.cl: per 8-bit digit, upsweep (digit counts per work-group) -> scan ->
 * downsweep (rank each tile, scatter), with G work-groups that each own a contiguous run of
 * tiles, G = about the work-groups the device runs at once (GROUPS_PER_CU per compute unit,
 * at most RADIX_MAX_GROUPS, at most one per tile).
 *
 * BUFFERS. A pass reads one buffer and writes another. With P passes (P = key bits / 8, always
 * even) and one temporary T, pass p reads   keys_in (p = 0), T (p odd), keys_out (p even > 0)
 *                                     writes T (p even), keys_out (p odd),
 * so the last pass lands in keys_out, keys_in is only read (argsort leaves the caller's keys
 * alone), and keys_out == keys_in (in place) works too. Values follow the same pattern; for
 * argsort the first pass generates the indices instead of reading values.
 * Scratch: n * (K + V) bytes for T, plus 2 * 4 * 256 * G + 1 KiB of digit counts (G <= 1024).
 *
 * Tuning knob (benchmarks): GPUSORT_OPENCL_RADIX_GROUPS_PER_CU=k (1..32, environment, read on
 * each sort) replaces GROUPS_PER_CU. The result does not depend on it.
 */
#include "opencl_internal.h"

#include <stdlib.h>

/* Must match kernels/radix.cl. */
#define WG 256
#define DIGITS 256
#define RADIX_MAX_GROUPS (4 * WG)
/* Up to this many work-groups per pass, one work-group scans the digit counts
 * (radix_scan_small): every sort on a 2-core PoCL device, sorts of <= 16 tiles on a GPU. */
#define SMALL_SCAN_GROUPS 16
/* Keys per work-item of the downsweep (ITEMS in radix.cl). */
#define ITEMS(key_bytes, value_bytes) ((key_bytes) + (value_bytes) <= 8 ? 16 : 8)
/* Work-groups per compute unit (upsweep and downsweep): at least as many as an SM holds at
 * once; 8 was the fastest of 2, 4 and 8 on the H200 (bench/results/opencl-2026-11-22b.md). */
#define GROUPS_PER_CU 8

static size_t groups_per_cu(void)
{
    const char *e = getenv("GPUSORT_OPENCL_RADIX_GROUPS_PER_CU");
    long k = e ? strtol(e, NULL, 10) : 0;
    return k >= 1 && k <= 32 ? (size_t)k : GROUPS_PER_CU;
}

gpusort_status gpusort__cl_radix_sort(gpusort_ctx *ctx, const gpusort__cl_sort_args *a)
{
    size_t ks = gpusort_type_size(a->key_type);
    int passes = (int)ks;                          /* 8-bit digits: one pass per key byte */
    gpusort__cl_program_id prog =
        (gpusort__cl_program_id)(GPUSORT_CL_PROG_RADIX_K32_V0 + (ks == 8 ? 3 : 0) +
                                 a->value_bytes / 4);
    cl_uint n = (cl_uint)a->n;                    /* the backend keeps n <= GPUSORT_CL_RADIX_MAX_N */
    size_t tile = (size_t)WG * ITEMS(ks, (size_t)a->value_bytes);
    size_t tiles = (a->n + tile - 1) / tile;
    size_t groups = (size_t)gpusort__cl_compute_units(ctx) * groups_per_cu();
    if (groups > RADIX_MAX_GROUPS) groups = RADIX_MAX_GROUPS;
    if (groups > tiles) groups = tiles;
    if (groups == 0) groups = 1;
    cl_uint tiles_per_group = (cl_uint)((tiles + groups - 1) / groups);
    groups = (tiles + tiles_per_group - 1) / tiles_per_group;   /* none left without tiles */
    cl_uint num_tiles = (cl_uint)tiles, G = (cl_uint)groups;
    cl_int type = (cl_int)a->key_type, desc = a->order == GPUSORT_ORDER_DESC;
    cl_mem tk, tv = NULL, counts, prefix, totals;
    gpusort_status s;
    if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_KEYS, a->n * ks, &tk)) ||
        (a->value_bytes &&
         (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_VALUES, a->n * a->value_bytes, &tv))) ||
        (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX, groups * DIGITS * 4, &counts)) ||
        (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX2, groups * DIGITS * 4, &prefix)) ||
        (s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX3, DIGITS * 4, &totals)))
        return s;

    cl_kernel up, scan, down;
    const char *scan_name = G <= SMALL_SCAN_GROUPS ? "radix_scan_small" : "radix_scan";
    size_t scan_groups = G <= SMALL_SCAN_GROUPS ? 1 : DIGITS;
    if ((s = gpusort__cl_kernel(ctx, prog, "radix_upsweep", &up)) ||
        (s = gpusort__cl_kernel(ctx, prog, scan_name, &scan)) ||
        (s = gpusort__cl_kernel(ctx, prog, "radix_downsweep", &down)))
        return s;
    /* The scan's arguments are the same in every pass. */
    if ((s = gpusort__cl_args(ctx, scan, scan_name, sizeof(cl_mem), &counts, sizeof G, &G,
                              sizeof(cl_mem), &prefix, sizeof(cl_mem), &totals, (size_t)0)))
        return s;

    for (int p = 0; p < passes; p++) {
        cl_mem kin = p == 0 ? a->keys_in : (p & 1) ? tk : a->keys_out;
        cl_mem kout = (p & 1) ? a->keys_out : tk;
        cl_mem vin = p == 0 ? a->values_in : (p & 1) ? tv : a->values_out;
        cl_mem vout = (p & 1) ? a->values_out : tv;
        cl_int gen_index = p == 0 && a->values_in == NULL;
        if (gen_index) vin = vout;                 /* unused by the kernel, must be valid */
        cl_uint shift = (cl_uint)(8 * p);
        if ((s = gpusort__cl_args(ctx, up, "radix_upsweep", sizeof(cl_mem), &kin, sizeof n, &n,
                                  sizeof type, &type, sizeof desc, &desc, sizeof shift, &shift,
                                  sizeof num_tiles, &num_tiles, sizeof tiles_per_group,
                                  &tiles_per_group, sizeof(cl_mem), &counts, (size_t)0)) ||
            (s = gpusort__cl_launch(ctx, up, "radix_upsweep", groups, WG)) ||
            (s = gpusort__cl_launch(ctx, scan, scan_name, scan_groups, WG)))
            return s;
        if (a->value_bytes)
            s = gpusort__cl_args(ctx, down, "radix_downsweep", sizeof(cl_mem), &kin,
                                 sizeof(cl_mem), &kout, sizeof(cl_mem), &vin, sizeof(cl_mem),
                                 &vout, sizeof gen_index, &gen_index, sizeof n, &n,
                                 sizeof type, &type, sizeof desc, &desc, sizeof shift, &shift,
                                 sizeof num_tiles, &num_tiles, sizeof tiles_per_group,
                                 &tiles_per_group, sizeof(cl_mem), &prefix, sizeof(cl_mem),
                                 &totals, (size_t)0);
        else
            s = gpusort__cl_args(ctx, down, "radix_downsweep", sizeof(cl_mem), &kin,
                                 sizeof(cl_mem), &kout, sizeof n, &n, sizeof type, &type,
                                 sizeof desc, &desc, sizeof shift, &shift, sizeof num_tiles,
                                 &num_tiles, sizeof tiles_per_group, &tiles_per_group,
                                 sizeof(cl_mem), &prefix, sizeof(cl_mem), &totals, (size_t)0);
        if (s || (s = gpusort__cl_launch(ctx, down, "radix_downsweep", groups, WG))) return s;
    }
    return GPUSORT_STATUS_SUCCESS;
}
