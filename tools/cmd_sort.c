/*
 * cmd_sort.c -- `gpusort sort IN --type T [-o OUT]`: sort a file of little-endian numbers
 * (binfile.h), keys alone or with a parallel file of payloads (--values).
 *
 * Three paths, picked by what the files are:
 *   streamed   IN (and the values file) regular files that fit half the memory budget (-S,
 *              default SORT_DEFAULT_BUDGET_PERCENT of RAM), outputs that take pwrite (files,
 *              /dev/null): the library pulls the elements through pread callbacks and pushes
 *              the sorted ones through pwrite callbacks into the outputs' temporaries
 *              (src/hoststream.h: several threads, disjoint ranges; a device backend stages
 *              them through its pinned buffers). No copy of the data passes through here.
 *   in memory  standard input, a pipe as output: read whole, sorted in place, written.
 *   external   keys over half the budget: sorted piece by piece, each piece written as a run
 *              to -T, and the runs merged by extsort.c's k-way merge (the one the text and
 *              record modes use), comparing radix keys (src/keys.h), ties to the earlier run:
 *              byte-identical to the in-memory stable sort. Pairs are never external.
 *
 * Start-up off the critical path: the library context (CUDA's initialisation, 0.15-0.18 s on
 * the H200 machines with one work queue: main.c) is created on a thread started first thing.
 * Meanwhile this thread checks and opens the input, creates the outputs' temporaries and
 * reserves their blocks (cli_out_reserve); a prefetch thread asks the kernel to read the
 * inputs ahead window by window (on a cold page cache the disk works during the start-up);
 * and the idle cores write zeros into the outputs' reserved blocks (prefill_threads), so that
 * the sorted data later lands in pages the files already hold. We do not read the input into
 * our own memory meanwhile: with a warm page cache a pread is one copy, so reading early into
 * a buffer would only add a second copy when the library takes the data. The streamed path
 * joins the context's thread before its first read.
 *
 * Output is written atomically (util.c: temp file in the destination's folder, renamed into
 * place; fsynced first with --sync). The outputs are created before the input is read, so an
 * unwritable destination fails at once; both outputs of a pair sort are complete (and synced)
 * before either is renamed into place. With --backend auto, a GPU that fails is replaced by
 * the CPU, which reads the data again from its file; a backend the user named is never
 * replaced.
 */
#include "binfile.h"
#include "cmd.h"
#include "extsort.h"
#include "util.h"

#include "hoststream.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The phases --stats reports, in order: start-up is the context's creation on its thread (it
 * overlaps the rest; "waited" says how long the job stood still for it), the next five are
 * hoststream.h's, then the external sort's merge and the outputs' sync. */
enum { PH_STARTUP, PH_READ, PH_TO_DEVICE, PH_SORT, PH_FROM_DEVICE, PH_WRITE, PH_MERGE, PH_SYNC,
       SORT_PHASES };
static const char *const sort_phase_names[SORT_PHASES] = {
    "start-up", "read", "to-device", "sort", "from-device", "write", "merge", "sync"};

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
    double phase[SORT_PHASES];  /* --stats: seconds of each phase (sort_phase_names) */
    int quiet_sort;         /* run forming shows one progress line: sort_call shows none */
    uint64_t prefilled;     /* --stats: output bytes pre-written during the start-up */
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
    if (!j->quiet_sort) cli_progress_start(what, 0);
    double t0 = cli_now_s();
    gpusort_status s = vals ? gpusort_sort_pairs(j->ctx, j->type, j->value_type, keys, vals, n,
                                                 keys, vals, j->order, j->algorithm, 0)
                            : gpusort_sort(j->ctx, j->type, keys, n, keys, j->order, j->algorithm, 0);
    j->sort_s += cli_now_s() - t0;
    j->phase[PH_SORT] += cli_now_s() - t0;
    if (!j->quiet_sort) cli_progress_end();
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
        cmd_fall_back_to_cpu(&j->ctx, s, j->requested, j->threads, "sorting"))
        s = sort_call(j, keys, vals, n);
    if (s == GPUSORT_STATUS_OUT_OF_HOST_MEMORY && !vals)
        cli_fail("sort: out of host memory sorting %zu keys (%s); a smaller -S sorts in pieces",
                 n, gpusort_ctx_get_last_error(j->ctx));
    if (s != GPUSORT_STATUS_SUCCESS) {
        char w[128];
        snprintf(w, sizeof w, "sort: the %s backend (%s) failed",
                 gpusort_backend_name(gpusort_ctx_get_backend(j->ctx)),
                 gpusort_algorithm_name(j->algorithm));
        cmd_fail_status(w, s, j->ctx);
    }
}

