/*
 * datagen.c -- the data distributions of datagen.h and the PRNG behind them.
 *
 * Every distribution works for all six key types. An element is made as its raw bits (32 or 64
 * of them) and stored little-endian-native; "ints" below means u32/i32/u64/i64, "floats" f32/f64.
 *
 *   uniform   ints: every bit random. floats: every bit random, redrawn until finite, so the
 *             values cover every exponent (denormals and both signs included), no NaN or inf.
 *   unit      floats: uniform in [0, 1) (24 or 53 random mantissa bits). ints: uniform in
 *             [0, 2^16): many duplicates, small nonnegative values.
 *   sorted    nondecreasing in the gpusort order, spread evenly over the type's whole finite
 *             range (for floats from -MAX to +MAX through every exponent). Made in "ordinal"
 *             space: an unsigned number whose order is the gpusort order (the unsigned number
 *             itself for u, sign bit flipped for i, sign-magnitude folded for floats), element i
 *             being lo + i*span/n plus a jitter smaller than one step, so strictly increasing
 *             when n <= span. (n > span, e.g. 2^33 u32 keys, gives runs of equal keys.)
 *   reversed  the sorted sequence, last element first.
 *   equal     one uniform value repeated n times.
 *   few       16 distinct uniform values, each element one of them at random.
 *   zipf      floor(2^(20u)) for uniform u in [0,1): ranks 1..2^20 with P(k) ~ 1/k, the continuous
 *             approximation of Zipf's law with s = 1 (rank 1 is ~7% of the data). Stored as the
 *             integer (ints) or its float value (floats).
 *   entropyK  AND of K random words, K = 1..5: each bit is 1 with probability 2^-K, so the bit
 *             entropy is 1, 0.811, 0.544, 0.337, 0.201 (Thearling & Smith, "An improved
 *             supercomputer sorting benchmark", 1992; the CUB benchmarks use the same). Raw bits:
 *             for floats this includes NaN and inf patterns now and then.
 *   special   3 in 4 elements from a table of edge values, the rest uniform. floats: quiet and
 *             signalling NaN of both signs with fixed and random payloads, -0.0, +0.0, +-inf,
 *             +-smallest and +-largest denormal, a random denormal, +-smallest normal, +-MAX,
 *             +-1.0. ints: min, max, 0, all ones (-1), 1, min+1, max-1, and the sign boundary
 *             0x7f..f / 0x80..0.
 *   huge      ints: within 1024 of the minimum or of the maximum. floats: within 2^20 ulps of -MAX
 *             or +MAX (finite).
 */
#include "datagen.h"

#include <math.h>
#include <string.h>

/* ---- PRNG ---- */

uint64_t datagen_mix64(uint64_t x)
{
    /* splitmix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014) */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void datagen_rng_seed(datagen_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++) {
        seed += 0x9e3779b97f4a7c15ull;
        r->s[i] = datagen_mix64(seed);
    }
    /* xoshiro's state must not be all zero; splitmix64 of four consecutive seeds never is,
     * but be explicit about it. */
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3])) r->s[0] = 1;
}

