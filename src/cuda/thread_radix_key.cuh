/*
 * thread_radix_key.cuh -- INTERNAL (CUDA): one thread's view of a radix key.
 *
 * The sort moves the ORIGINAL key bits and computes the radix key (src/keys.h) on the fly
 * whenever it needs a digit: radix = transform(bits) ^ mask, where
 *   transform  identity for integers, gpusort__radix_f32/_f64 for floats (NaN last, -0 == +0);
 *   mask       the sign bit for signed integers (flipping it orders two's complement as
 *              unsigned), XOR all ones for descending (the complement of the ascending key).
 * So the only type-dependent code is the FLOAT template flag; the rest is a run-time mask.
 *
 * Exports: radix_key<FLOAT>(bits, mask), radix_digit<FLOAT>(bits, mask, shift),
 *          radix_digit_form<FLOAT, FORM>(bits, mask, shift), radix_mask(type, order) (host
 *          and device).
 */
#ifndef GPUSORT_CUDA_THREAD_RADIX_KEY_CUH
#define GPUSORT_CUDA_THREAD_RADIX_KEY_CUH

#include "keys.h"
#include "gpusort.h"

#include <stdint.h>

namespace gpusort_cuda {

/* Digit width of every radix pass: 8 bits, 256 buckets (Onesweep's choice on sm_70..sm_90: one
 * bucket per thread of the look-back, and the per-warp counters fit shared memory). */
constexpr int RADIX_BITS = 8;
constexpr int RADIX_DIGITS = 1 << RADIX_BITS;

__device__ __forceinline__ uint32_t radix_transform(uint32_t bits, bool is_float)
{
    return is_float ? gpusort__radix_f32(bits) : bits;
}
__device__ __forceinline__ uint64_t radix_transform(uint64_t bits, bool is_float)
{
    return is_float ? gpusort__radix_f64(bits) : bits;
}

template <bool FLOAT, typename K>
__device__ __forceinline__ K radix_key(K bits, K mask)
{
    return radix_transform(bits, FLOAT) ^ mask;
}

template <bool FLOAT>
__device__ __forceinline__ uint32_t radix_digit(uint32_t bits, uint32_t mask, int shift)
{
    return (radix_key<FLOAT>(bits, mask) >> shift) & (RADIX_DIGITS - 1);
}
/* 64-bit keys: a shift by a run-time amount of a 64-bit value is a multi-instruction sequence;
 * digits never straddle the halves (8 | 32), so pick the half first. */
template <bool FLOAT>
__device__ __forceinline__ uint32_t radix_digit(uint64_t bits, uint64_t mask, int shift)
{
    const uint64_t r = radix_key<FLOAT>(bits, mask);
    const uint32_t half = (shift & 32) ? (uint32_t)(r >> 32) : (uint32_t)r;
    return (half >> (shift & 31)) & (RADIX_DIGITS - 1);
}

/* Doubles: the digit from the one 32-bit half it lies in, without forming the 64-bit radix key
 * (gpusort__radix_f64: every NaN all ones; negatives -bits, so -0.0 meets +0.0 with no test of
 * its own; positives with the sign bit set). The low half is (lo ^ neg) - neg; the high half the
 * sign flipped, plus the negation's carry (negatives with lo == 0). The passes compute a digit
 * per key up to twice (rank and write), so these steps are a pass's cost
 * (bench/results/radix-2026-11-29c.md). NAN_TEST false: for keys known to hold no NaN
 * (FORM_NO_NAN below). */
template <int HALF, bool NAN_TEST>
__device__ __forceinline__ uint32_t f64_half(uint64_t bits)
{
    const uint32_t hi = (uint32_t)(bits >> 32), lo = (uint32_t)bits;
    const uint32_t neg = (uint32_t)((int32_t)hi >> 31); /* all ones for a negative sign */
    if (NAN_TEST && (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return 0xffffffffu;
    return HALF == 0 ? (lo ^ neg) - neg : (hi ^ (neg | 0x80000000u)) + (neg & (lo == 0u));
}
template <bool NAN_TEST>
__device__ __forceinline__ uint32_t f64_digit(uint64_t bits, uint64_t mask, int shift)
{
    const uint32_t h = (shift & 32) ? f64_half<1, NAN_TEST>(bits) ^ (uint32_t)(mask >> 32)
                                    : f64_half<0, NAN_TEST>(bits) ^ (uint32_t)mask;
    return (h >> (shift & 31)) & (RADIX_DIGITS - 1);
}
template <>
__device__ __forceinline__ uint32_t radix_digit<true>(uint64_t bits, uint64_t mask, int shift)
{
    return f64_digit<true>(bits, mask, shift);
}

/* Cheaper forms of the float digit, for keys the histograms showed to need less (scan_kernel
 * chooses, from the top digit's histogram, and the passes take the form as a template flag):
 *   FORM_ANY     any float: radix_digit<true> above;
 *   FORM_NO_NAN  no key in the top bucket of the radix order (there lie NaN, +inf and floats
 *                from 2^127 / 2^1023 up): the NaN test goes; negatives still take -bits, as
 *                (bits ^ (s | sign)) - s with s the sign spread over the word;
 *   FORM_NO_NEG  besides, no key in the lower half of the radix order (the negatives; -0.0
 *                lies with +0.0): bits | sign, the integer digit's cost (-0.0 included).
 * Each gives the same radix key as gpusort__radix_f32/_f64 for the keys it is chosen for, so
 * the histograms (made with the full form) hold for its digits. */
enum { FORM_ANY = 0, FORM_NO_NAN = 1, FORM_NO_NEG = 2 };
template <bool FLOAT, int FORM>
__device__ __forceinline__ uint32_t radix_digit_form(uint32_t bits, uint32_t mask, int shift)
{
    if (!FLOAT || FORM == FORM_ANY) return radix_digit<FLOAT>(bits, mask, shift);
    if (FORM == FORM_NO_NEG) return radix_digit<false>(bits | 0x80000000u, mask, shift);
    const uint32_t s = (uint32_t)((int32_t)bits >> 31);
    return radix_digit<false>((bits ^ (s | 0x80000000u)) - s, mask, shift);
}
template <bool FLOAT, int FORM>
__device__ __forceinline__ uint32_t radix_digit_form(uint64_t bits, uint64_t mask, int shift)
{
    if (!FLOAT || FORM == FORM_ANY) return radix_digit<FLOAT>(bits, mask, shift);
    if (FORM == FORM_NO_NEG) return radix_digit<false>(bits | 0x8000000000000000ull, mask, shift);
    return f64_digit<false>(bits, mask, shift);
}

/* The run-time mask of a key type and order (see above). */
__host__ __device__ inline uint64_t radix_mask(gpusort_type type, gpusort_order order)
{
    uint64_t m = 0;
    if (type == GPUSORT_TYPE_I32) m = 0x80000000ull;
    if (type == GPUSORT_TYPE_I64) m = 0x8000000000000000ull;
    if (order == GPUSORT_ORDER_DESC) m = ~m;
    if (type == GPUSORT_TYPE_U32 || type == GPUSORT_TYPE_I32 || type == GPUSORT_TYPE_F32)
        m &= 0xffffffffull;
    return m;
}

} // namespace gpusort_cuda

#endif
