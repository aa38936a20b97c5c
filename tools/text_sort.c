/*
 * text_sort.c -- the text mode's in-memory sort of one chunk of lines (text_sort_lines, text.h).
 *
 * The first key is turned once into something the library sorts fast (text_keys.c), then only
 * the groups of lines that tie on it are finished with text_line_cmp:
 *   no key, or a key that is the whole line   lines are compacted in place (delimiters
 *                   squeezed out) and sorted by gpusort_sort_strings: the whole answer, ties
 *                   are identical lines.
 *   text key        the packed key bytes, sorted by gpusort_sort_strings (exact for that key);
 *                   ties (equal packed keys) go to text_line_cmp from the second key on.
 *   -n or -g key    the key images, sorted with 32-bit line indices (when n fits) by the
 *                   library's radix sort (gpusort_sort_pairs with generated indices); equal images go to
 *                   text_line_cmp from the first key (an image may round).
 * Ties: the runs of neighbours in the sorted order with equal projections are merge-sorted
 * with text_line_cmp (a stable merge sort, insertion sort below 13 lines; long runs grouped
 * into identical lines first, tie_run), found and sorted in parallel slices of the positions.
 *
 * With --backend auto the sorts run on the CPU backend unless pick_backend's cost model (the
 * GPU's start-up and copies against the CPU sort) says a GPU is faster for the chunk; a GPU
 * whose sort fails (device memory too small, an unsupported size, ...) is replaced by the CPU
 * backend and the sort retried (lib_fallback); a backend the user named is never replaced:
 * its failure is the answer.
 */
#include "text.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* perm (u64, p->a) = perm32 (p->b). */
static void widen_task(void *arg, size_t i)
{
    par *p = (par *)arg;
    size_t a, b;
    text_slice(p->L->n, p->parts, i, &a, &b);
    uint64_t *d = (uint64_t *)p->a;
    const uint32_t *src = (const uint32_t *)p->b;
    for (size_t x = a; x < b; x++) d[x] = src[x];
}


typedef struct tie_job {
    tsort *t;
    lineset *L;
    uint64_t *perm, *tmp;
    int parts;                 /* slices of the positions (tie_task) */
    int first;                 /* first key text_line_cmp needs (1: key 0 is known equal) */
    const uint64_t *via;       /* NULL, or the values sorted are positions in via[] */
    int (*eq)(void *, size_t); /* perm[x] ties with perm[x - 1] on the projection */
    void *eqarg;
    uint64_t **runs;           /* per slice: the runs starting in it, pairs lo, hi */
    size_t *nruns;
    int bytes;                 /* compare lines by their bytes (tie_run's grouping) */
} tie_job;

