/*
 * radix_impl.h -- INTERNAL to radix.c: the element loops of the LSD radix sort, written once
 * and compiled once per (key width, value width, key family). radix.c includes this file
 * twelve times with
 *   RI_KBITS   32 or 64          key width in bits
 *   RI_VBYTES  0, 4 or 8         value width in bytes (0: keys only)
 *   RI_FLOAT   0 or 1            integer keys (u, i) or float keys (f)
 * and gets the functions <name>_<RI_KBITS>_<RI_VBYTES>_<RI_FLOAT> plus a table
 * ri_ops_<K>_<V>_<F>. Everything here is static; radix.c holds the plan and the driver.
 *
 * The radix keys come from rkey.h (branch-free; rplan.xor_mask holds the run-time part).
 */
#define RI_CAT_(a, b, c, d) a##_##b##_##c##_##d
#define RI_CAT(a, b, c, d) RI_CAT_(a, b, c, d)
#define RI_FN(name) RI_CAT(name, RI_KBITS, RI_VBYTES, RI_FLOAT)

#if RI_KBITS == 32
#define RI_KT uint32_t
#else
#define RI_KT uint64_t
#endif
#if RI_VBYTES == 4
#define RI_VT uint32_t
#define RI_VT_OR_VOID uint32_t
#elif RI_VBYTES == 8
#define RI_VT uint64_t
#define RI_VT_OR_VOID uint64_t
#else
#define RI_VT_OR_VOID void
#endif

#if RI_KBITS == 32
#define RI_RK(b) gpusort__cpu_rk32((b), xm, RI_FLOAT)
#else
#define RI_RK(b) gpusort__cpu_rk64((b), xm, RI_FLOAT)
#endif

/* Histograms of every digit of chunk t of the input, in one read of the keys. */
static void RI_FN(hist_all)(void *arg, size_t t)
{
    rplan *p = (rplan *)arg;
    const RI_KT *k = (const RI_KT *)p->job->keys_in;
    const RI_KT xm = (RI_KT)p->xor_mask;
    const unsigned bits = (unsigned)p->bits;
    const int nd = p->ndigits;
    const size_t radix = p->radix;
    const RI_KT mask = (RI_KT)(radix - 1);
    size_t *h = p->hist + t * (size_t)nd * radix;
    memset(h, 0, (size_t)nd * radix * sizeof *h);
    size_t lo = p->bounds[t], hi = p->bounds[t + 1];
#if RI_KBITS == 32
    if (nd == 3 && bits == 11 && hi - lo <= UINT32_MAX) {
        /* The common case, unrolled: 3 digits of 32-bit keys, counted in 32-bit counters
         * (3 x 8 KiB stay in the L1 cache, where 3 x 16 KiB of size_t did not), then widened. */
        uint32_t c[3][2048];
        memset(c, 0, sizeof c);
        for (size_t i = lo; i < hi; i++) {
            RI_KT r = RI_RK(k[i]);
            c[0][r & mask]++;
            c[1][(r >> 11) & mask]++;
            c[2][r >> 22]++;
        }
        for (int d = 0; d < 3; d++)
            for (size_t b = 0; b < radix; b++) h[(size_t)d * radix + b] = c[d][b];
        return;
    }
#endif
#define RI_HIST_ALL(ND)                                                                       \
    for (size_t i = lo; i < hi; i++) {                                                        \
        RI_KT r = RI_RK(k[i]);                                                                \
        for (int d = 0; d < (ND); d++)                                                        \
            h[(size_t)d * radix + (size_t)((r >> (d * bits)) & mask)]++;                      \
    }
    switch (nd) {                  /* constant digit counts: the inner loop unrolls */
    case 4: RI_HIST_ALL(4); break;  /* 32-bit keys, 8-bit digits */
    case 6: RI_HIST_ALL(6); break;  /* 64-bit keys, 11-bit digits */
    case 8: RI_HIST_ALL(8); break;  /* 64-bit keys, 8-bit digits */
    default: RI_HIST_ALL(nd); break;
    }
#undef RI_HIST_ALL
}

/* Histogram of the current pass's digit over chunk t of the pass's source. */
static void RI_FN(count)(void *arg, size_t t)
{
    rplan *p = (rplan *)arg;
    const RI_KT *k = (const RI_KT *)p->src_k;
    const RI_KT xm = (RI_KT)p->xor_mask;
    const unsigned shift = (unsigned)p->shift;
    const RI_KT mask = (RI_KT)(p->radix - 1);
    size_t *h = p->offs + t * p->radix;
    memset(h, 0, p->radix * sizeof *h);
    size_t lo = p->bounds[t], hi = p->bounds[t + 1];
    for (size_t i = lo; i < hi; i++) h[(size_t)((RI_RK(k[i]) >> shift) & mask)]++;
}

