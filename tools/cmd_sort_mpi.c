/*
 * cmd_sort_mpi.c -- `mpirun -np P gpusort sort IN --type T -o OUT --mpi`: one file sorted by P
 * ranks with the distributed sort (include/gpusort_mpi.h). Compiled only when MPI is found;
 * cmd_sort.c hands --mpi over here.
 *
 * Every rank: reads its share of IN's elements (rank r: [N*r/P, N*(r+1)/P), pread), sorts with
 * gpusort_mpi_sort on its own context (--backend/--device/--threads as for sort; each rank
 * picks its device as --device, or the rank's index within its host modulo the device count
 * when --device is not given), and writes its slice of the result (the same positions: the
 * library gives each rank back its input count) with pwrite into ONE temporary file that rank
 * 0 created next to OUT. After every rank has written and synced its slice, rank 0 renames the
 * file into place: atomic as the single-process sort (util.c's cli_out).
 *
 * Faults: a rank that fails (cannot read, bad size, out of memory, a device error) tells the
 * others at the next agreement (an allreduce of the ranks' states); then every rank exits 2,
 * rank 0 removes the temporary file, and OUT is untouched. The lowest rank that failed prints
 * one line (for a library error that is rank 0, whose message names the rank at fault). Keys only, in memory (no --values, no -S runs), a named
 * input file and a named output (not standard input/output).
 */
#include "binfile.h"
#include "cmd.h"
#include "gpusort_mpi.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One rank's run of the command. */
typedef struct mpi_sort {
    int rank, P;
    int failed;          /* this rank failed a step */
    char msg[1024];      /* why */
    cli_out out;         /* rank 0: the temporary output */
    int out_open;
} mpi_sort;

static void rank_fail(mpi_sort *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rank_fail(mpi_sort *m, const char *fmt, ...)
{
    if (m->failed) return;
    m->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->msg, sizeof m->msg, fmt, ap);
    va_end(ap);
}

/* All ranks agree whether every rank is fine; when not, the lowest failing rank prints its
 * one line (the same input problem would otherwise be told P times) and all leave with exit
 * code 2 (rank 0 removes the temporary output first). */
static void agree_or_exit(mpi_sort *m)
{
    int mine = m->failed ? m->rank : m->P, first = 0;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == m->P) return;
    if (first == m->rank && m->msg[0]) {
        if (m->P > 1 && m->rank) fprintf(stderr, "gpusort: sort: rank %d: %s\n", m->rank, m->msg);
        else fprintf(stderr, "gpusort: sort: %s\n", m->msg);
    }
    if (m->out_open) cli_out_abort(&m->out);
    MPI_Finalize();
    exit(2);
}

static int pio_full(int fd, void *buf, size_t len, uint64_t off, int write_)
{
    size_t done = 0;
    while (done < len) {
        ssize_t r = write_ ? pwrite(fd, (char *)buf + done, len - done, (off_t)(off + done))
                           : pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        done += (size_t)r;
    }
    return 0;
}

/* The checks cli_out_open would fail on, as a message instead of an exit (the other ranks
 * must hear of it). */
static int output_problem(const char *path, char *msg, size_t size)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return snprintf(msg, size, "cannot write %s: is a directory", path);
        if (!S_ISREG(st.st_mode))
            return snprintf(msg, size, "--mpi writes regular files only: %s is not one", path);
        if (access(path, W_OK) != 0)
            return snprintf(msg, size, "cannot write %s: %s", path, strerror(errno));
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    if (access(dir, W_OK | X_OK) != 0)
        return snprintf(msg, size, "cannot create a file in %s: %s", dir, strerror(errno));
    return 0;
}

