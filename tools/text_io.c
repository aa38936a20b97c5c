/*
 * text_io.c -- the text mode's input and output: reading the inputs as one stream of lines,
 * splitting a buffer into lines, and writing sorted lines. Declared in text.h.
 *
 * Reading. Inputs that are all regular files and fit the budget are read whole, big ones by
 * all threads at once with parallel pread(2) (text_input_load_all: the kernel's copy into our
 * buffer is then parallel too); others (pipes, larger inputs) in steps (text_input_fill) that
 * the driver sizes from the budget. A file's last line gets its missing delimiter, so every
 * line in the buffer ends with one. The buffer has TEXT_BUF_SLACK bytes past its data.
 *
 * Splitting (text_index_lines): line starts found a word at a time (SWAR: every byte equal to
 * the delimiter flagged in one expression, then counted or walked bit by bit), by all threads
 * over slices of the buffer: a count pass, a prefix sum, a fill pass. text_compact_lines
 * squeezes the delimiters out in place when the lines themselves are the sort keys (the
 * library's string sort takes contiguous strings).
 *
 * Writing (text_write_lines): the gather is random access into the line data, so threads
 * format slices of the output into their own buffers (prefetching ahead) and the buffers are
 * written in order; -u keeps the first line of each group of equal ones.
 * Big random-access arrays sit on transparent huge pages (ext_big_alloc).
 */
#include "text.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- input ---- */

static void input_open_next(text_input *in)
{
    tsort *t = in->t;
    while (in->file < t->o.nfiles) {
        const char *f = t->o.files[in->file++];
        if (strcmp(f, "-") == 0) {
            in->fd = STDIN_FILENO;
            in->name = "-";
        } else {
            in->fd = open(f, O_RDONLY | O_CLOEXEC);
            if (in->fd < 0) cli_fail("cannot read: %s: %s", f, strerror(errno));
            in->name = f;
        }
        struct stat st;
        if (fstat(in->fd, &st) == 0 && S_ISDIR(st.st_mode))
            cli_fail("read failed: %s: %s", f, strerror(EISDIR));
        return;
    }
    in->fd = -1;
    in->done = 1;
}

/* Read until the chunk holds `want` bytes of data or the input ends. Appends the missing
 * delimiter of a file's last line. Grows the buffer up to `want` (+1 for that delimiter). */
void text_input_fill(text_input *in, size_t want)
{
    tsort *t = in->t;
    if (in->cap < want + 1 + TEXT_BUF_SLACK) {
        size_t ncap = want + 1 + TEXT_BUF_SLACK;
        uint8_t *nb = (uint8_t *)gpusort__realloc(in->buf, ncap);
        if (!nb) cli_fail("out of memory: %zu bytes for the input", ncap);
        in->buf = nb;
        in->cap = ncap;
    }
    while (!in->done && in->len < want) {
        if (in->fd < 0) {
            input_open_next(in);
            continue;
        }
        size_t room = want - in->len;
        if (room > ((size_t)256 << 20)) room = (size_t)256 << 20;   /* let signals in */
        ssize_t r = read(in->fd, in->buf + in->len, room);
        if (r < 0) {
            if (errno == EINTR) continue;
            cli_fail("read failed: %s: %s", in->name, strerror(errno));
        }
        if (r == 0) {
            if (in->cur_has_data && in->buf[in->len - 1] != (uint8_t)t->delim)
                in->buf[in->len++] = (uint8_t)t->delim;     /* the +1 of the capacity */
            in->cur_has_data = 0;
            if (in->fd != STDIN_FILENO) close(in->fd);
            in->fd = -1;
            if (in->file >= t->o.nfiles) in->done = 1;
            continue;
        }
        in->len += (size_t)r;
        in->cur_has_data = 1;
    }
}

/* All inputs are regular files that fit: read them whole, big ones by all threads at once
 * (ext_read_parallel: the kernel's copy into our buffer is then parallel too). */
void text_input_load_all(text_input *in, size_t want)
{
    tsort *t = in->t;
    in->cap = want + 1 + TEXT_BUF_SLACK;
    free(in->buf);
    in->buf = (uint8_t *)ext_big_alloc(in->cap);
    for (int f = 0; f < t->o.nfiles; f++) {
        const char *name = t->o.files[f];
        int fd = open(name, O_RDONLY | O_CLOEXEC);
        if (fd < 0) cli_fail("cannot read: %s: %s", name, strerror(errno));
        struct stat st;
        if (fstat(fd, &st) != 0) cli_fail("cannot read: %s: %s", name, strerror(errno));
        size_t size = (size_t)st.st_size;
        if (size > want - in->len) size = want - in->len;   /* grew since we looked */
        size_t total = ext_read_parallel(fd, in->buf + in->len, size,
                                         size >= ((size_t)16 << 20) ? t->threads : 1, name);
        close(fd);
        in->len += total;
        if (total && in->buf[in->len - 1] != (uint8_t)t->delim) in->buf[in->len++] = (uint8_t)t->delim;
    }
    in->done = 1;
}

