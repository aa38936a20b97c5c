/*
 * reduce.cl -- sum / min / max over the six key types.
 *
 * Built (after keys.cl) with -DGS_HAVE_FP64=1 when the device has cl_khr_fp64 (then the f64
 * kernel exists and f32 sums accumulate in double).
 *
 * Two kernels per type: reduce_sum_<T>(x, n, out) and reduce_minmax_<T>(x, n, is_min, out), T the
 * OpenCL C type name (uint, int, float, ulong, long, double). A fixed grid of
 * G work-groups (chosen by the host from the device's compute units, so it is the same on every
 * run) reads the array in a grid-stride loop, four elements per load (vload4), four loads in
 * flight per work-item; each work-group reduces its work-items' results in local memory by a
 * fixed tree and writes GS_OUT = 4 64-bit words out[4g ..]. Then one work-group of
 * reduce_final_<kind>(out, G) combines the G partials by a fixed tree into out[4G ..], the only
 * words the host reads back (32 bytes, not G partials). Fixed order everywhere: the result is
 * the same on every run (deterministic float sums).
 *
 *   integer sum   64-bit accumulators (u32 zero-extended, i32 sign-extended), wrapping mod 2^64:
 *                 exact. out[4g] = the sum.
 *   float sum     f64: double. f32: double with fp64 (out[4g] = its bits). Without fp64, float-
 *                 float pairs (hi + lo, error-free TwoSum, Knuth / Dekker; ~44 significant bits):
 *                 one for |x| < 2^64, one for |x| >= 2^64 scaled by 2^-64 (exact), so that no
 *                 partial sum overflows float's range where double's would not; +-inf and NaN go
 *                 to a plain float (inf + -inf = NaN, as the contract says). out[4g] = small
 *                 (hi, lo bits), out[4g+1] = big (hi, lo), out[4g+2] = the inf/NaN float.
 *   min / max     value plus its input position: NaN wins (numpy: any NaN gives NaN), equal values
 *                 (-0.0 vs +0.0) go to the lower position ("whichever comes first").
 *                 out[4g] = value bits (zero-extended), out[4g+1] = position (GS_NONE = empty).
 *
 * The float-float path is exercised on fp64 devices by GPUSORT_OPENCL_NO_FP64=1 (backend.c).
 */
#ifdef GS_HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef cl_nv_pragma_unroll
#pragma OPENCL EXTENSION cl_nv_pragma_unroll : enable
#endif

#define WG 256
/* 64-bit words of output per work-group (the float-float sum needs five floats). */
#define GS_OUT 4
#define GS_NONE 0xfffffffffffffffful
#define WG_ATTR __attribute__((reqd_work_group_size(WG, 1, 1)))

