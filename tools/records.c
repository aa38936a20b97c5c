/*
 * records.c -- fixed-size binary records: sort, merge and check by a byte-string key, and a
 * generator of Sort Benchmark (gensort) style data.
 *
 * Exports (cli.h, text.h):
 *   text_records_main(opts)          `gpusort --record-size R --key-size K [--key-offset O]
 *                                    [-r] [-u] [-m] [-c|-C] [-S SIZE] [-T DIR] [-o OUT] FILE...`
 *   gpusort_cli_records_gen()        `gpusort gen --record-size R --n N [--key-size K]
 *                                    [--seed S] [--ascii] -o FILE`
 *   gpusort_cli_records_check()      `gpusort check --record-size R --key-size K
 *                                    [--key-offset O] [-r] [-u] FILE`   (exit 0 sorted, 1 not)
 *
 * Order: records compare by memcmp of record[O, O+K); ties keep their input order (stable); -r
 * reverses (still stable); -u keeps the first record of each group of equal keys.
 *
 * Sorting: inputs that fit the memory budget (-S) are read whole; the keys are packed and
 * sorted by the library (gpusort_sort_records on the --backend context: the GPU when present)
 * with their permutation, and the records are gathered into the output in that order, so they
 * never move in memory. Larger inputs are cut into chunks of whole records, each sorted the same
 * way and written as a run; the runs are merged by extsort.c. A chunk needs its own size plus
 * K + 8 bytes per record (packed key, permutation) plus the library's 24 per record, and two
 * 64 Ki-record output slices: a chunk holds about budget / (1 + (K + 40) / R) bytes.
 *
 * gensort format (the Sort Benchmark, sortbenchmark.org): 100-byte records, 10-byte key at
 * offset 0. Binary records (default): key = K random bytes; then the record number as 16 hex
 * digits; then filler letters; "\r\n" at the end when R >= K + 18. --ascii keys use the 95
 * printable characters, as `gensort -a` does.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli.h"
#include "extsort.h"
#include "text.h"
#include "util.h"

#include "gpusort.h"
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct rec_cmp_arg {
    size_t ko, ks;
    int reverse;
} rec_cmp_arg;

static int rec_cmp(void *arg, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    const rec_cmp_arg *r = (const rec_cmp_arg *)arg;
    int c = memcmp(a + r->ko, b + r->ko, r->ks);
    return r->reverse ? -c : c;
}

static void check_layout(const text_opts *o)
{
    if (o->key_offset > o->record_size || o->key_size > o->record_size - o->key_offset)
        cli_fail("the key [%zu, %zu) does not fit in a record of %zu bytes", o->key_offset,
                 o->key_offset + o->key_size, o->record_size);
}

/* Exit 0 if the file is in order, 1 (with a message for 'c') if not. */
static int records_check(const text_opts *o, rec_cmp_arg *ra)
{
    ext_reader r;
    ext_reader_open(&r, o->files[0], (size_t)4 << 20, o->record_size, 0);
    uint8_t *prev = (uint8_t *)gpusort__malloc(o->record_size);
    if (!prev) cli_fail("out of memory");
    const uint8_t *p;
    size_t len;
    uint64_t i = 0;
    int rc = 0;
    while (ext_reader_next(&r, &p, &len)) {
        if (i > 0) {
            int c = rec_cmp(ra, prev, len, p, len);
            if (c > 0 || (o->unique && c == 0)) {
                if (o->check == 'c')
                    fprintf(stderr, "gpusort: %s: disorder at record %llu (byte offset %llu)\n",
                            r.name, (unsigned long long)i,
                            (unsigned long long)(i * o->record_size));
                rc = 1;
                break;
            }
        }
        memcpy(prev, p, len);
        i++;
    }
    free(prev);
    ext_reader_close(&r);
    return rc;
}

/* Read up to `want` bytes of the inputs (in order) into buf; returns the bytes read. */
typedef struct rin {
    const text_opts *o;
    int file, fd;
    const char *name;
    uint64_t file_bytes;
} rin;

