/*
 * test_backends.c -- the cross-backend test: every sort, pair sort, argsort, reduce, segmented
 * and batch sort of one backend, checked against the independent reference of common/verify.c.
 *
 *   test_backends --backend cpu|cuda|opencl [--algorithm auto|radix|merge|bitonic|rank|all]
 *                 [--seed S] [--quick | --full] [--max-n N] [--filter SUBSTRING] [-v]
 *                 [--pinned] [--host-only]
 *
 * WHAT IS CHECKED, for each type x distribution x size x order (x algorithm):
 *   keys out of place, keys in place, pairs with u32 values (out of place), pairs with u64 values
 *   (in place), pairs with keys_out = NULL (values only), argsort with u32 and with u64 indices,
 *   and u64 indices with the sorted keys (values_in = NULL: out of place and in place).
 *   Distributions: datagen's, and this file's "low8" (one key pattern, the low byte random: a
 *   radix sort with exactly one digit pass), "top2" (the top two bytes equal: the MSD-first
 *   radix sort's fallback) and "top2low" (top2 with the low byte equal too: the fallback with
 *   an odd number of passes).
 *   Every sort is stable, so the result is unique: keys, values and indices must equal the
 *   reference's BIT FOR BIT (this covers order, permutation, stability, pair integrity, NaN
 *   placement, -0.0/+0.0 order and payload preservation in one comparison). Out-of-place calls
 *   must leave their inputs unchanged; outputs start filled with a canary pattern, so an output
 *   element that is never written is caught. Then reduce sum/min/max (exact for ints, within
 *   the contract's bound for floats, float sums bitwise identical on a second run; min/max the
 *   first occurrence, so -0.0 vs +0.0 is checked), segmented sort (random offsets with empty segments, one
 *   huge segment, segments of odd sizes, elements outside every segment) and batch sort (rows
 *   of several lengths), each compared with the reference segment by segment.
 *   On the CUDA backend every check runs twice: with host pointers and with DEVICE pointers
 *   (tests/cuda_mem.cu allocates them); --pinned makes the host arrays pinned (cudaMallocHost:
 *   the host path's direct-DMA branches), --host-only leaves the device pointers out (for runs
 *   with a host-path knob such as GPUSORT_CUDA_HOST_CHUNK_KEYS). On OpenCL the sorts also run on cl_mem buffers
 *   (GPUSORT_FLAG_CL_MEM) made on a caller's queue handed over with gpusort_ctx_set_stream
 *   (tests/cl_mem.c), for the uniform, special and few distributions (all with --full);
 *   reduce, segmented and batch sort take host pointers only there.
 *
 * ALGORITHMS: AUTO must work for everything (except f64 on an OpenCL device without fp64,
 * which must answer UNSUPPORTED). A named algorithm may answer UNSUPPORTED: that is reported
 * once per (algorithm, operation, type) on stdout and counted as skipped, never as a pass.
 * rank on CUDA must work up to GPUSORT_CUDA_RANK_MAX_N and may refuse above it.
 *
 * SIZES 0, 1, 2, 31..33, 255..257, 1000, 1023..1025, 4095..4097, 65535..65537, 2^20-1..2^20+1
 * and three random sizes (log-uniform up to 2^18), all capped by --max-n (default 2^20 + 1);
 * or exactly the list of --sizes (e.g. a kernel's tile boundaries: tests/core.cmake).
 * Every distribution runs at every size up to 2^16 + 1; 2^20 runs ten of them (uniform, few,
 * special, sorted, reversed, entropy3, zipf, equal, top2, top2low) and 2^20 +- 1 two (uniform,
 * special), to keep CI within minutes. --full runs every distribution at every size and random
 * sizes up to --max-n (for fast backends). --quick (PoCL on a CI machine, sanitizer builds;
 * also set by the environment variable GPUSORT_TEST_QUICK=1) keeps 2^20 only, random sizes up
 * to 2^16, and above 4097 keys only the uniform, few, special and sorted distributions.
 *
 * SEED: printed first ("seed: S"); every size and every input derives from it, and the inputs
 * of one case depend only on (seed, type, distribution, n), so `--seed S --filter u32/zipf`
 * replays a failure. Exit: 0 all passed, 1 any failure, 77 backend not built or no device.
 */
#include "datagen.h"
#include "gpusort.h"
#include "verify.h"

#ifdef GPUSORT_HAVE_CUDA
#include "cuda_mem.h"
#endif
#ifdef GPUSORT_HAVE_OPENCL
#include "cl_mem.h"
#endif

#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SKIP_EXIT 77
#define MAX_FAIL_PRINTS 40 /* details of the first failures; the rest are only counted */
#define CANARY 0xA5        /* output buffers start filled with this byte */

/* ---- options and counters ---- */

static struct {
    gpusort_backend backend;
    int all_algorithms;
    gpusort_algorithm algorithm;
    uint64_t seed;
    int quick;
    int full;
    int no_cl_mem;
    int pinned;        /* CUDA: host arrays from cudaMallocHost */
    int host_only;     /* CUDA: no device-pointer pass */
    size_t max_n;
    const char *sizes;  /* --sizes: comma-separated list replacing the default sizes */
    const char *filter;
    int verbose;
} opt;

static struct {
    long passed, failed, skipped;
} count;

static gpusort_ctx *ctx;
static int device_f64 = 1;          /* the device supports f64 keys/reductions */
static size_t rank_max_n = 0;       /* CUDA: the rank sort's cap; 0 = no expectation */
static const char *backend_name;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: test_backends [--backend cpu|cuda|opencl] [--algorithm A|all] [--seed S]\n"
            "                     [--quick | --full] [--max-n N] [--filter SUBSTRING] [-v]\n"
            "  --backend    the backend to test (default cpu)\n"
            "  --algorithm  auto (default), radix, merge, bitonic, rank, or all of them\n"
            "  --seed       replay a run (default: from the clock; printed first)\n"
            "  --quick      fewer sizes and distributions (for slow backends like PoCL and\n"
            "               sanitizer builds); also set by GPUSORT_TEST_QUICK=1\n"
            "  --full       every distribution at every size, random sizes up to --max-n\n"
            "               (default: 8 distributions at 2^20, 2 at 2^20 +- 1)\n"
            "  --max-n      the largest size tested (default 1048577)\n"
            "  --sizes      N,N,...: test exactly these sizes (every distribution unless --quick;\n"
            "               e.g. around a kernel's tile boundaries; --max-n does not cap them)\n"
            "  --filter     run only cases whose \"type/dist\" contains SUBSTRING, e.g. f32/ or "
            "/zipf\n"
            "  --no-cl-mem  OpenCL: host pointers only (default: also cl_mem buffers)\n"
            "  --pinned     CUDA: host arrays in pinned memory (default: malloc)\n"
            "  --host-only  CUDA: host pointers only (default: also device pointers)\n"
            "  -v           print every case when done; -vv (or -v -v) also before it starts\n"
            "Exit status: 0 all passed, 1 a failure, 77 skipped (backend not built or no device).\n");
}

/* The context of the failing check, for the messages. */
typedef struct where {
    gpusort_type type;
    datagen_dist dist;
    size_t n;
    gpusort_order order;
    gpusort_algorithm alg;
    const char *what;   /* "keys out of place", "argsort u32", "reduce sum", ... */
    const char *mem;    /* "host" or "device" */
} where;

