/*
 * fuzz_diff.c -- fuzz target: gpusort's text mode against the system's GNU sort, on small
 * inputs with random option sets (C locale).
 *
 * Input: the options (fz_text_options of fuzz_text.h: all of them, with a raw -k spec taken as
 * it is so that malformed specs are compared too), then the input file.
 * Runs `gpusort OPTIONS --parallel=1 --backend=cpu in -o out.gpusort` in this process (cli_fail
 * comes back as exit code 2: tests/fuzz/fuzz.h) and `LC_ALL=C sort OPTIONS --parallel=1 in -o
 * out.sort` as a child.
 * Properties: the same exit code; on success the same output bytes; and gpusort leaves no
 * temporary file in the output's folder, whatever happened.
 * Accepted differences (not compared): a raw key spec with the modifiers h, M, R or V, which
 * gpusort refuses (exit 2 required); the text of error messages and of -c's disorder report
 * (stderr); and, with coreutils 9.1 (Debian 12, this CI's), the order of -g's NaN lines: 9.1
 * compares two NaNs by the 16 bytes of an x86 long double, 6 of them uninitialised padding, so
 * two equal NaNs ("nan" and "nan\b5", which strtold reads alike) come out in an order that
 * depends on stack contents, and under -u both are kept; 9.2 and later compare their printed
 * form, and gpusort merges them as those do. So against 9.1 (gpusort then runs with
 * GPUSORT_TEXT_COREUTILS=9.1: 9.1's -V and "nan" < "-nan") -g output on input holding a NaN
 * is compared as multisets of lines (without -u: the same lines, in any order), with -u not at
 * all (exit codes are still compared); against 9.2 and later byte for byte (-h's units R and Q
 * too; in its 9.1 mode gpusort stops at Y as 9.1 does). With another GNU sort (before 9.1)
 * -g output on NaN input, -h and -V are not compared (README, "Known limits"). -h, -V and -M
 * are generated (one of them at a time).
 * --debug is generated too (its marks on standard output, compared byte for byte). A key
 * character position of 15 digits or more is not compared either (huge_char_position).
 * Not generated: -R (random), --sort= and locales other than C. Without GNU sort on PATH the target checks only that gpusort
 * does not crash or leave files behind.
 */
#include "cli.h"
#include "fuzz_text.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char dir[64], in_path[96], out_g[96], out_s[96];
static int have_sort = -1;
static int gnu91;           /* the system's sort is coreutils 9.1 */
static int gnu92;           /* ... 9.2 or later */

typedef struct text_call {
    int argc;
    char **argv;
    int rc;
} text_call;

static void text_main(void *arg)
{
    text_call *p = (text_call *)arg;
    p->rc = gpusort_cli_text_main(p->argc, p->argv);
}

static void cleanup(void)   /* at exit: the work folder goes */
{
    unlink(in_path);
    unlink(out_g);
    unlink(out_s);
    rmdir(dir);
}

static void setup(void)
{
    setenv("LC_ALL", "C", 1);
    snprintf(dir, sizeof dir, "/tmp/gpusort-fuzz-diff-XXXXXX");
    if (!mkdtemp(dir)) abort();
    snprintf(in_path, sizeof in_path, "%s/in", dir);
    snprintf(out_g, sizeof out_g, "%s/out.gpusort", dir);
    snprintf(out_s, sizeof out_s, "%s/out.sort", dir);
    atexit(cleanup);
    have_sort = system("sort --version 2>/dev/null | grep -q 'GNU coreutils'") == 0;
    /* gpusort orders -V and -g's NaNs as coreutils 9.2+ do, and as 9.1 did when asked
     * (tools/text.h, text_coreutils91; README, "Known limits"). */
    FILE *v = have_sort ? popen("sort --version 2>/dev/null", "r") : NULL;
    char line[256] = "";
    if (v) {
        if (!fgets(line, sizeof line, v)) line[0] = 0;
        pclose(v);
    }
    char *last = strrchr(line, ' ');
    int major = 0, minor = 0;
    if (last) sscanf(last + 1, "%d.%d", &major, &minor);
    gnu91 = major == 9 && minor == 1;
    gnu92 = major > 9 || (major == 9 && minor >= 2);
    if (gnu91) setenv("GPUSORT_TEXT_COREUTILS", "9.1", 1);
    if (!have_sort) fprintf(stderr, "fuzz_diff: no GNU sort on PATH: checking gpusort alone\n");
}

/* Run sort with argv, stdout to `out` (NULL: /dev/null) and stderr to /dev/null; its exit
 * code (128 + signal if killed). */