/* 1 if the two paths name the same existing file (or are equal strings). */
static int same_file(const char *a, const char *b)
{
    if (bin_is_stdio(a) || bin_is_stdio(b)) return 0;
    if (strcmp(a, b) == 0) return 1;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
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
    bin_to_from_le(c->buf, c->len / c->ksize, c->ksize);
    return 0;
}

/* The external sort's order of two run items: the radix keys of the numbers (runs hold
 * little-endian keys, each run sorted in this order). */
typedef struct key_order {
    gpusort_type type;
    size_t size;
    int desc;
} key_order;

static uint64_t run_key(void *arg, const uint8_t *item, size_t len)
{
    const key_order *ko = (const key_order *)arg;
    return bin_radix_bits(ko->type, ko->size, bin_load_le(item, ko->size), ko->desc);
}

/* Sort the keys of `in` into *out (not committed here). Input is read in chunks of half the
 * memory budget (the other half is the library's scratch). When the whole input fits one chunk,
 * it is sorted in memory and written; otherwise each chunk is sorted and written as a run to a
 * temporary folder, and the runs are merged (extsort.c: a loser tree over the runs by radix
 * key, ties to the earlier run, so the result is byte-identical to the in-memory sort). */
static void sort_keys(sort_job *j, const char *in, cli_out *out, uint64_t budget,
                      const char *const *tmpdirs, int ntmpdirs)
{
    size_t ksize = gpusort_type_size(j->type);
    const char *name = bin_is_stdio(in) ? "standard input" : in;
    int fd = bin_is_stdio(in) ? STDIN_FILENO : open(in, O_RDONLY | O_CLOEXEC);
    if (fd < 0) cli_fail("sort: cannot open %s: %s", in, strerror(errno));
    struct stat st;
    int known = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    uint64_t size = known ? (uint64_t)st.st_size : 0;

    uint64_t chunk = budget / 2 / ksize * ksize;
    if (chunk < ksize) chunk = ksize;
    if (chunk > (uint64_t)SIZE_MAX / 2) chunk = (uint64_t)SIZE_MAX / 2 / ksize * ksize;
    /* A known size needs one exact buffer; a stream grows one up to the chunk size. */
    size_t cap = (size_t)(known ? (size < chunk ? size : chunk)
                                : (chunk < BIN_IO_CHUNK ? chunk : BIN_IO_CHUNK));
    uint8_t *buf = (uint8_t *)gpusort__malloc(cap ? cap : 1);
    if (!buf)
        cli_fail("sort: out of memory: cannot hold %zu bytes of %s (use -S to sort in smaller "
                 "pieces)", cap, name);

    /* extsort.c writes, registers and merges the runs; they merge by radix key (run_key). */
    key_order ko = {j->type, ksize, j->order == GPUSORT_ORDER_DESC};
    extsort_items items = {.record_size = ksize, .arg = &ko, .key = run_key};
    extsort x;
    extsort_init(&x, &items, tmpdirs, ntmpdirs, budget, SORT_FANIN);
    /* An input known to need runs shows one line for the whole run forming: its reads and
     * its runs' writes, each counting the input's size once (the sorts in between are short
     * beside them). */
    int forming = known && size > chunk;
    uint64_t done = 0, formed = 0;
    j->quiet_sort = forming;
    if (forming) cli_progress_start("forming runs", 2 * size);
    for (;;) {
        if (!forming) cli_progress_start("reading", size);
        double t0 = cli_now_s();
        size_t len = 0;
        int eof = 0;
        for (;;) {
            size_t got = bin_read_full("sort", fd, buf + len, cap - len, name, &done);
            if (forming) cli_progress_update(formed + done);
            len += got;
            if (len < cap || (known && done >= size)) {     /* the end of the input */
                eof = 1;
                break;
            }
            if (cap >= chunk) break;
            /* A stream filled the buffer: grow it (up to the chunk size) and go on. */
            size_t ncap = (uint64_t)cap * 2 < chunk ? cap * 2 : (size_t)chunk;
            uint8_t *nb = (uint8_t *)gpusort__realloc(buf, ncap);
            if (!nb)
                cli_fail("sort: out of memory reading %s (%zu bytes so far; use -S to sort in "
                         "smaller pieces)", name, len);
            buf = nb;
            cap = ncap;
        }
        j->phase[PH_READ] += cli_now_s() - t0;
        if (!forming) cli_progress_end();
        if (len % ksize)
            cli_fail("sort: %s: size %" PRIu64 " bytes is not a multiple of %zu (the size of %s)",
                     name, done, ksize, gpusort_type_name(j->type));
        size_t n = len / ksize;
        j->n += n;
        chunk_src src = {fd, known, done - len, buf, len, ksize};
        if (j->runs == 0 && eof) {                   /* everything fits: sort in memory */
            bin_to_from_le(buf, n, ksize);
            sort_in_place(j, buf, NULL, n, chunk_reload, &src);
            t0 = cli_now_s();
            bin_write_elements(out, buf, n, ksize);
            j->phase[PH_WRITE] += cli_now_s() - t0;
            break;
        }
        if (n) {
            bin_to_from_le(buf, n, ksize);
            sort_in_place(j, buf, NULL, n, chunk_reload, &src);
            bin_to_from_le(buf, n, ksize);
            t0 = cli_now_s();
            ext_sink sink;
            extsort_run_open(&x, &sink);
            /* In pieces, so that the progress line moves while a run of gigabytes is written. */
            for (size_t at = 0; at < len; at += BIN_IO_CHUNK) {
                size_t k = len - at < BIN_IO_CHUNK ? len - at : BIN_IO_CHUNK;
                ext_sink_write(&sink, buf + at, k);
                formed += k;
                if (forming) cli_progress_update(formed + done);
            }
            extsort_run_close(&x, &sink);
            j->phase[PH_WRITE] += cli_now_s() - t0;
            j->runs++;
        }
        if (eof) break;
    }
    if (forming) cli_progress_end();
    j->quiet_sort = 0;
    if (fd != STDIN_FILENO) close(fd);
    free(buf);                                         /* the merge needs the memory */
    if (j->runs) {
        char what[64];
        snprintf(what, sizeof what, "merging %zu runs", j->runs);
        /* raw_write (extsort.c) moves the percent as the merged output is written. */
        cli_progress_start(what, known ? size : 0);
        double t0 = cli_now_s();
        extsort_finish(&x, out);
        j->phase[PH_MERGE] += cli_now_s() - t0;
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
        if (bin_is_stdio(p->paths[i])) return -1;
        int fd = open(p->paths[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) return -1;
        int r = pread_full(fd, p->bufs[i], p->lens[i], 0);
        close(fd);
        if (r) return -1;
        bin_to_from_le(p->bufs[i], p->lens[i] / p->sizes[i], p->sizes[i]);
    }
    return 0;
}

/* The values' type: given (--value-type), or inferred from the values file's size vbytes for
 * n keys; cli_fail when the size does not match. */
static gpusort_type pair_value_type(const char *in, const char *values, gpusort_type vtype,
                                    uint64_t n, uint64_t vbytes)
{
    if (vtype == GPUSORT_TYPE_NONE) {
        if (vbytes == n * 4) vtype = GPUSORT_TYPE_U32;
        else if (vbytes == n * 8) vtype = GPUSORT_TYPE_U64;
        else
            cli_fail("sort: %s holds %" PRIu64 " bytes: not %" PRIu64 " keys' worth of u32 or "
                     "u64 values", values, vbytes, n);
    }
    size_t vsize = gpusort_type_size(vtype);
    if (vbytes % vsize || vbytes / vsize != n)
        cli_fail("sort: %s holds %" PRIu64 " bytes = %g %s values, but %s holds %" PRIu64
                 " keys", values, vbytes, (double)vbytes / (double)vsize,
                 gpusort_type_name(vtype), bin_is_stdio(in) ? "standard input" : in, n);
    return vtype;
}

/* Sort keys and their values in memory (the values file must match the keys in count). */
static void sort_pairs_in_memory(sort_job *j, const char *in, const char *values,
                                 gpusort_type vtype, cli_out *kout, cli_out *vo, uint64_t budget)
{
    const char *cmd = "sort";
    size_t ksize = gpusort_type_size(j->type);
    const char *tname = gpusort_type_name(j->type);
    struct stat sk, sv;
    if (!bin_is_stdio(in) && !bin_is_stdio(values) && stat(in, &sk) == 0 && stat(values, &sv) == 0 &&
        S_ISREG(sk.st_mode) && S_ISREG(sv.st_mode) &&
        2 * ((uint64_t)sk.st_size + (uint64_t)sv.st_size) > budget)
        cli_fail("sort: %s and %s need %" PRIu64 " bytes of memory, over the budget of %" PRIu64
                 " (-S); sorts with --values run in memory only", in, values,
                 2 * ((uint64_t)sk.st_size + (uint64_t)sv.st_size), budget);
    size_t n = 0;
    double t0 = cli_now_s();
    void *keys = bin_read_elements(cmd, in, ksize, tname, &n);
    size_t vbytes;
    void *vals = cli_read_file(values, &vbytes);
    j->phase[PH_READ] += cli_now_s() - t0;
    vtype = pair_value_type(in, values, vtype, n, vbytes);
    size_t vsize = gpusort_type_size(vtype);
    bin_to_from_le(vals, n, vsize);
    j->value_type = vtype;
    j->n = n;
    pair_src src = {{in, values}, {keys, vals}, {n * ksize, vbytes}, {ksize, vsize}};
    sort_in_place(j, keys, vals, n, pair_reload, &src);
    t0 = cli_now_s();
    bin_write_elements(kout, keys, n, ksize);
    bin_write_elements(vo, vals, n, vsize);
    j->phase[PH_WRITE] += cli_now_s() - t0;
    /* Both complete (and on disk, with --sync) before either replaces anything. */
    t0 = cli_now_s();
    cli_out_sync(kout);
    cli_out_sync(vo);
    cli_out_commit(kout);
    cli_out_commit(vo);
    j->phase[PH_SYNC] += cli_now_s() - t0;
    free(keys);
    free(vals);
}


/* ---- the context's start-up, on its own thread ---- */

typedef struct ctx_start {
    const cmd_opts *o;
    pthread_t thread;
    int threaded, joined;
    pthread_mutex_t lock;
    pthread_cond_t ready;
    int done;               /* the creation ended (guarded by lock) */
    gpusort_ctx *ctx;
    gpusort_status status;
    double seconds;         /* the creation, on its thread */
    double waited;          /* how long the job stood still for it */
} ctx_start;

/* The thread creates the context, says so, and then stays parked until the process ends
 * rather than ending: a thread whose first OpenCL call went through PoCL and that then exits
 * makes AddressSanitizer fail on PoCL's alternate signal stack (tests/fault/tests.cmake), and
 * --backend auto probes OpenCL. The parked thread holds no lock and uses nothing. */
static void ctx_start_create(ctx_start *c)
{
    double t0 = cli_now_s();
    gpusort_ctx *ctx = NULL;
    gpusort_status st = gpusort_ctx_create(&ctx, c->o->backend, c->o->device);
    pthread_mutex_lock(&c->lock);
    c->ctx = ctx;
    c->status = st;
    c->seconds = cli_now_s() - t0;
    c->done = 1;
    pthread_cond_signal(&c->ready);
    pthread_mutex_unlock(&c->lock);     /* c may be gone from here on */
}

static void *ctx_start_main(void *arg)
{
    ctx_start_create((ctx_start *)arg);
    for (;;) pause();
    return NULL;
}

/* The one start-up in flight, for cli_fail_prepare (a failure exits only after it). */
static ctx_start *ctx_pending;

static void ctx_start_await(ctx_start *c)
{
    pthread_mutex_lock(&c->lock);
    while (!c->done) pthread_cond_wait(&c->ready, &c->lock);
    pthread_mutex_unlock(&c->lock);
    c->joined = 1;
}

static void ctx_start_join(void)
{
    ctx_start *c = ctx_pending;
    ctx_pending = NULL;
    if (c && c->threaded && !c->joined) {
        ctx_start_await(c);
        gpusort_ctx_free(c->ctx);       /* a failure's exit: nobody will use it */
        c->ctx = NULL;
    }
}

static void ctx_start_begin(ctx_start *c, const cmd_opts *o)
{
    memset(c, 0, sizeof *c);
    c->o = o;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->ready, NULL);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    c->threaded = pthread_create(&c->thread, &attr, ctx_start_main, c) == 0;
    pthread_attr_destroy(&attr);
    if (c->threaded) {
        ctx_pending = c;
        cli_fail_prepare = ctx_start_join;
    }
}

