/*
 * text.c -- the gpusort program's text mode: GNU sort compatible sorting of lines.
 *
 * Exports gpusort_cli_text_main (cli.h) and text_context (text.h). For every supported option
 * set the output is byte-identical to `LC_ALL=C sort` with the same options; exit codes are
 * GNU's (0, 1 for -c/-C on unsorted input, 2 for errors).
 *
 * Supported: -b -d -f -g -i -n -r (global and as key modifiers), -k POS1[,POS2], -t SEP, -s, -u,
 * -z, -c, -C, --check[=quiet|silent|diagnose-first], -m, -o FILE (may be an input), -S SIZE,
 * -T DIR (repeatable), --parallel N, --batch-size N, several inputs and "-", plus gpusort's
 * --backend/--device/--quiet and --record-size/--key-size/--key-offset (records.c).
 * Refused with one line and exit 2: -h, -M, -R, -V (and those key modifiers), --sort=...,
 * --random-source, --files0-from, --compress-program, --debug, and any locale whose collation
 * is not byte order (LC_ALL / LC_COLLATE / LANG other than C, POSIX or C.UTF-8): gpusort
 * compares bytes as `LC_ALL=C sort` does and says so rather than sorting differently from the
 * `sort` the user would get in that locale.
 *
 * ORDER OF WORK
 *   parse options -> load the input (sort_text: whole, or in chunks) -> index the lines
 *   (index_lines) -> sort_lines -> write_lines; when the input does not fit the memory budget,
 *   each chunk is written as a run (extsort.h) and the runs are merged.
 *   -m merges the inputs directly (extsort_merge_paths); -c/-C stream one input (check_file).
 *
 * COMPARISON. line_cmp() is GNU sort's compare()/keycompare() (coreutils sort.c) ported to
 * explicit lengths: keys in order, each with its field positions (begfield/limfield), blank
 * skipping, -d/-i ignore tables, -f translation and -n/-g numeric rules; then, unless -s or -u,
 * the whole line with memcmp ("last-resort comparison"), reversed by a global -r. The default
 * key: global ordering options with no -k make one key over the whole line (GNU's gkey), and
 * a -k with no ordering modifiers inherits all global ones.
 *
 * IN-MEMORY SORT: the first key is turned once into something the library sorts fast, then only
 * the groups that tie on it are finished with line_cmp:
 *   no key          lines are compacted in place (delimiters squeezed out) and sorted by
 *                   gpusort_sort_strings: the whole answer, ties are identical lines.
 *   text key        the key's bytes (after -b/-d/-i/-f) are packed into a buffer and sorted by
 *                   gpusort_sort_strings (exact for that key); ties go to line_cmp.
 *   -n key          when every key is an integer of at most 18 digits (parsed 8 digits at a
 *                   time, SWAR): its exact value less the minimum, in 32 bits when the range
 *                   fits, sorted with 32-bit line indices by the library's radix sort
 *                   (gpusort_sort_ex, argsort); otherwise a 64-bit decimal-float image of the
 *                   number (below). Ties (equal values or images) go to line_cmp.
 *   -g key          the double nearest the key's long double (monotone), same way.
 *   -r on the key   complemented 64-bit keys / descending string sort.
 * A projection p is valid when p(a) < p(b) implies line_cmp(a, b) < 0; rounding and truncation
 * are monotone, so equal images only mean "compare fully".
 *   -n image: sign, then for |x| > 0 the exponent e (first significant digit's position, 9
 *   bits, saturated) and the first 16 significant digits (54 bits); zero is 2^63, x > 0 is
 *   2^63 + image, x < 0 is 2^63 - image. Example: "12.5" -> e = 2, digits 1250000000000000.
 *   Integers up to 16 digits are exact; everything else ties into line_cmp.
 * Then the lines are gathered in order by all threads into slices of the output (prefetching
 * ahead: the reads are random) and written in order (-u keeps the first of each group of equal
 * lines). Big random-access arrays sit on transparent huge pages (ext_big_alloc).
 *
 * MEMORY BUDGET: -S (GNU suffixes; a bare number is KiB, as in GNU sort), default
 * TEXT_DEFAULT_BUDGET_PERCENT of RAM. A chunk is cut when data + (text key ? data : 0) +
 * BYTES_PER_LINE * lines would pass the budget; reads are sized from the bytes per line seen so
 * far, so the peak stays near -S. Inputs that are regular files and fit are read whole with
 * parallel pread(2); others (pipes, larger inputs) in budget-sized steps.
 *
 * GPUSORT_TIMING=1 in the environment prints the wall and CPU time of each phase (read, index,
 * keys, compact, sort, ties, write, run, merge) on stderr.
 *
 * Known difference: under -g -u two NaN keys are equal when their bits are; GNU sort compares
 * long doubles with memcmp including their padding bytes, which are not initialised, so which
 * NaN lines it keeps can vary from run to run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli.h"
#include "extsort.h"
#include "text.h"
#include "util.h"

#include "cpu/cpu.h"
#include "gpusort.h"
#include "keys.h"

#include <ctype.h>
#include <float.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Bookkeeping per line during an in-memory sort: line start (8), sort key (8), sorted key (8),
 * permutation (8), the library's radix/string scratch (24), slack (8). */
#define BYTES_PER_LINE 64
/* GNU sort merges at most 16 inputs at once; we take more (each costs one read buffer). */
#define DEFAULT_FANIN 64
/* Bytes allocated past the input data, so that short lines can be copied 16 or 32 bytes at a
 * time (fixed-size copies, no call). */
#define BUF_SLACK 64
/* Below this many lines one thread does the per-line work (thread start-up ~50 us). */
#define PARALLEL_MIN_LINES 65536

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) cli_fail("out of memory (%zu bytes)", n);
    return p;
}

/* Large arrays that are read at random go on huge pages: ext_big_alloc (extsort.h). */
static void *big_malloc(size_t n) { return ext_big_alloc(n); }

/* ---- phase timing: GPUSORT_TIMING=1 prints where the time went (stderr) ---- */

static int timing_on = -1;
static double timing_last, timing_cpu_last;

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* End the current phase, named `what`, and start the next. */
static void phase(const char *what)
{
    if (timing_on < 0) {
        const char *e = getenv("GPUSORT_TIMING");
        timing_on = e && *e && strcmp(e, "0") != 0;
        timing_last = now_s();
        timing_cpu_last = cpu_s();
    }
    if (!timing_on) return;
    double t = now_s(), c = cpu_s();
    if (what)
        fprintf(stderr, "gpusort: timing: %-8s %8.3f s wall %8.3f s cpu\n", what, t - timing_last,
                c - timing_cpu_last);
    timing_last = t;
    timing_cpu_last = c;
}

/* ---- GNU's character tables (C locale) ---- */

static uint8_t blanks[256];      /* isblank or '\n' (GNU's field_sep) */
static uint8_t nondict[256];     /* -d: ignore all but alphanumerics and blanks */
static uint8_t nonprint[256];    /* -i: ignore non-printing */
static uint8_t fold_upper[256];  /* -f: toupper */

static void tables_init(void)
{
    for (int c = 0; c < 256; c++) {
        blanks[c] = (uint8_t)(c == ' ' || c == '\t' || c == '\n');
        nondict[c] = (uint8_t)(!isalnum(c) && !blanks[c]);
        nonprint[c] = (uint8_t)!isprint(c);
        fold_upper[c] = (uint8_t)toupper(c);
    }
}

/* ---- keys and options ---- */

typedef struct tkey {
    size_t sword, schar;        /* start field/char, 0-based; sword SIZE_MAX: line start */
    size_t eword, echar;        /* end; eword SIZE_MAX: line end; echar 0: end of field */
    int skipsblanks, skipeblanks;
    const uint8_t *ignore;      /* nondict / nonprint / NULL */
    const uint8_t *translate;   /* fold_upper / NULL */
    int numeric, general, reverse;
    int refused;                /* an option we do not support (M, h, R, V) */
} tkey;

typedef struct tsort {
    text_opts o;
    tkey *keys;
    int nkeys;
    int tab;                    /* -t byte, or -1 (fields separated by blank runs) */
    int delim;                  /* '\n', or '\0' with -z */
    gpusort_ctx *ctx;
    int threads;
} tsort;

static int key_default(const tkey *k)
{
    return !(k->ignore || k->translate || k->skipsblanks || k->skipeblanks || k->numeric ||
             k->general || k->refused);
}

/* ---- field positions (GNU begfield / limfield) ---- */

static const uint8_t *begfield(const tsort *t, const uint8_t *ptr, const uint8_t *lim,
                               const tkey *k)
{
    size_t sword = k->sword, schar = k->schar;
    if (t->tab >= 0) {
        while (ptr < lim && sword--) {
            while (ptr < lim && *ptr != t->tab) ++ptr;
            if (ptr < lim) ++ptr;
        }
    } else {
        while (ptr < lim && sword--) {
            while (ptr < lim && blanks[*ptr]) ++ptr;
            while (ptr < lim && !blanks[*ptr]) ++ptr;
        }
    }
    if (k->skipsblanks)
        while (ptr < lim && blanks[*ptr]) ++ptr;
    return (size_t)(lim - ptr) < schar ? lim : ptr + schar;
}

static const uint8_t *limfield(const tsort *t, const uint8_t *ptr, const uint8_t *lim,
                               const tkey *k)
{
    size_t eword = k->eword, echar = k->echar;
    if (echar == 0) eword++;     /* skip all of the end field */
    if (t->tab >= 0) {
        while (ptr < lim && eword--) {
            while (ptr < lim && *ptr != t->tab) ++ptr;
            if (ptr < lim && (eword || echar)) ++ptr;
        }
    } else {
        while (ptr < lim && eword--) {
            while (ptr < lim && blanks[*ptr]) ++ptr;
            while (ptr < lim && !blanks[*ptr]) ++ptr;
        }
    }
    if (echar != 0) {
        if (k->skipeblanks)
            while (ptr < lim && blanks[*ptr]) ++ptr;
        ptr = (size_t)(lim - ptr) < echar ? lim : ptr + echar;
    }
    return ptr;
}

