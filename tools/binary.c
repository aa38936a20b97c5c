/*
 * binary.c -- the gpusort subcommands on binary files of little-endian numbers:
 * sort, gen, check, reduce, devices and bench (entry points in binary.h, called by main.c).
 *
 * File format: a file is n elements of one type (u32, i32, f32, u64, i64, f64), little-endian,
 * no header; its size must be a multiple of the element size. "-" reads standard input.
 *
 * sort    keys only: reads the input in pieces of half the memory budget (-S, default 50% of
 *         RAM). An input that fits one piece is sorted IN PLACE with the library (memory: the
 *         data plus the library's scratch, n*K for the CPU radix sort: 2x the data) and written.
 *         A larger one is sorted piece by piece, each piece written as a run to -T (run files
 *         made and registered by extsort.c, shared with the text mode), and the runs are merged
 *         by merge_all below (a heap on radix keys, ties to the earlier run, so the result is
 *         byte-identical to the in-memory stable sort).
 *         With --values: keys and values are read whole and sorted in place as pairs.
 *         Output is written atomically (util.c: temp file in the destination's folder, fsync,
 *         rename). The outputs are created before the input is read, so an unwritable
 *         destination fails at once; both outputs of a pair sort are written and synced before
 *         either is renamed into place.
 * gen     fills one buffer with common/datagen.c (so n elements need n*size bytes once, not
 *         twice) and writes it in 64 MiB pieces with progress.
 * check   streams the file in 64 MiB pieces, comparing neighbours by the order-preserving radix
 *         key of src/keys.h (the same total order as the library: NaN last ascending), so it
 *         needs little memory at any size and is independent of how the file was sorted.
 * reduce  reads the file in 1 GiB pieces, reduces each with gpusort_reduce and combines them.
 * devices lists every backend (built or not) and its devices.
 * bench   times every available backend (and the C library's qsort as a naive peer) on the same
 *         random keys: one warm-up, then the median of --runs runs, each on a fresh copy.
 *
 * Option parsing: each command names the options it accepts (a table of specs); "--opt VALUE",
 * "--opt=VALUE" and the short forms -o, -n, -r, -q, -v, -h work everywhere. Unknown options,
 * missing values and malformed numbers are errors (exit 2), never ignored.
 */
#include "binary.h"
#include "extsort.h"
#include "util.h"

#include "datagen.h"
#include "gpusort.h"
#include "keys.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Files are read and written in pieces of this size: large enough to run at disk speed, small
 * enough for progress to move and to bound check's memory. */
#define IO_CHUNK ((size_t)64 << 20)

/* ---- options ---- */

typedef struct opts {
    const char *pos[4];         /* positional arguments */
    int npos;
    const char *out;            /* -o */
    int type_set;
    gpusort_type type;
    int desc;
    gpusort_backend backend;
    int backend_set;
    int device;                 /* -1: the backend's default */
    gpusort_algorithm algorithm;
    const char *values, *values_out;
    gpusort_type value_type;    /* NONE: infer from the values file's size */
    int threads;
    int stats, quiet, help;
    uint64_t n;
    int n_set;
    const char *dist;
    uint64_t seed;
    int entropy_k;              /* 0: not given */
    gpusort_op op;
    int op_set;
    int runs;
    uint64_t budget;            /* -S bytes; 0: the default */
    const char *tmpdirs[16];    /* -T, in turn */
    int ntmpdirs;
} opts;

enum {
    O_OUT, O_TYPE, O_DESC, O_BACKEND, O_DEVICE, O_ALGORITHM, O_VALUES, O_VALUES_OUT,
    O_VALUE_TYPE, O_THREADS, O_STATS, O_VERBOSE, O_QUIET, O_HELP, O_N, O_DIST, O_SEED,
    O_ENTROPY_K, O_OP, O_RUNS, O_BUFFER_SIZE, O_TMPDIR
};

typedef struct opt_spec {
    int id;
    const char *name;   /* long name without "--" */
    char short_name;    /* 0: none */
    int has_arg;
} opt_spec;

static const opt_spec all_specs[] = {
    {O_OUT, "output", 'o', 1},          {O_TYPE, "type", 0, 1},
    {O_DESC, "desc", 'r', 0},           {O_BACKEND, "backend", 0, 1},
    {O_DEVICE, "device", 0, 1},         {O_ALGORITHM, "algorithm", 0, 1},
    {O_VALUES, "values", 0, 1},         {O_VALUES_OUT, "values-out", 0, 1},
    {O_VALUE_TYPE, "value-type", 0, 1}, {O_THREADS, "threads", 0, 1},
    {O_STATS, "stats", 0, 0},           {O_VERBOSE, "verbose", 'v', 0},
    {O_QUIET, "quiet", 'q', 0},         {O_HELP, "help", 'h', 0},
    {O_N, "n", 'n', 1},                 {O_DIST, "dist", 0, 1},
    {O_SEED, "seed", 0, 1},             {O_ENTROPY_K, "entropy-k", 0, 1},
    {O_OP, "op", 0, 1},                 {O_RUNS, "runs", 0, 1},
    {O_BUFFER_SIZE, "buffer-size", 'S', 1}, {O_TMPDIR, "temporary-directory", 'T', 1},
};
#define NUM_SPECS ((int)(sizeof all_specs / sizeof all_specs[0]))

static const char type_list[] = "u32 i32 f32 u64 i64 f64";

static gpusort_type parse_type(const char *cmd, const char *s)
{
    gpusort_type t;
    if (gpusort_type_parse(s, &t) != GPUSORT_STATUS_SUCCESS)
        cli_fail("%s: unknown type '%s' (types: %s)", cmd, s, type_list);
    return t;
}

static int parse_int(const char *cmd, const char *opt, const char *s, int lo, int hi)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    if (!*s || *e || errno || v < lo || v > hi)
        cli_fail("%s: invalid value '%s' for --%s (an integer from %d to %d)", cmd, s, opt, lo, hi);
    return (int)v;
}

static void set_option(opts *o, const char *cmd, const opt_spec *sp, const char *arg)
{
    switch (sp->id) {
    case O_OUT: o->out = arg; break;
    case O_TYPE: o->type = parse_type(cmd, arg); o->type_set = 1; break;
    case O_DESC: o->desc = 1; break;
    case O_BACKEND:
        if (gpusort_backend_parse(arg, &o->backend) != GPUSORT_STATUS_SUCCESS)
            cli_fail("%s: unknown backend '%s' (backends: auto cpu cuda opencl)", cmd, arg);
        o->backend_set = 1;
        break;
    case O_DEVICE: o->device = parse_int(cmd, sp->name, arg, 0, 1 << 20); break;
    case O_ALGORITHM:
        if (gpusort_algorithm_parse(arg, &o->algorithm) != GPUSORT_STATUS_SUCCESS)
            cli_fail("%s: unknown algorithm '%s' (algorithms: auto radix merge bitonic rank)",
                     cmd, arg);
        break;
    case O_VALUES: o->values = arg; break;
    case O_VALUES_OUT: o->values_out = arg; break;
    case O_VALUE_TYPE:
        if (strcmp(arg, "u32") == 0) o->value_type = GPUSORT_TYPE_U32;
        else if (strcmp(arg, "u64") == 0) o->value_type = GPUSORT_TYPE_U64;
        else cli_fail("%s: invalid value type '%s' (u32 or u64: any 4- or 8-byte payload)", cmd, arg);
        break;
    case O_THREADS: o->threads = parse_int(cmd, sp->name, arg, 0, 1 << 16); break;
    case O_STATS: case O_VERBOSE: o->stats = 1; break;
    case O_QUIET: o->quiet = 1; cli_quiet = 1; break;
    case O_HELP: o->help = 1; break;
    case O_N:
        if (cli_parse_count(arg, &o->n) != 0)
            cli_fail("%s: invalid count '%s' for --n (e.g. 1000000, 1e6, 2^26, 64M)", cmd, arg);
        o->n_set = 1;
        break;
    case O_DIST: o->dist = arg; break;
    case O_SEED: {
        char *e;
        errno = 0;
        unsigned long long v = strtoull(arg, &e, 0);
        if (!*arg || *e || errno || arg[0] == '-')
            cli_fail("%s: invalid seed '%s' (an unsigned 64-bit integer)", cmd, arg);
        o->seed = v;
        break;
    }
    case O_ENTROPY_K: o->entropy_k = parse_int(cmd, sp->name, arg, 1, 5); break;
    case O_OP:
        if (strcmp(arg, "sum") == 0) o->op = GPUSORT_OP_SUM;
        else if (strcmp(arg, "min") == 0) o->op = GPUSORT_OP_MIN;
        else if (strcmp(arg, "max") == 0) o->op = GPUSORT_OP_MAX;
        else cli_fail("%s: unknown operation '%s' (sum, min or max)", cmd, arg);
        o->op_set = 1;
        break;
    case O_RUNS: o->runs = parse_int(cmd, sp->name, arg, 1, 1000); break;
    case O_BUFFER_SIZE: {
        /* As GNU sort -S: a plain number counts KiB. */
        size_t digits = strspn(arg, "0123456789");
        uint64_t v;
        if (cli_parse_size(arg, &v) != 0 || (arg[digits] == 0 && v > UINT64_MAX / 1024) || v == 0)
            cli_fail("%s: invalid memory budget '%s' for -S (e.g. 512M, 4G, 50%%)", cmd, arg);
        o->budget = arg[digits] == 0 ? v * 1024 : v;
        break;
    }
    case O_TMPDIR:
        if (o->ntmpdirs == (int)(sizeof o->tmpdirs / sizeof o->tmpdirs[0]))
            cli_fail("%s: too many -T folders", cmd);
        o->tmpdirs[o->ntmpdirs++] = arg;
        break;
    }
}