/* Distributions of this test's own, after datagen's:
 *   "low8"  one random key pattern whose low byte alone is random, so that a radix sort of any
 *           type has exactly one digit position that is not trivial (one executed pass: the
 *           odd count with in-place keys, and an argsort's indices made and written by the
 *           same pass);
 *   "top2"  uniform keys whose second-highest byte repeats the highest: each of the two top
 *           digit positions alone looks uniform, but the keys fall into only 256 of the 65536
 *           (top, second) buckets, so the CUDA radix sort's MSD-first path (u64/i64 keys
 *           with values) overflows its bucket sort from 2^20 keys (u64 values) or 1.5 * 2^20
 *           (u32 values) and takes its fallback;
 *   "top2low" the top2 keys with the low byte of key 0 in every key: one trivial digit position
 *           more, so that fallback's LSD passes run an odd number of passes (7 for 64-bit keys;
 *           top2's run 8);
 *   "unitzero" datagen's unit keys (floats in [0, 1)) with a quarter of them zeros of either
 *           sign: no NaN and no negative number, so the CUDA radix sort's passes take the float
 *           digit's cheapest form, which must still keep -0.0 equal to +0.0;
 *   "signed" the unit keys with random signs, a quarter of them zeros of either sign and one in
 *           64 -inf (floats): no NaN and nothing at the top of the order, the form without the
 *           NaN test. Both for float keys only. */
#define DIST_LOW8 ((datagen_dist)DATAGEN_DIST_COUNT)
#define DIST_TOP2 ((datagen_dist)(DATAGEN_DIST_COUNT + 1))
#define DIST_TOP2LOW ((datagen_dist)(DATAGEN_DIST_COUNT + 2))
#define DIST_UNITZERO ((datagen_dist)(DATAGEN_DIST_COUNT + 3))
#define DIST_SIGNED ((datagen_dist)(DATAGEN_DIST_COUNT + 4))
#define DIST_COUNT (DATAGEN_DIST_COUNT + 5)

static const char *dist_name(datagen_dist d)
{
    if (d == DIST_LOW8) return "low8";
    if (d == DIST_TOP2) return "top2";
    if (d == DIST_TOP2LOW) return "top2low";
    if (d == DIST_UNITZERO) return "unitzero";
    if (d == DIST_SIGNED) return "signed";
    return datagen_dist_name(d);
}

static void fail(const where *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void fail(const where *w, const char *fmt, ...)
{
    count.failed++;
    if (count.failed > MAX_FAIL_PRINTS) {
        if (count.failed == MAX_FAIL_PRINTS + 1) printf("(further failures are only counted)\n");
        return;
    }
    char detail[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    printf("FAIL %s %s/%s n=%zu %s %s %s (%s memory): %s\n"
           "     replay: test_backends --backend %s --algorithm %s --seed %" PRIu64
           " --filter %s/%s --max-n %zu\n",
           backend_name, gpusort_type_name(w->type), dist_name(w->dist), w->n,
           w->order == GPUSORT_ORDER_DESC ? "desc" : "asc", gpusort_algorithm_name(w->alg),
           w->what, w->mem, detail, backend_name,
           opt.all_algorithms ? "all" : gpusort_algorithm_name(opt.algorithm), opt.seed,
           gpusort_type_name(w->type), dist_name(w->dist), opt.max_n);
    fflush(stdout);
}

/* ---- memory: host, or CUDA device memory behind tests/cuda_mem.h ---- */

typedef struct mem_kind {
    const char *name;
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    int (*put)(void *dst, const void *src, size_t bytes);   /* host -> this memory */
    int (*get)(void *dst, const void *src, size_t bytes);   /* this memory -> host */
    unsigned flags;    /* gpusort_sort_desc.flags for pointers of this kind */
    int sorts_only;    /* 1: segmented and batch take no such pointers (cl_mem) */
} mem_kind;

static void *host_alloc(size_t bytes) { return malloc(bytes ? bytes : 1); }
static void host_release(void *p) { free(p); }
static int host_copy(void *dst, const void *src, size_t bytes)
{
    if (bytes) memcpy(dst, src, bytes);
    return 0;
}

static const mem_kind host_mem = {"host", host_alloc, host_release, host_copy, host_copy, 0, 0};
#ifdef GPUSORT_HAVE_CUDA
static const mem_kind pinned_mem = {"pinned", test_cuda_host_alloc, test_cuda_host_free, host_copy,
                                    host_copy, 0, 0};
static const mem_kind device_mem = {"device", test_cuda_alloc, test_cuda_free, test_cuda_upload,
                                    test_cuda_download, 0, 0};
#endif
#ifdef GPUSORT_HAVE_OPENCL
static const mem_kind cl_mem_kind = {"cl_mem", test_cl_alloc, test_cl_free, test_cl_upload,
                                     test_cl_download, GPUSORT_FLAG_CL_MEM, 1};
#endif

static const mem_kind *mem_kinds[2];
static int num_mem_kinds;

/* A buffer in one kind of memory with its host mirror. */
typedef struct buf {
    const mem_kind *mem;
    void *p;        /* in `mem` */
    void *host;     /* host copy, for uploads and downloads */
    size_t bytes;
} buf;

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "test_backends: out of host memory (%zu bytes)\n", bytes);
        exit(2);
    }
    return p;
}

/* A buffer holding a copy of src (or the canary when src is NULL). */
static buf buf_make(const mem_kind *mem, const void *src, size_t bytes)
{
    buf b = {mem, mem->alloc(bytes), xmalloc(bytes), bytes};
    if (!b.p) {
        fprintf(stderr, "test_backends: cannot allocate %zu bytes of %s memory\n", bytes,
                mem->name);
        exit(2);
    }
    if (src) memcpy(b.host, src, bytes);
    else memset(b.host, CANARY, bytes);
    if (mem->put(b.p, b.host, bytes)) {
        fprintf(stderr, "test_backends: copy to %s memory failed\n", mem->name);
        exit(2);
    }
    return b;
}

/* Bring the buffer's contents back to b->host. */
static void buf_fetch(buf *b)
{
    if (b->mem->get(b->host, b->p, b->bytes)) {
        fprintf(stderr, "test_backends: copy from %s memory failed\n", b->mem->name);
        exit(2);
    }
}

static void buf_free(buf *b)
{
    if (b->p) b->mem->release(b->p);
    free(b->host);
    b->p = b->host = NULL;
}

/* ---- status handling ---- */

/* Unsupported answers already reported, by algorithm x operation x type. */
enum { OPK_SORT, OPK_PAIRS, OPK_ARGSORT, OPK_SEGMENTED, OPK_BATCH, OPK_REDUCE, OPK_COUNT };
static const char *const opk_names[OPK_COUNT] = {"keys", "pairs", "argsort", "segmented",
                                                 "batch", "reduce"};
static unsigned char unsupported_seen[GPUSORT_ALGORITHM_COUNT_][OPK_COUNT][GPUSORT_TYPE_COUNT_];

/* Whether an UNSUPPORTED answer is acceptable for this call. */
static int may_be_unsupported(const where *w)
{
    if (w->type == GPUSORT_TYPE_F64 && !device_f64) return 1;
    if (w->alg == GPUSORT_ALGORITHM_AUTO) return 0;
    if (w->alg == GPUSORT_ALGORITHM_RANK && rank_max_n && w->n <= rank_max_n) return 0;
    return 1;
}

/* Check the status of a call. Returns 1 if the results should be checked (SUCCESS); else
 * counts a skip (acceptable UNSUPPORTED) or a failure and returns 0. */