/* Tree sum of one ulong per work-item; the result is returned to every work-item. */
ulong gs_group_sum(ulong x, local ulong *buf)
{
    uint lid = get_local_id(0);
    buf[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = WG / 2; w > 0; w >>= 1) {
        if (lid < w) buf[lid] += buf[lid + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return buf[0];
}

/* ---- integers: sum (64-bit) and min/max (the type's order) ---- */
#define GS_INT_REDUCE(T, T4, WIDEN, TMIN, TMAX)                                                \
kernel WG_ATTR void reduce_sum_##T(global const T *x, ulong n, global ulong *out)             \
{                                                                                              \
    local ulong lbuf[WG];                                                                      \
    size_t gid = get_global_id(0), gsize = get_global_size(0);                                 \
    ulong n4 = n / 4;                                                                          \
    ulong acc = 0;                                                                             \
    ulong v = gid;                                                                             \
    for (; v + 3 * gsize < n4; v += 4 * gsize) {          /* four loads in flight */          \
        T4 q0 = vload4(v, x), q1 = vload4(v + gsize, x);                                       \
        T4 q2 = vload4(v + 2 * gsize, x), q3 = vload4(v + 3 * gsize, x);                       \
        acc += (WIDEN(q0.s0) + WIDEN(q0.s1) + WIDEN(q0.s2) + WIDEN(q0.s3)) +                  \
               (WIDEN(q1.s0) + WIDEN(q1.s1) + WIDEN(q1.s2) + WIDEN(q1.s3)) +                  \
               (WIDEN(q2.s0) + WIDEN(q2.s1) + WIDEN(q2.s2) + WIDEN(q2.s3)) +                  \
               (WIDEN(q3.s0) + WIDEN(q3.s1) + WIDEN(q3.s2) + WIDEN(q3.s3));                   \
    }                                                                                          \
    for (; v < n4; v += gsize) {                                                               \
        T4 q = vload4(v, x);                                                                   \
        acc += WIDEN(q.s0) + WIDEN(q.s1) + WIDEN(q.s2) + WIDEN(q.s3);                          \
    }                                                                                          \
    for (ulong i = n4 * 4 + gid; i < n; i += gsize) acc += WIDEN(x[i]);                        \
    acc = gs_group_sum(acc, lbuf);                                                             \
    if (get_local_id(0) == 0) {                                                                \
        out[GS_OUT * get_group_id(0)] = acc;                                                        \
        out[GS_OUT * get_group_id(0) + 1] = 0;                                                      \
    }                                                                                          \
}                                                                                              \
                                                                                               \
kernel WG_ATTR void reduce_minmax_##T(global const T *x, ulong n, int is_min,                 \
                                      global ulong *out)                                       \
{                                                                                              \
    local T tbuf[WG];                                                                          \
    size_t gid = get_global_id(0), gsize = get_global_size(0), lid = get_local_id(0);          \
    ulong n4 = n / 4;                                                                          \
    T best = is_min ? TMAX : TMIN;                                                             \
    ulong v = gid;                                                                             \
    for (; v + 3 * gsize < n4; v += 4 * gsize) {          /* four loads in flight */          \
        T4 q0 = vload4(v, x), q1 = vload4(v + gsize, x);                                       \
        T4 q2 = vload4(v + 2 * gsize, x), q3 = vload4(v + 3 * gsize, x);                       \
        T4 a = is_min ? min(min(q0, q1), min(q2, q3)) : max(max(q0, q1), max(q2, q3));         \
        T b = is_min ? min(min(a.s0, a.s1), min(a.s2, a.s3))                                   \
                     : max(max(a.s0, a.s1), max(a.s2, a.s3));                                  \
        best = is_min ? min(best, b) : max(best, b);                                           \
    }                                                                                          \
    for (; v < n4; v += gsize) {                                                               \
        T4 q = vload4(v, x);                                                                   \
        T a = is_min ? min(min(q.s0, q.s1), min(q.s2, q.s3))                                   \
                     : max(max(q.s0, q.s1), max(q.s2, q.s3));                                  \
        best = is_min ? min(best, a) : max(best, a);                                           \
    }                                                                                          \
    for (ulong i = n4 * 4 + gid; i < n; i += gsize)                                            \
        best = is_min ? min(best, x[i]) : max(best, x[i]);                                     \
    tbuf[lid] = best;                                                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    for (uint w = WG / 2; w > 0; w >>= 1) {                                                    \
        if (lid < w) tbuf[lid] = is_min ? min(tbuf[lid], tbuf[lid + w])                        \
                                        : max(tbuf[lid], tbuf[lid + w]);                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    }                                                                                          \
    if (lid == 0) {                                                                            \
        out[GS_OUT * get_group_id(0)] = (ulong)tbuf[0];                                             \
        out[GS_OUT * get_group_id(0) + 1] = 0;                                                      \
    }                                                                                          \
}

#define GS_WIDEN_U(v) ((ulong)(v))
#define GS_WIDEN_S(v) ((ulong)(long)(v))
/* Kernel names: reduce_sum_uint, reduce_minmax_uint, ... (the OpenCL type names).
 * (ulong) of a negative int sign-extends; the host reads the low 32 bits back as an int. */
GS_INT_REDUCE(uint, uint4, GS_WIDEN_U, 0u, 0xffffffffu)
GS_INT_REDUCE(int, int4, GS_WIDEN_S, (int)0x80000000u, 0x7fffffff)
GS_INT_REDUCE(ulong, ulong4, GS_WIDEN_U, 0ul, 0xfffffffffffffffful)
GS_INT_REDUCE(long, long4, GS_WIDEN_S, (long)0x8000000000000000ul, (long)0x7ffffffffffffffful)

/* ---- floats: min/max with NaN and position rules ---- */

/* 1 if (b at ib) should replace (a at ia) as the min (is_min) or max. */
#define GS_FLOAT_BETTER(a, ia, b, ib, is_min)                                                  \
    ((ib) != GS_NONE &&                                                                        \
     ((ia) == GS_NONE ||                                                                       \
      (isnan(b) ? (!isnan(a) || (ib) < (ia))                                                   \
                : (!isnan(a) && (((is_min) ? ((b) < (a)) : ((b) > (a))) ||                     \
                                 ((b) == (a) && (ib) < (ia)))))))

#define GS_FLOAT_MINMAX(T, T4, BITS)                                                           \
kernel WG_ATTR void reduce_minmax_##T(global const T *x, ulong n, int is_min,                 \
                                      global ulong *out)                                       \
{                                                                                              \
    local T vbuf[WG];                                                                          \
    local ulong ibuf[WG];                                                                      \
    size_t gid = get_global_id(0), gsize = get_global_size(0), lid = get_local_id(0);          \
    ulong n4 = n / 4;                                                                          \
    T best = 0;                                                                                \
    ulong bi = GS_NONE;                                                                        \
    for (ulong v = gid; v < n4; v += gsize) {                                                  \
        T4 q = vload4(v, x);                                                                   \
        T e[4] = {q.s0, q.s1, q.s2, q.s3};                                                     \
        for (uint k = 0; k < 4; k++)                                                           \
            if (GS_FLOAT_BETTER(best, bi, e[k], 4 * v + k, is_min)) { best = e[k]; bi = 4 * v + k; } \
    }                                                                                          \
    for (ulong i = n4 * 4 + gid; i < n; i += gsize)                                            \
        if (GS_FLOAT_BETTER(best, bi, x[i], i, is_min)) { best = x[i]; bi = i; }               \
    vbuf[lid] = best;                                                                          \
    ibuf[lid] = bi;                                                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    for (uint w = WG / 2; w > 0; w >>= 1) {                                                    \
        if (lid < w && GS_FLOAT_BETTER(vbuf[lid], ibuf[lid], vbuf[lid + w], ibuf[lid + w], is_min)) { \
            vbuf[lid] = vbuf[lid + w];                                                         \
            ibuf[lid] = ibuf[lid + w];                                                         \
        }                                                                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    }                                                                                          \
    if (lid == 0) {                                                                            \
        out[GS_OUT * get_group_id(0)] = (ulong)BITS(vbuf[0]);                                       \
        out[GS_OUT * get_group_id(0) + 1] = ibuf[0];                                                \
    }                                                                                          \
}

