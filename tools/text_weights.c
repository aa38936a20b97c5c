/*
 * text_weights.c -- first-level collation keys from a table of per-character weights, in place
 * of one strxfrm call per line (text.h: text_weights_key, text_weights_failed).
 *
 * WHY. text_coll_key keeps the first level of glibc's strxfrm key, but strxfrm computes all
 * four levels of every line, which made the keys the largest phase of the text mode in a
 * locale (bench/results/text-2026-11-28.md).
 * The first level of a string is the concatenation, character by character, of each collating
 * element's first-level weights, unless the locale joins several characters into one element
 * (a contraction: "l" + U+00B7 in every iso14651_t1 locale, "ch" in cs_CZ) or orders the level
 * backward or by position. So the weights of each character are computed once (strxfrm of the
 * character alone) and a line's key is built by table look-ups.
 *
 * WHICH CHARACTERS. Code points below TW_CHARS (1- and 2-byte UTF-8: Latin, Greek, Cyrillic,
 * Hebrew, Arabic...) in a UTF-8 locale. A line with any other byte sequence (3- and 4-byte
 * characters, invalid UTF-8) keeps strxfrm, as does a character that begins a contraction when
 * the character after it could continue one. Which characters begin contractions, and with
 * which followers, is read from glibc's wide-character collation tables (nl_langinfo
 * _NL_COLLATE_TABLEWC / _EXTRAWC, the layout of glibc's locale/coll-lookup.c and
 * locale/weightwc.h): a character whose table entry is a list of sequences has contractions; the
 * list's entries give the characters that may follow. The same tables give each element's rule
 * set (the top byte of its index), whose first-level flag must be plain forward.
 *
 * CHECKED, NOT TRUSTED. The tables are glibc internals (an old, stable layout, but nothing
 * promises it). So every TW_CHECK_EVERY-th key built from the table is
 * compared with strxfrm's; one difference, or tables that do not look as expected, turn the
 * table off for the rest of the process (text_weights_failed tells the caller to build its keys
 * again). GPUSORT_TEXT_WEIGHTS=0 in the environment turns it off (the A/B switch of the
 * benchmarks and tests); GPUSORT_TEXT_WEIGHTS=corrupt spoils one weight and checks every
 * other key (the test of that fallback, tests/text/locale_tests.sh).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "text.h"
#include "util.h"

#include <langinfo.h>
#include <locale.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define TW_CHARS 0x800          /* code points with a table entry: 1- and 2-byte UTF-8 */
#define TW_MAX_WEIGHTS 13       /* first-level bytes of one character kept in the table */
#define TW_MAX_FOLLOW 6         /* follower ranges of a contraction starter kept */
#define TW_CHECK_EVERY 1024     /* one key in this many is compared with strxfrm's */
#define TW_MAX_LINE 4096        /* longer pieces keep strxfrm (the buffer reserve is per byte) */

/* One character's entry. usable 0: lines holding it keep strxfrm. follow: the code point
 * ranges that may continue a contraction begun by this character (nfollow of them). */
typedef struct tw_char {
    uint8_t usable;
    uint8_t len;                /* first-level weight bytes */
    uint8_t w[TW_MAX_WEIGHTS];
    uint8_t nfollow;
    uint32_t follow[TW_MAX_FOLLOW][2];
} tw_char;

static tw_char *tw_table;       /* TW_CHARS entries, or NULL: the table is off */
static unsigned tw_check_every = TW_CHECK_EVERY;
static pthread_once_t tw_once = PTHREAD_ONCE_INIT;
static atomic_int tw_bad;       /* a checked key differed: off for good */
static _Thread_local unsigned tw_count;

/* ---- glibc's wide-character collation tables ---- */

/* A three-level table of int32 (coll-lookup.c's layout): a header of 5 words (shift1, bound,
 * shift2, mask2, mask3), then `bound` byte offsets of second-level blocks, whose words are byte
 * offsets of third-level blocks of int32 values; 0 is the default. */