static int status_ok(const where *w, int opk, gpusort_status s)
{
    if (s == GPUSORT_STATUS_SUCCESS) return 1;
    if (s == GPUSORT_STATUS_UNSUPPORTED && may_be_unsupported(w)) {
        count.skipped++;
        unsigned char *seen = &unsupported_seen[w->alg][opk][w->type];
        if (!*seen) {
            *seen = 1;
            printf("%s: %s %s unsupported on %s (first at n=%zu: %s)\n",
                   gpusort_algorithm_name(w->alg), opk_names[opk], gpusort_type_name(w->type),
                   backend_name, w->n, gpusort_ctx_get_last_error(ctx));
        }
        return 0;
    }
    fail(w, "status %d (%s): %s", (int)s, gpusort_status_string(s), gpusort_ctx_get_last_error(ctx));
    return 0;
}

/* Compare got with want bitwise; report the first difference. Returns 1 if equal. */
static int expect_equal(const where *w, const char *array, const void *got, const void *want,
                        size_t n, gpusort_type elem_type)
{
    size_t es = gpusort_type_size(elem_type);
    size_t i = verify_first_diff(got, want, n, es);
    if (i == n) return 1;
    char g[96], x[96];
    verify_format(elem_type, (const char *)got + i * es, g, sizeof g);
    verify_format(elem_type, (const char *)want + i * es, x, sizeof x);
    fail(w, "%s differ first at index %zu of %zu: got %s, want %s", array, i, n, g, x);
    return 0;
}

/* ---- one case: a key array, its order, and the reference ---- */

typedef struct tcase {
    gpusort_type type;
    datagen_dist dist;
    size_t n;
    gpusort_order order;
    const void *keys;          /* input keys (host) */
    const uint32_t *v32;       /* input payloads */
    const uint64_t *v64;
    uint64_t *perm;            /* reference permutation */
    void *want_keys;           /* reference outputs */
    uint32_t *want_v32;
    uint64_t *want_v64;
    uint32_t *want_i32;        /* perm narrowed to u32 */
} tcase;

/* One sort call, with the memory kind's flags (GPUSORT_FLAG_CL_MEM for cl_mem handles).
 * vt NONE: keys only; vin NULL with a value type: argsort (kout must be NULL then). */
static gpusort_status do_sort(const mem_kind *mem, gpusort_type kt, const void *kin, void *kout,
                              gpusort_type vt, const void *vin, void *vout, size_t n,
                              gpusort_order order, gpusort_algorithm alg)
{
    unsigned f = mem->flags;
    if (vt == GPUSORT_TYPE_NONE) return gpusort_sort(ctx, kt, kin, n, kout, order, alg, f);
    if (vin) return gpusort_sort_pairs(ctx, kt, vt, kin, vin, n, kout, vout, order, alg, f);
    return gpusort_argsort(ctx, kt, vt, kin, n, vout, order, alg, f);
}

/* Keys only: out of place, then in place. */
static void check_keys(const tcase *c, const mem_kind *mem, gpusort_algorithm alg)
{
    size_t kb = c->n * gpusort_type_size(c->type);
    where w = {c->type, c->dist, c->n, c->order, alg, "keys out of place", mem->name};

    buf in = buf_make(mem, c->keys, kb), out = buf_make(mem, NULL, kb);
    gpusort_status s = do_sort(mem, c->type, in.p, out.p, GPUSORT_TYPE_NONE, NULL, NULL, c->n,
                               c->order, alg);
    if (status_ok(&w, OPK_SORT, s)) {
        buf_fetch(&out);
        buf_fetch(&in);
        if (expect_equal(&w, "keys", out.host, c->want_keys, c->n, c->type) &&
            expect_equal(&w, "input keys (must be unchanged)", in.host, c->keys, c->n, c->type))
            count.passed++;
    }
    buf_free(&out);
    buf_free(&in);

    w.what = "keys in place";
    buf io = buf_make(mem, c->keys, kb);
    s = do_sort(mem, c->type, io.p, io.p, GPUSORT_TYPE_NONE, NULL, NULL, c->n, c->order, alg);
    if (status_ok(&w, OPK_SORT, s)) {
        buf_fetch(&io);
        if (expect_equal(&w, "keys", io.host, c->want_keys, c->n, c->type)) count.passed++;
    }
    buf_free(&io);
}

/* Pairs: u32 values out of place, u64 values in place, u32 values with keys_out = NULL. */
static void check_pairs(const tcase *c, const mem_kind *mem, gpusort_algorithm alg)
{
    size_t kb = c->n * gpusort_type_size(c->type);
    where w = {c->type, c->dist, c->n, c->order, alg, "pairs u32 out of place", mem->name};

    buf kin = buf_make(mem, c->keys, kb), kout = buf_make(mem, NULL, kb);
    buf vin = buf_make(mem, c->v32, c->n * 4), vout = buf_make(mem, NULL, c->n * 4);
    gpusort_status s = do_sort(mem, c->type, kin.p, kout.p, GPUSORT_TYPE_U32, vin.p, vout.p,
                               c->n, c->order, alg);
    if (status_ok(&w, OPK_PAIRS, s)) {
        buf_fetch(&kout); buf_fetch(&vout); buf_fetch(&kin); buf_fetch(&vin);
        if (expect_equal(&w, "keys", kout.host, c->want_keys, c->n, c->type) &&
            expect_equal(&w, "values", vout.host, c->want_v32, c->n, GPUSORT_TYPE_U32) &&
            expect_equal(&w, "input keys (must be unchanged)", kin.host, c->keys, c->n, c->type) &&
            expect_equal(&w, "input values (must be unchanged)", vin.host, c->v32, c->n,
                         GPUSORT_TYPE_U32))
            count.passed++;
    }

    /* values only: keys_out = NULL, reusing the same inputs */
    w.what = "pairs u32, keys_out NULL";
    buf vout2 = buf_make(mem, NULL, c->n * 4);
    s = do_sort(mem, c->type, kin.p, NULL, GPUSORT_TYPE_U32, vin.p, vout2.p, c->n, c->order, alg);
    if (status_ok(&w, OPK_PAIRS, s)) {
        buf_fetch(&vout2); buf_fetch(&kin);
        if (expect_equal(&w, "values", vout2.host, c->want_v32, c->n, GPUSORT_TYPE_U32) &&
            expect_equal(&w, "input keys (must be unchanged)", kin.host, c->keys, c->n, c->type))
            count.passed++;
    }
    buf_free(&vout2);
    buf_free(&kin); buf_free(&kout); buf_free(&vin); buf_free(&vout);

    w.what = "pairs u64 in place";
    buf k = buf_make(mem, c->keys, kb), v = buf_make(mem, c->v64, c->n * 8);
    s = do_sort(mem, c->type, k.p, k.p, GPUSORT_TYPE_U64, v.p, v.p, c->n, c->order, alg);
    if (status_ok(&w, OPK_PAIRS, s)) {
        buf_fetch(&k); buf_fetch(&v);
        if (expect_equal(&w, "keys", k.host, c->want_keys, c->n, c->type) &&
            expect_equal(&w, "values", v.host, c->want_v64, c->n, GPUSORT_TYPE_U64))
            count.passed++;
    }
    buf_free(&k);
    buf_free(&v);
}

/* Argsort with u32 and u64 indices; then u64 indices with the sorted keys too (sort_pairs with
 * values_in NULL, as torch.sort's int64 indices), out of place and in place. */
