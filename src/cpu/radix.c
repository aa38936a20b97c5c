/*
 * radix.c -- multithreaded radix sort: keys, pairs and argsort of all six key types,
 * ascending and descending, stable, in place or out of place.
 *
 * Exports gpusort__cpu_radix_sort (a checked gpusort__sort_args) and gpusort__cpu_radix_job (a
 * gpusort__cpu_job, see job.h; segmented.c calls it per segment). The element loops are in
 * radix_impl.h / radix_wc.h, compiled once per key width, value width and key family.
 *
 * ALGORITHM (LSD radix sort with an MSD split for large inputs; see Satish et al., "Fast sort
 * on CPUs and GPUs: a case for bandwidth oblivious SIMD sort", SIGMOD 2010, and Polychroniou &
 * Ross, "A comprehensive study of main-memory partitioning and its application to large-scale
 * comparison- and radix-sort", SIGMOD 2014):
 *   1. Radix keys. Each key's bits map to an unsigned "radix key" whose unsigned order is the
 *      gpusort order (src/keys.h, in branch-free form in rkey.h: sign flip for signed types;
 *      NaN/-0.0/negative handling for floats; complement for descending). It is computed on
 *      the fly from the original bits whenever a digit is needed: the sort moves the original
 *      bits and never rewrites them, so -0.0 and NaN payloads survive.
 *   2. One read of the keys builds, per thread chunk, the histograms of ALL digits (11-bit
 *      digits: 3 for 32-bit keys, 6 for 64-bit; 8-bit digits below 2^17 keys, where a
 *      2048-entry prefix sum per pass would show). A digit whose histogram has a single
 *      non-empty bucket is the same for every key: it is never sorted on (small integers,
 *      floats of one sign and exponent range, ... cost fewer passes). Inputs for the hybrid
 *      (4b) count only the highest digit first, and all digits only if that one is constant.
 *   3. A pass is a stable parallel scatter over fixed chunks [bounds[c], bounds[c+1]) of the
 *      source (8 per thread for large n, handed out dynamically); chunk c's offset for digit d
 *      is  (keys with digit < d)  +  (keys with digit d in chunks < c),
 *      so the chunks write disjoint slots and equal digits keep their input order. Counts of
 *      the chunk come from step 2 for a pass over the input, else from a counting read. Out of
 *      the caches (n >= 2^18) the scatter goes through software write-combining buffers with
 *      non-temporal stores (radix_wc.h): a plain scatter to 2048 places costs a cache miss
 *      and often a TLB miss per element.
 *   4a. n < 2^19 (the data fit the L2/L3 caches): LSD, lowest varying digit first. Passes
 *      ping-pong between the output and one scratch array so that the last pass writes the
 *      output (in place with an odd pass count, the last step is a parallel copy).
 *   4b. n >= 2^19, "hybrid": ONE pass on the highest varying digit moves the input into
 *      its buckets in scratch (B): up to 2048, but the highest 11-bit digit of a 32-bit key
 *      has 10 bits (1024 buckets) and of a 64-bit key 9 (512). Every bucket then holds keys
 *      that agree on all higher bits, and is sorted on the bits below by a single-threaded
 *      LSD radix sort (bucket_sort in radix_impl.h), in the L2 cache while buckets are small,
 *      from B into its final place in the output (A). Threads take buckets from a shared
 *      counter. A bucket larger than BIG_BUCKET elements or half a thread's share (skewed
 *      data) gets a radix sort of its own with all threads (this function, recursively: its
 *      highest varying digit is a lower one). That recursion is for skew: its set-up costs
 *      about a millisecond a call, so BIG_BUCKET sits well above the typical bucket
 *      (bench/results/cpu-2026-11-28.md).
 *      Main-memory traffic: the histogram read, one scatter, one read and one write of the
 *      buckets -- about half of what 3 LSD passes move for 32-bit keys.
 *   Tiny inputs (<= 32 elements) and tiny buckets use a stable insertion sort.
 *
 * Memory: scratch of n * (key + value) bytes (plus n * key bytes when keys_out is NULL: the
 * keys must travel with the values), in 2 MiB huge pages where available (memory.c); plus
 * T * (digits + 2) * 2048 counters, T * 256 KiB of write-combining buffers and, for the
 * hybrid, per thread one ping-pong buffer as large as the largest small bucket. Counters and
 * offsets are size_t (bucket-local ones 32-bit): n above 2^32 works.
 */
