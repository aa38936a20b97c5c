/*
 * records.c -- stable sort of fixed-size records by a byte-string key, on the CPU.
 *
 * Exports gpusort__cpu_sort_records (cpu.h), the CPU backend's sort_records method. Arguments
 * arrive checked by the core (src/gpusort.c); perm_out is never NULL here.
 *
 * Algorithm: the keys record[key_offset .. +key_size) are copied into one packed buffer (key i
 * at i * key_size), which is exactly a string set of equal lengths, and sorted by the string
 * sort of strings.c (radix sort of 7-byte packed prefixes, ties resolved 7 bytes deeper; for the
 * Sort Benchmark's 10-byte keys that is one full pass plus a rare second look). The permutation
 * then gathers the records: out[k] = in[perm[k]], in parallel slices. In place
 * (records_out == records_in) the records are gathered into a temporary copy and copied back;
 * if that copy cannot be allocated, the permutation is applied by following its cycles with one
 * record of scratch (slower: random access, one thread).
 *
 * Why not sort the records themselves: moving a 100-byte record through every radix pass costs
 * 100 bytes per pass; moving a 16-byte (key, index) pair costs 16, and the records move once.
 *
 * Memory: n * key_size (keys) + 8 * (n + 1) (offsets) + the string sort's 24 bytes per record,
 * plus n * record_size when sorting in place.
 */
#include "cpu.h"

#include <stdlib.h>
#include <string.h>

typedef struct rjob {
    const uint8_t *in;
    uint8_t *out;
    uint8_t *keys;
    uint64_t *off;
    const uint64_t *perm;
    size_t n, rs, ko, ks;
    int parts;
} rjob;

static void slice(const rjob *j, size_t i, size_t *a, size_t *b)
{
    *a = j->n * i / (size_t)j->parts;
    *b = j->n * (i + 1) / (size_t)j->parts;
}

static void keys_task(void *arg, size_t i)
{
    rjob *j = (rjob *)arg;
    size_t a, b;
    slice(j, i, &a, &b);
    if (j->ks == 0) {              /* already packed: offsets of records of rs bytes */
        for (size_t x = a; x <= b && x <= j->n; x++) j->off[x] = (uint64_t)x * j->rs;
        return;
    }
    for (size_t x = a; x < b; x++) {
        memcpy(j->keys + x * j->ks, j->in + x * j->rs + j->ko, j->ks);
        j->off[x] = (uint64_t)x * j->ks;
    }
    if (b == j->n) j->off[j->n] = (uint64_t)j->n * j->ks;
}

static void gather_task(void *arg, size_t i)
{
    rjob *j = (rjob *)arg;
    size_t a, b;
    slice(j, i, &a, &b);
    for (size_t x = a; x < b; x++) memcpy(j->out + x * j->rs, j->in + j->perm[x] * j->rs, j->rs);
}

/* Apply the permutation in place by its cycles: out[k] = old[perm[k]]. Marks visited slots by
 * setting the top bit of perm (restored afterwards; n < 2^63 always holds). */
static void permute_in_place(uint8_t *rec, uint64_t *perm, size_t n, size_t rs, uint8_t *tmp)
{
    const uint64_t mark = (uint64_t)1 << 63;
    for (size_t start = 0; start < n; start++) {
        if (perm[start] & mark) continue;
        if (perm[start] == start) { perm[start] |= mark; continue; }
        memcpy(tmp, rec + start * rs, rs);
        size_t k = start;
        for (;;) {
            size_t src = (size_t)perm[k];
            perm[k] |= mark;
            if (src == start) { memcpy(rec + k * rs, tmp, rs); break; }
            memcpy(rec + k * rs, rec + src * rs, rs);
            k = src;
        }
    }
    for (size_t k = 0; k < n; k++) perm[k] &= ~mark;
}

gpusort_status gpusort__cpu_sort_records(gpusort_ctx *ctx, const void *records_in,
                                         void *records_out, size_t n, size_t record_size,
                                         size_t key_offset, size_t key_size, gpusort_order order,
                                         uint64_t *perm_out)
{
    rjob j = {(const uint8_t *)records_in, (uint8_t *)records_out, NULL, NULL, perm_out,
              n, record_size, key_offset, key_size, gpusort__threads(ctx)};
    if (n < 65536) j.parts = 1;          /* thread start-up outweighs the work below this */
    gpusort_status st = GPUSORT_STATUS_SUCCESS;
    if (key_size == 0) {                 /* every key is equal: stable means unchanged */
        for (size_t i = 0; i < n; i++) perm_out[i] = i;
    } else {
        if (n > SIZE_MAX / key_size)
            return gpusort__set_error(ctx, GPUSORT_STATUS_INVALID_ARGUMENT, "n * key_size overflows");
        /* Records that are all key (record_size == key_size) are already packed. */
        int packed = key_offset == 0 && key_size == record_size;
        j.keys = packed ? NULL : (uint8_t *)gpusort__malloc(n * key_size);
        j.off = (uint64_t *)gpusort__malloc((n + 1) * sizeof(uint64_t));
        if ((!packed && !j.keys) || !j.off) {
            st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                    "%zu bytes for the packed keys", n * key_size + 8 * (n + 1));
            goto done;
        }
        if (packed) {
            j.ks = 0;              /* keys_task: offsets only */
            gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, keys_task, &j);
            j.ks = key_size;
        } else {
            gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, keys_task, &j);
        }
        st = gpusort__cpu_sort_strings(ctx, packed ? (const uint8_t *)records_in : j.keys, j.off,
                                       n, order, perm_out);
        free(j.keys);
        free(j.off);
        j.keys = NULL;
        j.off = NULL;
        if (st) goto done;
    }
    if (records_in != records_out) {
        gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, gather_task, &j);
    } else {
        uint8_t *copy = (uint8_t *)gpusort__malloc(n * record_size);
        if (copy) {
            j.out = copy;
            gpusort__cpu_parallel_for(j.parts, (size_t)j.parts, gather_task, &j);
            memcpy(records_out, copy, n * record_size);
            free(copy);
        } else {
            uint8_t *tmp = (uint8_t *)gpusort__malloc(record_size);
            if (!tmp) {
                st = gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                                        "%zu bytes for one record", record_size);
                goto done;
            }
            permute_in_place((uint8_t *)records_out, perm_out, n, record_size, tmp);
            free(tmp);
        }
    }
done:
    free(j.keys);
    free(j.off);
    return st;
}
