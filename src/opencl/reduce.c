/*
 * reduce.c -- OpenCL sum / min / max (host side) over the six key types.
 *
 * Exports gpusort__cl_reduce (opencl_internal.h). One launch of reduce_sum_<T> or
 * reduce_minmax_<T> (kernels/reduce.cl) with a fixed grid of G = 8 work-groups per compute unit
 * (fewer for small n) writing G partials, one launch of reduce_final_<kind> (one work-group)
 * combining them on the device, then a blocking read of the final 32 bytes, decoded here. (The
 * CUDA backend does the same; reading the G partials back instead costs a 32 KiB copy.) The
 * grid depends only on n and the device, so results are the same on every run.
 *
 * Tuning knob (benchmarks; the result does not depend on it), environment, read per call:
 * GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU=k (1..32) replaces GROUPS_PER_CU. (Polling the read's
 * event instead of a blocking read was measured slower on NVIDIA's OpenCL: 71 vs 45 us.)
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
/* Work-groups per compute unit: enough resident work-items to cover memory latency. */
#define GROUPS_PER_CU 8
#define NONE UINT64_MAX
/* 64-bit words per work-group partial (GS_OUT in reduce.cl). */
#define OUT 4

static long env_long(const char *name, long def)
{
    const char *e = getenv(name);
    return e && *e ? strtol(e, NULL, 10) : def;
}

