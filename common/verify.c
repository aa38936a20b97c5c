/*
 * verify.c -- the reference of verify.h: the gpusort order as plain C comparisons, a stable
 * merge sort, and reduce checks.
 *
 * The reference sort is a bottom-up merge sort of (key, input index) records: insertion sort of
 * runs of 32, then merges of runs of doubling width, ping-ponging between two buffers. Stable
 * because insertion sort moves an element only past STRICTLY greater ones and a merge takes the
 * right run's head only when it is STRICTLY less than the left run's head. It is instantiated
 * per key type and order with the comparison inlined (a macro stands in for a template), which
 * keeps it near 50 ns per key at 2^20 keys: fast enough for the tests to sort every case.
 *
 * Float comparison: a < b in the gpusort order iff a is not NaN and (b is NaN or a < b as C
 * compares them). C's < already says -0.0 == +0.0 and -inf < everything finite < +inf; NaNs are
 * neither less nor greater than anything, so they land last and equal to each other.
 */
#include "verify.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- comparisons ---- */

static inline int f32_lt(float a, float b) { return !isnan(a) && (isnan(b) || a < b); }
static inline int f64_lt(double a, double b) { return !isnan(a) && (isnan(b) || a < b); }

#define NUM_LT(a, b) ((a) < (b))
#define NUM_GT(a, b) ((b) < (a))
#define F32_LT(a, b) f32_lt((a), (b))
#define F32_GT(a, b) f32_lt((b), (a))
#define F64_LT(a, b) f64_lt((a), (b))
#define F64_GT(a, b) f64_lt((b), (a))

/* Load element i of a key array as its C type. */
#define LOAD(T, p, i) (((const T *)(p))[i])

int verify_cmp(gpusort_type type, const void *a, const void *b)
{
#define CMP3(T, LT) do {                              \
        T x = LOAD(T, a, 0), y = LOAD(T, b, 0);       \
        return LT(x, y) ? -1 : LT(y, x) ? 1 : 0;      \
    } while (0)
    switch (type) {
    case GPUSORT_TYPE_U32: CMP3(uint32_t, NUM_LT);
    case GPUSORT_TYPE_I32: CMP3(int32_t, NUM_LT);
    case GPUSORT_TYPE_F32: CMP3(float, F32_LT);
    case GPUSORT_TYPE_U64: CMP3(uint64_t, NUM_LT);
    case GPUSORT_TYPE_I64: CMP3(int64_t, NUM_LT);
    case GPUSORT_TYPE_F64: CMP3(double, F64_LT);
    default: return 0;
    }
#undef CMP3
}

size_t verify_first_unsorted(gpusort_type type, const void *keys, size_t n, gpusort_order order)
{
#define SCAN(T, LT) do {                                                   \
        for (size_t i = 1; i < n; i++) {                                   \
            T prev = LOAD(T, keys, i - 1), cur = LOAD(T, keys, i);         \
            if (order == GPUSORT_ORDER_DESC ? LT(prev, cur) : LT(cur, prev)) return i; \
        }                                                                  \
        return n;                                                          \
    } while (0)
    switch (type) {
    case GPUSORT_TYPE_U32: SCAN(uint32_t, NUM_LT);
    case GPUSORT_TYPE_I32: SCAN(int32_t, NUM_LT);
    case GPUSORT_TYPE_F32: SCAN(float, F32_LT);
    case GPUSORT_TYPE_U64: SCAN(uint64_t, NUM_LT);
    case GPUSORT_TYPE_I64: SCAN(int64_t, NUM_LT);
    case GPUSORT_TYPE_F64: SCAN(double, F64_LT);
    default: return n;
    }
#undef SCAN
}

/* ---- the reference sort ---- */

#define REF_RUN 32 /* insertion-sorted run length: short enough that O(run^2) stays cheap */

/* Defines NAME##_sort(keys, lo, hi, perm, scratch): sorts the keys [lo, hi) stably by LESS and
 * writes their global input indices to perm[lo .. hi). scratch holds 2 * (hi - lo) records. */
