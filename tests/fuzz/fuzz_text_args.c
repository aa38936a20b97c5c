/*
 * fuzz_text_args.c -- fuzz target: text mode's command line (GNU sort's options, -k key specs
 * with their modifiers, obsolete +POS keys, -t, -S, --record-size and the other gpusort
 * options) and then the comparison of lines under the keys it parsed.
 *
 * Input: byte 0 = the number of arguments (low 4 bits); then the arguments, each ended by a NUL
 * byte; the rest is up to 8 lines separated by '\n'.
 * Properties: text_parse_args either returns or refuses through cli_fail (exit code 2), never
 * crashes; with the keys it accepted, text_line_cmp is a total preorder on the lines:
 * reflexive (cmp(a, a) == 0), antisymmetric (sign(cmp(a, b)) == -sign(cmp(b, a))) and
 * transitive (a <= b and b <= c give a <= c).
 */
#include "fuzz_text.h"
#include "util.h"

#include <stdlib.h>

#define MAX_LINES 8

static int sign(int c) { return (c > 0) - (c < 0); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setenv("LC_ALL", "C", 1);
    fz f = {data, size};
    int nargs = (int)(fz_u8(&f) & 15);
    char *store = (char *)malloc(size + 1);
    memcpy(store, data, size);
    store[size] = 0;
    char *argv[18];
    int argc = 0;
    argv[argc++] = (char *)"gpusort";
    size_t at = 1;
    while (argc <= nargs && at < size) {
        argv[argc++] = store + at;
        at += strlen(store + at) + 1;
    }
    argv[argc] = NULL;

    /* The lines: what follows the arguments. */
    const uint8_t *lp[MAX_LINES];
    size_t ll[MAX_LINES];
    int nl = 0;
    while (at < size && nl < MAX_LINES) {
        const uint8_t *s = data + at, *e = memchr(s, '\n', size - at);
        size_t len = e ? (size_t)(e - s) : size - at;
        lp[nl] = s;
        ll[nl++] = len;
        at += len + 1;
    }

    FILE *saved = stdout;   /* --help and --version print; keep the fuzzer's output readable */
    tsort t;
    int rc;
    stdout = fopen("/dev/null", "w");
    int code = fz_text_parse(argc, argv, &t, &rc);
    fclose(stdout);
    stdout = saved;
    FUZZ_ASSERT(code == -1 || code == 2);   /* refusals exit 2 */

    if (code == -1 && rc < 0) {
        FUZZ_ASSERT(t.nkeys >= 0);
        FUZZ_ASSERT(t.o.nfiles >= 1);
        for (int i = 0; i < nl; i++) FUZZ_ASSERT(text_line_cmp(&t, lp[i], ll[i], lp[i], ll[i]) == 0);
        int c[MAX_LINES][MAX_LINES];
        for (int i = 0; i < nl; i++)
            for (int j = 0; j < nl; j++) c[i][j] = sign(text_line_cmp(&t, lp[i], ll[i], lp[j], ll[j]));
        for (int i = 0; i < nl; i++)
            for (int j = 0; j < nl; j++) {
                FUZZ_ASSERT(c[i][j] == -c[j][i]);
                for (int k = 0; k < nl; k++)
                    if (c[i][j] <= 0 && c[j][k] <= 0) FUZZ_ASSERT(c[i][k] <= 0);
            }
    }
    fz_text_free(&t);
    free(store);
    return 0;
}
