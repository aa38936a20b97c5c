/*
 * text_version.c -- -V: GNU sort's version order, gnulib's filenvercmp (text_version_cmp,
 * text.h), as coreutils 9.1 has it (see prefix_len for what 9.2+ changed).
 *
 * Two names compare in this order of rules:
 *   1. the empty name first; then ".", then "..", then other names starting with '.', then
 *      the rest;
 *   2. the names without their file suffix (the longest tail matching
 *      (\.[A-Za-z~][A-Za-z0-9~]*)*, the suffix being empty when the name ends there) in
 *      Debian's version order (verrevcmp, Debian Policy 5.6.12): alternating runs of
 *      non-digits, compared character by character with '~' before the end of the run, the
 *      end before letters, letters before other bytes, and runs of digits, compared as numbers
 *      (leading zeros skipped); examples: "a1.2" < "a1.10", "a1~rc" < "a1" < "a1a";
 *   3. when those tie and a name had a suffix, the whole names in the same order.
 * A tie is 0 (GNU sort then uses its last-resort comparison).
 * Written from the description in gnulib's filevercmp.h and the Debian Policy; the cases of
 * coreutils' tests/misc/sort-version.sh and gnulib's test-filevercmp.c are in
 * tests/text/locale_tests.sh.
 */
#include "text.h"

static inline int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }
static inline int is_alpha(uint8_t c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

/* Length of s without its file suffix (rule 2). As in coreutils 9.1 (gnulib of February
 * 2022), a name that is all suffix (".x0", ".tar.gz") has an empty prefix; gnulib of June 2022
 * (coreutils 9.2 and later) keeps its first byte, so such names order differently there. */
static size_t prefix_len(const uint8_t *s, size_t n)
{
    for (size_t i = 0;; i++) {
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