int gpusort_cli_sort_mpi(const cmd_opts *o, const char *in)
{
    mpi_sort m = {0};
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &m.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m.P);
    size_t ksize = gpusort_type_size(o->type);
    const char *tname = gpusort_type_name(o->type);

    /* Options (the same on every rank; rank 0 says what is wrong). */
    const char *bad = NULL;
    if (o->values) bad = "--mpi sorts keys only (no --values)";
    else if (bin_is_stdio(in)) bad = "--mpi needs a named input file (not standard input)";
    else if (!o->out || bin_is_stdio(o->out)) bad = "--mpi needs -o FILE (not standard output)";
    if (bad) rank_fail(&m, "%s", bad);
    agree_or_exit(&m);

    /* The input's size and this rank's share; rank 0 checks the output's folder. */
    int fd = open(in, O_RDONLY | O_CLOEXEC);
    struct stat st;
    uint64_t N = 0, first = 0, n = 0;
    if (fd < 0) rank_fail(&m, "cannot open %s: %s", in, strerror(errno));
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        rank_fail(&m, "--mpi needs a regular input file: %s is not one", in);
    else if ((uint64_t)st.st_size % ksize)
        rank_fail(&m, "%s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)", in,
                  (uint64_t)st.st_size, ksize, tname);
    else {
        N = (uint64_t)st.st_size / ksize;
        first = N * (uint64_t)m.rank / (uint64_t)m.P;
        n = N * (uint64_t)(m.rank + 1) / (uint64_t)m.P - first;
    }
    char msg[1024];
    if (m.rank == 0 && output_problem(o->out, msg, sizeof msg)) rank_fail(&m, "%s", msg);

    /* This rank's context: --device, or the rank's place on its host spread over the GPUs. */
    gpusort_ctx *ctx = NULL;
    int device = o->device;
    if (device < 0 && o->backend != GPUSORT_BACKEND_CPU) {
        MPI_Comm host;
        int local = 0, count = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
        MPI_Comm_rank(host, &local);
        MPI_Comm_free(&host);
        gpusort_backend b = o->backend == GPUSORT_BACKEND_AUTO ? GPUSORT_BACKEND_CUDA : o->backend;
        if (gpusort_device_get_count(b, &count) == GPUSORT_STATUS_SUCCESS && count > 0)
            device = local % count;
    }
    gpusort_status s = gpusort_ctx_create(&ctx, o->backend, device);
    if (s && o->backend == GPUSORT_BACKEND_AUTO)     /* a device index CUDA had, OpenCL may not */
        s = gpusort_ctx_create(&ctx, o->backend, -1);
    if (s) rank_fail(&m, "cannot start the %s backend: %s", gpusort_backend_name(o->backend),
                     gpusort_status_string(s));
    else if (o->threads && gpusort_ctx_set_threads(ctx, o->threads))
        rank_fail(&m, "--threads %d refused", o->threads);
    void *buf = malloc(n ? (size_t)(n * ksize) : 1);
    if (!buf) rank_fail(&m, "out of memory: %" PRIu64 " bytes for this rank's share", n * ksize);
    agree_or_exit(&m);

    /* Rank 0 creates the temporary output; every rank learns its name. */
    char tmp[4096] = "";
    if (m.rank == 0) {
        cli_out_open(&m.out, o->out);
        m.out_open = 1;
        snprintf(tmp, sizeof tmp, "%s", m.out.tmp);
    }
    MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, 0, MPI_COMM_WORLD);

    /* Read, sort, write this rank's slice. */
    double t0 = MPI_Wtime();
    if (n && pio_full(fd, buf, n * ksize, first * ksize, 0))
        rank_fail(&m, "read error on %s: %s", in, strerror(errno ? errno : EIO));
    close(fd);
    agree_or_exit(&m);
    bin_to_from_le(buf, n, ksize);
    double t1 = MPI_Wtime();
    s = gpusort_mpi_sort(ctx, MPI_COMM_WORLD, o->type, buf, n, buf,
                         o->desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, 0);
    double t2 = MPI_Wtime();
    if (s)     /* every rank has the error; rank 0 says it (its message names the rank) */
        rank_fail(&m, "the distributed sort failed: %s: %s", gpusort_status_string(s),
                  gpusort_mpi_get_last_error());
    agree_or_exit(&m);
    bin_to_from_le(buf, n, ksize);
    int wfd = m.rank == 0 ? fileno(m.out.f) : open(tmp, O_WRONLY | O_CLOEXEC);
    if (wfd < 0) rank_fail(&m, "cannot open %s: %s", tmp, strerror(errno));
    else if (n && pio_full(wfd, buf, n * ksize, first * ksize, 1))
        rank_fail(&m, "write error on %s: %s", tmp, strerror(errno ? errno : EIO));
    else if (m.rank != 0 && (fsync(wfd) != 0 || close(wfd) != 0))
        rank_fail(&m, "write error on %s: %s", tmp, strerror(errno));
    free(buf);
    agree_or_exit(&m);
    if (m.rank == 0) {
        cli_out_commit(&m.out);      /* fsync, rename into place (every slice is on disk) */
        double t3 = MPI_Wtime();
        gpusort_mpi_times tm;
        gpusort_mpi_get_last_times(&tm);
        if (o->stats)
            fprintf(stderr, "sorted %" PRIu64 " %s keys on %d ranks with %s in %.6f s: %.1f "
                    "Mkeys/s (rank 0: local sort %.3f s, split %.4f s, exchange %.3f s, merge "
                    "%.3f s; reading and writing %.3f s)\n", N, tname, m.P,
                    gpusort_backend_name(gpusort_ctx_get_backend(ctx)), t2 - t1,
                    t2 > t1 ? (double)N / (t2 - t1) / 1e6 : 0.0, tm.local_sort_s, tm.split_s,
                    tm.exchange_s, tm.merge_s, (t1 - t0) + (t3 - t2));
    }
    gpusort_ctx_free(ctx);
    MPI_Finalize();
    return 0;
}
