/*
 * util.c -- helpers every mode of the gpusort program shares (declared in util.h).
 *
 * Exports:
 *   cli_fail / cli_error          one line "gpusort: ..." on stderr; cli_fail also cleans up and
 *                                 exits with 2
 *   cli_temp_register / _forget   a registry of temporary files, removed on cli_fail, on exit
 *                                 and on SIGINT/SIGTERM/SIGHUP/SIGPIPE (cli_signals_install)
 *   cli_out_*                     atomic output: temp file in the destination's folder, renamed
 *                                 into place (fsync first with cli_sync: --sync, GPUSORT_SYNC=1);
 *                                 cli_out_pwrite for writes at offsets from several threads;
 *                                 cli_out_reserve and cli_prefill_* ready their blocks and pages
 *   cli_write_fault               the test-only write fault (GPUSORT_TEST_FAIL_WRITE)
 *   cli_read_file                 read a whole file or stdin into memory
 *   cli_alloc, cli_now_s          malloc or fail; the monotonic clock
 *   cli_progress_*                "\rsorting: 45%" on a terminal, after the first second
 *   cli_stats_phases              the --stats line of a job's phases
 *   cli_parse_size / cli_parse_count   "64M", "50%", "2^26", "1e6"
 *
 * Order of calls: cli_signals_install() once at start; then any of the others.
 *
 * Temp-file registry: a linked list of paths guarded by a (recursive) lock. SIGINT, SIGTERM and
 * SIGHUP are blocked in every thread from the start (cli_signals_install runs before any thread
 * exists, and threads inherit the mask: the library's workers, and threads a driver such as an
 * OpenCL ICD starts) and taken by one thread in sigwait(). That thread takes the lock, unlinks
 * every registered file, restores the default action and re-raises the signal, so the parent
 * shell sees the usual "killed by SIGINT" status. Files are created and registered under the same
 * lock (cli_temp_mkstemp), so no signal can leave a created-but-unregistered file behind, and no
 * file can be created after the cleanup ran. The cleanup does not run in an asynchronous
 * handler: a signal delivered to a driver's thread would race with the main thread creating run
 * files and could leave some behind. SIGPIPE is thread-directed (the writing thread), so it has
 * an asynchronous handler that only walks the list and unlinks.
 *
 * Atomic output. The temporary file is "<dir>/.<name>.gpusort-XXXXXX" (mkstemp) in the same
 * folder as the destination, so rename(2) is atomic and never copies across file systems. It gets
 * the destination's permission bits (and owner, when run as root) when the destination exists,
 * else 0666 & ~umask, as a plain open would. A destination we may not write is refused. A
 * destination that exists and is not a regular file (/dev/null, /dev/full, a FIFO) is written
 * directly: renaming over a device node would replace it. A symbolic link is resolved
 * so that the file it names is replaced, not the link.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int cli_quiet = 0;
int cli_sync = 0;
double cli_start_s = 0;

/* ---- temporary-file registry ---- */

typedef struct temp_node {
    struct temp_node *next;
    char path[];            /* NUL-terminated */
} temp_node;

static temp_node *volatile temp_head = NULL;

static const int caught_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define NUM_CAUGHT ((int)(sizeof caught_signals / sizeof caught_signals[0]))

static pthread_mutex_t temp_lock;
static pthread_once_t temp_lock_once = PTHREAD_ONCE_INIT;

static void temp_lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);   /* cli_out_open -> register */
    pthread_mutex_init(&temp_lock, &a);
    pthread_mutexattr_destroy(&a);
}

/* Enter a critical section of the registry: the caught signals blocked in this thread (for the
 * SIGPIPE handler) and the registry lock held (against the signal thread). */
static void block_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < NUM_CAUGHT; i++) sigaddset(&set, caught_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
    pthread_once(&temp_lock_once, temp_lock_init);
    pthread_mutex_lock(&temp_lock);
}

