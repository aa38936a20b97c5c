/*
 * rkey.h -- INTERNAL to the CPU backend: the radix keys of src/keys.h in branch-free form for
 * the inner loops of radix.c and merge.c.
 *
 *   rk = gpusort__cpu_rk32(bits, xor_mask, is_float)   (and _rk64)
 *
 * is_float is a compile-time constant at every call (the loops are compiled once per key
 * family), so the float steps vanish for integer keys. xor_mask carries what depends on the
 * type and order at run time (gpusort__cpu_xor_mask): the sign flip of signed types and the
 * complement for descending order. For floats:
 *   bits = NaN ? 0x7f..f : bits      every NaN (any sign or payload) becomes the greatest key
 *   m = sign ? ~0 : 0
 *   rk = ((bits ^ m) - m) ^ (sign_bit & ~m)      positive: bits | sign; negative: -bits
 * which equals gpusort__radix_f32/_f64 of keys.h (-0.0 becomes the sign bit alone, +0.0's key;
 * the tests check the order independently).
 */
#ifndef GPUSORT_CPU_RKEY_H
#define GPUSORT_CPU_RKEY_H

#include "gpusort.h"

#include <stdint.h>

static inline uint32_t gpusort__cpu_rk32(uint32_t b, uint32_t xm, int is_float)
{
    if (is_float) {
        b = (b & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : b;
        const uint32_t m = (uint32_t)((int32_t)b >> 31);
        b = ((b ^ m) - m) ^ (0x80000000u & ~m);
    }
    return b ^ xm;
}

static inline uint64_t gpusort__cpu_rk64(uint64_t b, uint64_t xm, int is_float)
{
    if (is_float) {
        b = (b & 0x7fffffffffffffffull) > 0x7ff0000000000000ull ? 0x7fffffffffffffffull : b;
        const uint64_t m = (uint64_t)((int64_t)b >> 63);
        b = ((b ^ m) - m) ^ (0x8000000000000000ull & ~m);
    }
    return b ^ xm;
}

/* The xor mask for a key type and order (key_bytes 4 or 8). */
static inline uint64_t gpusort__cpu_xor_mask(gpusort_type type, int desc)
{
    int wide = type == GPUSORT_TYPE_U64 || type == GPUSORT_TYPE_I64 || type == GPUSORT_TYPE_F64;
    uint64_t sign = wide ? 0x8000000000000000ull : 0x80000000ull;
    uint64_t all = wide ? ~0ull : 0xffffffffull;
    uint64_t m = (type == GPUSORT_TYPE_I32 || type == GPUSORT_TYPE_I64) ? sign : 0;
    return desc ? m ^ all : m;
}

#endif /* GPUSORT_CPU_RKEY_H */