#include "cpu.h"
#include "job.h"
#include "rkey.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Round a byte count up to 64 (a cache line; also keeps 8-byte values aligned after keys). */
#define ALIGN64(x) (((x) + (size_t)63) & ~(size_t)63)

enum {
    INSERTION_MAX = 32,            /* insertion sort up to here: fewer moves than 2+ passes */
    SMALL_DIGIT_BITS = 8,          /* digits for n < LARGE_N: 256-entry histograms */
    LARGE_DIGIT_BITS = 11,         /* digits for n >= LARGE_N: 3 passes for 32-bit keys */
    MIN_PER_THREAD = 1 << 16,      /* below this many keys per thread, threads cost more than
                                      they save (thread start ~30 us = ~30k keys of work) */
    CHUNKS_PER_THREAD = 8,         /* chunks per thread for the parallel passes */
    MIN_PER_CHUNK = 1 << 18,       /* ... of at least this many keys (a chunk's counters and
                                      write-combining lines are ~0.5 MiB to set up) */
};
#define LARGE_N ((size_t)1 << 17)  /* 2048 buckets pay once they hold ~64 keys each */
#define WC_MIN_N ((size_t)1 << 18) /* write-combining pays once the data leave the L2 cache */
#define HYBRID_MIN ((size_t)1 << 19) /* MSD split + buckets in cache: pays out of the caches */
#define BIG_BUCKET ((size_t)1 << 22) /* larger buckets get all threads (4b): 16 MiB of u32 */
#define BUCKET_SMALL (1u << 14)      /* buckets below this use 8-bit digits */
#define STREAM_MIN 4096              /* buckets from here stream their last pass out (radix_impl.h):
                                        2 threads, 2^25 u32: 8-10% less wall time */

typedef struct rplan rplan;
typedef struct rkernels {
    void (*hist_all)(void *plan, size_t t);
    void (*count)(void *plan, size_t t);
    void (*scatter)(void *plan, size_t t);
    void (*scatter_wc)(void *plan, size_t t);
    void (*scatter_wc512)(void *plan, size_t t);  /* NULL unless built with AVX-512 code */
    void (*insertion)(void *keys, void *values, size_t n, uint64_t xor_mask);
    void (*bucket_sort)(const rplan *p, size_t lo, size_t hi, void *tmp_k, void *tmp_v,
                        void *tmp2_k, void *tmp2_v, uint32_t *cnt);
} rkernels;

struct rplan {
    const gpusort__cpu_job *job;
    int T;                         /* threads */
    size_t C;                      /* chunks of the data: T, or a few per thread when large */
    size_t bounds[1025];           /* chunk t is [bounds[t], bounds[t+1]) */
    int bits, ndigits;             /* digit width, digits per key */
    size_t radix;                  /* 1 << bits */
    size_t *hist;                  /* [C][ndigits][radix]: step 2 */
    size_t *offs;                  /* [C][radix]: counts, then offsets, of the current pass */
    uint64_t xor_mask;             /* see radix_impl.h: sign flip, descending complement */
    const struct rkernels *kr;
    int shift;                     /* the current pass's digit: (radix key >> shift) & mask */
    const void *src_k, *src_v;     /* src_v NULL with values: argsort, generate indices */
    void *dst_k, *dst_v;
    unsigned char *wc;             /* [C][radix] 64-byte lines of keys, then of values */
    size_t *wc_start;              /* [C][radix] first position of each chunk's region */
    /* the hybrid (MSD split, then buckets in cache) */
    void *ak, *av, *bk, *bv;       /* A: the output; B: scratch holding the buckets */
    size_t bstart[2049];           /* bucket b is [bstart[b], bstart[b+1]) of B */
    int msd_shift;                 /* the buckets' keys agree on every bit from here up */
    size_t big;                    /* a bucket above this size gets all threads */
    atomic_size_t next_bucket;     /* hand-out counter of the bucket workers */
    unsigned char *tmp;            /* [T] per-thread ping-pong and counters for buckets */
    size_t tmp_stride;
};