static int32_t wc_index(const char *table, uint32_t wc)
{
    const uint32_t *h = (const uint32_t *)table;
    uint32_t i1 = wc >> h[0];
    if (h[0] >= 32 || i1 >= h[1]) return 0;
    uint32_t l1 = h[5 + i1];
    if (!l1) return 0;
    uint32_t l2 = ((const uint32_t *)(table + l1))[(wc >> h[2]) & h[3]];
    if (!l2) return 0;
    return ((const int32_t *)(table + l2))[wc & h[4]];
}

/* The entry of wc: its weight index (rule set in the top byte) in *idx and its contraction
 * followers in c->follow. Returns 0 when the tables say something this file does not read. */
static int wc_entry(const char *table, const int32_t *extra, uint32_t wc, int32_t *idx, tw_char *c)
{
    int32_t i = wc_index(table, wc);
    c->nfollow = 0;
    if (i >= 0) { *idx = i; return 1; }
    /* A list of sequences beginning with wc (weightwc.h): entries of int32 words: the index,
     * the count n of characters after wc, then n characters (a single sequence, index >= 0)
     * or 2n (a range, index < 0: the first n-1 characters equal, the last in [start, end]).
     * The list ends with the sequence of no more characters: wc alone. */
    const int32_t *p = extra - i;
    for (int guard = 0; guard < 4096; guard++) {
        int32_t e = p[0];
        int32_t n = p[1];
        if (n < 0 || n > 64) return 0;
        if (n == 0) {
            if (e < 0) return 0;
            *idx = e;
            return 1;
        }
        /* The character after wc that this entry needs: one code point, or a range when the
         * range's varying character is the first one. */
        uint32_t lo = (uint32_t)p[2], hi = lo;
        if (e < 0 && n == 1) hi = (uint32_t)p[3];
        if (c->nfollow == TW_MAX_FOLLOW) return 0;   /* too many: treat as unusable */
        c->follow[c->nfollow][0] = lo;
        c->follow[c->nfollow][1] = hi;
        c->nfollow++;
        p += 2 + (e >= 0 ? n : 2 * n);
    }
    return 0;
}

/* The first-level bytes of strxfrm's key of the character s (NUL-terminated): up to the first
 * 0x01 (glibc separates levels with it; weights are >= 2). -1 when it does not fit. */
static int first_level(const char *s, uint8_t *out, size_t cap)
{
    char buf[256];
    size_t k = strxfrm(buf, s, sizeof buf);
    if (k >= sizeof buf) return -1;
    size_t n = 0;
    while (n < k && buf[n] != 1) n++;
    if (n > cap) return -1;
    memcpy(out, buf, n);
    return (int)n;
}

static int utf8_put(uint32_t c, char *s)
{
    if (c < 0x80) { s[0] = (char)c; return 1; }
    s[0] = (char)(0xC0 | (c >> 6));
    s[1] = (char)(0x80 | (c & 0x3F));
    return 2;
}

static void tw_init(void)
{
    const char *e = getenv("GPUSORT_TEXT_WEIGHTS");
    if (e && strcmp(e, "0") == 0) return;
    /* "corrupt" (tests): a wrong weight for 'e' and every other key checked, so that some
     * wrong keys are made before a checked one turns the table off, and the caller must build
     * the keys again by strxfrm. */
    int corrupt = e && strcmp(e, "corrupt") == 0;
    if (corrupt) tw_check_every = 2;
    if (!text_collate) return;
    const char *cs = nl_langinfo(CODESET);
    if (!cs || strcmp(cs, "UTF-8") != 0) return;
    int nrules = (int)(intptr_t)nl_langinfo(_NL_COLLATE_NRULES);
    const unsigned char *rules = (const unsigned char *)nl_langinfo(_NL_COLLATE_RULESETS);
    const char *table = nl_langinfo(_NL_COLLATE_TABLEWC);
    const int32_t *extra = (const int32_t *)(const void *)nl_langinfo(_NL_COLLATE_EXTRAWC);
    if (nrules < 1 || nrules > 8 || !rules || !table || !extra) return;
    const uint32_t *h = (const uint32_t *)(const void *)table;
    if (h[0] >= 32 || h[2] >= 32 || h[1] == 0 || h[1] > (1u << 20)) return;

    tw_char *t = (tw_char *)calloc(TW_CHARS, sizeof *t);
    if (!t) return;
    for (uint32_t cp = 1; cp < TW_CHARS; cp++) {
        tw_char *c = &t[cp];
        int32_t idx;
        if (!wc_entry(table, extra, cp, &idx, c)) continue;
        /* The element's rule set must order the first level forward, without "position". */
        int rule = (int)((uint32_t)idx >> 24);
        if (rules[rule * nrules] != 1) continue;
        char s[4] = {0};
        utf8_put(cp, s);
        int n = first_level(s, c->w, TW_MAX_WEIGHTS);
        if (n < 0) continue;
        c->len = (uint8_t)n;
        c->usable = 1;
    }
    if (corrupt && t['e'].usable && t['e'].len) t['e'].w[0] ^= 1;
    tw_table = t;
}

