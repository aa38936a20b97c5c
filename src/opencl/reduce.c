/*
 * reduce.c -- OpenCL sum / min / max (host side) over the six key types.
 *
 * Exports gpusort__cl_reduce (opencl_internal.h). ONE launch of reduce_sum_<T> or
 * reduce_minmax_<T> (kernels/reduce.cl) with a fixed grid of G = 8 work-groups per compute unit
 * (fewer for small n): each work-group writes its partial, and the work-group that finishes
 * last (a ticket counter in global memory, GPUSORT_CL_SCRATCH_REDUCE_DONE) combines the G
 * partials on the device; then a flush (the kernel starts while the read is enqueued) and a
 * blocking read of the final 32 bytes, decoded here. The counter
 * is zero-filled when its buffer is created and the last work-group sets it back to zero, so no
 * extra command is enqueued per call. (A second launch of a one-work-group final kernel, or
 * reading the G partials back, each cost more: bench/results/opencl-2026-11-22c.md.) The
 * grid depends only on n and the device, and the partials are combined in a fixed order
 * whichever work-group is last, so results are the same on every run.
 *
 * Tuning knob (benchmarks; the result does not depend on it), environment, read per call:
 * GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU=k (1..32) replaces GROUPS_PER_CU. The read blocks:
 * polling its event is slower on NVIDIA's OpenCL (bench/results/opencl-2026-11-22b.md).
 *
 * Accuracy (the contract of include/gpusort.h): integer sums exact mod 2^64; f64 sums in double
 * (recursive per work-item, tree per group, then a short run + tree over the partials: error
 * <= (n - 1) * eps * sum |x|,
 * within the stated 2 * n * eps(double) * sum |x|); f32 sums in double on fp64 devices, else in
 * float-float (~2^-44 relative per addition; two magnitude ranges so nothing overflows float,
 * see reduce.cl), both within 1e-12 * n * sum |x|. min/max: NaN if
 * any NaN; ties (-0.0 / +0.0) resolved to the first position. f64 needs cl_khr_fp64; otherwise
 * GPUSORT_STATUS_UNSUPPORTED.
 */
#include "opencl_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WG 256
/* Work-groups per compute unit: enough resident work-items to cover memory latency (4, 8 and
 * 16 measured level on the H200: bench/results/opencl-2026-11-22c.md). */
#define GROUPS_PER_CU 8
/* 64-bit words per work-group partial (GS_OUT in reduce.cl). */
#define OUT 4

static long env_long(const char *name, long def)
{
    const char *e = getenv(name);
    return e && *e ? strtol(e, NULL, 10) : def;
}

