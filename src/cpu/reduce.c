/* reduce.c -- FIRST CUT (single-threaded, exact integer sums, pairwise float sums). */
#include "cpu.h"

#include <math.h>
#include <string.h>

static double pairwise(const void *data, int is32, size_t lo, size_t hi)
{
    if (hi - lo <= 256) {
        double s = 0;
        for (size_t i = lo; i < hi; i++)
            s += is32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
        return s;
    }
    size_t mid = lo + (hi - lo) / 2;
    return pairwise(data, is32, lo, mid) + pairwise(data, is32, mid, hi);
}

gpusort_status gpusort__cpu_reduce(gpusort_ctx *ctx, gpusort_type type, const void *data,
                                   size_t n, gpusort_op op, gpusort_value *result)
{
    memset(result, 0, sizeof *result);
    switch (type) {
#define INT_CASE(T, ctype, field, acc)                                                  \
    case T: {                                                                           \
        const ctype *x = (const ctype *)data;                                           \
        if (op == GPUSORT_OP_SUM) {                                                     \
            uint64_t s = 0;                                                             \
            for (size_t i = 0; i < n; i++) s += (uint64_t)(acc)x[i];                    \
            memcpy(&result->field, &s, 8);                                              \
        } else {                                                                        \
            ctype m = x[0];                                                             \
            for (size_t i = 1; i < n; i++)                                              \
                if (op == GPUSORT_OP_MIN ? x[i] < m : x[i] > m) m = x[i];               \
            result->field = m;                                                          \
        }                                                                               \
        return GPUSORT_STATUS_SUCCESS;                                                  \
    }
    INT_CASE(GPUSORT_TYPE_U32, uint32_t, u, uint64_t)
    INT_CASE(GPUSORT_TYPE_U64, uint64_t, u, uint64_t)
    INT_CASE(GPUSORT_TYPE_I32, int32_t, i, int64_t)
    INT_CASE(GPUSORT_TYPE_I64, int64_t, i, int64_t)
#undef INT_CASE
    case GPUSORT_TYPE_F32:
    case GPUSORT_TYPE_F64: {
        int is32 = type == GPUSORT_TYPE_F32;
        if (op == GPUSORT_OP_SUM) { result->f = pairwise(data, is32, 0, n); break; }
        double m = 0;
        for (size_t i = 0; i < n; i++) {
            double v = is32 ? (double)((const float *)data)[i] : ((const double *)data)[i];
            if (isnan(v)) { m = v; break; }
            if (i == 0 || (op == GPUSORT_OP_MIN ? v < m : v > m)) m = v;
        }
        result->f = m;
        break;
    }
    default: break;
    }
    return GPUSORT_STATUS_SUCCESS;
}