/* Sum of the input sizes if all are regular files, else 0. */
uint64_t text_inputs_size(const tsort *t, int *known)
{
    uint64_t s = 0;
    *known = 1;
    for (int i = 0; i < t->o.nfiles; i++) {
        struct stat st;
        if (strcmp(t->o.files[i], "-") == 0 || stat(t->o.files[i], &st) != 0 ||
            !S_ISREG(st.st_mode)) {
            *known = 0;
            continue;
        }
        s += (uint64_t)st.st_size;
    }
    return s;
}

uint64_t text_estimate_lines(const tsort *t, uint64_t total)
{
    static uint8_t sample[(size_t)1 << 20];
    for (int i = 0; i < t->o.nfiles; i++) {
        int fd = open(t->o.files[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t r = pread(fd, sample, sizeof sample, 0);
        close(fd);
        if (r <= 0) continue;
        size_t lines = 0;
        for (ssize_t k = 0; k < r; k++) lines += sample[k] == (uint8_t)t->delim;
        if (!lines) return total / (uint64_t)r + 1;       /* long lines */
        return (uint64_t)((double)total * (double)lines / (double)r * 1.1) + 1;
    }
    return total / 16 + 1;
}

/* ---- line splitting ---- */

/* Index lines: buf[0, size) where every line ends with the delimiter. */
typedef struct idx_job {
    const uint8_t *buf;
    size_t size;
    int delim, parts;
    size_t *count;
    uint64_t *off;
} idx_job;

/* High bit set in each byte of the word that equals the delimiter, exactly (no carries between
 * bytes: 0x7F + 0x7F < 0x100), so every set bit is a real delimiter. */
static inline uint64_t delim_bits(const uint8_t *p, uint64_t pattern)
{
    uint64_t v = text_load_le64(p) ^ pattern;
    return ~(((v & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | v | 0x7F7F7F7F7F7F7F7Full);
}

static void idx_count_task(void *arg, size_t i)
{
    idx_job *j = (idx_job *)arg;
    size_t a, b;
    text_slice(j->size, j->parts, i, &a, &b);
    size_t c = 0, x = a;
    uint64_t pattern = 0x0101010101010101ull * (uint8_t)j->delim;
    for (; x + 8 <= b; x += 8) c += (size_t)__builtin_popcountll(delim_bits(j->buf + x, pattern));
    for (; x < b; x++) c += j->buf[x] == (uint8_t)j->delim;
    j->count[i] = c;
}

static void idx_fill_task(void *arg, size_t i)
{
    idx_job *j = (idx_job *)arg;
    size_t a, b;
    text_slice(j->size, j->parts, i, &a, &b);
    size_t k = j->count[i];        /* first line index ending in this slice */
    uint64_t pattern = 0x0101010101010101ull * (uint8_t)j->delim;
    size_t x = a;
    for (; x + 8 <= b; x += 8)      /* a word at a time: the lines are short */
        for (uint64_t z = delim_bits(j->buf + x, pattern); z; z &= z - 1)
            j->off[++k] = (uint64_t)x + (uint64_t)(__builtin_ctzll(z) >> 3) + 1;
    for (; x < b; x++)
        if (j->buf[x] == (uint8_t)j->delim) j->off[++k] = (uint64_t)x + 1;
}

void text_index_lines(tsort *t, uint8_t *buf, size_t size, lineset *L)
{
    idx_job j = {buf, size, t->delim, size < ((size_t)8 << 20) ? 1 : t->threads, NULL, NULL};
    j.count = (size_t *)cli_alloc((size_t)j.parts * sizeof *j.count);
    gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, idx_count_task, &j);
    size_t n = text_slice_starts(j.count, j.parts);
    j.off = (uint64_t *)ext_big_alloc((n + 1) * sizeof *j.off);
    j.off[0] = 0;
    gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, idx_fill_task, &j);
    free(j.count);
    L->bytes = buf;
    L->off = j.off;
    L->n = n;
    L->gap = 1;
}

/* Squeeze the delimiters out, in place: each slice compacts to its own start (moves to the
 * left inside the slice, safe in parallel), then the slices move down in order. */
static void compact_task(void *arg, size_t i)
{
    par *p = (par *)arg;
    lineset *L = p->L;
    size_t a, b;
    text_slice(L->n, p->parts, i, &a, &b);
    if (a == b) return;
    uint64_t base = L->off[a], w = base;
    uint64_t *newoff = (uint64_t *)p->a;
    for (size_t x = a; x < b; x++) {
        size_t len = (size_t)(L->off[x + 1] - L->off[x]) - 1;
        memmove(L->bytes + w, L->bytes + L->off[x], len);
        newoff[x] = w;        /* local position for now */
        w += len;
    }
    p->counts[i] = (size_t)(w - base);
}

void text_compact_lines(tsort *t, lineset *L)
{
    par p = {t, L, L->n, text_parts_for(t, L->n), NULL, NULL, NULL, NULL};
    uint64_t *newoff = (uint64_t *)ext_big_alloc((L->n + 1) * sizeof *newoff);
    p.a = newoff;
    p.counts = (size_t *)cli_alloc((size_t)p.parts * sizeof *p.counts);
    text_run_par(&p, compact_task);
    uint64_t w = 0;
    for (int i = 0; i < p.parts; i++) {
        size_t a, b;
        text_slice(L->n, p.parts, (size_t)i, &a, &b);
        if (a == b) continue;
        uint64_t local = L->off[a];
        memmove(L->bytes + w, L->bytes + local, p.counts[i]);
        for (size_t x = a; x < b; x++) newoff[x] = newoff[x] - local + w;
        w += p.counts[i];
    }
    newoff[L->n] = w;
    free(p.counts);
    free(L->off);
    L->off = newoff;
    L->gap = 0;
}

/* ---- output ---- */

/* Write the lines in perm order (-u: the first of each group of equal lines). The gather is
 * random access into the line data, so threads format slices of the output into their own
 * buffers (prefetching a few lines ahead), and the buffers are written in order. */
#define WRITE_SLICE_LINES ((size_t)1 << 18)   /* lines per thread per round: a few MB */
#define PREFETCH_AHEAD 32

/* The lines of a chunk in sorted order, for ext_sink_gather. */
typedef struct wjob {
    tsort *t;
    const lineset *L;
    const uint64_t *perm;
} wjob;

static void write_slice(void *arg, size_t a, size_t b, ext_out_buf *o)
{
    const wjob *j = (const wjob *)arg;
    const lineset *L = j->L;
    const uint64_t *perm = j->perm;
    size_t len = o->len, cap = o->cap;
    uint8_t *out = o->p;
    uint8_t delim = (uint8_t)j->t->delim;
    int unique = j->t->o.unique;
    for (size_t k = a; k < b; k++) {
        if (k + 2 * PREFETCH_AHEAD < b) __builtin_prefetch(&L->off[perm[k + 2 * PREFETCH_AHEAD]]);
        if (k + PREFETCH_AHEAD < b) __builtin_prefetch(L->bytes + L->off[perm[k + PREFETCH_AHEAD]]);
        uint64_t x = perm[k];
        const uint8_t *p = LP(L, x);
        size_t n = LL(L, x);
        if (unique && k > 0) {
            /* Equal neighbours are all equal to the first of their group (sorted order). */
            uint64_t y = perm[k - 1];
            if (text_line_cmp(j->t, LP(L, y), LL(L, y), p, n) == 0) continue;
        }
        if (len + n + 1 > cap) {
            o->len = len;
            ext_out_reserve(o, n + 1);
            out = o->p;
            cap = o->cap;
        }
        if (n <= 16 && len + 16 < cap) {
            memcpy(out + len, p, 16);          /* TEXT_BUF_SLACK makes the over-read safe */
        } else if (n <= 32 && len + 32 < cap) {
            memcpy(out + len, p, 32);
        } else {
            memcpy(out + len, p, n);
        }
        out[len + n] = delim;
        len += n + 1;
    }
    o->len = len;
}

void text_write_lines(tsort *t, const lineset *L, const uint64_t *perm, ext_sink *sink)
{
    size_t n = L->n;
    wjob j = {t, L, perm};
    int parts = text_parts_for(t, n);
    /* Output slices take at most an eighth of the budget. */
    size_t avg = n ? (size_t)(L->off[n] - L->off[0]) / n + 1 : 1;
    size_t per = (size_t)(t->o.budget / 8 / (uint64_t)parts / avg);
    if (per > WRITE_SLICE_LINES) per = WRITE_SLICE_LINES;
    if (per < 1024) per = 1024;
    ext_sink_gather(sink, n, per, parts, write_slice, &j);
}
