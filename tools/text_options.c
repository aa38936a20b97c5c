/*
 * text_options.c -- the text mode's command line: GNU sort's options, -k key specs and the
 * obsolete +POS1 -POS2 keys, -S sizes, the locale (text_locale_init) and the -R salt
 * (text_parse_args, text.h).
 *
 * Supported: -b -d -f -g -h -i -M -n -R -r -V (global and as key modifiers), --sort=WORD,
 * --random-source FILE, -k POS1[,POS2], -t SEP, -s, -u, -z, -c, -C,
 * --check[=quiet|silent|diagnose-first], -m, -o FILE (may be an input), -S SIZE, -T DIR
 * (repeatable), --parallel N, --batch-size N, several inputs and "-", plus gpusort's
 * --backend/--device/--quiet and --record-size/--key-size/--key-offset (records.c). The locale
 * is the user's (LC_ALL, LC_COLLATE, LANG ...), as for GNU sort.
 * --debug: GNU's notes on stderr and key marks under each output line (text_debug.c).
 * Refused with one line and exit 2: --files0-from, --compress-program.
 *
 * Parsing follows GNU getopt as sort uses it: operands and options mix (options may follow
 * file names), short options cluster (-nru, -k2,2, -t,), long options may be abbreviated to a
 * unique prefix, "--" ends the options. The messages are GNU sort's where it has one.
 * Keys: a -k without ordering modifiers inherits the global ones (-n, -r, ...); global
 * ordering options with no -k make one key over the whole line (GNU's gkey).
 */
#include "text.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* GNU sort merges at most 16 inputs at once; we take more (each costs one read buffer). */
#define DEFAULT_FANIN 64

/* 1 if k has no ordering options (then it inherits the global ones). */
int text_key_default(const tkey *k)
{
    return !(k->ignore || k->translate || k->skipsblanks || k->skipeblanks || k->numeric ||
             k->general || k->human || k->month || k->version || k->random);
}

static const char usage_text[] =
    "Usage: gpusort [OPTION]... [FILE]...\n"
    "Sort lines of text like `sort` (GNU coreutils) in the same locale, with the same options\n"
    "and byte-identical output, on all CPU cores, or on a GPU where that is faster (--backend).\n"
    "With no FILE, or when FILE is -, read standard input.\n"
    "\n"
    "Ordering options (also as -k modifiers):\n"
    "  -b, --ignore-leading-blanks  ignore leading blanks\n"
    "  -d, --dictionary-order       consider only blanks and alphanumeric characters\n"
    "  -f, --ignore-case            fold lower case to upper case characters\n"
    "  -g, --general-numeric-sort   compare according to general numerical value (strtold)\n"
    "  -h, --human-numeric-sort     compare human readable numbers (e.g., 2K 1G)\n"
    "  -i, --ignore-nonprinting     consider only printable characters\n"
    "  -M, --month-sort             compare (unknown) < 'JAN' < ... < 'DEC' (the locale's names)\n"
    "  -n, --numeric-sort           compare according to string numerical value\n"
    "  -R, --random-sort            shuffle, but group identical keys (MD5 of a salt + key)\n"
    "  -r, --reverse                reverse the result of comparisons\n"
    "  -V, --version-sort           natural sort of (version) numbers within text\n"
    "      --sort=WORD              general-numeric -g, human-numeric -h, month -M,\n"
    "                               numeric -n, random -R, version -V\n"
    "      --random-source=FILE     the -R salt from FILE's first 16 bytes (GNU's order)\n"
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
    "      --backend=auto|cpu|cuda|opencl   library backend (default auto: the CPU, or a GPU\n"
    "                               when the sort is large enough to pay for its start-up)\n"
    "      --device=N               device of the backend\n"
    "      --record-size=R --key-size=K [--key-offset=O]\n"
    "                               sort fixed-size binary records by the bytes\n"
    "                               [O, O+K) of each (gensort: R=100, K=10, O=0)\n"
    "      --quiet                  no progress on stderr\n"
    "      --help                   this text\n"
    "\n"
    "      --debug                  annotate the part of each line used to sort (as GNU\n"
    "                               sort: under each key, and the whole line for the\n"
    "                               last-resort comparison), and warn about odd keys\n"
    "Not supported (refused, exit 2): --files0-from, --compress-program.\n"
    "The locale (LC_ALL, LC_COLLATE, LANG, ...) sets the collation, -f/-d/-i, the -n decimal\n"
    "point and thousands separator and the -M names, as for GNU sort; one not installed is C.\n"
    "GPUSORT_TIMING=1 in the environment prints the time of each phase on stderr.\n"
    "Exit status: 0 success, 1 -c/-C found disorder, 2 error.\n";

