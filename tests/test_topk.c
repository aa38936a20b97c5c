/*
 * test_topk.c -- gpusort_topk and gpusort_topk_batch on one backend against an independent
 * reference.
 *
 *   test_topk [--backend cpu|cuda|opencl] [--seed S] [--quick] [--max-n N] [-v]
 *
 * The reference is the definition: sort (radix key, index) pairs of the whole row with qsort
 * (radix keys from keys.h: the gpusort order, NaN largest, -0.0 == +0.0, descending = the
 * complement) and cut after k. Indices are unique, so the reference order is the stable one.
 * Checked: the k keys bit for bit (so -0.0 and NaN payloads are the input's), the k indices
 * (u32 and u64), keys-only and indices-only calls, and that nothing past the k outputs is
 * written (canary bytes).
 *
 * Cases: every type, both orders, the distributions of common/datagen (uniform, equal, few,
 * sorted, reversed, zipf, special: NaNs and signed zeros, huge, entropy) at sizes around the
 * boundaries of the implementations (1, digit buckets 255/256/257, the CPU's threaded rows
 * 2^16 +- 1, GPU tiles, up to --max-n), k at 1, 2, 100, n/2, n - 1, n and around 2^10 and 2^16;
 * a uniform row with a quarter of its keys set to one value in a periodic pattern that fools
 * the CUDA backend's sample (run_input's trap); then batches: many short rows, few long rows,
 * k from 1 to row_length.
 * With CUDA, host and device pointers. Seed printed first; --seed S replays a run.
 * Exit: 0 passed, 1 a failure, 77 skipped (backend not built or no device).
 */
#include "datagen.h"
#include "gpusort.h"
#include "internal.h"
#if defined(GPUSORT_HAVE_CUDA)
#include "cuda_mem.h"
#endif
#if defined(GPUSORT_HAVE_OPENCL)
#include "cl_mem.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CANARY 0xA5

static struct {
    gpusort_backend backend;
    uint64_t seed;
    int quick, verbose;
    size_t max_n;
    int cl_mem;   /* OpenCL: also cl_mem buffers (test_cl_setup worked) */
} opt = {GPUSORT_BACKEND_CPU, 0, 0, 0, (size_t)1 << 20, 0};

static gpusort_ctx *ctx;
static long passed, failed;

typedef struct pair {
    uint64_t r, i;
} pair;