GS_FLOAT_MINMAX(float, float4, as_uint)

/* ---- float-float (no fp64): value hi + lo ---- */
float2 gs_ff_add(float2 a, float b)
{
    float s = a.x + b, bb = s - a.x;
    float e = (a.x - (s - bb)) + (b - bb) + a.y;    /* TwoSum error + the old low part */
    float h = s + e;
    return (float2)(h, e - (h - s));                /* FastTwoSum renormalisation */
}

float2 gs_ff_add2(float2 a, float2 b)
{
    float s = a.x + b.x, bb = s - a.x;
    float e = (a.x - (s - bb)) + (b.x - bb) + a.y + b.y;
    float h = s + e;
    return (float2)(h, e - (h - s));
}

#ifndef GS_HAVE_FP64
/* The work-group's three accumulators (small and big float-float sums, the inf/NaN sum) combined
 * in a fixed tree through local memory; work-item 0 writes them to dst[0..2] (float-float as the
 * two floats' bits in one word). Called by every work-item of the group (barriers). */
void gs_ff_combine(local float2 *sbuf, local float2 *bbuf, local float *xbuf, float2 small,
                   float2 big, float special, global ulong *dst)
{
    uint lid = get_local_id(0);
    sbuf[lid] = small;
    bbuf[lid] = big;
    xbuf[lid] = special;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = WG / 2; w > 0; w >>= 1) {
        if (lid < w) {
            sbuf[lid] = gs_ff_add2(sbuf[lid], sbuf[lid + w]);
            bbuf[lid] = gs_ff_add2(bbuf[lid], bbuf[lid + w]);
            xbuf[lid] += xbuf[lid + w];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        dst[0] = (ulong)as_uint(sbuf[0].x) | ((ulong)as_uint(sbuf[0].y) << 32);
        dst[1] = (ulong)as_uint(bbuf[0].x) | ((ulong)as_uint(bbuf[0].y) << 32);
        dst[2] = as_uint(xbuf[0]);
    }
}
#endif