#define DEFINE_REF_SORT(NAME, T, LESS)                                                   \
    typedef struct NAME##_rec { T key; uint64_t idx; } NAME##_rec;                        \
    static void NAME##_sort(const void *keys, size_t lo, size_t hi, uint64_t *perm,       \
                            void *scratch)                                                \
    {                                                                                     \
        size_t n = hi - lo;                                                               \
        NAME##_rec *a = (NAME##_rec *)scratch, *b = a + n;                                \
        for (size_t i = 0; i < n; i++) { a[i].key = LOAD(T, keys, lo + i); a[i].idx = lo + i; } \
        for (size_t r = 0; r < n; r += REF_RUN) {                                         \
            size_t end = r + REF_RUN < n ? r + REF_RUN : n;                               \
            for (size_t i = r + 1; i < end; i++) {                                        \
                NAME##_rec x = a[i];                                                      \
                size_t j = i;                                                             \
                while (j > r && LESS(x.key, a[j - 1].key)) { a[j] = a[j - 1]; j--; }      \
                a[j] = x;                                                                 \
            }                                                                             \
        }                                                                                 \
        for (size_t w = REF_RUN; w < n; w *= 2) {                                         \
            for (size_t s = 0; s < n; s += 2 * w) {                                       \
                size_t mid = s + w < n ? s + w : n, end = s + 2 * w < n ? s + 2 * w : n;  \
                size_t i = s, j = mid, k = s;                                             \
                while (i < mid && j < end) b[k++] = LESS(a[j].key, a[i].key) ? a[j++] : a[i++]; \
                while (i < mid) b[k++] = a[i++];                                          \
                while (j < end) b[k++] = a[j++];                                          \
            }                                                                             \
            NAME##_rec *t = a; a = b; b = t;                                              \
        }                                                                                 \
        for (size_t i = 0; i < n; i++) perm[lo + i] = a[i].idx;                           \
    }

DEFINE_REF_SORT(u32_asc, uint32_t, NUM_LT)
DEFINE_REF_SORT(u32_desc, uint32_t, NUM_GT)
DEFINE_REF_SORT(i32_asc, int32_t, NUM_LT)
DEFINE_REF_SORT(i32_desc, int32_t, NUM_GT)
DEFINE_REF_SORT(f32_asc, float, F32_LT)
DEFINE_REF_SORT(f32_desc, float, F32_GT)
DEFINE_REF_SORT(u64_asc, uint64_t, NUM_LT)
DEFINE_REF_SORT(u64_desc, uint64_t, NUM_GT)
DEFINE_REF_SORT(i64_asc, int64_t, NUM_LT)
DEFINE_REF_SORT(i64_desc, int64_t, NUM_GT)
DEFINE_REF_SORT(f64_asc, double, F64_LT)
DEFINE_REF_SORT(f64_desc, double, F64_GT)

typedef void (*ref_sort_fn)(const void *, size_t, size_t, uint64_t *, void *);

static ref_sort_fn ref_sort_for(gpusort_type type, gpusort_order order)
{
    static const ref_sort_fn table[GPUSORT_TYPE_COUNT_][2] = {
        {u32_asc_sort, u32_desc_sort}, {i32_asc_sort, i32_desc_sort},
        {f32_asc_sort, f32_desc_sort}, {u64_asc_sort, u64_desc_sort},
        {i64_asc_sort, i64_desc_sort}, {f64_asc_sort, f64_desc_sort},
    };
    if ((int)type < 0 || type >= GPUSORT_TYPE_COUNT_) return NULL;
    return table[type][order == GPUSORT_ORDER_DESC];
}

/* Every record type above is at most 16 bytes (an 8-byte key and an 8-byte index). */
#define REF_REC_MAX 16

int verify_ref_argsort(gpusort_type type, const void *keys, size_t n, gpusort_order order,
                       uint64_t *perm)
{
    uint64_t offsets[2] = {0, n};
    return verify_ref_segmented_argsort(type, keys, n, order, offsets, 1, perm);
}

int verify_ref_segmented_argsort(gpusort_type type, const void *keys, size_t n,
                                 gpusort_order order, const uint64_t *offsets,
                                 size_t num_segments, uint64_t *perm)
{
    ref_sort_fn sort = ref_sort_for(type, order);
    if (!sort) return -1;
    for (size_t i = 0; i < n; i++) perm[i] = i;
    size_t longest = 0;
    for (size_t s = 0; s < num_segments; s++)
        if (offsets[s + 1] - offsets[s] > longest) longest = offsets[s + 1] - offsets[s];
    if (longest < 2) return 0;
    void *scratch = malloc(2 * longest * REF_REC_MAX);
    if (!scratch) return -1;
    for (size_t s = 0; s < num_segments; s++)
        if (offsets[s + 1] - offsets[s] > 1) sort(keys, offsets[s], offsets[s + 1], perm, scratch);
    free(scratch);
    return 0;
}

