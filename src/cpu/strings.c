/*
 * strings.c -- stable sort of byte strings on the CPU (memcmp order, a proper prefix first).
 *
 * Exports gpusort__cpu_sort_strings (cpu.h), the CPU backend's sort_strings method; records.c
 * sorts records through it too. Arguments arrive checked by the core (src/gpusort.c).
 *
 * ALGORITHM: radix sort of packed prefixes, then only the runs that still tie go one level deeper
 * (the plan of Deshpande and Narayanan, "Can GPUs sort strings efficiently?", HiPC 2013, which the
 * CUDA backend follows too). Cost is proportional to the distinguishing prefix of each string,
 * not to the longest string.
 *
 *   1. Key at depth d. String s gets one 64-bit key: the 7 bytes s[d .. d+7) big-endian in the
 *      top 56 bits (zero padded past the end) and a code in the low 8 bits: min(len - d, 8),
 *      i.e. 0..7 when the string ends within these 7 bytes (after that many), 8 when it goes on.
 *      Comparing keys as unsigned integers is comparing the strings from depth d with memcmp,
 *      except that equal keys with code 8 must be compared again from depth d + 7 (equal keys
 *      with a code below 8 are equal strings). The code is what puts "ab" before "ab\0": the
 *      data parts tie (zero padding), the codes are 2 < 3.
 *        "abc"      -> 61 62 63 00 00 00 00 | 03
 *        "abcdefgh" -> 61 62 63 64 65 66 67 | 08   (continues: "h" is compared at depth 7)
 *   2. The (key, index) pairs are radix-sorted on 8-bit digits, stably: big ranges by a
 *      parallel LSD sort, ranges that fit in cache by an MSD sort (radix_serial) that stops at
 *      small sub-buckets. Digits that are the same in every key of the range (from the AND and
 *      OR of the keys) are skipped.
 *   3. Runs of equal keys with code 8 are re-keyed at depth d + 7 and sorted again, until every
 *      run is resolved. A run whose keys are all equal jumps straight past the common prefix of
 *      its strings. Runs below SMALL_RUN strings are finished by a merge sort comparing the
 *      remainders with memcmp (cheaper than 256-bucket passes on a few strings).
 *   Descending: keys are complemented and memcmp results negated; an ascending stable sort of
 *   complemented keys is exactly the stable descending sort (ties keep their input order).
 *
 * Parallelism (gpusort__cpu_parallel_for): the first level is keyed by all threads and
 * distributed by one parallel, stable MSD pass on its most significant varying byte, or on
 * that byte and the next for 2^20 strings and more (msd_top);
 * the buckets (a few MB each) are then handed out to threads one at a time and each is sorted
 * and resolved in cache by one thread. Buckets bigger than half a thread's share, and every
 * deeper run of at least BIG_RUN strings, are sorted by all threads with a parallel LSD pass
 * per varying byte (per-thread histograms, then each thread scatters its slice: stable). The
 * remaining smaller runs are shared out between threads by position; each thread resolves its
 * runs with a private stack (no recursion on depth, so a run of long equal strings cannot
 * overflow the C stack; msd_radix recurses at most 8 levels, one per key byte).
 *
 * Memory: 24 bytes per string (key, scratch key, scratch index) besides perm_out.
 */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

/* Below this many strings a run is merge-sorted with memcmp: a radix pass costs 256 counters
 * plus a prefix sum, more than log2(256) = 8 comparisons per string. */
#define SMALL_RUN 256
/* Runs of at least this many strings are sorted by all threads (thread start-up is ~50 us,
 * worth it from ~2^16 strings). */
#define BIG_RUN ((size_t)1 << 16)
/* The key code that means "the string continues past these 7 bytes". */
#define CODE_MORE 8u

typedef struct sctx {
    const uint8_t *bytes;
    const uint64_t *off;
    int desc;
    uint64_t *key, *key2, *idx, *idx2;   /* key/scratch and index/scratch, n entries each */
    int threads;
} sctx;

static inline uint64_t load_be64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
}

