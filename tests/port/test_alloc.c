/*
 * test_alloc.c -- device memory from the caller, the scratch-size query, the capability check
 * and the per-architecture tuning rows (issue 14).
 *
 *   test_alloc --part api       every backend: the new calls' argument checks, queries that
 *                               answer 0 and touch nothing (CPU, OpenCL); no device needed
 *   test_alloc --part cuda      CUDA: device_info.usable; every sort call and reduce run with a
 *                               workspace of exactly the size its query gave (device and host
 *                               data, in place and not): correct, and no allocation made; a
 *                               workspace too small: INVALID_ARGUMENT naming both sizes; the
 *                               query touches no data; a counting allocator: every byte given
 *                               back by trim, results correct; the allocator failing its k-th
 *                               allocation for every k of a call: OUT_OF_DEVICE_MEMORY (or,
 *                               where the call has a fallback, a correct result), nothing kept
 *                               after trim, the context usable after
 *   test_alloc --part knob      CUDA: GPUSORT_TEST_FAIL_DEVICE_ALLOC=k for every k of a call
 *                               (the context's own cudaMalloc): the same properties, and device
 *                               memory back to where it was after gpusort_ctx_free
 *   test_alloc --part tuning    CUDA: every row of tuning.cu forced by GPUSORT_CUDA_TUNING on the
 *                               GPU at hand: AUTO and radix correct at every size around the
 *                               compact tiles; the other algorithms correct or UNSUPPORTED (a
 *                               shared-memory need beyond the row's limit), never wrong
 *   --seed S (printed; replays a failure), --quick (fewer sizes: for compute-sanitizer)
 * Correct = byte-identical to the CPU backend's output (stable sorts have one answer).
 * Exit: 0 pass, 1 fail, 77 skipped (no CUDA device for a CUDA part).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "gpusort.h"
#include "datagen.h"
#ifdef GPUSORT_HAVE_CUDA
#include "cuda_mem.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static uint64_t seed = 14;
static int quick = 0;

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            failures++;                                                          \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                          \
            printf(__VA_ARGS__);                                                 \
            printf("\n");                                                        \
        }                                                                        \
    } while (0)

#define EXPECT_STATUS(got, want, ctx)                                            \
    CHECK((got) == (want), "status %s, expected %s (%s)", gpusort_status_string(got), \
          gpusort_status_string(want), gpusort_ctx_get_last_error(ctx))

/* ---- one sort case: the call, its data and the CPU reference ---- */

enum mode { M_KEYS, M_PAIRS32, M_PAIRS64, M_ARGSORT64, M_MODES };
/* Used by the CUDA parts only: a build without CUDA compiles them unused. */
#define GPUSORT_MAYBE_UNUSED __attribute__((unused))
GPUSORT_MAYBE_UNUSED static const char *const mode_names[M_MODES] = {"keys", "pairs/u32", "pairs/u64", "argsort/u64"};
static gpusort_type mode_vtype(int m)
{
    return m == M_KEYS ? GPUSORT_TYPE_NONE : m == M_PAIRS32 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
}

typedef struct sort_case {
    gpusort_type type;
    int mode;
    size_t n;
    gpusort_algorithm alg;
    gpusort_order order;
    int in_place;
} sort_case;

typedef struct host_data {
    void *keys, *vals;          /* input */
    void *ref_keys, *ref_vals;  /* the CPU backend's output */
} host_data;

static gpusort_ctx *cpu_ctx;

GPUSORT_MAYBE_UNUSED static void host_data_make(host_data *h, const sort_case *c, uint64_t s)
{
    size_t ks = gpusort_type_size(c->type), vs = c->mode == M_KEYS ? 0 : 8;
    size_t n1 = c->n ? c->n : 1;
    h->keys = malloc(n1 * ks);
    h->vals = malloc(n1 * 8);
    h->ref_keys = malloc(n1 * ks);
    h->ref_vals = malloc(n1 * 8);
    datagen_fill(h->keys, c->type, c->n, (datagen_dist)(s % 2 ? DATAGEN_SPECIAL : DATAGEN_FEW), s);
    datagen_fill_u64((uint64_t *)h->vals, c->n, s + 1);
    gpusort_status st;
    gpusort_type vt = mode_vtype(c->mode);
    if (c->mode == M_KEYS)
        st = gpusort_sort(cpu_ctx, c->type, h->keys, c->n, h->ref_keys, c->order,
                          GPUSORT_ALGORITHM_AUTO, 0);
    else
        st = gpusort_sort_pairs(cpu_ctx, c->type, vt, h->keys,
                                c->mode == M_ARGSORT64 ? NULL : h->vals, c->n, h->ref_keys,
                                h->ref_vals, c->order, GPUSORT_ALGORITHM_AUTO, 0);
    CHECK(st == GPUSORT_STATUS_SUCCESS, "CPU reference: %s", gpusort_ctx_get_last_error(cpu_ctx));
    (void)vs;
}

GPUSORT_MAYBE_UNUSED static void host_data_free(host_data *h)
{
    free(h->keys);
    free(h->vals);
    free(h->ref_keys);
    free(h->ref_vals);
}

