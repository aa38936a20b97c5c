/*
 * auto.cu -- GPUSORT_ALGORITHM_AUTO on the CUDA backend: the one place that picks the algorithm
 * for a call from its key type, keys or pairs, n, and whether the data is on the host.
 *
 * Exports (cuda_internal.h):
 *   gpusort__cuda_auto_on_cpu      host data: 1 when the CPU backend sorts it faster than the
 *                                  round trip through the device (host.cu asks first)
 *   gpusort__cuda_auto_algorithm   device data (and each device-side sort of the host paths):
 *                                  rank, bitonic, merge or radix (backend.cu's dispatch asks)
 *
 * Every candidate is stable, so AUTO keeps the API's promise whatever it picks. Argsort counts
 * as pairs. i32/i64 run the u32/u64 code with a transform and follow them.
 */
#include "cuda_internal.h"

/* Host data with AUTO below this many keys: the CPU backend sorts (the PCIe round trip and the
 * launch latency cost more than the CPU's sort). The first size where the GPU round trip wins,
 * pageable u32 on an H200 with 16 host cores: bench/results/device-final-2026-11-24.md. */
#define GPUSORT_CUDA_HOST_CPU_CROSSOVER ((size_t)1 << 12)

extern "C" int gpusort__cuda_auto_on_cpu(gpusort_ctx *ctx, const gpusort__sort_args *d)
{
    (void)ctx; /* PCIe and the host's cores decide, not the GPU's architecture */
    return d->n < GPUSORT_CUDA_HOST_CPU_CROSSOVER;
}

/* The fastest stable algorithm for device data by key width, n and keys/pairs, from the
 * crossovers measured on an H200 (bench_cuda --suite seeds --only cross: u32, f32, u64, f64 keys
 * alone and with u32 values, device pointers, median of 7, every output checked against the CPU
 * backend; bench/results/auto-2026-11-24.md). Times in us at the measured sizes:
 *   every type    n <= 2^13                   rank     one launch, 6.1-10.5 us for n <= 2^12;
 *                                                      radix 17-45 us, bitonic 6.5-91 us
 *   32-bit keys   2^13 < n <= 2^15  integers  rank     2^14: 37-38 vs bitonic 54 (its one-block
 *                                                      path), radix 48
 *                 2^13 < n <= 2^15  floats    bitonic  2^14: 25-26 vs rank 39-42, radix 54-57
 *                 2^15 < n <= 2^18            bitonic  2^16: 34-35 vs radix 50-58; 2^18: 48-50 vs 55-58
 *   32-bit pairs  2^13 < n <= 2^17            merge    2^14: 35-42 vs radix 63-67; 2^16: 49-55
 *                                                      vs 68-82; 2^18 about even (62-70 vs 64-71)
 *   64-bit keys   2^13 < n <= 2^16  floats    bitonic  2^14: 42 vs merge 48, radix 76-77; 2^16: 61 vs 63
 *                 2^13 < n <= 2^19            merge    2^14: 34-36 (u64) vs radix 69-72; 2^18: 62-82
 *                 (integer keys to 2^20)               vs 93-97; 2^20: u64 123-128 vs 148 (merge),
 *                                                      f64 146-155 vs 146-149 (radix)
 *   64-bit pairs  2^13 < n <= 2^20            merge    2^16: 63-67 vs 92-122; 2^20: 143-153 vs 166-178
 *   everything else                           radix    (2^20 32-bit: 73-78 us vs bitonic 93-98)
 * Other architectures (tuning.cu's rows): every crossover times 2^auto_shift (never below 2^10),
 * or radix at every size where the row says so. */
extern "C" gpusort_algorithm gpusort__cuda_auto_algorithm(gpusort_ctx *ctx,
                                                          const gpusort__sort_args *d)
{
    const gpusort__cuda_tuning *t = gpusort__cuda_tuning_of(ctx);
    if (t->auto_radix_only) return GPUSORT_ALGORITHM_RADIX;
    const size_t n = d->n;
    const int wide = gpusort_type_size(d->key_type) == 8;
    const int pairs = d->value_type != GPUSORT_TYPE_NONE;
    const int flt = d->key_type == GPUSORT_TYPE_F32 || d->key_type == GPUSORT_TYPE_F64;
    const int shift = t->auto_shift;
#define GS_P2(k) ((size_t)1 << ((k) + shift < 10 ? 10 : (k) + shift))
    if (n <= GS_P2(13)) return GPUSORT_ALGORITHM_RANK;
    if (!wide && !pairs) {
        if (n <= GS_P2(15) && !flt) return GPUSORT_ALGORITHM_RANK;
        if (n <= GS_P2(18)) return GPUSORT_ALGORITHM_BITONIC;
    } else if (!wide) {
        if (n <= GS_P2(17)) return GPUSORT_ALGORITHM_MERGE;
    } else if (!pairs) {
        if (flt && n <= GS_P2(16)) return GPUSORT_ALGORITHM_BITONIC;
        if (n <= GS_P2(flt ? 19 : 20)) return GPUSORT_ALGORITHM_MERGE;
    } else {
        if (n <= GS_P2(20)) return GPUSORT_ALGORITHM_MERGE;
    }
#undef GS_P2
    return GPUSORT_ALGORITHM_RADIX;
}