/* Parse argv (argv[0] is the command's name) accepting the options listed in `allowed`
 * (space-separated long names). */
static void parse_opts(int argc, char **argv, const char *allowed, int max_pos, opts *o)
{
    const char *cmd = argv[0];
    memset(o, 0, sizeof *o);
    o->device = -1;
    o->value_type = GPUSORT_TYPE_NONE;
    o->seed = 1;
    int only_pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || a[1] == 0) {  /* "-" is stdin: a positional */
            if (o->npos >= max_pos)
                cli_fail("%s: unexpected argument '%s' (see gpusort %s --help)", cmd, a, cmd);
            o->pos[o->npos++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) { only_pos = 1; continue; }
        const opt_spec *sp = NULL;
        const char *arg = NULL;
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            for (int k = 0; k < NUM_SPECS; k++)
                if (strlen(all_specs[k].name) == len && strncmp(all_specs[k].name, name, len) == 0)
                    sp = &all_specs[k];
            if (sp && eq) {
                if (!sp->has_arg) cli_fail("%s: option --%s takes no value", cmd, sp->name);
                arg = eq + 1;
            }
        } else {
            for (int k = 0; k < NUM_SPECS; k++)
                if (all_specs[k].short_name == a[1]) sp = &all_specs[k];
            if (sp && a[2]) {
                if (!sp->has_arg) sp = NULL;       /* "-rq" bundles are not supported */
                else arg = a + 2;                  /* "-oFILE" */
            }
        }
        /* Accept only the options this command lists (match whole words). */
        int ok = 0;
        if (sp) {
            size_t len = strlen(sp->name);
            for (const char *p = allowed; (p = strstr(p, sp->name)); p += len)
                if ((p == allowed || p[-1] == ' ') && (p[len] == ' ' || p[len] == 0)) ok = 1;
            if (sp->id == O_HELP || sp->id == O_QUIET) ok = 1;
        }
        if (!ok) cli_fail("%s: unknown option '%s' (see gpusort %s --help)", cmd, a, cmd);
        if (sp->has_arg && !arg) {
            if (i + 1 >= argc) cli_fail("%s: option '%s' needs a value", cmd, a);
            arg = argv[++i];
        }
        set_option(o, cmd, sp, arg);
    }
}

/* ---- helpers ---- */

static void show_help(const char *text)
{
    fputs(text, stdout);
}

/* The library's failure as one line: "<what>: <status>[: <detail>]". */
static void fail_status(const char *what, gpusort_status s, const gpusort_ctx *ctx)
{
    const char *detail = ctx ? gpusort_ctx_get_last_error(ctx) : "";
    if (s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY || s == GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY)
        cli_fail("%s: out of %s memory%s%s", what,
                 s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY ? "host" : "device",
                 *detail ? ": " : "", detail);
    cli_fail("%s: %s%s%s", what, gpusort_status_string(s), *detail ? ": " : "", detail);
}

/* Create a context; a backend that is not built or has no device is a clear error. */
static gpusort_ctx *make_ctx(const char *cmd, const opts *o)
{
    gpusort_ctx *ctx = NULL;
    gpusort_status s = gpusort_ctx_create(&ctx, o->backend, o->device);
    if (s != GPUSORT_STATUS_SUCCESS) {
        const char *bn = gpusort_backend_name(o->backend);
        if (s == GPUSORT_STATUS_BACKEND_NOT_BUILT)
            cli_fail("%s: the %s backend is not built into this gpusort (see gpusort devices)",
                     cmd, bn);
        if (s == GPUSORT_STATUS_NO_DEVICE)
            cli_fail("%s: the %s backend found no device (see gpusort devices)", cmd, bn);
        if (s == GPUSORT_STATUS_INVALID_ARGUMENT && o->device >= 0) {
            int count = 0;
            gpusort_device_get_count(o->backend, &count);
            cli_fail("%s: no device %d on the %s backend (it has %d)", cmd, o->device, bn, count);
        }
        cli_fail("%s: cannot start the %s backend: %s", cmd, bn, gpusort_status_string(s));
    }
    if (o->threads && (s = gpusort_ctx_set_threads(ctx, o->threads)) != GPUSORT_STATUS_SUCCESS)
        fail_status(cmd, s, ctx);
    return ctx;
}

static const char *device_name(const gpusort_ctx *ctx, char *buf, size_t size)
{
    gpusort_device_info info;
    if (gpusort_device_get_info(gpusort_ctx_get_backend(ctx), gpusort_ctx_get_device(ctx), &info) ==
        GPUSORT_STATUS_SUCCESS)
        snprintf(buf, size, "%s", info.name);
    else
        snprintf(buf, size, "device %d", gpusort_ctx_get_device(ctx));
    return buf;
}

/* With --backend auto, replace a GPU context whose call failed by a CPU context and return 1
 * (the caller retries), printing a note unless --quiet. Returns 0, changing nothing, for an
 * invalid argument or host memory exhaustion (the CPU would fail the same way), for a backend
 * the user named (its failure is the answer), and on the CPU itself. */
static int fall_back_to_cpu(gpusort_ctx **ctx, gpusort_status s, gpusort_backend requested,
                            int threads, const char *doing)
{
    if (s == GPUSORT_STATUS_SUCCESS || s == GPUSORT_STATUS_INVALID_ARGUMENT ||
        s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY || requested != GPUSORT_BACKEND_AUTO ||
        gpusort_ctx_get_backend(*ctx) == GPUSORT_BACKEND_CPU)
        return 0;
    gpusort_ctx *cpu = NULL;
    if (gpusort_ctx_create(&cpu, GPUSORT_BACKEND_CPU, 0) != GPUSORT_STATUS_SUCCESS ||
        (threads && gpusort_ctx_set_threads(cpu, threads) != GPUSORT_STATUS_SUCCESS)) {
        gpusort_ctx_free(cpu);
        return 0;
    }
    if (!cli_quiet)
        fprintf(stderr, "gpusort: note: the %s backend failed (%s: %s); %s on the CPU instead\n",
                gpusort_backend_name(gpusort_ctx_get_backend(*ctx)), gpusort_status_string(s),
                gpusort_ctx_get_last_error(*ctx), doing);
    gpusort_ctx_free(*ctx);
    *ctx = cpu;
    return 1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Files are little-endian; on a big-endian host, swap each element in place. */
static void to_from_le(void *buf, size_t n, size_t size)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned char *p = (unsigned char *)buf;
    for (size_t i = 0; i < n; i++, p += size)
        for (size_t a = 0, b = size - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
#else
    (void)buf; (void)n; (void)size;
#endif
}

static int is_stdio(const char *path) { return !path || strcmp(path, "-") == 0; }

/* 1 if the two paths name the same existing file (or are equal strings). */
static int same_file(const char *a, const char *b)
{
    if (is_stdio(a) || is_stdio(b)) return 0;
    if (strcmp(a, b) == 0) return 1;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* Check before reading that a regular file's size is a whole number of elements. */
static void check_file_size(const char *cmd, const char *path, size_t elem, const char *tname)
{
    if (is_stdio(path)) return;
    struct stat st;
    if (stat(path, &st) != 0) cli_fail("%s: cannot open %s: %s", cmd, path, strerror(errno));
    if (S_ISDIR(st.st_mode)) cli_fail("%s: %s: is a directory", cmd, path);
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size % elem)
        cli_fail("%s: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)", cmd,
                 path, (uint64_t)st.st_size, elem, tname);
    if (access(path, R_OK) != 0) cli_fail("%s: cannot open %s: %s", cmd, path, strerror(errno));
}

static void *read_elements(const char *cmd, const char *path, size_t elem, const char *tname,
                           size_t *n)
{
    size_t bytes;
    void *buf = cli_read_file(path, &bytes);
    if (bytes % elem)
        cli_fail("%s: %s: size %zu bytes is not a multiple of %zu (the size of %s)", cmd,
                 is_stdio(path) ? "standard input" : path, bytes, elem, tname);
    *n = bytes / elem;
    to_from_le(buf, *n, elem);
    return buf;
}

/* Binary data must not land on a terminal: without -o, stdout is used only when redirected. */
static const char *output_or_stdout(const char *cmd, const char *out)
{
    if (out) return out;
    if (isatty(STDOUT_FILENO))
        cli_fail("%s: refusing to write binary data to a terminal: give -o FILE "
                 "(or redirect standard output)", cmd);
    return "-";
}

/* Write n elements (converted to little-endian; buf is restored afterwards) with progress. */
static void write_elements(cli_out *out, void *buf, size_t n, size_t elem)
{
    to_from_le(buf, n, elem);
    size_t total = n * elem;
    cli_progress_start("writing", total);
    for (size_t done = 0; done < total;) {
        size_t k = total - done < IO_CHUNK ? total - done : IO_CHUNK;
        cli_out_write(out, (const char *)buf + done, k);
        done += k;
        cli_progress_update(done);
    }
    cli_progress_end();
    to_from_le(buf, n, elem);
}

/* Format one element for messages: integers exactly, floats with %.9g (f32) / %.17g (f64),
 * which print the exact value back; NaN as "nan" (with its bits, which tell NaNs apart). */
static const char *format_value(gpusort_type t, const void *p, char *buf, size_t size)
{
    uint32_t u32;
    uint64_t u64;
    switch (t) {
    case GPUSORT_TYPE_U32: memcpy(&u32, p, 4); snprintf(buf, size, "%" PRIu32, u32); break;
    case GPUSORT_TYPE_I32: memcpy(&u32, p, 4); snprintf(buf, size, "%" PRId32, (int32_t)u32); break;
    case GPUSORT_TYPE_U64: memcpy(&u64, p, 8); snprintf(buf, size, "%" PRIu64, u64); break;
    case GPUSORT_TYPE_I64: memcpy(&u64, p, 8); snprintf(buf, size, "%" PRId64, (int64_t)u64); break;
    case GPUSORT_TYPE_F32: {
        float f;
        memcpy(&f, p, 4);
        memcpy(&u32, p, 4);
        if (isnan(f)) snprintf(buf, size, "nan (0x%08" PRIx32 ")", u32);
        else snprintf(buf, size, "%.9g", (double)f);
        break;
    }
    case GPUSORT_TYPE_F64: {
        double d;
        memcpy(&d, p, 8);
        memcpy(&u64, p, 8);
        if (isnan(d)) snprintf(buf, size, "nan (0x%016" PRIx64 ")", u64);
        else snprintf(buf, size, "%.17g", d);
        break;
    }
    default: snprintf(buf, size, "?"); break;
    }
    return buf;
}

/* Print a reduce result: integers exactly, floats with %.17g ("nan", "inf", "-inf"). */
static void print_result(gpusort_type t, gpusort_value v)
{
    switch (gpusort_value_field(t)) {
    case 'u': printf("%" PRIu64 "\n", v.u); break;
    case 'i': printf("%" PRId64 "\n", v.i); break;
    default:
        if (isnan(v.f)) printf("nan\n");
        else if (isinf(v.f)) printf(v.f < 0 ? "-inf\n" : "inf\n");
        else printf("%.17g\n", v.f);
        break;
    }
}

/* ---- sort ---- */

/* The default memory budget of sort (-S): this share of physical RAM, as GNU sort and the text
 * mode take by default. */
#define SORT_DEFAULT_BUDGET_PERCENT 50
/* Runs merged at once by the external sort: each needs a descriptor and a read buffer. */
#define SORT_FANIN 64

static uint64_t default_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t ram = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : (uint64_t)4 << 30;
    return ram / 100 * SORT_DEFAULT_BUDGET_PERCENT;
}