static void check_argsort(const tcase *c, const mem_kind *mem, gpusort_algorithm alg)
{
    size_t kb = c->n * gpusort_type_size(c->type);
    buf keys = buf_make(mem, c->keys, kb);
    for (int wide = 0; wide < 2; wide++) {
        gpusort_type it = wide ? GPUSORT_TYPE_U64 : GPUSORT_TYPE_U32;
        where w = {c->type, c->dist, c->n, c->order, alg, wide ? "argsort u64" : "argsort u32",
                   mem->name};
        buf idx = buf_make(mem, NULL, c->n * gpusort_type_size(it));
        gpusort_status s = do_sort(mem, c->type, keys.p, NULL, it, NULL, idx.p, c->n, c->order,
                                   alg);
        if (status_ok(&w, OPK_ARGSORT, s)) {
            buf_fetch(&idx); buf_fetch(&keys);
            if (expect_equal(&w, "indices", idx.host, wide ? (void *)c->perm : (void *)c->want_i32,
                             c->n, it) &&
                expect_equal(&w, "keys (must be unchanged)", keys.host, c->keys, c->n, c->type))
                count.passed++;
        }
        buf_free(&idx);
    }
    buf_free(&keys);

    for (int in_place = 0; in_place < 2; in_place++) {
        where w = {c->type, c->dist, c->n, c->order, alg,
                   in_place ? "argsort u64 with keys in place" : "argsort u64 with keys", mem->name};
        buf kin = buf_make(mem, c->keys, kb), kout = buf_make(mem, NULL, kb);
        buf idx = buf_make(mem, NULL, c->n * 8);
        buf *ko = in_place ? &kin : &kout;
        gpusort_status s = gpusort_sort_pairs(ctx, c->type, GPUSORT_TYPE_U64, kin.p, NULL, c->n,
                                              ko->p, idx.p, c->order, alg, mem->flags);
        if (status_ok(&w, OPK_ARGSORT, s)) {
            buf_fetch(&idx); buf_fetch(&kin); buf_fetch(&kout);
            if (expect_equal(&w, "indices", idx.host, c->perm, c->n, GPUSORT_TYPE_U64) &&
                expect_equal(&w, "keys", ko->host, c->want_keys, c->n, c->type) &&
                (in_place || expect_equal(&w, "input keys (must be unchanged)", kin.host, c->keys,
                                          c->n, c->type)))
                count.passed++;
        }
        buf_free(&idx); buf_free(&kout); buf_free(&kin);
    }
}

/* ---- reduce ---- */

static void check_reduce(gpusort_type type, datagen_dist dist, const void *keys, size_t n,
                         const mem_kind *mem)
{
    static const gpusort_op ops[3] = {GPUSORT_OP_SUM, GPUSORT_OP_MIN, GPUSORT_OP_MAX};
    static const char *const names[3] = {"reduce sum", "reduce min", "reduce max"};
    buf data = buf_make(mem, keys, n * gpusort_type_size(type));
    for (int o = 0; o < 3; o++) {
        where w = {type, dist, n, GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, names[o], mem->name};
        gpusort_value v;
        memset(&v, CANARY, sizeof v);
        gpusort_status s = gpusort_reduce(ctx, type, data.p, n, &v, ops[o], mem->flags);
        if (n == 0 && ops[o] != GPUSORT_OP_SUM) {
            /* the contract: min/max of nothing is an invalid argument */
            if (s == GPUSORT_STATUS_INVALID_ARGUMENT) count.passed++;
            else fail(&w, "status %s, want invalid argument", gpusort_status_string(s));
            continue;
        }
        if (!status_ok(&w, OPK_REDUCE, s)) continue;
        if (ops[o] == GPUSORT_OP_SUM && gpusort_value_field(type) == 'f') {
            /* the contract: the same result on every run for the same input */
            gpusort_value again;
            memset(&again, 0, sizeof again);
            if (gpusort_reduce(ctx, type, data.p, n, &again, ops[o], mem->flags) !=
                    GPUSORT_STATUS_SUCCESS ||
                memcmp(&again.f, &v.f, sizeof v.f) != 0)
                fail(&w, "a second run gave %.17g, the first %.17g (must be identical)", again.f,
                     v.f);
        }
        char msg[512];
        switch (verify_check_reduce(type, keys, n, ops[o], &v, msg, sizeof msg)) {
        case VERIFY_OK: count.passed++; break;
        case VERIFY_UNCHECKED:
            if (opt.verbose) printf("  note: %s/%s n=%zu %s\n", gpusort_type_name(type),
                                    dist_name(dist), n, msg);
            break;
        default: fail(&w, "%s", msg);
        }
        buf_fetch(&data);
        if (memcmp(data.host, keys, data.bytes))
            fail(&w, "the input changed");
    }
    buf_free(&data);
}

/* ---- segmented and batch sort ---- */

/* Offsets layouts for segmented sort: *num_segments and offsets (capacity n + 2). */
enum { SEG_RANDOM, SEG_ONE_HUGE, SEG_ODD, SEG_INNER, SEG_LAYOUTS };
static const char *const seg_layout_names[SEG_LAYOUTS] = {
    "segmented (random offsets, empty segments)", "segmented (one segment of everything)",
    "segmented (segments of 37, ragged end)", "segmented (keys before and after the segments)"};

static size_t make_offsets(int layout, size_t n, uint64_t *off, datagen_rng *r)
{
    size_t m = 0;
    switch (layout) {
    case SEG_RANDOM: {
        /* about n/40 + 2 cut points anywhere in [0, n], duplicates give empty segments;
         * the first cut is 0 and the last n, so every key is in a segment */
        m = n / 40 + 2;
        off[0] = 0;
        for (size_t s = 1; s < m; s++) off[s] = datagen_rng_below(r, n + 1);
        off[m] = n;
        /* insertion sort of the cut points: m is small relative to the reference's work */
        for (size_t i = 2; i < m; i++) {
            uint64_t x = off[i];
            size_t j = i;
            while (j > 1 && off[j - 1] > x) { off[j] = off[j - 1]; j--; }
            off[j] = x;
        }
        break;
    }
    case SEG_ONE_HUGE:
        off[0] = 0; off[1] = n; m = 1;
        break;
    case SEG_ODD:
        for (size_t p = 0; p < n; p += 37) off[m++] = p;
        off[m] = n;
        break;
    case SEG_INNER: {
        /* segments cover [n/7, n - n/5): the keys outside must be copied unchanged; an empty
         * segment at each end */
        size_t lo = n / 7, hi = n - n / 5;
        off[m++] = lo;
        off[m++] = lo;
        for (size_t p = lo + 1 + (size_t)datagen_rng_below(r, 1000); p < hi;
             p += 1 + (size_t)datagen_rng_below(r, 3000))
            off[m++] = p;
        off[m++] = hi;
        off[m] = hi;
        break;
    }
    }
    return m;
}

/* Run one segmented (batch when row > 0) sort of the case's keys and values and compare with
 * the reference. vt: GPUSORT_TYPE_NONE, U32 or U64. */
/* argsort: values_in = NULL, so the values are the GLOBAL input indices 0..n-1 (as the CPU
 * backend defines it; the header does not say yet). */