/* The key's bytes [*b, *e) in line [p, p + len). */
static inline void key_span(const tsort *t, const tkey *k, const uint8_t *p, size_t len,
                            const uint8_t **b, const uint8_t **e)
{
    const uint8_t *lim = p + len;
    const uint8_t *kl = k->eword == SIZE_MAX ? lim : limfield(t, p, lim, k);
    const uint8_t *kb;
    if (k->sword != SIZE_MAX) {
        kb = begfield(t, p, lim, k);
    } else {
        kb = p;
        if (k->skipsblanks)
            while (kb < kl && blanks[*kb]) ++kb;
    }
    *b = kb;
    *e = kl > kb ? kl : kb;
}

/* ---- numbers ---- */

/* A number as -n reads it (GNU strnumcmp, C locale): blanks, optional '-', digits, optional
 * '.' and digits. Leading zeros and trailing fraction zeros removed. */
typedef struct num {
    int neg;
    const uint8_t *ip, *fp;     /* integer digits (no leading zeros), fraction digits */
    size_t ilen, flen;          /* flen excludes trailing zeros */
} num;

static inline void num_parse(const uint8_t *p, const uint8_t *lim, num *x)
{
    while (p < lim && blanks[*p]) p++;
    x->neg = 0;
    if (p < lim && *p == '-') { x->neg = 1; p++; }
    while (p < lim && *p == '0') p++;
    x->ip = p;
    while (p < lim && (unsigned)(*p - '0') < 10) p++;
    x->ilen = (size_t)(p - x->ip);
    x->fp = p;
    x->flen = 0;
    if (p < lim && *p == '.') {
        x->fp = ++p;
        while (p < lim && (unsigned)(*p - '0') < 10) p++;
        x->flen = (size_t)(p - x->fp);
        while (x->flen && x->fp[x->flen - 1] == '0') x->flen--;
    }
    if (x->ilen == 0 && x->flen == 0) x->neg = 0;   /* -0 == 0 */
}

static int num_cmp(const uint8_t *a, const uint8_t *alim, const uint8_t *b, const uint8_t *blim)
{
    num x, y;
    num_parse(a, alim, &x);
    num_parse(b, blim, &y);
    if (x.neg != y.neg) return x.neg ? -1 : 1;
    int c;
    if (x.ilen != y.ilen) {
        c = x.ilen < y.ilen ? -1 : 1;
    } else {
        c = memcmp(x.ip, y.ip, x.ilen);
        if (!c) {
            size_t m = x.flen < y.flen ? x.flen : y.flen;
            c = memcmp(x.fp, y.fp, m);
            if (!c) c = (x.flen > y.flen) - (x.flen < y.flen);
        }
    }
    return x.neg ? -c : c;
}

#define NUM_ZERO ((uint64_t)1 << 63)

/* The 64-bit image of -n (see the top of the file). */
static uint64_t num_image(const uint8_t *p, const uint8_t *lim)
{
    num x;
    num_parse(p, lim, &x);
    const uint8_t *d = x.ilen ? x.ip : x.fp;
    size_t dl = x.ilen ? x.ilen : x.flen;
    int64_t e;
    if (x.ilen) {
        e = (int64_t)x.ilen;
    } else {
        size_t z = 0;
        while (z < x.flen && x.fp[z] == '0') z++;
        if (z == x.flen) return NUM_ZERO;
        e = -(int64_t)z;
        d += z;
        dl -= z;
    }
    /* First 16 significant digits: the integer digits, then the fraction's. */
    uint64_t m = 0;
    int nd = 0;
    for (size_t i = 0; i < dl && nd < 16; i++, nd++) m = m * 10 + (uint64_t)(d[i] - '0');
    if (x.ilen)
        for (size_t i = 0; i < x.flen && nd < 16; i++, nd++) m = m * 10 + (uint64_t)(x.fp[i] - '0');
    for (; nd < 16; nd++) m *= 10;
    uint64_t mag;
    if (e > 255) mag = (((uint64_t)511) << 54) | ((((uint64_t)1) << 54) - 1);
    else if (e < -255) mag = 1;
    else mag = ((uint64_t)(e + 256) << 54) | m;
    return x.neg ? NUM_ZERO - mag : NUM_ZERO + mag;
}

/* strtold of [p, lim) (NUL-terminated copy, translated if tr); *ok = 0 for no number. */
static long double gen_parse(const uint8_t *p, const uint8_t *lim, const uint8_t *tr, int *ok)
{
    char stack[128];
    size_t n = (size_t)(lim - p);
    char *s = n < sizeof stack ? stack : (char *)xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) s[i] = (char)(tr ? tr[p[i]] : p[i]);
    s[n] = 0;
    char *end;
    long double v = strtold(s, &end);
    *ok = end != s;
    if (s != stack) free(s);
    return v;
}

static int gen_cmp(const uint8_t *a, const uint8_t *alim, const uint8_t *b, const uint8_t *blim,
                   const uint8_t *tr)
{
    int oka, okb;
    long double x = gen_parse(a, alim, tr, &oka), y = gen_parse(b, blim, tr, &okb);
    /* GNU: conversion errors first, then NaNs (ordered by their printed form), then numbers. */
    if (!oka) return okb ? -1 : 0;
    if (!okb) return 1;
    if (x < y) return -1;
    if (x > y) return 1;
    if (x == y) return 0;
    if (y == y) return -1;
    if (x == x) return 1;
    /* Two NaNs: GNU sort compares their bytes (memcmp; x86 long double: the 10 bytes that
     * carry the value, so "nan" comes before "-nan"). */
    unsigned char bx[sizeof x], by[sizeof y];
    size_t used = LDBL_MANT_DIG == 64 ? 10 : sizeof x;
    memset(bx, 0, sizeof bx);
    memset(by, 0, sizeof by);
    memcpy(bx, &x, used);
    memcpy(by, &y, used);
    return memcmp(bx, by, sizeof bx);
}

/* The 64-bit image of -g: errors 0, NaN 1, numbers by the double nearest (monotone). */
static uint64_t gen_image(const uint8_t *p, const uint8_t *lim, const uint8_t *tr)
{
    int ok;
    long double v = gen_parse(p, lim, tr, &ok);
    if (!ok) return 0;
    if (v != v) return 1;
    double d = (double)v;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return gpusort__radix_f64(bits);
}

/* ---- comparison (GNU keycompare / compare) ---- */

static int key_cmp(const tsort *t, const tkey *k, const uint8_t *ta, const uint8_t *la,
                   const uint8_t *tb, const uint8_t *lb)
{
    int diff;
    size_t lena = (size_t)(la - ta), lenb = (size_t)(lb - tb);
    const uint8_t *tr = k->translate, *ig = k->ignore;
    if (k->numeric) {
        diff = num_cmp(ta, la, tb, lb);   /* -f cannot change digits, signs or blanks */
    } else if (k->general) {
        diff = gen_cmp(ta, la, tb, lb, tr);
    } else if (ig) {
        for (;;) {
            while (ta < la && ig[*ta]) ++ta;
            while (tb < lb && ig[*tb]) ++tb;
            if (!(ta < la && tb < lb)) break;
            diff = tr ? (int)tr[*ta] - (int)tr[*tb] : (int)*ta - (int)*tb;
            if (diff) goto done;
            ++ta;
            ++tb;
        }
        diff = (ta < la) - (tb < lb);
    } else if (lena == 0) {
        diff = -(lenb != 0);
    } else if (lenb == 0) {
        diff = 1;
    } else {
        size_t m = lena < lenb ? lena : lenb;
        if (tr) {
            diff = 0;
            for (size_t i = 0; i < m && !diff; i++) diff = (int)tr[ta[i]] - (int)tr[tb[i]];
        } else {
            diff = memcmp(ta, tb, m);
        }
        if (!diff) diff = lena < lenb ? -1 : lena != lenb;
    }
done:
    return k->reverse ? -diff : diff;
}

static int keys_cmp(const tsort *t, int first, const uint8_t *a, size_t alen, const uint8_t *b,
                    size_t blen)
{
    for (int i = first; i < t->nkeys; i++) {
        const tkey *k = &t->keys[i];
        const uint8_t *ta, *la, *tb, *lb;
        key_span(t, k, a, alen, &ta, &la);
        key_span(t, k, b, blen, &tb, &lb);
        int d = key_cmp(t, k, ta, la, tb, lb);
        if (d) return d;
    }
    return 0;
}

/* GNU compare(): keys, then (unless -s or -u) the whole line, reversed by a global -r. */
static int line_cmp_from(const tsort *t, int first, const uint8_t *a, size_t alen,
                         const uint8_t *b, size_t blen)
{
    int diff;
    if (t->nkeys) {
        diff = keys_cmp(t, first, a, alen, b, blen);
        if (diff || t->o.unique || t->o.stable) return diff;
    }
    if (alen == 0) diff = -(blen != 0);
    else if (blen == 0) diff = 1;
    else {
        diff = memcmp(a, b, alen < blen ? alen : blen);
        if (!diff) diff = alen < blen ? -1 : alen != blen;
    }
    return t->o.reverse ? -diff : diff;
}

static int line_cmp(void *arg, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return line_cmp_from((const tsort *)arg, 0, a, alen, b, blen);
}

/* ---- the in-memory sort ---- */

/* Lines: line i is bytes[off[i], off[i+1] - gap): gap 1 while delimiters are in the buffer,
 * 0 after compaction. */
typedef struct lineset {
    uint8_t *bytes;
    uint64_t *off;             /* n + 1 entries */
    size_t n;
    int gap;
} lineset;