gpusort_status gpusort__cl_reduce(gpusort_ctx *ctx, gpusort_type type, cl_mem data, size_t n,
                                  gpusort_op op, gpusort_value *result)
{
    static const char *const sum_names[GPUSORT_TYPE_COUNT_] = {
        "reduce_sum_uint", "reduce_sum_int", "reduce_sum_float", "reduce_sum_ulong",
        "reduce_sum_long", "reduce_sum_double"};
    static const char *const minmax_names[GPUSORT_TYPE_COUNT_] = {
        "reduce_minmax_uint", "reduce_minmax_int", "reduce_minmax_float", "reduce_minmax_ulong",
        "reduce_minmax_long", "reduce_minmax_double"};
    int fp64 = gpusort__cl_has_fp64(ctx);
    if (type == GPUSORT_TYPE_F64 && !fp64)
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "f64 reduce needs cl_khr_fp64, which this OpenCL device lacks");
    long per_cu = env_long("GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU", GROUPS_PER_CU);
    if (per_cu < 1 || per_cu > 32) per_cu = GROUPS_PER_CU;
    size_t groups = (size_t)gpusort__cl_compute_units(ctx) * (size_t)per_cu;
    size_t needed = (n + 16 * WG - 1) / (16 * WG);  /* four vload4s per work-item */
    if (groups > needed) groups = needed;
    if (groups == 0) groups = 1;
    cl_mem partials, done;
    cl_kernel k;
    gpusort_status s;
    int is_float = type == GPUSORT_TYPE_F32 || type == GPUSORT_TYPE_F64;
    const char *name = op == GPUSORT_OP_SUM ? sum_names[type] : minmax_names[type];
    cl_ulong nn = n;
    cl_int is_min = op == GPUSORT_OP_MIN;
    /* G partials, then the result; the ticket counter (one uint, zero between calls). */
    if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX2, (groups + 1) * OUT * 8,
                                 &partials)) ||
        (s = gpusort__cl_scratch_zeroed(ctx, GPUSORT_CL_SCRATCH_REDUCE_DONE, sizeof(cl_uint),
                                        &done)) ||
        (s = gpusort__cl_kernel(ctx, GPUSORT_CL_PROG_REDUCE, name, &k)))
        return s;
    if (op == GPUSORT_OP_SUM)
        s = gpusort__cl_args(ctx, k, name, sizeof(cl_mem), &data, sizeof nn, &nn,
                             sizeof(cl_mem), &partials, sizeof(cl_mem), &done, (size_t)0);
    else
        s = gpusort__cl_args(ctx, k, name, sizeof(cl_mem), &data, sizeof nn, &nn,
                             sizeof is_min, &is_min, sizeof(cl_mem), &partials, sizeof(cl_mem),
                             &done, (size_t)0);
    if (s || (s = gpusort__cl_launch(ctx, k, name, groups, WG))) return s;
    /* Submit the kernel now, not when the blocking read below flushes the queue, so that the
     * GPU runs while the read is being enqueued (CUDA launches at once; up to 2 us at 2^24:
     * bench/results/opencl-2026-11-22c.md). */
    clFlush(gpusort__cl_queue(ctx));
    /* The result: word 0 (and 1, 2) of the final partial, as reduce.cl lays them out. */
    uint64_t part[OUT];
    cl_int err = clEnqueueReadBuffer(gpusort__cl_queue(ctx), partials, CL_TRUE,
                                     groups * OUT * 8, sizeof part, part, 0, NULL, NULL);
    if (err != CL_SUCCESS) return gpusort__cl_fail(ctx, err, "clEnqueueReadBuffer(reduce result)");

    memset(result, 0, sizeof *result);
    if (op == GPUSORT_OP_SUM && !is_float) {
        result->u = part[0];               /* same bits as result->i for signed types */
    } else if (op == GPUSORT_OP_SUM && type == GPUSORT_TYPE_F32 && !fp64) {
        /* float-float small and big (scaled by 2^-64) sums, and the inf/NaN sum */
        float f[6];
        for (int w = 0; w < 3; w++) {
            uint32_t lo = (uint32_t)part[w], hi = (uint32_t)(part[w] >> 32);
            memcpy(&f[2 * w], &lo, 4);
            memcpy(&f[2 * w + 1], &hi, 4);
        }
        result->f = ((double)f[0] + (double)f[1]) + ldexp((double)f[2] + (double)f[3], 64) +
                    (double)f[4];
    } else if (op == GPUSORT_OP_SUM) {
        memcpy(&result->f, &part[0], 8);   /* a double on fp64 devices, f32 sums included */
    } else if (type == GPUSORT_TYPE_F32) {
        uint32_t b = (uint32_t)part[0];
        float f;
        memcpy(&f, &b, 4);
        result->f = f;                     /* NaN, or the first of equal values */
    } else if (type == GPUSORT_TYPE_F64) {
        memcpy(&result->f, &part[0], 8);
    } else if (type == GPUSORT_TYPE_U32) {
        result->u = (uint32_t)part[0];
    } else if (type == GPUSORT_TYPE_I32) {
        result->i = (int32_t)(uint32_t)part[0];
    } else {
        result->u = part[0];               /* u64, i64: the same bits */
    }
    return GPUSORT_STATUS_SUCCESS;
}