void verify_ref_reverse_stable(gpusort_type type, const void *keys, size_t n,
                               const uint64_t *perm_asc, uint64_t *perm_desc)
{
    const unsigned char *k = (const unsigned char *)keys;
    size_t es = gpusort_type_size(type), out = 0;
    /* walk the ascending order from its end, one run of equal keys at a time */
    size_t end = n;
    while (end > 0) {
        size_t start = end - 1;
        while (start > 0 &&
               verify_cmp(type, k + perm_asc[start - 1] * es, k + perm_asc[end - 1] * es) == 0)
            start--;
        for (size_t i = start; i < end; i++) perm_desc[out++] = perm_asc[i];
        end = start;
    }
}

void verify_gather(void *out, const void *in, const uint64_t *perm, size_t n, size_t elem_size)
{
    if (elem_size == 4)
        for (size_t i = 0; i < n; i++) ((uint32_t *)out)[i] = ((const uint32_t *)in)[perm[i]];
    else
        for (size_t i = 0; i < n; i++) ((uint64_t *)out)[i] = ((const uint64_t *)in)[perm[i]];
}

size_t verify_first_diff(const void *a, const void *b, size_t n, size_t elem_size)
{
    if (memcmp(a, b, n * elem_size) == 0) return n;
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    for (size_t i = 0; i < n; i++)
        if (memcmp(x + i * elem_size, y + i * elem_size, elem_size)) return i;
    return n;
}

void verify_format(gpusort_type type, const void *elem, char *buf, size_t size)
{
    switch (type) {
    case GPUSORT_TYPE_U32: {
        uint32_t v = LOAD(uint32_t, elem, 0);
        snprintf(buf, size, "0x%08" PRIx32 " (%" PRIu32 ")", v, v);
        break;
    }
    case GPUSORT_TYPE_I32: {
        int32_t v = LOAD(int32_t, elem, 0);
        snprintf(buf, size, "0x%08" PRIx32 " (%" PRId32 ")", (uint32_t)v, v);
        break;
    }
    case GPUSORT_TYPE_F32:
        snprintf(buf, size, "0x%08" PRIx32 " (%.9g)", LOAD(uint32_t, elem, 0),
                 (double)LOAD(float, elem, 0));
        break;
    case GPUSORT_TYPE_U64: {
        uint64_t v = LOAD(uint64_t, elem, 0);
        snprintf(buf, size, "0x%016" PRIx64 " (%" PRIu64 ")", v, v);
        break;
    }
    case GPUSORT_TYPE_I64: {
        int64_t v = LOAD(int64_t, elem, 0);
        snprintf(buf, size, "0x%016" PRIx64 " (%" PRId64 ")", (uint64_t)v, v);
        break;
    }
    case GPUSORT_TYPE_F64:
        snprintf(buf, size, "0x%016" PRIx64 " (%.17g)", LOAD(uint64_t, elem, 0),
                 LOAD(double, elem, 0));
        break;
    default:
        snprintf(buf, size, "?");
    }
}

/* ---- reduce ---- */

static double elem_as_double(gpusort_type type, const void *data, size_t i)
{
    return type == GPUSORT_TYPE_F32 ? (double)LOAD(float, data, i) : LOAD(double, data, i);
}

static uint64_t double_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* Integer element i widened to 64 bits: zero-extended (unsigned) or sign-extended (signed). */
static uint64_t elem_as_u64(gpusort_type type, const void *data, size_t i)
{
    switch (type) {
    case GPUSORT_TYPE_U32: return LOAD(uint32_t, data, i);
    case GPUSORT_TYPE_I32: return (uint64_t)(int64_t)LOAD(int32_t, data, i);
    default: return LOAD(uint64_t, data, i);
    }
}