static void check_segmented_one(const tcase *c, const mem_kind *mem, gpusort_algorithm alg,
                                const char *what, const uint64_t *off, size_t m, size_t row,
                                gpusort_type vt, int argsort, const uint64_t *perm)
{
    size_t n = c->n, kb = n * gpusort_type_size(c->type);
    const void *vsrc = vt == GPUSORT_TYPE_U32 ? (const void *)c->v32 : (const void *)c->v64;
    size_t vb = vt == GPUSORT_TYPE_NONE ? 0 : n * gpusort_type_size(vt);
    char label[160];
    snprintf(label, sizeof label, "%s, %s%s", what, argsort ? "argsort " : "",
             vt == GPUSORT_TYPE_NONE ? "keys" : vt == GPUSORT_TYPE_U32 ? "u32 values"
                                                                        : "u64 values");
    where w = {c->type, c->dist, n, c->order, alg, label, mem->name};

    buf kin = buf_make(mem, c->keys, kb), kout = buf_make(mem, NULL, kb);
    buf vin = {0}, vout = {0}, doff = {0};
    if (vb) {
        if (!argsort) vin = buf_make(mem, vsrc, vb);
        vout = buf_make(mem, NULL, vb);
    }
    const void *vi = vb && !argsort ? vin.p : NULL;
    void *vo = vb ? vout.p : NULL;
    gpusort_status s;
    if (row) {
        s = gpusort_sort_batch(ctx, c->type, vt, kin.p, vi, n, row, kout.p, vo, c->order, alg, 0);
    } else {
        /* offsets live in the same kind of memory as the data ("all pointers of one call") */
        doff = buf_make(mem, off, (m + 1) * sizeof *off);
        s = gpusort_sort_segmented(ctx, c->type, vt, kin.p, vi, n, (const uint64_t *)doff.p, m,
                                   kout.p, vo, c->order, alg, 0);
    }
    if (status_ok(&w, row ? OPK_BATCH : OPK_SEGMENTED, s)) {
        void *wk = xmalloc(kb), *wv = xmalloc(vb);
        verify_gather(wk, c->keys, perm, n, gpusort_type_size(c->type));
        if (vb && !argsort) verify_gather(wv, vsrc, perm, n, gpusort_type_size(vt));
        if (vb && argsort)
            for (size_t i = 0; i < n; i++) {
                if (vt == GPUSORT_TYPE_U32) ((uint32_t *)wv)[i] = (uint32_t)perm[i];
                else ((uint64_t *)wv)[i] = perm[i];
            }
        buf_fetch(&kout); buf_fetch(&kin);
        int ok = expect_equal(&w, "keys", kout.host, wk, n, c->type) &&
                 expect_equal(&w, "input keys (must be unchanged)", kin.host, c->keys, n, c->type);
        if (ok && vb) {
            buf_fetch(&vout);
            ok = expect_equal(&w, argsort ? "indices" : "values", vout.host, wv, n, vt);
            if (ok && !argsort) {
                buf_fetch(&vin);
                ok = expect_equal(&w, "input values (must be unchanged)", vin.host, vsrc, n, vt);
            }
        }
        if (ok) count.passed++;
        free(wk);
        free(wv);
    }
    if (doff.p) buf_free(&doff);
    if (vb) {
        if (!argsort) buf_free(&vin);
        buf_free(&vout);
    }
    buf_free(&kin);
    buf_free(&kout);
}

static void check_segmented(const tcase *c, const mem_kind *mem, gpusort_algorithm alg,
                            uint64_t seed)
{
    size_t n = c->n;
    uint64_t *off = xmalloc((n + 3) * sizeof *off), *perm = xmalloc(n * sizeof *perm);
    datagen_rng r;
    datagen_rng_seed(&r, seed);
    for (int layout = 0; layout < SEG_LAYOUTS; layout++) {
        if (n == 0 && layout != SEG_ONE_HUGE) continue;
        size_t m = make_offsets(layout, n, off, &r);
        if (verify_ref_segmented_argsort(c->type, c->keys, n, c->order, off, m, perm)) {
            fprintf(stderr, "test_backends: out of memory in the reference\n");
            exit(2);
        }
        /* keys with every layout; values and indices with alternating widths to keep the
         * count of calls down */
        const char *what = seg_layout_names[layout];
        check_segmented_one(c, mem, alg, what, off, m, 0, GPUSORT_TYPE_NONE, 0, perm);
        check_segmented_one(c, mem, alg, what, off, m, 0,
                            layout & 1 ? GPUSORT_TYPE_U64 : GPUSORT_TYPE_U32, 0, perm);
        check_segmented_one(c, mem, alg, what, off, m, 0,
                            layout & 1 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64, 1, perm);
    }
    /* batch: rows of several lengths that divide n (n itself, 1, and divisors found nearby) */
    if (n > 0) {
        size_t rows[4] = {n, 1, 0, 0};
        size_t nr = 2;
        static const size_t tries[] = {32, 33, 1000, 1024, 4096, 3, 7};
        for (size_t t = 0; t < sizeof tries / sizeof tries[0] && nr < 4; t++)
            if (n % tries[t] == 0 && tries[t] < n) rows[nr++] = tries[t];
        for (size_t k = 0; k < nr; k++) {
            size_t row = rows[k], m = n / row;
            for (size_t s = 0; s <= m; s++) off[s] = s * row;
            if (verify_ref_segmented_argsort(c->type, c->keys, n, c->order, off, m, perm)) {
                fprintf(stderr, "test_backends: out of memory in the reference\n");
                exit(2);
            }
            char what[64];
            snprintf(what, sizeof what, "batch (rows of %zu)", row);
            check_segmented_one(c, mem, alg, what, off, m, row, GPUSORT_TYPE_NONE, 0, perm);
            check_segmented_one(c, mem, alg, what, off, m, row,
                                k & 1 ? GPUSORT_TYPE_U64 : GPUSORT_TYPE_U32, 0, perm);
            check_segmented_one(c, mem, alg, what, off, m, row,
                                k & 1 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64, 1, perm);
        }
    }
    free(off);
    free(perm);
}

/* ---- the sweep ---- */

static const gpusort_algorithm all_algorithms[] = {
    GPUSORT_ALGORITHM_AUTO, GPUSORT_ALGORITHM_RADIX, GPUSORT_ALGORITHM_MERGE,
    GPUSORT_ALGORITHM_BITONIC, GPUSORT_ALGORITHM_RANK};

static uint64_t case_seed(gpusort_type type, datagen_dist dist, size_t n)
{
    return datagen_mix64(opt.seed ^ datagen_mix64(((uint64_t)type << 56) ^ ((uint64_t)dist << 48) ^
                                                  (uint64_t)n));
}

static int quick_dist(datagen_dist d)
{
    return d == DATAGEN_UNIFORM || d == DATAGEN_FEW || d == DATAGEN_SPECIAL || d == DATAGEN_SORTED;
}

/* Whether the case (dist, n) runs. With --full: every distribution at every size. By default
 * (kept to a few minutes on 2 CI cores): every distribution up to 2^16 + 1; from 2^20 the ten
 * that take different code paths (random digits, few digits, special values, presorted both
 * ways, skewed bits, skewed counts, one value, the MSD-first fallback with an even and an odd
 * number of passes); at 2^20 - 1 and 2^20 + 1 uniform and special.
 * --quick (PoCL, sanitizers) thins out everything above 4097 to four distributions. */
static int case_selected(datagen_dist d, size_t n)
{
    if (opt.full) return 1;
    if (opt.quick && n > 4097 && !quick_dist(d)) return 0;
    if (n == ((size_t)1 << 20) - 1 || n == ((size_t)1 << 20) + 1)
        return d == DATAGEN_UNIFORM || d == DATAGEN_SPECIAL;
    if (n >= ((size_t)1 << 20))
        return quick_dist(d) || d == DATAGEN_REVERSED || d == DATAGEN_ENTROPY3 ||
               d == DATAGEN_ZIPF || d == DATAGEN_EQUAL || d == DIST_TOP2 || d == DIST_TOP2LOW ||
               d == DIST_UNITZERO || d == DIST_SIGNED;
    return 1;
}