/* The key of string i at depth d (see the top of the file). */
static inline uint64_t chunk_key(const sctx *s, uint64_t i, uint64_t d)
{
    uint64_t b = s->off[i] + d, e = s->off[i + 1];
    uint64_t len = e > b ? e - b : 0;
    uint64_t k;
    if (len >= 8) {
        k = (load_be64(s->bytes + b) & ~(uint64_t)0xff) | CODE_MORE;
    } else {
        k = len;
        const uint8_t *p = s->bytes + b;
        for (uint64_t j = 0; j < len && j < 7; j++) k |= (uint64_t)p[j] << (56 - 8 * j);
    }
    return s->desc ? ~k : k;
}

static inline int key_more(const sctx *s, uint64_t k)
{
    return ((s->desc ? ~k : k) & 0xff) == CODE_MORE;
}

/* memcmp order of strings a and b from depth d (both at least d long); negated if desc. */
static inline int cmp_from(const sctx *s, uint64_t a, uint64_t b, uint64_t d)
{
    uint64_t la = s->off[a + 1] - s->off[a] - d, lb = s->off[b + 1] - s->off[b] - d;
    int c = memcmp(s->bytes + s->off[a] + d, s->bytes + s->off[b] + d, la < lb ? la : lb);
    if (!c) c = (la > lb) - (la < lb);
    return s->desc ? -c : c;
}

/* Length of the common prefix of strings a and b from depth d. */
static uint64_t lcp_from(const sctx *s, uint64_t a, uint64_t b, uint64_t d)
{
    uint64_t la = s->off[a + 1] - s->off[a] - d, lb = s->off[b + 1] - s->off[b] - d;
    uint64_t m = la < lb ? la : lb, i = 0;
    const uint8_t *pa = s->bytes + s->off[a] + d, *pb = s->bytes + s->off[b] + d;
    while (i + 8 <= m) {
        uint64_t x, y;
        memcpy(&x, pa + i, 8);
        memcpy(&y, pb + i, 8);
        if (x != y) break;
        i += 8;
    }
    while (i < m && pa[i] == pb[i]) i++;
    return i;
}

/* ---- stable merge sort of an index range by cmp_from (small runs) ---- */

static void insertion_sort(const sctx *s, uint64_t *v, size_t n, uint64_t d)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = v[i];
        size_t j = i;
        while (j > 0 && cmp_from(s, v[j - 1], x, d) > 0) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
}

static void merge_sort(const sctx *s, uint64_t *v, uint64_t *tmp, size_t n, uint64_t d)
{
    if (n <= 16) { insertion_sort(s, v, n, d); return; }
    size_t h = n / 2;
    merge_sort(s, v, tmp, h, d);
    merge_sort(s, v + h, tmp + h, n - h, d);
    if (cmp_from(s, v[h - 1], v[h], d) <= 0) return;      /* already in order */
    memcpy(tmp, v, h * sizeof *v);
    size_t i = 0, j = h, k = 0;
    while (i < h && j < n) v[k++] = cmp_from(s, v[j], tmp[i], d) < 0 ? v[j++] : tmp[i++];
    while (i < h) v[k++] = tmp[i++];
}

/* ---- serial MSD radix sort of (key, idx)[lo, hi), scratch at the same positions ----
 * Used on ranges that fit in cache (a bucket of the first level, or a run). Most significant
 * varying byte first: a stable counting scatter into scratch and back, then each sub-bucket on
 * the next byte; sub-buckets of at most MSD_SMALL entries are finished by insertion sort (also
 * stable). A digit that is the same for the whole sub-range costs one count and is skipped.
 * Words of 62 symbols: two passes over an 80 K-string bucket leave sub-buckets of ~20. */
#define MSD_SMALL 48

