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
 *   text_coll_key     the sort projection: the first level of strxfrm's key (built from a
 *                     table of per-character weights where text_weights.c can, else by
 *                     strxfrm: text_coll_key_xfrm). C11 (7.24.4.5)
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

int text_locale_failed;
int text_thousands_sep_ignored;

void text_locale_init(void)
{
    text_locale_failed = setlocale(LC_ALL, "") == NULL;
    const char *c = setlocale(LC_COLLATE, NULL);
    text_hard_collate = c && strcmp(c, "C") != 0 && strcmp(c, "POSIX") != 0;
    text_collate = text_hard_collate && strncmp(c, "C.", 2) != 0;
    /* GNU: a decimal point or separator of several bytes is not supported: '.' and none. */
    const struct lconv *lc = localeconv();
    text_decimal_point = (unsigned char)lc->decimal_point[0];
    if (!text_decimal_point || lc->decimal_point[1]) text_decimal_point = '.';
    text_thousands_sep = (unsigned char)lc->thousands_sep[0];
    text_thousands_sep_ignored = lc->thousands_sep[0] && lc->thousands_sep[1];
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
    size_t end;
    return text_month_end(s, len, &end);
}

int text_month_end(const uint8_t *s0, size_t len, size_t *end)
{
    const uint8_t *s = s0, *lim = s + len;
    *end = 0;
    while (s < lim && text_blanks[*s]) s++;
    if (s == lim) return 0;
    size_t lo = 0, hi = 12;
    do {
        size_t ix = (lo + hi) / 2;
        const uint8_t *m = s;
        const uint8_t *n = (const uint8_t *)months[ix].name;
        for (;; m++, n++) {
            if (!*n) {
                *end = (size_t)(m - s0);
                return months[ix].val;
            }
            if (m == lim || text_fold_upper[*m] < *n) { hi = ix; break; }
            if (text_fold_upper[*m] > *n) { lo = ix + 1; break; }
        }
    } while (lo < hi);
    return 0;
}

/* NUL-terminated copies (strcoll and strxfrm take C strings): on the stack when short. */
#define COPY_STACK 1024

static uint8_t *copy_buf(uint8_t *stack, size_t n)
{
    return n <= COPY_STACK ? stack : (uint8_t *)cli_alloc(n);
}

int text_coll_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    if (alen == blen && memcmp(a, b, alen) == 0) return 0;
    uint8_t stack[COPY_STACK];
    uint8_t *buf = copy_buf(stack, alen + blen + 2);
    memcpy(buf, a, alen);
    buf[alen] = 0;
    memcpy(buf + alen + 1, b, blen);
    buf[alen + 1 + blen] = 0;
    const char *s1 = (const char *)buf, *s2 = (const char *)buf + alen + 1;
    size_t n1 = alen + 1, n2 = blen + 1;    /* bytes left, each with its final NUL */
    int d;
    for (;;) {
        d = strcoll(s1, s2);
        if (d) break;
        /* Equal up to a NUL: go on with the pieces after it. */
        size_t l1 = strlen(s1) + 1, l2 = strlen(s2) + 1;
        s1 += l1;
        s2 += l2;
        n1 -= l1;
        n2 -= l2;
        if (n1 == 0) { d = -(n2 != 0); break; }
        if (n2 == 0) { d = 1; break; }
    }
    if (buf != stack) free(buf);
    return d;
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
    if (text_weights_key(s, nul, buf, len_out, cap)) return *len_out - start;
    return text_coll_key_xfrm(s, nul, buf, len_out, cap);
}

size_t text_coll_key_xfrm(const uint8_t *s, size_t nul, uint8_t **buf, size_t *len_out,
                          size_t *cap)
{
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
    uint8_t stack[COPY_STACK];
    uint8_t *src = copy_buf(stack, len + 1);
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
    if (src != stack) free(src);
    return at - start;
}

/* ---- compact collation keys ----
 * A first-level key is a string of glibc weights, each written as a UTF-8-like sequence (lead
 * byte: its length; 1 to 6 bytes); Latin letters take 2 bytes, so the library's string sort,
 * which sorts on 7 bytes at a time, sees 3 letters per pass and long runs of ties. When the
 * weights that occur are at most 256 distinct sequences (a few dozen in Latin text), each is
 * replaced by its rank in one byte. The sequences are prefix-free (the lead byte gives the
 * length) and ranked in byte order, so the order of two keys, and their equality, stay the
 * same. Example: 'h' 'e' 'l' = c2 aa | 7e | c3 90, ranks in a text of those three letters
 * 7e -> 0, c2 aa -> 1, c3 90 -> 2: "hel" -> 01 00 02. */