static inline const uint8_t *LP(const lineset *L, uint64_t i) { return L->bytes + L->off[i]; }
static inline size_t LL(const lineset *L, uint64_t i)
{
    return (size_t)(L->off[i + 1] - L->off[i]) - (size_t)L->gap;
}

typedef struct par {
    tsort *t;
    lineset *L;
    size_t n;
    int parts;
    /* per task */
    void *a, *b, *c;
    size_t *counts;
} par;

static void slice(size_t n, int parts, size_t i, size_t *a, size_t *b)
{
    *a = n * i / (size_t)parts;
    *b = n * (i + 1) / (size_t)parts;
}

static int parts_for(const tsort *t, size_t n)
{
    return n < PARALLEL_MIN_LINES ? 1 : t->threads;
}

static void run_par(par *p, void (*fn)(void *, size_t))
{
    gpusort__cpu_parallel_for(p->parts, (size_t)p->parts, fn, p);
}

/* Index lines: buf[0, size) where every line ends with the delimiter. */
typedef struct idx_job {
    const uint8_t *buf;
    size_t size;
    int delim, parts;
    size_t *count;
    uint64_t *off;
} idx_job;

/* 8 bytes as a little-endian word (byte 0 lowest) on any host. */
static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* High bit set in each byte of the word that equals the delimiter, exactly (no carries between
 * bytes: 0x7F + 0x7F < 0x100), so every set bit is a real delimiter. */
static inline uint64_t delim_bits(const uint8_t *p, uint64_t pattern)
{
    uint64_t v = load_le64(p) ^ pattern;
    return ~(((v & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | v | 0x7F7F7F7F7F7F7F7Full);
}

static void idx_count_task(void *arg, size_t i)
{
    idx_job *j = (idx_job *)arg;
    size_t a, b;
    slice(j->size, j->parts, i, &a, &b);
    size_t c = 0, x = a;
    uint64_t pattern = 0x0101010101010101ull * (uint8_t)j->delim;
    for (; x + 8 <= b; x += 8) c += (size_t)__builtin_popcountll(delim_bits(j->buf + x, pattern));
    for (; x < b; x++) c += j->buf[x] == (uint8_t)j->delim;
    j->count[i] = c;
}

static void idx_fill_task(void *arg, size_t i)
{
    idx_job *j = (idx_job *)arg;
    size_t a, b;
    slice(j->size, j->parts, i, &a, &b);
    size_t k = j->count[i];        /* first line index ending in this slice */
    uint64_t pattern = 0x0101010101010101ull * (uint8_t)j->delim;
    size_t x = a;
    for (; x + 8 <= b; x += 8)      /* a word at a time: the lines are short */
        for (uint64_t z = delim_bits(j->buf + x, pattern); z; z &= z - 1)
            j->off[++k] = (uint64_t)x + (uint64_t)(__builtin_ctzll(z) >> 3) + 1;
    for (; x < b; x++)
        if (j->buf[x] == (uint8_t)j->delim) j->off[++k] = (uint64_t)x + 1;
}

static void index_lines(tsort *t, uint8_t *buf, size_t size, lineset *L)
{
    idx_job j = {buf, size, t->delim, size < ((size_t)8 << 20) ? 1 : t->threads, NULL, NULL};
    j.count = (size_t *)xmalloc((size_t)j.parts * sizeof *j.count);
    gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, idx_count_task, &j);
    size_t n = 0;
    for (int i = 0; i < j.parts; i++) {
        size_t c = j.count[i];
        j.count[i] = n;
        n += c;
    }
    j.off = (uint64_t *)big_malloc((n + 1) * sizeof *j.off);
    j.off[0] = 0;
    gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, idx_fill_task, &j);
    free(j.count);
    L->bytes = buf;
    L->off = j.off;
    L->n = n;
    L->gap = 1;
}

/* Squeeze the delimiters out, in place: each slice compacts to its own start (moves to the
 * left inside the slice, safe in parallel), then the slices move down in order. */
static void compact_task(void *arg, size_t i)
{
    par *p = (par *)arg;
    lineset *L = p->L;
    size_t a, b;
    slice(L->n, p->parts, i, &a, &b);
    if (a == b) return;
    uint64_t base = L->off[a], w = base;
    uint64_t *newoff = (uint64_t *)p->a;
    for (size_t x = a; x < b; x++) {
        size_t len = (size_t)(L->off[x + 1] - L->off[x]) - 1;
        memmove(L->bytes + w, L->bytes + L->off[x], len);
        newoff[x] = w;        /* local position for now */
        w += len;
    }
    p->counts[i] = (size_t)(w - base);
}

static void compact_lines(tsort *t, lineset *L)
{
    par p = {t, L, L->n, parts_for(t, L->n), NULL, NULL, NULL, NULL};
    uint64_t *newoff = (uint64_t *)big_malloc((L->n + 1) * sizeof *newoff);
    p.a = newoff;
    p.counts = (size_t *)xmalloc((size_t)p.parts * sizeof *p.counts);
    run_par(&p, compact_task);
    uint64_t w = 0;
    for (int i = 0; i < p.parts; i++) {
        size_t a, b;
        slice(L->n, p.parts, (size_t)i, &a, &b);
        if (a == b) continue;
        uint64_t local = L->off[a];
        memmove(L->bytes + w, L->bytes + local, p.counts[i]);
        for (size_t x = a; x < b; x++) newoff[x] = newoff[x] - local + w;
        w += p.counts[i];
    }
    newoff[L->n] = w;
    free(p.counts);
    free(L->off);
    L->off = newoff;
    L->gap = 0;
}

/* Pack the first key's bytes (after -b/-d/-i/-f) of every line: key i = kb[ko[i], ko[i+1]). */
typedef struct pack_job {
    tsort *t;
    lineset *L;
    int parts;
    uint64_t *ko;
    uint8_t *kb;
    size_t *total;
} pack_job;

static size_t pack_one(const tsort *t, const tkey *k, const uint8_t *p, size_t len, uint8_t *out)
{
    const uint8_t *b, *e;
    key_span(t, k, p, len, &b, &e);
    size_t n = 0;
    if (!k->ignore && !k->translate) {
        if (out) memcpy(out, b, (size_t)(e - b));
        return (size_t)(e - b);
    }
    for (; b < e; b++) {
        if (k->ignore && k->ignore[*b]) continue;
        if (out) out[n] = k->translate ? k->translate[*b] : *b;
        n++;
    }
    return n;
}

static void pack_size_task(void *arg, size_t i)
{
    pack_job *j = (pack_job *)arg;
    size_t a, b, s = 0;
    slice(j->L->n, j->parts, i, &a, &b);
    for (size_t x = a; x < b; x++) {
        size_t len = pack_one(j->t, &j->t->keys[0], LP(j->L, x), LL(j->L, x), NULL);
        j->ko[x] = len;
        s += len;
    }
    j->total[i] = s;
}

static void pack_fill_task(void *arg, size_t i)
{
    pack_job *j = (pack_job *)arg;
    size_t a, b;
    slice(j->L->n, j->parts, i, &a, &b);
    uint64_t w = j->total[i];
    for (size_t x = a; x < b; x++) {
        uint64_t len = j->ko[x];
        j->ko[x] = w;
        pack_one(j->t, &j->t->keys[0], LP(j->L, x), LL(j->L, x), j->kb + w);
        w += len;
    }
}

/* Numeric images of the first key. */
/* SWAR parse of the decimal digits at q (at most 8, and not past lim): appends them to *u and
 * returns how many there were. Reads 8 bytes at q: the input buffer has BUF_SLACK bytes past
 * its data. A byte is a digit when its high nibble is 3 both before and after adding 6 (a carry
 * out of a non-digit byte can only disturb bytes after it). Value of 8 digits: Lemire's
 * "parse_eight_digits_unrolled" (three multiplies). */