/* One 64-byte line to memory with non-temporal stores (dst 64-byte aligned, src any: an
 * unaligned load of aligned data costs nothing extra on x86-64). */
#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
static inline void store_line(void *dst, const void *src)
{
    __m128i *d = (__m128i *)dst;
    const __m128i *s = (const __m128i *)src;
    _mm_stream_si128(d, _mm_loadu_si128(s));
    _mm_stream_si128(d + 1, _mm_loadu_si128(s + 1));
    _mm_stream_si128(d + 2, _mm_loadu_si128(s + 2));
    _mm_stream_si128(d + 3, _mm_loadu_si128(s + 3));
}
/* Non-temporal stores are weakly ordered: fence before another thread reads the data. */
static inline void store_fence(void) { _mm_sfence(); }
#if defined(__GNUC__) && !defined(__clang__)
/* The same line in one 64-byte store, for CPUs with AVX-512 (checked at run time). */
#define RI_HAVE_AVX512_TARGET 1
#include <immintrin.h>
#pragma GCC push_options
#pragma GCC target("avx512f")
static inline void store_line_avx512(void *dst, const void *src)
{
    _mm512_stream_si512((__m512i *)dst, _mm512_load_si512(src));
}
#pragma GCC pop_options
#endif
#endif
#ifndef RI_HAVE_AVX512_TARGET
#define RI_HAVE_AVX512_TARGET 0
#endif
#if !(defined(__x86_64__) || defined(_M_X64))
static inline void store_line(void *dst, const void *src) { memcpy(dst, src, 64); }
static inline void store_fence(void) {}
#endif

/* Copy with non-temporal stores for the whole 64-byte lines of dst (any alignment of src). */
static void stream_copy(void *dst, const void *src, size_t bytes)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    size_t head = (size_t)(-(uintptr_t)d & 63);
    if (head > bytes) head = bytes;
    memcpy(d, s, head);
    for (d += head, s += head, bytes -= head; bytes >= 64; d += 64, s += 64, bytes -= 64)
        store_line(d, s);
    memcpy(d, s, bytes);
}

#define RI_KBITS 32
#define RI_VBYTES 0
#define RI_FLOAT 0
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 32
#define RI_VBYTES 0
#define RI_FLOAT 1
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 32
#define RI_VBYTES 4
#define RI_FLOAT 0
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 32
#define RI_VBYTES 4
#define RI_FLOAT 1
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 32
#define RI_VBYTES 8
#define RI_FLOAT 0
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 32
#define RI_VBYTES 8
#define RI_FLOAT 1
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 64
#define RI_VBYTES 0
#define RI_FLOAT 0
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 64
#define RI_VBYTES 0
#define RI_FLOAT 1
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 64
#define RI_VBYTES 4
#define RI_FLOAT 0
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 64
#define RI_VBYTES 4
#define RI_FLOAT 1
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 64
#define RI_VBYTES 8
#define RI_FLOAT 0
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT
#define RI_KBITS 64
#define RI_VBYTES 8
#define RI_FLOAT 1
#include "radix_impl.h"
#undef RI_KBITS
#undef RI_VBYTES
#undef RI_FLOAT