static void badfieldspec(const char *spec, const char *msg)
{
    cli_fail("%s: invalid field specification '%s'", msg, spec);
}

/* Parse a decimal count; on overflow saturate at SIZE_MAX as GNU does. Leading white space and
 * a '+' are skipped, as GNU's xstrtoumax (strtoumax) does: `sort -k ' 2,+1'` is -k 2,1. */
static const char *parse_count(const char *s, size_t *v, const char *spec, const char *msg)
{
    const char *start = s;
    while (isspace((unsigned char)*s)) s++;
    if (*s == '+') s++;
    if (!isdigit((unsigned char)*s))
        cli_fail("%s: invalid count at start of '%s'", msg, start);
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
        case 'd': k->ignore = text_nondict; break;
        case 'f': k->translate = text_fold_upper; break;
        case 'g': k->general = 1; break;
        case 'i': if (!k->ignore) k->ignore = text_nonprint; break;
        case 'n': k->numeric = 1; break;
        case 'r': k->reverse = 1; break;
        case 'h': k->human = 1; break;
        case 'M': k->month = 1; break;
        case 'R': k->random = 1; break;
        case 'V': k->version = 1; break;
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
    k->traditional = 1;
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

typedef struct longopt {
    const char *name;
    int has_arg;     /* 0 none, 1 required, 2 optional */
    int code;
} longopt;

enum {
    OPT_PARALLEL = 256, OPT_BATCH, OPT_BACKEND, OPT_DEVICE, OPT_RECSIZE, OPT_KEYSIZE,
    OPT_KEYOFF, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_CHECK, OPT_REFUSE, OPT_SORT, OPT_RANDSRC, OPT_DEBUG
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
    {"human-numeric-sort", 0, 'h'}, {"month-sort", 0, 'M'},
    {"random-sort", 0, 'R'}, {"version-sort", 0, 'V'}, {"sort", 1, OPT_SORT},
    {"random-source", 1, OPT_RANDSRC}, {"debug", 0, OPT_DEBUG}, {"files0-from", 1, OPT_REFUSE},
    {"compress-program", 1, OPT_REFUSE},
};
#define NUM_LONGOPTS ((int)(sizeof longopts / sizeof longopts[0]))

static uint64_t parse_uint_opt(const char *name, const char *v)
{
    uint64_t x;
    if (cli_parse_count(v, &x) != 0) cli_fail("invalid --%s argument '%s'", name, v);
    return x;
}

void text_key_letters(const tkey *k, char *o)
{
    if (k->skipsblanks || k->skipeblanks) *o++ = 'b';
    if (k->ignore == text_nondict) *o++ = 'd';
    if (k->translate) *o++ = 'f';
    if (k->general) *o++ = 'g';
    if (k->human) *o++ = 'h';
    if (k->ignore == text_nonprint) *o++ = 'i';
    if (k->month) *o++ = 'M';
    if (k->numeric) *o++ = 'n';
    if (k->random) *o++ = 'R';
    if (k->reverse) *o++ = 'r';
    if (k->version) *o++ = 'V';
    *o = 0;
}

int text_parse_args(int argc, char **argv, tsort *t)
{
    text_locale_init();
    const char *compat = getenv("GPUSORT_TEXT_COREUTILS");
    text_coreutils91 = compat && strcmp(compat, "9.1") == 0;
    memset(t, 0, sizeof *t);
    t->tab = -1;
    t->delim = '\n';
    t->o.fanin = DEFAULT_FANIN;
    t->o.backend = GPUSORT_BACKEND_AUTO;
    t->o.device = -1;
    tkey gkey;
    memset(&gkey, 0, sizeof gkey);
    gkey.sword = SIZE_MAX;
    gkey.eword = SIZE_MAX;
    int cap_keys = 8;
    t->keys = (tkey *)cli_alloc((size_t)cap_keys * sizeof *t->keys);
    char **files = (char **)cli_alloc((size_t)(argc + 1) * sizeof *files);
    int nfiles = 0;
    const char **tmpdirs = (const char **)cli_alloc((size_t)(argc + 1) * sizeof *tmpdirs);
    t->o.files = files;           /* the caller frees both, also after --help */
    t->o.tmpdirs = tmpdirs;
    int ntmp = 0, budget_set = 0, recs = 0;
    const char *random_source = NULL;

    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) files[nfiles++] = argv[i];
            break;
        }
        if (a[0] != '-' || a[1] == 0) {   /* an operand (GNU permutes: options may follow) */
            if (a[0] == '+') {
                if (t->nkeys == cap_keys) {
                    cap_keys *= 2;
                    tkey *nk = (tkey *)gpusort__realloc(t->keys, (size_t)cap_keys * sizeof *nk);
                    if (!nk) cli_fail("out of memory");
                    t->keys = nk;
                }
                const char *pos2 = i + 1 < argc && argv[i + 1][0] == '-' &&
                                           isdigit((unsigned char)argv[i + 1][1])
                                       ? argv[i + 1] : NULL;
                if (parse_obsolete_key(a, pos2, &t->keys[t->nkeys])) {
                    t->nkeys++;
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
            if (code == OPT_SORT) {   /* --sort=WORD: GNU's argmatch, unique prefixes */
                static const char *const words[] = {"general-numeric", "human-numeric", "month",
                                                    "numeric", "random", "version"};
                static const char letters[] = "ghMnRV";
                int hit = -1, hits = 0;
                for (int w = 0; w < 6; w++) {
                    if (strcmp(words[w], val) == 0) { hit = w; hits = 1; break; }
                    if (*val && strncmp(words[w], val, strlen(val)) == 0) { hit = w; hits++; }
                }
                if (hits != 1)
                    cli_fail("%s argument '%s' for '--sort'", hits ? "ambiguous" : "invalid", val);
                code = (unsigned char)letters[hit];
                val = NULL;
            }
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
            } else if (!strchr("bcCdfghiMmnRrsuVz", *p)) {
                if (*p == 'y') {            /* obsolete, ignored by GNU (takes an argument) */
                    if (!p[1] && i + 1 < argc) i++;
                    break;
                }
                cli_fail("invalid option -- '%c' (see gpusort --help)", *p);
            }
        apply:
            switch (code) {
            case 'b': case 'd': case 'f': case 'g': case 'i': case 'n': case 'r':
            case 'h': case 'M': case 'R': case 'V': {
                char s[2] = {(char)code, 0};
                set_ordering(s, &gkey, BL_BOTH);
                break;
            }
            case 'c': case 'C':
                if (t->o.check && t->o.check != code) cli_fail("options '-cC' are incompatible");
                t->o.check = code;
                break;
            case 'k':
                if (t->nkeys == cap_keys) {
                    cap_keys *= 2;
                    tkey *nk = (tkey *)gpusort__realloc(t->keys, (size_t)cap_keys * sizeof *nk);
                    if (!nk) cli_fail("out of memory");
                    t->keys = nk;
                }
                parse_key(val, &t->keys[t->nkeys++]);
                break;
            case 'm': t->o.merge = 1; break;
            case 'o':
                if (t->o.outfile && strcmp(t->o.outfile, val) != 0)
                    cli_fail("multiple output files specified");
                t->o.outfile = val;
                break;
            case 's': t->o.stable = 1; break;
            case 'S':
                if (parse_buffer_size(val, &t->o.budget)) cli_fail("invalid -S argument '%s'", val);
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
                if (t->tab >= 0 && t->tab != tab) cli_fail("incompatible tabs");
                t->tab = tab;
                break;
            }
            case 'T': tmpdirs[ntmp++] = val; break;
            case 'u': t->o.unique = 1; break;
            case OPT_RANDSRC:
                if (random_source && strcmp(random_source, val) != 0)
                    cli_fail("multiple random sources specified");
                random_source = val;
                break;
            case 'z': t->delim = 0; break;
            case OPT_PARALLEL: {
                uint64_t v;
                if (cli_parse_count(val, &v) != 0) cli_fail("invalid --parallel argument '%s'", val);
                if (v == 0) cli_fail("number in parallel must be nonzero");
                t->o.threads = v > 1024 ? 1024 : (int)v;
                break;
            }
            case OPT_BATCH: {
                uint64_t v = parse_uint_opt("batch-size", val);
                if (v < 2) cli_fail("invalid --batch-size argument '%s': minimum is 2", val);
                t->o.fanin = v > 1000 ? 1000 : (int)v;
                break;
            }
            case OPT_BACKEND:
                if (gpusort_backend_parse(val, &t->o.backend))
                    cli_fail("invalid --backend '%s' (auto, cpu, cuda or opencl)", val);
                break;
            case OPT_DEVICE: t->o.device = (int)parse_uint_opt("device", val); break;
            case OPT_RECSIZE:
                t->o.record_size = (size_t)parse_uint_opt("record-size", val);
                if (t->o.record_size == 0) cli_fail("--record-size must be at least 1");
                recs = 1;
                break;
            case OPT_KEYSIZE: t->o.key_size = (size_t)parse_uint_opt("key-size", val); break;
            case OPT_KEYOFF: t->o.key_offset = (size_t)parse_uint_opt("key-offset", val); break;
            case OPT_QUIET: cli_quiet = 1; break;
            case OPT_DEBUG: t->debug = 1; break;
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


    /* GNU: keys without ordering options inherit the global ones; global options with no key
     * make a whole-line key. */
    for (int k = 0; k < t->nkeys; k++) {
        tkey *key = &t->keys[k];
        if (text_key_default(key) && !key->reverse) {
            key->ignore = gkey.ignore;
            key->translate = gkey.translate;
            key->skipsblanks = gkey.skipsblanks;
            key->skipeblanks = gkey.skipeblanks;
            key->numeric = gkey.numeric;
            key->general = gkey.general;
            key->human = gkey.human;
            key->month = gkey.month;
            key->version = gkey.version;
            key->random = gkey.random;
            key->reverse = gkey.reverse;
        }
    }
    t->gkey = gkey;
    t->gkey_only = !t->nkeys && !text_key_default(&gkey);
    if (t->gkey_only) t->keys[t->nkeys++] = gkey;
    t->o.reverse = gkey.reverse;
    for (int k = 0; k < t->nkeys; k++) {
        tkey *key = &t->keys[k];
        /* GNU check_ordering_compatibility: one of n, g, h, M and (V, R or an ignore table). */
        if (key->numeric + key->general + key->human + key->month +
                (key->version | key->random | !!key->ignore) > 1) {
            tkey named = *key;          /* GNU names the letters without b and r */
            named.skipsblanks = named.skipeblanks = named.reverse = 0;
            char opts[16];
            text_key_letters(&named, opts);
            cli_fail("options '-%s' are incompatible", opts);
        }
    }

    int random = 0;
    for (int k = 0; k < t->nkeys; k++) random |= t->keys[k].random;
    if (random) text_random_init(random_source);
    if (nfiles == 0) files[nfiles++] = "-";
    t->o.files = files;
    t->o.nfiles = nfiles;
    if (t->o.check) {
        if (t->debug) cli_fail("options '-%c --debug' are incompatible", t->o.check);
        if (nfiles > 1) cli_fail("extra operand '%s' not allowed with -%c", files[1], t->o.check);
        if (t->o.outfile) cli_fail("options '-%co' are incompatible", t->o.check);
    }
    if (!budget_set) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        t->o.budget = (uint64_t)pages * (uint64_t)page / 100 * TEXT_DEFAULT_BUDGET_PERCENT;
        if (t->o.budget == 0) t->o.budget = (uint64_t)1 << 30;
    }
    if (ntmp == 0) {
        const char *d = getenv("TMPDIR");
        tmpdirs[ntmp++] = d && *d ? d : "/tmp";
    }
    t->o.tmpdirs = tmpdirs;
    t->o.ntmpdirs = ntmp;
    if (t->o.key_size || t->o.key_offset) {
        if (!recs) cli_fail("--key-size and --key-offset need --record-size");
    }
    if (recs && (t->nkeys || t->tab >= 0 || t->delim == 0))
        cli_fail("--record-size sorts binary records by --key-size/--key-offset: -k, -t, "
                 "-n, -f, -z and the like do not apply");
    return -1;
}
