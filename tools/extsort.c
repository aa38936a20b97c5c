/*
 * extsort.c -- sorting inputs larger than memory: temporary sorted runs and their k-way merge.
 *
 * The interface, the order of calls and the file/cleanup rules are in extsort.h. This file:
 *   ext_sink_*      buffered writes to the output (cli_out) or to a run file (write(2)), and
 *                   the ordered parallel output of a sorted chunk (ext_sink_gather)
 *   ext_reader_*    buffered reads of delimited lines or fixed-size records
 *   extsort_*       run files (mkstemp in the -T folders, registered for removal) and the merge
 *
 * The merge is a loser tree (tournament tree, Knuth TAOCP vol. 3, 5.4.1) over the current item
 * of every input, ordered by (item, input index): the winner is the smallest item, the earliest
 * input first among equals. That tie rule is what makes merging runs cut from the input in order
 * equal to a stable sort of it. Each internal node keeps the loser of the match played there;
 * after the winner's input advances, only the matches on its path to the root are replayed:
 * log2(k) comparisons per item (a binary heap needs about twice that). Example, k = 4 runs
 * A = [1 4], B = [2 3], C = [1], D = []: matches A:1-B:2 (B loses), C:1-D:end (D loses),
 * final A:1-C:1 (C loses: A is the lower input) -> out A:1; A advances to 4 and replays
 * against B:2 (A loses, B goes on) and C:1 (B loses) -> out C:1; then B:2, B:3, A:4.
 *
 * This is the program's one k-way merge: text lines (line_cmp), records (a memcmp of the key
 * bytes) and binary numbers all merge here. Key mode (extsort_items.key): each item's 64-bit
 * image is computed once when its input advances, and a match compares those integers, ties to
 * the lower input as before; an exhausted input holds the greatest key and a tie rank above
 * every live input, so it loses without a test. The binary number sort merges this way (the
 * radix key of a number is its order), a match then costs one integer compare, not a call.
 *
 * With -u the merge drops an item equal to the last one written (the first of each group is
 * kept: the earliest in input order, as GNU sort keeps).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "extsort.h"

#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Output buffer of a sink: large writes keep the system-call count low. */
#define SINK_BUF ((size_t)1 << 20)
/* Smallest read buffer per merged input. */
#define READER_MIN ((size_t)64 << 10)
#define READER_MAX ((size_t)4 << 20)
/* Transparent huge page size (x86-64, arm64 with 4 KiB pages). */
#define HUGE_ALIGN ((size_t)2 << 20)

/* ---- sinks ---- */

static void sink_init(ext_sink *s)
{
    s->cap = SINK_BUF;
    s->buf = (uint8_t *)cli_alloc(s->cap);
    s->len = 0;
}

void ext_sink_to_out(ext_sink *s, cli_out *out)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->fd = -1;
    sink_init(s);
}

