/*
 * reduce.cl -- sum / min / max over the six key types, in one launch.
 *
 * Built (after keys.cl) with -DGS_HAVE_FP64=1 when the device has cl_khr_fp64 (then the f64
 * kernels exist and f32 sums accumulate in double).
 *
 * Two kernels per type: reduce_sum_<T>(x, n, out, done) and reduce_minmax_<T>(x, n, is_min,
 * out, done), T the OpenCL C type name (uint, int, float, ulong, long, double).
 *   1. A fixed grid of G work-groups (chosen by the host from n and the device's compute units,
 *      so it is the same on every run) reads the array in a grid-stride loop, four elements per
 *      load (vload4), four loads in flight per work-item; each work-group combines its
 *      work-items' results in local memory by a fixed tree, and work-item 0 writes GS_OUT = 4
 *      64-bit words out[4g ..] (the group's partial).
 *   2. Work-item 0 then takes a ticket from the counter *done (atomic_inc, after a global fence
 *      that orders its partial before the ticket). The group that draws ticket G - 1 finishes
 *      last: every partial is written by then. That group sets *done back to 0 (so the counter
 *      is zero at every launch, with no extra command; the host zero-fills it once when the
 *      buffer is created), combines the G partials and writes the result to out[4G ..], the
 *      only words the host reads back (32 bytes).
 * Fixed order everywhere: in step 2 work-item t takes partials t, t + WG, ... in order, then the
 * same tree as step 1, whichever group happens to be last; so a float sum is the same on every
 * run (deterministic). This is the "threadfence reduction" of NVIDIA's CUDA samples (one
 * launch instead of a partial launch + a final launch: on NVIDIA's OpenCL a launch costs more
 * than the final step itself). The partials are read through volatile pointers (from L2 on
 * NVIDIA: not a stale cache line, not the read-only path).
 * OpenCL 1.2 promises nothing about one work-group seeing another's stores within a launch;
 * gs_fence_device says what this relies on: fence.acq_rel.gpu on NVIDIA, a CPU fence on PoCL
 * (the two platforms the tests run on). Other vendors' GPUs get mem_fence(CLK_GLOBAL_MEM_FENCE),
 * which their compilers may scope to the work-group (unverified there).
 *
 *   integer sum   64-bit accumulators (u32 zero-extended, i32 sign-extended), wrapping mod 2^64:
 *                 exact. word 0 = the sum.
 *   float sum     f64: double. f32: double with fp64 (word 0 = its bits). Without fp64, float-
 *                 float pairs (hi + lo, error-free TwoSum, Knuth / Dekker; ~44 significant bits):
 *                 one for |x| < 2^64, one for |x| >= 2^64 scaled by 2^-64 (exact), so that no
 *                 partial sum overflows float's range where double's would not; +-inf and NaN go
 *                 to a plain float (inf + -inf = NaN, as the contract says). word 0 = small
 *                 (hi, lo bits), word 1 = big (hi, lo), word 2 = the inf/NaN float.
 *   min / max     value plus its input position (floats): NaN wins (numpy: any NaN gives NaN),
 *                 equal values (-0.0 vs +0.0) go to the lower position ("whichever comes
 *                 first"). word 0 = value bits (integers widened to 64 bits, signed ones sign-
 *                 extended), word 1 = position (floats; GS_NONE = empty).
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

/* ---- step 2: which work-group is last ---- */

/* A device-wide fence: this work-item's global stores before it are seen by every work-group
 * before its accesses after it (with the ticket atomic: a release on the writing side, an
 * acquire on the last group's side). OpenCL 1.2's mem_fence(CLK_GLOBAL_MEM_FENCE) promises
 * order within the work-group only, and NVIDIA's compiler turns it into membar.cta (seen in
 * the PTX of this program on the H200): too weak across work-groups. There the PTX
 * fence.acq_rel.gpu is used (sm_70 and later, as radix.cl's .sync warp instructions): the
 * lightest PTX fence that makes the release / acquire pair; CUDA's __threadfence (membar.gl =
 * fence.sc.gpu) works too, at the same speed on the H200. On PoCL
 * (work-groups are CPU threads) mem_fence is a full fence. */
void gs_fence_device(void)
{
#ifdef __NV_CL_C_VERSION
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
#else
    mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}

/* Called by every work-item after work-item 0 wrote the group's partial: 1 in the work-group
 * that finishes last (all partials are then in global memory), 0 in the others. The last one
 * puts *done back to 0. `last`: one local int of the kernel. */