static inline int sym_len(uint8_t c)
{
    return c < 0x80 ? 1 : c < 0xC0 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4
         : c < 0xFC ? 5 : c < 0xFE ? 6 : 0;
}

/* The sequence at p (len bytes) as a number whose order is the bytes' order. */
static inline uint64_t sym_value(const uint8_t *p, int len)
{
    uint64_t v = 0;
    for (int i = 0; i < len; i++) v |= (uint64_t)p[i] << (56 - 8 * i);
    return v;
}

#define SYM_HASH 1024   /* slots for sequences of 3+ bytes; at most 256 are kept */

static inline size_t sym_slot(uint64_t v) { return (size_t)((v * 0x9E3779B97F4A7C15ull) >> 54); }

/* Insert v into a set of 3+-byte sequences; 0 when the set is full (more than 256). */
static int many_add(uint64_t *set, int *n, uint64_t v)
{
    for (size_t h = sym_slot(v);; h = (h + 1) % SYM_HASH) {
        if (set[h] == v) return 1;
        if (!set[h]) {
            if (*n == 256) return 0;
            set[h] = v;
            ++*n;
            return 1;
        }
    }
}

size_t text_coll_syms_add(text_coll_syms *s, const uint8_t *k, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n && !s->bad; count++) {
        int l = sym_len(k[i]);
        if (l == 0 || i + (size_t)l > n) { s->bad = 1; break; }
        if (l == 1) s->one[k[i]] = 1;
        else if (l == 2) s->two[((size_t)k[i] << 8 | k[i + 1]) >> 6] |=
                             1ull << (((size_t)k[i] << 8 | k[i + 1]) & 63);
        else if (!many_add(s->many, &s->nmany, sym_value(k + i, l))) s->bad = 1;
        i += (size_t)l;
    }
    return count;
}

static int u64_order(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int text_coll_code_init(text_coll_code *c, const text_coll_syms *parts, int nparts)
{
    memset(c, 0, sizeof *c);
    /* every sequence seen, merged and sorted */
    uint64_t *all = (uint64_t *)cli_alloc(65536 * sizeof *all);
    size_t n = 0;
    text_coll_syms *u = (text_coll_syms *)calloc(1, sizeof *u);
    if (!u) cli_fail("out of memory");
    for (int p = 0; p < nparts; p++) {
        if (parts[p].bad) { free(all); free(u); return 0; }
        for (int b = 0; b < 256; b++) u->one[b] |= parts[p].one[b];
        for (int w = 0; w < 1024; w++) u->two[w] |= parts[p].two[w];
        for (int h = 0; h < SYM_HASH; h++)
            if (parts[p].many[h] && !many_add(u->many, &u->nmany, parts[p].many[h])) {
                free(all); free(u); return 0;
            }
    }
    for (int b = 0; b < 256 && n <= 256; b++) if (u->one[b]) all[n++] = (uint64_t)b << 56;
    for (int v = 0; v < 65536 && n <= 256; v++)
        if (u->two[v >> 6] >> (v & 63) & 1) all[n++] = (uint64_t)v << 48;
    for (int h = 0; h < SYM_HASH && n <= 256; h++) if (u->many[h]) all[n++] = u->many[h];
    free(u);
    if (n > 256) { free(all); return 0; }
    qsort(all, n, sizeof *all, u64_order);
    c->two = (uint8_t *)cli_alloc(65536);
    for (size_t r = 0; r < n; r++) {
        uint64_t v = all[r];
        int l = sym_len((uint8_t)(v >> 56));
        if (l == 1) c->one[v >> 56] = (uint8_t)r;
        else if (l == 2) c->two[v >> 48] = (uint8_t)r;
        else {
            size_t h = sym_slot(v);
            while (c->many[h]) h = (h + 1) % SYM_HASH;
            c->many[h] = v;
            c->many_code[h] = (uint8_t)r;
        }
    }
    free(all);
    return 1;
}

void text_coll_code_free(text_coll_code *c) { free(c->two); }

size_t text_coll_encode(const text_coll_code *c, const uint8_t *k, size_t n, uint8_t *out)
{
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        int l = sym_len(k[i]);
        if (l == 1) out[m++] = c->one[k[i]];
        else if (l == 2) out[m++] = c->two[(size_t)k[i] << 8 | k[i + 1]];
        else {
            uint64_t v = sym_value(k + i, l);
            size_t h = sym_slot(v);
            while (c->many[h] != v) h = (h + 1) % SYM_HASH;
            out[m++] = c->many_code[h];
        }
        i += (size_t)l;
    }
    return m;
}