static void restore_signals(const sigset_t *old)
{
    pthread_mutex_unlock(&temp_lock);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

void cli_temp_register(const char *path)
{
    size_t len = strlen(path);
    temp_node *node = (temp_node *)gpusort__malloc(sizeof *node + len + 1);
    if (!node) {
        /* Cannot track it: remove it now rather than risk leaving it behind. */
        unlink(path);
        cli_fail("out of memory");
    }
    memcpy(node->path, path, len + 1);
    sigset_t old;
    block_signals(&old);
    node->next = temp_head;
    temp_head = node;
    restore_signals(&old);
}

void cli_temp_forget(const char *path)
{
    sigset_t old;
    block_signals(&old);
    temp_node *volatile *link = &temp_head;
    while (*link && strcmp((*link)->path, path) != 0) link = &(*link)->next;
    temp_node *found = *link;
    if (found) *link = found->next;
    restore_signals(&old);
    free(found);
}

/* Unlink every registered file. Async-signal-safe (unlink only); the nodes are not freed. */
static void temp_remove_all(void)
{
    for (temp_node *n = temp_head; n; n = n->next) unlink(n->path);
}

static void temp_cleanup_at_exit(void)
{
    sigset_t old;
    block_signals(&old);
    temp_remove_all();
    temp_node *n = temp_head;
    temp_head = NULL;
    restore_signals(&old);
    while (n) {
        temp_node *next = n->next;
        free(n);
        n = next;
    }
}

static void on_signal(int sig)   /* SIGPIPE only (see the top of the file) */
{
    temp_remove_all();
    signal(sig, SIG_DFL);
    raise(sig);
}

static sigset_t waited_signals;   /* SIGINT/SIGTERM/SIGHUP unless they were ignored at start */

static void *signal_thread(void *arg)
{
    (void)arg;
    int sig = 0;
    if (sigwait(&waited_signals, &sig) != 0) return NULL;
    pthread_once(&temp_lock_once, temp_lock_init);
    pthread_mutex_lock(&temp_lock);   /* held until the process ends: nothing new is created */
    temp_remove_all();
    signal(sig, SIG_DFL);
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL);
    raise(sig);
    _exit(128 + sig);                 /* not reached */
}

int cli_temp_mkstemp(char *template_path)
{
    sigset_t old;
    block_signals(&old);
    int fd = mkostemp(template_path, O_CLOEXEC);
    int err = errno;
    if (fd >= 0) cli_temp_register(template_path);
    restore_signals(&old);
    errno = err;
    return fd;
}

void cli_signals_install(void)
{
    static int installed = 0;
    if (installed) return;
    installed = 1;
    cli_start_s = cli_now_s();
    atexit(temp_cleanup_at_exit);
    pthread_once(&temp_lock_once, temp_lock_init);
    sigemptyset(&waited_signals);
    for (int i = 0; i < NUM_CAUGHT; i++) {
        struct sigaction sa, old;
        /* Keep "ignored" signals ignored (nohup, or a shell that ignores SIGINT in background
         * jobs), as POSIX utilities do. */
        if (sigaction(caught_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        if (caught_signals[i] != SIGPIPE) {
            sigaddset(&waited_signals, caught_signals[i]);
            continue;
        }
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigfillset(&sa.sa_mask);
        sigaction(caught_signals[i], &sa, NULL);
    }
    /* Block them in this (the only) thread, so every thread started later inherits the mask,
     * and let one thread wait for them. */
    pthread_sigmask(SIG_BLOCK, &waited_signals, NULL);
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &attr, signal_thread, NULL) != 0) {
        /* No thread: fall back to asynchronous handlers (the old behaviour). */
        pthread_sigmask(SIG_UNBLOCK, &waited_signals, NULL);
        for (int i = 0; i < NUM_CAUGHT; i++) {
            if (!sigismember(&waited_signals, caught_signals[i])) continue;
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigfillset(&sa.sa_mask);
            sigaction(caught_signals[i], &sa, NULL);
        }
    }
    pthread_attr_destroy(&attr);
}

/* ---- errors ---- */

static void progress_clear(void);

static void verror(const char *fmt, va_list ap)
{
    progress_clear();
    fflush(stdout);
    /* Build the whole line first so that it reaches stderr in one write. */
    char line[4096];
    int len = snprintf(line, sizeof line, "gpusort: ");
    int m = vsnprintf(line + len, sizeof line - (size_t)len - 1, fmt, ap);
    if (m < 0) m = 0;
    len += m;
    if (len > (int)sizeof line - 2) len = (int)sizeof line - 2;
    line[len++] = '\n';
    fwrite(line, 1, (size_t)len, stderr);
    fflush(stderr);
}

void (*cli_exit_hook)(int code) = NULL;
void (*cli_fail_prepare)(void) = NULL;

void cli_fail(const char *fmt, ...)
{
    void (*prepare)(void) = cli_fail_prepare;
    cli_fail_prepare = NULL;
    if (prepare) prepare();
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
    temp_cleanup_at_exit();
    if (cli_exit_hook) cli_exit_hook(2);
    exit(2);
}

void *cli_alloc(size_t n)
{
    void *p = gpusort__malloc(n ? n : 1);
    if (!p) cli_fail("out of memory (%zu bytes)", n);
    return p;
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
    return 2;
}