/* Sizes at which the segmented/batch checks run (they are slower: many calls per case). */
static int segmented_size(size_t n, datagen_dist d)
{
    return n == 0 || n == 1 || n == 33 || n == 1000 || n == 4096 || n == 65537 ||
           (!opt.quick && n == ((size_t)1 << 20) && (d == DATAGEN_UNIFORM || d == DATAGEN_SPECIAL));
}

/* DIST_LOW8's keys: datagen's uniform keys (finite, for floats) with every byte above the
 * lowest copied from key 0 (little-endian: byte 0 is the low byte). */
static void fill_low8(void *keys, gpusort_type type, size_t n, uint64_t seed)
{
    size_t ks = gpusort_type_size(type);
    unsigned char *k = (unsigned char *)keys;
    datagen_fill(keys, type, n, DATAGEN_UNIFORM, seed);
    for (size_t i = 1; i < n; i++) memcpy(k + i * ks + 1, k + 1, ks - 1);
}

/* DIST_TOP2's keys: datagen's uniform keys with the second-highest byte (little-endian) set to
 * the highest. */
static void fill_top2(void *keys, gpusort_type type, size_t n, uint64_t seed)
{
    size_t ks = gpusort_type_size(type);
    unsigned char *k = (unsigned char *)keys;
    datagen_fill(keys, type, n, DATAGEN_UNIFORM, seed);
    for (size_t i = 0; i < n; i++) k[i * ks + ks - 2] = k[i * ks + ks - 1];
}

/* DIST_TOP2LOW's keys: DIST_TOP2's with the low byte (little-endian) copied from key 0. */
static void fill_top2low(void *keys, gpusort_type type, size_t n, uint64_t seed)
{
    size_t ks = gpusort_type_size(type);
    unsigned char *k = (unsigned char *)keys;
    fill_top2(keys, type, n, seed);
    for (size_t i = 1; i < n; i++) k[i * ks] = k[0];
}

/* DIST_UNITZERO's and DIST_SIGNED's keys (floats): datagen's unit keys; a quarter of them
 * become zeros with a random sign, and with SIGNED the others take a random sign and one in 64
 * is -inf. */
static void fill_unit_signs(void *keys, gpusort_type type, size_t n, uint64_t seed, int sign)
{
    size_t ks = gpusort_type_size(type);
    unsigned char *k = (unsigned char *)keys;
    const uint64_t top = (uint64_t)1 << (8 * ks - 1);
    const uint64_t neg_inf = ks == 4 ? 0xff800000u : 0xfff0000000000000ull;
    datagen_fill(keys, type, n, DATAGEN_UNIT, seed);
    datagen_rng r;
    datagen_rng_seed(&r, seed ^ 0x5157u);
    for (size_t i = 0; i < n; i++) {
        const uint64_t x = datagen_rng_next(&r);
        uint64_t v = 0;
        memcpy(&v, k + i * ks, ks); /* little-endian */
        if ((x & 3) == 0) v = (x & 4) ? top : 0;
        else if (sign && ((x >> 3) & 63) == 0) v = neg_inf;
        else if (sign && (x & 4)) v |= top;
        memcpy(k + i * ks, &v, ks);
    }
}

