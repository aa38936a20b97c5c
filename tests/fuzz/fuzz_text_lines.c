/*
 * fuzz_text_lines.c -- fuzz target: text mode's in-memory sort of one chunk: line splitting
 * (text_index_lines, -z), key extraction (-k, -t, -b), the numeric images of -n and -g
 * (text_key_images, the fast path) and the packed text keys of -d/-f/-i, the library sort of
 * the first key, and the tie resolution with the full comparison.
 *
 * Input: byte 0 = global options (bits: -b -d -f -g -i -n -r -s), byte 1 = -u -z and -t
 * (bit 2: -t with byte 2 as the separator), byte 3 = number of -k keys (0-2), each from 3 bytes
 * (start field, end field, modifiers); the rest is the data, split into lines.
 * Properties: the result is a permutation of the lines; neighbours are in order under
 * text_line_cmp (GNU sort's compare(), which the fast paths must agree with); equal neighbours
 * keep their input order (stable; with -u the first of an equal run is the one written).
 */
#include "fuzz.h"
#include "text.h"
#include "util.h"

static gpusort_ctx *ctx;

typedef struct parse_call {
    int argc;
    char **argv;
    tsort *t;
    int rc;
} parse_call;

static void parse(void *arg)
{
    parse_call *p = (parse_call *)arg;
    p->rc = text_parse_args(p->argc, p->argv, p->t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setenv("LC_ALL", "C", 1);
    if (!ctx && gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, -1) != GPUSORT_STATUS_SUCCESS) abort();
    fz f = {data, size};
    unsigned g = fz_u8(&f), h = fz_u8(&f), tab = fz_u8(&f), nk = fz_u8(&f) % 3;
    char opts[16] = "-", tabopt[4] = "-t", keys[2][40], kopt[2][3] = {"-k", "-k"};
    char *argv[12];
    int argc = 0;
    argv[argc++] = (char *)"gpusort";
    static const char gl[] = "bdfginrs";
    int n = 1;
    for (int i = 0; i < 8; i++)
        if (g & (1u << i)) opts[n++] = gl[i];
    if (h & 1) opts[n++] = 'u';
    if (h & 2) opts[n++] = 'z';
    opts[n] = 0;
    if (n > 1) argv[argc++] = opts;
    if ((h & 4) && tab != 0) {
        tabopt[2] = (char)tab;
        tabopt[3] = 0;
        argv[argc++] = tabopt;
    }
    for (unsigned k = 0; k < nk; k++) {
        fz_key_spec(&f, keys[k], sizeof keys[k]);
        argv[argc++] = kopt[k];
        argv[argc++] = keys[k];
    }
    argv[argc] = NULL;

    tsort t;
    memset(&t, 0, sizeof t);
    parse_call pc = {argc, argv, &t, 0};
    int code = fuzz_cli_run(parse, &pc);
    if (code != -1) {   /* -g with -n and the like: a refusal is fine, as GNU sort's "incompatible" */
        FUZZ_ASSERT(code == 2);
        free(t.keys);
        free(t.o.files);
        free(t.o.tmpdirs);
        return 0;
    }
    FUZZ_ASSERT(pc.rc == -1);
    cli_exit_hook = NULL;    /* from here on a cli_fail is a defect: let it exit */
    t.ctx = ctx;
    t.threads = 1;

    /* The data, ending with a delimiter as text_input_fill leaves it, plus the slack. */
    size_t len = f.n;
    uint8_t *buf = (uint8_t *)malloc(len + 1 + TEXT_BUF_SLACK);
    memcpy(buf, f.p, len);
    if (len == 0 || buf[len - 1] != (uint8_t)t.delim) buf[len++] = (uint8_t)t.delim;
    memset(buf + len, 0, TEXT_BUF_SLACK);
    /* The lines as they were, for the checks (the sort may compact buf in place). */
    uint8_t *orig = (uint8_t *)malloc(len);
    memcpy(orig, buf, len);

    lineset L;
    text_index_lines(&t, buf, len, &L);
    size_t nl = L.n;
    uint64_t *start = (uint64_t *)malloc((nl + 1) * sizeof *start);
    memcpy(start, L.off, (nl + 1) * sizeof *start);
    uint64_t *perm = text_sort_lines(&t, &L);

    uint8_t *seen = (uint8_t *)calloc(nl ? nl : 1, 1);
    for (size_t i = 0; i < nl; i++) {
        FUZZ_ASSERT(perm[i] < nl && !seen[perm[i]]);
        seen[perm[i]] = 1;
    }
    for (size_t i = 0; i + 1 < nl; i++) {
        uint64_t a = perm[i], b = perm[i + 1];
        const uint8_t *pa = orig + start[a], *pb = orig + start[b];
        size_t la = (size_t)(start[a + 1] - start[a]) - 1, lb = (size_t)(start[b + 1] - start[b]) - 1;
        int c = text_line_cmp(&t, pa, la, pb, lb);
        FUZZ_ASSERT(c <= 0);
        if (c == 0) FUZZ_ASSERT(a < b);
    }
    free(seen);
    free(perm);
    free(L.off);
    free(start);
    free(orig);
    free(buf);
    free(t.keys);
    free(t.o.files);
    free(t.o.tmpdirs);
    return 0;
}
