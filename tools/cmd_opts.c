/*
 * cmd_opts.c -- what the subcommands (cmd_*.c) share: their option parser, the distribution
 * names of gen and bench, and the helpers around a library context (creation, failures, the
 * CPU fall-back of --backend auto). Declared in cmd.h.
 *
 * The parser knows every option of every subcommand (one table of specs); each command passes
 * the long names it accepts, and anything else is refused. set_option turns a value into its
 * field of cmd_opts and refuses malformed values with the command's name and the valid range.
 */
#include "binfile.h"
#include "cmd.h"
#include "internal.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- options ---- */

enum {
    O_OUT, O_TYPE, O_DESC, O_BACKEND, O_DEVICE, O_ALGORITHM, O_VALUES, O_VALUES_OUT,
    O_VALUE_TYPE, O_THREADS, O_STATS, O_VERBOSE, O_QUIET, O_HELP, O_N, O_DIST, O_SEED,
    O_ENTROPY_K, O_OP, O_RUNS, O_BUFFER_SIZE, O_TMPDIR, O_K, O_INDICES, O_INDEX_TYPE, O_MPI,
    O_SYNC, O_NO_SYNC, O_GPUS
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
    {O_K, "k", 'k', 1},                 {O_INDICES, "indices", 0, 1},
    {O_INDEX_TYPE, "index-type", 0, 1},
    {O_MPI, "mpi", 0, 0},               {O_SYNC, "sync", 0, 0},
    {O_NO_SYNC, "no-sync", 0, 0},       {O_GPUS, "gpus", 0, 1},
};
#define NUM_SPECS ((int)(sizeof all_specs / sizeof all_specs[0]))

const char cmd_type_list[] = "u32 i32 f32 u64 i64 f64";