/* The context, once its thread is done; a failure is the usual one line (cmd_ctx_check). */
static gpusort_ctx *ctx_start_wait(ctx_start *c, const char *cmd)
{
    if (!c->joined) {
        double t0 = cli_now_s();
        if (c->threaded) ctx_start_await(c);
        else ctx_start_create(c);
        c->waited = cli_now_s() - t0;
        c->joined = 1;
        ctx_pending = NULL;
        cli_fail_prepare = NULL;
        c->ctx = cmd_ctx_check(cmd, c->o, c->ctx, c->status);
    }
    return c->ctx;
}

/* ---- the streamed path: pread from the inputs, pwrite into the outputs' temporaries ---- */

/* The files of one streamed sort: stream 0 the keys, stream 1 the values. */
typedef struct file_io {
    int in_fd[2];
    const char *in_name[2];
    cli_out *out[2];
    pthread_mutex_t lock;
    int failed;                     /* the first failure, for the message: */
    int failed_writing, failed_stream, failed_errno;   /* errno 0 on a read: the file shrank */
    int shown;                      /* the phase on the progress line, -1: none */
    cli_prefill *prefill;           /* pre-writing the outputs; joined before the first write */
    atomic_int prefill_joined;
    uint64_t prefilled;             /* --stats: the bytes it wrote */
} file_io;

