/*
 * text_main.c -- the gpusort program's text mode: GNU sort compatible sorting of lines, the
 * driver (gpusort_cli_text_main, cli.h; text_context, text_check_readable, text_phase, text.h).
 *
 * For every supported option set (text_options.c) the output is byte-identical to GNU sort
 * with the same options in the same locale (text_locale.c); exit codes are GNU's (0, 1 for
 * -c/-C on unsorted input, 2 for errors).
 *
 * ORDER OF WORK
 *   parse options (text_parse_args) -> load the input (sort_text: whole, or in chunks;
 *   text_io.c) -> index the lines (text_index_lines) -> text_sort_lines (text_sort.c) ->
 *   text_write_lines; when the input does not fit the memory budget, each chunk is written as
 *   a run (extsort.h) and the runs are merged by extsort.c's k-way merge with text_line_cmp.
 *   -m merges the inputs directly (extsort_merge_paths); -c/-C stream one input (check_file);
 *   --record-size hands the options to records.c.
 *
 * MEMORY BUDGET: -S (GNU suffixes; a bare number is KiB, as in GNU sort), default
 * TEXT_DEFAULT_BUDGET_PERCENT of RAM. A chunk is cut when data + (text key ? data : 0) +
 * BYTES_PER_LINE * lines would pass the budget; reads are sized from the bytes per line seen so
 * far, so the peak stays near -S. Inputs that are regular files and fit are read whole with
 * parallel pread(2); others (pipes, larger inputs) in budget-sized steps.
 *
 * GPUSORT_TIMING=1 in the environment prints the wall and CPU time of each phase (read, index,
 * keys, compact, sort, ties, write, run, merge), the set-up before them and the freeing after,
 * on stderr.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "cli.h"
#include "extsort.h"
#include "text.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Bookkeeping per line during an in-memory sort: line start (8), sort key (8), sorted key (8),
 * permutation (8), the library's radix/string scratch (24), slack (8). */
#define BYTES_PER_LINE 64

/* ---- phase timing: GPUSORT_TIMING=1 prints where the time went (stderr) ---- */

static int timing_on = -1;
static double timing_last, timing_cpu_last;

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int text_timing_on(void)
{
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("GPUSORT_TIMING");
        on = e && *e && strcmp(e, "0") != 0;
    }
    return on;
}

void text_phase(const char *what)
{
    if (timing_on < 0) {
        timing_on = text_timing_on();
        /* The first interval, "setup", runs from main's start (cli_start_s: option parsing,
         * locale, the context and its threads). */
        timing_last = cli_start_s > 0 ? cli_start_s : cli_now_s();
        timing_cpu_last = 0;
        if (!what) what = "setup";
    }
    if (!timing_on) return;
    double t = cli_now_s(), c = cpu_s();
    if (what)
        fprintf(stderr, "gpusort: timing: %-8s %8.3f s wall %8.3f s cpu\n", what, t - timing_last,
                c - timing_cpu_last);
    timing_last = t;
    timing_cpu_last = c;
}

/* ---- the library context ---- */

gpusort_ctx *text_context(const text_opts *o)
{
    gpusort_ctx *ctx = NULL;
    gpusort_status s = gpusort_ctx_create(&ctx, o->backend, o->device);
    if (s)
        cli_fail("cannot use the %s backend: %s", gpusort_backend_name(o->backend),
                 gpusort_status_string(s));
    if (o->threads) gpusort_ctx_set_threads(ctx, o->threads);
    return ctx;
}

/* ---- sorting ---- */

/* Memory an in-memory sort of `bytes` of data in `lines` lines needs (a packed text key is a
 * second copy of the data). */
static uint64_t mem_needed(const tsort *t, uint64_t bytes, uint64_t lines)
{
    const tkey *k = t->nkeys ? &t->keys[0] : NULL;
    int image = k && (k->numeric || k->general || k->human || k->month);
    int packed = !image && ((k && !text_key_is_line(k)) || text_collate);
    /* A collation key's first level is about the size of its text (2 bytes per Latin letter
     * before the one-byte ranks; the slice buffers and the packed copy coexist briefly). */
    int factor = packed ? (text_collate ? 3 : 2) : 1;
    return bytes * (uint64_t)factor + lines * BYTES_PER_LINE;
}

