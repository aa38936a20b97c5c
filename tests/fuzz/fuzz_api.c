/*
 * fuzz_api.c -- fuzz target: the library's data calls with arguments chosen by the fuzzer
 * within the contract of gpusort.h: any key, value and index type (valid or not), n up to 300,
 * NULL inputs and outputs, in-place and partly overlapping buffers (aligned for their types), any order, algorithm and
 * flags value, segment offsets and row lengths right or wrong. Pointers always point to memory
 * that exists (the contract cannot be asked to survive wild pointers).
 *
 * Input: byte 0 = the call (sort, sort_pairs, argsort, segmented, batch, strings, reduce,
 * multi_sort over 1-4 CPU contexts with fuzzed piece sizes, a NULL piece or a context named
 * twice), then the argument choices, then the data.
 * Properties, on the CPU backend:
 *   - the status is one of the table's; arguments that are valid by the contract succeed (the
 *     algorithm may answer UNSUPPORTED), and ones the contract refuses give INVALID_ARGUMENT
 *     (or UNSUPPORTED for a flag or algorithm the backend lacks);
 *   - on success the output equals that of an independent stable insertion sort under the
 *     header's total order (NaN last, -0.0 == +0.0), bit for bit, and the indices/values
 *     follow their keys; a reduction is exact for integers, within the header's bound for
 *     floats, and NaN exactly when a NaN is in the data (min/max);
 *   - an input that is not also an output is never written; on a failure an in-place buffer
 *     still holds the same keys (nothing lost).
 */
#include "fuzz.h"
#include "gpusort.h"

#include <math.h>

#define MAX_N 300

static gpusort_ctx *ctx;
static gpusort_ctx *more[3];    /* gpusort_multi_sort's other contexts */

static size_t tsize(int t) { return t >= 0 && t < GPUSORT_TYPE_COUNT_ ? gpusort_type_size((gpusort_type)t) : 0; }

