/*
 * text_debug.c -- `--debug` of the text mode, as GNU sort writes it (text.h: text_debug_notes,
 * text_debug_output).
 *
 * GNU sort --debug does two things, and so does this file:
 *   - before sorting, notes on standard error: "failed to set locale" when the locale of the
 *     environment is not installed, the ordering in force ("text ordering performed using
 *     'en_US.UTF-8' sorting rules" or "... simple byte comparison"), then GNU's key_warnings:
 *     obsolescent +POS keys, keys of zero width, leading blanks that count, numeric keys that
 *     span fields, separators that are also part of numbers, the decimal point, and global
 *     options that no key uses;
 *   - when the output is standard output (not -o), each line is written with its tabs shown
 *     as '>' and ended by a newline (also under -z), then one line per key: spaces up to where
 *     the key starts, then one '_' per column of the key, or "^ no match for key" when it is
 *     empty; then one for the whole line, the last-resort comparison, unless -s or -u.
 * Columns are display columns (glibc's wcwidth in a multibyte locale; control characters
 * take none) plus one per tab, as GNU's debug_width (gnulib mbsnwidth). Where a key ends
 * follows GNU's debug_key: numbers end after their digits (-n, -h: and the unit letter),
 * -g where strtold stops, -M after the month name.
 *
 * The output side is a line hook on the cli_out of standard output (util.h), so that the
 * in-memory sort, the merge of runs and -m are all annotated the same way. It is for reading,
 * not for speed: every output line goes through it one at a time.
 * (Behaviour checked against the system's GNU sort by tests/text/locale_tests.sh and the
 * fuzz_diff target; no code of coreutils is used.)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "text.h"
#include "util.h"

#include <ctype.h>
#include <langinfo.h>
#include <libintl.h>
#include <stdarg.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

/* ---- notes ---- */

static int utf8_locale(void)
{
    const char *cs = nl_langinfo(CODESET);
    return cs && strcmp(cs, "UTF-8") == 0;
}

/* GNU sort's messages in the user's language: the system's coreutils catalog (gettext), as
 * GNU sort itself reads it; English when there is none. */
#define TR(msgid) dgettext("coreutils", msgid)

/* gnulib quote(): the catalog's quotation marks, else curly ones in a UTF-8 locale and
 * apostrophes elsewhere. */