static int pair_cmp(const void *a, const void *b)
{
    const pair *x = (const pair *)a, *y = (const pair *)b;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static uint64_t radix_key(const void *keys, size_t i, gpusort_type t, int desc)
{
    if (gpusort_type_size(t) == 4) {
        uint32_t b;
        memcpy(&b, (const char *)keys + 4 * i, 4);
        return gpusort__radix32(b, (int)t, desc);
    }
    uint64_t b;
    memcpy(&b, (const char *)keys + 8 * i, 8);
    return gpusort__radix64(b, (int)t, desc);
}

/* The reference order of each row (any k cuts it): ref[row * row_length + j] = the index
 * within the row of the row's j-th key in stable sorted order. */
static void reference(const void *keys, gpusort_type t, size_t n, size_t row_length, int desc,
                      uint64_t *ref, pair *scratch)
{
    size_t ks = gpusort_type_size(t);
    for (size_t row = 0; row * row_length < n; row++) {
        const char *rk = (const char *)keys + row * row_length * ks;
        for (size_t i = 0; i < row_length; i++) scratch[i] = (pair){radix_key(rk, i, t, desc), i};
        qsort(scratch, row_length, sizeof(pair), pair_cmp);
        for (size_t j = 0; j < row_length; j++) ref[row * row_length + j] = scratch[j].i;
    }
}

/* ---- memory: host, or the device's (CUDA device memory; OpenCL cl_mem buffers) ---- */

static int device_is_cl(void) { return opt.backend == GPUSORT_BACKEND_OPENCL; }

static void *mem_alloc(int device, size_t bytes)
{
#if defined(GPUSORT_HAVE_CUDA)
    if (device && !device_is_cl()) return test_cuda_alloc(bytes);
#endif
#if defined(GPUSORT_HAVE_OPENCL)
    if (device && device_is_cl()) return test_cl_alloc(bytes ? bytes : 1);
#endif
    (void)device;
    return malloc(bytes ? bytes : 1);
}

static void mem_free(int device, void *p)
{
#if defined(GPUSORT_HAVE_CUDA)
    if (device && !device_is_cl()) { test_cuda_free(p); return; }
#endif
#if defined(GPUSORT_HAVE_OPENCL)
    if (device && device_is_cl()) { test_cl_free(p); return; }
#endif
    free(p);
}

static void mem_put(int device, void *dst, const void *src, size_t bytes)
{
#if defined(GPUSORT_HAVE_CUDA)
    if (device && !device_is_cl()) { test_cuda_upload(dst, src, bytes); return; }
#endif
#if defined(GPUSORT_HAVE_OPENCL)
    if (device && device_is_cl()) { test_cl_upload(dst, src, bytes); return; }
#endif
    memcpy(dst, src, bytes);
}

static void mem_get(int device, void *dst, const void *src, size_t bytes)
{
#if defined(GPUSORT_HAVE_CUDA)
    if (device && !device_is_cl()) { test_cuda_download(dst, src, bytes); return; }
#endif
#if defined(GPUSORT_HAVE_OPENCL)
    if (device && device_is_cl()) { test_cl_download(dst, src, bytes); return; }
#endif
    memcpy(dst, src, bytes);
}

/* ---- one case ---- */

typedef struct tcase {
    gpusort_type type;
    datagen_dist dist;
    size_t n, row_length, k;
    int desc, device, trap;
} tcase;

static void report(const tcase *c, const char *what, const char *fmt, size_t a, size_t b)
{
    failed++;
    if (failed > 40) return;
    printf("FAIL %s %s/%s%s n=%zu row=%zu k=%zu %s %s (%s memory): %s ",
           gpusort_backend_name(opt.backend), gpusort_type_name(c->type),
           datagen_dist_name(c->dist), c->trap ? "+trap" : "", c->n, c->row_length, c->k,
           c->desc ? "desc" : "asc", what, c->device ? "device" : "host", fmt);
    printf("(at %zu: %zu)\n     replay: test_topk --backend %s --seed %" PRIu64 " --max-n %zu\n",
           a, b, gpusort_backend_name(opt.backend), opt.seed, opt.max_n);
}

/* Run the case in its three forms (keys + u64 indices, keys only, u32 indices only) and compare
 * each with the reference. */
static void run_case(const tcase *c, const void *keys, const uint64_t *ref)
{
    size_t ks = gpusort_type_size(c->type), rows = c->n / c->row_length, out = rows * c->k;
    gpusort_order order = c->desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC;
    int batch = rows != 1;
    void *din = mem_alloc(c->device, c->n * ks);
    void *dkeys = mem_alloc(c->device, (out + 4) * ks);   /* + 4: canary past the end */
    void *didx = mem_alloc(c->device, (out + 4) * 8);
    char *hkeys = malloc((out + 4) * ks), *hidx = malloc((out + 4) * 8);
    if (!din || !dkeys || !didx || !hkeys || !hidx) {
        printf("FAIL: out of memory for a case of n = %zu\n", c->n);
        exit(1);
    }
    mem_put(c->device, din, keys, c->n * ks);
    for (int form = 0; form < 3; form++) {
        const char *what = form == 0 ? "keys+u64" : form == 1 ? "keys" : "u32 indices";
        gpusort_type it = form == 2 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
        void *ko = form == 2 ? NULL : dkeys, *io = form == 1 ? NULL : didx;
        memset(hkeys, CANARY, (out + 4) * ks);
        memset(hidx, CANARY, (out + 4) * 8);
        mem_put(c->device, dkeys, hkeys, (out + 4) * ks);
        mem_put(c->device, didx, hidx, (out + 4) * 8);
        unsigned flags = c->device && device_is_cl() ? GPUSORT_FLAG_CL_MEM : 0;
        gpusort_status s =
            batch ? gpusort_topk_batch(ctx, c->type, it, din, c->n, c->row_length, c->k, ko, io,
                                       order, flags)
                  : gpusort_topk(ctx, c->type, it, din, c->n, c->k, ko, io, order, flags);
        if (s != GPUSORT_STATUS_SUCCESS) {
            printf("FAIL status %s: %s\n", gpusort_status_string(s), gpusort_ctx_get_last_error(ctx));
            report(c, what, "the call failed", 0, 0);
            continue;
        }
        mem_get(c->device, hkeys, dkeys, (out + 4) * ks);
        mem_get(c->device, hidx, didx, (out + 4) * 8);
        size_t is = it == GPUSORT_TYPE_U32 ? 4 : 8, bad = (size_t)-1;
        for (size_t j = 0; j < out && bad == (size_t)-1; j++) {
            size_t row = j / c->k;
            uint64_t want_i = ref[row * c->row_length + j % c->k];
            const char *want = (const char *)keys + (row * c->row_length + want_i) * ks;
            if (ko && memcmp(hkeys + j * ks, want, ks)) bad = j;
            if (io) {
                uint64_t got = is == 4 ? (uint64_t)((uint32_t *)hidx)[j] : ((uint64_t *)hidx)[j];
                if (got != want_i) bad = j;
            }
        }
        if (bad != (size_t)-1) {
            report(c, what, "wrong key or index", bad,
                   (size_t)ref[bad / c->k * c->row_length + bad % c->k]);
            continue;
        }
        int canary_ok = 1;
        for (size_t b = 0; b < 4 * ks; b++) canary_ok &= (unsigned char)hkeys[out * ks + b] == CANARY;
        for (size_t b = 0; b < 4 * is; b++) canary_ok &= (unsigned char)hidx[out * is + b] == CANARY;
        if (!ko) for (size_t b = 0; b < out * ks; b++) canary_ok &= (unsigned char)hkeys[b] == CANARY;
        if (!io) for (size_t b = 0; b < out * 8; b++) canary_ok &= (unsigned char)hidx[b] == CANARY;
        if (!canary_ok) { report(c, what, "wrote outside its output", out, 0); continue; }
        passed++;
    }
    mem_free(c->device, din);
    mem_free(c->device, dkeys);
    mem_free(c->device, didx);
    free(hkeys);
    free(hidx);
}

static uint64_t case_seed(const tcase *c)
{
    return datagen_mix64(opt.seed ^ datagen_mix64(((uint64_t)c->type << 56) ^
                                                   ((uint64_t)c->dist << 48) ^ (uint64_t)c->n));
}

/* Generate the input of (type, dist, n) once and run it for the given ks, row lengths, orders
 * and memories. trap: the keys at positions p with p % 128 < 32 are set to one value
 * (keys[32]). The CUDA top-k guesses from a sample read in runs of 32 keys at a gap that is a
 * multiple of 128 for the sizes here, so the sample sees only that value: the guess is wrong
 * for most k and the whole-row path (mode 1) has to give the answer. */
static void run_input(gpusort_type t, datagen_dist d, size_t n, const size_t *row_lengths,
                      int nrow, const size_t *ks_in, int nk, int trap)
{
    tcase c = {t, d, n, n, 1, 0, 0, trap};
    size_t es = gpusort_type_size(t);
    void *keys = malloc(n * es);
    pair *scratch = malloc(n * sizeof(pair));
    uint64_t *ref = malloc(n * 8);
    if (!keys || !scratch || !ref) { printf("FAIL: out of memory\n"); exit(1); }
    datagen_fill(keys, t, n, d, case_seed(&c));
    if (trap && n > 32)
        for (size_t p = 0; p < n; p++)
            if (p % 128 < 32) memcpy((char *)keys + p * es, (char *)keys + 32 * es, es);
    int devices = opt.backend == GPUSORT_BACKEND_CUDA || opt.cl_mem ? 2 : 1;
    for (int ri = 0; ri < nrow; ri++) {
        c.row_length = row_lengths[ri];
        if (!c.row_length || n % c.row_length) continue;
        /* cl_mem batches are refused by the contract (checked below), not run. */
        int dev_max = device_is_cl() && c.row_length != n ? 1 : devices;
        for (int desc = 0; desc < 2; desc++) {
            reference(keys, t, n, c.row_length, desc, ref, scratch);
            for (int ki = 0; ki < nk; ki++) {
                c.k = ks_in[ki] == (size_t)-1 ? c.row_length : ks_in[ki] == (size_t)-2 ? c.row_length - 1
                      : ks_in[ki] == (size_t)-3 ? c.row_length / 2 : ks_in[ki];
                if (c.k == 0 || c.k > c.row_length) continue;
                c.desc = desc;
                for (c.device = 0; c.device < dev_max; c.device++) {
                    if (opt.verbose)
                        printf("  %s/%s n=%zu row=%zu k=%zu %s %s\n", gpusort_type_name(t),
                               datagen_dist_name(d), n, c.row_length, c.k, desc ? "desc" : "asc",
                               c.device ? "device" : "host");
                    run_case(&c, keys, ref);
                }
            }
        }
    }
    free(keys);
    free(scratch);
    free(ref);
}

static void usage(void)
{
    printf("usage: test_topk [--backend cpu|cuda|opencl] [--seed S] [--quick] [--max-n N] [-v]\n");
}

int main(int argc, char **argv)
{
    opt.seed = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--backend") && v) {
            if (gpusort_backend_parse(v, &opt.backend)) { usage(); return 2; }
            i++;
        } else if (!strcmp(a, "--seed") && v) {
            opt.seed = strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--max-n") && v) {
            opt.max_n = (size_t)strtoull(v, NULL, 0);
            i++;
        } else if (!strcmp(a, "--quick")) {
            opt.quick = 1;
        } else if (!strcmp(a, "-v")) {
            opt.verbose = 1;
        } else {
            usage();
            return 2;
        }
    }
    if (getenv("GPUSORT_TEST_QUICK")) opt.quick = 1;
    printf("seed: %" PRIu64 "\n", opt.seed);
    if (!gpusort_backend_built(opt.backend)) {
        printf("skipped: the %s backend is not built\n", gpusort_backend_name(opt.backend));
        return 77;
    }
    int count = 0;
    if (gpusort_device_get_count(opt.backend, &count) || count == 0) {
        printf("skipped: no %s device\n", gpusort_backend_name(opt.backend));
        return 77;
    }
    gpusort_status s = gpusort_ctx_create(&ctx, opt.backend, 0);
    if (s) {
        printf("FAIL: cannot create a %s context: %s\n", gpusort_backend_name(opt.backend),
               gpusort_status_string(s));
        return 1;
    }