static void msd_radix(uint64_t *k, uint64_t *v, uint64_t *k2, uint64_t *v2, size_t n, int shift)
{
    if (n <= MSD_SMALL) {
        for (size_t i = 1; i < n; i++) {
            uint64_t x = k[i], y = v[i];
            size_t j = i;
            while (j > 0 && k[j - 1] > x) { k[j] = k[j - 1]; v[j] = v[j - 1]; j--; }
            k[j] = x;
            v[j] = y;
        }
        return;
    }
    size_t cnt[256];
    for (; shift >= 0; shift -= 8) {
        memset(cnt, 0, sizeof cnt);
        for (size_t i = 0; i < n; i++) cnt[(k[i] >> shift) & 0xff]++;
        if (cnt[(k[0] >> shift) & 0xff] != n) break;      /* this digit varies */
    }
    if (shift < 0) return;                                /* all keys equal */
    size_t pos[256], sum = 0;
    for (int b = 0; b < 256; b++) { pos[b] = sum; sum += cnt[b]; }
    for (size_t i = 0; i < n; i++) {
        size_t p = pos[(k[i] >> shift) & 0xff]++;
        k2[p] = k[i];
        v2[p] = v[i];
    }
    memcpy(k, k2, n * sizeof *k);
    memcpy(v, v2, n * sizeof *v);
    if (shift == 0) return;
    size_t at = 0;
    for (int b = 0; b < 256; b++) {
        if (cnt[b] > 1) msd_radix(k + at, v + at, k2 + at, v2 + at, cnt[b], shift - 8);
        at += cnt[b];
    }
}

static void radix_serial(sctx *s, size_t lo, size_t hi, uint64_t and_k, uint64_t or_k)
{
    uint64_t diff = and_k ^ or_k;
    if (!diff) return;
    int shift = (63 - __builtin_clzll(diff)) & ~7;
    msd_radix(s->key + lo, s->idx + lo, s->key2 + lo, s->idx2 + lo, hi - lo, shift);
}

/* ---- parallel keying and radix sort of one range [lo, hi) ---- */

typedef struct pjob {
    sctx *s;
    size_t lo, hi;
    uint64_t depth;
    int parts;
    int rekey;                  /* 0: the keys are in place already, only AND/OR them */
    uint64_t *and_k, *or_k;     /* per part */
    size_t *cnt;                /* per part: 1 << bits counters each */
    int shift, bits;            /* the digit: bits bits of the key from bit shift */
    const uint64_t *k, *v;      /* pass source */
    uint64_t *k2, *v2;          /* pass destination (absolute arrays, offset by lo) */
} pjob;

static void part_range(const pjob *j, size_t i, size_t *a, size_t *b)
{
    size_t n = j->hi - j->lo;
    *a = j->lo + n * i / (size_t)j->parts;
    *b = j->lo + n * (i + 1) / (size_t)j->parts;
}

/* Key every string of the part at j->depth; with idx_init, also set idx[i] = i (first level). */
static void pkey_task(void *arg, size_t i)
{
    pjob *j = (pjob *)arg;
    sctx *s = j->s;
    size_t a, b;
    part_range(j, i, &a, &b);
    uint64_t an = ~(uint64_t)0, o = 0;
    for (size_t x = a; x < b; x++) {
        uint64_t k = j->rekey ? chunk_key(s, s->idx[x], j->depth) : s->key[x];
        s->key[x] = k;
        an &= k;
        o |= k;
    }
    j->and_k[i] = an;
    j->or_k[i] = o;
}

static void pcount_task(void *arg, size_t i)
{
    pjob *j = (pjob *)arg;
    size_t a, b;
    part_range(j, i, &a, &b);
    size_t *c = j->cnt + (i << j->bits);
    uint64_t mask = ((uint64_t)1 << j->bits) - 1;
    memset(c, 0, ((size_t)1 << j->bits) * sizeof *c);
    for (size_t x = a; x < b; x++) c[(j->k[x] >> j->shift) & mask]++;
}

static void pscatter_task(void *arg, size_t i)
{
    pjob *j = (pjob *)arg;
    size_t a, b;
    part_range(j, i, &a, &b);
    size_t *c = j->cnt + (i << j->bits);
    uint64_t mask = ((uint64_t)1 << j->bits) - 1;
    for (size_t x = a; x < b; x++) {
        size_t p = c[(j->k[x] >> j->shift) & mask]++;
        j->k2[p] = j->k[x];
        j->v2[p] = j->v[x];
    }
}