static inline int digits8(const uint8_t *q, const uint8_t *lim, uint64_t *u)
{
    uint64_t x = load_le64(q);
    uint64_t bad = ((x & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull) |
                   (((x + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) ^ 0x3030303030303030ull);
    int n = bad ? __builtin_ctzll(bad) / 8 : 8;
    if ((size_t)(lim - q) < (size_t)n) n = (int)(lim - q);
    if (n == 0) return 0;
    static const uint64_t pow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000};
    /* Keep the n digits, move them to the top (most significant = last in memory) and pad the
     * low bytes with '0' so that the 8-digit formula reads the number right-aligned. */
    if (n < 8) x = (x << (8 * (8 - n))) | (0x3030303030303030ull >> (8 * n));
    x -= 0x3030303030303030ull;
    x = x * 10 + (x >> 8);
    x = (((x & 0x000000FF000000FFull) * 0x000F424000000064ull) +
         (((x >> 16) & 0x000000FF000000FFull) * 0x0000271000000001ull)) >> 32;
    *u = *u * pow10[n] + (x & 0xFFFFFFFFull);
    return n;
}

/* Per-slice result of the image pass. */
typedef struct img_part {
    int all_int;               /* every -n key of the slice is an integer of <= 18 digits */
    int64_t min, max;
} img_part;

/* -n keys that are all integers (the common case) sort by their exact value: first every slice
 * tries that (p->b = img_part per slice, p->c non-NULL = forced images); one failure anywhere
 * and the whole set is redone as 64-bit decimal-float images. */
static void image_task(void *arg, size_t i)
{
    par *p = (par *)arg;
    const tsort *t = p->t;
    const tkey *k = &t->keys[0];
    uint64_t *img = (uint64_t *)p->a;
    img_part *ip = (img_part *)p->b + i;
    int try_int = k->numeric && !p->c;
    ip->all_int = try_int;
    ip->min = INT64_MAX;
    ip->max = INT64_MIN;
    size_t a, b;
    slice(p->L->n, p->parts, i, &a, &b);
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (size_t x = a; x < b; x++) {
        const uint8_t *kb, *ke;
        key_span(t, k, LP(p->L, x), LL(p->L, x), &kb, &ke);
        if (try_int) {
            /* One pass: blanks, sign, leading zeros, up to 18 digits, and a fraction only if
             * it is all zeros ("5.00" is the integer 5); anything else ends the attempt. */
            const uint8_t *q = kb;
            while (q < ke && blanks[*q]) q++;
            int neg = q < ke && *q == '-';
            q += neg;
            while (q < ke && *q == '0') q++;
            const uint8_t *ds = q;
            uint64_t u = 0;
            unsigned d;
            for (int c = 0; c < 3; c++) {        /* 8 digits at a time: up to 24 seen */
                int m = digits8(q, ke, &u);
                q += m;
                if (m < 8) break;
            }
            int ok = q - ds <= 18 && !(q < ke && (unsigned)(*q - '0') < 10);
            if (ok && q < ke && *q == '.')
                for (q++; q < ke && (d = (unsigned)(*q - '0')) < 10; q++)
                    if (d) { ok = 0; break; }
            if (ok) {
                int64_t v = neg ? -(int64_t)u : (int64_t)u;
                img[x] = (uint64_t)v;
                if (v < mn) mn = v;
                if (v > mx) mx = v;
                continue;
            }
            ip->all_int = 0;
            return;                 /* the caller redoes everything as images */
        }
        uint64_t v = k->numeric ? num_image(kb, ke) : gen_image(kb, ke, k->translate);
        img[x] = k->reverse ? ~v : v;
    }
    ip->min = mn;
    ip->max = mx;
}

/* perm (u64, p->a) = perm32 (p->b). */
static void widen_task(void *arg, size_t i)
{
    par *p = (par *)arg;
    size_t a, b;
    slice(p->L->n, p->parts, i, &a, &b);
    uint64_t *d = (uint64_t *)p->a;
    const uint32_t *src = (const uint32_t *)p->b;
    for (size_t x = a; x < b; x++) d[x] = src[x];
}

/* Integer keys to unsigned offsets from the minimum (or from the maximum, reversed), so that
 * the radix sort skips the high digits that do not vary; in 32 bits when the range allows. */
static void offset_task(void *arg, size_t i)
{
    par *p = (par *)arg;
    uint64_t *img = (uint64_t *)p->a;
    const int64_t *mm = (const int64_t *)p->c;   /* min, max, reverse, narrow */
    size_t a, b;
    slice(p->L->n, p->parts, i, &a, &b);
    uint64_t lo = (uint64_t)mm[0], hi = (uint64_t)mm[1];
    if (mm[3]) {
        uint32_t *o32 = (uint32_t *)p->a;       /* narrowed in place: slot x <= 8x */
        for (size_t x = a; x < b; x++) {
            uint64_t v = img[x];
            o32[x] = (uint32_t)(mm[2] ? hi - v : v - lo);
        }
    } else {
        for (size_t x = a; x < b; x++) img[x] = mm[2] ? hi - img[x] : img[x] - lo;
    }
}

/* Ties: runs [lo, hi) of perm that tie on the first key are merge-sorted with line_cmp. */
typedef struct tie_job {
    tsort *t;
    lineset *L;
    uint64_t *perm, *tmp;
    const uint64_t *runs;      /* pairs lo, hi */
    size_t nruns;
    int parts;
    int first;                 /* first key line_cmp needs (1: key 0 is known equal) */
} tie_job;

static inline int tie_cmp(const tie_job *j, uint64_t a, uint64_t b)
{
    return line_cmp_from(j->t, j->first, LP(j->L, a), LL(j->L, a), LP(j->L, b), LL(j->L, b));
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
    slice(j->nruns, j->parts, i, &a, &b);
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
    uint64_t *runs = (uint64_t *)xmalloc(cap * 2 * sizeof *runs);
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && eq(eqarg, e)) e++;
        if (e - i > 1) {
            if (nr == cap) {
                cap *= 2;
                uint64_t *nrn = (uint64_t *)realloc(runs, cap * 2 * sizeof *runs);
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
    cli_fail("%s failed: %s (%s)", what, gpusort_status_string(s), gpusort_ctx_last_error(t->ctx));
}

/* After a library failure on a GPU context that --backend auto picked (device memory too small,
 * an unsupported size, ...): switch to the CPU backend and return 1 so the caller retries.
 * A backend the user named is never replaced: its failure is the answer. */
static int lib_fallback(tsort *t, gpusort_status s)
{
    if (s == GPUSORT_STATUS_INVALID_ARGUMENT || t->o.backend != GPUSORT_BACKEND_AUTO ||
        gpusort_ctx_backend(t->ctx) == GPUSORT_BACKEND_CPU)
        return 0;
    text_opts cpu = t->o;
    cpu.backend = GPUSORT_BACKEND_CPU;
    gpusort_ctx *c = text_context(&cpu);
    gpusort_ctx_free(t->ctx);
    t->ctx = c;
    return 1;
}

/* 1 if key k is the whole line with plain bytes (the packed key would be the line itself). */
static int key_is_line(const tkey *k)
{
    return k->sword == SIZE_MAX && k->eword == SIZE_MAX && !k->skipsblanks && !k->ignore &&
           !k->translate && !k->numeric && !k->general;
}

/* Sort the lines; returns the permutation (n entries). */
static uint64_t *sort_lines(tsort *t, lineset *L)
{
    size_t n = L->n;
    uint64_t *perm = (uint64_t *)big_malloc((n ? n : 1) * sizeof *perm);
    if (n == 0) return perm;
    const tkey *k0 = t->nkeys ? &t->keys[0] : NULL;
    gpusort_status s;

    if (!k0 || key_is_line(k0)) {
        /* Byte order of whole lines: compact and sort the strings. */
        compact_lines(t, L);
        phase("compact");
        int desc = k0 ? k0->reverse : t->o.reverse;
    again_lines:
        s = gpusort_sort_strings(t->ctx, L->bytes, L->off, n,
                                 desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, GPUSORT_TYPE_U64,
                                 perm);
        if (s && lib_fallback(t, s)) goto again_lines;
        if (s) lib_fail(t, "string sort", s);
        phase("sort");
        if (t->nkeys > 1) {
            /* Ties are identical lines, but later keys may still differ... they cannot: every
             * key of an identical line is identical. Nothing to resolve. */
        }
        return perm;
    }

    if (k0->numeric || k0->general) {
        par p = {t, L, n, parts_for(t, n), NULL, NULL, NULL, NULL};
        uint64_t *img = (uint64_t *)xmalloc(n * sizeof *img);
        img_part *parts = (img_part *)xmalloc((size_t)p.parts * sizeof *parts);
        p.a = img;
        p.b = parts;
        run_par(&p, image_task);
        int all_int = k0->numeric;
        int64_t mn = INT64_MAX, mx = INT64_MIN;
        for (int i = 0; i < p.parts; i++) {
            all_int &= parts[i].all_int;
            if (parts[i].min < mn) mn = parts[i].min;
            if (parts[i].max > mx) mx = parts[i].max;
        }
        int narrow = 0;
        if (!all_int) {
            p.c = img;                              /* force images */
            run_par(&p, image_task);
        } else {
            /* Within one slice the 32-bit narrowing writes slot x (4x bytes) after reading
             * slot x (8x bytes): never ahead of the reads. Across slices it would overwrite
             * unread keys, so narrow with one slice per pass of the key array. */
            narrow = (uint64_t)mx - (uint64_t)mn <= UINT32_MAX;
            int64_t mm[4] = {mn, mx, k0->reverse, narrow};
            p.c = mm;
            if (narrow) p.parts = 1;
            run_par(&p, offset_task);
            p.parts = parts_for(t, n);
        }
        free(parts);
        phase("keys");
        int idx32 = n <= UINT32_MAX;
        size_t ksz = narrow ? 4 : 8;
        void *sorted = xmalloc(n * ksz);
        uint32_t *perm32 = idx32 ? (uint32_t *)xmalloc(n * sizeof *perm32) : NULL;
        gpusort_sort_desc d = {narrow ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64, img, sorted,
                               idx32 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_U64, NULL,
                               idx32 ? (void *)perm32 : (void *)perm, n, GPUSORT_ORDER_ASC,
                               GPUSORT_ALGORITHM_AUTO, 0};
        s = gpusort_sort_ex(t->ctx, &d);
        if (s && lib_fallback(t, s)) s = gpusort_sort_ex(t->ctx, &d);
        if (s) lib_fail(t, "numeric key sort", s);
        if (idx32) {
            p.a = perm;
            p.b = perm32;
            run_par(&p, widen_task);
            free(perm32);
        }
        phase("sort");
        free(img);
        eq_img q = {sorted, narrow};
        uint64_t *tmp = (uint64_t *)xmalloc(n * sizeof *tmp);
        resolve_ties(t, L, perm, tmp, 0, eq_image, &q);
        phase("ties");
        free(tmp);
        free(sorted);
        return perm;
    }

    /* A text first key: pack its bytes and sort them as strings. */
    pack_job j = {t, L, parts_for(t, n), NULL, NULL, NULL};
    j.ko = (uint64_t *)xmalloc((n + 1) * sizeof *j.ko);
    j.total = (size_t *)xmalloc((size_t)j.parts * sizeof *j.total);
    gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, pack_size_task, &j);
    size_t sum = 0;
    for (int i = 0; i < j.parts; i++) {
        size_t c = j.total[i];
        j.total[i] = sum;
        sum += c;
    }
    j.kb = (uint8_t *)xmalloc(sum);
    gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, pack_fill_task, &j);
    j.ko[n] = sum;
    phase("keys");
again_keys:
    s = gpusort_sort_strings(t->ctx, j.kb, j.ko, n,
                             k0->reverse ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC,
                             GPUSORT_TYPE_U64, perm);
    if (s && lib_fallback(t, s)) goto again_keys;
    if (s) lib_fail(t, "key sort", s);
    phase("sort");
    int need = t->nkeys > 1 || (!t->o.stable && !t->o.unique);
    if (need) {
        eq_str q = {j.kb, j.ko, perm};
        uint64_t *tmp = (uint64_t *)xmalloc(n * sizeof *tmp);
        resolve_ties(t, L, perm, tmp, 1, eq_packed, &q);
        phase("ties");
        free(tmp);
    }
    free(j.kb);
    free(j.ko);
    free(j.total);
    return perm;
}

