/*
 * datagen.h -- test and benchmark data: a seedable PRNG and the gpusort data distributions.
 *
 * Shared by the tests, the CLI (`gpusort gen`) and the benchmarks; NOT part of the library.
 * Plain C11; depends only on include/gpusort.h (for gpusort_type).
 *
 * ORDER OF CALLS
 *   datagen_parse_dist("zipf", &d)                       name -> distribution (CLI, tests)
 *   datagen_fill(buf, GPUSORT_TYPE_F32, n, d, seed)      n keys of any type
 *   datagen_fill_u32(vals, n, seed) / datagen_fill_u64   random payloads for pairs
 *   datagen_rng_seed / datagen_rng_next                  the raw generator, for anything else
 *
 * The same (type, n, dist, seed) always gives the same bytes, on every machine.
 *
 * PRNG: xoshiro256** (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2021;
 * https://prng.di.unimi.it/), seeded through splitmix64 as its authors recommend. About 1 ns per
 * 64-bit word, passes BigCrush, and needs no library.
 *
 * The distributions are documented in datagen.c, next to the code that makes them, and in short
 * in datagen_dist_help().
 */
#ifndef GPUSORT_DATAGEN_H
#define GPUSORT_DATAGEN_H

#include "gpusort.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct datagen_rng {
    uint64_t s[4];
} datagen_rng;

/* Seed the generator (any 64-bit value, 0 included). */
void datagen_rng_seed(datagen_rng *r, uint64_t seed);
/* The next 64 random bits. */
uint64_t datagen_rng_next(datagen_rng *r);
/* Uniform in [0, bound) (bound > 0), without modulo bias (Lemire's multiply-shift). */
uint64_t datagen_rng_below(datagen_rng *r, uint64_t bound);
/* Uniform double in [0, 1) with 53 random bits. */
double datagen_rng_unit(datagen_rng *r);

/* splitmix64: one step of the seed expander, also handy to derive sub-seeds from a seed. */
uint64_t datagen_mix64(uint64_t x);

typedef enum datagen_dist {
    DATAGEN_UNIFORM = 0, /* random bits (ints); random finite values of every exponent (floats) */
    DATAGEN_UNIT,        /* floats uniform in [0, 1); ints uniform in [0, 2^16) */
    DATAGEN_SORTED,      /* nondecreasing in the gpusort order, spread over the type's range */
    DATAGEN_REVERSED,    /* the sorted sequence, reversed */
    DATAGEN_EQUAL,       /* one random value repeated */
    DATAGEN_FEW,         /* 16 distinct random values */
    DATAGEN_ZIPF,        /* Zipf-like (s = 1) ranks 1..2^20: many duplicates of small values */
    DATAGEN_ENTROPY1,    /* AND of 1 random word: bit entropy 1.0 (raw random bits) */
    DATAGEN_ENTROPY2,    /* AND of 2 random words: bit entropy 0.811 */
    DATAGEN_ENTROPY3,    /* AND of 3 random words: bit entropy 0.544 */
    DATAGEN_ENTROPY4,    /* AND of 4 random words: bit entropy 0.337 */
    DATAGEN_ENTROPY5,    /* AND of 5 random words: bit entropy 0.201 */
    DATAGEN_SPECIAL,     /* floats: NaNs (signs, payloads), -0.0, +0.0, +-inf, denormals, huge;
                            ints: min, max, 0, -1, 1, min+1, max-1 heavy */
    DATAGEN_HUGE,        /* values within a small distance of the type's extremes */
    DATAGEN_DIST_COUNT
} datagen_dist;

/* "uniform", "unit", "sorted", "reversed", "equal", "few", "zipf", "entropy1".."entropy5",
 * "special", "huge"; NULL for an invalid value. */
const char *datagen_dist_name(datagen_dist dist);
/* One line describing the distribution (for --help); NULL for an invalid value. */
const char *datagen_dist_help(datagen_dist dist);
/* Name -> distribution. Also accepts the aliases "random" (uniform), "all-equal", "few-unique",
 * "nan"/"with-nan" (special). Returns 0 on success, -1 for an unknown name (*dist untouched). */
int datagen_parse_dist(const char *name, datagen_dist *dist);

/* Fill buf with n elements of `type` (gpusort_type_size(type) bytes each) drawn from dist.
 * Returns 0, or -1 for an invalid type or distribution. */
int datagen_fill(void *buf, gpusort_type type, size_t n, datagen_dist dist, uint64_t seed);

/* Random payloads (every bit random) for pairs. */
void datagen_fill_u32(uint32_t *buf, size_t n, uint64_t seed);
void datagen_fill_u64(uint64_t *buf, size_t n, uint64_t seed);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_DATAGEN_H */