typedef struct copy_job {
    uint64_t *dst[2];
    const uint64_t *src[2];
    size_t n;
    int parts;
} copy_job;

static void pcopy_task(void *arg, size_t i)
{
    copy_job *c = (copy_job *)arg;
    size_t a = c->n * i / (size_t)c->parts, b = c->n * (i + 1) / (size_t)c->parts;
    for (int w = 0; w < 2; w++) memcpy(c->dst[w] + a, c->src[w] + a, (b - a) * sizeof(uint64_t));
}

/* Key [lo, hi) at depth d and radix-sort it with all threads. Returns a status. */
static gpusort_status sort_level_parallel(sctx *s, size_t lo, size_t hi, uint64_t d, int rekey)
{
    int parts = s->threads;
    pjob j;
    memset(&j, 0, sizeof j);
    j.s = s;
    j.lo = lo;
    j.hi = hi;
    j.depth = d;
    j.parts = parts;
    j.rekey = rekey;
    j.bits = 8;
    j.and_k = (uint64_t *)gpusort__malloc(2 * (size_t)parts * sizeof(uint64_t));
    j.cnt = (size_t *)gpusort__malloc((size_t)parts * 256 * sizeof *j.cnt);
    if (!j.and_k || !j.cnt) {
        free(j.and_k);
        free(j.cnt);
        return GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
    }
    j.or_k = j.and_k + parts;
    gpusort_status st = gpusort__cpu_parallel_for(parts, (size_t)parts, pkey_task, &j);
    uint64_t an = ~(uint64_t)0, o = 0;
    for (int p = 0; p < parts; p++) { an &= j.and_k[p]; o |= j.or_k[p]; }
    uint64_t diff = an ^ o;
    const uint64_t *k = s->key, *v = s->idx;
    uint64_t *k2 = s->key2, *v2 = s->idx2;
    for (int shift = 0; shift < 64 && st == GPUSORT_STATUS_SUCCESS; shift += 8) {
        if (!((diff >> shift) & 0xff)) continue;
        j.shift = shift;
        j.k = k;
        j.v = v;
        j.k2 = k2;
        j.v2 = v2;
        st = gpusort__cpu_parallel_for(parts, (size_t)parts, pcount_task, &j);
        /* Exclusive prefix over (digit, part): part p's digit-b slots follow parts < p. */
        size_t sum = lo;
        for (int b = 0; b < 256; b++)
            for (int p = 0; p < parts; p++) {
                size_t c = j.cnt[(size_t)p * 256 + (size_t)b];
                j.cnt[(size_t)p * 256 + (size_t)b] = sum;
                sum += c;
            }
        if (st == GPUSORT_STATUS_SUCCESS)
            st = gpusort__cpu_parallel_for(parts, (size_t)parts, pscatter_task, &j);
        const uint64_t *tk = k, *tv = v;
        k = k2;
        v = v2;
        k2 = (uint64_t *)tk;
        v2 = (uint64_t *)tv;
    }
    if (st == GPUSORT_STATUS_SUCCESS && k != s->key) {
        copy_job c = {{s->key + lo, s->idx + lo}, {k + lo, v + lo}, hi - lo, parts};
        st = gpusort__cpu_parallel_for(parts, (size_t)parts, pcopy_task, &c);
    }
    free(j.and_k);
    free(j.cnt);
    return st;
}

/* ---- resolving runs of equal keys ---- */

typedef struct run { size_t lo, hi; uint64_t depth; } run;

typedef struct run_list { run *r; size_t n, cap; } run_list;

static int run_push(run_list *l, size_t lo, size_t hi, uint64_t depth)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        run *r = (run *)gpusort__realloc(l->r, cap * sizeof *r);
        if (!r) return -1;
        l->r = r;
        l->cap = cap;
    }
    l->r[l->n++] = (run){lo, hi, depth};
    return 0;
}

