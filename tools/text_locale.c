/*
 * text_locale.c -- the text mode in the user's locale, as GNU sort uses it (text.h):
 *   text_locale_init  setlocale(LC_ALL, "") (a locale that is not installed leaves C, with no
 *                     message, as in GNU sort), then which comparison text needs (text_collate),
 *                     the -n/-h decimal point and thousands separator, GNU's character tables
 *                     (text_tables_init: isblank/isalnum/isprint/toupper of the locale, byte by
 *                     byte, so -f folds only ASCII in a UTF-8 locale, and not 'i' in tr_TR) and
 *                     the -M month names (nl_langinfo ABMON).
 *   text_coll_cmp     GNU's last-resort and key comparison in a locale: gnulib memcoll0, strcoll
 *                     of each NUL-separated piece in turn.
 *   text_xfrm         the collation key of a byte string: strxfrm of each NUL-separated piece,
 *                     joined by NULs (gnulib memxfrm; -R hashes it).
 *   text_coll_key     the sort projection: the first level of strxfrm's key. C11 (7.24.4.5)
 *                     says strcmp of two strxfrm keys has the sign of strcoll, so a byte sort of
 *                     keys made once per line (O(n)) replaces strcoll in every comparison
 *                     (O(n log n)), the idea of the issue; glibc keeps that promise for the
 *                     first level only (COLL_KEY_LEVELS), so lines whose first levels are equal
 *                     are finished with strcoll.
 *   text_month        GNU getmonth: the binary search over the upper-cased month names.
 *
 * Which locales collate. GNU sort compares bytes when LC_COLLATE is C or POSIX
 * (hard_locale) and calls strcoll otherwise. glibc's C.UTF-8 (2.35+) collates by code point
 * with strcmp, so it is byte order too and keeps the byte path here (measured equal to
 * `LC_ALL=C.UTF-8 sort` on invalid UTF-8 by tests/text/locale_tests.sh); only -R sees that GNU
 * calls it a collating locale (text_hard_collate: it hashes strxfrm's output).
 */
#include "text.h"
#include "util.h"

#include <ctype.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

int text_collate;
int text_hard_collate;
int text_decimal_point = '.';
int text_thousands_sep = -1;

/* -M: the 12 abbreviated month names, upper-cased with -f's table and without blanks, sorted
 * by name (GNU inittables). */
typedef struct month { char name[64]; int val; } month;
static month months[12];

static int month_order(const void *a, const void *b)
{
    return strcmp(((const month *)a)->name, ((const month *)b)->name);
}

void text_locale_init(void)
{
    setlocale(LC_ALL, "");
    const char *c = setlocale(LC_COLLATE, NULL);
    text_hard_collate = c && strcmp(c, "C") != 0 && strcmp(c, "POSIX") != 0;
    text_collate = text_hard_collate && strncmp(c, "C.", 2) != 0;
    /* GNU: a decimal point or separator of several bytes is not supported: '.' and none. */
    const struct lconv *lc = localeconv();
    text_decimal_point = (unsigned char)lc->decimal_point[0];
    if (!text_decimal_point || lc->decimal_point[1]) text_decimal_point = '.';
    text_thousands_sep = (unsigned char)lc->thousands_sep[0];
    if (!text_thousands_sep || lc->thousands_sep[1]) text_thousands_sep = -1;
    text_tables_init();
    for (int i = 0; i < 12; i++) {
        const char *s = nl_langinfo(ABMON_1 + i);
        size_t j = 0;
        for (; *s && j + 1 < sizeof months[i].name; s++)
            if (!isblank((unsigned char)*s))
                months[i].name[j++] = (char)text_fold_upper[(unsigned char)*s];
        months[i].name[j] = 0;
        months[i].val = i + 1;
    }
    qsort(months, 12, sizeof months[0], month_order);
}

int text_month(const uint8_t *s, size_t len)
{
    const uint8_t *lim = s + len;
    while (s < lim && text_blanks[*s]) s++;
    if (s == lim) return 0;
    size_t lo = 0, hi = 12;
    do {
        size_t ix = (lo + hi) / 2;
        const uint8_t *m = s;
        const uint8_t *n = (const uint8_t *)months[ix].name;
        for (;; m++, n++) {
            if (!*n) return months[ix].val;
            if (m == lim || text_fold_upper[*m] < *n) { hi = ix; break; }
            if (text_fold_upper[*m] > *n) { lo = ix + 1; break; }
        }
    } while (lo < hi);
    return 0;
}