/* Byte order of lines a and b (memcmp, then length). */
static inline int byte_cmp(const lineset *L, uint64_t a, uint64_t b)
{
    size_t la = LL(L, a), lb = LL(L, b);
    int c = memcmp(LP(L, a), LP(L, b), la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* text_line_cmp of the lines a and b (or of via[a] and via[b]); byte order in bytes mode. */
static inline int tie_cmp(const tie_job *j, uint64_t a, uint64_t b)
{
    if (j->bytes) return byte_cmp(j->L, a, b);
    if (j->via) {
        a = j->via[a];
        b = j->via[b];
    }
    return text_line_cmp_from(j->t, j->first, LP(j->L, a), LL(j->L, a), LP(j->L, b), LL(j->L, b));
}

static void tie_sort(const tie_job *j, uint64_t *v, uint64_t *tmp, size_t n)
{
    if (n <= 12) {
        for (size_t i = 1; i < n; i++) {
            uint64_t x = v[i];
            size_t k = i;
            while (k > 0 && tie_cmp(j, v[k - 1], x) > 0) { v[k] = v[k - 1]; k--; }
            v[k] = x;
        }
        return;
    }
    size_t h = n / 2;
    tie_sort(j, v, tmp, h);
    tie_sort(j, v + h, tmp, n - h);
    if (tie_cmp(j, v[h - 1], v[h]) <= 0) return;
    memcpy(tmp, v, h * sizeof *v);
    size_t a = 0, b = h, k = 0;
    while (a < h && b < n) v[k++] = tie_cmp(j, v[b], tmp[a]) < 0 ? v[b++] : tmp[a++];
    while (a < h) v[k++] = tmp[a++];
}

/* Runs of at least this many lines are first grouped into identical lines (tie_run). */
#define TIE_GROUP_MIN 16

/* Sort one run v[0, n) (tmp: n entries of scratch) with text_line_cmp. Identical lines
 * compare equal under every option, and the full comparison (strcoll, a number parse, a key
 * copy, ...) costs far more than memcmp, so a long run is first sorted by bytes: when it holds
 * one line only, it is done; when it holds duplicates, only one representative of each
 * distinct line is sorted with text_line_cmp, and its copies follow it. That is the sort's
 * answer, byte for byte, when no two representatives compare equal (then the order of the
 * distinct lines is the only one there is, and copies are indistinguishable); when two do
 * (-s, -u, or keys that tie without the last resort), their input order matters and the run
 * is sorted as it came, stably. Example: 57 lines of the 3-letter word "abc" in its case and
 * accent variants, 30 of them "abc": 20 distinct lines go through strcoll instead of 57. */
static void tie_run(const tie_job *j, uint64_t *v, uint64_t *tmp, size_t n)
{
    if (n < TIE_GROUP_MIN) {
        tie_sort(j, v, tmp, n);
        return;
    }
    uint64_t *w = (uint64_t *)ext_big_alloc(2 * n * sizeof *w), *rep = w + n;
    memcpy(w, v, n * sizeof *v);
    tie_job jb = *j;
    jb.via = NULL;
    jb.bytes = 1;
    tie_sort(&jb, w, tmp, n);
    size_t d = 0;                                  /* distinct lines: their first positions */
    for (size_t x = 0; x < n; x++)
        if (x == 0 || byte_cmp(j->L, w[x - 1], w[x]) != 0) rep[d++] = x;
    if (d * 4 > n * 3) {                           /* few duplicates: sort the run itself */
        free(w);
        tie_sort(j, v, tmp, n);
        return;
    }
    if (d > 1) {
        tie_job jr = *j;
        jr.via = w;
        tie_sort(&jr, rep, tmp, d);
        for (size_t r = 1; r < d; r++)
            if (tie_cmp(&jr, rep[r - 1], rep[r]) == 0) {   /* distinct lines tie */
                free(w);
                tie_sort(j, v, tmp, n);
                return;
            }
    }
    /* Each representative's group: the identical lines from its position in w. */
    size_t k = 0;
    for (size_t r = 0; r < d; r++) {
        size_t x = rep[r];
        do v[k++] = w[x++]; while (x < n && byte_cmp(j->L, w[x - 1], w[x]) == 0);
    }
    free(w);
}

/* Pass 1 over slice i of the positions: the runs that start in it (a run may reach past its
 * end), found with eq on neighbours. Read only: no slice sorts before all have scanned. */
static void tie_scan_task(void *arg, size_t i)
{
    tie_job *j = (tie_job *)arg;
    size_t n = j->L->n, a, b, cap = 0, nr = 0;
    uint64_t *runs = NULL;
    text_slice(n, j->parts, i, &a, &b);
    while (a < b && a > 0 && j->eq(j->eqarg, a)) a++;     /* inside the previous slice's run */
    for (size_t x = a; x < b;) {
        size_t e = x + 1;
        while (e < n && j->eq(j->eqarg, e)) e++;
        if (e - x > 1) {
            if (nr == cap) {
                cap = cap ? 2 * cap : 64;
                uint64_t *nrn = (uint64_t *)gpusort__realloc(runs, cap * 2 * sizeof *runs);
                if (!nrn) cli_fail("out of memory");
                runs = nrn;
            }
            runs[2 * nr] = x;
            runs[2 * nr + 1] = e;
            nr++;
        }
        x = e;
    }
    j->runs[i] = runs;
    j->nruns[i] = nr;
}

/* Pass 2: sort the runs slice i found. */
static void tie_sort_task(void *arg, size_t i)
{
    tie_job *j = (tie_job *)arg;
    for (size_t r = 0; r < j->nruns[i]; r++) {
        uint64_t lo = j->runs[i][2 * r], hi = j->runs[i][2 * r + 1];
        tie_run(j, j->perm + lo, j->tmp + lo, (size_t)(hi - lo));
    }
    free(j->runs[i]);
}

/* Find the tie runs with eq(arg, x) (line perm[x] ties with perm[x - 1] on the projection)
 * and resolve them: the positions cut into slices, many more than threads so that slices
 * full of long runs do not hold the others back; each slice's runs are found (all slices
 * first: eq reads perm) and then sorted by one thread. */
static void resolve_ties(tsort *t, lineset *L, uint64_t *perm, uint64_t *tmp, int first,
                         int (*eq)(void *, size_t), void *eqarg)
{
    int parts = L->n < TEXT_PARALLEL_MIN_LINES ? 1 : t->threads * 8;
    tie_job j = {t, L, perm, tmp, parts, first, NULL, eq, eqarg, NULL, NULL, 0};
    j.runs = (uint64_t **)cli_alloc((size_t)parts * sizeof *j.runs);
    j.nruns = (size_t *)cli_alloc((size_t)parts * sizeof *j.nruns);
    gpusort__cpu_parallel_for(t->threads, (size_t)parts, tie_scan_task, &j);
    gpusort__cpu_parallel_for(t->threads, (size_t)parts, tie_sort_task, &j);
    free(j.runs);
    free(j.nruns);
}

typedef struct eq_img { const void *sorted; int narrow; } eq_img;
static int eq_image(void *arg, size_t e)
{
    const eq_img *q = (const eq_img *)arg;
    if (q->narrow) {
        const uint32_t *s = (const uint32_t *)q->sorted;
        return s[e] == s[e - 1];
    }
    const uint64_t *s = (const uint64_t *)q->sorted;
    return s[e] == s[e - 1];
}

typedef struct eq_str { const uint8_t *kb; const uint64_t *ko, *perm; } eq_str;
static int eq_packed(void *arg, size_t e)
{
    eq_str *q = (eq_str *)arg;
    uint64_t a = q->perm[e - 1], b = q->perm[e];
    uint64_t la = q->ko[a + 1] - q->ko[a], lb = q->ko[b + 1] - q->ko[b];
    return la == lb && memcmp(q->kb + q->ko[a], q->kb + q->ko[b], (size_t)la) == 0;
}

static void lib_fail(tsort *t, const char *what, gpusort_status s)
{
    cli_fail("%s failed: %s (%s)", what, gpusort_status_string(s), gpusort_ctx_get_last_error(t->ctx));
}

/* After a library failure on a GPU context that --backend auto picked (device memory too small,
 * an unsupported size, ...): switch to the CPU backend and return 1 so the caller retries.
 * A backend the user named is never replaced: its failure is the answer. */
static int lib_fallback(tsort *t, gpusort_status s)
{
    if (s == GPUSORT_STATUS_INVALID_ARGUMENT || t->o.backend != GPUSORT_BACKEND_AUTO ||
        gpusort_ctx_get_backend(t->ctx) == GPUSORT_BACKEND_CPU)
        return 0;
    text_opts cpu = t->o;
    cpu.backend = GPUSORT_BACKEND_CPU;
    gpusort_ctx *c = text_context(&cpu);
    gpusort_ctx_free(t->ctx);
    t->ctx = c;
    return 1;
}

/* ---- --backend auto: the CPU or a GPU, by the cost of the whole job ----
 * The text mode starts on the CPU backend (text_main.c). Before each library sort the job's
 * two costs are estimated and a GPU context is created only when its total is the smaller:
 *   CPU  n lines x the CPU time per line of the library sort / threads;
 *   GPU  its start-up (once per run) + the bytes to the device and back / the copy rate
 *        + n x the device's time per line.
 * Both the keys and all the rest (reading, key building, ties, writing) run on the CPU either
 * way, so only the sort is compared. The constants are measurements: the GPU's start-up
 * (CLI_GPU_STARTUP_S, util.h); 40 ns of CPU per line for the radix sort of 32/64-bit key
 * images with indices and 115 ns for the string sort (2-core machine, GPUSORT_TIMING=1, CPU
 * seconds of the sort phase over 10M -n lines and 5M words: text-2026-11-25.md). Pageable
 * copies at 10 GB/s cost about as much per line as 16 cores' sort, so with 16 threads the CPU
 * sorts all but huge inputs of short lines; with few cores the GPU pays from tens of millions
 * of lines. */
#define GPU_COPY_BYTES_PER_S 10e9     /* pageable host memory, both ways */
#define GPU_S_PER_LINE 2e-9
#define CPU_S_PER_LINE_IMAGES 40e-9
#define CPU_S_PER_LINE_STRINGS 115e-9

/* Switch t->ctx to a GPU context when the model says it is cheaper for this sort of n lines
 * (bytes: what goes to the device and comes back, each way; cpu_per_line: one of the
 * CPU_S_PER_LINE_* above). Once a GPU context exists it stays (its start-up is paid). */
static void pick_backend(tsort *t, size_t n, double bytes, double cpu_per_line)
{
    if (!t->gpu_maybe) return;
    double cpu = (double)n * cpu_per_line / (double)(t->threads > 0 ? t->threads : 1);
    double gpu = CLI_GPU_STARTUP_S + 2.0 * bytes / GPU_COPY_BYTES_PER_S +
                 (double)n * GPU_S_PER_LINE;
    const char *e = getenv("GPUSORT_TEXT_AUTO");     /* "gpu": try the GPU whatever the model */
    if (!(e && strcmp(e, "gpu") == 0) && cpu <= gpu) return;
    t->gpu_maybe = 0;
    gpusort_ctx *c = NULL;
    if (gpusort_ctx_create(&c, GPUSORT_BACKEND_AUTO, t->o.device) != GPUSORT_STATUS_SUCCESS)
        return;                                       /* no GPU after all: stay on the CPU */
    if (t->o.threads) gpusort_ctx_set_threads(c, t->o.threads);
    gpusort_ctx_free(t->ctx);
    t->ctx = c;
}

uint64_t *text_sort_lines(tsort *t, lineset *L)
{
    size_t n = L->n;
    uint64_t *perm = (uint64_t *)ext_big_alloc((n ? n : 1) * sizeof *perm);
    if (n == 0) return perm;
    const tkey *k0 = t->nkeys ? &t->keys[0] : NULL;
    gpusort_status s;

    if ((!k0 || text_key_is_line(k0)) && !text_collate) {
        /* Byte order of whole lines: compact and sort the strings. */
        text_compact_lines(t, L);
        text_phase("compact");
        int desc = k0 ? k0->reverse : t->o.reverse;
        pick_backend(t, n, (double)L->off[n] + 16.0 * (double)n, CPU_S_PER_LINE_STRINGS);
    again_lines:
        s = gpusort_sort_strings(t->ctx, GPUSORT_TYPE_U64, L->bytes, L->off,
                                 n, perm,
                                 desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, 0);
        if (s && lib_fallback(t, s)) goto again_lines;
        if (s) lib_fail(t, "string sort", s);
        text_phase("sort");
        /* Ties are identical lines, so every later key ties too: nothing to resolve. */
        return perm;
    }

    if (k0 && (k0->numeric || k0->general || k0->human || k0->month)) {
        par p = {t, L, n, text_parts_for(t, n), NULL, NULL, NULL, NULL};
        uint64_t *img = (uint64_t *)ext_big_alloc(n * sizeof *img);
        int exact;
        int narrow = text_key_images(t, L, img, &exact);
        text_phase("keys");
        int idx32 = n <= UINT32_MAX;
        size_t ksz = narrow ? 4 : 8;
        void *sorted = ext_big_alloc(n * ksz);
        uint32_t *perm32 = idx32 ? (uint32_t *)ext_big_alloc(n * sizeof *perm32) : NULL;
        gpusort_type kt = narrow ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
        gpusort_type it = idx32 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
        void *iout = idx32 ? (void *)perm32 : (void *)perm;
        pick_backend(t, n, (double)n * (double)(ksz + (idx32 ? 4 : 8)), CPU_S_PER_LINE_IMAGES);
        /* the sorted images and their indices: pairs whose values are generated (NULL) */
#define SORT_IMAGES() gpusort_sort_pairs(t->ctx, kt, it, img, NULL, n, sorted, iout, \
                                         GPUSORT_ORDER_ASC, GPUSORT_ALGORITHM_AUTO, 0)
        s = SORT_IMAGES();
        if (s && lib_fallback(t, s)) s = SORT_IMAGES();
#undef SORT_IMAGES
        if (s) lib_fail(t, "numeric key sort", s);
        if (idx32) {
            p.a = perm;
            p.b = perm32;
            text_run_par(&p, widen_task);
            free(perm32);
        }
        text_phase("sort");
        free(img);
        /* Exact images: ties go on from the second key, and need nothing when there is none
         * and no last resort (-s, -u). */
        if (!exact || t->nkeys > 1 || (!t->o.stable && !t->o.unique)) {
            eq_img q = {sorted, narrow};
            uint64_t *tmp = (uint64_t *)ext_big_alloc(n * sizeof *tmp);
            resolve_ties(t, L, perm, tmp, exact, eq_image, &q);
            text_phase("ties");
            free(tmp);
        }
        free(sorted);
        return perm;
    }

    /* A text first key (or, in a collating locale, the whole line): pack its bytes, its
     * collation key, its -R digest or its -V projection, and sort them as strings. */
    uint8_t *kb;
    uint64_t *ko;
    int exact = text_pack_keys(t, L, &kb, &ko);
    text_phase("keys");
    int desc = k0 ? k0->reverse : t->o.reverse;
    pick_backend(t, n, (double)ko[n] + 16.0 * (double)n, CPU_S_PER_LINE_STRINGS);
again_keys:
    s = gpusort_sort_strings(t->ctx, GPUSORT_TYPE_U64, kb, ko,
                             n,
                             perm, desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, 0);
    if (s && lib_fallback(t, s)) goto again_keys;
    if (s) lib_fail(t, "key sort", s);
    text_phase("sort");
    /* Ties: packed bytes and -V projections are exact for their key, so they go on from the
     * second key; a collation projection or a -R digest is not, so from the first (with no
     * -k: the last resort, which the projection of the whole line approximates). */
    int need = !exact || t->nkeys > 1 || (!t->o.stable && !t->o.unique);
    if (need) {
        eq_str q = {kb, ko, perm};
        uint64_t *tmp = (uint64_t *)ext_big_alloc(n * sizeof *tmp);
        resolve_ties(t, L, perm, tmp, exact ? 1 : 0, eq_packed, &q);
        text_phase("ties");
        free(tmp);
    }
    free(kb);
    free(ko);
    return perm;
}