static const rkernels *kernels_for(const gpusort__cpu_job *job)
{
    static const rkernels *const table[2][3][2] = {
        {{&ri_ops_32_0_0, &ri_ops_32_0_1}, {&ri_ops_32_4_0, &ri_ops_32_4_1},
         {&ri_ops_32_8_0, &ri_ops_32_8_1}},
        {{&ri_ops_64_0_0, &ri_ops_64_0_1}, {&ri_ops_64_4_0, &ri_ops_64_4_1},
         {&ri_ops_64_8_0, &ri_ops_64_8_1}},
    };
    int is_float = job->key_type == GPUSORT_TYPE_F32 || job->key_type == GPUSORT_TYPE_F64;
    return table[job->key_bytes == 8][job->value_bytes / 4][is_float];
}

static uint64_t xor_mask_for(const gpusort__cpu_job *job)
{
    return gpusort__cpu_xor_mask(job->key_type, job->desc);
}

static int have_avx512(void)
{
#if RI_HAVE_AVX512_TARGET
    /* Every thread computes the same value; atomic, so that two first calls at once are no
     * data race (ThreadSanitizer reports the plain int's). */
    static atomic_int cached = -1;
    int c = atomic_load_explicit(&cached, memory_order_relaxed);
    if (c < 0) {
        c = __builtin_cpu_supports("avx512f") ? 1 : 0;
        atomic_store_explicit(&cached, c, memory_order_relaxed);
    }
    return c;
#else
    return 0;
#endif
}


/* ---- the driver ---- */

/* One parallel scatter pass on digit `digit` from (src_k, src_v) to (dst_k, dst_v). The first
 * pass over the input takes its per-thread counts from the all-digit histograms; later passes
 * count their source first. */
static void run_pass(rplan *p, const rkernels *kr, int digit, int first, const void *src_k,
                     const void *src_v, void *dst_k, void *dst_v)
{
    const size_t C = p->C, ks = (size_t)p->job->key_bytes;
    const size_t vs = (size_t)p->job->value_bytes;
    p->src_k = src_k;
    p->src_v = src_v;
    p->dst_k = dst_k;
    p->dst_v = dst_v;
    p->shift = digit * p->bits;
    if (first) {
        for (size_t t = 0; t < C; t++)
            memcpy(p->offs + t * p->radix, p->hist + (t * p->ndigits + digit) * p->radix,
                   p->radix * sizeof(size_t));
    } else {
        gpusort__cpu_parallel_for(p->T, C, kr->count, p);
    }
    /* counts -> offsets: digit-major, then thread order */
    size_t sum = 0;
    for (size_t b = 0; b < p->radix; b++)
        for (size_t t = 0; t < C; t++) {
            size_t c = p->offs[t * p->radix + b];
            p->offs[t * p->radix + b] = sum;
            sum += c;
        }
    int wc = p->wc && (uintptr_t)dst_k % ks == 0 && (!vs || (uintptr_t)dst_v % vs == 0);
    void (*scatter)(void *, size_t) = kr->scatter;
    if (wc) scatter = kr->scatter_wc512 && have_avx512() ? kr->scatter_wc512 : kr->scatter_wc;
    gpusort__cpu_parallel_for(p->T, C, scatter, p);
}

/* Worker t of the hybrid's bucket phase: takes buckets from a shared counter and sorts the
 * ones of at most p->big elements with its own ping-pong buffer and counters. */
static void bucket_worker(void *arg, size_t t)
{
    rplan *p = (rplan *)arg;
    const rkernels *kr = p->kr;
    unsigned char *mine = p->tmp + t * p->tmp_stride;
    size_t ks = (size_t)p->job->key_bytes, vs = (size_t)p->job->value_bytes;
    void *tk = mine + 8 * 2048 * sizeof(uint32_t);
    void *tv = (char *)tk + ALIGN64(p->big * ks);   /* 8-byte values need 8-byte alignment */
    void *tk2 = (char *)tv + ALIGN64(p->big * vs);  /* the last pass of large buckets */
    void *tv2 = (char *)tk2 + ALIGN64(p->big * ks);
    for (;;) {
        size_t b = atomic_fetch_add_explicit(&p->next_bucket, 1, memory_order_relaxed);
        if (b >= p->radix) break;
        size_t lo = p->bstart[b], hi = p->bstart[b + 1];
        if (hi > lo && hi - lo <= p->big)
            kr->bucket_sort(p, lo, hi, tk, tv, tk2, tv2, (uint32_t *)mine);
    }
    store_fence();   /* stream_copy's stores are seen before the caller reads the output */
}