/* ---- progress ---- */

/* One progress line at a time. When the total is unknown (0), a helper thread prints the
 * elapsed time, because the work is then a single long call (a library sort) that cannot report. */
static struct {
    int active;
    int shown;              /* something was printed: clear the line at the end */
    const char *what;
    uint64_t total;
    double start, last;
    pthread_t ticker;
    int ticker_running;
    pthread_mutex_t lock;
    pthread_cond_t stop;
    int stopping;
} prog = {.lock = PTHREAD_MUTEX_INITIALIZER, .stop = PTHREAD_COND_INITIALIZER};

/* Work must run this long before progress appears, and lines are at least this far apart. */
#define PROGRESS_DELAY_S 1.0
#define PROGRESS_PERIOD_S 0.25

/* cli_auto_cpu: the CPU's share per thread, and the most in all, kept below the size where
 * the two backends' whole jobs tie (bench/results/pipeline-2026-11-28c.md). */
#define AUTO_CPU_BYTES_PER_THREAD ((uint64_t)16 << 20)
#define AUTO_CPU_BYTES_MAX ((uint64_t)256 << 20)

/* The CPU threads a job gets: --threads, else every core. */
static uint64_t auto_threads(int threads)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return threads > 0 ? (uint64_t)threads : cores > 0 ? (uint64_t)cores : 1;
}

int cli_auto_cpu(gpusort_backend backend, int device, uint64_t bytes, int threads)
{
    if (backend != GPUSORT_BACKEND_AUTO || device >= 0) return 0;
    uint64_t limit = AUTO_CPU_BYTES_PER_THREAD * auto_threads(threads);
    return bytes <= (limit < AUTO_CPU_BYTES_MAX ? limit : AUTO_CPU_BYTES_MAX);
}

int cli_auto_cpu_cost(gpusort_backend backend, int device, int threads, double n, double cpu_s,
                      double cpu_floor_s, double gpu_s)
{
    if (backend != GPUSORT_BACKEND_AUTO || device >= 0) return 0;
    double per = cpu_s / (double)auto_threads(threads);
    if (per < cpu_floor_s) per = cpu_floor_s;
    return n * per <= CLI_GPU_STARTUP_S + n * gpu_s;
}

double cli_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int progress_wanted(void) { return !cli_quiet && isatty(STDERR_FILENO); }

static void progress_clear(void)
{
    if (prog.shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        prog.shown = 0;
    }
}

static void *progress_ticker(void *arg)
{
    (void)arg;
    /* Signals go to the main thread, whose handler may touch the temp-file list. */
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&prog.lock);
    while (!prog.stopping) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(PROGRESS_PERIOD_S * 1e9);
        if (until.tv_nsec >= 1000000000L) { until.tv_sec++; until.tv_nsec -= 1000000000L; }
        pthread_cond_timedwait(&prog.stop, &prog.lock, &until);
        if (prog.stopping) break;
        double el = cli_now_s() - prog.start;
        if (el >= PROGRESS_DELAY_S) {
            fprintf(stderr, "\r%s: %.1f s", prog.what, el);
            fflush(stderr);
            prog.shown = 1;
        }
    }
    pthread_mutex_unlock(&prog.lock);
    return NULL;
}

void cli_progress_start(const char *what, uint64_t total)
{
    cli_progress_end();
    if (!progress_wanted()) return;
    prog.active = 1;
    prog.what = what;
    prog.total = total;
    prog.start = cli_now_s();
    prog.last = 0;
    prog.stopping = 0;
    if (total == 0)
        prog.ticker_running = pthread_create(&prog.ticker, NULL, progress_ticker, NULL) == 0;
}

void cli_progress_update(uint64_t done)
{
    if (!prog.active || prog.total == 0) return;
    double t = cli_now_s();
    if (t - prog.start < PROGRESS_DELAY_S || t - prog.last < PROGRESS_PERIOD_S) return;
    prog.last = t;
    double pct = 100.0 * (double)done / (double)prog.total;
    fprintf(stderr, "\r%s: %.0f%%", prog.what, pct > 100 ? 100 : pct);
    fflush(stderr);
    prog.shown = 1;
}

void cli_progress_end(void)
{
    if (prog.ticker_running) {
        pthread_mutex_lock(&prog.lock);
        prog.stopping = 1;
        pthread_cond_signal(&prog.stop);
        pthread_mutex_unlock(&prog.lock);
        pthread_join(prog.ticker, NULL);
        prog.ticker_running = 0;
    }
    prog.active = 0;
    progress_clear();
}

/* ---- --stats ---- */