static int run_sort(char **argv, const char *out)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int st = 0;
    if (posix_spawnp(&pid, "sort", &fa, NULL, argv, environ) != 0) abort();
    posix_spawn_file_actions_destroy(&fa);
    while (waitpid(pid, &st, 0) < 0) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *b = NULL;
    size_t cap = 0;
    *n = 0;
    for (;;) {
        if (*n == cap) b = (uint8_t *)realloc(b, cap = cap ? 2 * cap : 4096);
        size_t r = fread(b + *n, 1, cap - *n, f);
        if (!r) break;
        *n += r;
    }
    fclose(f);
    return b;
}

/* Names in the work folder other than in, out.gpusort and out.sort: temporaries left behind. */
static int stray_files(void)
{
    DIR *d = opendir(dir);
    int stray = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "in") &&
            strcmp(e->d_name, "out.gpusort") && strcmp(e->d_name, "out.sort")) {
            fprintf(stderr, "fuzz_diff: left behind: %s/%s\n", dir, e->d_name);
            stray = 1;
        }
    closedir(d);
    return stray;
}

/* 1 when a key spec names a character position of 15 digits or more (>= 10^14, about 2^47):
 * GNU sort's begfield/limfield add it to a pointer, and near SIZE_MAX (where larger numbers
 * saturate) the sum wraps: undefined behaviour that in practice starts the key bytes before the
 * field, even before the line. gpusort clamps to the end of the line (README, Known limits). */
static int huge_char_position(const char *spec)
{
    for (const char *p = spec; *p; p++) {
        if (*p != '.') continue;
        size_t digits = 0;
        while (p[1 + digits] >= '0' && p[1 + digits] <= '9') digits++;
        if (digits >= 15) return 1;
    }
    return 0;
}

/* Rewrite buf (n bytes of newline-terminated lines) with its lines in byte order. */
typedef struct line_ref {
    const uint8_t *p;
    size_t n;
} line_ref;

