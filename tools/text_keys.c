/*
 * text_keys.c -- the text mode's keys: where a key is in a line, how two lines compare, and
 * the first key of every line turned into something the library sorts fast. Declared in text.h.
 *
 * COMPARISON. text_line_cmp() is GNU sort's compare()/keycompare() (coreutils sort.c) ported to
 * explicit lengths: keys in order, each with its field positions (begfield/limfield), blank
 * skipping, -d/-i ignore tables, -f translation and -n/-g numeric rules; then, unless -s or -u,
 * the whole line with memcmp ("last-resort comparison"), reversed by a global -r. The default
 * key: global ordering options with no -k make one key over the whole line (GNU's gkey), and
 * a -k with no ordering modifiers inherits all global ones (text_options.c).
 *
 * PROJECTIONS of the first key (text_sort.c sorts them with the library, then finishes the
 * groups that tie with text_line_cmp):
 *   text key        the key's bytes after -b/-d/-i/-f, packed into one buffer (text_pack_keys):
 *                   a string sort of them is exact for that key.
 *   -n key          when every key is an integer of at most 18 digits (parsed 8 digits at a
 *                   time, SWAR: digits8): its exact value less the minimum, in 32 bits when the
 *                   range fits; otherwise a 64-bit decimal-float image of the number (below).
 *   -g key          the double nearest the key's long double (monotone).
 *   -r on the key   complemented images (or the offset from the maximum).
 * A projection p is valid when p(a) < p(b) implies text_line_cmp(a, b) < 0; rounding and
 * truncation are monotone, so equal images only mean "compare fully".
 *   -n image: sign, then for |x| > 0 the exponent e (first significant digit's position, 9
 *   bits, saturated) and the first 16 significant digits (54 bits); zero is 2^63, x > 0 is
 *   2^63 + image, x < 0 is 2^63 - image. Example: "12.5" -> e = 2, digits 1250000000000000.
 *   Integers up to 16 digits are exact; everything else ties into text_line_cmp.
 *
 * -g orders NaNs as coreutils 9.2 and later do (by their printed form: "-nan" < "nan", NaNs of
 * one sign equal); GPUSORT_TEXT_COREUTILS=9.1 selects 9.1's order (gen_cmp), in which two
 * equal NaNs still differ from GNU's: 9.1 memcmp's long doubles with their uninitialised
 * padding bytes, so which NaN lines it keeps under -u can vary from run to run.
 */
#include "text.h"
#include "util.h"

#include <ctype.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

/* ---- GNU's character tables (C locale) ---- */

uint8_t text_blanks[256];
uint8_t text_nondict[256];
uint8_t text_nonprint[256];
uint8_t text_fold_upper[256];

void text_tables_init(void)
{
    for (int c = 0; c < 256; c++) {
        text_blanks[c] = (uint8_t)(c == ' ' || c == '\t' || c == '\n');
        text_nondict[c] = (uint8_t)(!isalnum(c) && !text_blanks[c]);
        text_nonprint[c] = (uint8_t)!isprint(c);
        text_fold_upper[c] = (uint8_t)toupper(c);
    }
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
            while (ptr < lim && text_blanks[*ptr]) ++ptr;
            while (ptr < lim && !text_blanks[*ptr]) ++ptr;
        }
    }
    if (k->skipsblanks)
        while (ptr < lim && text_blanks[*ptr]) ++ptr;
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
            while (ptr < lim && text_blanks[*ptr]) ++ptr;
            while (ptr < lim && !text_blanks[*ptr]) ++ptr;
        }
    }
    if (echar != 0) {
        if (k->skipeblanks)
            while (ptr < lim && text_blanks[*ptr]) ++ptr;
        ptr = (size_t)(lim - ptr) < echar ? lim : ptr + echar;
    }
    return ptr;
}

const uint8_t *text_begfield(const tsort *t, const uint8_t *p, const uint8_t *lim, const tkey *k)
{
    return begfield(t, p, lim, k);
}