void cli_stats_phases(const char *what, const cli_phase *phases, int n, double total)
{
    char line[1024];
    int len = snprintf(line, sizeof line, "gpusort: %s phases (s):", what);
    for (int i = 0; i < n && len < (int)sizeof line; i++)
        if (phases[i].seconds >= 0)
            len += snprintf(line + len, sizeof line - (size_t)len, " %s %.3f%s", phases[i].name,
                            phases[i].seconds, phases[i].note ? phases[i].note : "");
    if (len < (int)sizeof line)
        snprintf(line + len, sizeof line - (size_t)len, " | total %.3f\n", total);
    progress_clear();
    fputs(line, stderr);
}

/* ---- reading ---- */

/* Reads go in pieces of this size so that progress can move and signals are seen promptly. */
#define READ_CHUNK ((size_t)64 << 20)

static const char *display_name(const char *path)
{
    return (!path || strcmp(path, "-") == 0) ? "standard input" : path;
}

void *cli_read_file(const char *path, size_t *size)
{
    int is_stdin = !path || strcmp(path, "-") == 0;
    const char *name = display_name(path);
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) cli_fail("cannot open %s: %s", name, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) cli_fail("cannot stat %s: %s", name, strerror(errno));
    if (S_ISDIR(st.st_mode)) cli_fail("%s: is a directory", name);

    /* A regular file of known size is read into one exact buffer; a pipe grows one. */
    int known = S_ISREG(st.st_mode);
    size_t cap = known ? (size_t)st.st_size : READ_CHUNK;
    if (known && (uint64_t)st.st_size > (uint64_t)SIZE_MAX / 2)
        cli_fail("%s: too large for this machine's address space", name);
    unsigned char *buf = (unsigned char *)gpusort__malloc(cap ? cap : 1);
    if (!buf)
        cli_fail("out of memory: cannot hold %s (%zu bytes)", name, cap);
    size_t len = 0;
    cli_progress_start("reading", known ? (uint64_t)cap : 0);
    for (;;) {
        if (len == cap) {
            if (known) {
                /* The file may have grown since fstat: check with a one-byte read. */
                unsigned char probe;
                ssize_t r = read(fd, &probe, 1);
                if (r == 0) break;
                if (r < 0) {
                    if (errno == EINTR) continue;
                    cli_fail("read error on %s: %s", name, strerror(errno));
                }
                known = 0;
                size_t ncap = cap + READ_CHUNK;
                unsigned char *nb = (unsigned char *)gpusort__realloc(buf, ncap);
                if (!nb) cli_fail("out of memory reading %s", name);
                buf = nb;
                cap = ncap;
                buf[len++] = probe;
                continue;
            }
            size_t ncap = cap + cap / 2;
            if (ncap < cap) cli_fail("out of memory reading %s", name);
            unsigned char *nb = (unsigned char *)gpusort__realloc(buf, ncap);
            if (!nb) cli_fail("out of memory reading %s (%zu bytes so far)", name, len);
            buf = nb;
            cap = ncap;
        }
        size_t want = cap - len;
        if (want > READ_CHUNK) want = READ_CHUNK;
        ssize_t r = read(fd, buf + len, want);
        if (r < 0) {
            if (errno == EINTR) continue;
            cli_fail("read error on %s: %s", name, strerror(errno));
        }
        if (r == 0) break;
        len += (size_t)r;
        cli_progress_update(len);
    }
    cli_progress_end();
    if (!is_stdin) close(fd);
    *size = len;
    return buf;
}

/* ---- atomic output ---- */

/* Temporaries that another run left beside the destination: a run killed by SIGKILL (or a
 * power cut) cannot remove its ".<name>.gpusort-XXXXXX". Whether its owner is still alive
 * cannot be told from the file, so a later run does not delete it: it names it and says how. */
static void note_stale_temps(const char *tmp, size_t dirlen)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", dirlen ? (int)dirlen : 1, dirlen ? tmp : ".");
    const char *own = tmp + dirlen;
    size_t plen = strlen(own) - 6;            /* ".<name>.gpusort-" without the XXXXXX */
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    int found = 0;
    while ((e = readdir(d)))
        if (strlen(e->d_name) == plen + 6 && strncmp(e->d_name, own, plen) == 0 &&
            strcmp(e->d_name, own) != 0)
            found++;
    closedir(d);
    const char *where = dirlen ? dir : "./";
    if (found)
        cli_error("note: %d temporary file%s %s%.*s?????? left by an interrupted gpusort; if no "
                  "other gpusort is writing this output now, remove %s: rm -f '%s%.*s'??????",
                  found, found > 1 ? "s" : "", where, (int)plen, own, found > 1 ? "them" : "it",
                  where, (int)plen, own);
}