/* The header's order on one key, written independently of src/keys.h. */
static int kcmp(int type, const uint8_t *a, const uint8_t *b)
{
    switch (type) {
    case GPUSORT_TYPE_U32: { uint32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
    case GPUSORT_TYPE_I32: { int32_t x, y; memcpy(&x, a, 4); memcpy(&y, b, 4); return (x > y) - (x < y); }
    case GPUSORT_TYPE_U64: { uint64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
    case GPUSORT_TYPE_I64: { int64_t x, y; memcpy(&x, a, 8); memcpy(&y, b, 8); return (x > y) - (x < y); }
    case GPUSORT_TYPE_F32: case GPUSORT_TYPE_F64: {
        double x, y;
        if (type == GPUSORT_TYPE_F32) { float u, v; memcpy(&u, a, 4); memcpy(&v, b, 4); x = u; y = v; }
        else { memcpy(&x, a, 8); memcpy(&y, b, 8); }
        if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
        return (x > y) - (x < y);
    }
    }
    abort();
}

/* idx[0..n) = the stable order of keys[lo..lo+n) (global indices), ascending or descending. */
static void ref_order(int type, const uint8_t *keys, size_t lo, size_t n, int desc, uint64_t *idx)
{
    size_t ks = tsize(type);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = lo + i;
        size_t j = i;
        while (j > 0) {
            int c = kcmp(type, keys + idx[j - 1] * ks, keys + v * ks);
            if (desc ? c >= 0 : c <= 0) break;
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = v;
    }
}

static uint64_t get_uint(const uint8_t *p, size_t es, size_t i)
{
    if (es == 4) { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    uint64_t v; memcpy(&v, p + 8 * i, 8); return v;
}

/* The same multiset of keys (bit patterns) in a and b. */
static int same_keys(const uint8_t *a, const uint8_t *b, size_t n, size_t ks)
{
    uint8_t *used = (uint8_t *)calloc(n ? n : 1, 1);
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        size_t j = 0;
        while (j < n && (used[j] || memcmp(a + i * ks, b + j * ks, ks) != 0)) j++;
        if (j == n) ok = 0; else used[j] = 1;
    }
    free(used);
    return ok;
}

enum { CALL_SORT, CALL_PAIRS, CALL_ARGSORT, CALL_SEGMENTED, CALL_BATCH, CALL_STRINGS, CALL_REDUCE,
       CALL_MULTI, NUM_CALLS };

/* A type byte: mostly a valid one, sometimes NONE, COUNT_ or a wild value. */
static int pick_type(fz *f)
{
    unsigned b = fz_u8(f);
    if (b < 240) return (int)(b % GPUSORT_TYPE_COUNT_);
    return b < 248 ? -1 : b < 252 ? GPUSORT_TYPE_COUNT_ : (int)(b * 1000u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ctx) {
        if (gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, -1) != GPUSORT_STATUS_SUCCESS) abort();
        gpusort_ctx_set_threads(ctx, 2);
        for (int i = 0; i < 3; i++) {
            if (gpusort_ctx_create(&more[i], GPUSORT_BACKEND_CPU, -1) != GPUSORT_STATUS_SUCCESS) abort();
            gpusort_ctx_set_threads(more[i], 1);
        }
    }
    fz f = {data, size};
    /* The first byte: 252..255 pick multi_sort, any other value mod 7 one of the first seven
     * calls (so a corpus input found for one of those still reaches it). */
    unsigned c0 = fz_u8(&f), call = c0 >= 252 ? (unsigned)CALL_MULTI : c0 % CALL_MULTI;
    int kt = pick_type(&f), vt = pick_type(&f);
    size_t n = fz_below(&f, MAX_N + 1);
    unsigned ptrs = fz_u8(&f);       /* bits: keys_in NULL, keys_out NULL, values_in NULL,
                                        values_out NULL, keys in place, values in place,
                                        keys_out overlapping, values_out over keys */
    unsigned ob = fz_u8(&f), ab = fz_u8(&f), fb = fz_u8(&f);
    int order = ob < 250 ? (int)(ob & 1) : (int)ob;
    int alg = ab < 250 ? (int)(ab % GPUSORT_ALGORITHM_COUNT_) : (int)ab;
    unsigned flags = fb < 240 ? 0u : fb < 248 ? GPUSORT_FLAG_CL_MEM : (unsigned)fb << 3;

    /* Buffers of room for 2n + 1 elements of 8 bytes: an "overlapping" output starts one
     * element into the input and still points to memory that exists. */
    size_t cap = (2 * (size_t)n + 1) * 8;
    uint8_t *kin = (uint8_t *)calloc(cap, 1), *vin = (uint8_t *)calloc(cap, 1);
    uint8_t *kout = (uint8_t *)calloc(cap, 1), *vout = (uint8_t *)calloc(cap, 1);
    fz_bytes(&f, kin, (size_t)n * 8);
    for (size_t i = 0; i < n; i++) {   /* values 1000 + i: recognisable, not indices */
        uint64_t v = 1000 + i;
        if (tsize(vt) == 4) { uint32_t w = (uint32_t)v; memcpy(vin + 4 * i, &w, 4); }
        else memcpy(vin + 8 * i, &v, 8);
    }
    uint8_t *kin0 = (uint8_t *)malloc(cap), *vin0 = (uint8_t *)malloc(cap);
    memcpy(kin0, kin, cap);
    memcpy(vin0, vin, cap);

    const void *ki = (ptrs & 1) ? NULL : kin;
    void *ko = (ptrs & 2) ? NULL : kout;
    const void *vi = (ptrs & 4) ? NULL : vin;
    void *vo = (ptrs & 8) ? NULL : vout;
    int kinplace = (ptrs & 16) && ki, vinplace = (ptrs & 32) && vi;
    if (kinplace) ko = kin;
    if (vinplace) vo = vin;
    int koverlap = (ptrs & 64) && ki && !kinplace && n > 1;
    if (koverlap) ko = kin + tsize(kt >= 0 && kt < 6 ? kt : 0);
    size_t ks = tsize(kt), vs = tsize(vt);
    /* values_out over the keys: aligned for its type (as C requires of any uint64_t array),
     * its first element on the last key's bytes */
    int voverkeys = (ptrs & 128) && ki && n > 0 && ks && vs;
    if (voverkeys) vo = kin + (ks * (size_t)n - 1) / vs * vs;

    int kt_ok = ks != 0, vt_ok = vt == GPUSORT_TYPE_U32 || vt == GPUSORT_TYPE_U64;
    int common_ok = order <= 1 && alg < GPUSORT_ALGORITHM_COUNT_ && flags == 0;
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    int expect_ok = 0;                 /* the contract says this call is valid */
    uint64_t *ref = (uint64_t *)malloc(((size_t)n + 1) * sizeof *ref);

    switch (call) {
    case CALL_SORT:
        s = gpusort_sort(ctx, (gpusort_type)kt, ki, n, ko, (gpusort_order)order, (gpusort_algorithm)alg, flags);
        expect_ok = kt_ok && common_ok && (n == 0 || (ki && ko && !koverlap));
        if (s == GPUSORT_STATUS_SUCCESS && n) {
            FUZZ_ASSERT(kt_ok && ki && ko);
            ref_order(kt, kin0, 0, n, order, ref);
            for (size_t i = 0; i < n; i++) FUZZ_ASSERT(memcmp((uint8_t *)ko + i * ks, kin0 + ref[i] * ks, ks) == 0);
        }
        break;
    case CALL_PAIRS: case CALL_ARGSORT: {
        if (call == CALL_PAIRS)
            s = gpusort_sort_pairs(ctx, (gpusort_type)kt, (gpusort_type)vt, ki, vi, n, ko, vo, (gpusort_order)order,
                                   (gpusort_algorithm)alg, flags);
        else
            s = gpusort_argsort(ctx, (gpusort_type)kt, (gpusort_type)vt, ki, n, vo, (gpusort_order)order,
                                (gpusort_algorithm)alg, flags);
        const void *vin_used = call == CALL_PAIRS ? vi : NULL;
        void *ko_used = call == CALL_PAIRS ? ko : NULL;
        expect_ok = kt_ok && vt_ok && common_ok &&
                    (n == 0 || (ki && vo && !voverkeys && !(ko_used && koverlap)));
        if (s == GPUSORT_STATUS_SUCCESS && n) {
            FUZZ_ASSERT(kt_ok && vt_ok && ki && vo);
            ref_order(kt, kin0, 0, n, order, ref);
            for (size_t i = 0; i < n; i++) {
                uint64_t want = vin_used ? get_uint(vin0, vs, ref[i]) : ref[i];
                FUZZ_ASSERT(get_uint((const uint8_t *)vo, vs, i) == want);
                if (ko_used) FUZZ_ASSERT(memcmp((uint8_t *)ko_used + i * ks, kin0 + ref[i] * ks, ks) == 0);
            }
        }
        break;
    }
    case CALL_SEGMENTED: case CALL_BATCH: {
        int vtype = (ptrs & 8) ? GPUSORT_TYPE_NONE : vt;   /* keys-only segmented sorts too */
        if (vtype == GPUSORT_TYPE_NONE) vo = NULL, vi = NULL;
        size_t vsz = tsize(vtype);
        uint64_t offs[9];
        size_t nseg = fz_below(&f, 9), row = fz_below(&f, 17);
        int offs_ok = 1;
        for (size_t i = 0; i <= nseg; i++) {
            offs[i] = (i ? offs[i - 1] : 0) + fz_below(&f, (unsigned)n / 4 + 2);
            if (fz_u8(&f) == 255) offs[i] -= 3;     /* sometimes decreasing or wrapped */
            if (offs[i] > n || (i && offs[i] < offs[i - 1])) offs_ok = 0;
        }
        int vals_ok = vtype == GPUSORT_TYPE_NONE ? 1 : vt_ok;
        int ptr_ok = n == 0 || (ki && (vtype == GPUSORT_TYPE_NONE ? ko != NULL : vo != NULL) &&
                                !koverlap && !(vtype != GPUSORT_TYPE_NONE && voverkeys));
        if (call == CALL_SEGMENTED) {
            s = gpusort_sort_segmented(ctx, (gpusort_type)kt, (gpusort_type)vtype, ki, vi, n, offs, nseg, ko, vo,
                                       (gpusort_order)order, (gpusort_algorithm)alg, flags);
            expect_ok = kt_ok && vals_ok && common_ok && ptr_ok && offs_ok;
        } else {
            s = gpusort_sort_batch(ctx, (gpusort_type)kt, (gpusort_type)vtype, ki, vi, n, row, ko, vo,
                                   (gpusort_order)order, (gpusort_algorithm)alg, flags);
            expect_ok = kt_ok && vals_ok && common_ok && ptr_ok && row && n % row == 0;
        }
        if (s == GPUSORT_STATUS_SUCCESS && n && ki) {
            /* Segments (or rows) sorted on their own; the rest copied unchanged. */
            uint64_t *pos = (uint64_t *)malloc((size_t)n * sizeof *pos);
            for (size_t i = 0; i < n; i++) pos[i] = i;
            size_t nsg = call == CALL_BATCH ? (row ? n / row : 0) : nseg;
            for (size_t sg = 0; sg < nsg; sg++) {
                size_t lo = call == CALL_BATCH ? sg * row : offs[sg], hi = call == CALL_BATCH ? lo + row : offs[sg + 1];
                ref_order(kt, kin0, lo, hi - lo, order, pos + lo);
            }
            for (size_t i = 0; i < n; i++) {
                if (ko) FUZZ_ASSERT(memcmp((uint8_t *)ko + i * ks, kin0 + pos[i] * ks, ks) == 0);
                if (vo && vsz) {
                    uint64_t want = vi ? get_uint(vin0, vsz, pos[i]) : pos[i];
                    int in_seg = 0;
                    for (size_t sg = 0; sg < nsg && !in_seg; sg++) {
                        size_t lo = call == CALL_BATCH ? sg * row : offs[sg], hi = call == CALL_BATCH ? lo + row : offs[sg + 1];
                        in_seg = i >= lo && i < hi;
                    }
                    if (in_seg || vi) FUZZ_ASSERT(get_uint((const uint8_t *)vo, vsz, i) == want);
                }
            }
            free(pos);
        }
        break;
    }
    case CALL_STRINGS: {
        /* n strings cut from the data at the fuzzer's lengths. */
        size_t ns = n % 64, total = 0;
        uint64_t offs[65];
        offs[0] = 0;
        for (size_t i = 0; i < ns; i++) offs[i + 1] = (total += fz_below(&f, 9));
        if (total > cap) total = cap, ns = 0;
        int it = vt;
        s = gpusort_sort_strings(ctx, (gpusort_type)it, kin, offs, ns, (ptrs & 8) ? NULL : vout,
                                 (gpusort_order)order, flags);
        expect_ok = (it == GPUSORT_TYPE_U32 || it == GPUSORT_TYPE_U64) && order <= 1 && flags == 0 &&
                    (ns == 0 || !(ptrs & 8));
        if (s == GPUSORT_STATUS_SUCCESS && ns) {
            size_t is = tsize(it);
            for (size_t k = 0; k + 1 < ns; k++) {
                uint64_t a = get_uint(vout, is, k), b = get_uint(vout, is, k + 1);
                FUZZ_ASSERT(a < ns && b < ns);
                size_t la = offs[a + 1] - offs[a], lb = offs[b + 1] - offs[b];
                int c = memcmp(kin + offs[a], kin + offs[b], la < lb ? la : lb);
                if (c == 0) c = (la > lb) - (la < lb);
                if (order) c = -c;
                FUZZ_ASSERT(c < 0 || (c == 0 && a < b));
            }
        }
        break;
    }
    case CALL_REDUCE: {
        gpusort_value r;
        memset(&r, 0, sizeof r);
        int op = order;   /* 0 sum, 1 min, 2+ invalid (or wild) */
        if (op == 1 && (ab & 1)) op = 2;
        s = gpusort_reduce(ctx, (gpusort_type)kt, ki, n, (ptrs & 2) ? NULL : &r, (gpusort_op)op, flags);
        expect_ok = kt_ok && op <= 2 && flags == 0 && !(ptrs & 2) && (n == 0 ? op == 0 : ki != NULL);
        if (s == GPUSORT_STATUS_SUCCESS && n) {
            char field = gpusort_value_field((gpusort_type)kt);
            if (field == 'u' || field == 'i') {
                uint64_t acc = op == 0 ? 0 : 0;
                size_t best = 0;
                for (size_t i = 0; i < n; i++) {
                    uint64_t v = get_uint(kin0, ks, i);
                    if (kt == GPUSORT_TYPE_I32) v = (uint64_t)(int64_t)(int32_t)v;
                    acc += v;
                    int c = kcmp(kt, kin0 + i * ks, kin0 + best * ks);
                    if ((op == 1 && c < 0) || (op == 2 && c > 0)) best = i;
                }
                uint64_t want = acc;
                if (op) {
                    want = get_uint(kin0, ks, best);
                    if (kt == GPUSORT_TYPE_I32) want = (uint64_t)(int64_t)(int32_t)want;
                }
                FUZZ_ASSERT(r.u == want);
            } else {
                double sum = 0, abs_sum = 0, mn = 0, mx = 0;
                int nan = 0;
                for (size_t i = 0; i < n; i++) {
                    double x;
                    if (kt == GPUSORT_TYPE_F32) { float v; memcpy(&v, kin0 + 4 * i, 4); x = v; }
                    else memcpy(&x, kin0 + 8 * i, 8);
                    nan |= isnan(x);
                    sum += x;
                    abs_sum += fabs(x);
                    if (i == 0 || x < mn) mn = x;
                    if (i == 0 || x > mx) mx = x;
                }
                if (op == 0) {
                    if (isfinite(abs_sum) && !nan) {
                        double bound = (kt == GPUSORT_TYPE_F32 ? 1e-12 : 4.5e-16) * (double)n * abs_sum;
                        /* the reference's own rounding: n * eps * sum|x| */
                        bound += 2.3e-16 * (double)n * abs_sum;
                        FUZZ_ASSERT(fabs(r.f - sum) <= bound);
                    }
                    if (nan) FUZZ_ASSERT(isnan(r.f));
                } else {
                    FUZZ_ASSERT((isnan(r.f) != 0) == nan);
                    if (!nan) FUZZ_ASSERT(r.f == (op == 1 ? mn : mx));
                }
            }
        }
        break;
    }
    case CALL_MULTI: {
        /* In place on copies of the input (kin and vin stay untouched): G pieces of fuzzed
         * sizes; ptrs bit 0: a piece with keys is NULL; bit 1: a context named twice; bit 3:
         * keys only (value type NONE). */
        int G = 1 + (int)(ab % 4), vtype = (ptrs & 8) ? GPUSORT_TYPE_NONE : vt;
        size_t vsz = tsize(vtype);
        gpusort_ctx *cs[4] = {ctx, more[0], more[1], more[2]};
        if ((ptrs & 2) && G > 1) cs[G - 1] = cs[0];
        uint8_t *mk = (uint8_t *)malloc(cap), *mv = (uint8_t *)malloc(cap);
        memcpy(mk, kin0, cap);
        memcpy(mv, vin0, cap);
        size_t cnt[4], at = 0;
        void *pk[4], *pv[4];
        int null_piece = 0;
        for (int g = 0; g < G; g++) {
            cnt[g] = g == G - 1 ? n - at : (size_t)fz_below(&f, (unsigned)(n - at + 1));
            pk[g] = ks ? mk + at * ks : mk;
            pv[g] = vsz ? mv + at * vsz : mv;
            at += cnt[g];
        }
        for (int g = 0; g < G && (ptrs & 1); g++)
            if (cnt[g]) { pk[g] = NULL; null_piece = 1; break; }
        s = vtype == GPUSORT_TYPE_NONE
                ? gpusort_multi_sort(cs, G, (gpusort_type)kt, pk, cnt, (gpusort_order)order, flags)
                : gpusort_multi_sort_pairs(cs, G, (gpusort_type)kt, (gpusort_type)vtype, pk, pv,
                                           cnt, (gpusort_order)order, flags);
        expect_ok = kt_ok && (vtype == GPUSORT_TYPE_NONE || vt_ok) && order <= 1 && flags == 0 &&
                    !null_piece && !((ptrs & 2) && G > 1);
        if (s == GPUSORT_STATUS_SUCCESS && n) {
            FUZZ_ASSERT(expect_ok);
            ref_order(kt, kin0, 0, n, order, ref);
            for (size_t i = 0; i < n; i++) {
                FUZZ_ASSERT(memcmp(mk + i * ks, kin0 + ref[i] * ks, ks) == 0);
                if (vsz) FUZZ_ASSERT(get_uint(mv, vsz, i) == get_uint(vin0, vsz, ref[i]));
            }
        }
        free(mk);
        free(mv);
        break;
    }
    }

    FUZZ_ASSERT((int)s >= 0 && (int)s < GPUSORT_STATUS_COUNT_);
    FUZZ_ASSERT(gpusort_status_string(s) != NULL);
    if (expect_ok)
        FUZZ_ASSERT(s == GPUSORT_STATUS_SUCCESS ||
                    (s == GPUSORT_STATUS_UNSUPPORTED && alg != GPUSORT_ALGORITHM_AUTO));
    else if (kt_ok || call == CALL_STRINGS)
        FUZZ_ASSERT(s == GPUSORT_STATUS_INVALID_ARGUMENT || s == GPUSORT_STATUS_UNSUPPORTED ||
                    s == GPUSORT_STATUS_SUCCESS /* e.g. a NULL that n == 0 makes harmless */);
    else
        FUZZ_ASSERT(s == GPUSORT_STATUS_INVALID_ARGUMENT);
    /* Inputs that are not outputs are never written; a failed in-place call lost nothing. */
    int keys_written = kinplace || koverlap || voverkeys;
    if (!keys_written && call != CALL_STRINGS) FUZZ_ASSERT(memcmp(kin, kin0, cap) == 0);
    if (!vinplace && call != CALL_STRINGS) FUZZ_ASSERT(memcmp(vin, vin0, cap) == 0);
    if (s != GPUSORT_STATUS_SUCCESS && kinplace && !koverlap && !voverkeys && ks)
        FUZZ_ASSERT(same_keys(kin, kin0, n, ks));

    free(ref);
    free(kin);
    free(vin);
    free(kout);
    free(vout);
    free(kin0);
    free(vin0);
    return 0;
}