const uint8_t *text_limfield(const tsort *t, const uint8_t *p, const uint8_t *lim, const tkey *k)
{
    return limfield(t, p, lim, k);
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
            while (kb < kl && text_blanks[*kb]) ++kb;
    }
    *b = kb;
    *e = kl > kb ? kl : kb;
}

/* ---- numbers ---- */

/* A number as -n reads it (GNU strnumcmp with the locale's decimal point and thousands
 * separator, text_locale.c): blanks, optional '-', an integer part of digits in which the
 * thousands separator is skipped wherever it is (en_US "1,000" is 1000; C has none), then
 * optionally the decimal point and fraction digits. Leading zeros and trailing fraction zeros
 * removed. */
typedef struct num {
    int neg;
    const uint8_t *ip, *ie;     /* integer part from its first significant digit, [ip, ie) */
    size_t ilen;                /* its digits (separators not counted) */
    const uint8_t *fp;          /* fraction digits */
    size_t flen;                /* flen excludes trailing zeros */
} num;

/* The separator as GNU's -n and -h read numbers (strnumcmp): a locale without one gets
 * coreutils' NON_CHAR = CHAR_MAX + 1 = 128, which gnulib compares with unsigned bytes, so in
 * the C locale byte 0x80 is skipped inside a number ("1\2001" is 11: LC_ALL=C sort -n,
 * coreutils 9.1; tests/fuzz/corpus/diff/regress-n-0x80-* check it). */
static inline int is_sep(uint8_t c)
{
    return text_thousands_sep < 0 ? c == 0x80 : (int)c == text_thousands_sep;
}

static inline void num_parse(const uint8_t *p, const uint8_t *lim, num *x)
{
    while (p < lim && text_blanks[*p]) p++;
    x->neg = 0;
    if (p < lim && *p == '-') { x->neg = 1; p++; }
    while (p < lim && (*p == '0' || is_sep(*p))) p++;
    x->ip = p;
    size_t nd = 0;
    for (; p < lim; p++) {
        if ((unsigned)(*p - '0') < 10) nd++;
        else if (!is_sep(*p)) break;
    }
    x->ie = p;
    x->ilen = nd;
    x->fp = p;
    x->flen = 0;
    if (p < lim && *p == text_decimal_point) {
        x->fp = ++p;
        while (p < lim && (unsigned)(*p - '0') < 10) p++;
        x->flen = (size_t)(p - x->fp);
        while (x->flen && x->fp[x->flen - 1] == '0') x->flen--;
    }
    if (x->ilen == 0 && x->flen == 0) x->neg = 0;   /* -0 == 0 */
}

/* Integer parts of equal digit counts, digit by digit (separators skipped). */
static int int_cmp(const num *x, const num *y)
{
    if (x->ie - x->ip == (ptrdiff_t)x->ilen && y->ie - y->ip == (ptrdiff_t)y->ilen)
        return memcmp(x->ip, y->ip, x->ilen);
    const uint8_t *a = x->ip, *b = y->ip;
    for (size_t i = 0; i < x->ilen; i++, a++, b++) {
        while (is_sep(*a)) a++;
        while (is_sep(*b)) b++;
        if (*a != *b) return (int)*a - (int)*b;
    }
    return 0;
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
        c = int_cmp(&x, &y);
        if (!c) {
            size_t m = x.flen < y.flen ? x.flen : y.flen;
            c = memcmp(x.fp, y.fp, m);
            if (!c) c = (x.flen > y.flen) - (x.flen < y.flen);
        }
    }
    return x.neg ? -c : c;
}

