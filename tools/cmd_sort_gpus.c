/*
 * cmd_sort_gpus.c -- `gpusort sort IN --type T --gpus all|N [-o OUT] [-r] [--stats]`: one file
 * sorted by several GPUs of this host with gpusort_multi_sort (gpusort.h, "Several devices of
 * one host"). cmd_sort.c hands --gpus over here.
 *
 * The file is read into host memory and cut into N equal pieces; CUDA context g (on GPU g)
 * sorts piece g through its own host pipeline, all at once, and the library merges the sorted
 * pieces on the host (exact splits, the stable order of the whole: the output is byte-identical
 * to the one-GPU sort). So a file larger than one GPU's memory is sorted by all of them, each
 * holding its share. Memory: the file twice in host memory (the pieces and the merge's copy).
 * Keys only, in memory (no --values, no -S runs); the output is atomic as every sort's
 * (util.c's cli_out: a temporary file renamed into place, --sync for durability).
 */
#include "binfile.h"
#include "cmd.h"
#include "util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

int gpusort_cli_sort_gpus(const cmd_opts *o, const char *in)
{
    const char *cmd = "sort";
    if (o->values) cli_fail("sort: --gpus sorts keys only (no --values)");
    if (o->backend_set && o->backend != GPUSORT_BACKEND_CUDA)
        cli_fail("sort: --gpus uses CUDA GPUs (drop --backend %s)",
                 gpusort_backend_name(o->backend));
    if (o->device >= 0) cli_fail("sort: --gpus and --device exclude each other");
    int have = 0;
    if (!gpusort_backend_built(GPUSORT_BACKEND_CUDA))
        cli_fail("sort: --gpus: this gpusort was built without CUDA");
    if (gpusort_device_get_count(GPUSORT_BACKEND_CUDA, &have) || have == 0)
        cli_fail("sort: --gpus: no CUDA GPU found (gpusort devices lists what there is)");
    int G = o->gpus < 0 ? have : o->gpus;
    if (G > have) cli_fail("sort: --gpus %d: this machine has %d CUDA GPU%s", G, have,
                           have == 1 ? "" : "s");
    const char *out = bin_output_or_stdout(cmd, o->out);
    size_t ksize = gpusort_type_size(o->type);
    const char *tname = gpusort_type_name(o->type);
    double t0 = cli_now_s();
    bin_check_file_size(cmd, in, ksize, tname);

    gpusort_ctx **ctxs = cli_alloc((size_t)G * sizeof *ctxs);
    void **piece = cli_alloc((size_t)G * sizeof *piece);
    size_t *count = cli_alloc((size_t)G * sizeof *count);
    for (int g = 0; g < G; g++) {
        gpusort_status s = gpusort_ctx_create(&ctxs[g], GPUSORT_BACKEND_CUDA, g);
        if (s) cli_fail("sort: --gpus: GPU %d: %s", g, gpusort_status_string(s));
        if (o->threads) gpusort_ctx_set_threads(ctxs[g], o->threads);
    }
    double t_ctx = cli_now_s();

    size_t n = 0;
    uint8_t *keys = bin_read_elements(cmd, in, ksize, tname, &n);
    double t_read = cli_now_s();
    for (int g = 0; g < G; g++) {
        size_t lo = n * (size_t)g / (size_t)G, hi = n * (size_t)(g + 1) / (size_t)G;
        piece[g] = keys + lo * ksize;
        count[g] = hi - lo;
    }
    gpusort_status s = gpusort_multi_sort(ctxs, G, o->type, piece, count,
                                          o->desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, 0);
    if (s) cli_fail("sort: --gpus %d: %s: %s", G, gpusort_status_string(s),
                    gpusort_ctx_get_last_error(ctxs[0]));
    double t_sort = cli_now_s();
    gpusort_multi_times tm;
    gpusort_multi_get_last_times(&tm);

    cli_out kout;
    cli_out_open(&kout, out);
    bin_write_elements(&kout, keys, n, ksize);
    double t_write = cli_now_s();
    cli_out_commit(&kout);
    double t_end = cli_now_s();
    if (o->stats) {
        fprintf(stderr,
                "sorted %zu %s keys on %d GPUs in %.6f s: %.1f Mkeys/s (the library call; "
                "phases: local sorts %.3f, split %.3f, merge %.3f; %.1f MB changed GPU)\n",
                n, tname, G, t_sort - t_read, n / (t_sort - t_read + 1e-12) / 1e6,
                tm.local_sort_s, tm.split_s, tm.merge_s, tm.moved_bytes / 1e6);
        cli_phase ph[] = {{"start-up", t_ctx - t0, NULL}, {"read", t_read - t_ctx, NULL},
                          {"sort", t_sort - t_read, NULL}, {"write", t_write - t_sort, NULL},
                          {"sync", t_end - t_write, NULL}};
        cli_stats_phases("sort", ph, (int)(sizeof ph / sizeof *ph), t_end - cli_start_s);
    }
    for (int g = 0; g < G; g++) gpusort_ctx_free(ctxs[g]);
    free(keys);
    free(ctxs);
    free(piece);
    free(count);
    return 0;
}