/* Push the runs of [lo, hi) (already sorted by key at depth d) that need depth d + 7. */
static int push_tied_runs(const sctx *s, size_t lo, size_t hi, uint64_t d, run_list *out)
{
    const uint64_t *k = s->key;
    size_t i = lo;
    while (i < hi) {
        size_t e = i + 1;
        while (e < hi && k[e] == k[i]) e++;
        if (e - i > 1 && key_more(s, k[i]) && run_push(out, i, e, d + 7)) return -1;
        i = e;
    }
    return 0;
}

/* All strings of the run share the key at depth d: skip their common prefix from d. */
static uint64_t common_depth(const sctx *s, size_t lo, size_t hi, uint64_t d)
{
    uint64_t first = s->idx[lo], l = UINT64_MAX;
    for (size_t i = lo + 1; i < hi && l; i++) {
        uint64_t c = lcp_from(s, first, s->idx[i], d);
        if (c < l) l = c;
    }
    return d + (l == UINT64_MAX ? 0 : l);
}

/* Resolve one run (and the runs it creates) on this thread. */
static int resolve_serial(sctx *s, run r0, run_list *stack)
{
    stack->n = 0;
    if (run_push(stack, r0.lo, r0.hi, r0.depth)) return -1;
    while (stack->n) {
        run r = stack->r[--stack->n];
        size_t n = r.hi - r.lo;
        if (n < SMALL_RUN) {
            merge_sort(s, s->idx + r.lo, s->idx2 + r.lo, n, r.depth);
            continue;
        }
        uint64_t an = ~(uint64_t)0, o = 0;
        for (size_t x = r.lo; x < r.hi; x++) {
            uint64_t k = chunk_key(s, s->idx[x], r.depth);
            s->key[x] = k;
            an &= k;
            o |= k;
        }
        if (an == o) {                      /* one key for all: jump past the common prefix */
            if (!key_more(s, an)) continue;  /* all equal strings: input order stays */
            uint64_t nd = common_depth(s, r.lo, r.hi, r.depth);
            if (run_push(stack, r.lo, r.hi, nd > r.depth ? nd : r.depth + 7)) return -1;
            continue;
        }
        radix_serial(s, r.lo, r.hi, an, o);
        if (push_tied_runs(s, r.lo, r.hi, r.depth, stack)) return -1;
    }
    return 0;
}

typedef struct small_job {
    sctx *s;
    const run_list *runs;
    size_t n;
    int parts;
    int failed;
} small_job;

static void small_task(void *arg, size_t i)
{
    small_job *j = (small_job *)arg;
    size_t a = j->n * i / (size_t)j->parts, b = j->n * (i + 1) / (size_t)j->parts;
    run_list stack = {0};
    for (size_t r = 0; r < j->runs->n; r++) {
        run x = j->runs->r[r];
        if (x.lo < a || x.lo >= b) continue;
        if (resolve_serial(j->s, x, &stack)) { j->failed = 1; break; }
    }
    free(stack.r);
}

/* ---- the first level with threads: one MSD pass, then buckets in parallel ----
 * One stable distribution on the most significant byte that varies sends every string to its
 * bucket; each bucket (n / 256 strings on average, a few MB) is then radix-sorted on the other
 * digits and its ties resolved by one thread while it sits in cache, buckets handed out to
 * threads one at a time. Buckets too big for that (skewed data) get the all-threads sort. */

typedef struct bucket_job {
    sctx *s;
    const size_t *start;        /* 257 bucket starts */
    size_t big;                 /* buckets this large are sorted by all threads */
    int failed;
} bucket_job;

static void bucket_task(void *arg, size_t b)
{
    bucket_job *j = (bucket_job *)arg;
    sctx *s = j->s;
    size_t lo = j->start[b], hi = j->start[b + 1];
    if (hi - lo < 2 || hi - lo >= j->big) return;        /* big buckets: done by the caller */
    uint64_t an = ~(uint64_t)0, o = 0;
    for (size_t x = lo; x < hi; x++) { an &= s->key[x]; o |= s->key[x]; }
    if (an != o) radix_serial(s, lo, hi, an, o);
    run_list ties = {0}, stack = {0};
    if (push_tied_runs(s, lo, hi, 0, &ties)) j->failed = 1;
    for (size_t r = 0; r < ties.n && !j->failed; r++)
        if (resolve_serial(s, ties.r[r], &stack)) j->failed = 1;
    free(ties.r);
    free(stack.r);
}