static void raw_write(ext_sink *s, const uint8_t *p, size_t n)
{
    s->written += n;
    if (s->out) {
        cli_out_write(s->out, p, n);
        cli_progress_update(s->written);   /* a merge's percent, when its total is known */
        return;
    }
    while (n) {
        size_t k = n;
        ssize_t w = cli_write_fault(&k) == 0 ? write(s->fd, p, k) : -1;
        if (w < 0) {
            if (errno == EINTR) continue;
            cli_fail("cannot write temporary file %s: %s", s->path, strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
}

void ext_sink_flush(ext_sink *s)
{
    if (s->len) raw_write(s, s->buf, s->len);
    s->len = 0;
}

void ext_sink_write(ext_sink *s, const void *p, size_t n)
{
    if (s->len + n > s->cap) {
        ext_sink_flush(s);
        if (n >= s->cap) {
            raw_write(s, (const uint8_t *)p, n);
            return;
        }
    }
    memcpy(s->buf + s->len, p, n);
    s->len += n;
}

void ext_sink_item(ext_sink *s, const extsort_items *it, const uint8_t *p, size_t n)
{
    if (it->record_size) {
        if (s->len + n > s->cap) {
            ext_sink_write(s, p, n);
            return;
        }
        uint8_t *d = s->buf + s->len;
        if (n == 8) memcpy(d, p, 8);            /* numbers: a fixed-size copy, no call */
        else if (n == 4) memcpy(d, p, 4);
        else memcpy(d, p, n);
        s->len += n;
        return;
    }
    if (s->len + n + 1 <= s->cap) {          /* the common case: one copy, no calls */
        memcpy(s->buf + s->len, p, n);
        s->buf[s->len + n] = (uint8_t)it->delim;
        s->len += n + 1;
        return;
    }
    uint8_t d = (uint8_t)it->delim;
    ext_sink_write(s, p, n);
    ext_sink_write(s, &d, 1);
}

void ext_sink_close(ext_sink *s)
{
    if (s->buf) ext_sink_flush(s);
    free(s->buf);
    s->buf = NULL;
}

/* ---- ordered parallel output ---- */

typedef struct gather_round {
    ext_format_fn fmt;
    void *arg;
    size_t base, count;        /* this round's items */
    int parts;
    ext_out_buf *bufs;         /* one per slice */
} gather_round;

static void gather_task(void *arg, size_t i)
{
    gather_round *g = (gather_round *)arg;
    size_t a = g->base + g->count * i / (size_t)g->parts;
    size_t b = g->base + g->count * (i + 1) / (size_t)g->parts;
    g->bufs[i].len = 0;
    g->fmt(g->arg, a, b, &g->bufs[i]);
}

void ext_sink_gather(ext_sink *s, size_t n, size_t per, int parts, ext_format_fn fmt, void *arg)
{
    gather_round g = {fmt, arg, 0, 0, parts, NULL};
    g.bufs = (ext_out_buf *)cli_alloc((size_t)parts * sizeof *g.bufs);
    memset(g.bufs, 0, (size_t)parts * sizeof *g.bufs);
    for (size_t base = 0; base < n; base += g.count) {
        g.base = base;
        g.count = n - base < per * (size_t)parts ? n - base : per * (size_t)parts;
        gpusort__cpu_parallel_for(parts, (size_t)parts, gather_task, &g);
        for (int i = 0; i < parts; i++) ext_sink_write(s, g.bufs[i].p, g.bufs[i].len);
    }
    for (int i = 0; i < parts; i++) free(g.bufs[i].p);
    free(g.bufs);
}

void ext_out_reserve(ext_out_buf *out, size_t more)
{
    if (out->len + more <= out->cap) return;
    size_t cap = (out->len + more) * 2;
    uint8_t *p = (uint8_t *)gpusort__realloc(out->p, cap);
    if (!p) cli_fail("out of memory for the output buffer (%zu bytes)", cap);
    out->p = p;
    out->cap = cap;
}

/* ---- readers ---- */

void ext_reader_open(ext_reader *r, const char *path, size_t bufsize, size_t record_size,
                     int delim)
{
    memset(r, 0, sizeof *r);
    int is_stdin = strcmp(path, "-") == 0;
    r->name = gpusort__strdup(is_stdin ? "-" : path);
    if (!r->name) cli_fail("out of memory");
    r->fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) cli_fail("cannot read: %s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode))
        cli_fail("read failed: %s: %s", path, strerror(EISDIR));
    if (bufsize < record_size * 2) bufsize = record_size * 2;
    r->cap = bufsize < 4096 ? 4096 : bufsize;
    r->buf = (uint8_t *)cli_alloc(r->cap);
    r->record_size = record_size;
    r->delim = delim;
}

/* Read more data; keeps buf[beg, end). Returns 0 at end of file. */
static int reader_fill(ext_reader *r)
{
    if (r->eof) return 0;
    if (r->beg > 0) {
        memmove(r->buf, r->buf + r->beg, r->end - r->beg);
        r->end -= r->beg;
        r->scan -= r->beg;
        r->beg = 0;
    }
    if (r->end == r->cap) {                  /* a line longer than the buffer: grow it */
        size_t ncap = r->cap * 2;
        uint8_t *nb = (uint8_t *)gpusort__realloc(r->buf, ncap);
        if (!nb) cli_fail("out of memory: a line of more than %zu bytes in %s", r->cap, r->name);
        r->buf = nb;
        r->cap = ncap;
    }
    for (;;) {
        ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (got < 0) {
            if (errno == EINTR) continue;
            cli_fail("read failed: %s: %s", r->name, strerror(errno));
        }
        if (got == 0) { r->eof = 1; return 0; }
        r->end += (size_t)got;
        return 1;
    }
}

/* Refill until a whole record is buffered; 0 at the end of the input. */
static int record_fill(ext_reader *r)
{
    while (r->end - r->beg < r->record_size) {
        if (!reader_fill(r)) {
            if (r->end > r->beg)
                cli_fail("%s: the size is not a multiple of the record size %zu", r->name,
                         r->record_size);
            return 0;
        }
    }
    return 1;
}

/* ext_reader_next for fixed-size records; inlined into the merge loop. */
static inline int record_next(ext_reader *r, const uint8_t **p)
{
    if (r->end - r->beg < r->record_size && !record_fill(r)) return 0;
    *p = r->buf + r->beg;
    r->beg += r->record_size;
    r->scan = r->beg;
    return 1;
}

int ext_reader_next(ext_reader *r, const uint8_t **p, size_t *len)
{
    if (r->record_size) {
        *len = r->record_size;
        return record_next(r, p);
    }
    for (;;) {
        if (r->scan < r->beg) r->scan = r->beg;
        uint8_t *q = r->scan < r->end
                         ? (uint8_t *)memchr(r->buf + r->scan, r->delim, r->end - r->scan)
                         : NULL;
        if (q) {
            *p = r->buf + r->beg;
            *len = (size_t)(q - (r->buf + r->beg));
            r->beg = (size_t)(q - r->buf) + 1;
            r->scan = r->beg;
            return 1;
        }
        r->scan = r->end;
        if (!reader_fill(r)) {
            if (r->end > r->beg) {           /* a last line without its delimiter */
                *p = r->buf + r->beg;
                *len = r->end - r->beg;
                r->beg = r->scan = r->end;
                return 1;
            }
            return 0;
        }
    }
}

void ext_reader_close(ext_reader *r)
{
    if (r->fd > STDIN_FILENO) close(r->fd);
    r->fd = -1;
    free(r->buf);
    free(r->name);
    r->buf = NULL;
    r->name = NULL;
}

void ext_item_copy_set(ext_item_copy *c, const uint8_t *p, size_t len)
{
    if (!c->p || len > c->cap) {
        c->cap = len * 2 + 64;
        free(c->p);
        c->p = (uint8_t *)cli_alloc(c->cap);
    }
    memcpy(c->p, p, len);
    c->len = len;
}

/* ---- large buffers ---- */

void *ext_big_alloc(size_t n)
{
    if (n < 4 * HUGE_ALIGN) return cli_alloc(n);
    void *p = NULL;
    size_t rounded = (n + HUGE_ALIGN - 1) & ~(HUGE_ALIGN - 1);
    if (gpusort__alloc_fails() || posix_memalign(&p, HUGE_ALIGN, rounded) != 0) cli_fail("out of memory (%zu bytes)", n);
#ifdef MADV_HUGEPAGE
    (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return p;
}

/* ---- parallel whole-file read ---- */

typedef struct pread_job {
    int fd;
    uint8_t *dst;
    size_t size;
    uint64_t offset;
    int parts;
    int err;                  /* errno of a failed slice */
    size_t got[64];           /* bytes read per slice */
} pread_job;

static void pread_task(void *arg, size_t i)
{
    pread_job *j = (pread_job *)arg;
    size_t a = j->size * i / (size_t)j->parts, b = j->size * (i + 1) / (size_t)j->parts;
    size_t done = 0;
    while (a + done < b) {
        ssize_t r = pread(j->fd, j->dst + a + done, b - a - done, (off_t)(j->offset + a + done));
        if (r < 0) {
            if (errno == EINTR) continue;
            j->err = errno;
            break;
        }
        if (r == 0) break;
        done += (size_t)r;
    }
    j->got[i] = done;
}

size_t ext_read_parallel(int fd, uint8_t *dst, size_t size, int threads, const char *name)
{
    return ext_pread_parallel(fd, dst, size, 0, threads, name);
}

size_t ext_pread_parallel(int fd, uint8_t *dst, size_t size, uint64_t offset, int threads,
                          const char *name)
{
    pread_job j;
    memset(&j, 0, sizeof j);
    j.fd = fd;
    j.dst = dst;
    j.size = size;
    j.offset = offset;
    j.parts = threads < 1 ? 1 : threads > 64 ? 64 : threads;
    gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, pread_task, &j);
    if (j.err) cli_fail("read failed: %s: %s", name, strerror(j.err));
    size_t total = 0;
    for (int i = 0; i < j.parts; i++) {
        size_t a = size * (size_t)i / (size_t)j.parts, b = size * (size_t)(i + 1) / (size_t)j.parts;
        if (j.got[i] != b - a) return a + j.got[i];   /* shrank while we read: the prefix */
        total = b;
    }
    return total;
}

/* ---- run files ---- */

void extsort_init(extsort *x, const extsort_items *items, const char *const *tmpdirs,
                  int ntmpdirs, uint64_t budget, int fanin)
{
    memset(x, 0, sizeof *x);
    x->items = *items;
    x->tmpdirs = tmpdirs;
    x->ntmpdirs = ntmpdirs;
    x->budget = budget;
    x->fanin = fanin < 2 ? 2 : fanin;
}

static void run_add(extsort *x, char *path)
{
    if (x->nruns == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 16;
        char **nr = (char **)gpusort__realloc(x->runs, x->cap * sizeof *nr);
        if (!nr) cli_fail("out of memory");
        x->runs = nr;
    }
    x->runs[x->nruns++] = path;
}

static void run_remove(char *path)
{
    unlink(path);
    cli_temp_forget(path);
    free(path);
}

void extsort_run_open(extsort *x, ext_sink *s)
{
    const char *dir = x->tmpdirs[x->next_tmpdir++ % x->ntmpdirs];
    size_t len = strlen(dir) + sizeof "/gpusort-XXXXXX";
    char *path = (char *)cli_alloc(len);
    snprintf(path, len, "%s%sgpusort-XXXXXX", dir,
             dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/");
    int fd = cli_temp_mkstemp(path);   /* created and registered as one step */
    int err = errno;
    if (fd < 0) cli_fail("cannot create temporary file in %s: %s", dir, strerror(err));
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->path = path;
    sink_init(s);
}

void extsort_run_close(extsort *x, ext_sink *s)
{
    ext_sink_close(s);
    if (close(s->fd) != 0)
        cli_fail("cannot write temporary file %s: %s", s->path, strerror(errno));
    s->fd = -1;
    run_add(x, s->path);
    s->path = NULL;
}

/* ---- merge ---- */

typedef struct mrg {
    const extsort_items *it;
    ext_reader *rd;
    const uint8_t **item;
    size_t *len;
    uint8_t *done;      /* input exhausted: loses to everything */
    uint64_t *key;      /* key mode: it->key of each current item; UINT64_MAX when done */
    size_t *rank;       /* key mode: the tie order, i while input i is live, k + i when done */
    size_t *tree;       /* loser tree: tree[0] the winner, tree[1..k) the losers of nodes */
    size_t k;
} mrg;

/* 1 if input a's item goes before input b's (ties: the lower input). In key mode a done input
 * holds the greatest key and a rank above every live input's, so it loses without a test. */
static inline int beats(const mrg *m, size_t a, size_t b)
{
    if (m->key)
        return m->key[a] < m->key[b] || (m->key[a] == m->key[b] && m->rank[a] < m->rank[b]);
    if (m->done[a]) return 0;
    if (m->done[b]) return 1;
    int c = m->it->cmp(m->it->arg, m->item[a], m->len[a], m->item[b], m->len[b]);
    return c < 0 || (c == 0 && a < b);
}

/* Move input i to its next item (and its key), or mark it done. */
static inline void advance(mrg *m, size_t i)
{
    ext_reader *r = &m->rd[i];
    if (r->record_size) {
        m->done[i] = !record_next(r, &m->item[i]);
        m->len[i] = r->record_size;
    } else {
        m->done[i] = !ext_reader_next(r, &m->item[i], &m->len[i]);
    }
    if (!m->key) return;
    if (m->done[i]) {
        m->key[i] = UINT64_MAX;
        m->rank[i] = m->k + i;
    } else {
        m->key[i] = m->it->key(m->it->arg, m->item[i], m->len[i]);
        m->rank[i] = i;
    }
}

/* Winner of the subtree at node i (children 2i, 2i+1; index c >= k is leaf c - k). */
static size_t tree_build(mrg *m, size_t i)
{
    if (i >= m->k) return i - m->k;
    size_t a = tree_build(m, 2 * i), b = tree_build(m, 2 * i + 1);
    if (beats(m, a, b)) { m->tree[i] = b; return a; }
    m->tree[i] = a;
    return b;
}

/* Input w has a new item (or is done): replay its path to the root. log2(k) comparisons. */
static void tree_replay(mrg *m, size_t w)
{
    for (size_t node = (w + m->k) / 2; node >= 1; node /= 2)
        if (beats(m, m->tree[node], w)) {
            size_t t = m->tree[node];
            m->tree[node] = w;
            w = t;
        }
    m->tree[0] = w;
}

/* Merge the files paths[0..n) into sink (a loser tree: Knuth, TAOCP vol. 3, 5.4.1). */
static void merge_into(extsort *x, char *const *paths, size_t n, ext_sink *sink)
{
    const extsort_items *it = &x->items;
    size_t bufsize = (size_t)(x->budget / (2 * (uint64_t)(n ? n : 1)));
    if (bufsize < READER_MIN) bufsize = READER_MIN;
    if (bufsize > READER_MAX) bufsize = READER_MAX;
    if (n == 0) return;
    mrg m;
    m.it = it;
    m.k = n;
    m.rd = (ext_reader *)cli_alloc(n * sizeof *m.rd);
    m.item = (const uint8_t **)cli_alloc(n * sizeof *m.item);
    m.len = (size_t *)cli_alloc(n * sizeof *m.len);
    m.key = it->key ? (uint64_t *)cli_alloc(n * sizeof *m.key) : NULL;
    m.rank = it->key ? (size_t *)cli_alloc(n * sizeof *m.rank) : NULL;
    m.done = (uint8_t *)cli_alloc(n);
    m.tree = (size_t *)cli_alloc(n * sizeof *m.tree);
    for (size_t i = 0; i < n; i++) {
        ext_reader_open(&m.rd[i], paths[i], bufsize, it->record_size, it->delim);
        advance(&m, i);
    }
    m.tree[0] = n == 1 ? 0 : tree_build(&m, 1);

    ext_item_copy last = {NULL, 0, 0};               /* -u: the last item written */
    for (;;) {
        size_t top = m.tree[0];
        if (m.done[top]) break;
        const uint8_t *p = m.item[top];
        size_t len = m.len[top];
        if (!it->unique) {
            ext_sink_item(sink, it, p, len);
        } else if (!last.p || it->cmp(it->arg, last.p, last.len, p, len) != 0) {
            ext_sink_item(sink, it, p, len);
            ext_item_copy_set(&last, p, len);
        }
        advance(&m, top);
        if (n > 1) tree_replay(&m, top);
    }
    free(last.p);
    for (size_t i = 0; i < n; i++) ext_reader_close(&m.rd[i]);
    free(m.rd);
    free(m.item);
    free(m.len);
    free(m.key);
    free(m.rank);
    free(m.done);
    free(m.tree);
}

/* Reduce the list to at most fanin runs by merging groups of consecutive ones. Inputs that are
 * not temporary (the -m files) are never removed: `owned` says which entries are ours. */
static void reduce_runs(extsort *x, char ***list, size_t *n, int **owned)
{
    while (*n > (size_t)x->fanin) {
        size_t groups = (*n + (size_t)x->fanin - 1) / (size_t)x->fanin;
        char **nl = (char **)cli_alloc(groups * sizeof *nl);
        int *no = (int *)cli_alloc(groups * sizeof *no);
        for (size_t g = 0; g < groups; g++) {
            size_t a = g * (size_t)x->fanin, b = a + (size_t)x->fanin;
            if (b > *n) b = *n;
            if (b - a == 1) {
                nl[g] = (*list)[a];
                no[g] = (*owned)[a];
                continue;
            }
            ext_sink s;
            extsort_run_open(x, &s);
            merge_into(x, *list + a, b - a, &s);
            char *path = s.path;
            ext_sink_close(&s);
            if (close(s.fd) != 0)
                cli_fail("cannot write temporary file %s: %s", path, strerror(errno));
            nl[g] = path;
            no[g] = 1;
            for (size_t i = a; i < b; i++)
                if ((*owned)[i]) run_remove((*list)[i]);
        }
        free(*list);
        free(*owned);
        *list = nl;
        *owned = no;
        *n = groups;
    }
}

static void merge_list(extsort *x, char **list, size_t n, int *owned, cli_out *out)
{
    reduce_runs(x, &list, &n, &owned);
    ext_sink s;
    ext_sink_to_out(&s, out);
    merge_into(x, list, n, &s);
    ext_sink_close(&s);
    for (size_t i = 0; i < n; i++)
        if (owned[i]) run_remove(list[i]);
    free(list);
    free(owned);
}

void extsort_finish(extsort *x, cli_out *out)
{
    char **list = x->runs;
    size_t n = x->nruns;
    int *owned = (int *)cli_alloc((n ? n : 1) * sizeof *owned);
    for (size_t i = 0; i < n; i++) owned[i] = 1;
    x->runs = NULL;
    x->nruns = x->cap = 0;
    merge_list(x, list, n, owned, out);
}

void extsort_merge_paths(extsort *x, char *const *paths, size_t n, cli_out *out)
{
    char **list = (char **)cli_alloc((n ? n : 1) * sizeof *list);
    int *owned = (int *)cli_alloc((n ? n : 1) * sizeof *owned);
    for (size_t i = 0; i < n; i++) {
        list[i] = paths[i];
        owned[i] = 0;
    }
    merge_list(x, list, n, owned, out);
}

void extsort_free(extsort *x)
{
    for (size_t i = 0; i < x->nruns; i++) run_remove(x->runs[i]);
    free(x->runs);
    x->runs = NULL;
    x->nruns = x->cap = 0;
}
