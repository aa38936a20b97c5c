/*
 * keys.h -- INTERNAL: the order-preserving key transforms every backend shares.
 *
 * Radix sorts order unsigned integers. These functions map each key type to an unsigned
 * "radix key" of the same width whose unsigned order is the gpusort order (gpusort.h, CONTRACT):
 *
 *   unsigned   identity
 *   signed     flip the sign bit:             INT_MIN -> 0, -1 -> 0x7f..f, 0 -> 0x80..0
 *   float      NaN (any sign/payload)        -> all ones (greatest: NaN last ascending)
 *              negative x                    -> -bits, two's complement (larger magnitude ->
 *                                               smaller key; -0.0 -> the sign bit alone, the
 *                                               key of +0.0: equal keys)
 *              positive x                    -> bits | sign bit
 *              (Negating, -0.0 needs no test of its own: the per-digit form of a double's
 *              key in the CUDA radix sort, thread_radix_key.cuh, relies on that.)
 *   descending: the complement of the ascending radix key. An ascending STABLE sort of the
 *              complemented keys is exactly the stable descending sort (ties keep input order).
 *
 * Worked example (f32): -inf 0xff800000 -> 0x00800000; -1.0 0xbf800000 -> 0x40800000;
 * -0.0 0x80000000 -> 0x80000000; +0.0 -> 0x80000000; 1.0 0x3f800000 -> 0xbf800000;
 * +inf 0x7f800000 -> 0xff800000; NaN 0x7fc00000 or 0xffc00000 -> 0xffffffff.
 *
 * The radix key is used for ordering only: sorts move the original key bits, so -0.0 stays -0.0
 * and NaN payloads survive. (Backends that sort radix keys in place must carry the original
 * bits or invert the transform; for floats the inverse cannot restore -0.0 or the NaN payload,
 * so those backends keep the original key alongside or re-read it.)
 *
 * The same formulas appear in OpenCL C in src/opencl/kernels/keys.cl; tests compare backends.
 * Usable from C and from CUDA (host and device).
 */
#ifndef GPUSORT_KEYS_H
#define GPUSORT_KEYS_H

#include <stdint.h>

#if defined(__CUDACC__)
#define GPUSORT_HD __host__ __device__ __forceinline__
#else
#define GPUSORT_HD static inline
#endif

GPUSORT_HD uint32_t gpusort__radix_f32(uint32_t bits)
{
    if ((bits & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;  /* NaN */
    return (bits & 0x80000000u) ? 0u - bits : (bits | 0x80000000u);
}

GPUSORT_HD uint64_t gpusort__radix_f64(uint64_t bits)
{
    if ((bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull) return ~0ull;  /* NaN */
    return (bits & 0x8000000000000000ull) ? 0ull - bits : (bits | 0x8000000000000000ull);
}

GPUSORT_HD uint32_t gpusort__radix_i32(uint32_t bits) { return bits ^ 0x80000000u; }
GPUSORT_HD uint64_t gpusort__radix_i64(uint64_t bits) { return bits ^ 0x8000000000000000ull; }

/* Radix key of a 32-bit key given as raw bits: type is a gpusort_type value (U32, I32, F32);
 * desc != 0 for descending. */
GPUSORT_HD uint32_t gpusort__radix32(uint32_t bits, int type, int desc)
{
    uint32_t r = bits;
    if (type == 1 /* GPUSORT_TYPE_I32 */) r = gpusort__radix_i32(bits);
    else if (type == 2 /* GPUSORT_TYPE_F32 */) r = gpusort__radix_f32(bits);
    return desc ? ~r : r;
}

/* Same for 64-bit keys (U64, I64, F64). */
GPUSORT_HD uint64_t gpusort__radix64(uint64_t bits, int type, int desc)
{
    uint64_t r = bits;
    if (type == 4 /* GPUSORT_TYPE_I64 */) r = gpusort__radix_i64(bits);
    else if (type == 5 /* GPUSORT_TYPE_F64 */) r = gpusort__radix_f64(bits);
    return desc ? ~r : r;
}

#endif /* GPUSORT_KEYS_H */
