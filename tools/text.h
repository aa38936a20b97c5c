/*
 * text.h -- INTERNAL to the gpusort program: the text mode (GNU sort compatible sorting of
 * lines) in its files, and what it shares with records.c.
 *
 *   text_main.c     the driver: gpusort_cli_text_main, the chunked sort (in memory, or runs
 *                   written and merged by extsort.c), -m, -c/-C, phase timing, text_context
 *   text_options.c  GNU sort's command line: options, -k key specs, obsolete +POS keys, -S,
 *                   the locale check -> a tsort
 *   text_keys.c     key extraction and comparison: fields (-t, -k), -b/-d/-i/-f, -n, -g and -h
 *                   numbers; line_cmp (GNU compare()); the first key of every line as numeric
 *                   images or packed bytes for the library's fast sorts
 *   text_locale.c   the user's locale: setlocale, GNU's character tables, collation keys
 *                   (strxfrm) and strcoll comparison, the decimal point and thousands
 *                   separator of -n, the month names of -M
 *   text_weights.c  first-level collation keys from per-character weights (glibc's tables),
 *                   checked against strxfrm
 *   text_version.c  -V: GNU's version order (gnulib filenvercmp)
 *   text_random.c   -R: MD5 of a salt and the key, the salt from --random-source
 *   text_sort.c     the in-memory sort of one chunk of lines: the library sort of the first
 *                   key's projection, then the ties finished with line_cmp
 *   text_io.c       input (reading files whole or in budget-sized steps), line splitting
 *                   (index, compaction), and the ordered, parallel write of the sorted lines
 *   records.c       fixed-size binary records (--record-size), which share text_opts
 *
 * Order of calls (text_main.c): text_parse_args -> text_tables_init (inside) -> for each chunk:
 * text_input_* -> text_index_lines -> text_sort_lines -> text_write_lines (to the output or to
 * a run) -> extsort_finish when runs were written.
 */
#ifndef GPUSORT_CLI_TEXT_H
#define GPUSORT_CLI_TEXT_H

#include "extsort.h"

#include "gpusort.h"
#include "internal.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- options (text_options.c), shared with records.c ---- */

typedef struct text_opts {
    char **files;              /* inputs ("-" = stdin); at least one */
    int nfiles;
    const char *outfile;       /* -o, or NULL for stdout */
    int reverse, unique, stable, merge;
    int check;                 /* 0, 'c' (report) or 'C' (quiet) */
    uint64_t budget;           /* -S in bytes (default: TEXT_DEFAULT_BUDGET_PERCENT of RAM) */
    const char **tmpdirs;      /* -T folders, default $TMPDIR or /tmp */
    int ntmpdirs;
    int fanin;                 /* --batch-size */
    int threads;               /* --parallel (0 = all cores) */
    gpusort_backend backend;   /* --backend */
    int device;                /* --device */
    size_t record_size, key_size, key_offset;   /* --record-size etc. (record_size 0: text) */
} text_opts;

/* Default memory budget: this share of physical RAM (GNU sort takes a similar share). */
#define TEXT_DEFAULT_BUDGET_PERCENT 50

/* Create the library context of --backend/--device/--parallel; cli_fail on error
 * (text_main.c). */
gpusort_ctx *text_context(const text_opts *o);

/* Every input must be readable before the output is created, so that a missing one fails
 * before anything is written; cli_fail otherwise (text_main.c). */
void text_check_readable(const text_opts *o);

/* Records mode (records.c). Returns the exit code. */
int text_records_main(const text_opts *o);

/* One -k key (or the whole-line key of global ordering options), as GNU sort keeps it. */
typedef struct tkey {
    size_t sword, schar;        /* start field/char, 0-based; sword SIZE_MAX: line start */
    size_t eword, echar;        /* end; eword SIZE_MAX: line end; echar 0: end of field */
    int skipsblanks, skipeblanks;
    const uint8_t *ignore;      /* text_nondict / text_nonprint / NULL */
    const uint8_t *translate;   /* text_fold_upper / NULL */
    int numeric, general, reverse;
    int human, month, version, random;   /* -h, -M, -V, -R */
    int traditional;            /* given as +POS1 [-POS2] (--debug warns) */
} tkey;