void cli_out_open(cli_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!path || strcmp(path, "-") == 0) {
        o->f = stdout;
        return;
    }
    /* Resolve a symbolic link so that its target is replaced. */
    char *dest = NULL;
    struct stat lst, st;
    int exists = stat(path, &st) == 0;
    if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && exists) dest = realpath(path, NULL);
    if (!dest) dest = gpusort__strdup(path);
    if (!dest) cli_fail("out of memory");
    o->path = dest;

    /* Replacing a file we could not write to would bypass its permissions: refuse, as a
     * plain open for writing would. */
    if (exists && access(dest, W_OK) != 0) cli_fail("cannot write %s: %s", path, strerror(errno));
    if (exists && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) cli_fail("cannot write %s: is a directory", path);
        /* A device or FIFO: write straight into it. */
        o->f = fopen(dest, "wb");
        if (!o->f) cli_fail("cannot open %s for writing: %s", path, strerror(errno));
        return;
    }

    const char *slash = strrchr(dest, '/');
    size_t dirlen = slash ? (size_t)(slash - dest) + 1 : 0;
    const char *base = slash ? slash + 1 : dest;
    /* ".<name>.gpusort-XXXXXX", or ".gpusort-XXXXXX" where that would pass NAME_MAX (255). */
    if (strlen(base) > 200) base = "";
    size_t tlen = dirlen + 2 + strlen(base) + sizeof "gpusort-XXXXXX";
    char *tmp = (char *)gpusort__malloc(tlen);
    if (!tmp) cli_fail("out of memory");
    snprintf(tmp, tlen, "%.*s.%s%sgpusort-XXXXXX", (int)dirlen, dest, base, *base ? "." : "");

    int fd = cli_temp_mkstemp(tmp);
    int err = errno;
    if (fd < 0) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%.*s", dirlen ? (int)dirlen : 1, dirlen ? dest : ".");
        cli_fail("cannot create a temporary file in %s for %s: %s", dir, path, strerror(err));
    }
    note_stale_temps(tmp, dirlen);
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    (void)fchmod(fd, mode);
    /* Keep the owner of a file we replace (possible only for root; best effort). */
    if (exists && (st.st_uid != geteuid() || st.st_gid != getegid()))
        if (fchown(fd, st.st_uid, st.st_gid) != 0) { /* best effort: keep ours */ }
    o->tmp = tmp;
    o->f = fdopen(fd, "wb");
    if (!o->f) {
        close(fd);
        cli_fail("cannot open %s: %s", tmp, strerror(errno));
    }
}

static const char *out_name(const cli_out *o) { return o->path ? o->path : "standard output"; }

/* ---- test-only write faults ----
 * GPUSORT_TEST_FAIL_WRITE=k[:eio|enospc|short] (main.c reads it): the k-th write or fsync of an
 * output or temporary file fails with EIO or ENOSPC, or ("short") writes half its bytes and the
 * next one fails with ENOSPC, as a disk that fills up mid-write does. Every such call site asks
 * cli_write_fault first; tests/fault/cli_fault.sh sweeps k over small jobs. */
static struct {
    long at;                /* 0: off */
    int kind;               /* 'e' EIO, 'n' ENOSPC, 's' short */
    long count;
    int full;               /* after a short write: every later call fails with ENOSPC */
    pthread_mutex_t lock;
} wfault = {.lock = PTHREAD_MUTEX_INITIALIZER};

int cli_write_fault_set(const char *spec)
{
    char *e;
    long k = strtol(spec, &e, 10);
    if (k < 1) return -1;
    int kind = 'e';
    if (*e == ':') {
        if (strcmp(e + 1, "eio") == 0) kind = 'e';
        else if (strcmp(e + 1, "enospc") == 0) kind = 'n';
        else if (strcmp(e + 1, "short") == 0) kind = 's';
        else return -1;
    } else if (*e) {
        return -1;
    }
    wfault.at = k;
    wfault.kind = kind;
    return 0;
}

int cli_write_fault(size_t *n)
{
    if (!wfault.at) return 0;
    pthread_mutex_lock(&wfault.lock);
    long c = ++wfault.count;
    int r = 0, err = 0;
    if (wfault.full) {
        r = -1;
        err = ENOSPC;
    } else if (c == wfault.at) {
        if (wfault.kind == 's' && n && *n > 1) {
            *n /= 2;
            wfault.full = 1;
        } else {
            r = -1;
            err = wfault.kind == 'e' ? EIO : ENOSPC;
        }
    }
    pthread_mutex_unlock(&wfault.lock);
    if (r) errno = err;
    return r;
}