static size_t count_delims(const uint8_t *p, size_t n, int delim)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += p[i] == (uint8_t)delim;
    return c;
}

/* Sort the text input (not -m, not -c). */
static void sort_text(tsort *t)
{
    cli_out out;
    int known;
    uint64_t total = text_inputs_size(t, &known);
    uint64_t budget = t->o.budget;
    /* Data bytes a chunk may hold: the budget less the per-line bookkeeping of short lines. */
    uint64_t chunk = budget / 2;
    if (chunk < ((uint64_t)64 << 10)) chunk = (uint64_t)64 << 10;
    if (chunk > (uint64_t)SIZE_MAX / 2) chunk = (uint64_t)SIZE_MAX / 2;

    text_input in;
    memset(&in, 0, sizeof in);
    in.t = t;
    in.fd = -1;
    extsort x;
    extsort_items items = {.delim = t->delim, .cmp = text_line_cmp, .arg = t, .unique = t->o.unique};
    extsort_init(&x, &items, t->o.tmpdirs, t->o.ntmpdirs, budget, t->o.fanin);
    int spilled = 0;

    /* The whole input in one go when its size is known and fits, with the line count estimated
     * from the first MiB of the first non-empty file (plus 10 %). */
    size_t want = (size_t)chunk;
    if (known && mem_needed(t, total, text_estimate_lines(t, total)) <= budget)
        want = (size_t)total + (size_t)t->o.nfiles;
    cli_progress_start("sorting", 0);
    text_phase(NULL);
    for (;;) {
        /* Fill in steps so that a chunk of tiny lines stops at the budget. */
        size_t lines = 0, scanned = 0;
        if (known && want == (size_t)total + (size_t)t->o.nfiles && in.len == 0 && !in.done)
            text_input_load_all(&in, want);
        for (; !in.done;) {
            size_t step = want;
            if (!(known && want == (size_t)total + (size_t)t->o.nfiles)) {
                /* Read only what the budget still has room for, at the bytes-per-line seen so
                 * far (8-byte lines assumed before any line has ended). */
                uint64_t used = mem_needed(t, in.len, lines);
                if (used >= budget && lines > 0) break;   /* no line yet: read on regardless */
                double per_byte = in.len && lines ? (double)used / (double)in.len
                                                  : (double)mem_needed(t, 8, 1) / 8.0;
                double add = (double)(budget - (used < budget ? used : budget)) / per_byte;
                if (add < 4096) add = 4096;
                if (lines == 0 && add < (double)in.len) add = (double)in.len;  /* long line: double */
                if (add > (double)((size_t)64 << 20)) add = (double)((size_t)64 << 20);
                if (in.len + (size_t)add < step) step = in.len + (size_t)add;
            }
            text_input_fill(&in, step);
            lines += count_delims(in.buf + scanned, in.len - scanned, t->delim);
            scanned = in.len;
            if (in.done || in.len >= want) break;
            if (mem_needed(t, in.len, lines) > budget) break;
        }
        /* Complete lines only: the tail after the last delimiter waits for the next chunk. */
        size_t end = in.len;
        while (end > 0 && in.buf[end - 1] != (uint8_t)t->delim) end--;
        if (end == 0 && !in.done) {            /* one line longer than the chunk: grow */
            want = in.len * 2 > want ? in.len * 2 : want;
            continue;
        }
        int last = in.done && end == in.len;
        lineset L;
        text_phase("read");
        text_index_lines(t, in.buf, end, &L);
        text_phase("index");
        uint64_t *perm = text_sort_lines(t, &L);
        if (last && !spilled) {
            cli_progress_end();
            cli_out_open(&out, t->o.outfile);
            text_debug_output(t, &out);
            ext_sink s;
            ext_sink_to_out(&s, &out);
            text_write_lines(t, &L, perm, &s);
            ext_sink_close(&s);
            text_phase("write");
            cli_out_commit(&out);
            text_phase("commit");
            free(perm);
            free(L.off);
            break;
        }
        ext_sink s;
        extsort_run_open(&x, &s);
        text_write_lines(t, &L, perm, &s);
        extsort_run_close(&x, &s);
        text_phase("run");
        spilled = 1;
        free(perm);
        free(L.off);
        /* Keep the partial line (original bytes: compaction only touched [0, end)). */
        memmove(in.buf, in.buf + end, in.len - end);
        in.len -= end;
        if (last) {
            cli_progress_end();
            cli_out_open(&out, t->o.outfile);
            text_debug_output(t, &out);
            extsort_finish(&x, &out);
            cli_out_commit(&out);
            text_phase("merge");
            break;
        }
        want = (size_t)chunk;
    }
    free(in.buf);
    extsort_free(&x);
}