#if defined(GPUSORT_HAVE_OPENCL)
    if (opt.backend == GPUSORT_BACKEND_OPENCL) {
        gpusort_device_info info;
        if (gpusort_device_get_info(opt.backend, gpusort_ctx_get_device(ctx), &info) == 0 &&
            test_cl_setup(ctx, info.name) == 0)
            opt.cl_mem = 1;
        else
            printf("note: cl_mem buffers not tested: %s\n", test_cl_error());
    }
#endif

    /* k codes: -1 = row_length, -2 = row_length - 1, -3 = row_length / 2. */
    const size_t K_ALL = (size_t)-1, K_ALL1 = (size_t)-2, K_HALF = (size_t)-3;
    const size_t small_n[] = {1, 2, 3, 31, 255, 256, 257, 1000, 4097};
    const size_t small_k[] = {1, 2, 3, 100, 255, 256, 257, K_HALF, K_ALL1, K_ALL};
    const size_t big_n[] = {65535, 65536, 65537, 262147, 1048576, 1048577, 4194305};
    const size_t big_k[] = {1, 2, 100, 1023, 1024, 1025, 65535, 65536, 65537, K_HALF, K_ALL};
    const datagen_dist all_d[] = {DATAGEN_UNIFORM, DATAGEN_EQUAL, DATAGEN_FEW, DATAGEN_SORTED,
                                  DATAGEN_REVERSED, DATAGEN_ZIPF, DATAGEN_SPECIAL, DATAGEN_HUGE,
                                  DATAGEN_ENTROPY4};
    /* zipf and entropy4 crowd a long row's keys into few values: for some k the GPU's guessed
     * range holds candidates over many tiles (mode 0) or more than its 1/16 limit (mode 1). */
    const datagen_dist big_d[] = {DATAGEN_UNIFORM, DATAGEN_FEW, DATAGEN_SPECIAL, DATAGEN_SORTED,
                                  DATAGEN_ZIPF, DATAGEN_ENTROPY4};
    int nd = (int)(sizeof all_d / sizeof all_d[0]);
    int nbd = opt.quick ? 2 : (int)(sizeof big_d / sizeof big_d[0]);

    for (int t = 0; t < GPUSORT_TYPE_COUNT_; t++) {
        for (int di = 0; di < nd; di++)
            for (size_t ni = 0; ni < sizeof small_n / sizeof small_n[0]; ni++) {
                size_t n = small_n[ni], whole[] = {n};
                run_input((gpusort_type)t, all_d[di], n, whole, 1, small_k, 10, 0);
            }
        for (int di = 0; di < nbd; di++)
            for (size_t ni = 0; ni < sizeof big_n / sizeof big_n[0]; ni++) {
                size_t n = big_n[ni], whole[] = {n};
                if (n > opt.max_n || (opt.quick && ni % 2)) continue;
                if (di >= 4 && n < ((size_t)1 << 18)) continue;   /* below the GPU's mode 0 */
                run_input((gpusort_type)t, big_d[di], n, whole, 1, big_k, 11, 0);
                if (di == 0 && n >= ((size_t)1 << 18))
                    run_input((gpusort_type)t, DATAGEN_UNIFORM, n, whole, 1, big_k, 11, 1);
            }
        /* Batches: many short rows, a few long rows (the threaded path for one row). */
        const size_t rows_n = 4096 * 3, row_lengths[] = {1, 3, 4, 64, 256, 4096};
        const size_t row_k[] = {1, 2, 7, 63, 64, K_HALF, K_ALL1, K_ALL};
        run_input((gpusort_type)t, DATAGEN_UNIFORM, rows_n, row_lengths, 6, row_k, 8, 0);
        run_input((gpusort_type)t, DATAGEN_FEW, rows_n, row_lengths, 6, row_k, 8, 0);
        if (opt.max_n >= 3 * 65537) {
            const size_t long_rows[] = {65537}, long_k[] = {1, 1000, 65536};
            run_input((gpusort_type)t, DATAGEN_SPECIAL, 3 * 65537, long_rows, 1, long_k, 3, 0);
        }
        /* Rows long enough for the GPU's sampled guess, one after another on one scratch. */
        if (opt.max_n >= 2 * 262147 && !opt.quick) {
            const size_t guess_rows[] = {262147}, guess_k[] = {1, 1000, 131073};
            run_input((gpusort_type)t, DATAGEN_UNIFORM, 2 * 262147, guess_rows, 1, guess_k, 3, 0);
        }
    }

    /* Argument checks: each must be refused with INVALID_ARGUMENT, writing nothing. */
    uint32_t in[8] = {5, 3, 9, 1, 7, 2, 8, 6}, ko[8];
    uint64_t io[8];
    struct { const char *what; gpusort_status got; } bad[] = {
        {"k > n", gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, in, 8, 9, ko, io, GPUSORT_ORDER_ASC, 0)},
        {"no output", gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, in, 8, 2, NULL, NULL, GPUSORT_ORDER_ASC, 0)},
        {"bad index type", gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_F32, in, 8, 2, ko, io, GPUSORT_ORDER_ASC, 0)},
        {"bad key type", gpusort_topk(ctx, (gpusort_type)77, GPUSORT_TYPE_U64, in, 8, 2, ko, io, GPUSORT_ORDER_ASC, 0)},
        {"bad order", gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, in, 8, 2, ko, io, (gpusort_order)5, 0)},
        {"unknown flag", gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, in, 8, 2, ko, io, GPUSORT_ORDER_ASC, 1u << 30)},
        {"output overlaps input", gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, in, 8, 2, in + 1, io, GPUSORT_ORDER_ASC, 0)},
        {"rows do not divide n", gpusort_topk_batch(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, in, 8, 3, 1, ko, io, GPUSORT_ORDER_ASC, 0)},
        {"k > row", gpusort_topk_batch(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, in, 8, 4, 5, ko, io, GPUSORT_ORDER_ASC, 0)},
        {"keys_in NULL", gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, NULL, 8, 2, ko, io, GPUSORT_ORDER_ASC, 0)},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (bad[i].got == GPUSORT_STATUS_INVALID_ARGUMENT) passed++;
        else {
            failed++;
            printf("FAIL argument check '%s': got %s, want invalid argument\n", bad[i].what,
                   gpusort_status_string(bad[i].got));
        }
    }
    /* k == 0 and n == 0 do nothing and succeed. */
    if (gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, in, 8, 0, ko, io, GPUSORT_ORDER_ASC, 0) ||
        gpusort_topk(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, NULL, 0, 0, ko, io, GPUSORT_ORDER_ASC, 0)) {
        failed++;
        printf("FAIL k == 0 / n == 0 must succeed\n");
    } else {
        passed++;
    }
#if defined(GPUSORT_HAVE_OPENCL)
    if (opt.cl_mem) {
        /* Batches of cl_mem buffers are refused: UNSUPPORTED. */
        void *b = test_cl_alloc(64);
        gpusort_status bs = gpusort_topk_batch(ctx, GPUSORT_TYPE_U32, GPUSORT_TYPE_U64, b, 8, 4, 1,
                                               b, NULL, GPUSORT_ORDER_ASC, GPUSORT_FLAG_CL_MEM);
        if (bs == GPUSORT_STATUS_UNSUPPORTED) passed++;
        else { failed++; printf("FAIL cl_mem batch: got %s\n", gpusort_status_string(bs)); }
        test_cl_free(b);
        test_cl_teardown(ctx);
    }
#endif
    gpusort_ctx_free(ctx);
    printf("%s: %ld passed, %ld failed (seed %" PRIu64 ")\n", failed ? "FAILED" : "ok", passed,
           failed, opt.seed);
    return failed ? 1 : 0;
}