static int check_float_sum(gpusort_type type, const void *data, size_t n, double got, char *msg,
                           size_t msg_size)
{
    int nan = 0, pinf = 0, ninf = 0;
    long double sum = 0, c = 0, abs_sum = 0;
    for (size_t i = 0; i < n; i++) {
        double x = elem_as_double(type, data, i);
        if (isnan(x)) { nan = 1; continue; }
        if (isinf(x)) { if (x > 0) pinf = 1; else ninf = 1; continue; }
        /* Kahan (compensated) summation in long double */
        long double y = (long double)x - c;
        long double t = sum + y;
        c = (t - sum) - y;
        sum = t;
        abs_sum += fabsl((long double)x);
    }
    if (nan || (pinf && ninf)) {
        if (isnan(got)) return VERIFY_OK;
        snprintf(msg, msg_size, "sum: got %.17g, want NaN (%s)", got,
                 nan ? "the input has a NaN" : "the input has +inf and -inf");
        return VERIFY_FAIL;
    }
    if (pinf || ninf) {
        if (isinf(got) && (got > 0) == (pinf != 0)) return VERIFY_OK;
        snprintf(msg, msg_size, "sum: got %.17g, want %cinf", got, pinf ? '+' : '-');
        return VERIFY_FAIL;
    }
    if (abs_sum > (long double)DBL_MAX) {
        snprintf(msg, msg_size, "sum: not checked: sum(|x|) = %Lg exceeds the double range",
                 abs_sum);
        return VERIFY_UNCHECKED;
    }
    long double bound = type == GPUSORT_TYPE_F32 ? 1e-12L * (long double)n * abs_sum
                                                 : 2.0L * (long double)n * DBL_EPSILON * abs_sum;
    long double err = fabsl((long double)got - sum);
    if (!isnan(got) && err <= bound) return VERIFY_OK;
    snprintf(msg, msg_size, "sum: got %.17g, want %.21Lg: error %Lg above the bound %Lg", got, sum,
             err, bound);
    return VERIFY_FAIL;
}

int verify_check_reduce(gpusort_type type, const void *data, size_t n, gpusort_op op,
                        const gpusort_value *got, char *msg, size_t msg_size)
{
    char field = gpusort_value_field(type);
    if (msg_size) msg[0] = 0;
    if (op == GPUSORT_OP_SUM) {
        if (field == 'f') return check_float_sum(type, data, n, got->f, msg, msg_size);
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++) sum += elem_as_u64(type, data, i);
        if (got->u == sum) return VERIFY_OK;
        if (field == 'i')
            snprintf(msg, msg_size, "sum: got %" PRId64 ", want %" PRId64, got->i, (int64_t)sum);
        else
            snprintf(msg, msg_size, "sum: got %" PRIu64 ", want %" PRIu64, got->u, sum);
        return VERIFY_FAIL;
    }
    const char *name = op == GPUSORT_OP_MIN ? "min" : "max";
    if (n == 0) {
        snprintf(msg, msg_size, "%s of an empty array has no value", name);
        return VERIFY_FAIL;
    }
    /* The first occurrence of the least (greatest) element in the gpusort order; NaN wins. */
    size_t best = 0;
    size_t elem = gpusort_type_size(type);
    const unsigned char *p = (const unsigned char *)data;
    int any_nan = 0;
    for (size_t i = 0; i < n; i++) {
        if (field == 'f' && isnan(elem_as_double(type, data, i))) { any_nan = 1; break; }
        int c = verify_cmp(type, p + i * elem, p + best * elem);
        if (op == GPUSORT_OP_MIN ? c < 0 : c > 0) best = i;
    }
    char want[96];
    if (field == 'f') {
        if (any_nan) {
            if (isnan(got->f)) return VERIFY_OK;
            snprintf(msg, msg_size, "%s: got %.17g, want NaN (the input has a NaN)", name, got->f);
            return VERIFY_FAIL;
        }
        double w = elem_as_double(type, data, best);
        if (double_bits(w) == double_bits(got->f)) return VERIFY_OK;
        verify_format(type, p + best * elem, want, sizeof want);
        snprintf(msg, msg_size, "%s: got %.17g (bits 0x%016" PRIx64 "), want %s, the first "
                 "occurrence at index %zu", name, got->f, double_bits(got->f), want, best);
        return VERIFY_FAIL;
    }
    uint64_t w = elem_as_u64(type, data, best);
    if (got->u == w) return VERIFY_OK;
    verify_format(type, p + best * elem, want, sizeof want);
    if (field == 'i')
        snprintf(msg, msg_size, "%s: got %" PRId64 ", want %s", name, got->i, want);
    else
        snprintf(msg, msg_size, "%s: got %" PRIu64 ", want %s", name, got->u, want);
    return VERIFY_FAIL;
}