/* -h: GNU find_unit_order on a key without leading blanks: the unit letter after the number
 * (K/k 1, M 2, G 3, T 4, P 5, E 6, Z 7, Y 8, R 9, Q 10: coreutils 9.2 added R and Q, the SI
 * prefixes of 2022, NEWS of 9.2; text_coreutils91 stops at Y as 9.1 did), negative for a negative
 * number, 0 when there is no unit or every digit is 0. tr: -f's table, applied to the unit
 * letter (the only byte of the scan that folding can change), or NULL. The scan: digits with at most one
 * thousands separator between two of them, then the decimal point and digits. */
static int unit_order(const uint8_t *p, const uint8_t *lim, const uint8_t *tr)
{
    static const char units[] = "KMGTPEZYRQ";
    int neg = p < lim && *p == '-';
    p += neg;
    uint8_t maxd = 0, c;
    for (;;) {
        c = p < lim ? *p : 0;
        p++;
        if ((unsigned)(c - '0') >= 10) break;
        if (c > maxd) maxd = c;
        /* The locale's separator byte (sv_SE's 0xA0 too); without one no byte is, unlike in
         * -n where 0x80 is (coreutils 9.1: "1\3775M" and "1\2005M" have no unit in the C
         * locale; corpus/diff/regress-h-0xff-no-separator). */
        if (p < lim && text_thousands_sep >= 0 && (int)*p == text_thousands_sep) {
            p++;
            if (!(p < lim && (unsigned)(*p - '0') < 10)) return 0;   /* "1," : no unit */
        }
    }
    if (c == text_decimal_point && c)
        for (;;) {
            c = p < lim ? *p : 0;
            p++;
            if ((unsigned)(c - '0') >= 10) break;
            if (c > maxd) maxd = c;
        }
    if (maxd <= '0' || !c) return 0;
    if (tr) c = tr[c];      /* -f: GNU reads the unit from the key's translated copy */
    const char *u = c == 'k' ? units : c ? strchr(units, c) : NULL;
    int order = u ? (int)(u - units) + 1 : 0;
    if (text_coreutils91 && order > 8) order = 0;          /* R, Q: no unit in 9.1 */
    return neg ? -order : order;
}

static int human_cmp(const uint8_t *a, const uint8_t *alim, const uint8_t *b, const uint8_t *blim)
{
    while (a < alim && text_blanks[*a]) a++;
    while (b < blim && text_blanks[*b]) b++;
    int d = unit_order(a, alim, NULL) - unit_order(b, blim, NULL);   /* copies, translated */
    return d ? d : num_cmp(a, alim, b, blim);
}

#define NUM_ZERO ((uint64_t)1 << 63)

/* The 64-bit image of -n (see the top of the file: PROJECTIONS). *sig gets the number of
 * significant digits (the image is exact, equal only for equal numbers, up to 16 of them and
 * an exponent within +-255; it says 99 when the exponent saturates). */