/* ---- keys ---- */

static inline int follows(const tw_char *c, uint32_t next)
{
    for (int f = 0; f < c->nfollow; f++)
        if (next >= c->follow[f][0] && next <= c->follow[f][1]) return 1;
    return 0;
}

/* Decode the character at s[i] (i < n) below TW_CHARS; its length in *len, or 0 when it is
 * none (a 3/4-byte character or invalid UTF-8). */
static inline uint32_t decode(const uint8_t *s, size_t i, size_t n, int *len)
{
    uint8_t b = s[i];
    if (b < 0x80) { *len = 1; return b; }
    if (b >= 0xC2 && b < 0xE0 && i + 1 < n && (s[i + 1] & 0xC0) == 0x80) {
        *len = 2;
        return (uint32_t)(b & 0x1F) << 6 | (s[i + 1] & 0x3F);
    }
    *len = 0;
    return 0;
}

/* The table key of s[0, n) (no NULs) appended at out; -1 when a character needs strxfrm. */
static long table_key(const uint8_t *s, size_t n, uint8_t *out)
{
    const tw_char *t = tw_table;
    long m = 0;
    for (size_t i = 0; i < n;) {
        int l;
        uint32_t cp = decode(s, i, n, &l);
        if (!l) return -1;
        const tw_char *c = &t[cp];
        if (!c->usable) return -1;
        i += (size_t)l;
        if (c->nfollow && i < n) {
            int l2;
            uint32_t next = decode(s, i, n, &l2);
            if (!l2 || follows(c, next)) return -1;
        }
        memcpy(out + m, c->w, TW_MAX_WEIGHTS);    /* fixed size: the caller leaves room */
        m += c->len;
    }
    return m;
}

int text_weights_key(const uint8_t *s, size_t len, uint8_t **buf, size_t *len_out, size_t *cap)
{
    if (len == 0) return 0;
    pthread_once(&tw_once, tw_init);
    if (!tw_table || len > TW_MAX_LINE || atomic_load_explicit(&tw_bad, memory_order_relaxed))
        return 0;
    size_t need = *len_out + len * TW_MAX_WEIGHTS + TW_MAX_WEIGHTS;
    if (need > *cap) {
        size_t c = *cap ? *cap : 256;
        while (c < need) c *= 2;
        uint8_t *nb = (uint8_t *)realloc(*buf, c);
        if (!nb) cli_fail("out of memory (%zu bytes)", c);
        *buf = nb;
        *cap = c;
    }
    long m = table_key(s, len, *buf + *len_out);
    if (m < 0) return 0;
    if (tw_count++ % tw_check_every == 0) {
        /* Compare with strxfrm's first level (text_coll_key's own way). */
        uint8_t *ref = NULL;
        size_t rlen = 0, rcap = 0;
        size_t r = text_coll_key_xfrm(s, len, &ref, &rlen, &rcap);
        int same = r == (size_t)m && memcmp(ref, *buf + *len_out, r) == 0;
        free(ref);
        if (!same) {
            atomic_store(&tw_bad, 1);
            return 0;
        }
    }
    *len_out += (size_t)m;
    return 1;
}

int text_weights_failed(void) { return atomic_load(&tw_bad); }