void cli_out_set_line_hook(cli_out *o, int delim, cli_line_hook hook, void *arg)
{
    o->hook = hook;
    o->hook_arg = arg;
    o->hook_delim = delim;
}

static void pend_add(cli_out *o, const uint8_t *p, size_t n)
{
    if (o->pend_len + n > o->pend_cap) {
        size_t c = o->pend_cap ? o->pend_cap : 256;
        while (c < o->pend_len + n) c *= 2;
        uint8_t *nb = (uint8_t *)realloc(o->pend, c);
        if (!nb) cli_fail("out of memory (%zu bytes)", c);
        o->pend = nb;
        o->pend_cap = c;
    }
    memcpy(o->pend + o->pend_len, p, n);
    o->pend_len += n;
}

/* The lines of data through the hook; the tail without a delimiter waits in o->pend. */
static void hook_lines(cli_out *o, const uint8_t *p, size_t n)
{
    const uint8_t *end = p + n;
    while (p < end) {
        const uint8_t *d = (const uint8_t *)memchr(p, o->hook_delim, (size_t)(end - p));
        if (!d) {
            pend_add(o, p, (size_t)(end - p));
            return;
        }
        if (o->pend_len) {
            pend_add(o, p, (size_t)(d - p));
            size_t len = o->pend_len;
            o->pend_len = 0;
            o->hook(o->hook_arg, o, o->pend, len);
        } else {
            o->hook(o->hook_arg, o, p, (size_t)(d - p));
        }
        p = d + 1;
    }
}

void cli_out_write(cli_out *o, const void *data, size_t n)
{
    if (o->hook) {
        hook_lines(o, (const uint8_t *)data, n);
        return;
    }
    cli_out_write_raw(o, data, n);
}

void cli_out_write_raw(cli_out *o, const void *data, size_t n)
{
    if (!o->f) cli_fail("internal error: write to a closed output");
    size_t k = n;
    int err = 0;
    if (n && cli_write_fault(&k) != 0) err = errno;
    else if (n && (fwrite(data, 1, k, o->f) != k || k < n)) err = k < n ? ENOSPC : errno;
    if (err) cli_fail("write error on %s: %s", out_name(o), strerror(err ? err : EIO));
}

int cli_out_pwrite_ready(cli_out *o)
{
    if (!o->f || fflush(o->f) != 0) return 0;
    int fd = fileno(o->f);
    int fl = fcntl(fd, F_GETFL);
    off_t at = lseek(fd, 0, SEEK_CUR);
    /* O_APPEND (a `>>` redirection) would make pwrite append, whatever its offset. */
    if (fl < 0 || (fl & O_APPEND) || at < 0) return 0;
    o->base = (uint64_t)at;
    return 1;
}

int cli_out_pwrite(cli_out *o, const void *data, uint64_t offset, size_t n)
{
    int fd = fileno(o->f);
    const char *p = (const char *)data;
    while (n) {
        size_t k = n;
        if (cli_write_fault(&k) != 0) return -1;
        ssize_t w = pwrite(fd, p, k, (off_t)(o->base + offset));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return -1;
        if (w == 0) {
            errno = ENOSPC;
            return -1;
        }
#ifdef SYNC_FILE_RANGE_WRITE
        /* --sync: start this range's writeback now (asynchronously), so that the disk works
         * while the other pieces are written and the final fsync finds little left to do. */
        if (cli_sync && o->tmp)
            (void)sync_file_range(fd, (off_t)(o->base + offset), w, SYNC_FILE_RANGE_WRITE);
#endif
        p += w;
        offset += (uint64_t)w;
        n -= (size_t)w;
    }
    return 0;
}

/* With the blocks reserved, ext4 takes the pwrites of the streamed sort faster: it no longer
 * reserves space page by page as the data comes (bench/results/pipeline-2026-11-28d.md). Only
 * temporary files: a user's file (standard output redirected) would show its full size
 * before its data, and a failed run would leave zeros where it leaves a short file today. */
int cli_out_reserve(cli_out *o, uint64_t bytes)
{
#ifdef __linux__
    struct stat st;
    if (!o->f || !o->tmp || bytes == 0 || fflush(o->f) != 0) return 0;
    int fd = fileno(o->f);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    off_t at = lseek(fd, 0, SEEK_CUR);
    if (at < 0) return 0;
    if (fallocate(fd, 0, at, (off_t)bytes) == 0) return 1;
    if (errno == ENOSPC || errno == EDQUOT || errno == EFBIG)
        cli_fail("write error on %s: %s", out_name(o), strerror(errno));
#else
    (void)o;
    (void)bytes;
#endif
    return 0;
}