/* Per-thread scratch for NUL-terminated copies (strcoll and strxfrm take C strings). */
static __thread uint8_t *scratch;
static __thread size_t scratch_cap;

static uint8_t *scratch_get(size_t n)
{
    if (n > scratch_cap) {
        size_t c = scratch_cap ? scratch_cap : 256;
        while (c < n) c *= 2;
        uint8_t *p = (uint8_t *)realloc(scratch, c);
        if (!p) cli_fail("out of memory (%zu bytes)", c);
        scratch = p;
        scratch_cap = c;
    }
    return scratch;
}

int text_coll_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    if (alen == blen && memcmp(a, b, alen) == 0) return 0;
    uint8_t *buf = scratch_get(alen + blen + 2);
    memcpy(buf, a, alen);
    buf[alen] = 0;
    memcpy(buf + alen + 1, b, blen);
    buf[alen + 1 + blen] = 0;
    const char *s1 = (const char *)buf, *s2 = (const char *)buf + alen + 1;
    size_t n1 = alen + 1, n2 = blen + 1;    /* bytes left, each with its final NUL */
    for (;;) {
        int d = strcoll(s1, s2);
        if (d) return d;
        /* Equal up to a NUL: go on with the pieces after it. */
        size_t l1 = strlen(s1) + 1, l2 = strlen(s2) + 1;
        s1 += l1;
        s2 += l2;
        n1 -= l1;
        n2 -= l2;
        if (n1 == 0) return -(n2 != 0);
        if (n2 == 0) return 1;
    }
}

/* How many levels of a glibc collation key text_coll_key keeps. glibc writes the weights of
 * each level, the levels separated by a 0x01 byte (weights are >= 2). From the second level
 * on, glibc's strxfrm and strcoll disagree on strings with ignorable characters (spaces,
 * punctuation): in tr_TR.UTF-8 strcoll puts "010 & straße" before "010 Straße" and strxfrm
 * after (level 3); in en_US "1.000 cafe" / "1.000  cafe" differ at level 4. The first level
 * agrees (tests/text/locale_tests.sh, every locale it tests), so its prefix is a valid
 * projection of strcoll: keys that differ there are ordered as strcoll orders them, keys
 * equal there (case or accent variants, the same letters) go to strcoll. */
#define COLL_KEY_LEVELS 1

size_t text_coll_key(const uint8_t *s, size_t len, uint8_t **buf, size_t *len_out, size_t *cap)
{
    size_t nul = 0;
    while (nul < len && s[nul]) nul++;        /* the first NUL-terminated piece only */
    size_t start = *len_out;
    text_xfrm(s, nul, buf, len_out, cap);
    int seps = 0;
    for (size_t i = start; i < *len_out; i++)
        if ((*buf)[i] == 1 && ++seps == COLL_KEY_LEVELS) {
            *len_out = i;
            break;
        }
    return *len_out - start;
}

size_t text_xfrm(const uint8_t *s, size_t len, uint8_t **buf, size_t *len_out, size_t *cap)
{
    uint8_t *src = scratch_get(len + 1);
    memcpy(src, s, len);
    src[len] = 0;
    size_t start = *len_out, at = start;
    const char *p = (const char *)src, *end = (const char *)src + len + 1;
    for (;;) {
        for (;;) {
            size_t room = *cap - at;
            size_t k = strxfrm((char *)*buf + at, p, room);
            if (k < room) {
                at += k;
                break;
            }
            size_t c = *cap ? *cap : 256;
            while (c - at <= k + 1) c *= 2;
            uint8_t *nb = (uint8_t *)realloc(*buf, c);
            if (!nb) cli_fail("out of memory (%zu bytes)", c);
            *buf = nb;
            *cap = c;
        }
        p += strlen(p) + 1;
        if (p == end) break;
        if (at == *cap) {
            uint8_t *nb = (uint8_t *)realloc(*buf, *cap * 2);
            if (!nb) cli_fail("out of memory");
            *buf = nb;
            *cap *= 2;
        }
        (*buf)[at++] = 0;
    }
    *len_out = at;
    return at - start;
}