/* Stable scatter of chunk t: each element goes to offs[t][digit]++ of the destination. The
 * offsets of thread t start after those of threads < t for the same digit, so the threads
 * write disjoint slots and the whole pass is stable. */
static void RI_FN(scatter)(void *arg, size_t t)
{
    rplan *p = (rplan *)arg;
    const RI_KT *sk = (const RI_KT *)p->src_k;
    RI_KT *dk = (RI_KT *)p->dst_k;
    const RI_KT xm = (RI_KT)p->xor_mask;
    const unsigned shift = (unsigned)p->shift;
    const RI_KT mask = (RI_KT)(p->radix - 1);
    size_t *off = p->offs + t * p->radix;
    size_t lo = p->bounds[t], hi = p->bounds[t + 1];
#if RI_VBYTES
    const RI_VT *sv = (const RI_VT *)p->src_v;
    RI_VT *dv = (RI_VT *)p->dst_v;
    if (!sv) {                             /* argsort: the values are the input positions */
        const uint64_t base = p->job->index_base;
        for (size_t i = lo; i < hi; i++) {
            RI_KT b = sk[i];
            size_t o = off[(size_t)((RI_RK(b) >> shift) & mask)]++;
            dk[o] = b;
            dv[o] = (RI_VT)(base + i);
        }
        return;
    }
    for (size_t i = lo; i < hi; i++) {
        RI_KT b = sk[i];
        size_t o = off[(size_t)((RI_RK(b) >> shift) & mask)]++;
        dk[o] = b;
        dv[o] = sv[i];
    }
#else
    for (size_t i = lo; i < hi; i++) {
        RI_KT b = sk[i];
        dk[off[(size_t)((RI_RK(b) >> shift) & mask)]++] = b;
    }
#endif
}

/* scatter_wc (radix_wc.h): the scatter through write-combining buffers, compiled twice on
 * x86-64: with AVX-512 (one 64-byte non-temporal store per line, chosen at run time when the
 * CPU has it) and with SSE2 (four 16-byte ones). */
#if RI_HAVE_AVX512_TARGET
#pragma GCC push_options
#pragma GCC target("avx512f")
#define RI_STORE_LINE store_line_avx512
#define RI_WC_NAME scatter_wc512
#include "radix_wc.h"
#undef RI_STORE_LINE
#undef RI_WC_NAME
#pragma GCC pop_options
#endif
#define RI_STORE_LINE store_line
#define RI_WC_NAME scatter_wc
#include "radix_wc.h"
#undef RI_STORE_LINE
#undef RI_WC_NAME

/* Insertion sort, defined below. */
static void RI_FN(insertion)(void *k_, void *v_, size_t n, RI_KT xm);

/* In-cache MSD radix sort of elements [lo, hi) that agree on every bit from `shift` up, for
 * buckets with many bits left (64-bit keys): LSD would pass over all of them, while here each
 * level splits by the next 8 bits and stops as soon as a piece has <= INSERTION_MAX elements
 * (insertion sort) or no bits are left (all keys equal). Three arrays of the bucket's size,
 * addressed with the same positions: B (where the bucket arrived), A (its final place) and T
 * (scratch). Data in X go to A if X is B or T, else to T; the result always ends in A. Each
 * scatter is stable and so is the insertion sort, so the sort is stable. A digit that is the
 * same for the whole piece moves nothing. Recursion depth <= 8 (64 bits / 8). */