/* Level 0 of [0, n) with threads; runs still to do go to *big (large) or are finished here.
 * The distributing pass takes a 16-bit digit (the top varying byte and the one after it) when
 * there are many strings: an 8-bit one leaves, for words, a few dozen buckets of n/26 strings,
 * each then too big for one thread and sorted by all threads one LSD pass per byte; 16 bits
 * leave hundreds to thousands of buckets small enough to hand out whole
 * (bench/results/text-2026-11-28.md). */
#define WIDE_TOP_MIN ((size_t)1 << 20)

static gpusort_status msd_top(sctx *s, size_t n, run_list *big, int *swapped)
{
    int parts = s->threads;
    pjob j;
    memset(&j, 0, sizeof j);
    j.s = s;
    j.lo = 0;
    j.hi = n;
    j.parts = parts;
    j.rekey = 1;
    j.and_k = (uint64_t *)gpusort__malloc(2 * (size_t)parts * sizeof(uint64_t));
    size_t *start = NULL;
    gpusort_status st = GPUSORT_STATUS_SUCCESS;
    if (!j.and_k) { st = GPUSORT_STATUS_OUT_OF_HOST_MEMORY; goto done; }
    j.or_k = j.and_k + parts;
    if ((st = gpusort__cpu_parallel_for(parts, (size_t)parts, pkey_task, &j))) goto done;
    uint64_t an = ~(uint64_t)0, o = 0;
    for (int p = 0; p < parts; p++) { an &= j.and_k[p]; o |= j.or_k[p]; }
    uint64_t diff = an ^ o;
    if (!diff) {                                  /* one key for all */
        if (key_more(s, an) && run_push(big, 0, n, 7)) st = GPUSORT_STATUS_OUT_OF_HOST_MEMORY;
        goto done;
    }
    int top = (63 - __builtin_clzll(diff)) & ~7;
    /* 16 bits cost each part 2^16 counters and the prefix 2^16 per part: only when every
     * part has at least as many strings. */
    j.bits = top >= 8 && n >= WIDE_TOP_MIN && n >= ((size_t)parts << 16) ? 16 : 8;
    j.shift = top + 8 - j.bits;
    size_t nb = (size_t)1 << j.bits;
    j.cnt = (size_t *)gpusort__malloc((size_t)parts * nb * sizeof *j.cnt);
    start = (size_t *)gpusort__malloc((nb + 1) * sizeof *start);
    if (!j.cnt || !start) { st = GPUSORT_STATUS_OUT_OF_HOST_MEMORY; goto done; }
    j.k = s->key;
    j.v = s->idx;
    j.k2 = s->key2;
    j.v2 = s->idx2;
    if ((st = gpusort__cpu_parallel_for(parts, (size_t)parts, pcount_task, &j))) goto done;
    size_t sum = 0;
    for (size_t b = 0; b < nb; b++) {
        start[b] = sum;
        for (int p = 0; p < parts; p++) {
            size_t c = j.cnt[(size_t)p * nb + b];
            j.cnt[(size_t)p * nb + b] = sum;
            sum += c;
        }
    }
    start[nb] = sum;
    if ((st = gpusort__cpu_parallel_for(parts, (size_t)parts, pscatter_task, &j))) goto done;
    uint64_t *t = s->key; s->key = s->key2; s->key2 = t;
    t = s->idx; s->idx = s->idx2; s->idx2 = t;
    *swapped = !*swapped;
    /* A bucket is "big" when one thread alone on it would hold the others up: more than half
     * of one thread's share. */
    size_t big_bucket = n / (2 * (size_t)parts);
    if (big_bucket < BIG_RUN) big_bucket = BIG_RUN;
    bucket_job bj = {s, start, big_bucket, 0};
    if ((st = gpusort__cpu_parallel_for(parts, nb, bucket_task, &bj))) goto done;
    if (bj.failed) { st = GPUSORT_STATUS_OUT_OF_HOST_MEMORY; goto done; }
    for (size_t b = 0; b < nb; b++) {
        size_t lo = start[b], hi = start[b + 1];
        if (hi - lo < big_bucket) continue;
        if ((st = sort_level_parallel(s, lo, hi, 0, 0))) goto done;
        if (push_tied_runs(s, lo, hi, 0, big)) { st = GPUSORT_STATUS_OUT_OF_HOST_MEMORY; goto done; }
    }
done:
    free(j.and_k);
    free(j.cnt);
    free(start);
    return st;
}

