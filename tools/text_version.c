/*
 * text_version.c -- -V: GNU sort's version order, gnulib's filenvercmp (text_version_cmp,
 * text.h), as coreutils 9.2 and later have it (gnulib since June 2022); 9.1's differs for
 * names that are all file suffix (prefix_len; GPUSORT_TEXT_COREUTILS=9.1 selects it).
 *
 * Two names compare in this order of rules:
 *   1. the empty name first; then ".", then "..", then other names starting with '.', then
 *      the rest;
 *   2. the names without their file suffix (the longest tail matching
 *      (\.[A-Za-z~][A-Za-z0-9~]*)* that is not the whole name, the suffix being empty when
 *      the name ends there) in Debian's version order (verrevcmp, Debian Policy 5.6.12):
 *      alternating runs of non-digits, compared character by character with '~' before the
 *      end of the run, the end before letters, letters before other bytes, and runs of
 *      digits, compared as numbers (leading zeros skipped); examples: "a1.2" < "a1.10",
 *      "a1~rc" < "a1" < "a1a";
 *   3. when those tie and a name had a suffix, the whole names in the same order.
 * A tie is 0 (GNU sort then uses its last-resort comparison).
 * Written from the description in gnulib's filevercmp.h and the Debian Policy; the cases of
 * coreutils' tests/misc/sort-version.sh and gnulib's test-filevercmp.c are in
 * tests/text/locale_tests.sh.
 */
#include "text.h"

#include <string.h>

static inline int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static inline int is_alpha(uint8_t c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

int text_coreutils91;

/* Length of s without its file suffix (rule 2). The suffix never takes the first byte: gnulib
 * commit 1ba2b66ea4 of 2022-06-03 ("filevercmp: don't treat entire filename as suffix",
 * coreutils 9.2 NEWS: "'sort -V' go back to sorting .0 before .A"; documented in coreutils'
 * doc/sort-version.texi: "a suffix is not allowed to match an entire nonempty string").
 * In coreutils 9.1 (gnulib of February 2022) a name that is all suffix (".A", ".x0",
 * ".tar.gz") had an empty prefix, so ".A" < ".0" there and ".0" < ".A" now; with
 * text_coreutils91 the scan starts at byte 0 as 9.1's did. */
static size_t prefix_len(const uint8_t *s, size_t n)
{
    for (size_t i = n > 0 && !text_coreutils91;; i++) {
        size_t prefix = i;
        while (i + 1 < n && s[i] == '.' && (is_alpha(s[i + 1]) || s[i + 1] == '~'))
            for (i += 2; i < n && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '~'); i++) {}
        if (i == n) return prefix;
    }
}

/* The weight of s[pos] in a non-digit run; pos == len (the end) sorts before all but '~'. */
static inline int weight(const uint8_t *s, size_t pos, size_t len)
{
    if (pos == len) return -1;
    uint8_t c = s[pos];
    if (is_digit(c)) return 0;
    if (is_alpha(c)) return c;
    if (c == '~') return -2;
    return c + 256;
}

static int verrevcmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t i = 0, j = 0;
    while (i < an || j < bn) {
        int first = 0;
        while ((i < an && !is_digit(a[i])) || (j < bn && !is_digit(b[j]))) {
            int x = weight(a, i, an), y = weight(b, j, bn);
            if (x != y) return x - y;
            i++;
            j++;
        }
        while (i < an && a[i] == '0') i++;
        while (j < bn && b[j] == '0') j++;
        while (i < an && j < bn && is_digit(a[i]) && is_digit(b[j])) {
            if (!first) first = a[i] - b[j];
            i++;
            j++;
        }
        if (i < an && is_digit(a[i])) return 1;
        if (j < bn && is_digit(b[j])) return -1;
        if (first) return first;
    }
    return 0;
}

int text_version_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    if (!alen) return -(blen != 0);
    if (!blen) return 1;
    if (a[0] == '.') {
        if (b[0] != '.') return -1;
        int adot = alen == 1, bdot = blen == 1;
        if (adot) return -!bdot;
        if (bdot) return 1;
        int add = a[1] == '.' && alen == 2, bdd = b[1] == '.' && blen == 2;
        if (add) return -!bdd;
        if (bdd) return 1;
    } else if (b[0] == '.') {
        return 1;
    }
    size_t ap = prefix_len(a, alen), bp = prefix_len(b, blen);
    int r = verrevcmp(a, ap, b, bp);
    if (r || (ap == alen && bp == blen)) return r;
    return verrevcmp(a, alen, b, blen);
}

