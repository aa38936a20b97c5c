/*
 * cmd_reduce.c -- `gpusort reduce FILE --type T --op sum|min|max`: print the sum, minimum or
 * maximum of a file of little-endian numbers, computed by the library (gpusort_reduce).
 *
 * The file is read and reduced in pieces of REDUCE_CHUNK (or -S, if smaller), and the partial
 * results are combined: exactly for integer sums (modulo 2^64) and for min/max (NaN wins, ties
 * keep the earlier piece), and for float sums within the library's bound plus one rounding per
 * piece. So any size works in bounded memory. With --backend auto a failing GPU is replaced by
 * the CPU for the rest of the file (cmd_fall_back_to_cpu).
 */
#include "binfile.h"
#include "cmd.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
    "  --backend, --device, --threads N, --stats (time and keys/s on stderr) as for sort;\n"
    "  auto is the CPU here: a file's bytes are in host memory, where the CPU's one pass\n"
    "  over them is faster than a GPU's start-up and the copy to it.\n";

int gpusort_cli_reduce(int argc, char **argv)
{
    const char *cmd = "reduce";
    cmd_opts o;
    cmd_parse(argc, argv, "type op backend device threads stats verbose quiet buffer-size", 1,
              &o);
    if (o.help) { fputs(help_reduce, stdout); return 0; }
    if (!o.type_set) cli_fail("reduce: --type is required");
    if (!o.op_set) cli_fail("reduce: --op sum|min|max is required");
    if (o.npos == 0) o.pos[o.npos++] = "-";
    const char *tname = gpusort_type_name(o.type);
    bin_check_file_size(cmd, o.pos[0], gpusort_type_size(o.type), tname);
    /* --backend auto: the CPU, whatever the size. The data is in host memory (read from the
     * file), where the CPU's one pass over it runs at the memory's speed; a GPU would first
     * start and then take the same bytes over PCIe, slower than that pass
     * (bench/results/records-2026-11-28.md, section 4). A GPU named with --backend or
     * --device is used. */
    if (o.backend == GPUSORT_BACKEND_AUTO && o.device < 0) o.backend = GPUSORT_BACKEND_CPU;
    gpusort_ctx *ctx = cmd_make_ctx(cmd, &o);

    /* Read and reduce in pieces, so that any size works in bounded memory; the partial results
     * combine exactly for integers (sums modulo 2^64), for min/max (NaN wins; ties keep the
     * first), and for float sums within the library's bound (one more rounding per piece). */
    const char *path = o.pos[0], *name = bin_is_stdio(path) ? "standard input" : path;
    size_t size = gpusort_type_size(o.type);
    int fd = bin_is_stdio(path) ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) cli_fail("reduce: cannot open %s: %s", path, strerror(errno));
    struct stat st;
    uint64_t total = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    uint64_t chunk = o.budget ? o.budget / 8 * 8 : REDUCE_CHUNK;   /* 8: every element size */
    if (chunk < 8) chunk = 8;
    if (chunk > REDUCE_CHUNK) chunk = REDUCE_CHUNK;
    size_t cap = (size_t)(total && total < chunk ? total : chunk);
    void *data = gpusort__malloc(cap ? cap : 1);
    if (!data) cli_fail("reduce: out of memory: cannot hold %zu bytes of %s", cap, name);
    char field = gpusort_value_field(o.type);
    gpusort_value v;
    memset(&v, 0, sizeof v);
    uint64_t n = 0, done = 0;
    double secs = 0;
    for (;;) {
        cli_progress_start("reading", total);
        size_t len = bin_read_piece(cmd, fd, total != 0, data, cap, name, &done,
                                    gpusort_ctx_get_threads(ctx));
        cli_progress_end();
        if (len % size)
            cli_fail("reduce: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)",
                     name, done, size, tname);
        size_t m = len / size;
        if (m == 0) break;
        bin_to_from_le(data, m, size);
        gpusort_value c;
        double t0 = cli_now_s();
        gpusort_status s = gpusort_reduce(ctx, o.type, data, m, &c, o.op, 0);
        /* A reduce only reads its input: the retry needs no reload. */
        if (cmd_fall_back_to_cpu(&ctx, s, o.backend, o.threads, "reducing"))
            s = gpusort_reduce(ctx, o.type, data, m, &c, o.op, 0);
        secs += cli_now_s() - t0;
        if (s != GPUSORT_STATUS_SUCCESS) {
            char w[96];
            snprintf(w, sizeof w, "reduce: the %s backend failed",
                     gpusort_backend_name(gpusort_ctx_get_backend(ctx)));
            cmd_fail_status(w, s, ctx);
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
                cmd_device_used(ctx, dev, sizeof dev), secs, secs > 0 ? (double)n / secs / 1e6 : 0.0);
    }
    gpusort_ctx_free(ctx);
    return 0;
}