int gs_last_group(global uint *done, local int *last)
{
    if (get_local_id(0) == 0) {
        gs_fence_device();                        /* our partial before our ticket */
        int l = atomic_inc(done) == get_num_groups(0) - 1;
        if (l) {
            atomic_xchg(done, 0u);                /* every group has its ticket: reset */
            gs_fence_device();                    /* the ticket before reading the partials */
        }
        *last = l;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    return *last;
}

/* ---- sums in 64-bit integers ---- */

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

/* The end of every integer sum kernel: the group's partial (its work-items' accumulators acc),
 * and in the last group the sum of the partials. */
void gs_isum_finish(ulong acc, global ulong *out, global uint *done, local ulong *buf,
                    local int *last)
{
    uint G = get_num_groups(0);
    acc = gs_group_sum(acc, buf);
    if (get_local_id(0) == 0) out[GS_OUT * get_group_id(0)] = acc;
    if (!gs_last_group(done, last)) return;
    volatile global const ulong *part = out;
    acc = 0;
    #pragma unroll 4                      /* independent loads of the partials in flight */
    for (uint g = get_local_id(0); g < G; g += WG) acc += part[GS_OUT * g];
    acc = gs_group_sum(acc, buf);
    if (get_local_id(0) == 0) out[GS_OUT * G] = acc;
}

/* ---- integers: min/max in the type's order ----
 * gs_minmax_<T>(best, ...): the work-group's min (is_min) or max of best, by a fixed tree;
 * work-item 0 writes it to dst[0], widened to 64 bits. Comparing the widened words as T again
 * picks the same element, so the last group's step reads them back as T. */
#define GS_INT_MINMAX(T)                                                                       \
void gs_minmax_##T(T best, int is_min, local T *buf, global ulong *dst)                        \
{                                                                                              \
    uint lid = get_local_id(0);                                                                \
    buf[lid] = best;                                                                           \
    barrier(CLK_LOCAL_MEM_FENCE);                                                              \
    for (uint w = WG / 2; w > 0; w >>= 1) {                                                    \
        if (lid < w)                                                                           \
            buf[lid] = is_min ? min(buf[lid], buf[lid + w]) : max(buf[lid], buf[lid + w]);     \
        barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    }                                                                                          \
    if (lid == 0) dst[0] = (ulong)buf[0];                                                      \
}                                                                                              \
                                                                                               \
void gs_minmax_finish_##T(T best, int is_min, global ulong *out, global uint *done,            \
                          local T *buf, local int *last)                                       \
{                                                                                              \
    uint G = get_num_groups(0);                                                                \
    gs_minmax_##T(best, is_min, buf, out + GS_OUT * get_group_id(0));                          \
    if (!gs_last_group(done, last)) return;                                                    \
    volatile global const ulong *part = out;                                                   \
    best = (T)part[0];                    /* partial 0 is a valid starting point */            \
    for (uint g = get_local_id(0); g < G; g += WG) {                                           \
        T x = (T)part[GS_OUT * g];                                                             \
        best = is_min ? min(best, x) : max(best, x);                                           \
    }                                                                                          \
    gs_minmax_##T(best, is_min, buf, out + GS_OUT * G);                                        \
}

/* ---- integer kernels: sum (64-bit) and min/max ---- */
#define GS_INT_REDUCE(T, T4, WIDEN, TMIN, TMAX)                                                \
GS_INT_MINMAX(T)                                                                               \
                                                                                               \
kernel WG_ATTR void reduce_sum_##T(global const T *x, ulong n, global ulong *out,             \
                                   global uint *done)                                          \
{                                                                                              \
    local ulong lbuf[WG];                                                                      \
    local int last;                                                                            \
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
    gs_isum_finish(acc, out, done, lbuf, &last);                                               \
}                                                                                              \
                                                                                               \
kernel WG_ATTR void reduce_minmax_##T(global const T *x, ulong n, int is_min,                 \
                                      global ulong *out, global uint *done)                    \
{                                                                                              \
    local T tbuf[WG];                                                                          \
    local int last;                                                                            \
    size_t gid = get_global_id(0), gsize = get_global_size(0);                                 \
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
    gs_minmax_finish_##T(best, is_min, out, done, tbuf, &last);                                \
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

/* gs_fbest_<T>: the work-group's best (value, position) pair under GS_FLOAT_BETTER, by a fixed
 * tree in local memory; work-item 0 writes dst[0] = value bits, dst[1] = position. Positions
 * are distinct, so the winner does not depend on the order of combination. AS_T turns a
 * partial's word 0 back into a T (step 2). */
#define GS_FLOAT_MINMAX(T, T4, AS_T, BITS)                                                     \
void gs_fbest_##T(T best, ulong bi, int is_min, local T *vbuf, local ulong *ibuf,              \
                  global ulong *dst)                                                           \
{                                                                                              \
    uint lid = get_local_id(0);                                                                \
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
        dst[0] = (ulong)BITS(vbuf[0]);                                                         \
        dst[1] = ibuf[0];                                                                      \
    }                                                                                          \
}                                                                                              \
                                                                                               \