static uint64_t num_image(const uint8_t *p, const uint8_t *lim, size_t *sig)
{
    num x;
    num_parse(p, lim, &x);
    const uint8_t *d = x.ilen ? x.ip : x.fp;
    size_t dl = x.ilen ? (size_t)(x.ie - x.ip) : x.flen;
    int64_t e;
    if (x.ilen) {
        e = (int64_t)x.ilen;
    } else {
        size_t z = 0;
        while (z < x.flen && x.fp[z] == '0') z++;
        *sig = 0;
        if (z == x.flen) return NUM_ZERO;
        e = -(int64_t)z;
        d += z;
        dl -= z;
    }
    *sig = x.ilen ? x.ilen + x.flen : dl;
    if (e > 255 || e < -255) *sig = 99;
    /* First 16 significant digits: the integer digits, then the fraction's. */
    uint64_t m = 0;
    int nd = 0;
    for (size_t i = 0; i < dl && nd < 16; i++) {
        if (x.ilen && is_sep(d[i])) continue;
        m = m * 10 + (uint64_t)(d[i] - '0');
        nd++;
    }
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
    char *s = n < sizeof stack ? stack : (char *)cli_alloc(n + 1);
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
    /* GNU: conversion errors first, then NaNs, then numbers. */
    if (!oka) return okb ? -1 : 0;
    if (!okb) return 1;
    if (x < y) return -1;
    if (x > y) return 1;
    if (x == y) return 0;
    if (y == y) return -1;
    if (x == x) return 1;
    /* Two NaNs. coreutils 9.2 and later order them by their printf "%Lf" text, bytewise
     * (commit 2f56f5a42 of 2022-05-01, "sort: fix sort -g infloop again", bug#55212: the
     * memcmp below made sort -g loop forever on many NaNs): with glibc "-nan" < "nan", and
     * NaNs of one sign tie whatever their payloads. */
    if (!text_coreutils91) {
        char px[160], py[160];          /* room for a libc that prints payloads */
        snprintf(px, sizeof px, "%Lf", x);
        snprintf(py, sizeof py, "%Lf", y);
        return strcmp(px, py);
    }
    /* coreutils 9.1 compared their bytes (memcmp; x86 long double: the 10 bytes that carry the
     * value, so "nan" comes before "-nan"). */
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

/* The 64-bit image of -h: the unit order (5 bits, offset by 10), then the -n image without
 * its 5 lowest bits (monotone; still exact up to 14 significant digits: two such mantissas
 * differ by at least 100, more than the 32 the shift merges). */
static uint64_t human_image(const uint8_t *p, const uint8_t *lim, const uint8_t *tr, size_t *sig)
{
    while (p < lim && text_blanks[*p]) p++;
    uint64_t order = (uint64_t)(unit_order(p, lim, tr) + 10);
    return order << 59 | num_image(p, lim, sig) >> 5;
}

/* ---- comparison (GNU keycompare / compare) ---- */

/* -R: what GNU hashes for a key: the key itself, or in a collating locale the strxfrm of
 * each NUL-terminated piece with its NUL (a final NUL of the key starts no piece). */
static size_t random_input(const uint8_t *k, size_t n, uint8_t **buf, size_t *cap)
{
    size_t len = 0;
    if (!text_hard_collate) {
        if (n > *cap) {
            uint8_t *nb = (uint8_t *)realloc(*buf, n);
            if (!nb) cli_fail("out of memory");
            *buf = nb;
            *cap = n;
        }
        if (n) memcpy(*buf, k, n);
        return n;
    }
    if (n == 0) return 0;
    text_xfrm(k, n - (k[n - 1] == 0), buf, &len, cap);
    if (len == *cap) {
        uint8_t *nb = (uint8_t *)realloc(*buf, *cap * 2 + 1);
        if (!nb) cli_fail("out of memory");
        *buf = nb;
        *cap = *cap * 2 + 1;
    }
    (*buf)[len++] = 0;
    return len;
}

/* GNU compare_random: the digests, then (a collision) the hashed bytes. */
static int random_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    uint8_t *ba = NULL, *bb = NULL;
    size_t ca = 0, cb = 0;
    size_t na = random_input(a, alen, &ba, &ca), nb = random_input(b, blen, &bb, &cb);
    uint8_t da[16], db[16];
    text_random_digest(ba, na, da);
    text_random_digest(bb, nb, db);
    int d = memcmp(da, db, 16);
    if (!d) {
        size_t m = na < nb ? na : nb;
        d = m ? memcmp(ba, bb, m) : 0;  /* an empty key's buffer may be NULL */
        if (!d) d = (na > nb) - (na < nb);
    }
    free(ba);
    free(bb);
    return d;
}

/* 1 when the key is compared by GNU's copy-then-compare branch (a locale, a number, a month,
 * -R, -V), where -d/-i/-f apply to a copy of the key first. */
static inline int key_special(const tkey *k)
{
    return text_collate || k->numeric || k->general || k->human || k->month || k->random ||
           k->version;
}

