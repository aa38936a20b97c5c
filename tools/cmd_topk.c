/*
 * cmd_topk.c -- `gpusort topk FILE --type T -k K [--desc] [-o OUT] [--indices IDX]`: the K
 * smallest keys of a file of little-endian numbers (the K largest with --desc), in sorted
 * order, and optionally their positions in the file, computed by the library (gpusort_topk).
 *
 * The file streams through in pieces, so any size works in memory for K + one piece: each
 * piece is appended to the K best keys so far and the library's top-k of the two replaces
 * them. The best keys come first in that buffer and every one of them lies earlier in the file
 * than the piece, so the library's tie rule (lower index first) is the file's: the output is
 * exactly the first K of the file's stable sort, ties going to the earlier position. A
 * position in the buffer maps back to the file: below K it is a kept key's, else the piece's
 * start plus the offset.
 *
 * Outputs are written atomically (util.c), keys and indices both finished before either is
 * renamed into place. --backend auto falls back to the CPU if the GPU fails (cmd_opts.c).
 */
#include "binfile.h"
#include "cmd.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Keys per piece unless -S says less: large enough to keep a GPU busy. */
#define TOPK_PIECE_BYTES ((uint64_t)256 << 20)

static const char help_topk[] =
    "Usage: gpusort topk [FILE] --type T -k K [--desc] [-o OUT] [--indices IDX]\n"
    "                    [--index-type u32|u64] [--backend B] [--device N] [--stats]\n"
    "Write the K smallest keys of FILE (little-endian numbers of type T; none or - reads\n"
    "standard input) in ascending order; with --desc (-r), the K largest in descending order.\n"
    "Equal keys go to the earlier position in the file, so the result is the first K entries of\n"
    "the file's stable sort (deterministic, unlike torch.topk). Floats: NaN is the largest key.\n"
    "  -k K            how many keys (1 to the number of keys in FILE; 1e6, 2^20, 64M accepted)\n"
    "  -o OUT          the keys (default: standard output, unless it is a terminal)\n"
    "  --indices IDX   also write each key's position in FILE (0-based), as --index-type\n"
    "                  (default u64; u32 when the file has at most 2^32 keys)\n"
    "  -S SIZE         read FILE in pieces of at most SIZE bytes (default 256M); memory is\n"
    "                  about K * (key + 8 bytes) + the piece\n"
    "  --backend B     as for sort; auto (default) takes the GPU only for a file so large\n"
    "                  that the CPU's pass over it would cost more than the GPU's start-up\n"
    "                  and copies (several GiB with 16 threads, a few hundred MiB with 2)\n"
    "  --stats         time and keys/s on stderr\n"
    "  --sync          fsync the outputs before renaming them (see gpusort sort --help)\n"
    "Outputs appear only when complete (temporary files renamed into place).\n";

/* --backend auto weighs the selection alone (reading and writing cost the same either way),
 * u32 keys: a key and thread 5.7 ns on the CPU (two passes), 0.48 ns where memory bounds it,
 * 0.19 ns on the GPU with the copies (bench/results/topk-cpu-2026-11-28.md): the CPU selects
 * up to about 3 GiB of keys with 16 cores, 370 MiB with 2. Standard input keeps the library's
 * AUTO. */
#define TOPK_CPU_S_PER_KEY 5.7e-9
#define TOPK_CPU_S_PER_KEY_FLOOR 0.48e-9
#define TOPK_GPU_S_PER_KEY 0.19e-9