/* A text sort: its options, keys and library context. */
typedef struct tsort {
    text_opts o;
    tkey *keys;
    int nkeys;
    int tab;                    /* -t byte, or -1 (fields separated by blank runs) */
    int delim;                  /* '\n', or '\0' with -z */
    gpusort_ctx *ctx;
    int threads;
    int gpu_maybe;              /* --backend auto: ctx is the CPU backend's until the cost model
                                   (text_sort.c, pick_backend) says a GPU context pays */
    int debug;                  /* --debug (text_debug.c) */
    tkey gkey;                  /* the global ordering options (GNU's gkey) */
    int gkey_only;              /* keys[0] is gkey: no -k was given */
} tsort;

/* Parse argv (argv[0] is the program name) into *t, whose keys, files and tmpdirs arrays the
 * caller frees. Returns -1 to go on, or an exit code when the command line was handled
 * (--help, --version: 0). Errors exit 2 (cli_fail). */
int text_parse_args(int argc, char **argv, tsort *t);
/* The option letters of key k in GNU's order (its key_to_opts): b d f g h i M n R r V. out
 * holds at least 12 bytes. */
void text_key_letters(const tkey *k, char *out);
/* 1 when key k has no ordering option (GNU default_key_compare; -r aside): such a -k key takes
 * the global ones. */
int text_key_default(const tkey *k);

/* ---- key extraction and comparison (text_keys.c) ---- */

/* GNU begfield / limfield: where key k starts and ends in the line [p, lim). */
const uint8_t *text_begfield(const tsort *t, const uint8_t *p, const uint8_t *lim, const tkey *k);
const uint8_t *text_limfield(const tsort *t, const uint8_t *p, const uint8_t *lim, const tkey *k);

/* GNU's character tables in the C locale; text_tables_init fills them. */
extern uint8_t text_blanks[256];      /* isblank or '\n' (GNU's field_sep) */
extern uint8_t text_nondict[256];     /* -d: ignore all but alphanumerics and blanks */
extern uint8_t text_nonprint[256];    /* -i: ignore non-printing */
extern uint8_t text_fold_upper[256];  /* -f: toupper */
/* Fill them from the current locale (call after text_locale_init). */
void text_tables_init(void);

/* ---- --debug (text_debug.c) ---- */

/* GNU sort --debug: the notes on stderr before sorting (the ordering in force, "failed to set
 * locale", the warnings about keys and ignored options). */
void text_debug_notes(const tsort *t);
/* When t->debug and the output is standard output: every line written to o is replaced by
 * GNU's debug form (tabs shown as '>', the line ended by a newline, then one line under each
 * key marking its extent). */
void text_debug_output(tsort *t, cli_out *o);

/* ---- the locale (text_locale.c) ---- */

/* setlocale(LC_ALL, "") as GNU sort does (a locale that is not installed leaves C, silently),
 * then the globals below and the tables above. */
void text_locale_init(void);
extern int text_collate;          /* 1: compare text with strcoll (byte order is not enough) */
extern int text_hard_collate;     /* GNU's hard_LC_COLLATE: not C or POSIX (C.UTF-8 is) */
extern int text_decimal_point;    /* -n/-h decimal point byte ('.' in C) */
extern int text_thousands_sep;    /* -n/-h thousands separator byte, or -1 (none, C) */
/* GNU memcoll0: strcoll of two byte strings that may hold NULs (compared piece by piece). */
int text_coll_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
/* Append the collation key of s[0, len) to *buf (size *len_out, capacity *cap; realloc'd):
 * strxfrm of each NUL-separated piece, joined by NUL bytes (gnulib memxfrm), so that byte
 * order of the results is text_coll_cmp's order. Returns the key's length. */
size_t text_xfrm(const uint8_t *s, size_t len, uint8_t **buf, size_t *len_out, size_t *cap);
/* Append a projection of text_coll_cmp's order to *buf (as text_xfrm): the first three
 * levels of the collation key of the first NUL-terminated piece. Keys that differ order as
 * text_coll_cmp does; equal ones need text_coll_cmp. */
size_t text_coll_key(const uint8_t *s, size_t len, uint8_t **buf, size_t *len_out, size_t *cap);
/* The same by strxfrm alone, of s[0, n) holding no NUL. */
size_t text_coll_key_xfrm(const uint8_t *s, size_t n, uint8_t **buf, size_t *len_out, size_t *cap);
/* text_weights.c: the first level of s[0, n) (no NULs) from a table of per-character weights,
 * appended as text_coll_key_xfrm would (same bytes); 0 (nothing appended) when the line needs
 * strxfrm. text_weights_failed: 1 once a checked key differed from strxfrm's; keys built
 * before that may be wrong and must be built again (the table is off from then on). */