/* ---- the sort projection ----
 * text_version_key writes a byte string whose order is text_version_cmp's, so that -V keys
 * sort with the library's string sort and only equal projections need text_version_cmp:
 *   class byte (empty 0, "." 1, ".." 2, other names starting with '.' 3, the rest 4), then
 *   enc(prefix), then R, rule 3 (only reached when the prefixes tie), in fewer bytes than
 *   enc(whole name): 0 for no suffix; else 1 + enc(suffix) when the prefix ends in a digit
 *   (D), 2 + enc(suffix) when not (N).
 * Why that is rule 3: when the prefixes tie, verrevcmp of the whole names walks through them
 * without a difference (the same non-digit bytes, digit runs of the same values) up to the
 * suffixes, which begin with '.'. If both prefixes are D, or both N, it meets them as at the
 * start of a string (after a digit run, or inside a non-digit run that the suffix continues),
 * so enc(suffix) orders them. A D and an N prefix tie only when the D's last digit run is all
 * zeros ("x0" and "x" both end "B 0 E"): the walk meets that '0' (weight 0) opposite the N's
 * suffix '.' (D first) or, when the N has no suffix, the end opposite the D's suffix (N
 * first); two names without suffixes are equal whatever their types (rule 3 is not reached).
 * So: none 0 < D 1 < N 2, each by its suffix. Example: ".0.Z" < "..~" (prefixes ".0" and ".",
 * equal), though ".Z" > ".~" (tests/text/locale_tests.sh, vtiny, checks it).
 * enc(x) follows verrevcmp's loop: each non-digit byte as its weight's rank (code_of), then
 * at the end of the run (a digit or the end of x) B, then the digit run without leading zeros
 * as its length (one byte) and its digits; after the last run E. Codes: '~' 1 < E 2 < B 3 <
 * letters < other bytes, as verrevcmp weighs them ('~' -2, end -1, digit 0, letter c, other
 * c + 256): the end of a run compares with a byte as verrevcmp's digit or end does; B
 * directly before E never happens, nor E opposite B; a run of zeros is length 0, like no run.
 * Example: "a1.10" -> a B 01 '1' . B 02 '1' '0' E.
 * A digit run of 255 digits or more ends the projection (both sides tie there: full compare)
 * and sets *cut. Without a cut, equal projections are names that text_version_cmp calls equal
 * (every step of verrevcmp and of the class rule is encoded), so the ties of a sort by them
 * need only the later keys and the last resort (text_sort.c). */
static uint8_t code_of[256];
static int codes_ready;

static void codes_init(void)
{
    int c = 4;
    for (int x = 'A'; x <= 'Z'; x++) code_of[x] = (uint8_t)c++;
    for (int x = 'a'; x <= 'z'; x++) code_of[x] = (uint8_t)c++;
    for (int x = 0; x < 256; x++)
        if (!is_alpha((uint8_t)x) && !is_digit((uint8_t)x) && x != '~') code_of[x] = (uint8_t)c++;
    code_of['~'] = 1;
    codes_ready = 1;
}

/* enc(s[0, n)) at out; returns its length, or (size_t)-1 after a saturated digit run (the
 * projection ends there). */
static size_t enc(const uint8_t *s, size_t n, uint8_t *out)
{
    size_t i = 0, m = 0;
    for (;;) {
        while (i < n && !is_digit(s[i])) out[m++] = code_of[s[i++]];
        out[m++] = 3;                                   /* B */
        while (i < n && s[i] == '0') i++;
        size_t d = i;
        while (i < n && is_digit(s[i])) i++;
        if (i - d >= 255) {
            out[m++] = 255;
            return (size_t)-1 - m;
        }
        out[m++] = (uint8_t)(i - d);
        memcpy(out + m, s + d, i - d);
        m += i - d;
        if (i == n) break;
    }
    out[m++] = 2;                                       /* E */
    return m;
}

size_t text_version_key(const uint8_t *s, size_t n, uint8_t *out, int *cut)
{
    if (!codes_ready) codes_init();
    if (n == 0) {
        out[0] = 0;
        return 1;
    }
    size_t m = 1;
    if (s[0] == '.') out[0] = n == 1 ? 1 : (s[1] == '.' && n == 2) ? 2 : 3;
    else out[0] = 4;
    if (out[0] == 1 || out[0] == 2) return 1;
    size_t p = prefix_len(s, n);
    size_t e = enc(s, p, out + m);
    if (e > 4 * n + 8) {                                 /* saturated: stop here */
        *cut = 1;
        return m + ((size_t)-1 - e);
    }
    m += e;
    if (p == n) {
        out[m] = 0;                                      /* no suffix */
        return m + 1;
    }
    out[m++] = p > 0 && is_digit(s[p - 1]) ? 1 : 2;      /* D or N */
    e = enc(s + p, n - p, out + m);
    if (e > 4 * n + 8) {
        *cut = 1;
        return m + ((size_t)-1 - e);
    }
    return m + e;
}
