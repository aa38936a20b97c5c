/*
 * fuzz_text_lines.c -- fuzz target: text mode's in-memory sort of one chunk: line splitting
 * (text_index_lines, -z), key extraction (-k, -t, -b), the numeric images of -n and -g
 * (text_key_images, the fast path), -h / -V / -M, and the packed text keys of -d/-f/-i, the library sort of
 * the first key, and the tie resolution with the full comparison.
 *
 * Input: the options (fz_text_options of fuzz_text.h, with -u -z -t), then the data, split
 * into lines.
 * Properties: the result is a permutation of the lines; neighbours are in order under
 * text_line_cmp (GNU sort's compare(), which the fast paths must agree with); equal neighbours
 * keep their input order (stable; with -u the first of an equal run is the one written).
 */
#include "fuzz_text.h"
#include "util.h"

static gpusort_ctx *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setenv("LC_ALL", "C", 1);
    if (!ctx && gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, -1) != GPUSORT_STATUS_SUCCESS) abort();
    fz f = {data, size};
    fz_text_opts to;
    fz_text_options(&f, FZ_U | FZ_Z | FZ_T | FZ_HVM, &to);
    char *argv[20];
    int argc = 0;
    argv[argc++] = (char *)"gpusort";
    for (int i = 0; i < to.nargs; i++) argv[argc++] = to.args[i];
    argv[argc] = NULL;

    tsort t;
    int rc, code = fz_text_parse(argc, argv, &t, &rc);
    if (code != -1) {   /* -g with -n and the like: a refusal is fine, as GNU sort's "incompatible" */
        FUZZ_ASSERT(code == 2);
        fz_text_free(&t);
        return 0;
    }
    FUZZ_ASSERT(rc == -1);
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
    fz_text_free(&t);
    return 0;
}