static size_t rin_read(rin *in, uint8_t *buf, size_t want)
{
    size_t got = 0;
    while (got < want) {
        if (in->fd < 0) {
            if (in->file >= in->o->nfiles) break;
            const char *f = in->o->files[in->file++];
            in->name = f;
            in->fd = strcmp(f, "-") == 0 ? STDIN_FILENO : open(f, O_RDONLY | O_CLOEXEC);
            if (in->fd < 0) cli_fail("cannot read: %s: %s", f, strerror(errno));
            in->file_bytes = 0;
        }
        size_t room = want - got;
        if (room > ((size_t)256 << 20)) room = (size_t)256 << 20;
        ssize_t r = read(in->fd, buf + got, room);
        if (r < 0) {
            if (errno == EINTR) continue;
            cli_fail("read failed: %s: %s", in->name, strerror(errno));
        }
        if (r == 0) {
            if (in->file_bytes % in->o->record_size)
                cli_fail("%s: the size %llu is not a multiple of the record size %zu", in->name,
                         (unsigned long long)in->file_bytes, in->o->record_size);
            if (in->fd != STDIN_FILENO) close(in->fd);
            in->fd = -1;
            continue;
        }
        got += (size_t)r;
        in->file_bytes += (uint64_t)r;
    }
    return got;
}

/* Sort one chunk of n records: the keys are packed (n * K bytes) and sorted by the library with
 * their permutation; the records themselves never move in memory, they are gathered into the
 * output in order (parallel slices, prefetching ahead: the reads are random). */
#define GATHER_SLICE ((size_t)1 << 16)        /* records per thread per round */

typedef struct gather_job {
    const text_opts *o;
    rec_cmp_arg *ra;
    const uint8_t *rec;
    const uint64_t *perm;
    uint8_t *keys;                            /* packing: destination */
    size_t n;
    int parts;
} gather_job;

static void pack_task(void *arg, size_t i)
{
    gather_job *j = (gather_job *)arg;
    size_t a = j->n * i / (size_t)j->parts, b = j->n * (i + 1) / (size_t)j->parts;
    size_t rs = j->o->record_size, ks = j->o->key_size, ko = j->o->key_offset;
    for (size_t x = a; x < b; x++) memcpy(j->keys + x * ks, j->rec + x * rs + ko, ks);
}

static void pack_task_all(gather_job *j)
{
    gpusort__cpu_parallel_for(j->parts, (size_t)j->parts, pack_task, j);
}

/* Records [a, b) of the sorted order into out (ext_sink_gather). */
static void gather_slice(void *arg, size_t a, size_t b, ext_out_buf *out)
{
    const gather_job *j = (const gather_job *)arg;
    size_t rs = j->o->record_size, len = 0;
    ext_out_reserve(out, (b - a) * rs);
    for (size_t k = a; k < b; k++) {
        if (k + 8 < b) __builtin_prefetch(j->rec + j->perm[k + 8] * rs);
        const uint8_t *r = j->rec + j->perm[k] * rs;
        if (j->o->unique && k > 0 && rec_cmp(j->ra, j->rec + j->perm[k - 1] * rs, rs, r, rs) == 0)
            continue;
        memcpy(out->p + len, r, rs);
        len += rs;
    }
    out->len = len;
}

/* GPUSORT_TIMING=1 (text_timing_on): seconds of each phase of the job, one line on stderr,
 * printed by text_records_main. */
enum { RP_STARTUP, RP_READ, RP_KEYS, RP_SORT, RP_WRITE, RP_MERGE, RP_SYNC, RP_COUNT };
static double rec_phase[RP_COUNT];

static void rec_stats(int spilled)
{
    static const char *const names[RP_COUNT] = {"start-up", "read", "keys", "sort", "write",
                                                "merge", "sync"};
    if (!text_timing_on()) return;
    cli_phase ph[RP_COUNT];
    for (int i = 0; i < RP_COUNT; i++)
        ph[i] = (cli_phase){names[i], i == RP_MERGE && !spilled ? -1 : rec_phase[i], NULL};
    cli_stats_phases("records", ph, RP_COUNT, cli_now_s() - cli_start_s);
}