/* Write the lines in perm order (-u: the first of each group of equal lines). The gather is
 * random access into the line data, so threads format slices of the output into their own
 * buffers (prefetching a few lines ahead), and the buffers are written in order. */
#define WRITE_SLICE_LINES ((size_t)1 << 18)   /* lines per thread per round: a few MB */
#define PREFETCH_AHEAD 32

typedef struct wjob {
    tsort *t;
    const lineset *L;
    const uint64_t *perm;
    size_t base, count;
    int parts;
    uint8_t **buf;
    size_t *len, *cap;
} wjob;

static void write_task(void *arg, size_t i)
{
    wjob *j = (wjob *)arg;
    const lineset *L = j->L;
    const uint64_t *perm = j->perm;
    size_t a, b;
    slice(j->count, j->parts, i, &a, &b);
    a += j->base;
    b += j->base;
    size_t len = 0, cap = j->cap[i];
    uint8_t *out = j->buf[i];
    uint8_t delim = (uint8_t)j->t->delim;
    int unique = j->t->o.unique;
    for (size_t k = a; k < b; k++) {
        if (k + 2 * PREFETCH_AHEAD < b) __builtin_prefetch(&L->off[perm[k + 2 * PREFETCH_AHEAD]]);
        if (k + PREFETCH_AHEAD < b) __builtin_prefetch(L->bytes + L->off[perm[k + PREFETCH_AHEAD]]);
        uint64_t x = perm[k];
        const uint8_t *p = LP(L, x);
        size_t n = LL(L, x);
        if (unique && k > 0) {
            /* Equal neighbours are all equal to the first of their group (sorted order). */
            uint64_t y = perm[k - 1];
            if (line_cmp(j->t, LP(L, y), LL(L, y), p, n) == 0) continue;
        }
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            uint8_t *nb = (uint8_t *)realloc(out, cap);
            if (!nb) cli_fail("out of memory for the output buffer");
            out = nb;
        }
        if (n <= 16 && len + 16 < cap) {
            memcpy(out + len, p, 16);          /* BUF_SLACK makes the over-read safe */
        } else if (n <= 32 && len + 32 < cap) {
            memcpy(out + len, p, 32);
        } else {
            memcpy(out + len, p, n);
        }
        out[len + n] = delim;
        len += n + 1;
    }
    j->buf[i] = out;
    j->cap[i] = cap;
    j->len[i] = len;
}

static void write_lines(tsort *t, const lineset *L, const uint64_t *perm, ext_sink *sink)
{
    size_t n = L->n;
    wjob j = {t, L, perm, 0, 0, parts_for(t, n), NULL, NULL, NULL};
    j.buf = (uint8_t **)xmalloc((size_t)j.parts * sizeof *j.buf);
    j.len = (size_t *)xmalloc((size_t)j.parts * sizeof *j.len);
    j.cap = (size_t *)xmalloc((size_t)j.parts * sizeof *j.cap);
    for (int i = 0; i < j.parts; i++) {
        j.buf[i] = NULL;
        j.cap[i] = 0;
    }
    /* Output slices take at most an eighth of the budget. */
    size_t avg = n ? (size_t)(L->off[n] - L->off[0]) / n + 1 : 1;
    size_t per = (size_t)(t->o.budget / 8 / (uint64_t)j.parts / avg);
    if (per > WRITE_SLICE_LINES) per = WRITE_SLICE_LINES;
    if (per < 1024) per = 1024;
    for (size_t base = 0; base < n; base += j.count) {
        j.base = base;
        j.count = n - base < per * (size_t)j.parts ? n - base : per * (size_t)j.parts;
        gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, write_task, &j);
        for (int i = 0; i < j.parts; i++) ext_sink_write(sink, j.buf[i], j.len[i]);
    }
    for (int i = 0; i < j.parts; i++) free(j.buf[i]);
    free(j.buf);
    free(j.len);
    free(j.cap);
}

/* ---- input ---- */

typedef struct input {
    tsort *t;
    int file;               /* next file index */
    int fd;                 /* open file, or -1 */
    const char *name;
    int stdin_used;
    uint8_t *buf;
    size_t cap, len;        /* buf[0, len): data; complete lines up to the last delimiter */
    int cur_has_data;       /* the open file gave bytes not yet ended by a delimiter */
    int done;               /* all files read */
} input;

static void input_open_next(input *in)
{
    tsort *t = in->t;
    while (in->file < t->o.nfiles) {
        const char *f = t->o.files[in->file++];
        if (strcmp(f, "-") == 0) {
            in->fd = STDIN_FILENO;
            in->name = "-";
        } else {
            in->fd = open(f, O_RDONLY | O_CLOEXEC);
            if (in->fd < 0) cli_fail("cannot read: %s: %s", f, strerror(errno));
            in->name = f;
        }
        struct stat st;
        if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode))
            cli_fail("read failed: %s: %s", f, strerror(EISDIR));
        return;
    }
    in->fd = -1;
    in->done = 1;
}

/* Read until the chunk holds `want` bytes of data or the input ends. Appends the missing
 * delimiter of a file's last line. Grows the buffer up to `want` (+1 for that delimiter). */
static void input_fill(input *in, size_t want)
{
    tsort *t = in->t;
    if (in->cap < want + 1 + BUF_SLACK) {
        size_t ncap = want + 1 + BUF_SLACK;
        uint8_t *nb = (uint8_t *)realloc(in->buf, ncap);
        if (!nb) cli_fail("out of memory: %zu bytes for the input", ncap);
        in->buf = nb;
        in->cap = ncap;
    }
    while (!in->done && in->len < want) {
        if (in->fd < 0) {
            input_open_next(in);
            continue;
        }
        size_t room = want - in->len;
        if (room > ((size_t)256 << 20)) room = (size_t)256 << 20;   /* let signals in */
        ssize_t r = read(in->fd, in->buf + in->len, room);
        if (r < 0) {
            if (errno == EINTR) continue;
            cli_fail("read failed: %s: %s", in->name, strerror(errno));
        }
        if (r == 0) {
            if (in->cur_has_data && in->buf[in->len - 1] != (uint8_t)t->delim)
                in->buf[in->len++] = (uint8_t)t->delim;     /* the +1 of the capacity */
            in->cur_has_data = 0;
            if (in->fd != STDIN_FILENO) close(in->fd);
            in->fd = -1;
            if (in->file >= t->o.nfiles) in->done = 1;
            continue;
        }
        in->len += (size_t)r;
        in->cur_has_data = 1;
    }
}

/* All inputs are regular files that fit: read them whole, big ones by all threads at once
 * (ext_read_parallel: the kernel's copy into our buffer is then parallel too). */
static void input_load_all(input *in, size_t want)
{
    tsort *t = in->t;
    in->cap = want + 1 + BUF_SLACK;
    free(in->buf);
    in->buf = (uint8_t *)big_malloc(in->cap);
    for (int f = 0; f < t->o.nfiles; f++) {
        const char *name = t->o.files[f];
        int fd = open(name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) cli_fail("cannot read: %s: %s", name, strerror(errno));
        struct stat st;
        if (fstat(fd, &st) != 0) cli_fail("cannot read: %s: %s", name, strerror(errno));
        size_t size = (size_t)st.st_size;
        if (size > want - in->len) size = want - in->len;   /* grew since we looked */
        size_t total = ext_read_parallel(fd, in->buf + in->len, size,
                                         size >= ((size_t)16 << 20) ? t->threads : 1, name);
        close(fd);
        in->len += total;
        if (total && in->buf[in->len - 1] != (uint8_t)t->delim) in->buf[in->len++] = (uint8_t)t->delim;
    }
    in->done = 1;
}

/* Sum of the input sizes if all are regular files, else 0. */
static uint64_t inputs_size(const tsort *t, int *known)
{
    uint64_t s = 0;
    *known = 1;
    for (int i = 0; i < t->o.nfiles; i++) {
        struct stat st;
        if (strcmp(t->o.files[i], "-") == 0 || stat(t->o.files[i], &st) != 0 ||
            !S_ISREG(st.st_mode)) {
            *known = 0;
            continue;
        }
        s += (uint64_t)st.st_size;
    }
    return s;
}

