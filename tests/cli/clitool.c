/*
 * clitool.c -- an independent checker for the CLI tests (tests/cli/cli_test.sh).
 *
 * It uses only the C library: no gpusort code, not even src/keys.h, so that the CLI's results
 * are judged by a second implementation of the order and of the reductions.
 *
 *   clitool sorted TYPE asc|desc FILE       exit 0 if FILE is sorted in the gpusort order
 *   clitool perm TYPE A B                   exit 0 if B's elements are a permutation of A's
 *                                           (compared as bit patterns: -0.0 and NaN payloads
 *                                           must survive a sort)
 *   clitool pairs TYPE asc|desc KEYS_IN KEYS_OUT VALS_OUT u32|u64
 *                                           the values were 0..n-1 (gpusort gen --dist index):
 *                                           exit 0 if VALS_OUT is a permutation of 0..n-1,
 *                                           KEYS_OUT[i] is bit-equal to KEYS_IN[VALS_OUT[i]],
 *                                           KEYS_OUT is sorted, and equal keys keep their input
 *                                           order (stability)
 *   clitool reduce TYPE sum|min|max FILE RESULT
 *                                           exit 0 if RESULT (gpusort reduce's output) matches a
 *                                           reference: integers exactly (mod 2^64), min/max
 *                                           exactly, float sums within the header's bound
 *   clitool write TYPE V...                 write the values (strtod/strtoll: "nan", "-0",
 *                                           "inf", "0x7fc00001" as raw bits with "bits:")
 *                                           little-endian to stdout
 *
 * Messages go to stderr; the exit code is the verdict (2 on a usage or I/O error).
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { U32, I32, F32, U64, I64, F64 };
static const char *const names[] = {"u32", "i32", "f32", "u64", "i64", "f64"};

static int type_of(const char *s)
{
    for (int i = 0; i < 6; i++)
        if (strcmp(s, names[i]) == 0) return i;
    fprintf(stderr, "clitool: unknown type %s\n", s);
    exit(2);
}

static size_t size_of(int t) { return t < U64 ? 4 : 8; }

static unsigned char *load(const char *path, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(2); }
    size_t cap = 1 << 16, len = 0;
    unsigned char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) buf = realloc(buf, cap *= 2);
    }
    if (!buf) { fprintf(stderr, "clitool: out of memory\n"); exit(2); }
    fclose(f);
    *bytes = len;
    return buf;
}

/* Element i as a double for floats, or as raw 64-bit integer otherwise. */
static uint64_t raw(int t, const unsigned char *p, size_t i)
{
    if (size_of(t) == 4) { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    uint64_t v;
    memcpy(&v, p + 8 * i, 8);
    return v;
}

static double as_double(int t, uint64_t bits)
{
    if (t == F32) { float f; uint32_t b = (uint32_t)bits; memcpy(&f, &b, 4); return f; }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

/* -1, 0, 1 in the gpusort ascending order, written directly from its definition. */
static int compare(int t, uint64_t a, uint64_t b)
{
    switch (t) {
    case U32: case U64: return (a > b) - (a < b);
    case I32: { int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b; return (x > y) - (x < y); }
    case I64: { int64_t x = (int64_t)a, y = (int64_t)b; return (x > y) - (x < y); }
    default: {
        double x = as_double(t, a), y = as_double(t, b);
        int nx = isnan(x), ny = isnan(y);
        if (nx || ny) return nx - ny;         /* NaN after everything, NaNs equal */
        return (x > y) - (x < y);             /* -0.0 == +0.0 by IEEE comparison */
    }
    }
}

static int cmp_bits64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int do_sorted(int t, int desc, const char *path)
{
    size_t bytes;
    unsigned char *p = load(path, &bytes);
    size_t n = bytes / size_of(t);
    for (size_t i = 1; i < n; i++) {
        int c = compare(t, raw(t, p, i - 1), raw(t, p, i));
        if (desc ? c < 0 : c > 0) {
            fprintf(stderr, "clitool: %s not sorted at index %zu\n", path, i);
            return 1;
        }
    }
    free(p);
    return 0;
}

static uint64_t *bits_sorted(int t, const char *path, size_t *n)
{
    size_t bytes;
    unsigned char *p = load(path, &bytes);
    *n = bytes / size_of(t);
    uint64_t *v = malloc((*n + 1) * sizeof *v);
    for (size_t i = 0; i < *n; i++) v[i] = raw(t, p, i);
    qsort(v, *n, sizeof *v, cmp_bits64);
    free(p);
    return v;
}

static int do_perm(int t, const char *a, const char *b)
{
    size_t na, nb;
    uint64_t *x = bits_sorted(t, a, &na), *y = bits_sorted(t, b, &nb);
    if (na != nb) { fprintf(stderr, "clitool: %zu vs %zu elements\n", na, nb); return 1; }
    int differ = 0;
    for (size_t i = 0; i < na && !differ; i++) differ = x[i] != y[i];
    free(x);
    free(y);
    if (differ) fprintf(stderr, "clitool: not a permutation\n");
    return differ;
}

static int do_pairs(int t, int desc, const char *kin, const char *kout, const char *vout, int v64)
{
    size_t bi, bo, bv;
    unsigned char *ki = load(kin, &bi), *ko = load(kout, &bo), *vo = load(vout, &bv);
    size_t n = bi / size_of(t), vs = v64 ? 8 : 4;
    if (bo != bi || bv != n * vs) { fprintf(stderr, "clitool: sizes differ\n"); return 1; }
    char *seen = calloc(n + 1, 1);
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t idx = v64 ? raw(U64, vo, i) : raw(U32, vo, i);
        if (idx >= n || seen[idx]) {
            fprintf(stderr, "clitool: values are not a permutation of 0..n-1 (at %zu)\n", i);
            return 1;
        }
        seen[idx] = 1;
        if (raw(t, ko, i) != raw(t, ki, idx)) {
            fprintf(stderr, "clitool: key %zu is not the key of its value %" PRIu64 "\n", i, idx);
            return 1;
        }
        if (i) {
            int c = compare(t, raw(t, ko, i - 1), raw(t, ko, i));
            if (desc ? c < 0 : c > 0) { fprintf(stderr, "clitool: keys not sorted at %zu\n", i); return 1; }
            if (c == 0 && prev > idx) {
                fprintf(stderr, "clitool: not stable at %zu\n", i);
                return 1;
            }
        }
        prev = idx;
    }
    free(seen);
    free(ki);
    free(ko);
    free(vo);
    return 0;
}

static int do_reduce(int t, const char *op, const char *path, const char *result)
{
    size_t bytes;
    unsigned char *p = load(path, &bytes);
    size_t n = bytes / size_of(t);
    if (t != F32 && t != F64) {
        uint64_t sum = 0, best = n ? raw(t, p, 0) : 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t v = raw(t, p, i);
            if (t == I32) v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;   /* sign-extend */
            sum += v;
            int c = compare(t, raw(t, p, i), best);
            if ((strcmp(op, "min") == 0 && c < 0) || (strcmp(op, "max") == 0 && c > 0))
                best = raw(t, p, i);
        }
        char want[32];
        uint64_t r = strcmp(op, "sum") == 0 ? sum : best;
        if (strcmp(op, "sum") != 0 && t == I32) r = (uint64_t)(int64_t)(int32_t)(uint32_t)r;
        if (t == I32 || t == I64) snprintf(want, sizeof want, "%" PRId64, (int64_t)r);
        else snprintf(want, sizeof want, "%" PRIu64, r);
        free(p);
        if (strcmp(want, result) != 0) {
            fprintf(stderr, "clitool: %s: expected %s, got %s\n", op, want, result);
            return 1;
        }
        return 0;
    }
    /* Floats: parse the printed result. */
    double got = strcmp(result, "nan") == 0 ? NAN : strtod(result, NULL);
    int any_nan = 0;
    long double sum = 0, abs_sum = 0, c = 0;
    double best = n ? as_double(t, raw(t, p, 0)) : 0;
    for (size_t i = 0; i < n; i++) {
        double x = as_double(t, raw(t, p, i));
        if (isnan(x)) any_nan = 1;
        /* Kahan summation in long double: a reference far tighter than the bound checked. */
        long double y = (long double)x - c, s = sum + y;
        c = (s - sum) - y;
        sum = s;
        abs_sum += fabsl((long double)x);
        if (strcmp(op, "min") == 0 && x < best) best = x;
        if (strcmp(op, "max") == 0 && x > best) best = x;
    }
    free(p);
    if (strcmp(op, "sum") == 0) {
        if (any_nan || isnan((double)sum) || isinf((double)abs_sum)) {
            /* NaN in, or an infinite sum (inf and -inf give NaN): compare classes only. */
            double want = (double)sum;
            if (isnan(want) != isnan(got) || (!isnan(want) && want != got)) {
                fprintf(stderr, "clitool: sum: expected %g, got %s\n", want, result);
                return 1;
            }
            return 0;
        }
        long double eps = t == F32 ? 1e-12L : 2.0L * 2.220446049250313e-16L;
        long double bound = eps * (long double)n * abs_sum;
        if (fabsl((long double)got - sum) > bound) {
            fprintf(stderr, "clitool: sum: expected %.17Lg (+- %Lg), got %s\n", sum, bound, result);
            return 1;
        }
        return 0;
    }
    if (any_nan) {
        if (!isnan(got)) { fprintf(stderr, "clitool: %s: expected nan, got %s\n", op, result); return 1; }
        return 0;
    }
    if (got != best) {
        fprintf(stderr, "clitool: %s: expected %.17g, got %s\n", op, best, result);
        return 1;
    }
    return 0;
}