/* Copy [p, lim) with the key's ignore and translate tables into out; returns the length. */
static size_t key_copy(const tkey *k, const uint8_t *p, const uint8_t *lim, uint8_t *out)
{
    size_t n = 0;
    for (; p < lim; p++)
        if (!(k->ignore && k->ignore[*p])) out[n++] = k->translate ? k->translate[*p] : *p;
    return n;
}

static int special_cmp(const tkey *k, const uint8_t *ta, size_t lena, const uint8_t *tb,
                       size_t lenb)
{
    if (k->numeric) return num_cmp(ta, ta + lena, tb, tb + lenb);
    if (k->general) return gen_cmp(ta, ta + lena, tb, tb + lenb, NULL);
    if (k->human) return human_cmp(ta, ta + lena, tb, tb + lenb);
    if (k->month) return text_month(ta, lena) - text_month(tb, lenb);
    if (k->random) return random_cmp(ta, lena, tb, lenb);
    if (k->version) return text_version_cmp(ta, lena, tb, lenb);
    if (lena == 0) return -(lenb != 0);
    if (lenb == 0) return 1;
    return text_coll_cmp(ta, lena, tb, lenb);
}

static int key_cmp(const tsort *t, const tkey *k, const uint8_t *ta, const uint8_t *la,
                   const uint8_t *tb, const uint8_t *lb)
{
    int diff;
    size_t lena = (size_t)(la - ta), lenb = (size_t)(lb - tb);
    const uint8_t *tr = k->translate, *ig = k->ignore;
    if (key_special(k)) {
        /* GNU: -d/-i/-f make copies of the keys first (-n is not changed by -f). */
        if ((ig || tr) && !k->numeric) {
            uint8_t stack[512];
            size_t need = lena + lenb;
            uint8_t *ca = need <= sizeof stack ? stack : (uint8_t *)cli_alloc(need);
            uint8_t *cb = ca + lena;
            size_t na = key_copy(k, ta, la, ca), nb = key_copy(k, tb, lb, cb);
            diff = special_cmp(k, ca, na, cb, nb);
            if (ca != stack) free(ca);
        } else {
            diff = special_cmp(k, ta, lena, tb, lenb);
        }
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
int text_line_cmp_from(const tsort *t, int first, const uint8_t *a, size_t alen,
                       const uint8_t *b, size_t blen)
{
    int diff;
    if (t->nkeys) {
        diff = keys_cmp(t, first, a, alen, b, blen);
        if (diff || t->o.unique || t->o.stable) return diff;
    }
    if (alen == 0) diff = -(blen != 0);
    else if (blen == 0) diff = 1;
    else if (text_collate) diff = text_coll_cmp(a, alen, b, blen);
    else {
        diff = memcmp(a, b, alen < blen ? alen : blen);
        if (!diff) diff = alen < blen ? -1 : alen != blen;
    }
    return t->o.reverse ? -diff : diff;
}

int text_line_cmp(void *arg, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return text_line_cmp_from((const tsort *)arg, 0, a, alen, b, blen);
}

/* ---- the first key of every line, for the library sorts ---- */

/* Pack the first key's bytes (after -b/-d/-i/-f) of every line: key i = kb[ko[i], ko[i+1]). */
typedef struct pack_job {
    tsort *t;
    lineset *L;
    int parts;
    uint64_t *ko;
    uint8_t *kb;
    size_t *total;
    const tkey *key;           /* the first key, or the whole line (collation, no -k) */
    uint8_t **bufs;            /* transformed keys: each slice's own buffer */
    size_t *old_total;         /* bytes in each slice's buffer */
    text_coll_syms *syms;      /* collation keys: weight sequences per slice */
    size_t *nsyms;             /* and how many */
    const text_coll_code *code;   /* the compact code, or NULL */
    int *cut;                  /* per slice: a -V projection was cut (text_version_key) */
} pack_job;

/* The whole line as a key, for the last-resort collation of a sort with no keys. */
static const tkey whole_line = {SIZE_MAX, 0, SIZE_MAX, 0, 0, 0, NULL, NULL, 0, 0, 0, 0, 0, 0, 0, 0};

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
    text_slice(j->L->n, j->parts, i, &a, &b);
    for (size_t x = a; x < b; x++) {
        size_t len = pack_one(j->t, j->key, LP(j->L, x), LL(j->L, x), NULL);
        j->ko[x] = len;
        s += len;
    }
    j->total[i] = s;
}

static void pack_fill_task(void *arg, size_t i)
{
    pack_job *j = (pack_job *)arg;
    size_t a, b;
    text_slice(j->L->n, j->parts, i, &a, &b);
    uint64_t w = j->total[i];
    for (size_t x = a; x < b; x++) {
        uint64_t len = j->ko[x];
        j->ko[x] = w;
        pack_one(j->t, j->key, LP(j->L, x), LL(j->L, x), j->kb + w);
        w += len;
    }
}

/* Numeric images of the first key. */
/* SWAR parse of the decimal digits at q (at most 8, and not past lim): appends them to *u and
 * returns how many there were. Reads 8 bytes at q: the input buffer has TEXT_BUF_SLACK bytes past
 * its data. A byte is a digit when its high nibble is 3 both before and after adding 6 (a carry
 * out of a non-digit byte can only disturb bytes after it). Value of 8 digits: Lemire's
 * "parse_eight_digits_unrolled" (three multiplies). */
static inline int digits8(const uint8_t *q, const uint8_t *lim, uint64_t *u)
{
    uint64_t x = text_load_le64(q);
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
    int inexact;               /* some image may equal another's of a different key */
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
    ip->inexact = k->general;        /* doubles round, NaNs tie */
    ip->min = INT64_MAX;
    ip->max = INT64_MIN;
    size_t a, b;
    text_slice(p->L->n, p->parts, i, &a, &b);
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (size_t x = a; x < b; x++) {
        const uint8_t *kb, *ke;
        key_span(t, k, LP(p->L, x), LL(p->L, x), &kb, &ke);
        if (try_int) {
            /* One pass: blanks, sign, leading zeros, up to 18 digits, and a fraction only if
             * it is all zeros ("5.00" is the integer 5); anything else ends the attempt. */
            const uint8_t *q = kb;
            while (q < ke && text_blanks[*q]) q++;
            int neg = q < ke && *q == '-';
            q += neg;
            while (q < ke && (*q == '0' || is_sep(*q))) q++;
            const uint8_t *ds = q;
            uint64_t u = 0;
            unsigned d;
            for (int c = 0; c < 3; c++) {        /* 8 digits at a time: up to 24 seen */
                int m = digits8(q, ke, &u);
                q += m;
                if (m < 8) break;
            }
            int ok = q - ds <= 18 && !(q < ke && ((unsigned)(*q - '0') < 10 || is_sep(*q)));
            if (ok && q < ke && *q == text_decimal_point)
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
        size_t sig = 0;
        uint64_t v = k->numeric ? num_image(kb, ke, &sig)
                     : k->general ? gen_image(kb, ke, k->translate)
                     : k->human ? human_image(kb, ke, k->translate, &sig)
                     : (uint64_t)text_month(kb, (size_t)(ke - kb));   /* -M: no -d/-i */
        if (sig > (k->human ? 14u : 16u)) ip->inexact = 1;
        img[x] = k->reverse ? ~v : v;
    }
    ip->min = mn;
    ip->max = mx;
}

/* Integer keys to unsigned offsets from the minimum (or from the maximum, reversed), so that
 * the radix sort skips the high digits that do not vary; in 32 bits when the range allows. */
static void offset_task(void *arg, size_t i)
{
    par *p = (par *)arg;
    uint64_t *img = (uint64_t *)p->a;
    const int64_t *mm = (const int64_t *)p->c;   /* min, max, reverse, narrow */
    size_t a, b;
    text_slice(p->L->n, p->parts, i, &a, &b);
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


int text_key_images(tsort *t, lineset *L, uint64_t *img, int *exact)
{
    size_t n = L->n;
    const tkey *k0 = &t->keys[0];
    par p = {t, L, n, text_parts_for(t, n), NULL, NULL, NULL, NULL};
    img_part *parts = (img_part *)cli_alloc((size_t)p.parts * sizeof *parts);
    p.a = img;
    p.b = parts;
    text_run_par(&p, image_task);
    int all_int = k0->numeric;
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    for (int i = 0; i < p.parts; i++) {
        all_int &= parts[i].all_int;
        if (parts[i].min < mn) mn = parts[i].min;
        if (parts[i].max > mx) mx = parts[i].max;
    }
    int narrow = 0;
    *exact = 1;
    if (!all_int) {
        p.c = img;                              /* force images */
        text_run_par(&p, image_task);
        for (int i = 0; i < p.parts; i++) *exact &= !parts[i].inexact;
    } else {
        /* Within one slice the 32-bit narrowing writes slot x (4x bytes) after reading
         * slot x (8x bytes): never ahead of the reads. Across slices it would overwrite
         * unread keys, so narrow with one slice per pass of the key array. */
        narrow = (uint64_t)mx - (uint64_t)mn <= UINT32_MAX;
        int64_t mm[4] = {mn, mx, k0->reverse, narrow};
        p.c = mm;
        if (narrow) p.parts = 1;
        text_run_par(&p, offset_task);
    }
    free(parts);
    return narrow;
}

static void grow(uint8_t **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 4096;
    while (c < need) c *= 2;
    uint8_t *nb = (uint8_t *)realloc(*buf, c);
    if (!nb) cli_fail("out of memory (%zu bytes)", c);
    *buf = nb;
    *cap = c;
}

/* Transformed keys, one pass per slice into the slice's own buffer: in a collating locale the
 * collation key projection (text_coll_key; an empty key's is empty, and a key of ignorable
 * characters may have an empty one too: they tie, and the tie is finished with GNU's rule,
 * empty first); with -R the 16-byte digest; with -V text_version_key. Equal ones are finished
 * with text_line_cmp: from the first key for the collation key and the digest, from the second
 * for -V projections (exact unless cut). */
static void xpack_task(void *arg, size_t i)
{
    pack_job *j = (pack_job *)arg;
    const tkey *k = j->key;
    size_t a, b;
    text_slice(j->L->n, j->parts, i, &a, &b);
    uint8_t *buf = NULL, *tmp = NULL, *hin = NULL;
    size_t len = 0, cap = 0, tcap = 0, hcap = 0, nsyms = 0;
    cap = (size_t)(j->L->off[b] - j->L->off[a]) * 4 + 64;   /* grows by realloc if need be */
    buf = (uint8_t *)ext_big_alloc(cap);
    for (size_t x = a; x < b; x++) {
        const uint8_t *kb, *ke;
        key_span(j->t, k, LP(j->L, x), LL(j->L, x), &kb, &ke);
        const uint8_t *p = kb;
        size_t n = (size_t)(ke - kb);
        if (k->ignore || k->translate) {
            grow(&tmp, &tcap, n + 1);
            n = key_copy(k, kb, ke, tmp);
            p = tmp;
        }
        j->ko[x] = len;
        if (k->random) {
            size_t hn = random_input(p, n, &hin, &hcap);
            grow(&buf, &cap, len + 16);
            text_random_digest(hin, hn, buf + len);
            len += 16;
        } else if (k->version) {
            grow(&buf, &cap, len + 4 * n + 8);
            len += text_version_key(p, n, buf + len, &j->cut[i]);
        } else if (n) {
            size_t at = len;
            text_coll_key(p, n, &buf, &len, &cap);
            nsyms += text_coll_syms_add(&j->syms[i], buf + at, len - at);
        }
    }
    free(tmp);
    free(hin);
    j->bufs[i] = buf;
    j->old_total[i] = len;
    j->nsyms[i] = nsyms;
}

/* Slice i's keys into the packed buffer at their global offsets (j->total: each slice's
 * start), encoded with the compact code when there is one. */
static void xpack_copy_task(void *arg, size_t i)
{
    pack_job *j = (pack_job *)arg;
    size_t a, b;
    text_slice(j->L->n, j->parts, i, &a, &b);
    uint64_t w = j->total[i];
    const uint8_t *src = j->bufs[i];
    if (!j->code) {
        if (j->old_total[i]) memcpy(j->kb + w, src, j->old_total[i]);
        for (size_t x = a; x < b; x++) j->ko[x] += w;
    } else {
        for (size_t x = a; x < b; x++) {
            uint64_t s0 = j->ko[x], s1 = x + 1 < b ? j->ko[x + 1] : j->old_total[i];
            j->ko[x] = w;
            w += text_coll_encode(j->code, src + s0, (size_t)(s1 - s0), j->kb + w);
        }
    }
    free(j->bufs[i]);
}

int text_pack_keys(tsort *t, lineset *L, uint8_t **kb, uint64_t **ko)
{
    int exact = 1;
    size_t n = L->n;
    pack_job j;
    memset(&j, 0, sizeof j);
    j.t = t;
    j.L = L;
    j.parts = text_parts_for(t, n);
    j.key = t->nkeys ? &t->keys[0] : &whole_line;
    j.ko = (uint64_t *)ext_big_alloc((n + 1) * sizeof *j.ko);
    j.total = (size_t *)cli_alloc((size_t)j.parts * sizeof *j.total);
    if (text_collate || j.key->random || j.key->version) {
        j.bufs = (uint8_t **)cli_alloc((size_t)j.parts * sizeof *j.bufs);
        j.old_total = (size_t *)cli_alloc((size_t)j.parts * sizeof *j.old_total);
        j.nsyms = (size_t *)cli_alloc((size_t)j.parts * sizeof *j.nsyms);
        j.syms = (text_coll_syms *)calloc((size_t)j.parts, sizeof *j.syms);
        j.cut = (int *)calloc((size_t)j.parts, sizeof *j.cut);
        if (!j.syms || !j.cut) cli_fail("out of memory");
        gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, xpack_task, &j);
        if (text_collate && text_weights_failed()) {
            /* A key from text_weights.c's table differed from strxfrm's: the table is off
             * now; build every key again. */
            for (int p = 0; p < j.parts; p++) free(j.bufs[p]);
            memset(j.syms, 0, (size_t)j.parts * sizeof *j.syms);
            gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, xpack_task, &j);
        }
        exact = j.key->version;
        for (int p = 0; p < j.parts; p++) exact &= !j.cut[p];
        text_coll_code code;
        if (!j.key->random && !j.key->version && text_coll_code_init(&code, j.syms, j.parts))
            j.code = &code;
        for (int p = 0; p < j.parts; p++) j.total[p] = j.code ? j.nsyms[p] : j.old_total[p];
        size_t sum = text_slice_starts(j.total, j.parts);
        j.ko[n] = sum;
        j.kb = (uint8_t *)ext_big_alloc(sum ? sum : 1);
        gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, xpack_copy_task, &j);
        if (j.code) text_coll_code_free(&code);
        free(j.bufs);
        free(j.old_total);
        free(j.nsyms);
        free(j.syms);
        free(j.cut);
    } else {
        gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, pack_size_task, &j);
        size_t sum = text_slice_starts(j.total, j.parts);
        j.kb = (uint8_t *)ext_big_alloc(sum ? sum : 1);
        gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, pack_fill_task, &j);
        j.ko[n] = sum;
    }
    free(j.total);
    *kb = j.kb;
    *ko = j.ko;
    return exact;
}