/* One sort command's library state and what it did (for --stats). */
typedef struct sort_job {
    gpusort_ctx *ctx;
    gpusort_type type;
    gpusort_order order;
    gpusort_algorithm algorithm;
    double sort_s;          /* time inside the library */
    uint64_t n;             /* keys sorted */
    size_t runs;            /* external sort: runs written (0: in memory) */
    gpusort_type value_type;
    gpusort_backend requested;  /* --backend (AUTO: a failing GPU may be replaced by the CPU) */
    int threads;            /* --threads, for the CPU context of a fall-back */
} sort_job;

/* Restores the data a failed sort may have left half-written (re-reads it from its file);
 * returns 0 on success, -1 where that is impossible (standard input). */
typedef int (*reload_fn)(void *arg);

/* Read exactly len bytes at offset off; 0 on success. */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

static gpusort_status sort_call(sort_job *j, void *keys, void *vals, size_t n)
{
    char what[64];
    snprintf(what, sizeof what, "sorting %zu keys", n);
    cli_progress_start(what, 0);
    double t0 = now_s();
    gpusort_status s = vals ? gpusort_sort_pairs(j->ctx, j->type, j->value_type, keys, vals, n,
                                                 keys, vals, j->order, j->algorithm, 0)
                            : gpusort_sort(j->ctx, j->type, keys, n, keys, j->order, j->algorithm, 0);
    j->sort_s += now_s() - t0;
    cli_progress_end();
    return s;
}

/* Sort n keys (and values, if vals) in place; one line and exit 2 on a library error.
 * With --backend auto, a GPU that fails (a device error, too little device memory, a type it
 * does not support) is replaced by the CPU backend, as the text mode does, after the data is
 * re-read from its file (the failed sort may have overwritten part of it); a note says so.
 * A backend the user named is never replaced: its failure is the answer. */
static void sort_in_place(sort_job *j, void *keys, void *vals, size_t n, reload_fn reload,
                          void *reload_arg)
{
    gpusort_status s = sort_call(j, keys, vals, n);
    /* The failed sort may have overwritten part of the data: re-read it before the retry. */
    if (s != GPUSORT_STATUS_SUCCESS && gpusort_ctx_get_backend(j->ctx) != GPUSORT_BACKEND_CPU &&
        j->requested == GPUSORT_BACKEND_AUTO && reload && reload(reload_arg) == 0 &&
        fall_back_to_cpu(&j->ctx, s, j->requested, j->threads, "sorting"))
        s = sort_call(j, keys, vals, n);
    if (s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY && !vals)
        cli_fail("sort: out of host memory sorting %zu keys (%s); a smaller -S sorts in pieces",
                 n, gpusort_ctx_get_last_error(j->ctx));
    if (s != GPUSORT_STATUS_SUCCESS) {
        char w[128];
        snprintf(w, sizeof w, "sort: the %s backend (%s) failed",
                 gpusort_backend_name(gpusort_ctx_get_backend(j->ctx)),
                 gpusort_algorithm_name(j->algorithm));
        fail_status(w, s, j->ctx);
    }
}

/* Read up to `want` bytes (fewer only at the end of the input); cli_fail on a read error. */
static size_t read_full(const char *cmd, int fd, void *buf, size_t want, const char *name,
                        uint64_t *done)
{
    size_t got = 0;
    while (got < want) {
        size_t k = want - got < IO_CHUNK ? want - got : IO_CHUNK;
        ssize_t r = read(fd, (char *)buf + got, k);
        if (r < 0) {
            if (errno == EINTR) continue;
            cli_fail("%s: read error on %s: %s", cmd, name, strerror(errno));
        }
        if (r == 0) break;
        got += (size_t)r;
        *done += (uint64_t)r;
        cli_progress_update(*done);
    }
    return got;
}

/* ---- the external sort's merge ----
 *
 * The runs hold little-endian keys, each run sorted. They are merged with a binary heap of run
 * cursors keyed by the radix key of each run's current element (src/keys.h: one unsigned
 * integer compare gives the gpusort order, descending included), ties going to the lower run
 * index: runs are cut from the input in order, so that is exactly the stable order, and the
 * result is byte-identical to the in-memory sort. Each step moves one key and costs about
 * log2(runs) integer compares (extsort.c's generic merge calls a comparison function on byte
 * strings, several times slower for numbers). More than SORT_FANIN runs are first merged in
 * groups of consecutive runs (which keeps the stable order) into fewer, longer runs. */

typedef struct key_order {
    int type, desc;
    size_t size;
} key_order;

static inline uint64_t radix_at(const key_order *ko, const uint8_t *p)
{
    if (ko->size == 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        return gpusort__radix64(le64toh(v), ko->type, ko->desc);
    }
    uint32_t v;
    memcpy(&v, p, 4);
    return gpusort__radix32(le32toh(v), ko->type, ko->desc);
}

typedef struct run_cursor {
    int fd;
    const char *path;
    uint8_t *buf;
    size_t cap, len, pos;       /* buffer size, bytes in it, next byte */
} run_cursor;