int gpusort_cli_topk(int argc, char **argv)
{
    const char *cmd = "topk";
    cmd_opts o;
    cmd_parse(argc, argv,
              "type k desc output indices index-type backend device threads stats verbose quiet "
              "buffer-size sync no-sync",
              1, &o);
    if (o.help) { fputs(help_topk, stdout); return 0; }
    if (!o.type_set) cli_fail("topk: --type is required (types: %s)", cmd_type_list);
    if (!o.k_set || o.k == 0) cli_fail("topk: -k K is required (K >= 1)");
    if (o.npos == 0) o.pos[o.npos++] = "-";
    gpusort_type it = o.value_type == GPUSORT_TYPE_NONE ? GPUSORT_TYPE_U64 : o.value_type;
    const char *tname = gpusort_type_name(o.type), *path = o.pos[0];
    const char *name = bin_is_stdio(path) ? "standard input" : path;
    size_t ks = gpusort_type_size(o.type), is = gpusort_type_size(it);
    if (o.k > SIZE_MAX / (ks + 8) / 2) cli_fail("topk: -k %" PRIu64 " is too large", o.k);
    size_t k = (size_t)o.k;
    bin_check_file_size(cmd, path, ks, tname);
    const char *out = bin_output_or_stdout(cmd, o.out);
    if (o.indices && (bin_is_stdio(o.indices) && bin_is_stdio(out)))
        cli_fail("topk: the keys and the indices cannot both go to standard output");

    int fd = bin_is_stdio(path) ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) cli_fail("topk: cannot open %s: %s", path, strerror(errno));
    struct stat st;
    uint64_t total = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    if (total && total / ks < o.k)
        cli_fail("topk: -k %" PRIu64 " is more than the %" PRIu64 " keys of %s", o.k, total / ks,
                 name);
    uint64_t piece_bytes = o.budget && o.budget < TOPK_PIECE_BYTES ? o.budget : TOPK_PIECE_BYTES;
    size_t piece = (size_t)(piece_bytes / ks);
    if (piece < 1) piece = 1;
    if (total && total / ks < piece) piece = (size_t)(total / ks);
    /* buf: the kept keys [0, kept) then the piece; best/best_idx: the library's output. */
    char *buf = cli_alloc((k + piece) * ks), *best = cli_alloc(k * ks);
    uint64_t *kept_idx = cli_alloc(k * 8), *best_idx = cli_alloc(k * 8);
    if (total && cli_auto_cpu_cost(o.backend, o.device, o.threads, (double)(total / ks),
                                   TOPK_CPU_S_PER_KEY, TOPK_CPU_S_PER_KEY_FLOOR,
                                   TOPK_GPU_S_PER_KEY))
        o.backend = GPUSORT_BACKEND_CPU;
    gpusort_ctx *ctx = cmd_make_ctx(cmd, &o);
    gpusort_order order = o.desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC;
    size_t kept = 0;
    uint64_t n = 0, done = 0;
    double secs = 0;
    for (;;) {
        cli_progress_start("reading", total);
        size_t len = bin_read_piece(cmd, fd, total != 0, buf + kept * ks, piece * ks, name,
                                    &done, gpusort_ctx_get_threads(ctx));
        cli_progress_end();
        if (len % ks)
            cli_fail("topk: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)",
                     name, done, ks, tname);
        size_t m = len / ks, all = kept + m, want = all < k ? all : k;
        if (m == 0) break;
        bin_to_from_le(buf + kept * ks, m, ks);
        double t0 = cli_now_s();
        gpusort_status s = gpusort_topk(ctx, o.type, GPUSORT_TYPE_U64, buf, all, want, best,
                                        best_idx, order, 0);
        if (cmd_fall_back_to_cpu(&ctx, s, o.backend, o.threads, "selecting"))
            s = gpusort_topk(ctx, o.type, GPUSORT_TYPE_U64, buf, all, want, best, best_idx, order,
                             0);
        secs += cli_now_s() - t0;
        if (s != GPUSORT_STATUS_SUCCESS) {
            char w[96];
            snprintf(w, sizeof w, "topk: the %s backend failed",
                     gpusort_backend_name(gpusort_ctx_get_backend(ctx)));
            cmd_fail_status(w, s, ctx);
        }
        for (size_t j = 0; j < want; j++)   /* buffer positions -> file positions */
            best_idx[j] = best_idx[j] < kept ? kept_idx[best_idx[j]] : n + (best_idx[j] - kept);
        memcpy(buf, best, want * ks);
        uint64_t *t = kept_idx;
        kept_idx = best_idx;
        best_idx = t;
        kept = want;
        n += m;
        if (len < piece * ks) break;
    }
    if (fd != STDIN_FILENO) close(fd);
    if (n < o.k)
        cli_fail("topk: -k %" PRIu64 " is more than the %" PRIu64 " keys of %s", o.k, n, name);
    if (it == GPUSORT_TYPE_U32 && n - 1 > UINT32_MAX)
        cli_fail("topk: %s has %" PRIu64 " keys: u32 indices cannot number them (use u64)", name, n);

    cli_out kout, iout;
    cli_out_open(&kout, out);
    if (o.indices) cli_out_open(&iout, o.indices);
    bin_write_elements(&kout, buf, k, ks);
    if (o.indices) {
        if (it == GPUSORT_TYPE_U32) {
            uint32_t *narrow = (uint32_t *)best_idx;   /* free now: reuse it */
            for (size_t j = 0; j < k; j++) narrow[j] = (uint32_t)kept_idx[j];
            bin_write_elements(&iout, narrow, k, is);
        } else {
            bin_write_elements(&iout, kept_idx, k, is);
        }
        cli_out_sync(&iout);
    }
    cli_out_sync(&kout);
    cli_out_commit(&kout);
    if (o.indices) cli_out_commit(&iout);
    if (o.stats) {
        char dev[256];
        fprintf(stderr,
                "top %zu of %" PRIu64 " %s keys with %s (%s) in %.6f s: %.1f Mkeys/s\n", k, n,
                tname, gpusort_backend_name(gpusort_ctx_get_backend(ctx)),
                cmd_device_used(ctx, dev, sizeof dev), secs,
                secs > 0 ? (double)n / secs / 1e6 : 0.0);
    }
    gpusort_ctx_free(ctx);
    free(buf);
    free(best);
    free(kept_idx);
    free(best_idx);
    return 0;
}