/* 1 if (b at ib) should replace (a at ia): the rule of GS_FLOAT_BETTER in reduce.cl. */
static int float_better(double a, uint64_t ia, double b, uint64_t ib, int is_min)
{
    if (ib == NONE) return 0;
    if (ia == NONE) return 1;
    if (isnan(b)) return !isnan(a) || ib < ia;
    if (isnan(a)) return 0;
    return (is_min ? b < a : b > a) || (b == a && ib < ia);
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
    static const char *const final_minmax_names[GPUSORT_TYPE_COUNT_] = {
        "reduce_final_minmax_uint", "reduce_final_minmax_int", "reduce_final_minmax_float",
        "reduce_final_minmax_ulong", "reduce_final_minmax_long", "reduce_final_minmax_double"};
    long per_cu = env_long("GPUSORT_OPENCL_REDUCE_GROUPS_PER_CU", GROUPS_PER_CU);
    if (per_cu < 1 || per_cu > 32) per_cu = GROUPS_PER_CU;
    size_t groups = (size_t)gpusort__cl_compute_units(ctx) * (size_t)per_cu;
    size_t needed = (n + 16 * WG - 1) / (16 * WG);  /* four vload4s per work-item */
    if (groups > needed) groups = needed;
    if (groups == 0) groups = 1;
    cl_mem partials;
    cl_kernel k, fk;
    gpusort_status s;
    int is_float = type == GPUSORT_TYPE_F32 || type == GPUSORT_TYPE_F64;
    const char *name = op == GPUSORT_OP_SUM ? sum_names[type] : minmax_names[type];
    const char *final_name = op != GPUSORT_OP_SUM ? final_minmax_names[type]
                             : !is_float          ? "reduce_final_isum"
                             : fp64               ? "reduce_final_dsum"
                                                  : "reduce_final_ffsum";
    cl_ulong nn = n;
    cl_uint G = (cl_uint)groups;
    cl_int is_min = op == GPUSORT_OP_MIN;
    /* G partials, then the final one. */
    if ((s = gpusort__cl_scratch(ctx, GPUSORT_CL_SCRATCH_AUX2, (groups + 1) * OUT * 8,
                                 &partials)) ||
        (s = gpusort__cl_kernel(ctx, GPUSORT_CL_PROG_REDUCE, name, &k)))
        return s;
    if (op == GPUSORT_OP_SUM)
        s = gpusort__cl_args(ctx, k, name, sizeof(cl_mem), &data, sizeof nn, &nn,
                             sizeof(cl_mem), &partials, (size_t)0);
    else
        s = gpusort__cl_args(ctx, k, name, sizeof(cl_mem), &data, sizeof nn, &nn,
                             sizeof is_min, &is_min, sizeof(cl_mem), &partials, (size_t)0);
    if (s || (s = gpusort__cl_launch(ctx, k, name, groups, WG)) ||
        (s = gpusort__cl_kernel(ctx, GPUSORT_CL_PROG_REDUCE, final_name, &fk)))
        return s;
    if (op == GPUSORT_OP_SUM)
        s = gpusort__cl_args(ctx, fk, final_name, sizeof(cl_mem), &partials, sizeof G, &G,
                             (size_t)0);
    else
        s = gpusort__cl_args(ctx, fk, final_name, sizeof(cl_mem), &partials, sizeof G, &G,
                             sizeof is_min, &is_min, (size_t)0);
    if (s || (s = gpusort__cl_launch(ctx, fk, final_name, 1, WG))) return s;
    uint64_t part[OUT];
    cl_int err = clEnqueueReadBuffer(gpusort__cl_queue(ctx), partials, CL_TRUE,
                                     groups * OUT * 8, sizeof part, part, 0, NULL, NULL);
    if (err != CL_SUCCESS) return gpusort__cl_fail(ctx, err, "clEnqueueReadBuffer(reduce result)");
    groups = 1;                            /* decode the one final partial below */

    memset(result, 0, sizeof *result);
    if (op == GPUSORT_OP_SUM && !is_float) {
        uint64_t sum = 0;
        for (size_t g = 0; g < groups; g++) sum += part[OUT * g];
        result->u = sum;                   /* same bits as result->i for signed types */
    } else if (op == GPUSORT_OP_SUM) {
        double sum = 0.0;
        for (size_t g = 0; g < groups; g++) {
            double v;
            if (type == GPUSORT_TYPE_F32 && !fp64) {
                /* float-float small and big (scaled by 2^-64) sums, and the inf/NaN sum */
                float f[6];
                for (int w = 0; w < 3; w++) {
                    uint32_t lo = (uint32_t)part[OUT * g + w], hi = (uint32_t)(part[OUT * g + w] >> 32);
                    memcpy(&f[2 * w], &lo, 4);
                    memcpy(&f[2 * w + 1], &hi, 4);
                }
                v = ((double)f[0] + (double)f[1]) + ldexp((double)f[2] + (double)f[3], 64) +
                    (double)f[4];
            } else {
                memcpy(&v, &part[OUT * g], 8);
            }
            sum += v;
        }
        result->f = sum;
    } else if (is_float) {
        int is_min = op == GPUSORT_OP_MIN;
        double best = 0.0;
        uint64_t bi = NONE;
        for (size_t g = 0; g < groups; g++) {
            double v;
            if (type == GPUSORT_TYPE_F32) {
                uint32_t b = (uint32_t)part[OUT * g];
                float f;
                memcpy(&f, &b, 4);
                v = f;
            } else {
                memcpy(&v, &part[OUT * g], 8);
            }
            if (float_better(best, bi, v, part[OUT * g + 1], is_min)) { best = v; bi = part[OUT * g + 1]; }
        }
        result->f = best;
    } else {
        int is_min = op == GPUSORT_OP_MIN;
        for (size_t g = 0; g < groups; g++) {
            uint64_t w = part[OUT * g];
            switch (type) {
            case GPUSORT_TYPE_U32: w = (uint32_t)w; /* fall through */
            case GPUSORT_TYPE_U64:
                if (g == 0 || (is_min ? w < result->u : w > result->u)) result->u = w;
                break;
            default: {
                int64_t v = type == GPUSORT_TYPE_I32 ? (int64_t)(int32_t)(uint32_t)w : (int64_t)w;
                if (g == 0 || (is_min ? v < result->i : v > result->i)) result->i = v;
            }
            }
        }
    }
    return GPUSORT_STATUS_SUCCESS;
}