/* The outputs' pre-writing ends before the first real write (none may land after it). */
static void io_prefill_end(file_io *f)
{
    if (atomic_load(&f->prefill_joined)) return;
    pthread_mutex_lock(&f->lock);
    if (!atomic_load(&f->prefill_joined)) {
        f->prefilled = cli_prefill_end(f->prefill);
        f->prefill = NULL;
        atomic_store(&f->prefill_joined, 1);
    }
    pthread_mutex_unlock(&f->lock);
}

static void io_note_failure(file_io *f, int writing, int stream, int err)
{
    pthread_mutex_lock(&f->lock);
    if (!f->failed) {
        f->failed = 1;
        f->failed_writing = writing;
        f->failed_stream = stream;
        f->failed_errno = err;
    }
    pthread_mutex_unlock(&f->lock);
}

static int io_read(void *user, int stream, void *buf, uint64_t offset, size_t bytes)
{
    file_io *f = (file_io *)user;
    for (size_t got = 0; got < bytes;) {
        ssize_t r = pread(f->in_fd[stream], (char *)buf + got, bytes - got,
                          (off_t)(offset + got));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {                           /* 0: the file is shorter than when checked */
            int e = r < 0 ? errno : 0;
            io_note_failure(f, 0, stream, e);
            errno = e ? e : EIO;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

static int io_write(void *user, int stream, const void *buf, uint64_t offset, size_t bytes)
{
    file_io *f = (file_io *)user;
    io_prefill_end(f);
    if (cli_out_pwrite(f->out[stream], buf, offset, bytes) == 0) return 0;
    int e = errno;
    io_note_failure(f, 1, stream, e);
    errno = e;
    return -1;
}

/* The progress line follows the phases: percent of the reads, then the sort's elapsed time
 * (it cannot report), then percent of the writes. Called by one thread at a time. */
static void io_progress(void *user, gpusort__stream_phase phase, uint64_t done, uint64_t total)
{
    static const char *const names[GPUSORT__PHASE_COUNT] = {
        "reading", "copying to the device", "sorting", "copying from the device", "writing"};
    file_io *f = (file_io *)user;
    if ((int)phase != f->shown && phase < GPUSORT__PHASE_COUNT) {
        cli_progress_start(names[phase], total);
        f->shown = (int)phase;
    }
    cli_progress_update(done);
    if (phase == GPUSORT__PHASE_READ && done == total) {
        cli_progress_start("sorting", 0);
        f->shown = GPUSORT__PHASE_SORT;
    }
}

/* Sort the open files of f (n keys; values of vtype, or NONE) through the library's stream,
 * into the outputs' temporaries (not committed here). With --backend auto, a GPU that fails
 * is replaced by the CPU, which simply streams the files again (the inputs are untouched: the
 * outputs are temporaries). */
static void sort_streamed(sort_job *j, file_io *f, uint64_t n, gpusort_type vtype)
{
    gpusort_status st;
    for (;;) {
        gpusort__stream s = {io_read, io_write, io_progress, f, {0}, 0};
        f->shown = -1;
        st = gpusort__sort_stream(j->ctx, j->type, vtype, n, &s, j->order, j->algorithm, 0);
        cli_progress_end();
        j->phase[PH_READ] += s.seconds[GPUSORT__PHASE_READ];
        j->phase[PH_TO_DEVICE] += s.seconds[GPUSORT__PHASE_TO_DEVICE];
        j->phase[PH_SORT] += s.seconds[GPUSORT__PHASE_SORT];
        j->phase[PH_FROM_DEVICE] += s.seconds[GPUSORT__PHASE_FROM_DEVICE];
        j->phase[PH_WRITE] += s.seconds[GPUSORT__PHASE_WRITE];
        j->sort_s += s.seconds[GPUSORT__PHASE_SORT];
        if (st == GPUSORT_STATUS_SUCCESS) return;
        if (s.io_errno != 0 || f->failed) break;
        if (!cmd_fall_back_to_cpu(&j->ctx, st, j->requested, j->threads, "sorting")) break;
    }
    if (f->failed) {
        int k = f->failed_stream;
        if (f->failed_writing)
            cli_fail("sort: write error on %s: %s", f->out[k]->path ? f->out[k]->path
                     : "standard output", strerror(f->failed_errno));
        if (f->failed_errno == 0)
            cli_fail("sort: %s: the file became shorter while it was read", f->in_name[k]);
        cli_fail("sort: read error on %s: %s", f->in_name[k], strerror(f->failed_errno));
    }
    if (st == GPUSORT_STATUS_OUT_OF_HOST_MEMORY)
        cli_fail("sort: out of memory sorting %" PRIu64 " keys in host memory (%s)%s", n,
                 gpusort_ctx_get_last_error(j->ctx),
                 vtype == GPUSORT_TYPE_NONE ? "; a smaller -S sorts them in pieces" : "");
    char w[128];
    snprintf(w, sizeof w, "sort: the %s backend (%s) failed",
             gpusort_backend_name(gpusort_ctx_get_backend(j->ctx)),
             gpusort_algorithm_name(j->algorithm));
    cmd_fail_status(w, st, j->ctx);
}

/* Read-ahead of the inputs while the context starts. One posix_fadvise(WILLNEED) over a whole
 * file reads only about one read-ahead window of it (Linux clips each such request to the
 * device's read-ahead size: mm/readahead.c, force_page_cache_ra), so a thread asks for the
 * files window by window. On a cold page cache the disk then works during the start-up, which
 * the sort's own reads cannot (they need the context's pinned staging); on a warm one each
 * request is a page-cache lookup. The thread stops when the sort's reads are done. */
#define PREFETCH_STEP ((off_t)8 << 20)

typedef struct prefetch {
    int fd[2];
    off_t bytes[2];
    int n;
    atomic_int stop;
    pthread_t thread;
    int started;
} prefetch;

static void *prefetch_main(void *arg)
{
    prefetch *p = (prefetch *)arg;
    for (int i = 0; i < p->n; i++)
        for (off_t off = 0; off < p->bytes[i] && !atomic_load(&p->stop); off += PREFETCH_STEP)
            (void)posix_fadvise(p->fd[i], off, PREFETCH_STEP, POSIX_FADV_WILLNEED);
    return NULL;
}

static void prefetch_end(prefetch *p)
{
    atomic_store(&p->stop, 1);
    if (p->started) pthread_join(p->thread, NULL);
    p->started = 0;
}

/* The threads that pre-write the outputs while a device's context starts: the cores left over
 * by the context's thread and the prefetch thread. None with the CPU backend (it starts at once,
 * and pre-writing during its sort gained nothing) or with --sync (the disk bounds that job, and
 * pre-written zeros could reach it). Test-only: GPUSORT_TEST_PREFILL=T runs T threads over the
 * whole outputs with any backend, so that the sort's first write waits for all of it. */
static int prefill_threads(const sort_job *j, int *to_end)
{
    const char *t = getenv("GPUSORT_TEST_PREFILL");
    *to_end = t && *t;
    if (*to_end) return atoi(t);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return j->requested != GPUSORT_BACKEND_CPU && !cli_sync && cores > 2 ? (int)(cores - 2) : 0;
}

/* The streamed path when it applies (the top of the file): returns 1 after sorting into the
 * outputs (not committed), 0 to leave the job to the other paths. Opens the inputs and asks
 * the kernel to read them ahead while the context starts. */
static int try_streamed(sort_job *j, ctx_start *cs, const char *in, const char *values,
                        gpusort_type vtype, cli_out *kout, cli_out *vo, uint64_t budget)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return 0;       /* the stream moves file bytes as they are: little-endian hosts only */
#endif
    const char *paths[2] = {in, values};
    int nin = values ? 2 : 1;
    struct stat st[2];
    uint64_t bytes = 0;
    for (int i = 0; i < nin; i++) {
        if (bin_is_stdio(paths[i]) || stat(paths[i], &st[i]) != 0 || !S_ISREG(st[i].st_mode))
            return 0;
        bytes += (uint64_t)st[i].st_size;
    }
    /* The budget rule of the other paths: the data and the library's scratch of its size. */
    if (2 * bytes > budget) return 0;
    if (!cli_out_pwrite_ready(kout) || (values && !cli_out_pwrite_ready(vo))) return 0;

    size_t ksize = gpusort_type_size(j->type);
    uint64_t n = (uint64_t)st[0].st_size / ksize;
    if (values) vtype = pair_value_type(in, values, vtype, n, (uint64_t)st[1].st_size);
    file_io f;
    memset(&f, 0, sizeof f);
    pthread_mutex_init(&f.lock, NULL);
    cli_out *outs[2] = {kout, vo}, *reserved[2];
    uint64_t out_bytes[2];
    int nres = 0;
    for (int i = 0; i < nin; i++) {
        f.in_name[i] = paths[i];
        f.in_fd[i] = open(paths[i], O_RDONLY | O_CLOEXEC);
        if (f.in_fd[i] < 0) cli_fail("sort: cannot open %s: %s", paths[i], strerror(errno));
        f.out[i] = outs[i];
        uint64_t ob = n * (i ? gpusort_type_size(vtype) : ksize);
        if (cli_out_reserve(outs[i], ob)) {
            reserved[nres] = outs[i];
            out_bytes[nres++] = ob;
        }
    }
    prefetch pf = {.n = nin};
    atomic_init(&pf.stop, 0);
    for (int i = 0; i < nin; i++) {
        pf.fd[i] = f.in_fd[i];
        pf.bytes[i] = st[i].st_size;
    }
    pf.started = pthread_create(&pf.thread, NULL, prefetch_main, &pf) == 0;
    /* The idle cores pre-write the outputs while the context starts (prefill_threads). */
    atomic_init(&f.prefill_joined, 0);
    int to_end, threads = prefill_threads(j, &to_end);
    if (nres > 0) f.prefill = cli_prefill_start(reserved, out_bytes, nres, threads);
    j->ctx = ctx_start_wait(cs, "sort");
    if (!to_end) cli_prefill_stop(f.prefill);
    j->n = n;
    j->value_type = values ? vtype : GPUSORT_TYPE_NONE;
    sort_streamed(j, &f, n, j->value_type);
    io_prefill_end(&f);
    j->prefilled = f.prefilled;
    prefetch_end(&pf);
    for (int i = 0; i < nin; i++) {
        close(f.in_fd[i]);
        cli_out_pwrite_end(outs[i], n * (i ? gpusort_type_size(vtype) : ksize));
    }
    pthread_mutex_destroy(&f.lock);
    return 1;
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
    "                      fail, the CPU sorts instead, with a note; a file of at most\n"
    "                      16 MiB per CPU thread, 256 MiB in all, goes to the CPU, which\n"
    "                      sorts it before a GPU has started), cpu, cuda, opencl (a named\n"
    "                      backend that fails is an error)\n"
    "  --device N          device index within the backend (see gpusort devices)\n"
    "  --algorithm A       auto (default), radix, merge, bitonic, rank (per backend)\n"
    "  --threads N         CPU threads (0 = all cores, the default)\n"
    "  --stats, -v         print on stderr: sorted N T keys with BACKEND (ALGORITHM, DEVICE)\n"
    "                      in X s: Y Mkeys/s (the time of the sort itself, data in memory;\n"
    "                      for an external sort, the whole time), then the phases in seconds:\n"
    "                      start-up (the backend's, on its own thread, overlapping the\n"
    "                      others; 'waited': how long the job stood still for it), read,\n"
    "                      to-device, sort, from-device, write, merge (external), sync, and\n"
    "                      the total from the program's start to the renamed output\n"
    "  --sync              make the output durable: fsync it before renaming it into place,\n"
    "                      and its folder after (costs about the time of writing it to disk)\n"
    "  --no-sync           the default, as GNU sort and cp: the output is complete and renamed\n"
    "                      into place, but the system may still hold it in memory: a power\n"
    "                      loss or system crash in the next seconds can leave OUT empty or\n"
    "                      old (with -o IN, the input's contents too). GPUSORT_SYNC=1 in the\n"
    "                      environment is --sync for every command and mode\n"
    "  -q, --quiet         no progress display\n"
    "  -S, --buffer-size SIZE  memory budget (default 50% of RAM): 512M, 4G, 25%; a plain\n"
    "                      number is KiB, as in GNU sort\n"
    "  -T, --temporary-directory DIR  where an external sort writes its runs (default\n"
    "                      $TMPDIR or /tmp; several -T are used in turn)\n"
    "  --mpi               under mpirun -np P: the P ranks sort IN together (each reads\n"
    "                      its share, sorts on its own device or cores, writes its slice\n"
    "                      of OUT); keys only, -o FILE required (see gpusort_mpi.h)\n"
    "  --gpus all|N        sort on the first N CUDA GPUs of this machine at once (all: every\n"
    "                      one): each sorts 1/N of IN, then the sorted shares are merged;\n"
    "                      for files larger than one GPU's memory. Keys only, in memory\n"
    "                      (2x IN of host memory); the output is the same bytes\n"
    "\n"
    "Floats sort as -inf < ... < -0.0 == +0.0 < ... < +inf < NaN (NaN first with --desc).\n"
    "Output is written to a temporary file next to OUT and renamed into place only when\n"
    "complete: an error or Ctrl-C never leaves a partial OUT and never damages IN. A run\n"
    "killed by SIGKILL leaves its .OUT.gpusort-XXXXXX; the next run names it and says how\n"
    "to remove it (it cannot know whether another gpusort is still writing it).\n"
    "Memory: an input of up to half the budget is sorted in memory (the data plus the\n"
    "backend's scratch of the same size). A larger one (keys only) is sorted in pieces of\n"
    "half the budget, written as runs to -T, and merged stably: the result is the same.\n"
    "With --values, the keys and values are sorted in memory (2x their size).\n"
    "Exit status: 0 success, 2 error.\n";

int gpusort_cli_sort(int argc, char **argv)
{
    const char *cmd = "sort";
    cmd_opts o;
    cmd_parse(argc, argv,
              "output type desc backend device algorithm values values-out value-type threads "
              "stats verbose quiet buffer-size temporary-directory mpi sync no-sync gpus",
              1, &o);
    if (o.help) { fputs(help_sort, stdout); return 0; }
    if (!o.type_set) cli_fail("sort: --type is required for binary files (see gpusort sort --help)");
    const char *in = o.npos ? o.pos[0] : "-";       /* no file: standard input, as sort */
    if (o.gpus) {
        if (o.mpi) cli_fail("sort: --gpus and --mpi exclude each other");
        return gpusort_cli_sort_gpus(&o, in);
    }
    if (o.mpi) {
#ifdef GPUSORT_HAVE_MPI
        return gpusort_cli_sort_mpi(&o, in);
#else
        cli_fail("sort: --mpi: this gpusort was built without MPI (install libopenmpi-dev and "
                 "rebuild)");
#endif
    }
    const char *out = bin_output_or_stdout(cmd, o.out);
    size_t ksize = gpusort_type_size(o.type);
    const char *tname = gpusort_type_name(o.type);

    /* Values: where they come from and where they go. */
    const char *vout = NULL;
    if (!o.values && (o.values_out || o.value_type != GPUSORT_TYPE_NONE))
        cli_fail("sort: --values-out and --value-type need --values FILE");
    if (o.values) {
        if (bin_is_stdio(o.values) && bin_is_stdio(in))
            cli_fail("sort: the keys and the values cannot both come from standard input");
        vout = o.values_out;
        if (!vout) {
            if (!same_file(out, in))
                cli_fail("sort: --values needs --values-out FILE (or -o IN, which sorts both "
                         "files in place)");
            vout = o.values;
        }
        if (bin_is_stdio(vout) && bin_is_stdio(out))
            cli_fail("sort: the keys and the values cannot both go to standard output");
        if (same_file(vout, out) || (!bin_is_stdio(vout) && !bin_is_stdio(out) && strcmp(vout, out) == 0))
            cli_fail("sort: -o and --values-out name the same file");
        if (same_file(o.values, in)) cli_fail("sort: --values names the input file itself");
    }

    cmd_auto_small_files(&o, in, o.values);   /* small files: the CPU (cmd.h) */

    /* The context starts on its own thread while the files are checked and opened. */
    ctx_start cs;
    ctx_start_begin(&cs, &o);

    /* Fail early on a bad input before touching anything. */
    bin_check_file_size(cmd, in, ksize, tname);
    if (o.values && !bin_is_stdio(o.values)) {
        struct stat st;
        if (stat(o.values, &st) != 0)
            cli_fail("sort: cannot open %s: %s", o.values, strerror(errno));
        if (access(o.values, R_OK) != 0)
            cli_fail("sort: cannot open %s: %s", o.values, strerror(errno));
    }

    cli_out kout, vo;
    cli_out_open(&kout, out);
    if (o.values) cli_out_open(&vo, vout);

    sort_job job = {NULL, o.type, o.desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, o.algorithm,
                    0, 0, 0, GPUSORT_TYPE_NONE, o.backend, o.threads, {0}, 0, 0};
    uint64_t budget = o.budget ? o.budget : default_budget();
    double t0 = cli_now_s();
    if (try_streamed(&job, &cs, in, o.values, o.value_type, &kout, o.values ? &vo : NULL,
                     budget)) {
        /* Both complete (and on disk, with --sync) before either replaces anything. */
        double ts = cli_now_s();
        cli_out_sync(&kout);
        if (o.values) cli_out_sync(&vo);
        cli_out_commit(&kout);
        if (o.values) cli_out_commit(&vo);
        job.phase[PH_SYNC] += cli_now_s() - ts;
    } else if (!o.values) {
        job.ctx = ctx_start_wait(&cs, cmd);
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
        double ts = cli_now_s();
        cli_out_commit(&kout);
        job.phase[PH_SYNC] += cli_now_s() - ts;
    } else {
        job.ctx = ctx_start_wait(&cs, cmd);
        sort_pairs_in_memory(&job, in, o.values, o.value_type, &kout, &vo, budget);
    }
    double t1 = cli_now_s();
    gpusort_ctx *ctx = job.ctx;      /* the CPU backend, if a GPU picked by auto failed */

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
                cmd_device_used(ctx, dev, sizeof dev), secs,
                secs > 0 ? (double)job.n / secs / 1e6 : 0.0, ext);
        /* The phases; total: from the program's start to the renamed output. */
        char waited[96];
        int wl = snprintf(waited, sizeof waited, " (waited %.3f", cs.waited);
        if (job.prefilled)
            wl += snprintf(waited + wl, sizeof waited - (size_t)wl, ", output pre-written %.0f MiB",
                           (double)job.prefilled / (1 << 20));
        snprintf(waited + wl, sizeof waited - (size_t)wl, ")");
        job.phase[PH_STARTUP] = cs.seconds;
        if (!job.runs) job.phase[PH_MERGE] = -1;
        cli_phase ph[SORT_PHASES];
        for (int i = 0; i < SORT_PHASES; i++)
            ph[i] = (cli_phase){sort_phase_names[i], job.phase[i], i == PH_STARTUP ? waited : NULL};
        cli_stats_phases("sort", ph, SORT_PHASES, t1 - cli_start_s);
    }
    gpusort_ctx_free(ctx);
    return 0;
}