typedef struct init_job { uint64_t *idx; size_t n; int parts; } init_job;

static void init_task(void *arg, size_t i)
{
    init_job *j = (init_job *)arg;
    size_t a = j->n * i / (size_t)j->parts, b = j->n * (i + 1) / (size_t)j->parts;
    for (size_t x = a; x < b; x++) j->idx[x] = x;
}

gpusort_status gpusort__cpu_sort_strings(gpusort_ctx *ctx, const uint8_t *bytes,
                                         const uint64_t *offsets, size_t n, gpusort_order order,
                                         uint64_t *perm_out)
{
    sctx s;
    memset(&s, 0, sizeof s);
    s.bytes = bytes;
    s.off = offsets;
    s.desc = order == GPUSORT_ORDER_DESC;
    s.idx = perm_out;
    s.threads = gpusort__threads(ctx);
    if (n < 2 * BIG_RUN) s.threads = 1;          /* too small to pay for threads */
    s.key = (uint64_t *)gpusort__malloc(n * sizeof(uint64_t));
    s.key2 = (uint64_t *)gpusort__malloc(n * sizeof(uint64_t));
    s.idx2 = (uint64_t *)gpusort__malloc(n * sizeof(uint64_t));
    uint64_t *idx_scratch = s.idx2;      /* the levels swap idx and idx2: free this one */
    int swapped = 0;
    run_list big = {0}, small = {0};
    gpusort_status st = GPUSORT_STATUS_SUCCESS;
    if (!s.key || !s.key2 || !s.idx2) {
        st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                "%zu bytes of scratch for %zu strings", 3 * n * sizeof(uint64_t), n);
        goto done;
    }
    init_job ij = {perm_out, n, s.threads};
    gpusort__cpu_parallel_for(s.threads, (size_t)s.threads, init_task, &ij);

    /* Level 0 over everything, then big runs with all threads, then small runs in parallel. */
    if (s.threads > 1) {
        if ((st = msd_top(&s, n, &big, &swapped))) goto fail;
    } else if (run_push(&big, 0, n, 0)) {
        goto oom;
    }
    while (big.n) {
        run r = big.r[--big.n];
        if (r.hi - r.lo < BIG_RUN || s.threads == 1) {
            if (run_push(&small, r.lo, r.hi, r.depth)) goto oom;
            continue;
        }
        if ((st = sort_level_parallel(&s, r.lo, r.hi, r.depth, 1))) goto fail;
        if (push_tied_runs(&s, r.lo, r.hi, r.depth, &big)) goto oom;
        /* A big run whose strings all tie for a long way only costs one pass per 7 bytes. */
    }
    small_job sj = {&s, &small, n, s.threads, 0};
    st = gpusort__cpu_parallel_for(s.threads, (size_t)s.threads, small_task, &sj);
    if (st) goto fail;
    if (sj.failed) goto oom;
    if (swapped) memcpy(perm_out, s.idx, n * sizeof *perm_out);
    goto done;
oom:
    st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "out of memory for run lists");
    goto done;
fail:
    gpusort__set_error(ctx, st, "thread start failed in the string sort");
done:
    free(s.key);
    free(s.key2);
    free(idx_scratch);
    free(big.r);
    free(small.r);
    return st;
}