kernel WG_ATTR void reduce_sum_float(global const float *x, ulong n, global ulong *out)
{
    size_t gid = get_global_id(0), gsize = get_global_size(0), lid = get_local_id(0);
    ulong n4 = n / 4;
#ifdef GS_HAVE_FP64
    local double dbuf[WG];
    double acc = 0.0;
    ulong v = gid;
    for (; v + 3 * gsize < n4; v += 4 * gsize) {           /* four loads in flight */
        float4 q0 = vload4(v, x), q1 = vload4(v + gsize, x);
        float4 q2 = vload4(v + 2 * gsize, x), q3 = vload4(v + 3 * gsize, x);
        acc += ((double)q0.s0 + (double)q0.s1) + ((double)q0.s2 + (double)q0.s3);
        acc += ((double)q1.s0 + (double)q1.s1) + ((double)q1.s2 + (double)q1.s3);
        acc += ((double)q2.s0 + (double)q2.s1) + ((double)q2.s2 + (double)q2.s3);
        acc += ((double)q3.s0 + (double)q3.s1) + ((double)q3.s2 + (double)q3.s3);
    }
    for (; v < n4; v += gsize) {
        float4 q = vload4(v, x);
        acc += ((double)q.s0 + (double)q.s1) + ((double)q.s2 + (double)q.s3);
    }
    for (ulong i = n4 * 4 + gid; i < n; i += gsize) acc += (double)x[i];
    dbuf[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = WG / 2; w > 0; w >>= 1) {
        if (lid < w) dbuf[lid] += dbuf[lid + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[GS_OUT * get_group_id(0)] = as_ulong(dbuf[0]);
        out[GS_OUT * get_group_id(0) + 1] = 0;
    }
#else
    /* Three accumulators per work-item: small, big (scaled), special (inf/NaN). */
    local float2 sbuf[WG], bbuf[WG];
    local float xbuf[WG];
    float2 small = (float2)(0.0f, 0.0f), big = small;
    float special = 0.0f;
    for (ulong i = gid; i < n; i += gsize) {
        float v = x[i];
        if (!isfinite(v)) special += v;
        else if (fabs(v) >= 0x1p64f) big = gs_ff_add(big, v * 0x1p-64f);
        else small = gs_ff_add(small, v);
    }
    gs_ff_combine(sbuf, bbuf, xbuf, small, big, special, out + GS_OUT * get_group_id(0));
#endif
}

#ifdef GS_HAVE_FP64
GS_FLOAT_MINMAX(double, double4, as_ulong)

kernel WG_ATTR void reduce_sum_double(global const double *x, ulong n, global ulong *out)
{
    local double vbuf[WG];
    size_t gid = get_global_id(0), gsize = get_global_size(0), lid = get_local_id(0);
    ulong n4 = n / 4;
    double acc = 0.0;
    ulong v = gid;
    for (; v + 3 * gsize < n4; v += 4 * gsize) {           /* four loads in flight */
        double4 q0 = vload4(v, x), q1 = vload4(v + gsize, x);
        double4 q2 = vload4(v + 2 * gsize, x), q3 = vload4(v + 3 * gsize, x);
        acc += (q0.s0 + q0.s1) + (q0.s2 + q0.s3);
        acc += (q1.s0 + q1.s1) + (q1.s2 + q1.s3);
        acc += (q2.s0 + q2.s1) + (q2.s2 + q2.s3);
        acc += (q3.s0 + q3.s1) + (q3.s2 + q3.s3);
    }
    for (; v < n4; v += gsize) {
        double4 q = vload4(v, x);
        acc += (q.s0 + q.s1) + (q.s2 + q.s3);
    }
    for (ulong i = n4 * 4 + gid; i < n; i += gsize) acc += x[i];
    vbuf[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = WG / 2; w > 0; w >>= 1) {
        if (lid < w) vbuf[lid] += vbuf[lid + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[GS_OUT * get_group_id(0)] = as_ulong(vbuf[0]);
        out[GS_OUT * get_group_id(0) + 1] = 0;
    }
}
#endif

/* ---- the final step: one work-group combines the G partials out[4g ..] into out[4G ..] ----
 * Work-item t takes partials t, t + WG, ... in order, then a fixed tree: the same order on
 * every run. */

/* Integer sums of every width: 64-bit words, wrapping (exact mod 2^64). */
kernel WG_ATTR void reduce_final_isum(global ulong *out, uint G)
{
    local ulong lbuf[WG];
    ulong acc = 0;
    #pragma unroll 4                      /* independent loads of the partials in flight */
    for (uint g = get_local_id(0); g < G; g += WG) acc += out[GS_OUT * g];
    acc = gs_group_sum(acc, lbuf);
    if (get_local_id(0) == 0) {
        out[GS_OUT * G] = acc;
        out[GS_OUT * G + 1] = 0;
    }
}

/* Integer min/max: the partial words hold the value widened to 64 bits (signed types sign-
 * extended), so comparing them as T picks the same element. */
#define GS_INT_FINAL(T)                                                                        \
kernel WG_ATTR void reduce_final_minmax_##T(global ulong *out, uint G, int is_min)            \
{                                                                                              \
    local T tbuf[WG];                                                                          \
    uint lid = get_local_id(0);                                                                \
    T best = (T)out[0];                   /* G >= 1: partial 0 is a valid starting point */    \
    for (uint g = lid; g < G; g += WG) {                                                       \
        T x = (T)out[GS_OUT * g];                                                              \
        best = is_min ? min(best, x) : max(best, x);                                           \
    }                                                                                          \
    tbuf[lid] = best;                                                                          \
    barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    for (uint w = WG / 2; w > 0; w >>= 1) {                                                    \
        if (lid < w) tbuf[lid] = is_min ? min(tbuf[lid], tbuf[lid + w])                        \
                                        : max(tbuf[lid], tbuf[lid + w]);                       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    }                                                                                          \
    if (lid == 0) {                                                                            \
        out[GS_OUT * G] = (ulong)tbuf[0];                                                      \
        out[GS_OUT * G + 1] = 0;                                                               \
    }                                                                                          \
}
GS_INT_FINAL(uint)
GS_INT_FINAL(int)
GS_INT_FINAL(ulong)
GS_INT_FINAL(long)

/* Float min/max: (value bits, position) pairs under GS_FLOAT_BETTER; positions are distinct,
 * so the winner does not depend on the order of combination. */
#define GS_FLOAT_FINAL(T, AS_T, BITS)                                                          \
kernel WG_ATTR void reduce_final_minmax_##T(global ulong *out, uint G, int is_min)            \
{                                                                                              \
    local T vbuf[WG];                                                                          \
    local ulong ibuf[WG];                                                                      \
    uint lid = get_local_id(0);                                                                \
    T best = 0;                                                                                \
    ulong bi = GS_NONE;                                                                        \
    for (uint g = lid; g < G; g += WG) {                                                       \
        T x = AS_T(out[GS_OUT * g]);                                                           \
        ulong xi = out[GS_OUT * g + 1];                                                        \
        if (GS_FLOAT_BETTER(best, bi, x, xi, is_min)) { best = x; bi = xi; }                   \
    }                                                                                          \
    vbuf[lid] = best;                                                                          \
    ibuf[lid] = bi;                                                                            \
    barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    for (uint w = WG / 2; w > 0; w >>= 1) {                                                    \
        if (lid < w && GS_FLOAT_BETTER(vbuf[lid], ibuf[lid], vbuf[lid + w], ibuf[lid + w], is_min)) { \
            vbuf[lid] = vbuf[lid + w];                                                         \
            ibuf[lid] = ibuf[lid + w];                                                         \
        }                                                                                      \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    }                                                                                          \
    if (lid == 0) {                                                                            \
        out[GS_OUT * G] = (ulong)BITS(vbuf[0]);                                                \
        out[GS_OUT * G + 1] = ibuf[0];                                                         \
    }                                                                                          \
}
#define GS_AS_FLOAT(w) as_float((uint)(w))
GS_FLOAT_FINAL(float, GS_AS_FLOAT, as_uint)

#ifdef GS_HAVE_FP64
GS_FLOAT_FINAL(double, as_double, as_ulong)

/* Float sums in double (f64, and f32 on fp64 devices). */
kernel WG_ATTR void reduce_final_dsum(global ulong *out, uint G)
{
    local double dbuf[WG];
    uint lid = get_local_id(0);
    double acc = 0.0;
    #pragma unroll 4
    for (uint g = lid; g < G; g += WG) acc += as_double(out[GS_OUT * g]);
    dbuf[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = WG / 2; w > 0; w >>= 1) {
        if (lid < w) dbuf[lid] += dbuf[lid + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        out[GS_OUT * G] = as_ulong(dbuf[0]);
        out[GS_OUT * G + 1] = 0;
    }
}
#else
/* f32 sums without fp64: the three float-float / float accumulators of each partial. */
kernel WG_ATTR void reduce_final_ffsum(global ulong *out, uint G)
{
    local float2 sbuf[WG], bbuf[WG];
    local float xbuf[WG];
    uint lid = get_local_id(0);
    float2 small = (float2)(0.0f, 0.0f), big = small;
    float special = 0.0f;
    for (uint g = lid; g < G; g += WG) {
        ulong a = out[GS_OUT * g], b = out[GS_OUT * g + 1];
        small = gs_ff_add2(small, (float2)(as_float((uint)a), as_float((uint)(a >> 32))));
        big = gs_ff_add2(big, (float2)(as_float((uint)b), as_float((uint)(b >> 32))));
        special += as_float((uint)out[GS_OUT * g + 2]);
    }
    gs_ff_combine(sbuf, bbuf, xbuf, small, big, special, out + GS_OUT * G);
}
#endif
