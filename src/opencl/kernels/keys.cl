/*
 * keys.cl -- the order-preserving key transforms of src/keys.h, in OpenCL C 1.2.
 *
 * Every OpenCL program of gpusort is built from this file followed by one algorithm file
 * (radix.cl, bitonic.cl, reduce.cl). The formulas are exactly those of src/keys.h, so the OpenCL
 * backend orders keys as every other backend does (the cross-backend tests compare them):
 *
 *   unsigned   identity
 *   signed     flip the sign bit
 *   float      any NaN -> all ones (last ascending); negative -> -bits (two's complement:
 *              -0.0 -> the sign bit, the key of +0.0); positive -> bits | sign bit
 *   descending the complement of the ascending radix key (a stable ascending sort of the
 *              complements is the stable descending sort)
 *
 * The radix key serves ordering only: the sorts move the original key bits (so -0.0 and NaN
 * payloads survive) and compute the radix key on the fly where they need it.
 *
 * Type codes are gpusort_type values (include/gpusort.h). With -DGS_KEY_BITS=32|64 this file also
 * defines gs_key (the raw key word) and GS_RADIX(bits, type, desc) for that width.
 */
#define GS_TYPE_U32 0
#define GS_TYPE_I32 1
#define GS_TYPE_F32 2
#define GS_TYPE_U64 3
#define GS_TYPE_I64 4
#define GS_TYPE_F64 5

uint gs_radix32(uint bits, int type, int desc)
{
    uint r = bits;
    if (type == GS_TYPE_I32) {
        r = bits ^ 0x80000000u;
    } else if (type == GS_TYPE_F32) {
        if ((bits & 0x7fffffffu) > 0x7f800000u) r = 0xffffffffu;            /* NaN */
        else r = (bits & 0x80000000u) ? 0u - bits : (bits | 0x80000000u);
    }
    return desc ? ~r : r;
}

ulong gs_radix64(ulong bits, int type, int desc)
{
    ulong r = bits;
    if (type == GS_TYPE_I64) {
        r = bits ^ 0x8000000000000000ul;
    } else if (type == GS_TYPE_F64) {
        if ((bits & 0x7ffffffffffffffful) > 0x7ff0000000000000ul) r = ~0ul;  /* NaN */
        else r = (bits & 0x8000000000000000ul) ? 0ul - bits : (bits | 0x8000000000000000ul);
    }
    return desc ? ~r : r;
}

#if defined(GS_KEY_BITS) && GS_KEY_BITS == 32
typedef uint gs_key;
#define GS_RADIX(bits, type, desc) gs_radix32((bits), (type), (desc))
#define GS_KEY_MAX 0xffffffffu
#elif defined(GS_KEY_BITS) && GS_KEY_BITS == 64
typedef ulong gs_key;
#define GS_RADIX(bits, type, desc) gs_radix64((bits), (type), (desc))
#define GS_KEY_MAX 0xfffffffffffffffful
#endif