static void run_case(gpusort_type type, datagen_dist dist, size_t n)
{
    size_t ks = gpusort_type_size(type);
    uint64_t seed = case_seed(type, dist, n);
    tcase c = {type, dist, n, GPUSORT_ORDER_ASC, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    void *keys = xmalloc(n * ks);
    uint32_t *v32 = xmalloc(n * 4);
    uint64_t *v64 = xmalloc(n * 8);
    if (dist == DIST_LOW8) fill_low8(keys, type, n, seed);
    else if (dist == DIST_TOP2) fill_top2(keys, type, n, seed);
    else if (dist == DIST_TOP2LOW) fill_top2low(keys, type, n, seed);
    else if (dist == DIST_UNITZERO || dist == DIST_SIGNED)
        fill_unit_signs(keys, type, n, seed, dist == DIST_SIGNED);
    else datagen_fill(keys, type, n, dist, seed);
    datagen_fill_u32(v32, n, seed + 1);
    datagen_fill_u64(v64, n, seed + 2);
    c.keys = keys; c.v32 = v32; c.v64 = v64;
    c.perm = xmalloc(n * 8);
    c.want_keys = xmalloc(n * ks);
    c.want_v32 = xmalloc(n * 4);
    c.want_v64 = xmalloc(n * 8);
    c.want_i32 = xmalloc(n * 4);
    long failed_before = count.failed;
    clock_t t0 = clock();
    if (opt.verbose > 1) {
        printf("  %s/%s n=%zu ...\n", gpusort_type_name(type), dist_name(dist), n);
        fflush(stdout);
    }

    for (int mk = 0; mk < num_mem_kinds; mk++)
        check_reduce(type, dist, keys, n, mem_kinds[mk]);   /* cl_mem: GPUSORT_FLAG_CL_MEM */

    uint64_t *perm_asc = xmalloc(n * 8);
    if (verify_ref_argsort(type, keys, n, GPUSORT_ORDER_ASC, perm_asc)) {
        fprintf(stderr, "test_backends: out of memory in the reference sort\n");
        exit(2);
    }
    for (int o = 0; o < 2; o++) {
        c.order = o ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC;
        /* descending: the ascending reference with its runs of equal keys reversed (the
         * unsorted check below guards this derivation) */
        if (o) verify_ref_reverse_stable(type, keys, n, perm_asc, c.perm);
        else memcpy(c.perm, perm_asc, n * 8);
        verify_gather(c.want_keys, keys, c.perm, n, ks);
        verify_gather(c.want_v32, v32, c.perm, n, 4);
        verify_gather(c.want_v64, v64, c.perm, n, 8);
        for (size_t i = 0; i < n; i++) c.want_i32[i] = (uint32_t)c.perm[i];
        /* the reference must itself be sorted: a cheap guard on the reference's comparator */
        size_t bad = verify_first_unsorted(type, c.want_keys, n, c.order);
        if (bad != n) {
            fprintf(stderr, "test_backends: the REFERENCE is not sorted at %zu\n", bad);
            exit(2);
        }
        size_t nalg = opt.all_algorithms ? sizeof all_algorithms / sizeof all_algorithms[0] : 1;
        for (size_t a = 0; a < nalg; a++) {
            gpusort_algorithm alg = opt.all_algorithms ? all_algorithms[a] : opt.algorithm;
            for (int mk = 0; mk < num_mem_kinds; mk++) {
                /* cl_mem buffers run the same kernels as host data: three distributions are
                 * enough to prove the buffer handling at every size */
                if (mem_kinds[mk]->sorts_only && !opt.full && dist != DATAGEN_UNIFORM &&
                    dist != DATAGEN_SPECIAL && dist != DATAGEN_FEW)
                    continue;
                check_keys(&c, mem_kinds[mk], alg);
                check_pairs(&c, mem_kinds[mk], alg);
                check_argsort(&c, mem_kinds[mk], alg);
                if (segmented_size(n, dist) && !mem_kinds[mk]->sorts_only)
                    check_segmented(&c, mem_kinds[mk], alg, seed + 3);
            }
        }
    }
    if (opt.verbose)
        printf("  %s/%s n=%zu: %s (%.2f s)\n", gpusort_type_name(type), dist_name(dist), n,
               count.failed == failed_before ? "ok" : "FAILED",
               (double)(clock() - t0) / CLOCKS_PER_SEC);
    fflush(stdout);
    free(keys); free(v32); free(v64); free(perm_asc);
    free(c.perm); free(c.want_keys); free(c.want_v32); free(c.want_v64); free(c.want_i32);
}

/* ---- self-test of the reference: a harness that cannot fail is worth nothing ---- */

static int self_test(void)
{
    int bad = 0;
    /* the comparator against the contract's chain: -inf < -1 < -0.0 == +0.0 < denormal < 1 <
     * +inf < NaN == -NaN (with a payload) */
    static const uint32_t chain32[] = {0xff800000u, 0xbf800000u, 0x80000000u, 0x00000000u,
                                       0x00000001u, 0x3f800000u, 0x7f800000u, 0x7fc00000u,
                                       0xffc01234u};
    static const int equal_to_prev[] = {0, 0, 0, 1, 0, 0, 0, 0, 1};
    for (size_t i = 1; i < sizeof chain32 / sizeof chain32[0]; i++) {
        int c = verify_cmp(GPUSORT_TYPE_F32, &chain32[i - 1], &chain32[i]);
        if (equal_to_prev[i] ? c != 0 : c >= 0) {
            printf("SELF-TEST FAIL: f32 order of 0x%08x vs 0x%08x: %d\n", chain32[i - 1],
                   chain32[i], c);
            bad++;
        }
    }
    int32_t a = -5, b = 3;
    if (verify_cmp(GPUSORT_TYPE_I32, &a, &b) >= 0 || verify_cmp(GPUSORT_TYPE_U32, &a, &b) <= 0) {
        printf("SELF-TEST FAIL: signed/unsigned order\n");
        bad++;
    }
    /* the reference sort: sorted, stable, and the derived descending order equals a direct
     * descending sort, for every type and distribution at small sizes */
    static const size_t ns[] = {0, 1, 2, 100, 3000};
    for (int t = 0; t < GPUSORT_TYPE_COUNT_; t++)
        for (int d = 0; d < DATAGEN_DIST_COUNT; d++)
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
                gpusort_type type = (gpusort_type)t;
                size_t n = ns[k], es = gpusort_type_size(type);
                unsigned char *keys = xmalloc(n * es), *sorted = xmalloc(n * es);
                uint64_t *pa = xmalloc(n * 8), *pd = xmalloc(n * 8), *pr = xmalloc(n * 8);
                datagen_fill(keys, type, n, (datagen_dist)d, 12345 + n);
                verify_ref_argsort(type, keys, n, GPUSORT_ORDER_ASC, pa);
                verify_ref_argsort(type, keys, n, GPUSORT_ORDER_DESC, pd);
                verify_ref_reverse_stable(type, keys, n, pa, pr);
                for (int o = 0; o < 2; o++) {
                    uint64_t *p = o ? pd : pa;
                    verify_gather(sorted, keys, p, n, es);
                    size_t u = verify_first_unsorted(type, sorted, n, o ? GPUSORT_ORDER_DESC
                                                                         : GPUSORT_ORDER_ASC);
                    for (size_t i = 1; i < n && u == n; i++)
                        if (verify_cmp(type, sorted + (i - 1) * es, sorted + i * es) == 0 &&
                            p[i - 1] > p[i])
                            u = i;  /* equal keys out of input order: not stable */
                    if (u != n) {
                        printf("SELF-TEST FAIL: reference %s/%s n=%zu %s: bad at %zu\n",
                               gpusort_type_name(type), datagen_dist_name((datagen_dist)d), n,
                               o ? "desc" : "asc", u);
                        bad++;
                    }
                }
                if (n && memcmp(pd, pr, n * 8)) {
                    printf("SELF-TEST FAIL: derived descending order differs: %s/%s n=%zu\n",
                           gpusort_type_name(type), datagen_dist_name((datagen_dist)d), n);
                    bad++;
                }
                /* the comparison catches a single swapped pair of unequal keys */
                verify_gather(sorted, keys, pa, n, es);
                if (n > 1 && verify_cmp(type, sorted, sorted + (n - 1) * es) != 0) {
                    unsigned char *copy = xmalloc(n * es);
                    memcpy(copy, sorted, n * es);
                    memcpy(copy, sorted + (n - 1) * es, es);
                    memcpy(copy + (n - 1) * es, sorted, es);
                    if (verify_first_diff(copy, sorted, n, es) != 0 ||
                        verify_first_unsorted(type, copy, n, GPUSORT_ORDER_ASC) == n) {
                        printf("SELF-TEST FAIL: a swap went unnoticed\n");
                        bad++;
                    }
                    free(copy);
                }
                free(keys); free(sorted); free(pa); free(pd); free(pr);
            }
    return bad;
}

/* ---- main ---- */

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end || end == s) {
        fprintf(stderr, "test_backends: not a number: %s\n", s);
        exit(2);
    }
    return (size_t)v;
}