/* Pieces of 2 MiB: a thread told to stop finishes its piece first (a few ms at most), and
 * cli_prefill_end waits for that. */
#define PREFILL_PIECE ((uint64_t)2 << 20)
#define PREFILL_THREADS_MAX 16

struct cli_prefill {
    int fd[2];
    uint64_t base[2], bytes[2];
    int n;
    uint64_t total;                 /* the outputs' bytes, end to end */
    _Atomic uint64_t next;          /* the next piece, as an offset into that total */
    _Atomic uint64_t written;
    atomic_int stop;
    pthread_t thread[PREFILL_THREADS_MAX];
    int threads;
    const char *zeros;              /* one piece of zeros, shared by the threads */
};

static void *prefill_main(void *arg)
{
    cli_prefill *p = (cli_prefill *)arg;
    while (!atomic_load(&p->stop)) {
        uint64_t at = atomic_fetch_add(&p->next, PREFILL_PIECE);
        if (at >= p->total) break;
        int i = at >= p->bytes[0];
        uint64_t off = i ? at - p->bytes[0] : at;
        uint64_t len = p->bytes[i] - off < PREFILL_PIECE ? p->bytes[i] - off : PREFILL_PIECE;
        /* A piece may straddle the two outputs: its tail in output 0 is written, the rest is
         * left to the real write (one piece; the threads stop anyway). */
        ssize_t w = pwrite(p->fd[i], p->zeros, (size_t)len, (off_t)(p->base[i] + off));
        if (w != (ssize_t)len) break;
        atomic_fetch_add(&p->written, (uint64_t)w);
    }
    return NULL;
}

cli_prefill *cli_prefill_start(cli_out *const *outs, const uint64_t *bytes, int n, int threads)
{
    if (threads > PREFILL_THREADS_MAX) threads = PREFILL_THREADS_MAX;
    if (threads <= 0 || n <= 0 || n > 2) return NULL;
    cli_prefill *p = calloc(1, sizeof *p);
    char *zeros = calloc(1, PREFILL_PIECE);
    if (!p || !zeros) {
        free(p);
        free(zeros);
        return NULL;
    }
    p->zeros = zeros;
    for (int i = 0; i < n; i++) {
        p->fd[p->n] = fileno(outs[i]->f);
        p->base[p->n] = outs[i]->base;
        p->bytes[p->n] = bytes[i];
        p->total += bytes[i];
        p->n++;
    }
    atomic_init(&p->next, 0);
    atomic_init(&p->written, 0);
    atomic_init(&p->stop, 0);
    while (p->threads < threads && p->total &&
           pthread_create(&p->thread[p->threads], NULL, prefill_main, p) == 0)
        p->threads++;
    if (p->threads == 0) {
        cli_prefill_end(p);
        return NULL;
    }
    return p;
}

void cli_prefill_stop(cli_prefill *p)
{
    if (p) atomic_store(&p->stop, 1);
}

uint64_t cli_prefill_end(cli_prefill *p)
{
    if (!p) return 0;
    cli_prefill_stop(p);
    for (int i = 0; i < p->threads; i++) pthread_join(p->thread[i], NULL);
    uint64_t written = atomic_load(&p->written);
    free((void *)p->zeros);
    free(p);
    return written;
}

void cli_out_pwrite_end(cli_out *o, uint64_t bytes)
{
    /* Leave the file offset after the data, as sequential writes would (standard output
     * redirected to a file may be written further by the shell). */
    (void)lseek(fileno(o->f), (off_t)(o->base + bytes), SEEK_SET);
}

void cli_out_sync(cli_out *o)
{
    if (!o->f) return;
    if (o->hook && o->pend_len) {          /* a last line without its delimiter */
        size_t len = o->pend_len;
        o->pend_len = 0;
        o->hook(o->hook_arg, o, o->pend, len);
    }
    free(o->pend);
    o->pend = NULL;
    o->pend_cap = 0;
    const char *name = out_name(o);
    int err = 0;
    if (fflush(o->f) != 0 || ferror(o->f)) err = errno ? errno : EIO;
    if (!err && o->tmp && cli_sync &&
        (cli_write_fault(NULL) != 0 || fsync(fileno(o->f)) != 0))
        err = errno;
    if (o->f == stdout) {
        o->f = NULL;
        if (err) cli_fail("write error on %s: %s", name, strerror(err));
        return;
    }
    if (fclose(o->f) != 0 && !err) err = errno;
    o->f = NULL;
    if (err) cli_fail("write error on %s: %s", name, strerror(err));
}