static int do_write(int t, int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        unsigned char out[8];
        if (strncmp(s, "bits:", 5) == 0) {
            uint64_t v = strtoull(s + 5, NULL, 0);
            memcpy(out, &v, 8);
        } else if (t == F32) {
            float f = strtof(s, NULL);
            memcpy(out, &f, 4);
        } else if (t == F64) {
            double d = strtod(s, NULL);
            memcpy(out, &d, 8);
        } else if (t == I32 || t == I64) {
            int64_t v = strtoll(s, NULL, 0);
            if (t == I32) { int32_t w = (int32_t)v; memcpy(out, &w, 4); }
            else memcpy(out, &v, 8);
        } else {
            uint64_t v = strtoull(s, NULL, 0);
            if (t == U32) { uint32_t w = (uint32_t)v; memcpy(out, &w, 4); }
            else memcpy(out, &v, 8);
        }
        fwrite(out, 1, size_of(t), stdout);
    }
    return fflush(stdout) == 0 ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && strcmp(argv[1], "sorted") == 0)
        return do_sorted(type_of(argv[2]), strcmp(argv[3], "desc") == 0, argv[4]);
    if (argc >= 5 && strcmp(argv[1], "perm") == 0) return do_perm(type_of(argv[2]), argv[3], argv[4]);
    if (argc >= 8 && strcmp(argv[1], "pairs") == 0)
        return do_pairs(type_of(argv[2]), strcmp(argv[3], "desc") == 0, argv[4], argv[5], argv[6],
                        strcmp(argv[7], "u64") == 0);
    if (argc >= 6 && strcmp(argv[1], "reduce") == 0)
        return do_reduce(type_of(argv[2]), argv[3], argv[4], argv[5]);
    if (argc >= 3 && strcmp(argv[1], "write") == 0)
        return do_write(type_of(argv[2]), argc - 3, argv + 3);
    fprintf(stderr, "usage: clitool sorted|perm|pairs|reduce|write ... (see clitool.c)\n");
    return 2;
}
