/*
 * reduce.c -- parallel sum, min and max over the six key types (gpusort_reduce on the CPU).
 *
 * Exports gpusort__cpu_reduce (arguments checked by the core: n > 0, valid type and op).
 *
 * DETERMINISM. The input is cut into fixed SUPER-element superblocks whatever the thread
 * count; threads take whole superblocks, write one partial result per superblock, and the
 * partials are combined in index order by one thread. So the result is the same on every run
 * AND for every thread count.
 *
 * SUMS.
 *   integers  u64 (unsigned types) or i64 (signed) accumulators, wrapping modulo 2^64: exact
 *             modulo 2^64 in any order.
 *   floats    f32 input is accumulated in double; f64 in double. Inside a superblock, blocks
 *             of BLOCK elements are summed with LANES independent accumulators (element i goes
 *             to lane i % LANES; the compiler vectorises it), then lanes, blocks and
 *             superblocks are added pairwise. Each element passes through at most
 *             BLOCK / LANES + log2(LANES) + log2(blocks) + log2(superblocks) additions, so
 *             |sum - exact| <= (n / LANES + 64) * eps(double) * sum(|x|) roughly, which is
 *             within gpusort.h's 2 * n * eps * sum(|x|) for f64 and far within its
 *             1e-12 * n * sum(|x|) for f32. NaN anywhere, or +inf with -inf, gives NaN (IEEE).
 * MIN/MAX. Any NaN gives NaN (numpy): the first NaN in index order is returned. Otherwise
 *   the first occurrence of the extreme value in index order (so min of {-0.0, +0.0} is the
 *   one that comes first); f32 results are widened to double exactly.
 */
#include "cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    BLOCK = 4096,                  /* elements per block: lane sums stay short */
    LANES = 8,                     /* independent accumulators: two AVX2 vectors of doubles */
    SUPER = 1 << 20,               /* elements per superblock: the unit of work and of order */
};

typedef struct rtask {
    gpusort_type type;
    gpusort_op op;
    const void *data;
    size_t n;
    gpusort_value *part;           /* [superblocks] partial results */
    unsigned char *part_nan;       /* [superblocks] 1 if the superblock holds a NaN (min/max) */
} rtask;

/* Pairwise sum of x[0..m) (m >= 1). */
static double pairwise(const double *x, size_t m)
{
    if (m == 1) return x[0];
    size_t h = m / 2;
    return pairwise(x, h) + pairwise(x + h, m - h);
}

static double block_sum_f32(const float *x, size_t m)
{
    double lane[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= m; i += LANES)
        for (int l = 0; l < LANES; l++) lane[l] += (double)x[i + l];
    for (int l = 0; i < m; i++, l++) lane[l] += (double)x[i];
    return pairwise(lane, LANES);
}

static double block_sum_f64(const double *x, size_t m)
{
    double lane[LANES] = {0};
    size_t i = 0;
    for (; i + LANES <= m; i += LANES)
        for (int l = 0; l < LANES; l++) lane[l] += x[i + l];
    for (int l = 0; i < m; i++, l++) lane[l] += x[i];
    return pairwise(lane, LANES);
}

/* Sum of one superblock [lo, hi) of a float type: blocks, then pairwise over the blocks. */
static double super_sum_float(const rtask *r, size_t lo, size_t hi)
{
    double blocks[SUPER / BLOCK];
    size_t nb = 0;
    for (size_t b = lo; b < hi; b += BLOCK) {
        size_t m = hi - b < BLOCK ? hi - b : BLOCK;
        blocks[nb++] = r->type == GPUSORT_TYPE_F32 ? block_sum_f32((const float *)r->data + b, m)
                                                   : block_sum_f64((const double *)r->data + b, m);
    }
    return pairwise(blocks, nb);
}

/* min/max over [lo, hi): the first extreme element, or the first NaN. */
#define MINMAX_LOOP(T, field, is_nan)                                                        \
    do {                                                                                     \
        const T *x = (const T *)r->data;                                                     \
        T best = x[lo];                                                                      \
        if (is_nan(best)) { out->field = best; *nan = 1; return; }                           \
        if (r->op == GPUSORT_OP_MIN) {                                                       \
            for (size_t i = lo + 1; i < hi; i++) {                                           \
                if (is_nan(x[i])) { out->field = x[i]; *nan = 1; return; }                   \
                if (x[i] < best) best = x[i];                                                \
            }                                                                                \
        } else {                                                                             \
            for (size_t i = lo + 1; i < hi; i++) {                                           \
                if (is_nan(x[i])) { out->field = x[i]; *nan = 1; return; }                   \
                if (x[i] > best) best = x[i];                                                \
            }                                                                                \
        }                                                                                    \
        out->field = best;                                                                   \
    } while (0)
#define NEVER_NAN(v) 0
#define IS_NAN(v) isnan(v)