static int bad_args(gpusort_status st) { return st == GPUSORT_STATUS_INVALID_ARGUMENT; }

/* The call of case c on the given buffers (device or host), with extra flags. */
GPUSORT_MAYBE_UNUSED static gpusort_status sort_call(gpusort_ctx *ctx, const sort_case *c, const void *kin,
                                const void *vin, void *kout, void *vout, unsigned flags)
{
    gpusort_type vt = mode_vtype(c->mode);
    if (c->mode == M_KEYS)
        return gpusort_sort(ctx, c->type, kin, c->n, kout, c->order, c->alg, flags);
    return gpusort_sort_pairs(ctx, c->type, vt, kin, c->mode == M_ARGSORT64 ? NULL : vin, c->n,
                              kout, vout, c->order, c->alg, flags);
}

/* ---- part api: no device needed ---- */

static void *never_alloc(void *user, size_t bytes, void *stream)
{
    (void)user; (void)bytes; (void)stream;
    return NULL;
}
static void never_free(void *user, void *p, size_t bytes, void *stream)
{
    (void)user; (void)p; (void)bytes; (void)stream;
}

/* A query on ctx touches none of the host buffers given and records `want` (-1: any). */
static void query_untouched(gpusort_ctx *ctx, long want)
{
    const size_t n = 5000;
    uint32_t *k = (uint32_t *)malloc(n * 4), *k2 = (uint32_t *)malloc(n * 4);
    uint64_t *v = (uint64_t *)malloc(n * 8), *v2 = (uint64_t *)malloc(n * 8);
    uint64_t offs[3] = {0, 100, n};
    memset(k, 0xab, n * 4);
    memset(k2, 0xcd, n * 4);
    memset(v, 0x5a, n * 8);
    memset(v2, 0xa5, n * 8);
    const unsigned Q = GPUSORT_FLAG_QUERY_SCRATCH;
    gpusort_status st;
    st = gpusort_sort(ctx, GPUSORT_TYPE_U32, k, n, k2, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    if (want >= 0) CHECK(gpusort_ctx_get_scratch_size(ctx) == (size_t)want, "sort query %zu",
                         gpusort_ctx_get_scratch_size(ctx));
    st = gpusort_sort_pairs(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, k, v, n, k2, v2,
                            GPUSORT_ORDER_DESC, GPUSORT_ALGORITHM_RADIX, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    st = gpusort_argsort(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, k, n, v2, GPUSORT_ORDER_ASC,
                         GPUSORT_ALGORITHM_AUTO, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    st = gpusort_sort_segmented(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, k, v, n, offs, 2, k2, v2,
                                GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    st = gpusort_sort_batch(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, k, NULL, n, 1000, k2, NULL,
                            GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    gpusort_value r;
    st = gpusort_reduce(ctx, GPUSORT_TYPE_U32, k, n, NULL, GPUSORT_OP_SUM, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    st = gpusort_sort_strings(ctx, GPUSORT_TYPE_U64, (const uint8_t *)k, offs, 2, v2,
                              GPUSORT_ORDER_ASC, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    CHECK(gpusort_ctx_get_scratch_size(ctx) == 0, "strings query %zu", gpusort_ctx_get_scratch_size(ctx));
    st = gpusort_sort_records(ctx, GPUSORT_TYPE_U64, k, n / 4, 16, 0, 4, k2, v2,
                              GPUSORT_ORDER_ASC, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    /* the same queries with NULL data */
    st = gpusort_sort(ctx, GPUSORT_TYPE_F64, NULL, n, NULL, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    st = gpusort_sort_segmented(ctx, GPUSORT_TYPE_U64, GPUSORT_TYPE_U32, NULL, NULL, n, NULL, 7,
                                NULL, NULL, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    st = gpusort_reduce(ctx, GPUSORT_TYPE_F32, NULL, n, &r, GPUSORT_OP_MAX, Q);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    /* still checked: a bad type, a bad flag */
    st = gpusort_sort(ctx, (gpusort_type)17, NULL, n, NULL, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, Q);
    CHECK(bad_args(st), "query with a bad type: %s", gpusort_status_string(st));
    st = gpusort_sort(ctx, GPUSORT_TYPE_U32, k, n, k2, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, Q | 4u);
    CHECK(bad_args(st), "unknown flag 4: %s", gpusort_status_string(st));
    for (size_t i = 0; i < n; i++) {
        if (k[i] != 0xababababu || k2[i] != 0xcdcdcdcdu || v[i] != 0x5a5a5a5a5a5a5a5aull ||
            v2[i] != 0xa5a5a5a5a5a5a5a5ull) {
            CHECK(0, "a query wrote to the data at %zu", i);
            break;
        }
    }
    free(k); free(k2); free(v); free(v2);
}

static void part_api(void)
{
    gpusort_ctx *ctx = NULL;
    CHECK(gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, 0) == GPUSORT_STATUS_SUCCESS, "cpu ctx");
    gpusort_allocator a = {never_alloc, never_free, NULL};
    gpusort_status st = gpusort_ctx_set_allocator(ctx, &a);
    CHECK(bad_args(st), "CPU allocator: %s", gpusort_status_string(st));
    EXPECT_STATUS(gpusort_ctx_set_allocator(ctx, NULL), GPUSORT_STATUS_SUCCESS, ctx);
    char buf[64];
    CHECK(bad_args(gpusort_ctx_set_scratch(ctx, buf, sizeof buf)), "CPU workspace accepted");
    CHECK(bad_args(gpusort_ctx_set_scratch(ctx, NULL, 5)), "(NULL, 5) accepted");
    EXPECT_STATUS(gpusort_ctx_set_scratch(ctx, NULL, 0), GPUSORT_STATUS_SUCCESS, ctx);
    CHECK(bad_args(gpusort_ctx_set_scratch_async(ctx, buf, sizeof buf)),
          "CPU workspace accepted (async)");
    CHECK(bad_args(gpusort_ctx_set_scratch_async(ctx, NULL, 5)), "(NULL, 5) accepted (async)");
    EXPECT_STATUS(gpusort_ctx_set_scratch_async(ctx, NULL, 0), GPUSORT_STATUS_SUCCESS, ctx);
    CHECK(gpusort_ctx_set_scratch_async(NULL, NULL, 0) == GPUSORT_STATUS_INVALID_ARGUMENT,
          "NULL context accepted (async)");
    gpusort_allocator half = {never_alloc, NULL, NULL};
    CHECK(bad_args(gpusort_ctx_set_allocator(ctx, &half)), "allocator without free accepted");
    CHECK(bad_args(gpusort_ctx_set_allocator(NULL, NULL)), "NULL context");
    CHECK(gpusort_ctx_get_scratch_size(NULL) == 0, "size of NULL");
    query_untouched(ctx, 0);
    CHECK(strcmp(gpusort_version(), "0.4.0") == 0, "version %s", gpusort_version());
    gpusort_ctx_free(ctx);

    int count = 0;
    if (gpusort_device_get_count(GPUSORT_BACKEND_OPENCL, &count) == GPUSORT_STATUS_SUCCESS &&
        count > 0 && gpusort_ctx_create(&ctx, GPUSORT_BACKEND_OPENCL, 0) == GPUSORT_STATUS_SUCCESS) {
        st = gpusort_ctx_set_allocator(ctx, &a);
        EXPECT_STATUS(st, GPUSORT_STATUS_UNSUPPORTED, ctx);
        query_untouched(ctx, 0);
        gpusort_ctx_free(ctx);
        printf("api: OpenCL checked too\n");
    }
    gpusort_device_info info;
    if (gpusort_device_get_info(GPUSORT_BACKEND_CPU, 0, &info) == GPUSORT_STATUS_SUCCESS)
        CHECK(info.usable == 1 && info.unusable_reason[0] == 0, "CPU device not usable");
}

#ifdef GPUSORT_HAVE_CUDA

/* ---- a counting (and failing) allocator over cudaMalloc ---- */

typedef struct counting {
    long allocs, frees, fail_at; /* fail_at: the allocation number that fails (0 = none) */
    size_t live, live_max;
    int bad_free;                /* a free of a size that does not match */
    void *ptrs[64];
    size_t sizes[64];
} counting;

static void *count_alloc(void *user, size_t bytes, void *stream)
{
    counting *c = (counting *)user;
    (void)stream;
    c->allocs++;
    if (c->fail_at && c->allocs == c->fail_at) return NULL;
    void *p = test_cuda_alloc(bytes);
    if (!p) return NULL;
    for (int i = 0; i < 64; i++)
        if (!c->ptrs[i]) { c->ptrs[i] = p; c->sizes[i] = bytes; break; }
    c->live += bytes;
    if (c->live > c->live_max) c->live_max = c->live;
    return p;
}

static void count_free(void *user, void *p, size_t bytes, void *stream)
{
    counting *c = (counting *)user;
    (void)stream;
    c->frees++;
    int found = 0;
    for (int i = 0; i < 64; i++)
        if (c->ptrs[i] == p) {
            if (c->sizes[i] != bytes) c->bad_free = 1;
            c->ptrs[i] = NULL;
            found = 1;
            break;
        }
    if (!found) c->bad_free = 1;
    c->live -= bytes;
    test_cuda_free(p);
}

/* Run case c on device buffers (the keys/values of h uploaded), compare with the reference.
 * Returns the status; a wrong result is a failure. */
static gpusort_status run_device(gpusort_ctx *ctx, const sort_case *c, host_data *h,
                                 const char *what)
{
    size_t ks = gpusort_type_size(c->type), n1 = c->n ? c->n : 1;
    size_t vs = c->mode == M_KEYS ? 0 : c->mode == M_PAIRS32 ? 4 : 8;
    void *dk = test_cuda_alloc(n1 * ks), *dv = test_cuda_alloc(n1 * 8);
    void *dko = c->in_place ? dk : test_cuda_alloc(n1 * ks);
    void *dvo = c->in_place ? dv : test_cuda_alloc(n1 * 8);
    test_cuda_upload(dk, h->keys, c->n * ks);
    test_cuda_upload(dv, h->vals, c->n * 8);
    gpusort_status st = sort_call(ctx, c, dk, dv, dko, vs ? dvo : NULL, 0);
    if (st == GPUSORT_STATUS_SUCCESS) {
        void *ok = malloc(n1 * ks), *ov = malloc(n1 * 8);
        test_cuda_download(ok, dko, c->n * ks);
        test_cuda_download(ov, dvo, c->n * 8);
        CHECK(memcmp(ok, h->ref_keys, c->n * ks) == 0, "%s: %s %s n=%zu %s: keys differ from the CPU's",
              what, gpusort_type_name(c->type), mode_names[c->mode], c->n, gpusort_algorithm_name(c->alg));
        CHECK(!vs || memcmp(ov, h->ref_vals, c->n * vs) == 0, "%s: %s %s n=%zu %s: values differ",
              what, gpusort_type_name(c->type), mode_names[c->mode], c->n, gpusort_algorithm_name(c->alg));
        free(ok);
        free(ov);
    }
    test_cuda_free(dk);
    test_cuda_free(dv);
    if (!c->in_place) { test_cuda_free(dko); test_cuda_free(dvo); }
    return st;
}

/* The workspace test of one case: query (NULL data), a workspace of exactly that size, the call
 * correct and with no allocation; then a workspace of 1 byte refused with both sizes named. */
static void workspace_case(gpusort_ctx *ctx, counting *cnt, const sort_case *c)
{
    host_data h;
    host_data_make(&h, c, seed + c->n + (size_t)c->type * 7 + (size_t)c->mode);
    gpusort_status st = sort_call(ctx, c, NULL, NULL, c->mode == M_KEYS ? NULL : NULL, NULL,
                                  GPUSORT_FLAG_QUERY_SCRATCH);
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    size_t need = gpusort_ctx_get_scratch_size(ctx);
    void *ws = need ? test_cuda_alloc(need) : NULL;
    /* Odd sizes set it without the wait: the context's own stream still orders the call. */
    EXPECT_STATUS(c->n & 1 ? gpusort_ctx_set_scratch_async(ctx, ws, need)
                           : gpusort_ctx_set_scratch(ctx, ws, need),
                  GPUSORT_STATUS_SUCCESS, ctx);
    long before = cnt->allocs;
    st = run_device(ctx, c, &h, "workspace");
    CHECK(st == GPUSORT_STATUS_SUCCESS ||
              (st == GPUSORT_STATUS_UNSUPPORTED && c->alg != GPUSORT_ALGORITHM_AUTO &&
               c->alg != GPUSORT_ALGORITHM_RADIX),
          "workspace of %zu bytes: %s %s n=%zu %s: %s (%s)", need, gpusort_type_name(c->type),
          mode_names[c->mode], c->n, gpusort_algorithm_name(c->alg), gpusort_status_string(st),
          gpusort_ctx_get_last_error(ctx));
    CHECK(cnt->allocs == before, "a call with a workspace allocated %ld times", cnt->allocs - before);
    if (need > 256) {
        char one[1];
        void *tiny = test_cuda_alloc(1);
        (void)one;
        gpusort_ctx_set_scratch(ctx, tiny, 1);
        st = run_device(ctx, c, &h, "tiny workspace");
        CHECK(bad_args(st), "a 1-byte workspace for %zu bytes: %s", need, gpusort_status_string(st));
        /* both sizes named: what this call needs (<= the query's bound, which also covered
         * NULL outputs) and the workspace's 1 byte */
        unsigned long long named = 0;
        const char *msg = gpusort_ctx_get_last_error(ctx);
        CHECK(sscanf(msg, "the call needs %llu bytes", &named) == 1 && named > 1 && named <= need &&
                  strstr(msg, "the workspace has 1 ") != NULL,
              "message \"%s\" (query %zu)", msg, need);
        test_cuda_free(tiny);
    }
    gpusort_ctx_set_scratch(ctx, NULL, 0);
    test_cuda_free(ws);
    host_data_free(&h);
}

static const gpusort_type sort_types[] = {GPUSORT_TYPE_U32, GPUSORT_TYPE_F32, GPUSORT_TYPE_I64,
                                          GPUSORT_TYPE_F64};
static const gpusort_algorithm algs[] = {GPUSORT_ALGORITHM_AUTO, GPUSORT_ALGORITHM_RADIX,
                                         GPUSORT_ALGORITHM_MERGE, GPUSORT_ALGORITHM_BITONIC,
                                         GPUSORT_ALGORITHM_RANK};

/* Workspace cases of the other calls: segmented (host and device offsets), batch, reduce, and
 * host data. */
static void workspace_others(gpusort_ctx *ctx, counting *cnt)
{
    const size_t n = quick ? 70000 : 300000;
    const size_t segs = 37;
    uint64_t *offs = (uint64_t *)malloc((segs + 1) * 8);
    for (size_t s = 0; s <= segs; s++) offs[s] = s == segs ? n : (s * s * n) / (segs * segs);
    uint32_t *k = (uint32_t *)malloc(n * 4), *ref = (uint32_t *)malloc(n * 4), *out = (uint32_t *)malloc(n * 4);
    datagen_fill(k, GPUSORT_TYPE_U32, n, DATAGEN_FEW, seed);
    void *dk = test_cuda_alloc(n * 4), *doffs = test_cuda_alloc((segs + 1) * 8);
    test_cuda_upload(doffs, offs, (segs + 1) * 8);
    const unsigned Q = GPUSORT_FLAG_QUERY_SCRATCH;
    for (int dev_offs = 0; dev_offs < 2; dev_offs++) {
        const uint64_t *o = dev_offs ? (const uint64_t *)doffs : offs;
        gpusort_sort_segmented(cpu_ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, k, NULL, n, offs, segs,
                               ref, NULL, GPUSORT_ORDER_DESC, GPUSORT_ALGORITHM_AUTO, 0);
        gpusort_status st = gpusort_sort_segmented(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, NULL,
                                                   NULL, n, NULL, segs, NULL, NULL,
                                                   GPUSORT_ORDER_DESC, GPUSORT_ALGORITHM_AUTO, Q);
        EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
        size_t need = gpusort_ctx_get_scratch_size(ctx);
        void *ws = test_cuda_alloc(need);
        gpusort_ctx_set_scratch(ctx, ws, need);
        test_cuda_upload(dk, k, n * 4);
        long before = cnt->allocs;
        st = gpusort_sort_segmented(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, dk, NULL, n, o, segs,
                                    dk, NULL, GPUSORT_ORDER_DESC, GPUSORT_ALGORITHM_AUTO, 0);
        EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
        test_cuda_download(out, dk, n * 4);
        CHECK(memcmp(out, ref, n * 4) == 0, "segmented with a workspace: wrong result");
        CHECK(cnt->allocs == before, "segmented with a workspace allocated");
        gpusort_ctx_set_scratch(ctx, NULL, 0);
        test_cuda_free(ws);
    }
    { /* batch */
        const size_t row = 5000, m = n / row * row;
        gpusort_sort_batch(cpu_ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, k, NULL, m, row, ref, NULL,
                           GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0);
        gpusort_status st = gpusort_sort_batch(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, NULL, NULL, m,
                                               row, NULL, NULL, GPUSORT_ORDER_ASC,
                                               GPUSORT_ALGORITHM_AUTO, Q);
        EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
        size_t need = gpusort_ctx_get_scratch_size(ctx);
        void *ws = test_cuda_alloc(need);
        gpusort_ctx_set_scratch(ctx, ws, need);
        test_cuda_upload(dk, k, m * 4);
        long before = cnt->allocs;
        st = gpusort_sort_batch(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_NONE, dk, NULL, m, row, dk, NULL,
                                GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0);
        EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
        test_cuda_download(out, dk, m * 4);
        CHECK(memcmp(out, ref, m * 4) == 0, "batch with a workspace: wrong result");
        CHECK(cnt->allocs == before, "batch with a workspace allocated");
        gpusort_ctx_set_scratch(ctx, NULL, 0);
        test_cuda_free(ws);
    }
    { /* reduce, device and host data */
        for (int host = 0; host < 2; host++) {
            gpusort_value r1, r2;
            gpusort_reduce(cpu_ctx, GPUSORT_TYPE_U32, k, n, &r1, GPUSORT_OP_SUM, 0);
            test_cuda_upload(dk, k, n * 4);
            const void *data = host ? (const void *)k : dk;
            gpusort_status st = gpusort_reduce(ctx, GPUSORT_TYPE_U32, data, n, NULL, GPUSORT_OP_SUM, Q);
            EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
            size_t need = gpusort_ctx_get_scratch_size(ctx);
            CHECK(need > 0 && (!host || need >= n * 4), "reduce query %zu (host %d)", need, host);
            void *ws = test_cuda_alloc(need);
            gpusort_ctx_set_scratch(ctx, ws, need);
            long before = cnt->allocs;
            /* twice: the workspace region is zeroed for each call */
            for (int t = 0; t < 2; t++) {
                st = gpusort_reduce(ctx, GPUSORT_TYPE_U32, data, n, &r2, GPUSORT_OP_SUM, 0);
                EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
                CHECK(r1.u == r2.u, "reduce with a workspace: %llu != %llu",
                      (unsigned long long)r2.u, (unsigned long long)r1.u);
            }
            CHECK(cnt->allocs == before, "reduce with a workspace allocated");
            gpusort_ctx_set_scratch(ctx, NULL, 0);
            test_cuda_free(ws);
        }
    }
    { /* host data: the query with host pointers covers the device copies */
        uint64_t *v = (uint64_t *)malloc(n * 8), *vref = (uint64_t *)malloc(n * 8), *vo = (uint64_t *)malloc(n * 8);
        datagen_fill_u64(v, n, seed + 3);
        gpusort_sort_pairs(cpu_ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, k, v, n, ref, vref,
                           GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0);
        gpusort_status st = gpusort_sort_pairs(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, k, v, n, out,
                                               vo, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, Q);
        EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
        size_t need = gpusort_ctx_get_scratch_size(ctx);
        CHECK(need >= n * 12, "host-data query %zu < the copies' %zu", need, n * 12);
        void *ws = test_cuda_alloc(need);
        gpusort_ctx_set_scratch(ctx, ws, need);
        long before = cnt->allocs;
        st = gpusort_sort_pairs(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, k, v, n, out, vo,
                                GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0);
        EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
        CHECK(memcmp(out, ref, n * 4) == 0 && memcmp(vo, vref, n * 8) == 0,
              "host pairs with a workspace: wrong result");
        CHECK(cnt->allocs == before, "host pairs with a workspace allocated");
        gpusort_ctx_set_scratch(ctx, NULL, 0);
        test_cuda_free(ws);
        free(v); free(vref); free(vo);
    }
    test_cuda_free(dk);
    test_cuda_free(doffs);
    free(offs); free(k); free(ref); free(out);
}

/* The allocator fails its k-th allocation, for every k of the call. */
static void failing_allocator(gpusort_ctx *ctx, counting *cnt, const sort_case *c)
{
    host_data h;
    host_data_make(&h, c, seed + 99);
    /* How many allocations the call makes from an empty context. */
    gpusort_ctx_trim(ctx);
    long a0 = cnt->allocs;
    gpusort_status st = run_device(ctx, c, &h, "counting allocator");
    EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    long calls = cnt->allocs - a0;
    CHECK(calls > 0, "%s n=%zu made no allocation", mode_names[c->mode], c->n);
    int oom = 0, ok = 0;
    for (long k = 1; k <= calls; k++) {
        gpusort_ctx_trim(ctx);
        CHECK(cnt->live == 0, "trim left %zu bytes", cnt->live);
        cnt->fail_at = cnt->allocs + k;
        st = run_device(ctx, c, &h, "failing allocator");
        cnt->fail_at = 0;
        if (st == GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY) {
            oom++;
            CHECK(strstr(gpusort_ctx_get_last_error(ctx), "bytes") != NULL, "message: %s",
                  gpusort_ctx_get_last_error(ctx));
        } else {
            CHECK(st == GPUSORT_STATUS_SUCCESS, "k=%ld: %s", k, gpusort_status_string(st));
            ok++; /* a path with a fallback; run_device checked the result */
        }
        st = run_device(ctx, c, &h, "after a failure");
        EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
    }
    gpusort_ctx_trim(ctx);
    CHECK(cnt->live == 0 && !cnt->bad_free, "after trim: %zu bytes live, bad free %d", cnt->live,
          cnt->bad_free);
    printf("  allocator fails the k-th of %ld allocations (%s %s n=%zu %s): %d OUT_OF_DEVICE_MEMORY, "
           "%d correct by a fallback\n", calls, gpusort_type_name(c->type), mode_names[c->mode], c->n,
           gpusort_algorithm_name(c->alg), oom, ok);
    host_data_free(&h);
}

static int cuda_device(void)
{
    int count = 0;
    if (gpusort_device_get_count(GPUSORT_BACKEND_CUDA, &count) != GPUSORT_STATUS_SUCCESS || !count) {
        printf("skipped: no CUDA device\n");
        return 0;
    }
    return 1;
}

static void part_cuda(void)
{
    int count = 0;
    gpusort_device_get_count(GPUSORT_BACKEND_CUDA, &count);
    for (int d = 0; d < count; d++) {
        gpusort_device_info info;
        gpusort_device_get_info(GPUSORT_BACKEND_CUDA, d, &info);
        printf("device %d: %s, compute capability %d.%d, usable %d %s\n", d, info.name,
               info.capability_major, info.capability_minor, info.usable, info.unusable_reason);
        CHECK(info.usable == 1 && info.unusable_reason[0] == 0, "device %d not usable: %s", d,
              info.unusable_reason);
    }
    gpusort_ctx *ctx = NULL;
    CHECK(gpusort_ctx_create(&ctx, GPUSORT_BACKEND_AUTO, -1) == GPUSORT_STATUS_SUCCESS &&
              gpusort_ctx_get_backend(ctx) == GPUSORT_BACKEND_CUDA, "AUTO did not take the usable GPU");
    gpusort_ctx_free(ctx);
    CHECK(gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CUDA, 0) == GPUSORT_STATUS_SUCCESS, "cuda ctx");
    counting cnt;
    memset(&cnt, 0, sizeof cnt);
    gpusort_allocator a = {count_alloc, count_free, &cnt};
    EXPECT_STATUS(gpusort_ctx_set_allocator(ctx, &a), GPUSORT_STATUS_SUCCESS, ctx);

    /* the query touches no device data */
    query_untouched(ctx, -1);

    /* every algorithm, type and mode with a workspace of exactly the queried size */
    const size_t sizes_full[] = {1, 31, 4097, 7681, 65536, 200003, (1u << 20) + 3};
    const size_t sizes_quick[] = {4097, 65536};
    const size_t *sizes = quick ? sizes_quick : sizes_full;
    const int nsizes = quick ? 2 : 7;
    int cases = 0;
    for (int si = 0; si < nsizes; si++)
        for (size_t ti = 0; ti < sizeof sort_types / sizeof *sort_types; ti++)
            for (int m = 0; m < M_MODES; m++)
                for (size_t ai = 0; ai < sizeof algs / sizeof *algs; ai++) {
                    sort_case c = {sort_types[ti], m, sizes[si], algs[ai],
                                   (si + m) % 2 ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC,
                                   (int)((si + ti + ai) % 2)};
                    if (c.alg == GPUSORT_ALGORITHM_RANK && c.n > test_cuda_rank_max_n()) continue;
                    if (c.mode == M_ARGSORT64) c.in_place = 0;
                    workspace_case(ctx, &cnt, &c);
                    cases++;
                }
    printf("workspace of the queried size: %d sort cases\n", cases);
    workspace_others(ctx, &cnt);

    /* the counting allocator gives everything back */
    gpusort_ctx_trim(ctx);
    CHECK(cnt.live == 0 && !cnt.bad_free, "after trim: %zu bytes live, bad free %d", cnt.live, cnt.bad_free);
    printf("counting allocator: %ld allocations, %ld frees, peak %zu bytes\n", cnt.allocs, cnt.frees,
           cnt.live_max);

    /* the allocator failing the k-th allocation */
    const sort_case fails[] = {
        {GPUSORT_TYPE_U64, M_PAIRS64, 300001, GPUSORT_ALGORITHM_RADIX, GPUSORT_ORDER_ASC, 0},
        {GPUSORT_TYPE_F32, M_KEYS, 300001, GPUSORT_ALGORITHM_MERGE, GPUSORT_ORDER_DESC, 1},
        {GPUSORT_TYPE_F64, M_ARGSORT64, 300001, GPUSORT_ALGORITHM_BITONIC, GPUSORT_ORDER_ASC, 0},
        {GPUSORT_TYPE_U32, M_PAIRS32, 20000, GPUSORT_ALGORITHM_RANK, GPUSORT_ORDER_ASC, 1},
    };
    for (size_t i = 0; i < sizeof fails / sizeof *fails; i++) failing_allocator(ctx, &cnt, &fails[i]);
    CHECK(cnt.allocs > 0, "the allocator was never called");
    EXPECT_STATUS(gpusort_ctx_set_allocator(ctx, NULL), GPUSORT_STATUS_SUCCESS, ctx);
    CHECK(cnt.live == 0, "switching allocators left %zu bytes", cnt.live);
    gpusort_ctx_free(ctx);
    CHECK(cnt.live == 0, "free left %zu bytes", cnt.live);
}

/* ---- part knob: the context's own cudaMalloc fails at k ---- */

static size_t device_free_bytes(void);

static void part_knob(void)
{
    const sort_case cs[] = {
        {GPUSORT_TYPE_U64, M_PAIRS64, (1u << 21) + 5, GPUSORT_ALGORITHM_RADIX, GPUSORT_ORDER_ASC, 0},
        {GPUSORT_TYPE_I64, M_ARGSORT64, (1u << 20) + 5, GPUSORT_ALGORITHM_AUTO, GPUSORT_ORDER_DESC, 0},
        {GPUSORT_TYPE_F32, M_PAIRS32, (1u << 20) + 5, GPUSORT_ALGORITHM_MERGE, GPUSORT_ORDER_ASC, 1},
        {GPUSORT_TYPE_U32, M_KEYS, (1u << 20) + 5, GPUSORT_ALGORITHM_BITONIC, GPUSORT_ORDER_ASC, 0},
    };
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        const sort_case *c = &cs[i];
        host_data h;
        host_data_make(&h, c, seed + 7 * i);
        /* Warm up first: the driver loads each kernel's module on its first launch (lazy
         * loading) and keeps that memory, which is not the library's to give back; and the
         * local-memory reservation stays at its largest (main: test_cuda_keep_local_memory;
         * without it free memory moved by ~1 GiB between runs on an H200, run 4 of
         * bench/results/portability-2026-11-24.md). */
        gpusort_ctx *warm = NULL;
        if (gpusort_ctx_create(&warm, GPUSORT_BACKEND_CUDA, 0) == GPUSORT_STATUS_SUCCESS) {
            run_device(warm, c, &h, "warm-up");
            gpusort_ctx_free(warm);
        }
        size_t free0 = device_free_bytes();
        int oom = 0, ok = 0;
        long k;
        for (k = 1; k <= 16; k++) {
            char v[32];
            snprintf(v, sizeof v, "%ld", k);
            setenv("GPUSORT_TEST_FAIL_DEVICE_ALLOC", v, 1);
            gpusort_ctx *ctx = NULL;
            gpusort_status st = gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CUDA, 0);
            unsetenv("GPUSORT_TEST_FAIL_DEVICE_ALLOC");
            EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
            if (st) break;
            st = run_device(ctx, c, &h, "knob");
            int failed = st == GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
            if (failed) {
                oom++;
                CHECK(strstr(gpusort_ctx_get_last_error(ctx), "GPUSORT_TEST_FAIL_DEVICE_ALLOC") != NULL,
                      "message: %s", gpusort_ctx_get_last_error(ctx));
            } else {
                EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
            }
            gpusort_status st2 = run_device(ctx, c, &h, "knob, after");
            EXPECT_STATUS(st2, GPUSORT_STATUS_SUCCESS, ctx);
            gpusort_ctx_free(ctx);
            size_t free1 = device_free_bytes();
            CHECK(free1 + (8u << 20) >= free0, "k=%ld: %zu bytes of device memory not given back",
                  k, free0 - free1);
            if (!failed) {
                /* k beyond the call's allocations (or one with a fallback): done when the call
                 * made fewer than k */
                ok++;
                if (ok >= 2) break;
            }
        }
        printf("  knob k = 1..%ld (%s %s n=%zu %s): %d OUT_OF_DEVICE_MEMORY, %d succeeded\n", k,
               gpusort_type_name(c->type), mode_names[c->mode], c->n, gpusort_algorithm_name(c->alg),
               oom, ok);
        CHECK(oom > 0, "the knob never failed a call");
        host_data_free(&h);
    }
}

/* ---- part tuning: every row on this GPU ---- */

static void part_tuning(void)
{
    static const char *const rows[] = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120"};
    /* The radix tiles of the compact and the Hopper shapes (radix.cu's Tune), and past them. */
    const size_t sizes_full[] = {1,    1000, 2304, 2305,  3072,  3073,  4608,  4609,
                                 5377, 6145, 7680, 7681,  9217,  10753, 65537, (1u << 20) + 1};
    const size_t sizes_quick[] = {2305, 7681, 10753, 65537};
    const size_t *sizes = quick ? sizes_quick : sizes_full;
    const int nsizes = quick ? 4 : 16;
    for (size_t r = 0; r < sizeof rows / sizeof *rows; r++) {
        setenv("GPUSORT_CUDA_TUNING", rows[r], 1);
        gpusort_ctx *ctx = NULL;
        gpusort_status st = gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CUDA, 0);
        unsetenv("GPUSORT_CUDA_TUNING");
        EXPECT_STATUS(st, GPUSORT_STATUS_SUCCESS, ctx);
        if (st) continue;
        int ok = 0, unsupported = 0;
        for (int si = 0; si < nsizes; si++)
            for (size_t ti = 0; ti < sizeof sort_types / sizeof *sort_types; ti++)
                for (int m = 0; m < M_MODES; m++) {
                    sort_case c0 = {sort_types[ti], m, sizes[si], GPUSORT_ALGORITHM_AUTO,
                                    (si + m) % 2 ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, 0};
                    host_data h;
                    host_data_make(&h, &c0, seed + r * 1000 + si * 10 + ti * 4 + m);
                    for (size_t ai = 0; ai < sizeof algs / sizeof *algs; ai++) {
                        sort_case c = c0;
                        c.alg = algs[ai];
                        if (c.alg == GPUSORT_ALGORITHM_RANK && c.n > test_cuda_rank_max_n()) continue;
                        st = run_device(ctx, &c, &h, rows[r]);
                        if (st == GPUSORT_STATUS_SUCCESS) { ok++; continue; }
                        int allowed = st == GPUSORT_STATUS_UNSUPPORTED &&
                                      c.alg != GPUSORT_ALGORITHM_AUTO &&
                                      c.alg != GPUSORT_ALGORITHM_RADIX &&
                                      strstr(gpusort_ctx_get_last_error(ctx), "shared memory");
                        CHECK(allowed, "%s: %s %s n=%zu %s: %s (%s)", rows[r],
                              gpusort_type_name(c.type), mode_names[c.mode], c.n,
                              gpusort_algorithm_name(c.alg), gpusort_status_string(st),
                              gpusort_ctx_get_last_error(ctx));
                        unsupported++;
                    }
                    host_data_free(&h);
                }
        printf("tuning row %s: %d sorts correct, %d UNSUPPORTED (shared memory beyond the row)\n",
               rows[r], ok, unsupported);
        gpusort_ctx_free(ctx);
    }
}

#endif /* GPUSORT_HAVE_CUDA */

int main(int argc, char **argv)
{
    const char *part = "api";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--part") && i + 1 < argc) part = argv[++i];
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else { fprintf(stderr, "usage: test_alloc [--part api|cuda|knob|tuning] [--seed S] [--quick]\n"); return 2; }
    }
    printf("test_alloc --part %s --seed %llu%s\n", part, (unsigned long long)seed, quick ? " --quick" : "");
    if (gpusort_ctx_create(&cpu_ctx, GPUSORT_BACKEND_CPU, 0) != GPUSORT_STATUS_SUCCESS) return 1;
    if (!strcmp(part, "api")) {
        part_api();
    } else {
#ifdef GPUSORT_HAVE_CUDA
        if (!cuda_device()) { gpusort_ctx_free(cpu_ctx); return 77; }
        if (!strcmp(part, "cuda")) part_cuda();
        else if (!strcmp(part, "knob")) {
            if (test_cuda_keep_local_memory()) printf("note: cudaSetDeviceFlags: %s\n", test_cuda_error());
            part_knob();
        }
        else if (!strcmp(part, "tuning")) part_tuning();
        else { fprintf(stderr, "unknown part %s\n", part); return 2; }
#else
        printf("skipped: the CUDA backend is not built\n");
        gpusort_ctx_free(cpu_ctx);
        return 77;
#endif
    }
    gpusort_ctx_free(cpu_ctx);
    printf("%s: %d failure%s\n", failures ? "FAILED" : "passed", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}

#ifdef GPUSORT_HAVE_CUDA
static size_t device_free_bytes(void) { return test_cuda_free_bytes(); }
#endif