int text_weights_key(const uint8_t *s, size_t n, uint8_t **buf, size_t *len_out, size_t *cap);
int text_weights_failed(void);
/* Compact collation keys (text_locale.c): the weight sequences of first-level keys, collected
 * per slice (text_coll_syms_add returns the key's length in sequences), then, when at most
 * 256 distinct ones occur, each replaced by its rank in one byte: same order, same ties. */
typedef struct text_coll_syms {
    uint8_t one[256];          /* 1-byte sequences seen */
    uint64_t two[1024];        /* 2-byte sequences seen (bitmap) */
    uint64_t many[1024];       /* longer ones (hash set, 0 = empty) */
    int nmany;
    int bad;                   /* not compressible (malformed, or more than 256) */
} text_coll_syms;
typedef struct text_coll_code {
    uint8_t one[256];
    uint8_t *two;              /* 65536 entries */
    uint64_t many[1024];
    uint8_t many_code[1024];
} text_coll_code;
size_t text_coll_syms_add(text_coll_syms *s, const uint8_t *k, size_t n);
/* 1 and the code when the slices' sequences allow it, else 0. */
int text_coll_code_init(text_coll_code *c, const text_coll_syms *parts, int nparts);
void text_coll_code_free(text_coll_code *c);
/* Encode key k (n bytes) into out (at most n bytes); returns the new length. */
size_t text_coll_encode(const text_coll_code *c, const uint8_t *k, size_t n, uint8_t *out);
/* -M: 1..12 for the month name at the start of s[0, len) (after blanks), 0 for none. */
int text_month(const uint8_t *s, size_t len);
/* The same, and where the month name ends in s (0 when none matched). */
int text_month_end(const uint8_t *s, size_t len, size_t *end);
/* setlocale(LC_ALL, "") failed (a locale that is not installed): --debug says so. */
extern int text_locale_failed;
/* The locale's thousands separator has several bytes, so -n ignores it (--debug says so). */
extern int text_thousands_sep_ignored;

/* -V (text_version.c): GNU filenvercmp, and a byte string of at most 4n + 8 bytes whose
 * order is filenvercmp's; equal strings are equal names unless *cut was set (a digit run of
 * 255 digits or more: then compare with text_version_cmp). */
int text_version_cmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
size_t text_version_key(const uint8_t *s, size_t n, uint8_t *out, int *cut);
/* 1 when GPUSORT_TEXT_COREUTILS=9.1 (set by text_parse_args): -V, -g and -h order as coreutils
 * 9.1 does rather than as 9.2 and later (text_version.c prefix_len, text_keys.c gen_cmp and
 * unit_order). Only for comparing with a 9.1 `sort` (tests/text/ scripts,
 * tests/fuzz/fuzz_diff.c); README, "Known limits". */
extern int text_coreutils91;

/* -R (text_random.c): the salt from --random-source FILE (its first 16 bytes) or, with NULL,
 * from getrandom; then the 16-byte MD5 digest of salt + key. */
void text_random_init(const char *source);
void text_random_digest(const uint8_t *key, size_t len, uint8_t out[16]);

/* GNU compare(): < 0, 0, > 0 for lines a and b (without their delimiters). arg is the tsort;
 * the signature is extsort_cmp_fn's. text_line_cmp_from skips keys before `first` (known
 * equal). */