static inline uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t datagen_rng_next(datagen_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

#if defined(__GNUC__)
__extension__ typedef unsigned __int128 datagen_u128;
#define DATAGEN_HAVE_U128 1
#endif

/* High 64 bits of a * b. */
static uint64_t mulhi64(uint64_t a, uint64_t b)
{
#ifdef DATAGEN_HAVE_U128
    return (uint64_t)(((datagen_u128)a * b) >> 64);
#else
    uint64_t al = (uint32_t)a, ah = a >> 32, bl = (uint32_t)b, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

uint64_t datagen_rng_below(datagen_rng *r, uint64_t bound)
{
    /* Lemire, "Fast random integer generation in an interval", 2019: take the high word of
     * x * bound, rejecting the few x whose low word falls in the biased zone. */
    uint64_t x = datagen_rng_next(r);
    uint64_t lo = x * bound;
    if (lo < bound) {
        uint64_t threshold = (0 - bound) % bound;
        while (lo < threshold) {
            x = datagen_rng_next(r);
            lo = x * bound;
        }
    }
    return mulhi64(x, bound);
}

double datagen_rng_unit(datagen_rng *r)
{
    return (double)(datagen_rng_next(r) >> 11) * 0x1.0p-53;
}

/* ---- names ---- */

static const struct {
    const char *name;
    const char *help;
} dist_table[DATAGEN_DIST_COUNT] = {
    {"uniform", "ints: random bits; floats: random finite values of every exponent"},
    {"unit", "floats: uniform in [0,1); ints: uniform in [0, 2^16)"},
    {"sorted", "nondecreasing, spread over the whole range of the type"},
    {"reversed", "the sorted sequence reversed"},
    {"equal", "one random value repeated"},
    {"few", "16 distinct random values"},
    {"zipf", "Zipf-like ranks 1..2^20 (P(k) ~ 1/k): heavy duplicates"},
    {"entropy1", "random bits (bit entropy 1.0; floats may include NaN/inf)"},
    {"entropy2", "AND of 2 random words (bit entropy 0.811)"},
    {"entropy3", "AND of 3 random words (bit entropy 0.544)"},
    {"entropy4", "AND of 4 random words (bit entropy 0.337)"},
    {"entropy5", "AND of 5 random words (bit entropy 0.201)"},
    {"special", "floats: NaN (signs, payloads), -0.0, +0.0, +-inf, denormals, +-MAX; "
                "ints: min, max, 0, -1 heavy"},
    {"huge", "values next to the type's minimum and maximum"},
};

const char *datagen_dist_name(datagen_dist dist)
{
    return ((int)dist >= 0 && dist < DATAGEN_DIST_COUNT) ? dist_table[dist].name : NULL;
}

const char *datagen_dist_help(datagen_dist dist)
{
    return ((int)dist >= 0 && dist < DATAGEN_DIST_COUNT) ? dist_table[dist].help : NULL;
}

int datagen_parse_dist(const char *name, datagen_dist *dist)
{
    static const struct {
        const char *alias;
        datagen_dist dist;
    } aliases[] = {
        {"random", DATAGEN_UNIFORM},  {"all-equal", DATAGEN_EQUAL}, {"few-unique", DATAGEN_FEW},
        {"nan", DATAGEN_SPECIAL},     {"with-nan", DATAGEN_SPECIAL},
    };
    if (!name || !dist) return -1;
    for (int i = 0; i < DATAGEN_DIST_COUNT; i++)
        if (strcmp(name, dist_table[i].name) == 0) { *dist = (datagen_dist)i; return 0; }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcmp(name, aliases[i].alias) == 0) { *dist = aliases[i].dist; return 0; }
    return -1;
}

/* ---- element kinds ---- */

/* What datagen needs to know about a key type. */
typedef struct kind {
    int bits;           /* 32 or 64 */
    char cls;           /* 'u', 'i' or 'f' */
    uint64_t mask;      /* the low `bits` bits */
    uint64_t sign;      /* the top bit of the element */
    uint64_t exp_mask;  /* floats: exponent field */
    uint64_t man_mask;  /* floats: mantissa field */
} kind;

static int kind_of(gpusort_type t, kind *k)
{
    switch (t) {
    case GPUSORT_TYPE_U32: case GPUSORT_TYPE_I32: case GPUSORT_TYPE_F32:
        k->bits = 32; k->mask = 0xffffffffull; k->sign = 0x80000000ull;
        k->exp_mask = 0x7f800000ull; k->man_mask = 0x007fffffull;
        break;
    case GPUSORT_TYPE_U64: case GPUSORT_TYPE_I64: case GPUSORT_TYPE_F64:
        k->bits = 64; k->mask = ~0ull; k->sign = 0x8000000000000000ull;
        k->exp_mask = 0x7ff0000000000000ull; k->man_mask = 0x000fffffffffffffull;
        break;
    default: return -1;
    }
    k->cls = gpusort_value_field(t);
    return 0;
}

static inline void put(void *buf, size_t i, const kind *k, uint64_t v)
{
    if (k->bits == 32) ((uint32_t *)buf)[i] = (uint32_t)v;
    else ((uint64_t *)buf)[i] = v;
}

/* Ordinal space (see "sorted" at the top): unsigned numbers ordered as the gpusort order. */
static uint64_t from_ordinal(const kind *k, uint64_t o)
{
    switch (k->cls) {
    case 'u': return o;
    case 'i': return o ^ k->sign;
    default: return (o & k->sign) ? (o ^ k->sign) : (~o & k->mask);
    }
}

/* The smallest and largest ordinal of a finite value of the kind. */
static void ordinal_range(const kind *k, uint64_t *lo, uint64_t *hi)
{
    if (k->cls != 'f') { *lo = 0; *hi = k->mask; return; }
    uint64_t max_bits = k->exp_mask - 1;       /* +MAX: exponent all ones minus one ulp */
    *lo = ~(max_bits | k->sign) & k->mask;     /* ordinal of -MAX */
    *hi = max_bits | k->sign;                  /* ordinal of +MAX */
}

/* floor(i * span / n) without overflow. */
static uint64_t scale(uint64_t i, uint64_t span, uint64_t n)
{
#ifdef DATAGEN_HAVE_U128
    return (uint64_t)(((datagen_u128)i * span) / n);
#else
    return (uint64_t)((long double)i * (long double)span / (long double)n);
#endif
}

static uint64_t uniform_bits(datagen_rng *r, const kind *k)
{
    uint64_t v = datagen_rng_next(r) & k->mask;
    if (k->cls == 'f')
        while ((v & k->exp_mask) == k->exp_mask) v = datagen_rng_next(r) & k->mask;
    return v;
}

/* A number (integer-valued, >= 0) stored as the kind: the integer, or its float value. */
static uint64_t from_count(const kind *k, uint64_t x)
{
    if (k->cls != 'f') return x & k->mask;
    if (k->bits == 32) {
        float f = (float)x;
        uint32_t b;
        memcpy(&b, &f, 4);
        return b;
    }
    double d = (double)x;
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static uint64_t special_value(datagen_rng *r, const kind *k)
{
    uint64_t c = datagen_rng_below(r, 4);
    if (c == 3) return uniform_bits(r, k);
    if (k->cls == 'f') {
        const uint64_t s = k->sign, e = k->exp_mask, m = k->man_mask;
        const uint64_t quiet = (m >> 1) + 1; /* the top mantissa bit */
        const uint64_t one = k->bits == 32 ? 0x3f800000ull : 0x3ff0000000000000ull;
        switch (datagen_rng_below(r, 24)) {
        case 0: return e | quiet;                            /* quiet NaN */
        case 1: return s | e | quiet;                        /* -quiet NaN */
        case 2: return e | 1;                                /* signalling NaN */
        case 3: return s | e | 1;
        case 4: return e | m;                                /* NaN, all payload bits */
        case 5: return s | e | m;
        case 6:                                              /* NaN, random sign/payload */
            return (datagen_rng_next(r) & (s | m)) | e | 1;
        case 7: case 8: return s;                            /* -0.0 */
        case 9: case 10: return 0;                           /* +0.0 */
        case 11: return e;                                   /* +inf */
        case 12: return s | e;                               /* -inf */
        case 13: return 1;                                   /* smallest denormal */
        case 14: return s | 1;
        case 15: return m;                                   /* largest denormal */
        case 16: return s | m;
        case 17: return (datagen_rng_next(r) & (s | m)) | 1; /* random denormal */
        case 18: return m + 1;                               /* smallest normal */
        case 19: return s | (m + 1);
        case 20: return e - 1;                               /* +MAX */
        case 21: return s | (e - 1);                         /* -MAX */
        case 22: return one;                                 /* 1.0 */
        default: return s | one;                             /* -1.0 */
        }
    }
    const uint64_t all = k->mask, top = k->sign;
    switch (datagen_rng_below(r, 9)) {
    case 0: return k->cls == 'i' ? top : 0;                  /* min */
    case 1: return k->cls == 'i' ? top - 1 : all;            /* max */
    case 2: return 0;
    case 3: return all;                                      /* -1 / max unsigned */
    case 4: return 1;
    case 5: return k->cls == 'i' ? top + 1 : 1;              /* min + 1 */
    case 6: return k->cls == 'i' ? top - 2 : all - 1;        /* max - 1 */
    case 7: return top - 1;                                  /* 0x7f..f */
    default: return top;                                     /* 0x80..0 */
    }
}

static uint64_t huge_value(datagen_rng *r, const kind *k)
{
    uint64_t lo, hi;
    ordinal_range(k, &lo, &hi);
    uint64_t dist = datagen_rng_below(r, k->cls == 'f' ? (1u << 20) : 1024);
    uint64_t o = (datagen_rng_next(r) & 1) ? hi - dist : lo + dist;
    return from_ordinal(k, o);
}

int datagen_fill(void *buf, gpusort_type type, size_t n, datagen_dist dist, uint64_t seed)
{
    kind k;
    if (kind_of(type, &k) || (int)dist < 0 || dist >= DATAGEN_DIST_COUNT) return -1;
    datagen_rng r;
    /* Mix the distribution and type into the seed so that "uniform" and "few" with one seed
     * are not correlated. */
    datagen_rng_seed(&r, seed ^ datagen_mix64(((uint64_t)dist << 8) | (uint64_t)type));

    switch (dist) {
    case DATAGEN_UNIFORM:
        for (size_t i = 0; i < n; i++) put(buf, i, &k, uniform_bits(&r, &k));
        break;
    case DATAGEN_UNIT:
        for (size_t i = 0; i < n; i++) {
            uint64_t x = datagen_rng_next(&r);
            uint64_t v;
            if (k.cls != 'f') {
                v = x >> 48;
            } else if (k.bits == 32) {
                float f = (float)(x >> 40) * 0x1.0p-24f;
                uint32_t b;
                memcpy(&b, &f, 4);
                v = b;
            } else {
                double d = (double)(x >> 11) * 0x1.0p-53;
                memcpy(&v, &d, 8);
            }
            put(buf, i, &k, v);
        }
        break;
    case DATAGEN_SORTED:
    case DATAGEN_REVERSED: {
        uint64_t lo, hi;
        ordinal_range(&k, &lo, &hi);
        uint64_t span = hi - lo, step = n ? span / n : 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t o = lo + scale(i, span, n) + (step > 1 ? datagen_rng_below(&r, step) : 0);
            size_t at = dist == DATAGEN_SORTED ? i : n - 1 - i;
            put(buf, at, &k, from_ordinal(&k, o));
        }
        break;
    }
    case DATAGEN_EQUAL: {
        uint64_t v = uniform_bits(&r, &k);
        for (size_t i = 0; i < n; i++) put(buf, i, &k, v);
        break;
    }
    case DATAGEN_FEW: {
        enum { FEW = 16 };
        uint64_t v[FEW];
        for (int j = 0; j < FEW; j++) v[j] = uniform_bits(&r, &k);
        for (size_t i = 0; i < n; i++) put(buf, i, &k, v[datagen_rng_next(&r) >> 60]);
        break;
    }
    case DATAGEN_ZIPF:
        for (size_t i = 0; i < n; i++) {
            double u = datagen_rng_unit(&r);
            put(buf, i, &k, from_count(&k, (uint64_t)exp2(20.0 * u)));
        }
        break;
    case DATAGEN_ENTROPY1: case DATAGEN_ENTROPY2: case DATAGEN_ENTROPY3:
    case DATAGEN_ENTROPY4: case DATAGEN_ENTROPY5: {
        int words = 1 + (int)(dist - DATAGEN_ENTROPY1);
        for (size_t i = 0; i < n; i++) {
            uint64_t v = ~0ull;
            for (int w = 0; w < words; w++) v &= datagen_rng_next(&r);
            put(buf, i, &k, v & k.mask);
        }
        break;
    }
    case DATAGEN_SPECIAL:
        for (size_t i = 0; i < n; i++) put(buf, i, &k, special_value(&r, &k));
        break;
    case DATAGEN_HUGE:
        for (size_t i = 0; i < n; i++) put(buf, i, &k, huge_value(&r, &k));
        break;
    default:
        return -1;
    }
    return 0;
}

void datagen_fill_u32(uint32_t *buf, size_t n, uint64_t seed)
{
    datagen_rng r;
    datagen_rng_seed(&r, seed);
    size_t i = 0;
    for (; i + 1 < n; i += 2) {
        uint64_t x = datagen_rng_next(&r);
        buf[i] = (uint32_t)x;
        buf[i + 1] = (uint32_t)(x >> 32);
    }
    if (i < n) buf[i] = (uint32_t)datagen_rng_next(&r);
}

void datagen_fill_u64(uint64_t *buf, size_t n, uint64_t seed)
{
    datagen_rng r;
    datagen_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) buf[i] = datagen_rng_next(&r);
}