kernel WG_ATTR void reduce_minmax_##T(global const T *x, ulong n, int is_min,                 \
                                      global ulong *out, global uint *done)                    \
{                                                                                              \
    local T vbuf[WG];                                                                          \
    local ulong ibuf[WG];                                                                      \
    local int last;                                                                            \
    size_t gid = get_global_id(0), gsize = get_global_size(0);                                 \
    uint G = get_num_groups(0);                                                                \
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
    gs_fbest_##T(best, bi, is_min, vbuf, ibuf, out + GS_OUT * get_group_id(0));                \
    if (!gs_last_group(done, &last)) return;                                                   \
    volatile global const ulong *part = out;                                                   \
    best = 0;                                                                                  \
    bi = GS_NONE;                                                                              \
    for (uint g = get_local_id(0); g < G; g += WG) {                                           \
        T y = AS_T(part[GS_OUT * g]);                                                          \
        ulong yi = part[GS_OUT * g + 1];                                                       \
        if (GS_FLOAT_BETTER(best, bi, y, yi, is_min)) { best = y; bi = yi; }                   \
    }                                                                                          \
    gs_fbest_##T(best, bi, is_min, vbuf, ibuf, out + GS_OUT * G);                              \
}

#define GS_AS_FLOAT(w) as_float((uint)(w))
GS_FLOAT_MINMAX(float, float4, GS_AS_FLOAT, as_uint)

/* ---- float sums ---- */

#ifdef GS_HAVE_FP64
GS_FLOAT_MINMAX(double, double4, as_double, as_ulong)

/* Tree sum of one double per work-item, returned to every work-item. */
double gs_group_dsum(double x, local double *buf)
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

/* The end of the double-accumulating kernels (f64, f32 with fp64): as gs_isum_finish. */
void gs_dsum_finish(double acc, global ulong *out, global uint *done, local double *buf,
                    local int *last)
{
    uint G = get_num_groups(0);
    acc = gs_group_dsum(acc, buf);
    if (get_local_id(0) == 0) out[GS_OUT * get_group_id(0)] = as_ulong(acc);
    if (!gs_last_group(done, last)) return;
    volatile global const ulong *part = out;
    acc = 0.0;
    #pragma unroll 4
    for (uint g = get_local_id(0); g < G; g += WG) acc += as_double(part[GS_OUT * g]);
    acc = gs_group_dsum(acc, buf);
    if (get_local_id(0) == 0) out[GS_OUT * G] = as_ulong(acc);
}

kernel WG_ATTR void reduce_sum_double(global const double *x, ulong n, global ulong *out,
                                      global uint *done)
{
    local double dbuf[WG];
    local int last;
    size_t gid = get_global_id(0), gsize = get_global_size(0);
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
    gs_dsum_finish(acc, out, done, dbuf, &last);
}

kernel WG_ATTR void reduce_sum_float(global const float *x, ulong n, global ulong *out,
                                     global uint *done)
{
    local double dbuf[WG];
    local int last;
    size_t gid = get_global_id(0), gsize = get_global_size(0);
    ulong n4 = n / 4;
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
    gs_dsum_finish(acc, out, done, dbuf, &last);
}

#else /* no fp64: f32 sums in float-float */

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

kernel WG_ATTR void reduce_sum_float(global const float *x, ulong n, global ulong *out,
                                     global uint *done)
{
    /* Three accumulators per work-item: small, big (scaled), special (inf/NaN). */
    local float2 sbuf[WG], bbuf[WG];
    local float xbuf[WG];
    local int last;
    size_t gid = get_global_id(0), gsize = get_global_size(0);
    uint G = get_num_groups(0);
    float2 small = (float2)(0.0f, 0.0f), big = small;
    float special = 0.0f;
    for (ulong i = gid; i < n; i += gsize) {
        float v = x[i];
        if (!isfinite(v)) special += v;
        else if (fabs(v) >= 0x1p64f) big = gs_ff_add(big, v * 0x1p-64f);
        else small = gs_ff_add(small, v);
    }
    gs_ff_combine(sbuf, bbuf, xbuf, small, big, special, out + GS_OUT * get_group_id(0));
    if (!gs_last_group(done, &last)) return;
    volatile global const ulong *part = out;
    small = big = (float2)(0.0f, 0.0f);
    special = 0.0f;
    for (uint g = get_local_id(0); g < G; g += WG) {
        ulong a = part[GS_OUT * g], b = part[GS_OUT * g + 1];
        small = gs_ff_add2(small, (float2)(as_float((uint)a), as_float((uint)(a >> 32))));
        big = gs_ff_add2(big, (float2)(as_float((uint)b), as_float((uint)(b >> 32))));
        special += as_float((uint)part[GS_OUT * g + 2]);
    }
    gs_ff_combine(sbuf, bbuf, xbuf, small, big, special, out + GS_OUT * G);
}
#endif