static void sort_chunk(const text_opts *o, rec_cmp_arg *ra, gpusort_ctx **ctxp,
                       const uint8_t *rec, size_t n, ext_sink *s)
{
    double t0 = cli_now_s(), t1;
    gpusort_ctx *ctx = *ctxp;
    size_t ks = o->key_size;
    int threads = gpusort_ctx_get_threads(ctx);
    gather_job j = {o, ra, rec, NULL, NULL, n, n < 65536 ? 1 : threads};
    uint64_t *perm = (uint64_t *)ext_big_alloc((n ? n : 1) * sizeof *perm);
    if (ks == 0) {
        for (size_t i = 0; i < n; i++) perm[i] = i;
    } else {
        j.keys = (uint8_t *)gpusort__malloc(n * ks);
        if (!j.keys) cli_fail("out of memory: %zu bytes of keys", n * ks);
        pack_task_all(&j);
        t1 = cli_now_s();
        rec_phase[RP_KEYS] += t1 - t0;
        t0 = t1;
        gpusort_order order = o->reverse ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC;
        gpusort_status st = gpusort_sort_records(ctx, GPUSORT_TYPE_U64, j.keys, n, ks, 0, ks, j.keys, perm, order, 0);
        if (st && st != GPUSORT_STATUS_INVALID_ARGUMENT && o->backend == GPUSORT_BACKEND_AUTO &&
            gpusort_ctx_get_backend(ctx) != GPUSORT_BACKEND_CPU) {
            /* A GPU that --backend auto picked failed (e.g. device memory): the CPU retries,
             * on keys packed again in case the failed call had moved some. */
            text_opts cpu = *o;
            cpu.backend = GPUSORT_BACKEND_CPU;
            gpusort_ctx_free(ctx);
            *ctxp = ctx = text_context(&cpu);
            pack_task_all(&j);
            st = gpusort_sort_records(ctx, GPUSORT_TYPE_U64, j.keys, n, ks, 0, ks, j.keys, perm, order, 0);
        }
        if (st)
            cli_fail("record sort failed: %s (%s)", gpusort_status_string(st),
                     gpusort_ctx_get_last_error(ctx));
        free(j.keys);
    }
    t1 = cli_now_s();
    rec_phase[RP_SORT] += t1 - t0;
    j.perm = perm;
    ext_sink_gather(s, n, GATHER_SLICE, j.parts, gather_slice, &j);
    rec_phase[RP_WRITE] += cli_now_s() - t1;
    free(perm);
}

/* --backend auto weighs the sort alone (reading, packing the keys, permuting and writing run on
 * the CPU either way), 10-byte keys: a record and thread 100 ns on the CPU, 14 ns where memory
 * bounds it, 9 ns on the GPU with the copies (bench/results/records-2026-11-28.md): the CPU
 * sorts up to about 50M records with 16 cores, 6M with 2. */
#define REC_CPU_S_PER_RECORD 100e-9
#define REC_CPU_S_PER_RECORD_FLOOR 14e-9
#define REC_GPU_S_PER_RECORD 9e-9