int main(int argc, char **argv)
{
    /* line-buffered even into a file or pipe: a run killed by a timeout keeps its log */
    setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef __GLIBC__
    /* Keep freed buffers in the heap: every check allocates and frees buffers of up to 8 MiB,
     * and returning them to the kernel each time made page faults a tenth of the run time. */
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    opt.backend = GPUSORT_BACKEND_CPU;
    const char *quick_env = getenv("GPUSORT_TEST_QUICK");
    if (quick_env && !strcmp(quick_env, "1")) opt.quick = 1;
    opt.algorithm = GPUSORT_ALGORITHM_AUTO;
    opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    opt.max_n = ((size_t)1 << 20) + 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); return 0; }
        if (!strcmp(a, "-v")) { opt.verbose++; continue; }
        if (!strcmp(a, "-vv")) { opt.verbose = 2; continue; }
        if (!strcmp(a, "--quick")) { opt.quick = 1; continue; }
        if (!strcmp(a, "--full")) { opt.full = 1; continue; }
        if (!strcmp(a, "--no-cl-mem")) { opt.no_cl_mem = 1; continue; }
        if (!strcmp(a, "--pinned")) { opt.pinned = 1; continue; }
        if (!strcmp(a, "--host-only")) { opt.host_only = 1; continue; }
        if (!v) { usage(stderr); return 2; }
        i++;
        if (!strcmp(a, "--backend")) {
            if (gpusort_backend_parse(v, &opt.backend) || opt.backend == GPUSORT_BACKEND_AUTO) {
                fprintf(stderr, "test_backends: unknown backend %s (cpu, cuda, opencl)\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--algorithm")) {
            if (!strcmp(v, "all")) opt.all_algorithms = 1;
            else if (gpusort_algorithm_parse(v, &opt.algorithm)) {
                fprintf(stderr, "test_backends: unknown algorithm %s\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--seed")) {
            opt.seed = (uint64_t)parse_size(v);
        } else if (!strcmp(a, "--max-n")) {
            opt.max_n = parse_size(v);
        } else if (!strcmp(a, "--filter")) {
            opt.filter = v;
        } else if (!strcmp(a, "--sizes")) {
            opt.sizes = v;
        } else {
            fprintf(stderr, "test_backends: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
    }
    backend_name = gpusort_backend_name(opt.backend);
    printf("seed: %" PRIu64 "\n", opt.seed);
    if (self_test()) {
        printf("the reference failed its self-test: nothing else can be trusted\n");
        return 1;
    }

    static const char *const pretty[] = {"", "CPU", "CUDA", "OpenCL"};
    if (!gpusort_backend_built(opt.backend)) {
        printf("skipped: %s backend not built\n", backend_name);
        return SKIP_EXIT;
    }
    int devices = 0;
    gpusort_status s = gpusort_device_get_count(opt.backend, &devices);
    if (s != GPUSORT_STATUS_SUCCESS || devices == 0) {
        printf("skipped: no %s device\n", pretty[opt.backend]);
        return SKIP_EXIT;
    }
    s = gpusort_ctx_create(&ctx, opt.backend, 0);
    if (s != GPUSORT_STATUS_SUCCESS) {
        printf("FAIL: cannot create a %s context: %s\n", backend_name, gpusort_status_string(s));
        printf("0 passed, 1 failed, 0 skipped\n");
        return 1;
    }
    gpusort_device_info info;
    memset(&info, 0, sizeof info);
    if (gpusort_device_get_info(opt.backend, 0, &info) == GPUSORT_STATUS_SUCCESS) {
        device_f64 = info.supports_f64;
        printf("device: %s (%s)%s\n", info.name, info.platform,
               info.supports_f64 ? "" : ", no f64");
    }
    mem_kinds[num_mem_kinds++] = &host_mem;
#ifdef GPUSORT_HAVE_CUDA
    if (opt.backend == GPUSORT_BACKEND_CUDA && opt.pinned) {
        mem_kinds[0] = &pinned_mem;
        printf("host arrays: pinned (cudaMallocHost)\n");
    }
    if (opt.backend == GPUSORT_BACKEND_CUDA) rank_max_n = test_cuda_rank_max_n();
    if (opt.backend == GPUSORT_BACKEND_CUDA && !opt.host_only)
        mem_kinds[num_mem_kinds++] = &device_mem;
#endif
#ifdef GPUSORT_HAVE_OPENCL
    /* OpenCL: the host pointers, then cl_mem buffers on the caller's queue (the backend adopts
     * our cl_context; host-pointer calls then run on our queue too) */
    if (opt.backend == GPUSORT_BACKEND_OPENCL && !opt.no_cl_mem) {
        if (test_cl_setup(ctx, info.name) == 0) {
            mem_kinds[num_mem_kinds++] = &cl_mem_kind;
            printf("cl_mem: testing cl_mem buffers (GPUSORT_FLAG_CL_MEM) on a caller's queue\n");
        } else {
            printf("FAIL: cannot set up cl_mem buffers on the caller's queue: %s\n",
                   test_cl_error());
            count.failed++;
        }
    }
#endif

    /* the sizes */
    static const size_t fixed[] = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1000, 1023, 1024, 1025,
                                   4095, 4096, 4097, 65535, 65536, 65537,
                                   ((size_t)1 << 20) - 1, (size_t)1 << 20, ((size_t)1 << 20) + 1};
    size_t sizes[64];
    size_t nsizes = 0;
    for (const char *p = opt.sizes; p && *p;) {
        char *end;
        if (nsizes == sizeof sizes / sizeof sizes[0]) {
            fprintf(stderr, "test_backends: --sizes: at most %zu sizes\n", nsizes);
            return 2;
        }
        sizes[nsizes++] = (size_t)strtoull(p, &end, 0);
        if (end == p || (*end && *end != ',')) {
            fprintf(stderr, "test_backends: bad --sizes list %s\n", opt.sizes);
            return 2;
        }
        p = *end ? end + 1 : end;
    }
    for (size_t i = 0; !opt.sizes && i < sizeof fixed / sizeof fixed[0]; i++) {
        size_t n = fixed[i];
        if (n > opt.max_n) continue;
        if (opt.quick && n > 65537 && n != ((size_t)1 << 20)) continue;
        sizes[nsizes++] = n;
    }
    datagen_rng r;
    datagen_rng_seed(&r, opt.seed);
    /* random sizes: log-uniform up to 2^16 (--quick), 2^18 (default) or --max-n (--full) */
    size_t random_cap = opt.full ? opt.max_n : opt.quick ? 65536 : (size_t)1 << 18;
    if (random_cap > opt.max_n) random_cap = opt.max_n;
    for (int i = 0; !opt.sizes && i < 3 && random_cap > 3; i++) {
        /* log-uniform, so small and large random sizes are equally likely */
        double e = datagen_rng_unit(&r) * 0.999999 * (double)(63 - __builtin_clzll(random_cap));
        size_t n = (size_t)1 << (int)e;
        n += (size_t)datagen_rng_below(&r, n);
        if (n > random_cap) n = random_cap;
        sizes[nsizes++] = n;
    }
    printf("backend: %s, algorithm: %s, sizes:", backend_name,
           opt.all_algorithms ? "all" : gpusort_algorithm_name(opt.algorithm));
    for (size_t i = 0; i < nsizes; i++) printf(" %zu", sizes[i]);
    printf("%s\n", opt.quick ? " (quick)" : opt.full ? " (full)" : "");
    fflush(stdout);

    time_t start = time(NULL);
    for (int t = 0; t < GPUSORT_TYPE_COUNT_; t++) {
        gpusort_type type = (gpusort_type)t;
        long fail_before = count.failed, pass_before = count.passed;
        clock_t t0 = clock();
        int ran = 0;
        for (int d = 0; d < DIST_COUNT; d++) {
            char name[64];
            snprintf(name, sizeof name, "%s/%s", gpusort_type_name(type),
                     dist_name((datagen_dist)d));
            if (opt.filter && !strstr(name, opt.filter)) continue;
            if ((d == DIST_UNITZERO || d == DIST_SIGNED) && type != GPUSORT_TYPE_F32 &&
                type != GPUSORT_TYPE_F64)
                continue; /* float distributions */
            ran = 1;
            for (size_t i = 0; i < nsizes; i++) {
                if (!case_selected((datagen_dist)d, sizes[i])) continue;
                run_case(type, (datagen_dist)d, sizes[i]);
            }
        }
        if (ran) {   /* the next type starts with no kept scratch: trim, then allocate again */
            gpusort_status ts = gpusort_ctx_trim(ctx);
            if (ts) {
                count.failed++;
                printf("FAIL gpusort_ctx_trim: %s: %s\n", gpusort_status_string(ts),
                       gpusort_ctx_get_last_error(ctx));
            } else {
                count.passed++;
            }
        }
        if (ran)
            printf("%s: %ld passed, %ld failed (%.1f s cpu)\n", gpusort_type_name(type),
                   count.passed - pass_before, count.failed - fail_before,
                   (double)(clock() - t0) / CLOCKS_PER_SEC);
        fflush(stdout);
    }
#ifdef GPUSORT_HAVE_OPENCL
    if (opt.backend == GPUSORT_BACKEND_OPENCL) test_cl_teardown(ctx);
#endif
    gpusort_ctx_free(ctx);
    printf("%ld passed, %ld failed, %ld skipped (%ld s)\n", count.passed, count.failed,
           count.skipped, (long)(time(NULL) - start));
    if (count.failed) printf("replay with: --seed %" PRIu64 "\n", opt.seed);
    if (count.passed == 0 && count.failed == 0) {
        printf("nothing was checked (filter matched nothing, or every call was unsupported)\n");
        return 1;
    }
    return count.failed ? 1 : 0;
}