/* Tiny inputs: copy to the output, then a stable insertion sort there. */
static gpusort_status sort_tiny(const gpusort__cpu_job *job, const rkernels *kr)
{
    uint64_t kbuf[INSERTION_MAX];  /* keys when the caller wants values only */
    size_t ks = (size_t)job->key_bytes, vs = (size_t)job->value_bytes;
    void *k = job->keys_out ? job->keys_out : (void *)kbuf;
    if (k != job->keys_in) memcpy(k, job->keys_in, job->n * ks);
    if (vs)
        gpusort__cpu_parallel_copy(1, job->values_out, job->values_in, job->n, vs,
                                   job->index_base);
    kr->insertion(k, vs ? job->values_out : NULL, job->n, xor_mask_for(job));
    return GPUSORT_STATUS_SUCCESS;
}

gpusort_status gpusort__cpu_radix_job(gpusort_ctx *ctx, const gpusort__cpu_job *job)
{
    const size_t n = job->n, ks = (size_t)job->key_bytes, vs = (size_t)job->value_bytes;
    const rkernels *kr = kernels_for(job);
    if (n <= INSERTION_MAX) return sort_tiny(job, kr);

    rplan *p = (rplan *)gpusort__calloc(1, sizeof *p);
    if (!p) return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "radix sort plan");
    gpusort_status st = GPUSORT_STATUS_SUCCESS;
    void *scr_k = NULL, *scr_v = NULL, *own_out_k = NULL;
    p->job = job;
    p->xor_mask = xor_mask_for(job);
    size_t T = n / MIN_PER_THREAD;
    if (T > (size_t)job->threads) T = (size_t)job->threads;
    if (T > 1024) T = 1024;
    if (T < 1) T = 1;
    p->T = (int)T;
    /* Chunks are handed out dynamically: with a few per thread, a thread that the OS
     * deschedules (a busy machine) holds the others back for less time. */
    size_t C = T > 1 ? T * CHUNKS_PER_THREAD : 1;
    if (C > n / MIN_PER_CHUNK) C = n / MIN_PER_CHUNK > T ? n / MIN_PER_CHUNK : T;
    if (C > 1024) C = 1024;
    p->C = C;
    for (size_t t = 0; t <= C; t++) p->bounds[t] = n / C * t + (n % C) * t / C;
    p->bits = n >= LARGE_N ? LARGE_DIGIT_BITS : SMALL_DIGIT_BITS;
    p->radix = (size_t)1 << p->bits;
    p->ndigits = (job->key_bytes * 8 + p->bits - 1) / p->bits;
    p->hist = (size_t *)gpusort__malloc(C * (size_t)p->ndigits * p->radix * sizeof(size_t));
    p->offs = (size_t *)gpusort__malloc(C * p->radix * sizeof(size_t));
    if (!p->hist || !p->offs) {
        st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                "radix sort: %zu bytes of histograms",
                                C * (p->ndigits + 1) * p->radix * sizeof(size_t));
        goto done;
    }

    /* Step 2: all histograms in one read; keep the digits that vary. Large inputs (the
     * hybrid, step 4b) first count only the highest digit -- one counter update per key instead
     * of one per digit (a third of the updates for 32-bit keys, a sixth for 64-bit ones): if it
     * varies, the hybrid sorts on it and needs no other histogram (the buckets count their own
     * digits). If every key agrees there (small integers, ...), all histograms follow. */
    int passes[64], m = 0, top_only = 0;
    if (n >= HYBRID_MIN) {
        const int top = p->ndigits - 1;
        p->src_k = job->keys_in;
        p->shift = top * p->bits;
        gpusort__cpu_parallel_for(p->T, C, kr->count, p);
        for (size_t b = 0; b < p->radix && !top_only; b++) {
            size_t c = 0;
            for (size_t t = 0; t < C; t++) c += p->offs[t * p->radix + b];
            if (c == n) break;     /* one bucket holds every key: the digit is constant */
            top_only = c != 0;     /* a first non-empty bucket short of n: it varies */
        }
        if (top_only) {
            for (size_t t = 0; t < C; t++)
                memcpy(p->hist + (t * p->ndigits + top) * p->radix, p->offs + t * p->radix,
                       p->radix * sizeof(size_t));
            passes[0] = top;       /* the hybrid below reads the highest varying digit only */
            m = 1;
        }
    }
    if (!top_only) gpusort__cpu_parallel_for(p->T, C, kr->hist_all, p);
    for (int d = 0; d < p->ndigits && !top_only; d++) {
        int varies = 1;
        for (size_t b = 0; b < p->radix; b++) {
            size_t c = 0;
            for (size_t t = 0; t < C; t++) c += p->hist[(t * p->ndigits + d) * p->radix + b];
            if (c == n) { varies = 0; break; }
            if (c) break;          /* a first non-empty bucket short of n: the digit varies */
        }
        if (varies) passes[m++] = d;
    }

    /* Buffers: the output, and scratch for the ping-pong. */
    void *out_k = job->keys_out;
    if (!out_k) out_k = own_out_k = gpusort__cpu_big_alloc(ctx, n * ks);
    int in_place = (job->keys_out && job->keys_out == job->keys_in) ||
                   (vs && job->values_in && job->values_out == job->values_in);
    const int hybrid = (m >= 2 && n >= HYBRID_MIN) || top_only;
    const int need_scratch = hybrid || m >= 2 || (m == 1 && in_place);
    if (need_scratch) {
        scr_k = gpusort__cpu_big_alloc(ctx, n * ks);
        if (vs) scr_v = gpusort__cpu_big_alloc(ctx, n * vs);
    }
    if (!out_k || (need_scratch && (!scr_k || (vs && !scr_v)))) {
        st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                "radix sort: %zu bytes of scratch for %zu keys",
                                n * (ks + vs) + (job->keys_out ? 0 : n * ks), n);
        goto done;
    }
    if (n >= WC_MIN_N) {           /* write-combining buffers; plain scatter if none */
        p->wc = (unsigned char *)gpusort__aligned_alloc(64, C * p->radix * 128);
        p->wc_start = (size_t *)gpusort__malloc(C * p->radix * sizeof(size_t));
        if (!p->wc || !p->wc_start) {
            free(p->wc);
            p->wc = NULL;
        }
    }
    if (m == 0) {                  /* every key equal: the input order is the sorted order */
        gpusort__cpu_parallel_copy(p->T, out_k, job->keys_in, n, ks, 0);
        if (vs) gpusort__cpu_parallel_copy(p->T, job->values_out, job->values_in, n, vs, job->index_base);
        goto done;
    }

    if (hybrid) {
        /* Hybrid: one MSD pass on the highest digit that varies (input -> B), then every
         * bucket sorted on the bits below it while it sits in cache (B -> A). */
        p->kr = kr;
        p->ak = out_k;
        p->av = vs ? job->values_out : NULL;
        p->bk = scr_k;
        p->bv = scr_v;
        int top = passes[m - 1];
        p->msd_shift = top * p->bits;
        size_t sum = 0, largest = 0;
        for (size_t b = 0; b < p->radix; b++) {
            size_t c = 0;
            for (size_t t = 0; t < C; t++) c += p->hist[(t * p->ndigits + top) * p->radix + b];
            p->bstart[b] = sum;
            sum += c;
        }
        p->bstart[p->radix] = sum;
        p->big = n / (2 * T);      /* a bucket that would leave threads idle: all threads */
        if (p->big > BIG_BUCKET) p->big = BIG_BUCKET;
        for (size_t b = 0; b < p->radix; b++) {
            size_t c = p->bstart[b + 1] - p->bstart[b];
            if (c <= p->big && c > largest) largest = c;
        }
        p->big = largest;          /* room for the largest small bucket only */
        p->tmp_stride = ALIGN64(8 * 2048 * sizeof(uint32_t) +
                                2 * (ALIGN64(largest * ks) + ALIGN64(largest * vs)));
        p->tmp = (unsigned char *)gpusort__malloc(T * p->tmp_stride);
        if (!p->tmp) {
            st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                    "radix sort: %zu bytes of bucket buffers", T * p->tmp_stride);
            goto done;
        }
        run_pass(p, kr, top, 1, job->keys_in, job->values_in, scr_k, scr_v);
        atomic_init(&p->next_bucket, 0);
        gpusort__cpu_parallel_for(p->T, T, bucket_worker, p);
        /* the big buckets' own sorts allocate their own buffers: give back ours first */
        free(p->tmp);
        free(p->wc);
        free(p->wc_start);
        free(p->hist);
        p->tmp = NULL;
        p->wc = NULL;
        p->wc_start = NULL;
        p->hist = NULL;
        for (size_t b = 0; b < p->radix && st == GPUSORT_STATUS_SUCCESS; b++) {
            size_t lo = p->bstart[b], c = p->bstart[b + 1] - lo;
            if (c <= p->big) continue;
            /* a big bucket: a radix sort of its own, all threads (B -> A) */
            gpusort__cpu_job sub = *job;
            sub.n = c;
            sub.keys_in = (const char *)scr_k + lo * ks;
            sub.keys_out = (char *)out_k + lo * ks;
            sub.values_in = vs ? (const char *)scr_v + lo * vs : NULL;
            sub.values_out = vs ? (char *)job->values_out + lo * vs : NULL;
            st = gpusort__cpu_radix_job(ctx, &sub);
        }
        goto done;
    }

    const void *src_k = job->keys_in, *src_v = job->values_in;
    for (int j = 0; j < m; j++) {
        /* Out of place, the last pass writes the output and the others alternate backwards
         * from it; in place, pass 0 must write scratch, and an odd count ends with a copy. */
        int to_out = in_place ? (j % 2 == 1) : ((m - 1 - j) % 2 == 0);
        void *dst_k = to_out ? out_k : scr_k;
        void *dst_v = vs ? (to_out ? job->values_out : scr_v) : NULL;
        run_pass(p, kr, passes[j], j == 0, src_k, src_v, dst_k, dst_v);
        src_k = dst_k;
        src_v = dst_v;
    }
    if (src_k != out_k) {          /* in place with an odd number of passes */
        gpusort__cpu_parallel_copy(p->T, out_k, src_k, n, ks, 0);
        if (vs) gpusort__cpu_parallel_copy(p->T, job->values_out, src_v, n, vs, 0);
    }

done:
    gpusort__cpu_big_free(ctx, scr_k, n * ks);
    gpusort__cpu_big_free(ctx, scr_v, n * vs);
    gpusort__cpu_big_free(ctx, own_out_k, n * ks);
    free(p->hist);
    free(p->offs);
    free(p->wc);
    free(p->wc_start);
    free(p->tmp);
    free(p);
    return st;
}

gpusort_status gpusort__cpu_radix_sort(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    gpusort__cpu_job job;
    gpusort__cpu_job_from_desc(&job, d, gpusort__threads(ctx));
    return gpusort__cpu_radix_job(ctx, &job);
}