int text_records_main(const text_opts *o)
{
    check_layout(o);
    rec_cmp_arg ra = {o->key_offset, o->key_size, o->reverse};
    if (o->check) return records_check(o, &ra);
    extsort_items items = {.record_size = o->record_size, .cmp = rec_cmp, .arg = &ra,
                           .unique = o->unique};
    extsort x;
    extsort_init(&x, &items, o->tmpdirs, o->ntmpdirs, o->budget, o->fanin);
    cli_out out;
    if (o->merge) {
        cli_out_open(&out, o->outfile);
        extsort_merge_paths(&x, o->files, (size_t)o->nfiles, &out);
        cli_out_commit(&out);
        extsort_free(&x);
        return 0;
    }
    text_check_readable(o);

    size_t rs = o->record_size;
    uint64_t chunk = (uint64_t)((long double)o->budget /
                                (1.0L + ((long double)o->key_size + 40.0L) / (long double)rs));
    chunk -= chunk % rs;
    if (chunk < rs * 1024) chunk = rs * 1024;
    /* Known total that fits: one buffer of exactly that size. */
    uint64_t total = 0;
    int known = 1;
    for (int i = 0; i < o->nfiles; i++) {
        struct stat st;
        if (strcmp(o->files[i], "-") == 0 || stat(o->files[i], &st) != 0 || !S_ISREG(st.st_mode))
            known = 0;
        else
            total += (uint64_t)st.st_size;
    }
    size_t cap = (size_t)(known && total <= chunk ? (total ? total : rs) : chunk);
    uint8_t *buf = (uint8_t *)ext_big_alloc(cap);

    /* --backend auto: the CPU where its sort costs less than a GPU's start-up and sort. */
    text_opts small = *o;
    if (known && (cli_auto_cpu(o->backend, o->device, total, o->threads) ||
                  cli_auto_cpu_cost(o->backend, o->device, o->threads,
                                    (double)total / (double)rs, REC_CPU_S_PER_RECORD,
                                    REC_CPU_S_PER_RECORD_FLOOR, REC_GPU_S_PER_RECORD)))
        small.backend = GPUSORT_BACKEND_CPU;
    double t0 = cli_now_s();
    gpusort_ctx *ctx = text_context(&small);
    rec_phase[RP_STARTUP] += cli_now_s() - t0;
    rin in = {o, 0, -1, NULL, 0};
    int spilled = 0;
    cli_progress_start("sorting", 0);
    if (known && total <= chunk && o->nfiles == 1 && total >= ((uint64_t)16 << 20)) {
        /* One regular file that fits: all threads read it (parallel pread). */
        t0 = cli_now_s();
        int fd = open(o->files[0], O_RDONLY | O_CLOEXEC);
        if (fd < 0) cli_fail("cannot read: %s: %s", o->files[0], strerror(errno));
        size_t got = ext_read_parallel(fd, buf, (size_t)total, gpusort_ctx_get_threads(ctx),
                                       o->files[0]);
        close(fd);
        rec_phase[RP_READ] += cli_now_s() - t0;
        if (got % rs)
            cli_fail("%s: the size %zu is not a multiple of the record size %zu", o->files[0],
                     got, rs);
        cli_progress_end();
        cli_out_open(&out, o->outfile);
        if (!o->unique) cli_out_reserve(&out, got);     /* the output has the input's size */
        ext_sink sk;
        ext_sink_to_out(&sk, &out);
        sort_chunk(o, &ra, &ctx, buf, got / rs, &sk);
        t0 = cli_now_s();
        ext_sink_close(&sk);
        rec_phase[RP_WRITE] += cli_now_s() - t0;
        t0 = cli_now_s();
        cli_out_commit(&out);
        rec_phase[RP_SYNC] += cli_now_s() - t0;
        rec_stats(0);
        free(buf);
        gpusort_ctx_free(ctx);
        extsort_free(&x);
        return 0;
    }
    int pending = -1;                    /* a byte read ahead to detect the end */
    for (;;) {
        size_t got = 0;
        if (pending >= 0) buf[got++] = (uint8_t)pending;
        t0 = cli_now_s();
        got += rin_read(&in, buf + got, cap - got);
        rec_phase[RP_READ] += cli_now_s() - t0;
        pending = -1;
        size_t n = got / rs;
        if (got % rs) {
            free(buf);
            cli_fail("%s: the input is not a multiple of the record size %zu",
                     in.name ? in.name : "-", rs);
        }
        int last = got < cap;
        if (!last) {                     /* exactly full: is anything left? */
            uint8_t probe;
            if (rin_read(&in, &probe, 1) == 1) pending = probe;
            else last = 1;
        }
        if (last && !spilled) {
            cli_progress_end();
            cli_out_open(&out, o->outfile);
            ext_sink sk;
            ext_sink_to_out(&sk, &out);
            sort_chunk(o, &ra, &ctx, buf, n, &sk);
            t0 = cli_now_s();
            ext_sink_close(&sk);
            rec_phase[RP_WRITE] += cli_now_s() - t0;
            t0 = cli_now_s();
            cli_out_commit(&out);
            rec_phase[RP_SYNC] += cli_now_s() - t0;
            rec_stats(0);
            break;
        }
        if (n) {
            ext_sink sk;
            extsort_run_open(&x, &sk);
            sort_chunk(o, &ra, &ctx, buf, n, &sk);
            extsort_run_close(&x, &sk);
        }
        spilled = 1;
        if (last) {
            cli_progress_end();
            cli_out_open(&out, o->outfile);
            t0 = cli_now_s();
            extsort_finish(&x, &out);
            rec_phase[RP_MERGE] += cli_now_s() - t0;
            t0 = cli_now_s();
            cli_out_commit(&out);
            rec_phase[RP_SYNC] += cli_now_s() - t0;
            rec_stats(1);
            break;
        }
    }
    free(buf);
    gpusort_ctx_free(ctx);
    extsort_free(&x);
    return 0;
}

/* ---- gen and check subcommands ---- */

static const char usage_gen[] =
    "Usage: gpusort gen --record-size R --n N [--key-size K] [--seed S] [--ascii] -o FILE\n"
    "Generate N records of R bytes whose first K bytes (default 10) are a random key, like the\n"
    "Sort Benchmark's gensort (R=100, K=10); --ascii: printable keys as gensort -a.\n";

static const char usage_check[] =
    "Usage: gpusort check --record-size R --key-size K [--key-offset O] [-r] [-u] FILE\n"
    "Exit 0 if the records are in key order (memcmp of bytes [O, O+K)), 1 if not.\n";