static int line_cmp(const void *a, const void *b)
{
    const line_ref *x = (const line_ref *)a, *y = (const line_ref *)b;
    int c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

static void sort_lines(uint8_t *buf, size_t n, uint8_t delim)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += buf[i] == delim;
    line_ref *lines = (line_ref *)malloc((count + 1) * sizeof *lines);
    uint8_t *copy = (uint8_t *)malloc(n ? n : 1);
    FUZZ_ASSERT(lines && copy);
    memcpy(copy, buf, n);
    size_t k = 0, start = 0;
    for (size_t i = 0; i < n; i++)
        if (copy[i] == delim) {
            lines[k++] = (line_ref){copy + start, i + 1 - start};
            start = i + 1;
        }
    if (start < n) lines[k++] = (line_ref){copy + start, n - start};
    qsort(lines, k, sizeof *lines, line_cmp);
    for (size_t i = 0, o = 0; i < k; o += lines[i].n, i++) memcpy(buf + o, lines[i].p, lines[i].n);
    free(lines);
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (have_sort < 0) setup();
    fz f = {data, size};
    fz_text_opts to;
    fz_text_options(&f, FZ_U | FZ_Z | FZ_T | FZ_M | FZ_C | FZ_CQ | FZ_RAWK | FZ_HVM, &to);
    /* One more byte: bit 0 adds --debug, whose marks both programs write to standard output
     * (so then neither gets -o: their standard outputs are the files compared). */
    int debug = fz_u8(&f) & 1;
    char *args[20];
    int na = 0;
    for (int i = 0; i < to.nargs; i++) args[na++] = to.args[i];
    args[na++] = (char *)"--parallel=1";
    if (debug) args[na++] = (char *)"--debug";

    FILE *fi = fopen(in_path, "wb");
    fwrite(f.p, 1, f.n, fi);
    fclose(fi);
    unlink(out_g);
    unlink(out_s);
    int check = (to.more & FZ_C) != 0;

    /* gpusort, in this process */
    char *gv[24];
    int gc = 0;
    gv[gc++] = (char *)"gpusort";
    for (int i = 0; i < na; i++) gv[gc++] = args[i];
    gv[gc++] = (char *)"--backend=cpu";
    gv[gc++] = (char *)"--quiet";
    gv[gc++] = in_path;
    if (!check && !debug) { gv[gc++] = (char *)"-o"; gv[gc++] = out_g; }
    gv[gc] = NULL;
    int rc_g;
    FILE *saved_out = stdout, *saved_err = stderr;
    stdout = fopen(debug && !check ? out_g : "/dev/null", "w");
    stderr = fopen("/dev/null", "w");
    text_call tc = {gc, gv, 0};
    int code = fuzz_cli_run(text_main, &tc);
    rc_g = code == -1 ? tc.rc : code;
    fclose(stdout);
    fclose(stderr);
    stdout = saved_out;
    stderr = saved_err;
    FUZZ_ASSERT(!stray_files());
    if (!have_sort) return 0;

    char *sv[24];
    int sc = 0;
    sv[sc++] = (char *)"sort";
    for (int i = 0; i < na; i++) sv[sc++] = args[i];
    sv[sc++] = in_path;
    if (!check && !debug) { sv[sc++] = (char *)"-o"; sv[sc++] = out_s; }
    sv[sc] = NULL;
    /* -R orders by a random salt unless --random-source names one: exit codes are compared,
     * the outputs are not. (-h, -M and -V are compared like every other ordering.) */
    int random_order = strchr(to.raw, 'R') != NULL;
    /* -h and -V of a GNU sort before 9.1 differ as README's "Known limits" say. */
    int hv = strpbrk(to.opts, "hV") || strpbrk(to.keys[0], "hV") ||
             strpbrk(to.keys[1], "hV") || strpbrk(to.raw, "hV");
    if (hv && !gnu91 && !gnu92) random_order = 1;
    /* A character position where GNU's pointer arithmetic wraps: outputs not compared. */
    if (huge_char_position(to.raw) || huge_char_position(to.keys[0]) ||
        huge_char_position(to.keys[1]))
        random_order = 1;
    int rc_s = run_sort(sv, debug && !check ? out_s : NULL);
    /* -c/-C under a random order: whether the input is "sorted" depends on the salt (GNU's
     * own exit code varies from run to run), so only an error (2) must agree. */
    if (check && random_order) {
        FUZZ_ASSERT((rc_g == 2) == (rc_s == 2));
        return 0;
    }
    if (rc_g != rc_s) {
        fprintf(stderr, "fuzz_diff: exit codes differ: gpusort %d, sort %d; arguments:", rc_g, rc_s);
        for (int i = 0; i < na; i++) fprintf(stderr, " '%s'", args[i]);
        fprintf(stderr, "\n");
    }
    FUZZ_ASSERT(rc_g == rc_s);
    int uniq = (to.more & FZ_U) || !(gnu91 || gnu92);
    /* 9.2+ order NaNs deterministically (by their printed form), as gpusort: compared as is. */
    int g_nan = !gnu92 && (strchr(to.opts, 'g') || strchr(to.keys[0], 'g') ||
                           strchr(to.keys[1], 'g') || strchr(to.raw, 'g'));
    if (g_nan) g_nan = memmem(f.p, f.n, "nan", 3) || memmem(f.p, f.n, "NAN", 3) ||
                       memmem(f.p, f.n, "Nan", 3) || memmem(f.p, f.n, "nAn", 3) ||
                       memmem(f.p, f.n, "naN", 3) || memmem(f.p, f.n, "NAn", 3) ||
                       memmem(f.p, f.n, "NaN", 3) || memmem(f.p, f.n, "nAN", 3);
    int g_u_nan = g_nan && (uniq || debug);   /* --debug: marks between the lines */
    /* In the C locale GNU sort's -n takes byte 0x80 for a thousands separator (coreutils'
     * NON_CHAR = CHAR_MAX + 1 compared with unsigned bytes), as tools/text_keys.c does:
     * corpus/diff/regress-n-0x80-* hold inputs that check it. */
    if (rc_g == 0 && !check && !g_u_nan && !random_order) {
        size_t lg = 0, ls = 0;
        uint8_t *bg = slurp(out_g, &lg), *bs = slurp(out_s, &ls);
        FUZZ_ASSERT(bg && bs);
        if (g_nan) {    /* NaN lines in any order: compare both outputs' lines sorted */
            uint8_t delim = (to.more & FZ_Z) ? 0 : '\n';   /* -z: records end with NUL */
            sort_lines(bg, lg, delim);
            sort_lines(bs, ls, delim);
        }
        if (lg != ls || memcmp(bg, bs, lg) != 0) {
            fprintf(stderr, "fuzz_diff: outputs differ (%zu vs %zu bytes%s); arguments:", lg,
                    ls, g_nan ? ", as multisets of lines" : "");
            for (int i = 0; i < na; i++) fprintf(stderr, " '%s'", args[i]);
            fprintf(stderr, "\n");
        }
        FUZZ_ASSERT(lg == ls && memcmp(bg, bs, lg) == 0);
        free(bg);
        free(bs);
    }
    return 0;
}
