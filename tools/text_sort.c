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
 * with text_line_cmp (a stable merge sort, insertion sort below 13 lines), the runs spread over
 * the threads.
 *
 * With --backend auto, a GPU whose sort fails (device memory too small, an unsupported size,
 * ...) is replaced by the CPU backend and the sort retried (lib_fallback); a backend the user
 * named is never replaced: its failure is the answer.
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
    const uint64_t *runs;      /* pairs lo, hi */
    size_t nruns;
    int parts;
    int first;                 /* first key text_line_cmp needs (1: key 0 is known equal) */
} tie_job;

static inline int tie_cmp(const tie_job *j, uint64_t a, uint64_t b)
{
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

static void tie_task(void *arg, size_t i)
{
    tie_job *j = (tie_job *)arg;
    size_t a, b;
    text_slice(j->nruns, j->parts, i, &a, &b);
    for (size_t r = a; r < b; r++) {
        uint64_t lo = j->runs[2 * r], hi = j->runs[2 * r + 1];
        tie_sort(j, j->perm + lo, j->tmp + lo, (size_t)(hi - lo));
    }
}

/* Find the tie runs with eq(x, y) on neighbours of perm and resolve them. */
static void resolve_ties(tsort *t, lineset *L, uint64_t *perm, uint64_t *tmp, int first,
                         int (*eq)(void *, size_t), void *eqarg)
{
    size_t n = L->n, cap = 64, nr = 0;
    uint64_t *runs = (uint64_t *)cli_alloc(cap * 2 * sizeof *runs);
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && eq(eqarg, e)) e++;
        if (e - i > 1) {
            if (nr == cap) {
                cap *= 2;
                uint64_t *nrn = (uint64_t *)gpusort__realloc(runs, cap * 2 * sizeof *runs);
                if (!nrn) cli_fail("out of memory");
                runs = nrn;
            }
            runs[2 * nr] = i;
            runs[2 * nr + 1] = e;
            nr++;
        }
        i = e;
    }
    tie_job j = {t, L, perm, tmp, runs, nr, nr < 64 ? 1 : t->threads, first};
    gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, tie_task, &j);
    free(runs);
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
        uint64_t *img = (uint64_t *)cli_alloc(n * sizeof *img);
        int exact;
        int narrow = text_key_images(t, L, img, &exact);
        text_phase("keys");
        int idx32 = n <= UINT32_MAX;
        size_t ksz = narrow ? 4 : 8;
        void *sorted = cli_alloc(n * ksz);
        uint32_t *perm32 = idx32 ? (uint32_t *)cli_alloc(n * sizeof *perm32) : NULL;
        gpusort_type kt = narrow ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
        gpusort_type it = idx32 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64;
        void *iout = idx32 ? (void *)perm32 : (void *)perm;
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
            uint64_t *tmp = (uint64_t *)cli_alloc(n * sizeof *tmp);
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
    text_pack_keys(t, L, &kb, &ko);
    text_phase("keys");
    int desc = k0 ? k0->reverse : t->o.reverse;
again_keys:
    s = gpusort_sort_strings(t->ctx, GPUSORT_TYPE_U64, kb, ko,
                             n,
                             perm, desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, 0);
    if (s && lib_fallback(t, s)) goto again_keys;
    if (s) lib_fail(t, "key sort", s);
    text_phase("sort");
    /* Ties: packed bytes are exact for their key, so they go on from the second key; a
     * collation projection or a -R digest is not, so from the first (with no -k: the last
     * resort, which the projection of the whole line approximates). */
    int exact = !text_collate && !(k0 && (k0->random || k0->version));
    int need = !exact || t->nkeys > 1 || (!t->o.stable && !t->o.unique);
    if (need) {
        eq_str q = {kb, ko, perm};
        uint64_t *tmp = (uint64_t *)cli_alloc(n * sizeof *tmp);
        resolve_ties(t, L, perm, tmp, exact ? 1 : 0, eq_packed, &q);
        text_phase("ties");
        free(tmp);
    }
    free(kb);
    free(ko);
    return perm;
}