static gpusort_type parse_type(const char *cmd, const char *s)
{
    gpusort_type t;
    if (gpusort_type_parse(s, &t) != GPUSORT_STATUS_SUCCESS)
        cli_fail("%s: unknown type '%s' (types: %s)", cmd, s, cmd_type_list);
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

static void set_option(cmd_opts *o, const char *cmd, const opt_spec *sp, const char *arg)
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
    case O_K:
        if (cli_parse_count(arg, &o->k) != 0)
            cli_fail("%s: invalid count '%s' for -k (e.g. 100, 1e6, 2^20, 64M)", cmd, arg);
        o->k_set = 1;
        break;
    case O_INDICES: o->indices = arg; break;
    case O_INDEX_TYPE:
        if (strcmp(arg, "u32") == 0) o->value_type = GPUSORT_TYPE_U32;
        else if (strcmp(arg, "u64") == 0) o->value_type = GPUSORT_TYPE_U64;
        else cli_fail("%s: invalid index type '%s' (u32 or u64)", cmd, arg);
        break;
    case O_VALUE_TYPE:
        if (strcmp(arg, "u32") == 0) o->value_type = GPUSORT_TYPE_U32;
        else if (strcmp(arg, "u64") == 0) o->value_type = GPUSORT_TYPE_U64;
        else cli_fail("%s: invalid value type '%s' (u32 or u64: any 4- or 8-byte payload)", cmd, arg);
        break;
    case O_THREADS: o->threads = parse_int(cmd, sp->name, arg, 0, 1 << 16); break;
    case O_STATS: case O_VERBOSE: o->stats = 1; break;
    case O_QUIET: o->quiet = 1; cli_quiet = 1; break;
    case O_HELP: o->help = 1; break;
    case O_MPI: o->mpi = 1; break;
    case O_GPUS:   /* "all" (-1) or a count; the command checks it against the GPUs present */
        o->gpus = !strcmp(arg, "all") ? -1 : parse_int(cmd, "gpus", arg, 1, 1024);
        break;
    case O_SYNC: cli_sync = 1; break;           /* util.c: outputs fsynced before the rename */
    case O_NO_SYNC: cli_sync = 0; break;
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

void cmd_parse(int argc, char **argv, const char *allowed, int max_pos, cmd_opts *o)
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

/* Our names on top of datagen's: "index", "bit-entropy" with --entropy-k, "entropy-0.544". */
int cmd_parse_dist(const cmd_opts *o, datagen_dist *d, int *index)
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

/* ---- the library context ---- */

/* The library's failure as one line: "<what>: <status>[: <detail>]". */
void cmd_fail_status(const char *what, gpusort_status s, const gpusort_ctx *ctx)
{
    const char *detail = ctx ? gpusort_ctx_get_last_error(ctx) : "";
    if (s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY || s == GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY)
        cli_fail("%s: out of %s memory%s%s", what,
                 s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY ? "host" : "device",
                 *detail ? ": " : "", detail);
    cli_fail("%s: %s%s%s", what, gpusort_status_string(s), *detail ? ": " : "", detail);
}

void cmd_auto_small_files(cmd_opts *o, const char *path, const char *values)
{
    const char *p[2] = {path, values};
    uint64_t bytes = 0;
    for (int i = 0; i < 2; i++) {
        struct stat st;
        if (!p[i]) continue;
        if (bin_is_stdio(p[i]) || stat(p[i], &st) != 0 || !S_ISREG(st.st_mode)) return;
        bytes += (uint64_t)st.st_size;
    }
    if (cli_auto_cpu(o->backend, o->device, bytes, o->threads)) o->backend = GPUSORT_BACKEND_CPU;
}

/* Create a context; a backend that is not built or has no device is a clear error. */
gpusort_ctx *cmd_make_ctx(const char *cmd, const cmd_opts *o)
{
    gpusort_ctx *ctx = NULL;
    gpusort_status s = gpusort_ctx_create(&ctx, o->backend, o->device);
    return cmd_ctx_check(cmd, o, ctx, s);
}

gpusort_ctx *cmd_ctx_check(const char *cmd, const cmd_opts *o, gpusort_ctx *ctx, gpusort_status s)
{
    if (s != GPUSORT_STATUS_SUCCESS) {
        const char *bn = gpusort_backend_name(o->backend);
        if (s == GPUSORT_STATUS_BACKEND_NOT_BUILT)
            cli_fail("%s: the %s backend is not built into this gpusort (see gpusort devices)",
                     cmd, bn);
        if (s == GPUSORT_STATUS_NO_DEVICE) {
#if defined(GPUSORT_HAVE_CUDA)
            char why[256];
            if (o->backend == GPUSORT_BACKEND_CUDA)
                cli_fail("%s: the cuda backend found no device: %s", cmd,
                         gpusort__cuda_no_device_reason(why, sizeof why));
#endif
            cli_fail("%s: the %s backend found no device (see gpusort devices)", cmd, bn);
        }
        if (s == GPUSORT_STATUS_INVALID_ARGUMENT && o->device >= 0) {
            int count = 0;
            gpusort_device_get_count(o->backend, &count);
            cli_fail("%s: no device %d on the %s backend (it has %d)", cmd, o->device, bn, count);
        }
        gpusort_device_info info;
        if (s == GPUSORT_STATUS_UNSUPPORTED &&
            gpusort_device_get_info(o->backend, o->device < 0 ? 0 : o->device, &info) ==
                GPUSORT_STATUS_SUCCESS && !info.usable)
            cli_fail("%s: the %s backend cannot run on device %d (%s): %s", cmd, bn,
                     o->device < 0 ? 0 : o->device, info.name, info.unusable_reason);
        cli_fail("%s: cannot start the %s backend: %s", cmd, bn, gpusort_status_string(s));
    }
    if (o->threads && (s = gpusort_ctx_set_threads(ctx, o->threads)) != GPUSORT_STATUS_SUCCESS)
        cmd_fail_status(cmd, s, ctx);
    return ctx;
}

const char *cmd_device_name(const gpusort_ctx *ctx, char *buf, size_t size)
{
    gpusort_device_info info;
    if (gpusort_device_get_info(gpusort_ctx_get_backend(ctx), gpusort_ctx_get_device(ctx), &info) ==
        GPUSORT_STATUS_SUCCESS)
        snprintf(buf, size, "%s", info.name);
    else
        snprintf(buf, size, "device %d", gpusort_ctx_get_device(ctx));
    return buf;
}

const char *cmd_device_used(const gpusort_ctx *ctx, char *buf, size_t size)
{
    cmd_device_name(ctx, buf, size);
    size_t len = strlen(buf);
    if (gpusort_ctx_get_backend(ctx) == GPUSORT_BACKEND_CPU && len < size)
        snprintf(buf + len, size - len, ", %d in use", gpusort_ctx_get_threads(ctx));
    return buf;
}

int cmd_fall_back_to_cpu(gpusort_ctx **ctx, gpusort_status s, gpusort_backend requested,
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
