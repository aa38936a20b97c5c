/*
 * replay.c -- main() for a fuzz target built without libFuzzer (gcc, or clang without
 * -DGPUSORT_FUZZ=ON): runs LLVMFuzzerTestOneInput on every file named, or found in a folder
 * named, on the command line, then on random inputs.
 *
 *   fuzz_<name> [--random N] [--seed S] PATH...
 *
 * The corpora in tests/fuzz/corpus/<name>/ are the inputs libFuzzer found interesting (each
 * reaches code the others do not) plus every input that once crashed a target: replaying them
 * under ASan/UBSan in CI is the regression test of every defect the fuzzers found. The random
 * inputs (default 2000, seed printed; give it back with --seed to replay a failure; the one
 * that failed is left in ./fuzz-last-input) are mutations
 * of the corpus files: a few bytes changed, cut or repeated, as libFuzzer would, without its
 * coverage guidance. As zstd's tests/fuzz/regression_driver.c does for its targets.
 */
#include "datagen.h"
#include "fuzz.h"

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

typedef struct blob {
    uint8_t *p;
    size_t n;
} blob;

static blob *inputs;
static size_t ninputs, capinputs;

static int read_one(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    blob b = {NULL, 0};
    size_t cap = 0;
    for (;;) {
        if (b.n == cap) {
            cap = cap ? 2 * cap : 4096;
            b.p = (uint8_t *)realloc(b.p, cap);
        }
        size_t r = fread(b.p + b.n, 1, cap - b.n, f);
        if (r == 0) break;
        b.n += r;
    }
    fclose(f);
    if (ninputs == capinputs) {
        capinputs = capinputs ? 2 * capinputs : 64;
        inputs = (blob *)realloc(inputs, capinputs * sizeof *inputs);
    }
    inputs[ninputs++] = b;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file, or every file of a folder in name order (so a run is the same everywhere). */
static int read_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file or folder: %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return read_one(path);
    DIR *d = opendir(path);
    if (!d) return -1;
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) names = (char **)realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = (char *)malloc(len);
        snprintf(names[n++], len, "%s/%s", path, e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (read_one(names[i]) != 0) rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

static datagen_rng rng;
static uint64_t next_rand(void) { return datagen_rng_next(&rng); }

/* A mutation of a corpus input: bytes flipped, a piece cut out, or a piece repeated. */
static size_t mutate(const blob *src, uint8_t *out, size_t cap)
{
    size_t n = src->n < cap ? src->n : cap;
    memcpy(out, src->p, n);
    int edits = 1 + (int)(next_rand() % 4);
    for (int e = 0; e < edits; e++) {
        unsigned what = (unsigned)(next_rand() % 4);
        if (n == 0) what = 3;
        size_t at = n ? (size_t)(next_rand() % n) : 0;
        if (what == 0) {
            out[at] = (uint8_t)next_rand();
        } else if (what == 1) {
            out[at] ^= (uint8_t)(1u << (next_rand() % 8));
        } else if (what == 2) {   /* cut */
            size_t len = (size_t)(next_rand() % (n - at + 1));
            memmove(out + at, out + at + len, n - at - len);
            n -= len;
        } else {                  /* repeat a piece, or add a byte */
            size_t len = n ? (size_t)(next_rand() % (n - at + 1)) % 16 : 0;
            if (len == 0) len = 1;
            if (n + len > cap) continue;
            memmove(out + at + len, out + at, n - at);
            for (size_t i = 0; i < len; i++) out[at + i] = n ? out[(at + len + i) % (n + len)] : (uint8_t)next_rand();
            n += len;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    long random_runs = 2000;
    uint64_t seed = (uint64_t)time(NULL);
    int first = 1;
    for (; first < argc; first++) {
        if (strcmp(argv[first], "--random") == 0 && first + 1 < argc) random_runs = atol(argv[++first]);
        else if (strcmp(argv[first], "--seed") == 0 && first + 1 < argc) seed = strtoull(argv[++first], NULL, 0);
        else break;
    }
    for (int i = first; i < argc; i++)
        if (read_path(argv[i]) != 0) return 2;
    if (ninputs == 0) {
        fprintf(stderr, "replay: no inputs (usage: %s [--random N] [--seed S] PATH...)\n", argv[0]);
        return 2;
    }
    for (size_t i = 0; i < ninputs; i++) LLVMFuzzerTestOneInput(inputs[i].p, inputs[i].n);
    printf("replayed %zu corpus inputs\n", ninputs);
    fflush(stdout);

    datagen_rng_seed(&rng, seed);
    enum { CAP = 1 << 16 };
    uint8_t *buf = (uint8_t *)malloc(CAP);
    printf("random mutations: %ld, seed %llu (replay with --seed %llu)\n", random_runs,
           (unsigned long long)seed, (unsigned long long)seed);
    fflush(stdout);
    /* Each random input is written to fuzz-last-input first: after a crash it is the input. */
    const char *last = "fuzz-last-input";
    for (long r = 0; r < random_runs; r++) {
        size_t n = mutate(&inputs[next_rand() % ninputs], buf, CAP);
        FILE *lf = fopen(last, "wb");
        if (lf) {
            fwrite(buf, 1, n, lf);
            fclose(lf);
        }
        /* A copy of exactly n bytes, so that ASan sees a read past the input's end. */
        uint8_t *in = (uint8_t *)malloc(n ? n : 1);
        memcpy(in, buf, n);
        LLVMFuzzerTestOneInput(in, n);
        free(in);
    }
    free(buf);
    remove(last);
    for (size_t i = 0; i < ninputs; i++) free(inputs[i].p);
    free(inputs);
    printf("ok\n");
    return 0;
}