/* ---- -c / -C ---- */

static int check_file(tsort *t)
{
    ext_reader r;
    ext_reader_open(&r, t->o.files[0], (size_t)1 << 20, 0, t->delim);
    const uint8_t *p;
    size_t len;
    ext_item_copy prev = {NULL, 0, 0};
    uint64_t line = 0;
    int rc = 0;
    while (ext_reader_next(&r, &p, &len)) {
        line++;
        if (prev.p) {
            int c = text_line_cmp(t, prev.p, prev.len, p, len);
            if (c > 0 || (t->o.unique && c == 0)) {
                if (t->o.check == 'c') {
                    fflush(stdout);
                    fprintf(stderr, "gpusort: %s:%llu: disorder: ", r.name,
                            (unsigned long long)line);
                    fwrite(p, 1, len, stderr);
                    fputc(t->delim, stderr);
                    fflush(stderr);
                }
                rc = 1;
                break;
            }
        }
        ext_item_copy_set(&prev, p, len);
    }
    free(prev.p);
    ext_reader_close(&r);
    return rc;
}

/* ---- the entry point ---- */

void text_check_readable(const text_opts *o)
{
    for (int i = 0; i < o->nfiles; i++)
        if (strcmp(o->files[i], "-") != 0 && access(o->files[i], R_OK) != 0)
            cli_fail("cannot read: %s: %s", o->files[i], strerror(errno));
}

int gpusort_cli_text_main(int argc, char **argv)
{
    tsort t;
    int rc = text_parse_args(argc, argv, &t);
    if (rc >= 0) {                  /* --help, --version */
        free(t.keys);
        free(t.o.files);
        free(t.o.tmpdirs);
        return rc;
    }
    rc = 0;
    if (t.debug && !t.o.record_size) text_debug_notes(&t);
    if (t.o.record_size) {
        rc = text_records_main(&t.o);
    } else if (t.o.check) {
        rc = check_file(&t);
    } else if (t.o.merge) {
        cli_out out;
        extsort x;
        extsort_items items = {.delim = t.delim, .cmp = text_line_cmp, .arg = &t,
                               .unique = t.o.unique};
        extsort_init(&x, &items, t.o.tmpdirs, t.o.ntmpdirs, t.o.budget, t.o.fanin);
        text_check_readable(&t.o);
        cli_out_open(&out, t.o.outfile);
        text_debug_output(&t, &out);
        extsort_merge_paths(&x, t.o.files, (size_t)t.o.nfiles, &out);
        cli_out_commit(&out);
        extsort_free(&x);
    } else {
        text_check_readable(&t.o);
        /* --backend auto starts on the CPU backend: a GPU context costs a few tenths of a
         * second to create and free, which the text mode's sorts seldom win back;
         * text_sort_lines creates one only when its cost model says it pays (text_sort.c,
         * pick_backend). */
        text_opts o = t.o;
        t.gpu_maybe = o.backend == GPUSORT_BACKEND_AUTO;
        if (t.gpu_maybe) o.backend = GPUSORT_BACKEND_CPU;
        t.ctx = text_context(&o);
        t.threads = gpusort_ctx_get_threads(t.ctx);
        sort_text(&t);
        gpusort_ctx_free(t.ctx);
        text_phase("free");
    }
    free(t.keys);
    free(t.o.files);
    free(t.o.tmpdirs);
    return rc;
}