static void super_minmax(const rtask *r, size_t lo, size_t hi, gpusort_value *out,
                         unsigned char *nan)
{
    *nan = 0;
    switch (r->type) {
    case GPUSORT_TYPE_U32: MINMAX_LOOP(uint32_t, u, NEVER_NAN); break;
    case GPUSORT_TYPE_U64: MINMAX_LOOP(uint64_t, u, NEVER_NAN); break;
    case GPUSORT_TYPE_I32: MINMAX_LOOP(int32_t, i, NEVER_NAN); break;
    case GPUSORT_TYPE_I64: MINMAX_LOOP(int64_t, i, NEVER_NAN); break;
    case GPUSORT_TYPE_F32: MINMAX_LOOP(float, f, IS_NAN); break;   /* widened exactly */
    case GPUSORT_TYPE_F64: MINMAX_LOOP(double, f, IS_NAN); break;
    default: break;
    }
}

/* Integer sum of [lo, hi), wrapping modulo 2^64. */
static uint64_t super_sum_int(const rtask *r, size_t lo, size_t hi)
{
    uint64_t s = 0;
    switch (r->type) {
    case GPUSORT_TYPE_U32: for (size_t i = lo; i < hi; i++) s += ((const uint32_t *)r->data)[i]; break;
    case GPUSORT_TYPE_U64: for (size_t i = lo; i < hi; i++) s += ((const uint64_t *)r->data)[i]; break;
    case GPUSORT_TYPE_I32:   /* sign-extend, then add as unsigned: two's complement wrap */
        for (size_t i = lo; i < hi; i++) s += (uint64_t)(int64_t)((const int32_t *)r->data)[i];
        break;
    case GPUSORT_TYPE_I64: for (size_t i = lo; i < hi; i++) s += (uint64_t)((const int64_t *)r->data)[i]; break;
    default: break;
    }
    return s;
}

static int is_float(gpusort_type t) { return t == GPUSORT_TYPE_F32 || t == GPUSORT_TYPE_F64; }

static void super_task(void *arg, size_t sb)
{
    rtask *r = (rtask *)arg;
    size_t lo = sb * (size_t)SUPER, hi = r->n - lo < SUPER ? r->n : lo + SUPER;
    if (r->op != GPUSORT_OP_SUM) super_minmax(r, lo, hi, &r->part[sb], &r->part_nan[sb]);
    else if (is_float(r->type)) r->part[sb].f = super_sum_float(r, lo, hi);
    else r->part[sb].u = super_sum_int(r, lo, hi);
}

/* Combine partials in index order: pairwise for float sums; first NaN or first extreme. */
static gpusort_value combine(const rtask *r, size_t ns)
{
    gpusort_value v = r->part[0];
    if (r->op == GPUSORT_OP_SUM) {
        if (!is_float(r->type)) {
            for (size_t s = 1; s < ns; s++) v.u += r->part[s].u;
        } else {
            double *f = (double *)r->part;           /* gpusort_value is 8 bytes: in place */
            for (size_t s = 0; s < ns; s++) f[s] = r->part[s].f;
            v.f = pairwise(f, ns);
        }
        return v;
    }
    int min = r->op == GPUSORT_OP_MIN;
    if (r->part_nan[0]) return v;
    for (size_t s = 1; s < ns; s++) {
        gpusort_value x = r->part[s];
        if (r->part_nan[s]) return x;
        int better;
        switch (r->type) {
        case GPUSORT_TYPE_U32: case GPUSORT_TYPE_U64: better = min ? x.u < v.u : x.u > v.u; break;
        case GPUSORT_TYPE_I32: case GPUSORT_TYPE_I64: better = min ? x.i < v.i : x.i > v.i; break;
        default: better = min ? x.f < v.f : x.f > v.f; break;
        }
        if (better) v = x;
    }
    return v;
}

gpusort_status gpusort__cpu_reduce(gpusort_ctx *ctx, gpusort_type type, const void *data,
                                   size_t n, gpusort_op op, gpusort_value *result)
{
    size_t ns = (n - 1) / SUPER + 1;
    gpusort_value one;
    unsigned char one_nan;
    rtask r = {type, op, data, n, &one, &one_nan};
    if (ns > 1) {
        r.part = (gpusort_value *)gpusort__malloc(ns * sizeof *r.part);
        r.part_nan = (unsigned char *)gpusort__malloc(ns);
        if (!r.part || !r.part_nan) {
            free(r.part);
            free(r.part_nan);
            return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                      "reduce: %zu bytes of partial results", ns * 9);
        }
    }
    gpusort_status st = gpusort__cpu_parallel_for(gpusort__threads(ctx), ns, super_task, &r);
    if (st == GPUSORT_STATUS_SUCCESS) *result = combine(&r, ns);
    if (ns > 1) {
        free(r.part);
        free(r.part_nan);
    }
    return st;
}