static void RI_FN(msd_local)(RI_KT *xk, RI_VT_OR_VOID *xv, RI_KT *ak, RI_VT_OR_VOID *av,
                             RI_KT *tk, RI_VT_OR_VOID *tv, size_t lo, size_t hi, int shift,
                             RI_KT xm)
{
    const size_t n = hi - lo;
    if (n <= INSERTION_MAX || shift <= 0) {
        if (xk != ak) {
            memcpy(ak + lo, xk + lo, n * sizeof *ak);
#if RI_VBYTES
            memcpy(av + lo, xv + lo, n * sizeof *av);
#endif
        }
#if RI_VBYTES
        if (shift > 0) RI_FN(insertion)(ak + lo, av + lo, n, xm);
#else
        if (shift > 0) RI_FN(insertion)(ak + lo, NULL, n, xm);
#endif
        return;
    }
    const int w = shift < 8 ? shift : 8, sh = shift - w;
    const RI_KT mask = (RI_KT)((1u << w) - 1);
    uint32_t cnt[256] = {0}, start[257];
    for (size_t i = lo; i < hi; i++) cnt[(size_t)((RI_RK(xk[i]) >> sh) & mask)]++;
    uint32_t sum = 0;
    size_t buckets = (size_t)1 << w, used = 0;
    for (size_t b = 0; b < buckets; b++) {
        start[b] = sum;
        used += cnt[b] != 0;
        sum += cnt[b];
    }
    start[buckets] = sum;
    if (used == 1) {               /* the same digit everywhere: nothing to move */
        RI_FN(msd_local)(xk, xv, ak, av, tk, tv, lo, hi, sh, xm);
        return;
    }
    RI_KT *yk = xk == ak ? tk : ak;
#if RI_VBYTES
    RI_VT *yv = xk == ak ? tv : av;
#else
    RI_VT_OR_VOID *yv = NULL;
#endif
    memcpy(cnt, start, buckets * sizeof *cnt);     /* cnt becomes the running offsets */
    for (size_t i = lo; i < hi; i++) {
        RI_KT b = xk[i];
        uint32_t o = cnt[(size_t)((RI_RK(b) >> sh) & mask)]++;
        yk[lo + o] = b;
#if RI_VBYTES
        yv[lo + o] = xv[i];
#endif
    }
    for (size_t b = 0; b < buckets; b++)
        if (start[b + 1] > start[b])
            RI_FN(msd_local)(yk, yv, ak, av, tk, tv, lo + start[b], lo + start[b + 1], sh, xm);
}

/* One bucket [lo, hi) of the MSD split (radix.c, "hybrid"), alone and single-threaded: it
 * sits in B (scratch), and ends sorted in A (the output) at the same positions. The bucket's
 * keys share every bit from msd_shift up; LSD passes over the bits below, with digits of 8
 * bits for small buckets (histogram set-up would dominate) and 11 for larger ones, all
 * histograms in one read of the bucket and passes whose digit is constant skipped. Passes
 * ping-pong between A and tmp so that the last one writes A. cnt has room for 8 x 2048
 * counters (32-bit: a bucket is far smaller than 2^32 elements). */
