/*
 * verify.h -- an independent reference for the gpusort contract, for tests, the CLI's `check`
 * and the benchmarks. NOT part of the library, and it never calls the library's sort or reduce:
 * a bug in the library cannot hide itself by being in the reference too.
 *
 * The gpusort order (include/gpusort.h, CONTRACT), written here directly with C comparisons
 * (not with src/keys.h's bit transforms):
 *   ints    the usual numeric order of the signed or unsigned value;
 *   floats  -inf < ... < -0.0 == +0.0 < ... < +inf < NaN, every NaN equal to every other NaN;
 *   descending is the reversed comparison, and ties keep their input order in BOTH directions.
 * Because every sort is stable, the sorted order of a given input is unique: keys, values and
 * argsort indices from any backend must equal the reference's bit for bit.
 *
 * ORDER OF CALLS
 *   verify_ref_argsort(type, keys, n, order, perm)     stable reference permutation
 *   verify_gather(out, in, perm, n, size)              apply it to keys or values
 *   verify_first_diff(got, want, n, size)              compare bitwise
 *   verify_check_reduce(type, data, n, op, result, ...) check a reduce result against the bound
 *   verify_first_unsorted / verify_cmp / verify_format  smaller helpers
 */
#ifndef GPUSORT_VERIFY_H
#define GPUSORT_VERIFY_H

#include "gpusort.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Compare one element at a with one at b (each of `type`) in the ascending gpusort order:
 * negative, 0 or positive. */
int verify_cmp(gpusort_type type, const void *a, const void *b);

/* The first index i >= 1 with keys[i] out of order after keys[i-1] (for `order`), or n if the
 * keys are sorted (so n < 2 is always sorted). */
size_t verify_first_unsorted(gpusort_type type, const void *keys, size_t n, gpusort_order order);

/* Stable reference sort (bottom-up merge sort): perm[i] = the input index of the i-th key in
 * stable sorted order. Returns 0, or -1 if out of memory (needs 32 bytes per key). */
int verify_ref_argsort(gpusort_type type, const void *keys, size_t n, gpusort_order order,
                       uint64_t *perm);

/* Turn the stable ASCENDING permutation of keys (from verify_ref_argsort) into the stable
 * DESCENDING one in O(n): the runs of equal keys come in reverse order, each keeping its input
 * order. perm_asc and perm_desc must not alias. */
void verify_ref_reverse_stable(gpusort_type type, const void *keys, size_t n,
                               const uint64_t *perm_asc, uint64_t *perm_desc);

/* Same, per segment [offsets[s], offsets[s+1]) for s < num_segments; positions outside every
 * segment keep their own index (perm[i] = i), as gpusort_sort_segmented copies them unchanged.
 * The offsets must be valid (non-decreasing, last <= n). Returns 0 or -1 (out of memory). */
int verify_ref_segmented_argsort(gpusort_type type, const void *keys, size_t n,
                                 gpusort_order order, const uint64_t *offsets,
                                 size_t num_segments, uint64_t *perm);

/* out[i] = in[perm[i]] for n elements of elem_size (4 or 8) bytes. out must not alias in. */
void verify_gather(void *out, const void *in, const uint64_t *perm, size_t n, size_t elem_size);

/* The first index where a and b differ bitwise (elements of elem_size bytes), or n. */
size_t verify_first_diff(const void *a, const void *b, size_t n, size_t elem_size);

/* Write one element as "0x3f800000 (1)" into buf. */
void verify_format(gpusort_type type, const void *elem, char *buf, size_t size);

/* Reduce checks. Integer sums must be exact modulo 2^64; float sums must satisfy the bound of
 * the contract, |sum - exact| <= bound with exact computed in long double with Kahan summation:
 *   f32: bound = 1e-12 * n * sum(|x|)           f64: bound = 2 * n * DBL_EPSILON * sum(|x|)
 * a sum over data with a NaN, or with both +inf and -inf, must be NaN; with one infinity, that
 * infinity. min/max: NaN if any input is NaN; otherwise the first occurrence of the least
 * (greatest) value in the gpusort order, bit for bit (so -0.0 vs +0.0 is checked: the contract
 * says "whichever comes first").
 * Returns VERIFY_OK, VERIFY_FAIL (with a message in msg) or VERIFY_UNCHECKED for a float sum whose
 * sum(|x|) exceeds the double range: then intermediate overflow is allowed and nothing can be
 * asserted (msg says so). n == 0: sum must be 0. */
enum { VERIFY_OK = 0, VERIFY_FAIL = 1, VERIFY_UNCHECKED = 2 };
int verify_check_reduce(gpusort_type type, const void *data, size_t n, gpusort_op op,
                        const gpusort_value *got, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif /* GPUSORT_VERIFY_H */