void cli_out_commit(cli_out *o)
{
    cli_out_sync(o);
    int renamed = o->tmp != NULL;
    if (o->tmp) {
        if (rename(o->tmp, o->path) != 0)
            cli_fail("cannot rename %s to %s: %s", o->tmp, o->path, strerror(errno));
        cli_temp_forget(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    if (cli_sync && renamed) {
        /* Make the rename itself durable: fsync the folder (best effort). */
        char *slash = strrchr(o->path, '/');
        char dir[PATH_MAX];
        if (slash) snprintf(dir, sizeof dir, "%.*s", (int)(slash - o->path) + 1, o->path);
        else snprintf(dir, sizeof dir, ".");
        int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            (void)fsync(dfd);
            close(dfd);
        }
    }
    free(o->path);
    o->path = NULL;
}

void cli_out_abort(cli_out *o)
{
    free(o->pend);
    o->pend = NULL;
    if (o->f && o->f != stdout) fclose(o->f);
    o->f = NULL;
    if (o->tmp) {
        unlink(o->tmp);
        cli_temp_forget(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
    }
    free(o->path);
    o->path = NULL;
}

/* ---- sizes ---- */

static uint64_t physical_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return (pages > 0 && page > 0) ? (uint64_t)pages * (uint64_t)page : 0;
}

/* Multiply with overflow check; returns 0 on overflow. */
static int mul_ok(uint64_t a, uint64_t b, uint64_t *r)
{
    if (a && b > UINT64_MAX / a) return 0;
    *r = a * b;
    return 1;
}

static int parse_u64(const char *s, const char **end, uint64_t *v)
{
    if (!s || *s < '0' || *s > '9') return -1;
    errno = 0;
    char *e;
    unsigned long long x = strtoull(s, &e, 10);
    if (errno == ERANGE) return -1;
    *v = x;
    *end = e;
    return 0;
}

/* Binary suffixes: K = 2^10 ... E = 2^60 (as GNU sort -S). Returns the shift or -1. */
static int suffix_shift(char c)
{
    switch (c) {
    case 'b': case 'B': return 0;
    case 'k': case 'K': return 10;
    case 'm': case 'M': return 20;
    case 'g': case 'G': return 30;
    case 't': case 'T': return 40;
    case 'p': case 'P': return 50;
    case 'e': case 'E': return 60;
    default: return -1;
    }
}

int cli_parse_size(const char *s, uint64_t *bytes)
{
    const char *e;
    uint64_t v;
    if (parse_u64(s, &e, &v) != 0) return -1;
    if (*e == 0) { *bytes = v; return 0; }
    if (e[0] == '%' && e[1] == 0) {
        if (v > 100) return -1;
        *bytes = (uint64_t)((long double)physical_ram() * (long double)v / 100.0L);
        return 0;
    }
    int sh = suffix_shift(e[0]);
    /* Accept "64M", "64MB" and "64MiB". */
    if (sh < 0 || !(e[1] == 0 || (sh && strcmp(e + 1, "B") == 0) || (sh && strcmp(e + 1, "iB") == 0)))
        return -1;
    return mul_ok(v, (uint64_t)1 << sh, bytes) ? 0 : -1;
}

int cli_parse_count(const char *s, uint64_t *count)
{
    const char *e;
    uint64_t v;
    if (parse_u64(s, &e, &v) != 0) return -1;
    if (*e == 0) { *count = v; return 0; }
    if (e[0] == '^') {                              /* 2^26 */
        uint64_t k, r = 1;
        const char *e2;
        if (parse_u64(e + 1, &e2, &k) != 0 || *e2) return -1;
        if (v < 2) { *count = k ? v : 1; return 0; }
        for (uint64_t i = 0; i < k; i++)
            if (!mul_ok(r, v, &r)) return -1;
        *count = r;
        return 0;
    }
    if (e[0] == 'e' || e[0] == 'E') {               /* 1e6 */
        uint64_t k;
        const char *e2;
        if (parse_u64(e + 1, &e2, &k) != 0 || *e2 || k > 19) return -1;
        uint64_t r = v;
        for (uint64_t i = 0; i < k; i++)
            if (!mul_ok(r, 10, &r)) return -1;
        *count = r;
        return 0;
    }
    int sh = suffix_shift(e[0]);
    if (sh <= 0 || e[1] != 0) return -1;
    return mul_ok(v, (uint64_t)1 << sh, count) ? 0 : -1;
}