int text_line_cmp(void *arg, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
int text_line_cmp_from(const tsort *t, int first, const uint8_t *a, size_t alen,
                       const uint8_t *b, size_t blen);

/* 1 if key k is the whole line with plain bytes (the packed key would be the line itself). */
static inline int text_key_is_line(const tkey *k)
{
    return k->sword == SIZE_MAX && k->eword == SIZE_MAX && !k->skipsblanks && !k->ignore &&
           !k->translate && !k->numeric && !k->general && !k->human && !k->month &&
           !k->version && !k->random;
}

/* ---- lines (text_io.c) and the work split over threads ---- */

/* Bytes allocated past the input data, so that short lines can be copied 16 or 32 bytes at a
 * time and 8 digits read at once (fixed-size copies and loads, no call). */
#define TEXT_BUF_SLACK 64
/* Below this many lines one thread does the per-line work (thread start-up ~50 us). */
#define TEXT_PARALLEL_MIN_LINES 65536

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

/* A per-line pass split into `parts` slices, one task each (text_run_par). */
typedef struct par {
    tsort *t;
    lineset *L;
    size_t n;
    int parts;
    /* per task */
    void *a, *b, *c;
    size_t *counts;
} par;

/* Slice i of [0, n) cut into `parts`: [*a, *b). */
static inline void text_slice(size_t n, int parts, size_t i, size_t *a, size_t *b)
{
    *a = n * i / (size_t)parts;
    *b = n * (i + 1) / (size_t)parts;
}

static inline int text_parts_for(const tsort *t, size_t n)
{
    return n < TEXT_PARALLEL_MIN_LINES ? 1 : t->threads;
}

static inline void text_run_par(par *p, void (*fn)(void *, size_t))
{
    gpusort__cpu_parallel_for(p->parts, (size_t)p->parts, fn, p);
}

/* Turn per-slice counts into each slice's first index (an exclusive prefix sum); returns the
 * total. The count pass and the fill pass of a two-pass parallel split meet here. */
static inline size_t text_slice_starts(size_t *counts, int parts)
{
    size_t sum = 0;
    for (int i = 0; i < parts; i++) {
        size_t c = counts[i];
        counts[i] = sum;
        sum += c;
    }
    return sum;
}

/* 8 bytes as a little-endian word (byte 0 lowest) on any host. */
static inline uint64_t text_load_le64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* ---- the in-memory sort (text_sort.c, text_keys.c) ---- */

/* Sort the lines of L; returns the permutation (L->n entries, free()). May compact L. */
uint64_t *text_sort_lines(tsort *t, lineset *L);

/* The first key of every line as an unsigned image whose order is the key's (ties: compare
 * fully): exact integer values less the minimum when every -n key is an integer of at most 18
 * digits, in 32 bits when the range fits (returns 1: img holds n uint32_t), else 64-bit
 * images (returns 0). img has n uint64_t. *exact = 1 when equal images are equal keys (then
 * ties need only the keys after the first). */
int text_key_images(tsort *t, lineset *L, uint64_t *img, int *exact);

/* Pack the first key's bytes (after -b/-d/-i/-f) of every line: key i is
 * (*kb)[(*ko)[i], (*ko)[i+1]); both malloc'd. Returns 1 when equal packed keys are equal
 * first keys (plain bytes, or -V projections none of which was cut), 0 when they only may be
 * (collation projections, -R digests). */
int text_pack_keys(tsort *t, lineset *L, uint8_t **kb, uint64_t **ko);

/* ---- input and output (text_io.c) ---- */

/* Reading the inputs in order, as one stream of complete lines. */
typedef struct text_input {
    tsort *t;
    int file;               /* next file index */
    int fd;                 /* open file, or -1 */
    const char *name;
    uint8_t *buf;
    size_t cap, len;        /* buf[0, len): data; complete lines up to the last delimiter */
    int cur_has_data;       /* the open file gave bytes not yet ended by a delimiter */
    int done;               /* all files read */
} text_input;

/* Read until the buffer holds `want` bytes or the input ends (the last line of a file gets
 * its missing delimiter). */
void text_input_fill(text_input *in, size_t want);
/* All inputs are regular files whose `want` bytes fit: read them whole, in parallel. */
void text_input_load_all(text_input *in, size_t want);
/* Sum of the input sizes; *known = 0 when one is not a regular file. */
uint64_t text_inputs_size(const tsort *t, int *known);
/* Lines in `total` bytes of input, estimated from the first MiB of the first readable file. */
uint64_t text_estimate_lines(const tsort *t, uint64_t total);

/* Index the lines of buf[0, size), where every line ends with the delimiter. */
void text_index_lines(tsort *t, uint8_t *buf, size_t size, lineset *L);
/* Squeeze the delimiters out of L, in place (L->gap becomes 0). */
void text_compact_lines(tsort *t, lineset *L);
/* Write the lines in perm order with their delimiters (-u: the first of each equal group). */
void text_write_lines(tsort *t, const lineset *L, const uint64_t *perm, ext_sink *sink);

/* GPUSORT_TIMING=1: end the current phase, named `what` (NULL: start timing), print its wall
 * and CPU time on stderr, and start the next (text_main.c). */
void text_phase(const char *what);
/* 1 when GPUSORT_TIMING (set, not "0") asks for phase times: text_phase's lines, and the
 * records mode's one phase line (records.c). */
int text_timing_on(void);

#endif