/* Refill a cursor's buffer; 0 at the end of its run. */
static int cursor_fill(run_cursor *c, size_t ksize)
{
    size_t len = 0;
    while (len < c->cap) {
        ssize_t r = read(c->fd, c->buf + len, c->cap - len);
        if (r < 0) {
            if (errno == EINTR) continue;
            cli_fail("sort: read error on temporary file %s: %s", c->path, strerror(errno));
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    if (len % ksize) cli_fail("sort: temporary file %s is truncated", c->path);
    c->len = len;
    c->pos = 0;
    return len > 0;
}

/* Where merged keys go: a run file (ext_sink) or the final output (cli_out). */
typedef struct merge_dst {
    ext_sink *sink;
    cli_out *out;
} merge_dst;

static void dst_write(const merge_dst *d, const void *p, size_t n)
{
    if (d->sink) ext_sink_write(d->sink, p, n);
    else cli_out_write(d->out, p, n);
}

/* Merge the runs paths[0..k) into dst, with read buffers from a budget of `mem` bytes. */
static void merge_runs(char *const *paths, size_t k, const key_order *ko, uint64_t mem,
                       const merge_dst *dst)
{
    size_t ks = ko->size;
    /* Read buffers: the budget shared by the runs, 64 KiB to 16 MiB each (whole keys). */
    uint64_t each = mem / (2 * (uint64_t)(k ? k : 1));
    if (each < ((uint64_t)64 << 10)) each = (uint64_t)64 << 10;
    if (each > ((uint64_t)16 << 20)) each = (uint64_t)16 << 20;
    size_t bufsize = (size_t)each / ks * ks;
    size_t obufsize = ((size_t)1 << 20) / ks * ks;
    run_cursor *c = (run_cursor *)calloc(k ? k : 1, sizeof *c);
    uint64_t *rk = (uint64_t *)malloc((k ? k : 1) * sizeof *rk);
    size_t *heap = (size_t *)malloc((k ? k : 1) * sizeof *heap);
    uint8_t *obuf = (uint8_t *)malloc(obufsize);
    if (!c || !rk || !heap || !obuf) cli_fail("sort: out of memory merging %zu runs", k);
    size_t nheap = 0;
    for (size_t i = 0; i < k; i++) {
        c[i].path = paths[i];
        c[i].fd = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (c[i].fd < 0)
            cli_fail("sort: cannot open temporary file %s: %s", paths[i], strerror(errno));
        c[i].cap = bufsize;
        c[i].buf = (uint8_t *)malloc(bufsize);
        if (!c[i].buf) cli_fail("sort: out of memory merging %zu runs", k);
        if (cursor_fill(&c[i], ks)) {
            rk[i] = radix_at(ko, c[i].buf);
            heap[nheap++] = i;
        }
    }
/* Heap order: smaller radix key first, then the lower run. */
#define RUN_BEFORE(a, b) (rk[a] < rk[b] || (rk[a] == rk[b] && (a) < (b)))
#define SIFT_DOWN(start)                                                                      \
    do {                                                                                      \
        size_t i_ = (start), x_ = heap[i_];                                                   \
        for (;;) {                                                                            \
            size_t ch = 2 * i_ + 1;                                                           \
            if (ch >= nheap) break;                                                           \
            if (ch + 1 < nheap && RUN_BEFORE(heap[ch + 1], heap[ch])) ch++;                   \
            if (!RUN_BEFORE(heap[ch], x_)) break;                                             \
            heap[i_] = heap[ch];                                                              \
            i_ = ch;                                                                          \
        }                                                                                     \
        heap[i_] = x_;                                                                        \
    } while (0)
    for (size_t i = nheap / 2; i-- > 0;) SIFT_DOWN(i);
    size_t olen = 0;
    while (nheap) {
        size_t r = heap[0];
        run_cursor *cur = &c[r];
        memcpy(obuf + olen, cur->buf + cur->pos, ks);
        olen += ks;
        if (olen == obufsize) {
            dst_write(dst, obuf, olen);
            olen = 0;
        }
        cur->pos += ks;
        if (cur->pos == cur->len && !cursor_fill(cur, ks)) {
            heap[0] = heap[--nheap];            /* this run is done */
            if (nheap) SIFT_DOWN(0);
            continue;
        }
        rk[r] = radix_at(ko, cur->buf + cur->pos);
        SIFT_DOWN(0);
    }
#undef SIFT_DOWN
#undef RUN_BEFORE
    if (olen) dst_write(dst, obuf, olen);
    for (size_t i = 0; i < k; i++) {
        close(c[i].fd);
        free(c[i].buf);
    }
    free(c);
    free(rk);
    free(heap);
    free(obuf);
}

/* Remove a run file and forget it. */
static void run_remove(char *path)
{
    unlink(path);
    cli_temp_forget(path);
    free(path);
}

/* Merge every run of x into out, removing the run files. */
static void merge_all(extsort *x, const key_order *ko, uint64_t budget, cli_out *out)
{
    /* Take the list; new runs of a pass are added to x by extsort_run_close. The runs stay in
     * the temp-file registry throughout, so any failure still removes them. */
    while (x->nruns > SORT_FANIN) {
        char **list = x->runs;
        size_t n = x->nruns;
        x->runs = NULL;
        x->nruns = x->cap = 0;
        for (size_t a = 0; a < n; a += SORT_FANIN) {
            size_t b = a + SORT_FANIN < n ? a + SORT_FANIN : n;
            ext_sink sink;
            extsort_run_open(x, &sink);
            merge_dst d = {&sink, NULL};
            merge_runs(list + a, b - a, ko, budget, &d);
            extsort_run_close(x, &sink);
            for (size_t i = a; i < b; i++) run_remove(list[i]);
        }
        free(list);
    }
    merge_dst d = {NULL, out};
    merge_runs(x->runs, x->nruns, ko, budget, &d);
    extsort_free(x);     /* removes the runs */
}

/* Reload a piece of the keys file (regular files only). */
typedef struct chunk_src {
    int fd, known;
    uint64_t off;
    void *buf;
    size_t len, ksize;
} chunk_src;

static int chunk_reload(void *arg)
{
    chunk_src *c = (chunk_src *)arg;
    if (!c->known || pread_full(c->fd, c->buf, c->len, c->off) != 0) return -1;
    to_from_le(c->buf, c->len / c->ksize, c->ksize);
    return 0;
}

/* Sort the keys of `in` into *out (not committed here). Input is read in chunks of half the
 * memory budget (the other half is the library's scratch). When the whole input fits one chunk,
 * it is sorted in memory and written; otherwise each chunk is sorted and written as a run to a
 * temporary folder, and the runs are merged (extsort.c: a heap over the runs, ties to the
 * earlier run, so the result is stable like the in-memory sort). */
static void sort_keys(sort_job *j, const char *in, cli_out *out, uint64_t budget,
                      const char *const *tmpdirs, int ntmpdirs)
{
    size_t ksize = gpusort_type_size(j->type);
    const char *name = is_stdio(in) ? "standard input" : in;
    int fd = is_stdio(in) ? STDIN_FILENO : open(in, O_RDONLY | O_CLOEXEC);
    if (fd < 0) cli_fail("sort: cannot open %s: %s", in, strerror(errno));
    struct stat st;
    int known = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    uint64_t size = known ? (uint64_t)st.st_size : 0;

    uint64_t chunk = budget / 2 / ksize * ksize;
    if (chunk < ksize) chunk = ksize;
    if (chunk > (uint64_t)SIZE_MAX / 2) chunk = (uint64_t)SIZE_MAX / 2 / ksize * ksize;
    /* A known size needs one exact buffer; a stream grows one up to the chunk size. */
    size_t cap = (size_t)(known ? (size < chunk ? size : chunk)
                                : (chunk < IO_CHUNK ? chunk : IO_CHUNK));
    uint8_t *buf = (uint8_t *)malloc(cap ? cap : 1);
    if (!buf)
        cli_fail("sort: out of memory: cannot hold %zu bytes of %s (use -S to sort in smaller "
                 "pieces)", cap, name);

    key_order ko = {(int)j->type, j->order == GPUSORT_ORDER_DESC, ksize};
    /* extsort.c creates, registers and lists the run files; the merge is merge_all's (no
     * comparison function needed). */
    extsort_items items = {ksize, 0, NULL, NULL, 0};
    extsort x;
    extsort_init(&x, &items, tmpdirs, ntmpdirs, budget, SORT_FANIN);
    uint64_t done = 0;
    for (;;) {
        cli_progress_start("reading", size);
        size_t len = 0;
        int eof = 0;
        for (;;) {
            size_t got = read_full("sort", fd, buf + len, cap - len, name, &done);
            len += got;
            if (len < cap || (known && done >= size)) {     /* the end of the input */
                eof = 1;
                break;
            }
            if (cap >= chunk) break;
            /* A stream filled the buffer: grow it (up to the chunk size) and go on. */
            size_t ncap = (uint64_t)cap * 2 < chunk ? cap * 2 : (size_t)chunk;
            uint8_t *nb = (uint8_t *)realloc(buf, ncap);
            if (!nb)
                cli_fail("sort: out of memory reading %s (%zu bytes so far; use -S to sort in "
                         "smaller pieces)", name, len);
            buf = nb;
            cap = ncap;
        }
        cli_progress_end();
        if (len % ksize)
            cli_fail("sort: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)",
                     name, done, ksize, gpusort_type_name(j->type));
        size_t n = len / ksize;
        j->n += n;
        chunk_src src = {fd, known, done - len, buf, len, ksize};
        if (j->runs == 0 && eof) {                   /* everything fits: sort in memory */
            to_from_le(buf, n, ksize);
            sort_in_place(j, buf, NULL, n, chunk_reload, &src);
            write_elements(out, buf, n, ksize);
            break;
        }
        if (n) {
            to_from_le(buf, n, ksize);
            sort_in_place(j, buf, NULL, n, chunk_reload, &src);
            to_from_le(buf, n, ksize);
            ext_sink sink;
            extsort_run_open(&x, &sink);
            ext_sink_write(&sink, buf, len);
            extsort_run_close(&x, &sink);
            j->runs++;
        }
        if (eof) break;
    }
    if (fd != STDIN_FILENO) close(fd);
    free(buf);                                         /* the merge needs the memory */
    if (j->runs) {
        char what[64];
        snprintf(what, sizeof what, "merging %zu runs", j->runs);
        cli_progress_start(what, 0);
        merge_all(&x, &ko, budget, out);
        cli_progress_end();
    }
    extsort_free(&x);
}

/* Reload both files of a pair sort (regular files only). */
typedef struct pair_src {
    const char *paths[2];
    void *bufs[2];
    size_t lens[2], sizes[2];
} pair_src;

static int pair_reload(void *arg)
{
    pair_src *p = (pair_src *)arg;
    for (int i = 0; i < 2; i++) {
        if (is_stdio(p->paths[i])) return -1;
        int fd = open(p->paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) return -1;
        int r = pread_full(fd, p->bufs[i], p->lens[i], 0);
        close(fd);
        if (r) return -1;
        to_from_le(p->bufs[i], p->lens[i] / p->sizes[i], p->sizes[i]);
    }
    return 0;
}

/* Sort keys and their values in memory (the values file must match the keys in count). */
static void sort_pairs_in_memory(sort_job *j, const char *in, const char *values,
                                 gpusort_type vtype, cli_out *kout, cli_out *vo, uint64_t budget)
{
    const char *cmd = "sort";
    size_t ksize = gpusort_type_size(j->type);
    const char *tname = gpusort_type_name(j->type);
    struct stat sk, sv;
    if (!is_stdio(in) && !is_stdio(values) && stat(in, &sk) == 0 && stat(values, &sv) == 0 &&
        S_ISREG(sk.st_mode) && S_ISREG(sv.st_mode) &&
        2 * ((uint64_t)sk.st_size + (uint64_t)sv.st_size) > budget)
        cli_fail("sort: %s and %s need %" PRIu64 " bytes of memory, over the budget of %" PRIu64
                 " (-S); sorts with --values run in memory only", in, values,
                 2 * ((uint64_t)sk.st_size + (uint64_t)sv.st_size), budget);
    size_t n = 0;
    void *keys = read_elements(cmd, in, ksize, tname, &n);
    size_t vbytes;
    void *vals = cli_read_file(values, &vbytes);
    if (vtype == GPUSORT_TYPE_NONE) {
        if (vbytes == n * 4) vtype = GPUSORT_TYPE_U32;
        else if (vbytes == n * 8) vtype = GPUSORT_TYPE_U64;
        else
            cli_fail("sort: %s holds %zu bytes: not %zu keys' worth of u32 or u64 values",
                     values, vbytes, n);
    }
    size_t vsize = gpusort_type_size(vtype);
    if (vbytes % vsize || vbytes / vsize != n)
        cli_fail("sort: %s holds %zu bytes = %g %s values, but %s holds %zu keys", values,
                 vbytes, (double)vbytes / (double)vsize, gpusort_type_name(vtype),
                 is_stdio(in) ? "standard input" : in, n);
    to_from_le(vals, n, vsize);
    j->value_type = vtype;
    j->n = n;
    pair_src src = {{in, values}, {keys, vals}, {n * ksize, vbytes}, {ksize, vsize}};
    sort_in_place(j, keys, vals, n, pair_reload, &src);
    write_elements(kout, keys, n, ksize);
    write_elements(vo, vals, n, vsize);
    /* Both complete and on disk before either replaces anything. */
    cli_out_sync(kout);
    cli_out_sync(vo);
    cli_out_commit(kout);
    cli_out_commit(vo);
    free(keys);
    free(vals);
}


static const char help_sort[] =
    "Usage: gpusort sort [IN] --type T [-o OUT] [options]\n"
    "Sort a binary file of little-endian numbers (no IN, or -, reads standard input).\n"
    "\n"
    "  --type T            u32 i32 f32 u64 i64 f64 (required: without it, `gpusort sort`\n"
    "                      sorts text lines like GNU sort)\n"
    "  -o, --output OUT    write here; OUT may be IN itself (sorts the file in place). Without\n"
    "                      -o the result goes to standard output, which must not be a terminal.\n"
    "  -r, --desc          descending order (stable: equal keys keep their input order)\n"
    "  --values FILE       a parallel file of payloads, permuted alongside the keys; it must\n"
    "                      hold exactly as many elements as IN\n"
    "  --value-type u32|u64  the payload size (default: inferred from the file sizes)\n"
    "  --values-out FILE   where the permuted payloads go; required with --values unless -o\n"
    "                      names IN (then the values file is sorted in place too)\n"
    "  --backend B         auto (default: CUDA, then OpenCL GPU, then CPU; should that GPU\n"
    "                      fail, the CPU sorts instead, with a note), cpu, cuda, opencl (a\n"
    "                      named backend that fails is an error)\n"
    "  --device N          device index within the backend (see gpusort devices)\n"
    "  --algorithm A       auto (default), radix, merge, bitonic, rank (per backend)\n"
    "  --threads N         CPU threads (0 = all cores, the default)\n"
    "  --stats, -v         print on stderr: sorted N T keys with BACKEND (ALGORITHM, DEVICE)\n"
    "                      in X s: Y Mkeys/s (the time of the sort itself, data in memory;\n"
    "                      for an external sort, the whole time)\n"
    "  -q, --quiet         no progress display\n"
    "  -S, --buffer-size SIZE  memory budget (default 50% of RAM): 512M, 4G, 25%; a plain\n"
    "                      number is KiB, as in GNU sort\n"
    "  -T, --temporary-directory DIR  where an external sort writes its runs (default\n"
    "                      $TMPDIR or /tmp; several -T are used in turn)\n"
    "\n"
    "Floats sort as -inf < ... < -0.0 == +0.0 < ... < +inf < NaN (NaN first with --desc).\n"
    "Output is written to a temporary file next to OUT and renamed into place only when\n"
    "complete: an error or Ctrl-C never leaves a partial OUT and never damages IN.\n"
    "Memory: an input of up to half the budget is sorted in memory (the data plus the\n"
    "backend's scratch of the same size). A larger one (keys only) is sorted in pieces of\n"
    "half the budget, written as runs to -T, and merged stably: the result is the same.\n"
    "With --values, the keys and values are sorted in memory (2x their size).\n"
    "Exit status: 0 success, 2 error.\n";

int gpusort_cli_sort(int argc, char **argv)
{
    const char *cmd = "sort";
    opts o;
    parse_opts(argc, argv,
               "output type desc backend device algorithm values values-out value-type threads "
               "stats verbose quiet buffer-size temporary-directory",
               1, &o);
    if (o.help) { show_help(help_sort); return 0; }
    if (!o.type_set) cli_fail("sort: --type is required for binary files (see gpusort sort --help)");
    const char *in = o.npos ? o.pos[0] : "-";       /* no file: standard input, as sort */
    const char *out = output_or_stdout(cmd, o.out);
    size_t ksize = gpusort_type_size(o.type);
    const char *tname = gpusort_type_name(o.type);

    /* Values: where they come from and where they go. */
    const char *vout = NULL;
    if (!o.values && (o.values_out || o.value_type != GPUSORT_TYPE_NONE))
        cli_fail("sort: --values-out and --value-type need --values FILE");
    if (o.values) {
        if (is_stdio(o.values) && is_stdio(in))
            cli_fail("sort: the keys and the values cannot both come from standard input");
        vout = o.values_out;
        if (!vout) {
            if (!same_file(out, in))
                cli_fail("sort: --values needs --values-out FILE (or -o IN, which sorts both "
                         "files in place)");
            vout = o.values;
        }
        if (is_stdio(vout) && is_stdio(out))
            cli_fail("sort: the keys and the values cannot both go to standard output");
        if (same_file(vout, out) || (!is_stdio(vout) && !is_stdio(out) && strcmp(vout, out) == 0))
            cli_fail("sort: -o and --values-out name the same file");
        if (same_file(o.values, in)) cli_fail("sort: --values names the input file itself");
    }

    /* Fail early on a bad input before touching anything. */
    check_file_size(cmd, in, ksize, tname);
    if (o.values && !is_stdio(o.values)) {
        struct stat st;
        if (stat(o.values, &st) != 0)
            cli_fail("sort: cannot open %s: %s", o.values, strerror(errno));
        if (access(o.values, R_OK) != 0)
            cli_fail("sort: cannot open %s: %s", o.values, strerror(errno));
    }
    gpusort_ctx *ctx = make_ctx(cmd, &o);

    cli_out kout, vo;
    cli_out_open(&kout, out);
    if (o.values) cli_out_open(&vo, vout);

    sort_job job = {ctx, o.type, o.desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, o.algorithm,
                    0, 0, 0, GPUSORT_TYPE_NONE, o.backend, o.threads};
    uint64_t budget = o.budget ? o.budget : default_budget();
    double t0 = now_s();
    if (!o.values) {
        const char *tmp_default[1];
        const char *const *tmpdirs = o.tmpdirs;
        int ntmp = o.ntmpdirs;
        if (!ntmp) {
            const char *env = getenv("TMPDIR");
            tmp_default[0] = env && *env ? env : "/tmp";
            tmpdirs = tmp_default;
            ntmp = 1;
        }
        sort_keys(&job, in, &kout, budget, tmpdirs, ntmp);
        cli_out_commit(&kout);
    } else {
        sort_pairs_in_memory(&job, in, o.values, o.value_type, &kout, &vo, budget);
    }
    double t1 = now_s();
    ctx = job.ctx;      /* the CPU backend, if a GPU picked by auto failed */

    if (o.stats) {
        char dev[256], pairs[32] = "", ext[96] = "";
        if (o.values)
            snprintf(pairs, sizeof pairs, " with %s values", gpusort_type_name(job.value_type));
        /* In memory: the time of the library sort alone. External: everything (reading, the
         * sorts of the runs, writing them, the merge), which is what the user waited for. */
        double secs = job.runs ? t1 - t0 : job.sort_s;
        if (job.runs)
            snprintf(ext, sizeof ext, " (external: %zu runs merged, reading and writing included)",
                     job.runs);
        fprintf(stderr, "sorted %" PRIu64 " %s keys%s with %s (%s, %s) in %.6f s: %.1f Mkeys/s%s\n",
                job.n, tname, pairs, gpusort_backend_name(gpusort_ctx_get_backend(ctx)),
                gpusort_algorithm_name(job.runs || o.algorithm != GPUSORT_ALGORITHM_AUTO
                                           ? o.algorithm : gpusort_ctx_get_last_algorithm(ctx)),
                device_name(ctx, dev, sizeof dev), secs,
                secs > 0 ? (double)job.n / secs / 1e6 : 0.0, ext);
    }
    gpusort_ctx_free(ctx);
    return 0;
}

/* ---- gen ---- */

static const char help_gen_head[] =
    "Usage: gpusort gen --type T --n N [--dist D] [--seed S] [-o FILE]\n"
    "Generate N little-endian numbers of type T (u32 i32 f32 u64 i64 f64).\n"
    "\n"
    "  --n N            count: 1000000, 1e6, 2^26, 64M (K/M/G = 2^10/2^20/2^30)\n"
    "  --dist D         distribution (default uniform), below\n"
    "  --entropy-k K    with --dist bit-entropy: AND of K = 1..5 random words\n"
    "  --seed S         64-bit seed (default 1); the same arguments always give the same bytes\n"
    "  -o, --output F   the file (written atomically); without -o, standard output, which\n"
    "                   must not be a terminal\n"
    "\n"
    "Distributions:\n";

static const char help_gen_tail[] =
    "  index        0, 1, 2, ..., N-1 (payloads that name each key's position)\n"
    "Aliases: random, all-equal, few-unique, nan, with-nan, bit-entropy (--entropy-k K),\n"
    "entropy-1.0, entropy-0.811, entropy-0.544, entropy-0.337, entropy-0.201.\n"
    "Memory: N elements once (N x size bytes).\n";

/* Our names on top of datagen's: "index", "bit-entropy" with --entropy-k, "entropy-0.544". */
static int parse_dist(const opts *o, datagen_dist *d, int *index)
{
    const char *name = o->dist ? o->dist : "uniform";
    *index = strcmp(name, "index") == 0 || strcmp(name, "iota") == 0;
    if (*index) return 0;
    static const char *const by_entropy[] = {"entropy-1.0", "entropy-0.811", "entropy-0.544",
                                             "entropy-0.337", "entropy-0.201"};
    for (int k = 0; k < 5; k++)
        if (strcmp(name, by_entropy[k]) == 0 || (k == 0 && strcmp(name, "entropy-1") == 0)) {
            *d = (datagen_dist)(DATAGEN_ENTROPY1 + k);
            return 0;
        }
    if (strcmp(name, "bit-entropy") == 0 || strcmp(name, "entropy") == 0) {
        *d = (datagen_dist)(DATAGEN_ENTROPY1 + (o->entropy_k ? o->entropy_k : 3) - 1);
        return 0;
    }
    return datagen_parse_dist(name, d);
}

int gpusort_cli_gen(int argc, char **argv)
{
    const char *cmd = "gen";
    opts o;
    parse_opts(argc, argv, "output type n dist seed entropy-k", 0, &o);
    if (o.help) {
        show_help(help_gen_head);
        for (int d = 0; d < DATAGEN_DIST_COUNT; d++)
            printf("  %-12s %s\n", datagen_dist_name((datagen_dist)d),
                   datagen_dist_help((datagen_dist)d));
        show_help(help_gen_tail);
        return 0;
    }
    if (!o.type_set) cli_fail("gen: --type is required (types: %s)", type_list);
    if (!o.n_set) cli_fail("gen: --n N is required");
    datagen_dist dist = DATAGEN_UNIFORM;
    int index = 0;
    if (parse_dist(&o, &dist, &index) != 0)
        cli_fail("gen: unknown distribution '%s' (see gpusort gen --help)", o.dist);
    if (o.entropy_k && (index || dist < DATAGEN_ENTROPY1 || dist > DATAGEN_ENTROPY5))
        cli_fail("gen: --entropy-k goes with --dist bit-entropy");
    const char *out = output_or_stdout(cmd, o.out);
    size_t size = gpusort_type_size(o.type);
    if (o.n > SIZE_MAX / size) cli_fail("gen: %" PRIu64 " elements do not fit in memory", o.n);
    size_t n = (size_t)o.n;

    cli_out fo;
    cli_out_open(&fo, out);
    void *buf = malloc(n ? n * size : 1);
    if (!buf)
        cli_fail("gen: out of memory: %zu %s elements need %zu bytes", n,
                 gpusort_type_name(o.type), n * size);
    cli_progress_start("generating", 0);
    if (index) {
        for (size_t i = 0; i < n; i++) {
            switch (o.type) {
            case GPUSORT_TYPE_U32: case GPUSORT_TYPE_I32: ((uint32_t *)buf)[i] = (uint32_t)i; break;
            case GPUSORT_TYPE_U64: case GPUSORT_TYPE_I64: ((uint64_t *)buf)[i] = (uint64_t)i; break;
            case GPUSORT_TYPE_F32: ((float *)buf)[i] = (float)i; break;
            default: ((double *)buf)[i] = (double)i; break;
            }
        }
    } else if (datagen_fill(buf, o.type, n, dist, o.seed) != 0) {
        cli_fail("gen: cannot generate %s data of type %s", o.dist, gpusort_type_name(o.type));
    }
    cli_progress_end();
    write_elements(&fo, buf, n, size);
    cli_out_commit(&fo);
    free(buf);
    return 0;
}

/* ---- check ---- */

static const char help_check[] =
    "Usage: gpusort check [FILE] --type T [--desc] [--quiet]\n"
    "Exit 0 if FILE (little-endian numbers of type T; none or - reads standard input) is\n"
    "sorted, 1 if not, with \"gpusort: FILE: disorder at index I: A then B\" (I counts from 0:\n"
    "element I is out of order after element I-1), as sort -c does; 2 on errors.\n"
    "--quiet: no message (as sort -C).\n"
    "The order is gpusort's: NaN last ascending, first with --desc; -0.0 == +0.0.\n"
    "Reads FILE in 64 MiB pieces: any size works in little memory.\n"
    "Without --type, `gpusort check FILE` checks text lines (as gpusort -c FILE);\n"
    "with --record-size, fixed-size records.\n";

int gpusort_cli_check(int argc, char **argv)
{
    const char *cmd = "check";
    opts o;
    parse_opts(argc, argv, "type desc quiet", 1, &o);
    if (o.help) { show_help(help_check); return 0; }
    if (!o.type_set) cli_fail("check: --type is required for binary files");
    const char *path = o.npos ? o.pos[0] : "-";
    const char *name = is_stdio(path) ? "standard input" : path;
    size_t size = gpusort_type_size(o.type);
    check_file_size(cmd, path, size, gpusort_type_name(o.type));
    FILE *f = is_stdio(path) ? stdin : fopen(path, "rb");
    if (!f) cli_fail("check: cannot open %s: %s", path, strerror(errno));
    struct stat st;
    uint64_t total = (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) ? (uint64_t)st.st_size : 0;

    unsigned char *buf = (unsigned char *)malloc(IO_CHUNK + 8);
    if (!buf) cli_fail("check: out of memory");
    /* buf[0..8) holds the previous element (once there is one); a piece is read after it. */
    unsigned char *data = buf + 8;
    int have_prev = 0;
    uint64_t index = 0, bytes = 0;
    int type = (int)o.type, is64 = size == 8, unsorted = 0;
    cli_progress_start("checking", total);
    size_t carry = 0;   /* bytes of a partial element at the start of data */
    for (;;) {
        size_t got = fread(data + carry, 1, IO_CHUNK - carry, f);
        if (got == 0) {
            if (ferror(f)) cli_fail("check: read error on %s: %s", name, strerror(errno));
            break;
        }
        bytes += got;
        size_t avail = carry + got, m = avail / size;
        to_from_le(data, m, size);
        for (size_t i = 0; i < m; i++) {
            const unsigned char *cur = data + i * size;
            const unsigned char *prev = i ? cur - size : buf + 8 - size;
            if (i || have_prev) {
                int bad;
                if (is64) {
                    uint64_t a, b;
                    memcpy(&a, prev, 8);
                    memcpy(&b, cur, 8);
                    bad = gpusort__radix64(a, type, o.desc) > gpusort__radix64(b, type, o.desc);
                } else {
                    uint32_t a, b;
                    memcpy(&a, prev, 4);
                    memcpy(&b, cur, 4);
                    bad = gpusort__radix32(a, type, o.desc) > gpusort__radix32(b, type, o.desc);
                }
                if (bad) {
                    if (!o.quiet) {
                        char sa[64], sb[64];
                        cli_progress_end();
                        fprintf(stderr, "gpusort: %s: disorder at index %" PRIu64 ": %s then %s\n",
                                name, index + i, format_value(o.type, prev, sa, sizeof sa),
                                format_value(o.type, cur, sb, sizeof sb));
                    }
                    unsorted = 1;
                    break;
                }
            }
        }
        if (unsorted) break;
        index += m;
        if (m) {
            memcpy(buf + 8 - size, data + (m - 1) * size, size);
            have_prev = 1;
        }
        carry = avail - m * size;
        memmove(data, data + m * size, carry);
        cli_progress_update(bytes);
    }
    cli_progress_end();
    if (!unsorted && carry)
        cli_fail("check: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)",
                 name, bytes, size, gpusort_type_name(o.type));
    if (f != stdin) fclose(f);
    free(buf);
    return unsorted ? 1 : 0;
}

/* ---- reduce ---- */

/* reduce reads and reduces pieces of this size (a multiple of every element size): big enough
 * to keep a GPU busy, small enough to need little memory. */
#define REDUCE_CHUNK ((size_t)1 << 30)

static const char help_reduce[] =
    "Usage: gpusort reduce [FILE] --type T --op sum|min|max [--backend B] [--device N]\n"
    "Print the sum, minimum or maximum of FILE (little-endian numbers of type T; none or -\n"
    "reads standard input).\n"
    "  Integer sums are exact modulo 2^64 (u64 for unsigned, i64 for signed types, wrapping).\n"
    "  Float results (f32, f64) are printed as doubles with %.17g; a sum is accurate to the\n"
    "  bound in gpusort.h; min/max are NaN when any element is NaN. min/max of an empty file\n"
    "  is an error; the sum of an empty file is 0. Any size works: the file is read and\n"
    "  reduced in pieces of 1 GiB (or -S SIZE, if smaller), whose results are combined.\n"
    "  --threads N, --stats (time and keys/s on stderr) as for sort.\n";

int gpusort_cli_reduce(int argc, char **argv)
{
    const char *cmd = "reduce";
    opts o;
    parse_opts(argc, argv, "type op backend device threads stats verbose quiet buffer-size", 1,
               &o);
    if (o.help) { show_help(help_reduce); return 0; }
    if (!o.type_set) cli_fail("reduce: --type is required");
    if (!o.op_set) cli_fail("reduce: --op sum|min|max is required");
    if (o.npos == 0) o.pos[o.npos++] = "-";
    const char *tname = gpusort_type_name(o.type);
    check_file_size(cmd, o.pos[0], gpusort_type_size(o.type), tname);
    gpusort_ctx *ctx = make_ctx(cmd, &o);

    /* Read and reduce in pieces, so that any size works in bounded memory; the partial results
     * combine exactly for integers (sums modulo 2^64), for min/max (NaN wins; ties keep the
     * first), and for float sums within the library's bound (one more rounding per piece). */
    const char *path = o.pos[0], *name = is_stdio(path) ? "standard input" : path;
    size_t size = gpusort_type_size(o.type);
    int fd = is_stdio(path) ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) cli_fail("reduce: cannot open %s: %s", path, strerror(errno));
    struct stat st;
    uint64_t total = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    uint64_t chunk = o.budget ? o.budget / 8 * 8 : REDUCE_CHUNK;   /* 8: every element size */
    if (chunk < 8) chunk = 8;
    if (chunk > REDUCE_CHUNK) chunk = REDUCE_CHUNK;
    size_t cap = (size_t)(total && total < chunk ? total : chunk);
    void *data = malloc(cap ? cap : 1);
    if (!data) cli_fail("reduce: out of memory: cannot hold %zu bytes of %s", cap, name);
    char field = gpusort_value_field(o.type);
    gpusort_value v;
    memset(&v, 0, sizeof v);
    uint64_t n = 0, done = 0;
    double secs = 0;
    for (;;) {
        cli_progress_start("reading", total);
        size_t len = read_full(cmd, fd, data, cap, name, &done);
        cli_progress_end();
        if (len % size)
            cli_fail("reduce: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)",
                     name, done, size, tname);
        size_t m = len / size;
        if (m == 0) break;
        to_from_le(data, m, size);
        gpusort_value c;
        double t0 = now_s();
        gpusort_status s = gpusort_reduce(ctx, o.type, data, m, &c, o.op, 0);
        /* A reduce only reads its input: the retry needs no reload. */
        if (fall_back_to_cpu(&ctx, s, o.backend, o.threads, "reducing"))
            s = gpusort_reduce(ctx, o.type, data, m, &c, o.op, 0);
        secs += now_s() - t0;
        if (s != GPUSORT_STATUS_SUCCESS) {
            char w[96];
            snprintf(w, sizeof w, "reduce: the %s backend failed",
                     gpusort_backend_name(gpusort_ctx_get_backend(ctx)));
            fail_status(w, s, ctx);
        }
        if (n == 0) v = c;
        else if (o.op == GPUSORT_OP_SUM) {
            if (field == 'u') v.u += c.u;
            else if (field == 'i') v.i = (int64_t)((uint64_t)v.i + (uint64_t)c.i);
            else v.f += c.f;
        } else {
            /* Strict comparisons keep the earlier piece on ties (-0.0 vs +0.0); NaN wins. */
            int lt = field == 'u' ? c.u < v.u : field == 'i' ? c.i < v.i : c.f < v.f;
            int gt = field == 'u' ? c.u > v.u : field == 'i' ? c.i > v.i : c.f > v.f;
            int v_nan = field == 'f' && isnan(v.f), c_nan = field == 'f' && isnan(c.f);
            if (!v_nan && (c_nan || (o.op == GPUSORT_OP_MIN ? lt : gt))) v = c;
        }
        n += m;
        if (len < cap) break;
    }
    if (fd != STDIN_FILENO) close(fd);
    free(data);
    if (n == 0 && o.op != GPUSORT_OP_SUM)
        cli_fail("reduce: %s is empty: it has no %s", name,
                 o.op == GPUSORT_OP_MIN ? "minimum" : "maximum");
    if (n == 0) memset(&v, 0, sizeof v);
    print_result(o.type, v);
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("reduce: write error on standard output: %s", strerror(errno));
    if (o.stats) {
        char dev[256];
        fprintf(stderr, "reduced %" PRIu64 " %s keys with %s (%s) in %.6f s: %.1f Mkeys/s\n", n,
                tname, gpusort_backend_name(gpusort_ctx_get_backend(ctx)),
                device_name(ctx, dev, sizeof dev), secs, secs > 0 ? (double)n / secs / 1e6 : 0.0);
    }
    gpusort_ctx_free(ctx);
    return 0;
}

/* ---- devices ---- */

static const char help_devices[] =
    "Usage: gpusort devices\n"
    "List every backend (built into this gpusort or not), its devices and their properties,\n"
    "and the backend --backend auto picks.\n";

static void print_memory(uint64_t bytes)
{
    if (bytes >= ((uint64_t)1 << 30)) printf("%.1f GiB", (double)bytes / (double)(1u << 30));
    else printf("%.0f MiB", (double)bytes / (double)(1u << 20));
}

int gpusort_cli_devices(int argc, char **argv)
{
    opts o;
    parse_opts(argc, argv, "", 0, &o);
    if (o.help) { show_help(help_devices); return 0; }
    for (int b = GPUSORT_BACKEND_CPU; b < GPUSORT_BACKEND_COUNT_; b++) {
        gpusort_backend be = (gpusort_backend)b;
        const char *bn = gpusort_backend_name(be);
        if (!gpusort_backend_built(be)) {
            printf("%s: not built into this gpusort\n", bn);
            continue;
        }
        int count = 0;
        gpusort_status s = gpusort_device_get_count(be, &count);
        if (s != GPUSORT_STATUS_SUCCESS) {
            printf("%s: built; cannot list devices: %s\n", bn, gpusort_status_string(s));
            continue;
        }
        if (count == 0) {
            printf("%s: built; no device found\n", bn);
            continue;
        }
        printf("%s: %d device%s\n", bn, count, count == 1 ? "" : "s");
        for (int d = 0; d < count; d++) {
            gpusort_device_info info;
            s = gpusort_device_get_info(be, d, &info);
            if (s != GPUSORT_STATUS_SUCCESS) {
                printf("  [%d] cannot query: %s\n", d, gpusort_status_string(s));
                continue;
            }
            printf("  [%d] %s\n", d, info.name);
            printf("      platform: %s\n", info.platform);
            printf("      memory: ");
            print_memory(info.memory_bytes);
            printf(", compute units: %d", info.compute_units);
            if (be == GPUSORT_BACKEND_CUDA)
                printf(", compute capability %d.%d", info.capability_major, info.capability_minor);
            else if (be == GPUSORT_BACKEND_OPENCL)
                printf(", OpenCL %d.%d", info.capability_major, info.capability_minor);
            printf("\n      GPU: %s, f64: %s\n", info.is_gpu ? "yes" : "no",
                   info.supports_f64 ? "yes" : "no");
        }
    }
    gpusort_ctx *ctx = NULL;
    gpusort_status s = gpusort_ctx_create(&ctx, GPUSORT_BACKEND_AUTO, -1);
    if (s == GPUSORT_STATUS_SUCCESS) {
        char dev[256];
        printf("auto: %s device %d (%s)\n", gpusort_backend_name(gpusort_ctx_get_backend(ctx)),
               gpusort_ctx_get_device(ctx), device_name(ctx, dev, sizeof dev));
    } else {
        printf("auto: no usable backend: %s\n", gpusort_status_string(s));
    }
    gpusort_ctx_free(ctx);
    if (fflush(stdout) != 0 || ferror(stdout))
        cli_fail("devices: write error on standard output: %s", strerror(errno));
    return 0;
}

/* ---- bench ---- */

static const char help_bench[] =
    "Usage: gpusort bench [--backend B] [--type T] [--n N] [--runs R] [--dist D] [--seed S]\n"
    "                     [--algorithm A] [--desc] [--threads N] [--device N]\n"
    "A quick benchmark: sorts the same N keys (default 2^22 u32, uniform) on every available\n"
    "backend (or only --backend B) and with the C library's qsort (a naive peer), R times\n"
    "each (default 7) after one warm-up, each run on a fresh copy of the data in host memory\n"
    "(GPU times include the transfers), and prints the median time and keys/s. Every result\n"
    "is checked to be sorted. The full benchmark suite lives in bench/.\n";

static gpusort_type qsort_type;   /* qsort has no context argument */
static int qsort_cmp(const void *a, const void *b)
{
    if (gpusort_type_size(qsort_type) == 8) {
        uint64_t x, y;
        memcpy(&x, a, 8);
        memcpy(&y, b, 8);
        x = gpusort__radix64(x, (int)qsort_type, 0);
        y = gpusort__radix64(y, (int)qsort_type, 0);
        return (x > y) - (x < y);
    }
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    x = gpusort__radix32(x, (int)qsort_type, 0);
    y = gpusort__radix32(y, (int)qsort_type, 0);
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* 1 if buf (n elements) is sorted in the gpusort order. */
static int is_sorted(gpusort_type t, const void *buf, size_t n, int desc)
{
    for (size_t i = 1; i < n; i++) {
        if (gpusort_type_size(t) == 8) {
            uint64_t a, b;
            memcpy(&a, (const char *)buf + (i - 1) * 8, 8);
            memcpy(&b, (const char *)buf + i * 8, 8);
            if (gpusort__radix64(a, (int)t, desc) > gpusort__radix64(b, (int)t, desc)) return 0;
        } else {
            uint32_t a, b;
            memcpy(&a, (const char *)buf + (i - 1) * 4, 4);
            memcpy(&b, (const char *)buf + i * 4, 4);
            if (gpusort__radix32(a, (int)t, desc) > gpusort__radix32(b, (int)t, desc)) return 0;
        }
    }
    return 1;
}

int gpusort_cli_bench(int argc, char **argv)
{
    const char *cmd = "bench";
    opts o;
    parse_opts(argc, argv, "backend device type n runs dist seed algorithm desc threads quiet", 0,
               &o);
    if (o.help) { show_help(help_bench); return 0; }
    gpusort_type type = o.type_set ? o.type : GPUSORT_TYPE_U32;
    size_t n = o.n_set ? (size_t)o.n : (size_t)1 << 22;
    int runs = o.runs ? o.runs : 7;
    datagen_dist dist = DATAGEN_UNIFORM;
    int index = 0;
    if (parse_dist(&o, &dist, &index) != 0 || index)
        cli_fail("bench: unknown distribution '%s' (see gpusort gen --help)", o.dist);
    size_t size = gpusort_type_size(type);
    if (o.n > SIZE_MAX / size / 2) cli_fail("bench: --n is too large");
    void *orig = malloc(n ? n * size : 1), *work = malloc(n ? n * size : 1);
    double *times = (double *)malloc(sizeof(double) * (size_t)runs);
    if (!orig || !work || !times)
        cli_fail("bench: out of memory: %zu %s keys need 2 x %zu bytes", n,
                 gpusort_type_name(type), n * size);
    datagen_fill(orig, type, n, dist, o.seed);
    gpusort_order order = o.desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC;

    printf("gpusort bench: %zu %s keys, %s, %s, seed %" PRIu64 ", median of %d runs after 1 "
           "warm-up\n", n, gpusort_type_name(type),
           o.dist ? o.dist : "uniform", o.desc ? "descending" : "ascending", o.seed, runs);
    printf("%-8s %12s %12s %10s  %s\n", "backend", "median s", "Mkeys/s", "vs qsort", "device");
    fflush(stdout);

    /* The peer first, so that each backend's line can give its ratio. */
    double qsort_median = 0;
    int qruns = runs;
    {
        qsort_type = type;
        for (int r = -1; r < qruns; r++) {
            memcpy(work, orig, n * size);
            double t0 = now_s();
            if (!o.desc) qsort(work, n, size, qsort_cmp);
            else {
                /* qsort is not stable, so descending by reversing an ascending sort is fine. */
                qsort(work, n, size, qsort_cmp);
                for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
                    char tmp[8];
                    memcpy(tmp, (char *)work + i * size, size);
                    memcpy((char *)work + i * size, (char *)work + j * size, size);
                    memcpy((char *)work + j * size, tmp, size);
                }
            }
            double t = now_s() - t0;
            if (r >= 0) times[r] = t;
        }
        qsort(times, (size_t)qruns, sizeof *times, cmp_double);
        qsort_median = times[qruns / 2];
        printf("%-8s %12.6f %12.1f %10s  %s\n", "qsort", qsort_median,
               qsort_median > 0 ? (double)n / qsort_median / 1e6 : 0.0, "1.0x",
               "libc qsort, 1 thread");
        fflush(stdout);
    }

    int any = 0;
    for (int b = GPUSORT_BACKEND_CPU; b < GPUSORT_BACKEND_COUNT_; b++) {
        gpusort_backend be = (gpusort_backend)b;
        if (o.backend_set && o.backend != GPUSORT_BACKEND_AUTO && o.backend != be) continue;
        int count = 0;
        if (!gpusort_backend_built(be) || gpusort_device_get_count(be, &count) != 0 || count == 0) {
            if (o.backend_set && o.backend == be)
                cli_fail("bench: the %s backend is %s", gpusort_backend_name(be),
                         gpusort_backend_built(be) ? "built but has no device" : "not built");
            continue;
        }
        opts bo = o;
        bo.backend = be;
        gpusort_ctx *ctx = make_ctx(cmd, &bo);
        char dev[256];
        device_name(ctx, dev, sizeof dev);
        gpusort_status s = GPUSORT_STATUS_SUCCESS;
        for (int r = -1; r < runs && s == GPUSORT_STATUS_SUCCESS; r++) {
            memcpy(work, orig, n * size);
            double t0 = now_s();
            s = gpusort_sort(ctx, type, work, n, work, order, o.algorithm, 0);
            double t = now_s() - t0;
            if (r >= 0) times[r] = t;
        }
        if (s != GPUSORT_STATUS_SUCCESS) {
            printf("%-8s failed: %s: %s (%s)\n", gpusort_backend_name(be),
                   gpusort_status_string(s), gpusort_ctx_get_last_error(ctx), dev);
            gpusort_ctx_free(ctx);
            continue;
        }
        if (!is_sorted(type, work, n, o.desc))
            cli_fail("bench: the %s backend returned unsorted data", gpusort_backend_name(be));
        qsort(times, (size_t)runs, sizeof *times, cmp_double);
        double med = times[runs / 2];
        printf("%-8s %12.6f %12.1f %9.1fx  %s\n", gpusort_backend_name(be), med,
               med > 0 ? (double)n / med / 1e6 : 0.0, med > 0 ? qsort_median / med : 0.0, dev);
        fflush(stdout);
        gpusort_ctx_free(ctx);
        any = 1;
    }
    free(orig);
    free(work);
    free(times);
    if (!any) cli_fail("bench: no backend with a device to run");
    return 0;
}