static uint64_t estimate_lines(const tsort *t, uint64_t total)
{
    static uint8_t sample[(size_t)1 << 20];
    for (int i = 0; i < t->o.nfiles; i++) {
        int fd = open(t->o.files[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t r = pread(fd, sample, sizeof sample, 0);
        close(fd);
        if (r <= 0) continue;
        size_t lines = 0;
        for (ssize_t k = 0; k < r; k++) lines += sample[k] == (uint8_t)t->delim;
        if (!lines) return total / (uint64_t)r + 1;       /* long lines */
        return (uint64_t)((double)total * (double)lines / (double)r * 1.1) + 1;
    }
    return total / 16 + 1;
}

static uint64_t mem_needed(const tsort *t, uint64_t bytes, uint64_t lines)
{
    int packed = t->nkeys && !key_is_line(&t->keys[0]) && !t->keys[0].numeric &&
                 !t->keys[0].general;
    return bytes * (packed ? 2 : 1) + lines * BYTES_PER_LINE;
}

static size_t count_delims(const uint8_t *p, size_t n, int delim)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += p[i] == (uint8_t)delim;
    return c;
}

/* Sort the text input (not -m, not -c). */
static void sort_text(tsort *t)
{
    cli_out out;
    int known;
    uint64_t total = inputs_size(t, &known);
    uint64_t budget = t->o.budget;
    /* Data bytes a chunk may hold: the budget less the per-line bookkeeping of short lines. */
    uint64_t chunk = budget / 2;
    if (chunk < ((uint64_t)64 << 10)) chunk = (uint64_t)64 << 10;
    if (chunk > (uint64_t)SIZE_MAX / 2) chunk = (uint64_t)SIZE_MAX / 2;

    input in;
    memset(&in, 0, sizeof in);
    in.t = t;
    in.fd = -1;
    extsort x;
    extsort_items items = {.delim = t->delim, .cmp = line_cmp, .arg = t, .unique = t->o.unique};
    extsort_init(&x, &items, t->o.tmpdirs, t->o.ntmpdirs, budget, t->o.fanin);
    int spilled = 0;

    /* The whole input in one go when its size is known and fits, with the line count estimated
     * from the first MiB of the first non-empty file (plus 10 %). */
    size_t want = (size_t)chunk;
    if (known && mem_needed(t, total, estimate_lines(t, total)) <= budget)
        want = (size_t)total + (size_t)t->o.nfiles;
    cli_progress_start("sorting", 0);
    phase(NULL);
    for (;;) {
        /* Fill in steps so that a chunk of tiny lines stops at the budget. */
        size_t lines = 0, scanned = 0;
        if (known && want == (size_t)total + (size_t)t->o.nfiles && in.len == 0 && !in.done)
            input_load_all(&in, want);
        for (; !in.done;) {
            size_t step = want;
            if (!(known && want == (size_t)total + (size_t)t->o.nfiles)) {
                /* Read only what the budget still has room for, at the bytes-per-line seen so
                 * far (8-byte lines assumed before any line has ended). */
                uint64_t used = mem_needed(t, in.len, lines);
                if (used >= budget && lines > 0) break;   /* no line yet: read on regardless */
                double per_byte = in.len && lines ? (double)used / (double)in.len
                                                  : (double)mem_needed(t, 8, 1) / 8.0;
                double add = (double)(budget - (used < budget ? used : budget)) / per_byte;
                if (add < 4096) add = 4096;
                if (lines == 0 && add < (double)in.len) add = (double)in.len;  /* long line: double */
                if (add > (double)((size_t)64 << 20)) add = (double)((size_t)64 << 20);
                if (in.len + (size_t)add < step) step = in.len + (size_t)add;
            }
            input_fill(&in, step);
            lines += count_delims(in.buf + scanned, in.len - scanned, t->delim);
            scanned = in.len;
            if (in.done || in.len >= want) break;
            if (mem_needed(t, in.len, lines) > budget) break;
        }
        /* Complete lines only: the tail after the last delimiter waits for the next chunk. */
        size_t end = in.len;
        while (end > 0 && in.buf[end - 1] != (uint8_t)t->delim) end--;
        if (end == 0 && !in.done) {            /* one line longer than the chunk: grow */
            want = in.len * 2 > want ? in.len * 2 : want;
            continue;
        }
        int last = in.done && end == in.len;
        lineset L;
        phase("read");
        index_lines(t, in.buf, end, &L);
        phase("index");
        uint64_t *perm = sort_lines(t, &L);
        if (last && !spilled) {
            cli_progress_end();
            cli_out_open(&out, t->o.outfile);
            ext_sink s;
            ext_sink_to_out(&s, &out);
            write_lines(t, &L, perm, &s);
            ext_sink_close(&s);
            phase("write");
            cli_out_commit(&out);
            phase("commit");
            free(perm);
            free(L.off);
            break;
        }
        ext_sink s;
        extsort_run_open(&x, &s);
        write_lines(t, &L, perm, &s);
        extsort_run_close(&x, &s);
        phase("run");
        spilled = 1;
        free(perm);
        free(L.off);
        /* Keep the partial line (original bytes: compaction only touched [0, end)). */
        memmove(in.buf, in.buf + end, in.len - end);
        in.len -= end;
        if (last) {
            cli_progress_end();
            cli_out_open(&out, t->o.outfile);
            extsort_finish(&x, &out);
            cli_out_commit(&out);
            phase("merge");
            break;
        }
        want = (size_t)chunk;
    }
    free(in.buf);
    extsort_free(&x);
}

/* ---- -c / -C ---- */

static int check_file(tsort *t)
{
    ext_reader r;
    ext_reader_open(&r, t->o.files[0], (size_t)1 << 20, 0, t->delim);
    const uint8_t *p;
    size_t len;
    size_t prev_len = 0, prev_cap = 64;
    uint8_t *prev = (uint8_t *)xmalloc(prev_cap);
    uint64_t line = 0;
    int have = 0;
    while (ext_reader_next(&r, &p, &len)) {
        line++;
        if (have) {
            int c = line_cmp(t, prev, prev_len, p, len);
            if (c > 0 || (t->o.unique && c == 0)) {
                if (t->o.check == 'c') {
                    fflush(stdout);
                    fprintf(stderr, "gpusort: %s:%llu: disorder: ", r.name,
                            (unsigned long long)line);
                    fwrite(p, 1, len, stderr);
                    fputc(t->delim, stderr);
                    fflush(stderr);
                }
                free(prev);
                ext_reader_close(&r);
                return 1;
            }
        }
        if (len > prev_cap) {
            prev_cap = len * 2 + 64;
            free(prev);
            prev = (uint8_t *)xmalloc(prev_cap);
        }
        memcpy(prev, p, len);
        prev_len = len;
        have = 1;
    }
    free(prev);
    ext_reader_close(&r);
    return 0;
}

/* ---- options ---- */

static const char usage_text[] =
    "Usage: gpusort [OPTION]... [FILE]...\n"
    "Sort lines of text like `LC_ALL=C sort` (GNU coreutils), with the same options and\n"
    "byte-identical output, on a GPU when one is present (--backend), else on all CPU cores.\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "Ordering options (also as -k modifiers):\n"
    "  -b, --ignore-leading-blanks  ignore leading blanks\n"
    "  -d, --dictionary-order       consider only blanks and alphanumeric characters\n"
    "  -f, --ignore-case            fold lower case to upper case characters\n"
    "  -g, --general-numeric-sort   compare according to general numerical value (strtold)\n"
    "  -i, --ignore-nonprinting     consider only printable characters\n"
    "  -n, --numeric-sort           compare according to string numerical value\n"
    "  -r, --reverse                reverse the result of comparisons\n"
    "Other options:\n"
    "  -c, --check, --check=diagnose-first  check for sorted input; do not sort\n"
    "  -C, --check=quiet, --check=silent    like -c, but do not report the first bad line\n"
    "  -k, --key=KEYDEF             sort via a key: F[.C][OPTS][,F[.C][OPTS]]\n"
    "  -m, --merge                  merge already sorted files; do not sort\n"
    "  -o, --output=FILE            write to FILE (written atomically; may be an input)\n"
    "  -s, --stable                 disable last-resort comparison\n"
    "  -S, --buffer-size=SIZE       memory budget (default 50% of RAM); suffixes % b K M G T\n"
    "                               P E; a bare number is KiB as in GNU sort. Larger inputs are\n"
    "                               sorted in runs written to -T and merged.\n"
    "  -t, --field-separator=SEP    use SEP instead of non-blank to blank transition\n"
    "  -T, --temporary-directory=DIR  temporary files in DIR ($TMPDIR or /tmp); repeatable\n"
    "      --parallel=N             use N threads (default: all cores)\n"
    "      --batch-size=N           merge at most N runs at once (default 64)\n"
    "  -u, --unique                 output only the first of an equal run\n"
    "  -z, --zero-terminated        line delimiter is NUL, not newline\n"
    "gpusort options:\n"
    "      --backend=auto|cpu|cuda|opencl   library backend (default auto)\n"
    "      --device=N               device of the backend\n"
    "      --record-size=R --key-size=K [--key-offset=O]\n"
    "                               sort fixed-size binary records by the bytes\n"
    "                               [O, O+K) of each (gensort: R=100, K=10, O=0)\n"
    "      --quiet                  no progress on stderr\n"
    "      --help                   this text\n"
    "\n"
    "Not supported (refused, exit 2): -h, -M, -R, -V, --sort, --random-source, --debug,\n"
    "--files0-from, --compress-program, and locales whose collation is not byte order:\n"
    "gpusort always compares bytes, as LC_ALL=C sort does (C, POSIX and C.UTF-8 are accepted).\n"
    "Exit status: 0 success, 1 -c/-C found disorder, 2 error.\n";

static void badfieldspec(const char *spec, const char *msg)
{
    cli_fail("%s: invalid field specification '%s'", msg, spec);
}

/* Parse a decimal count; on overflow saturate at SIZE_MAX as GNU does. */
static const char *parse_count(const char *s, size_t *v, const char *spec, const char *msg)
{
    if (!isdigit((unsigned char)*s))
        cli_fail("%s: invalid count at start of '%s'", msg, s);
    size_t x = 0;
    int over = 0;
    while (isdigit((unsigned char)*s)) {
        unsigned d = (unsigned)(*s++ - '0');
        if (x > (SIZE_MAX - d) / 10) over = 1;
        else x = x * 10 + d;
    }
    *v = over ? SIZE_MAX : x;
    (void)spec;
    return s;
}

enum blanktype { BL_START, BL_END, BL_BOTH };

static const char *set_ordering(const char *s, tkey *k, enum blanktype bt)
{
    for (;; s++) {
        switch (*s) {
        case 'b':
            if (bt != BL_END) k->skipsblanks = 1;
            if (bt != BL_START) k->skipeblanks = 1;
            break;
        case 'd': k->ignore = nondict; break;
        case 'f': k->translate = fold_upper; break;
        case 'g': k->general = 1; break;
        case 'i': if (!k->ignore) k->ignore = nonprint; break;
        case 'n': k->numeric = 1; break;
        case 'r': k->reverse = 1; break;
        case 'h': case 'M': case 'R': case 'V':
            cli_fail("ordering '%c' (%s) is not supported by gpusort", *s,
                     *s == 'h' ? "human-numeric" : *s == 'M' ? "month" : *s == 'R' ? "random"
                                                                               : "version");
        default: return s;
        }
    }
}

static void parse_key(const char *spec, tkey *k)
{
    memset(k, 0, sizeof *k);
    const char *s = parse_count(spec, &k->sword, spec, "invalid number at field start");
    if (k->sword-- == 0) badfieldspec(spec, "field number is zero");
    if (*s == '.') {
        s = parse_count(s + 1, &k->schar, spec, "invalid number after '.'");
        if (k->schar-- == 0) badfieldspec(spec, "character offset is zero");
    }
    if (!(k->sword || k->schar)) k->sword = SIZE_MAX;
    s = set_ordering(s, k, BL_START);
    if (*s != ',') {
        k->eword = SIZE_MAX;
        k->echar = 0;
    } else {
        s = parse_count(s + 1, &k->eword, spec, "invalid number after ','");
        if (k->eword-- == 0) badfieldspec(spec, "field number is zero");
        if (*s == '.') s = parse_count(s + 1, &k->echar, spec, "invalid number after '.'");
        s = set_ordering(s, k, BL_END);
    }
    if (*s) badfieldspec(spec, "stray character in field spec");
}

/* GNU's obsolete key syntax, still accepted by GNU sort 9 by default: +POS1 [-POS2] with
 * 0-based fields and characters: +A.x -B.y is -k A+1.x+1,B.y (y = 0: -k A+1.x+1,B). Returns 0
 * when pos1 is not a valid +POS1 (then it is a file name, as for GNU). */
static int obsolete_count(const char **s, size_t *v)
{
    if (!isdigit((unsigned char)**s)) return 0;
    size_t x = 0;
    while (isdigit((unsigned char)**s)) {
        unsigned d = (unsigned)(*(*s)++ - '0');
        x = x > (SIZE_MAX - d) / 10 ? SIZE_MAX : x * 10 + d;
    }
    *v = x;
    return 1;
}

static int parse_obsolete_key(const char *pos1, const char *pos2, tkey *k)
{
    memset(k, 0, sizeof *k);
    const char *s = pos1 + 1;
    if (!obsolete_count(&s, &k->sword)) return 0;
    if (*s == '.') {
        s++;
        if (!obsolete_count(&s, &k->schar)) return 0;
    }
    if (!(k->sword || k->schar)) k->sword = SIZE_MAX;
    for (const char *q = s; *q; q++)
        if (!strchr("bdfgimnrhMRV", *q)) return 0;
    s = set_ordering(s, k, BL_START);
    if (*s) return 0;
    if (!pos2) {
        k->eword = SIZE_MAX;
        return 1;
    }
    s = pos2 + 1;
    obsolete_count(&s, &k->eword);
    if (*s == '.') {
        s++;
        if (!obsolete_count(&s, &k->echar))
            cli_fail("invalid number after '.': invalid count at start of '%s'", s);
    }
    if (!k->echar && k->eword) k->eword--;
    s = set_ordering(s, k, BL_END);
    if (*s) badfieldspec(pos2, "stray character in field spec");
    return 1;
}

/* GNU -S: a number with an optional suffix b % K M G T P E Z Y (a bare number is KiB). */
static int parse_buffer_size(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *e;
    unsigned long long v = strtoull(s, &e, 10);
    if (errno) return -1;
    long double r;
    if (*e == 0) r = (long double)v * 1024;
    else if (e[1] != 0) return -1;
    else if (*e == '%') {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        r = (long double)pages * (long double)page * (long double)v / 100;
    } else {
        static const char units[] = "bKMGTPEZY";
        const char *u = strchr(units, *e == 'k' ? 'K' : *e);
        if (!u || !*e) return -1;
        r = (long double)v;
        for (long i = 0; i < u - units; i++) r *= 1024;
    }
    *out = r > (long double)UINT64_MAX / 2 ? UINT64_MAX / 2 : (uint64_t)r;
    return 0;
}

/* The collation locale the user asked for; NULL when byte order. */
static const char *foreign_locale(void)
{
    const char *names[] = {"LC_ALL", "LC_COLLATE", "LANG"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        if (!v || !*v) continue;
        if (strcmp(v, "C") == 0 || strcmp(v, "POSIX") == 0 || strncmp(v, "C.", 2) == 0)
            return NULL;
        return v;
    }
    return NULL;
}

typedef struct longopt {
    const char *name;
    int has_arg;     /* 0 none, 1 required, 2 optional */
    int code;
} longopt;

enum {
    OPT_PARALLEL = 256, OPT_BATCH, OPT_BACKEND, OPT_DEVICE, OPT_RECSIZE, OPT_KEYSIZE,
    OPT_KEYOFF, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_CHECK, OPT_REFUSE
};

static const longopt longopts[] = {
    {"ignore-leading-blanks", 0, 'b'}, {"check", 2, OPT_CHECK}, {"dictionary-order", 0, 'd'},
    {"ignore-case", 0, 'f'}, {"general-numeric-sort", 0, 'g'}, {"ignore-nonprinting", 0, 'i'},
    {"key", 1, 'k'}, {"merge", 0, 'm'}, {"numeric-sort", 0, 'n'}, {"output", 1, 'o'},
    {"reverse", 0, 'r'}, {"stable", 0, 's'}, {"buffer-size", 1, 'S'},
    {"field-separator", 1, 't'}, {"temporary-directory", 1, 'T'}, {"unique", 0, 'u'},
    {"zero-terminated", 0, 'z'}, {"parallel", 1, OPT_PARALLEL}, {"batch-size", 1, OPT_BATCH},
    {"backend", 1, OPT_BACKEND}, {"device", 1, OPT_DEVICE}, {"record-size", 1, OPT_RECSIZE},
    {"key-size", 1, OPT_KEYSIZE}, {"key-offset", 1, OPT_KEYOFF}, {"quiet", 0, OPT_QUIET},
    {"help", 0, OPT_HELP}, {"version", 0, OPT_VERSION},
    {"human-numeric-sort", 0, OPT_REFUSE}, {"month-sort", 0, OPT_REFUSE},
    {"random-sort", 0, OPT_REFUSE}, {"version-sort", 0, OPT_REFUSE}, {"sort", 1, OPT_REFUSE},
    {"random-source", 1, OPT_REFUSE}, {"debug", 0, OPT_REFUSE}, {"files0-from", 1, OPT_REFUSE},
    {"compress-program", 1, OPT_REFUSE},
};
#define NUM_LONGOPTS ((int)(sizeof longopts / sizeof longopts[0]))

static uint64_t parse_uint_opt(const char *name, const char *v)
{
    uint64_t x;
    if (cli_parse_count(v, &x) != 0) cli_fail("invalid --%s argument '%s'", name, v);
    return x;
}

gpusort_ctx *text_context(const text_opts *o)
{
    gpusort_ctx *ctx = NULL;
    gpusort_status s = gpusort_ctx_create(&ctx, o->backend, o->device);
    if (s)
        cli_fail("cannot use the %s backend: %s", gpusort_backend_name(o->backend),
                 gpusort_status_string(s));
    if (o->threads) gpusort_ctx_set_threads(ctx, o->threads);
    return ctx;
}

int gpusort_cli_text_main(int argc, char **argv)
{
    tables_init();
    tsort t;
    memset(&t, 0, sizeof t);
    t.tab = -1;
    t.delim = '\n';
    t.o.fanin = DEFAULT_FANIN;
    t.o.backend = GPUSORT_BACKEND_AUTO;
    t.o.device = -1;
    tkey gkey;
    memset(&gkey, 0, sizeof gkey);
    gkey.sword = SIZE_MAX;
    gkey.eword = SIZE_MAX;
    int cap_keys = 8;
    t.keys = (tkey *)xmalloc((size_t)cap_keys * sizeof *t.keys);
    char **files = (char **)xmalloc((size_t)(argc + 1) * sizeof *files);
    int nfiles = 0;
    const char **tmpdirs = (const char **)xmalloc((size_t)(argc + 1) * sizeof *tmpdirs);
    int ntmp = 0, budget_set = 0, recs = 0;

    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) files[nfiles++] = argv[i];
            break;
        }
        if (a[0] != '-' || a[1] == 0) {   /* an operand (GNU permutes: options may follow) */
            if (a[0] == '+') {
                if (t.nkeys == cap_keys) {
                    cap_keys *= 2;
                    tkey *nk = (tkey *)realloc(t.keys, (size_t)cap_keys * sizeof *nk);
                    if (!nk) cli_fail("out of memory");
                    t.keys = nk;
                }
                const char *pos2 = i + 1 < argc && argv[i + 1][0] == '-' &&
                                           isdigit((unsigned char)argv[i + 1][1])
                                       ? argv[i + 1] : NULL;
                if (parse_obsolete_key(a, pos2, &t.keys[t.nkeys])) {
                    t.nkeys++;
                    if (pos2) i++;
                    continue;
                }
            }
            files[nfiles++] = a;
            continue;
        }
        int code;
        const char *val = NULL;
        const char *p = a + 1;
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t nl = eq ? (size_t)(eq - name) : strlen(name);
            const longopt *lo = NULL;
            int matches = 0;
            for (int k = 0; k < NUM_LONGOPTS; k++) {
                if (strncmp(longopts[k].name, name, nl) != 0) continue;
                if (strlen(longopts[k].name) == nl) { lo = &longopts[k]; matches = 1; break; }
                if (!lo || lo->code != longopts[k].code) matches++;
                lo = &longopts[k];
            }
            if (!lo) cli_fail("unrecognized option '%s' (see gpusort --help)", a);
            if (matches > 1) cli_fail("option '%s' is ambiguous (see gpusort --help)", a);
            code = lo->code;
            if (eq) {
                if (lo->has_arg == 0) cli_fail("option '--%s' doesn't allow an argument", lo->name);
                val = eq + 1;
            } else if (lo->has_arg == 1) {
                if (i + 1 >= argc) cli_fail("option '--%s' requires an argument", lo->name);
                val = argv[++i];
            }
            if (code == OPT_REFUSE) cli_fail("option '--%s' is not supported by gpusort", lo->name);
            if (code == OPT_CHECK) {
                if (!val || strcmp(val, "diagnose-first") == 0) code = 'c';
                else if (strcmp(val, "quiet") == 0 || strcmp(val, "silent") == 0) code = 'C';
                else cli_fail("invalid argument '%s' for '--check'", val);
                val = NULL;
            }
            goto apply;
        }
        /* A cluster of short options: -nru, -k2,2, -t, ... */
        for (; *p; p++) {
            code = (unsigned char)*p;
            val = NULL;
            if (strchr("kotST", *p)) {
                if (p[1]) val = p + 1;
                else if (i + 1 < argc) val = argv[++i];
                else cli_fail("option requires an argument -- '%c'", *p);
                p += strlen(p) - 1;     /* the rest of the cluster was the argument */
            } else if (!strchr("bcCdfgimnrsuz", *p)) {
                if (strchr("hMRV", *p))
                    cli_fail("option -%c (%s sort) is not supported by gpusort", *p,
                             *p == 'h' ? "human-numeric" : *p == 'M' ? "month"
                             : *p == 'R' ? "random" : "version");
                if (*p == 'y') {            /* obsolete, ignored by GNU (takes an argument) */
                    if (!p[1] && i + 1 < argc) i++;
                    break;
                }
                cli_fail("invalid option -- '%c' (see gpusort --help)", *p);
            }
        apply:
            switch (code) {
            case 'b': case 'd': case 'f': case 'g': case 'i': case 'n': case 'r': {
                char s[2] = {(char)code, 0};
                set_ordering(s, &gkey, BL_BOTH);
                break;
            }
            case 'c': case 'C':
                if (t.o.check && t.o.check != code) cli_fail("options '-cC' are incompatible");
                t.o.check = code;
                break;
            case 'k':
                if (t.nkeys == cap_keys) {
                    cap_keys *= 2;
                    tkey *nk = (tkey *)realloc(t.keys, (size_t)cap_keys * sizeof *nk);
                    if (!nk) cli_fail("out of memory");
                    t.keys = nk;
                }
                parse_key(val, &t.keys[t.nkeys++]);
                break;
            case 'm': t.o.merge = 1; break;
            case 'o':
                if (t.o.outfile && strcmp(t.o.outfile, val) != 0)
                    cli_fail("multiple output files specified");
                t.o.outfile = val;
                break;
            case 's': t.o.stable = 1; break;
            case 'S':
                if (parse_buffer_size(val, &t.o.budget)) cli_fail("invalid -S argument '%s'", val);
                budget_set = 1;
                break;
            case 't': {
                int tab;
                if (!val[0]) cli_fail("empty tab");
                if (val[1]) {
                    if (strcmp(val, "\\0") == 0) tab = 0;
                    else cli_fail("multi-character tab '%s'", val);
                } else {
                    tab = (unsigned char)val[0];
                }
                if (t.tab >= 0 && t.tab != tab) cli_fail("incompatible tabs");
                t.tab = tab;
                break;
            }
            case 'T': tmpdirs[ntmp++] = val; break;
            case 'u': t.o.unique = 1; break;
            case 'z': t.delim = 0; break;
            case OPT_PARALLEL: {
                uint64_t v;
                if (cli_parse_count(val, &v) != 0) cli_fail("invalid --parallel argument '%s'", val);
                if (v == 0) cli_fail("number in parallel must be nonzero");
                t.o.threads = v > 1024 ? 1024 : (int)v;
                break;
            }
            case OPT_BATCH: {
                uint64_t v = parse_uint_opt("batch-size", val);
                if (v < 2) cli_fail("invalid --batch-size argument '%s': minimum is 2", val);
                t.o.fanin = v > 1000 ? 1000 : (int)v;
                break;
            }
            case OPT_BACKEND:
                if (gpusort_backend_parse(val, &t.o.backend))
                    cli_fail("invalid --backend '%s' (auto, cpu, cuda or opencl)", val);
                break;
            case OPT_DEVICE: t.o.device = (int)parse_uint_opt("device", val); break;
            case OPT_RECSIZE:
                t.o.record_size = (size_t)parse_uint_opt("record-size", val);
                if (t.o.record_size == 0) cli_fail("--record-size must be at least 1");
                recs = 1;
                break;
            case OPT_KEYSIZE: t.o.key_size = (size_t)parse_uint_opt("key-size", val); break;
            case OPT_KEYOFF: t.o.key_offset = (size_t)parse_uint_opt("key-offset", val); break;
            case OPT_QUIET: cli_quiet = 1; break;
            case OPT_HELP: fputs(usage_text, stdout); return 0;
            case OPT_VERSION:
                printf("gpusort (text mode, GNU sort compatible) library %d.%d.%d\n",
                       GPUSORT_VERSION_MAJOR, GPUSORT_VERSION_MINOR, GPUSORT_VERSION_PATCH);
                return 0;
            default: cli_fail("internal error: option %d", code);
            }
            if (a[1] == '-') break;
        }
    }

    const char *loc = foreign_locale();
    if (loc && !recs)
        cli_fail("the locale '%s' is not supported: gpusort compares bytes as LC_ALL=C sort "
                 "does; run it with LC_ALL=C", loc);

    /* GNU: keys without ordering options inherit the global ones; global options with no key
     * make a whole-line key. */
    for (int k = 0; k < t.nkeys; k++) {
        tkey *key = &t.keys[k];
        if (key_default(key) && !key->reverse) {
            key->ignore = gkey.ignore;
            key->translate = gkey.translate;
            key->skipsblanks = gkey.skipsblanks;
            key->skipeblanks = gkey.skipeblanks;
            key->numeric = gkey.numeric;
            key->general = gkey.general;
            key->reverse = gkey.reverse;
        }
    }
    if (!t.nkeys && !key_default(&gkey)) t.keys[t.nkeys++] = gkey;
    t.o.reverse = gkey.reverse;
    for (int k = 0; k < t.nkeys; k++) {
        tkey *key = &t.keys[k];
        if (key->numeric + key->general + !!key->ignore > 1) {
            char opts[8], *q = opts;
            if (key->ignore == nondict) *q++ = 'd';
            if (key->translate) *q++ = 'f';
            if (key->general) *q++ = 'g';
            if (key->ignore == nonprint) *q++ = 'i';
            if (key->numeric) *q++ = 'n';
            *q = 0;
            cli_fail("options '-%s' are incompatible", opts);
        }
    }

    if (nfiles == 0) files[nfiles++] = "-";
    t.o.files = files;
    t.o.nfiles = nfiles;
    if (t.o.check) {
        if (nfiles > 1) cli_fail("extra operand '%s' not allowed with -%c", files[1], t.o.check);
        if (t.o.outfile) cli_fail("options '-%co' are incompatible", t.o.check);
    }
    if (!budget_set) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        t.o.budget = (uint64_t)pages * (uint64_t)page / 100 * TEXT_DEFAULT_BUDGET_PERCENT;
        if (t.o.budget == 0) t.o.budget = (uint64_t)1 << 30;
    }
    if (ntmp == 0) {
        const char *d = getenv("TMPDIR");
        tmpdirs[ntmp++] = d && *d ? d : "/tmp";
    }
    t.o.tmpdirs = tmpdirs;
    t.o.ntmpdirs = ntmp;
    if (t.o.key_size || t.o.key_offset) {
        if (!recs) cli_fail("--key-size and --key-offset need --record-size");
    }

    int rc = 0;
    if (recs) {
        if (t.nkeys || t.tab >= 0 || t.delim == 0)
            cli_fail("--record-size sorts binary records by --key-size/--key-offset: -k, -t, "
                     "-n, -f, -z and the like do not apply");
        t.o.reverse = gkey.reverse;
        rc = text_records_main(&t.o);
    } else if (t.o.check) {
        rc = check_file(&t);
    } else if (t.o.merge) {
        cli_out out;
        extsort x;
        extsort_items items = {.delim = t.delim, .cmp = line_cmp, .arg = &t, .unique = t.o.unique};
        extsort_init(&x, &items, t.o.tmpdirs, t.o.ntmpdirs, t.o.budget, t.o.fanin);
        /* Open every input first so that a missing one fails before the output exists. */
        for (int i = 0; i < nfiles; i++)
            if (strcmp(files[i], "-") != 0 && access(files[i], R_OK) != 0)
                cli_fail("cannot read: %s: %s", files[i], strerror(errno));
        cli_out_open(&out, t.o.outfile);
        extsort_merge_paths(&x, files, (size_t)nfiles, &out);
        cli_out_commit(&out);
        extsort_free(&x);
    } else {
        for (int i = 0; i < nfiles; i++)
            if (strcmp(files[i], "-") != 0 && access(files[i], R_OK) != 0)
                cli_fail("cannot read: %s: %s", files[i], strerror(errno));
        t.ctx = text_context(&t.o);
        t.threads = gpusort_ctx_threads(t.ctx);
        sort_text(&t);
        gpusort_ctx_free(t.ctx);
    }
    free(t.keys);
    free(files);
    free(tmpdirs);
    return rc;
}