/* Options "--name=V" or "--name V"; returns the value or NULL. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t l = strlen(name);
    if (strncmp(argv[*i], name, l) != 0) return NULL;
    if (argv[*i][l] == '=') return argv[*i] + l + 1;
    if (argv[*i][l] != 0) return NULL;
    if (*i + 1 >= argc) cli_fail("option %s needs a value", name);
    return argv[++*i];
}

static uint64_t count_arg(const char *name, const char *v)
{
    uint64_t x;
    if (cli_parse_count(v, &x) != 0) cli_fail("invalid %s '%s'", name, v);
    return x;
}

int gpusort_cli_records_gen(int argc, char **argv)
{
    uint64_t rs = 0, n = 0, ks = 10, seed = 1;
    int have_n = 0, have_ks = 0, ascii = 0;
    const char *outp = NULL, *v;
    for (int i = 1; i < argc; i++) {
        if ((v = opt_value(argc, argv, &i, "--record-size"))) rs = count_arg("--record-size", v);
        else if ((v = opt_value(argc, argv, &i, "--n"))) { n = count_arg("--n", v); have_n = 1; }
        else if ((v = opt_value(argc, argv, &i, "--key-size"))) {
            ks = count_arg("--key-size", v);
            have_ks = 1;
        }
        else if ((v = opt_value(argc, argv, &i, "--seed"))) seed = count_arg("--seed", v);
        else if ((v = opt_value(argc, argv, &i, "-o")) || (v = opt_value(argc, argv, &i, "--output")))
            outp = v;
        else if (strcmp(argv[i], "--ascii") == 0) ascii = 1;
        else if (strcmp(argv[i], "--quiet") == 0) cli_quiet = 1;
        else if (strcmp(argv[i], "--help") == 0) { fputs(usage_gen, stdout); return 0; }
        else cli_fail("gen: unknown option '%s'\n%s", argv[i], usage_gen);
    }
    if (!rs || !have_n || !outp) cli_fail("gen: --record-size, --n and -o are required");
    if (!have_ks && ks > rs) ks = rs;               /* default key: 10 bytes or the record */
    if (ks > rs) cli_fail("gen: --key-size %llu is larger than the record", (unsigned long long)ks);
    cli_out out;
    cli_out_open(&out, outp);
    size_t per = ((size_t)4 << 20) / rs + 1;
    uint8_t *buf = (uint8_t *)gpusort__malloc(per * rs);
    if (!buf) cli_fail("out of memory");
    uint64_t st = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    static const char hex[] = "0123456789ABCDEF";
    cli_progress_start("generating", n);
    for (uint64_t done = 0; done < n;) {
        size_t m = n - done < per ? (size_t)(n - done) : per;
        for (size_t r = 0; r < m; r++) {
            uint8_t *p = buf + r * rs;
            uint64_t row = done + r;
            for (size_t k = 0; k < ks; k++) {
                st ^= st << 13;
                st ^= st >> 7;
                st ^= st << 17;
                uint64_t z = st * 0x2545F4914F6CDD1Dull >> 32;
                p[k] = ascii ? (uint8_t)(' ' + z % 95) : (uint8_t)z;
            }
            size_t q = ks;
            for (int d = 15; d >= 0 && q < rs; d--) p[q++] = (uint8_t)hex[(row >> (4 * d)) & 15];
            while (q < rs) { p[q] = (uint8_t)('A' + (row + q) % 26); q++; }
            if (rs >= ks + 18) { p[rs - 2] = '\r'; p[rs - 1] = '\n'; }
        }
        cli_out_write(&out, buf, m * rs);
        done += m;
        cli_progress_update(done);
    }
    cli_progress_end();
    free(buf);
    cli_out_commit(&out);
    return 0;
}

int gpusort_cli_records_check(int argc, char **argv)
{
    text_opts o;
    memset(&o, 0, sizeof o);
    o.check = 'c';
    const char *file = NULL, *v;
    for (int i = 1; i < argc; i++) {
        if ((v = opt_value(argc, argv, &i, "--record-size")))
            o.record_size = (size_t)count_arg("--record-size", v);
        else if ((v = opt_value(argc, argv, &i, "--key-size")))
            o.key_size = (size_t)count_arg("--key-size", v);
        else if ((v = opt_value(argc, argv, &i, "--key-offset")))
            o.key_offset = (size_t)count_arg("--key-offset", v);
        else if (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--reverse") == 0 ||
                 strcmp(argv[i], "--desc") == 0) o.reverse = 1;
        else if (strcmp(argv[i], "-u") == 0 || strcmp(argv[i], "--unique") == 0) o.unique = 1;
        else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) o.check = 'C';
        else if (strcmp(argv[i], "--help") == 0) { fputs(usage_check, stdout); return 0; }
        else if (argv[i][0] == '-' && argv[i][1]) cli_fail("check: unknown option '%s'", argv[i]);
        else if (file) cli_fail("check: one file at a time ('%s' and '%s')", file, argv[i]);
        else file = argv[i];
    }
    if (!o.record_size) cli_fail("check: --record-size must be at least 1");
    char *files[1] = {(char *)(file ? file : "-")};
    o.files = files;
    o.nfiles = 1;
    return text_records_main(&o);
}