static void quoted(char *out, size_t cap, const char *s)
{
    static const char lq[] = "`", rq[] = "'";
    const char *l = TR(lq), *r = TR(rq);      /* the msgid itself when not translated */
    if (l == lq) l = utf8_locale() ? "\xe2\x80\x98" : "'";
    if (r == rq) r = utf8_locale() ? "\xe2\x80\x99" : "'";
    snprintf(out, cap, "%s%s%s", l, s, r);
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpusort: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int key_numeric(const tkey *k) { return k->numeric || k->general || k->human; }


void text_debug_notes(const tsort *t)
{
    if (text_locale_failed) note("%s", TR("failed to set locale"));
    if (text_hard_collate) {
        char q[256];
        const char *name = setlocale(LC_COLLATE, NULL);
        quoted(q, sizeof q, name ? name : "");
        note(TR("text ordering performed using %s sorting rules"), q);
    } else {
        note("%s", TR("text ordering performed using simple byte comparison"));
    }

    tkey ug = t->gkey;           /* the global options that no key uses */
    int basic = 0, general = 0, basic_span = 0, general_span = 0;
    for (int i = 0; i < t->nkeys; i++) {
        const tkey *k = &t->keys[i];
        unsigned long num = (unsigned long)i + 1;
        if (key_numeric(k)) {
            if (k->general) general = 1;
            else basic = 1;
        }
        if (k->traditional) {
            size_t sw = k->sword == SIZE_MAX ? 0 : k->sword;
            char o[64], n[64], qo[80], qn[80];
            int lo = snprintf(o, sizeof o, "+%zu", sw);
            int ln = snprintf(n, sizeof n, "-k %zu", sw + 1);
            if (k->eword != SIZE_MAX) {
                snprintf(o + lo, sizeof o - (size_t)lo, " -%zu", k->eword + 1);
                snprintf(n + ln, sizeof n - (size_t)ln, ",%zu", k->eword + 1);
            }
            quoted(qo, sizeof qo, o);
            quoted(qn, sizeof qn, n);
            note(TR("obsolescent key %s used; consider %s instead"), qo, qn);
        }
        int zero_width = k->sword != SIZE_MAX && k->eword < k->sword;
        if (zero_width) note(TR("key %lu has zero width and will be ignored"), num);
        int implicit_skip = key_numeric(k) || k->month;
        int line_offset = k->eword == 0 && k->echar != 0;
        if (!zero_width && !t->gkey_only && t->tab < 0 && !line_offset &&
            ((!k->skipsblanks && !implicit_skip) || (!k->skipsblanks && k->schar) ||
             (!k->skipeblanks && k->echar)))
            note(TR("leading blanks are significant in key %lu; consider also specifying 'b'"), num);
        if (!t->gkey_only && key_numeric(k)) {
            size_t sw = k->sword + 1, ew = k->eword + 1;
            if (!sw) sw++;
            if (!ew || sw < ew) {
                note(TR("key %lu is numeric and spans multiple fields"), num);
                if (k->general) general_span = 1;
                else basic_span = 1;
            }
        }
        if (ug.ignore && ug.ignore == k->ignore) ug.ignore = NULL;
        if (ug.translate && ug.translate == k->translate) ug.translate = NULL;
        ug.skipsblanks &= !k->skipsblanks;
        ug.skipeblanks &= !k->skipeblanks;
        ug.month &= !k->month;
        ug.numeric &= !k->numeric;
        ug.general &= !k->general;
        ug.human &= !k->human;
        ug.random &= !k->random;
        ug.version &= !k->version;
        ug.reverse &= !k->reverse;
    }

    int dp = text_decimal_point, ts = text_thousands_sep;
    int warned = 0;
    char q[16], c[2] = {0, 0};
    if (basic_span &&
        (t->tab < 0 ? ts >= 0 && isblank(ts) : t->tab == ts)) {
        c[0] = (char)ts;
        quoted(q, sizeof q, c);
        note(TR("field separator %s is treated as a group separator in numbers"), q);
        warned = 1;
    }
    if (basic_span || general_span) {
        if (t->tab < 0 ? ts >= 0 && isblank(dp) : t->tab == dp) {
            c[0] = (char)dp;
            quoted(q, sizeof q, c);
            note(TR("field separator %s is treated as a decimal point in numbers"), q);
            warned = 1;
        } else if (t->tab == '-') {
            quoted(q, sizeof q, "-");
            note(TR("field separator %s is treated as a minus sign in numbers"), q);
        } else if (general_span && t->tab == '+') {
            quoted(q, sizeof q, "+");
            note(TR("field separator %s is treated as a plus sign in numbers"), q);
        }
    }
    if ((basic || general) && !warned) {
        c[0] = (char)dp;
        quoted(q, sizeof q, c);
        note(TR("%snumbers use %s as a decimal point in this locale"),
             t->tab == dp ? "" : TR("note "), q);
    }
    if (basic && text_thousands_sep_ignored)
        note("%s", TR("the multi-byte number group separator in this locale is not supported"));
    int stable_or_unique = t->o.stable || t->o.unique;
    if (!text_key_default(&ug) || (ug.reverse && stable_or_unique && t->nkeys)) {
        int rev = ug.reverse;
        if (!stable_or_unique) ug.reverse = 0;
        char o[16];
        text_key_letters(&ug, o);
        note(dngettext("coreutils", "option '-%s' is ignored", "options '-%s' are ignored",
                       strlen(o)),
             o);
        ug.reverse = rev;
    }
    if (ug.reverse && !stable_or_unique && t->nkeys)
        note("%s", TR("option '-r' only applies to last-resort comparison"));
}

/* ---- the marked lines ---- */

/* Display columns of [p, lim) (gnulib mbsnwidth with no flags) plus one per tab. */
static size_t columns(const uint8_t *p, const uint8_t *lim)
{
    size_t w = 0;
    int multi = MB_CUR_MAX > 1;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    while (p < lim) {
        uint8_t c = *p;
        if (c == '\t') w++;
        if (!multi) {
            if (isprint(c) || !iscntrl(c)) w++;
            p++;
            continue;
        }
        if (c >= 0x20 && c < 0x7f) {       /* printable ASCII: one column */
            w++;
            p++;
            continue;
        }
        wchar_t wc;
        size_t n = mbrtowc(&wc, (const char *)p, (size_t)(lim - p), &st);
        if (n == (size_t)-1) {             /* invalid: one column per byte */
            memset(&st, 0, sizeof st);
            w++;
            p++;
            continue;
        }
        if (n == (size_t)-2) {             /* cut at the end: one column */
            w++;
            break;
        }
        if (n == 0) n = 1;                 /* NUL */
        int cw = wcwidth(wc);
        if (cw >= 0) w += (size_t)cw;
        else if (!iswcntrl((wint_t)wc)) w++;
        p += n;
    }
    return w;
}

static int unit_letter(uint8_t c)
{
    return c == 'k' || (c && strchr("KMGTPEZY", c) != NULL);
}

/* GNU traverse_raw_number on [p, lim): digits with single thousands separators, then the
 * decimal point and digits; *end after the number; returns the highest digit or 0. */
static uint8_t raw_number(const uint8_t *p, const uint8_t *lim, const uint8_t **end)
{
    uint8_t maxd = 0, c;
    int sep_end = 0;
    for (;;) {
        c = p < lim ? *p : 0;
        p++;
        if ((unsigned)(c - '0') >= 10) break;
        if (c > maxd) maxd = c;
        sep_end = p < lim && text_thousands_sep >= 0 && (int)*p == text_thousands_sep;
        if (sep_end) p++;
    }
    if (sep_end) {
        *end = p - 2;
        return maxd;
    }
    if (c && c == text_decimal_point)
        for (;;) {
            c = p < lim ? *p : 0;
            p++;
            if ((unsigned)(c - '0') >= 10) break;
            if (c > maxd) maxd = c;
        }
    *end = p - 1;
    return maxd;
}

static void put(ext_out_buf *b, const void *s, size_t n)
{
    ext_out_reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void put_mark(ext_out_buf *b, size_t offset, size_t width)
{
    for (size_t i = 0; i < offset; i++) put(b, " ", 1);
    if (!width) {
        const char *m = TR("^ no match for key\n");
        put(b, m, strlen(m));
        return;
    }
    for (size_t i = 0; i < width; i++) put(b, "_", 1);
    put(b, "\n", 1);
}

/* GNU debug_key: mark key k (NULL: the whole line) of the line [text, lim). */
static void mark_key(const tsort *t, const tkey *k, const uint8_t *text, const uint8_t *lim,
                     ext_out_buf *b)
{
    const uint8_t *beg = text, *end = lim;
    if (k) {
        if (k->sword != SIZE_MAX) beg = text_begfield(t, text, lim, k);
        if (k->eword != SIZE_MAX) end = text_limfield(t, text, lim, k);
        if ((k->skipsblanks && k->sword == SIZE_MAX) || k->month || key_numeric(k)) {
            /* GNU ends the key at its end (a NUL written there) for the skip, unless the
             * key ends before it starts: then the blanks are skipped to the line's end. */
            const uint8_t *stop = end >= beg ? end : lim;
            while (beg < stop && text_blanks[*beg]) beg++;
            const uint8_t *tight = beg;
            if (end < beg) {
                tight = end;
            } else if (k->month) {
                size_t e;
                if (text_month_end(beg, (size_t)(end - beg), &e)) tight = beg + e;
            } else if (k->general) {
                size_t n = (size_t)(end - beg);
                char *s = (char *)cli_alloc(n + 1);
                memcpy(s, beg, n);
                s[n] = 0;
                char *e;
                (void)strtold(s, &e);
                tight = beg + (e - s);
                free(s);
            } else if (k->numeric || k->human) {
                const uint8_t *p = beg + (beg < end && *beg == '-');
                const uint8_t *ne;
                if (raw_number(p, end, &ne) >= '0') {
                    uint8_t u = ne < end ? *ne : 0;
                    tight = ne + (k->human && unit_letter(u));
                }
            } else {
                tight = end;                /* -b on a key from the line's start */
            }
            end = tight;
        }
    }
    size_t off = columns(text, beg);
    put_mark(b, off, end > beg ? columns(beg, end) : 0);
}

static void debug_line(void *arg, cli_out *o, const uint8_t *line, size_t n)
{
    const tsort *t = (const tsort *)arg;
    static ext_out_buf b;        /* one line at a time, on the writing thread */
    b.len = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = line[i] == '\t' ? '>' : line[i];
        put(&b, &c, 1);
    }
    put(&b, "\n", 1);
    const uint8_t *lim = line + n;
    int i = 0;
    if (!t->nkeys) {
        mark_key(t, NULL, line, lim, &b);
    } else {
        for (; i < t->nkeys; i++) mark_key(t, &t->keys[i], line, lim, &b);
        if (!(t->o.unique || t->o.stable)) mark_key(t, NULL, line, lim, &b);
    }
    cli_out_write_raw(o, b.p, b.len);
}

void text_debug_output(tsort *t, cli_out *o)
{
    if (t->debug && !t->o.outfile) cli_out_set_line_hook(o, t->delim, debug_line, t);
}