static void RI_FN(bucket_sort)(const rplan *p, size_t lo, size_t hi, void *tmp_k, void *tmp_v,
                               void *tmp2_k, void *tmp2_v, uint32_t *cnt)
{
    const RI_KT xm = (RI_KT)p->xor_mask;
    const size_t nb = hi - lo;
    const RI_KT *sk = (const RI_KT *)p->bk + lo;
    RI_KT *ak = (RI_KT *)p->ak + lo;
#if RI_VBYTES
    const RI_VT *sv = (const RI_VT *)p->bv + lo;
    RI_VT *av = (RI_VT *)p->av + lo;
#endif
    if (nb <= INSERTION_MAX) {
        memcpy(ak, sk, nb * sizeof *ak);
#if RI_VBYTES
        memcpy(av, sv, nb * sizeof *av);
        RI_FN(insertion)(ak, av, nb, xm);
#else
        RI_FN(insertion)(ak, NULL, nb, xm);
#endif
        return;
    }
    if (p->msd_shift > 3 * 11) {   /* many bits left (64-bit keys): MSD in cache */
#if RI_VBYTES
        RI_FN(msd_local)((RI_KT *)sk, (RI_VT *)sv, ak, av, (RI_KT *)tmp_k, (RI_VT *)tmp_v, 0, nb,
                         p->msd_shift, xm);
#else
        RI_FN(msd_local)((RI_KT *)sk, NULL, ak, NULL, (RI_KT *)tmp_k, NULL, 0, nb, p->msd_shift,
                         xm);
#endif
        return;
    }
    const unsigned lb = nb < BUCKET_SMALL ? 8 : 11;
    const size_t radix = (size_t)1 << lb;
    const RI_KT mask = (RI_KT)(radix - 1);
    const int nd = (int)((p->msd_shift + lb - 1) / lb);
    memset(cnt, 0, (size_t)nd * radix * sizeof *cnt);
    /* constant digit counts for the common cases, so the compiler unrolls the inner loop */
#define RI_BUCKET_HIST(ND)                                                                    \
    for (size_t i = 0; i < nb; i++) {                                                         \
        RI_KT r = RI_RK(sk[i]);                                                               \
        for (int d = 0; d < (ND); d++)                                                        \
            cnt[(size_t)d * radix + (size_t)((r >> (d * lb)) & mask)]++;                      \
    }
    switch (nd) {
    case 2: RI_BUCKET_HIST(2); break;
    case 3: RI_BUCKET_HIST(3); break;
    case 5: RI_BUCKET_HIST(5); break;
    case 7: RI_BUCKET_HIST(7); break;
    default: RI_BUCKET_HIST(nd); break;
    }
#undef RI_BUCKET_HIST
    int passes[8], mp = 0;
    for (int d = 0; d < nd; d++) {
        const uint32_t *c = cnt + (size_t)d * radix;
        size_t b = 0;
        while (c[b] == 0) b++;
        if (c[b] != nb) passes[mp++] = d;
    }
    const RI_KT *src_k = sk;
#if RI_VBYTES
    const RI_VT *src_v = sv;
#endif
    if (mp == 0) {
        memcpy(ak, sk, nb * sizeof *ak);
#if RI_VBYTES
        memcpy(av, sv, nb * sizeof *av);
#endif
        return;
    }
    /* A large bucket's last pass scatters into a second in-cache buffer, copied out to A with
     * non-temporal stores: scattered stores straight to A (main memory) each miss and read the
     * line for ownership first; the copy writes whole lines once. (perf, 2^25 u32, one
     * thread: the stores of the final pass were the hottest instructions of the sort.) */
    const int stream = tmp2_k != NULL && nb >= STREAM_MIN;
    RI_KT *fk = stream ? (RI_KT *)tmp2_k : ak;
#if RI_VBYTES
    RI_VT *fv = stream ? (RI_VT *)tmp2_v : av;
#endif
    for (int j = 0; j < mp; j++) {
        int to_a = (mp - 1 - j) % 2 == 0;
        RI_KT *dk = to_a ? fk : (RI_KT *)tmp_k;
#if RI_VBYTES
        RI_VT *dv = to_a ? fv : (RI_VT *)tmp_v;
#endif
        uint32_t *c = cnt + (size_t)passes[j] * radix, sum = 0;
        for (size_t b = 0; b < radix; b++) {
            uint32_t x = c[b];
            c[b] = sum;
            sum += x;
        }
        const unsigned shift = (unsigned)passes[j] * lb;
        for (size_t i = 0; i < nb; i++) {
            RI_KT b = src_k[i];
            uint32_t o = c[(size_t)((RI_RK(b) >> shift) & mask)]++;
            dk[o] = b;
#if RI_VBYTES
            dv[o] = src_v[i];
#endif
        }
        src_k = dk;
#if RI_VBYTES
        src_v = dv;
#endif
    }
    if (stream) {
        stream_copy(ak, fk, nb * sizeof *ak);
#if RI_VBYTES
        stream_copy(av, fv, nb * sizeof *av);
#endif
    }
}

/* Stable insertion sort of n elements in place (keys k, values v or NULL), for tiny n. */
static void RI_FN(insertion)(void *k_, void *v_, size_t n, RI_KT xm)
{
    RI_KT *k = (RI_KT *)k_;
#if RI_VBYTES
    RI_VT *v = (RI_VT *)v_;
#endif
    for (size_t i = 1; i < n; i++) {
        RI_KT b = k[i], r = RI_RK(b);
#if RI_VBYTES
        RI_VT x = v[i];
#endif
        size_t j = i;
        for (; j > 0 && RI_RK(k[j - 1]) > r; j--) {
            k[j] = k[j - 1];
#if RI_VBYTES
            v[j] = v[j - 1];
#endif
        }
        k[j] = b;
#if RI_VBYTES
        v[j] = x;
#endif
    }
}

static void RI_FN(insertion_any)(void *k, void *v, size_t n, uint64_t xm)
{
    RI_FN(insertion)(k, v, n, (RI_KT)xm);
}

static const rkernels RI_FN(ri_ops) = {RI_FN(hist_all), RI_FN(count), RI_FN(scatter),
                                       RI_FN(scatter_wc),
#if RI_HAVE_AVX512_TARGET
                                       RI_FN(scatter_wc512),
#else
                                       NULL,
#endif
                                       RI_FN(insertion_any), RI_FN(bucket_sort)};

#undef RI_RK
#undef RI_KT
#undef RI_VT
#undef RI_VT_OR_VOID
#undef RI_FN
#undef RI_CAT
#undef RI_CAT_
