/*
 * fuzz_records.c -- fuzz target: fixed-size records, the parameters of both layers:
 * --record-size/--key-size/--key-offset as text mode parses them (any string: "100", "1e2",
 * "2^7", "64K", garbage) and gpusort_sort_records with the layout that gives (record size,
 * key offset and size, right or wrong), in place or not, with or without indices of either type.
 *
 * Input: three NUL-ended option values, byte: order/in place/index type bits, then the records.
 * Properties: the parser accepts or refuses (exit 2) without crashing; the library refuses a key
 * that does not fit its record (INVALID_ARGUMENT) and otherwise returns the records in the order
 * of an independent stable insertion sort by memcmp of the keys, byte for byte, with each index
 * naming its record's input position; a failure leaves an in-place buffer as it was.
 */
#include "fuzz_text.h"
#include "util.h"

static gpusort_ctx *ctx;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setenv("LC_ALL", "C", 1);
    if (!ctx) {
        if (gpusort_ctx_create(&ctx, GPUSORT_BACKEND_CPU, -1) != GPUSORT_STATUS_SUCCESS) abort();
        gpusort_ctx_set_threads(ctx, 2);
    }
    /* The three option values: NUL-ended strings at the start. */
    char *store = (char *)malloc(size + 1);
    memcpy(store, data, size);
    store[size] = 0;
    const char *val[3] = {"", "", ""};
    size_t at = 0;
    for (int i = 0; i < 3 && at < size; i++) {
        val[i] = store + at;
        at += strlen(store + at) + 1;
    }
    fz f = {data + (at < size ? at : size), at < size ? size - at : 0};
    unsigned bits = fz_u8(&f);

    char opt[3][80];
    snprintf(opt[0], sizeof opt[0], "--record-size=%s", val[0]);
    snprintf(opt[1], sizeof opt[1], "--key-size=%s", val[1]);
    snprintf(opt[2], sizeof opt[2], "--key-offset=%s", val[2]);
    char *argv[] = {(char *)"gpusort", opt[0], opt[1], opt[2], NULL};
    tsort t;
    int rc, code = fz_text_parse(4, argv, &t, &rc);
    int jumped = code != -1;
    FUZZ_ASSERT(code == 2 || (rc == -1 && t.o.record_size >= 1));
    cli_exit_hook = NULL;
    size_t rs = t.o.record_size, ko = t.o.key_offset, ks = t.o.key_size;
    fz_text_free(&t);
    free(store);
    if (jumped || rs > 64 || ko > 80 || ks > 80) return 0;   /* sizes the data can fill */

    size_t n = f.n / rs;
    if (n > 200) n = 200;
    int desc = bits & 1, inplace = (bits >> 1) & 1;
    int it = (bits >> 2) & 3;   /* 0: no indices, 1: U32, 2: U64, 3: an invalid type */
    gpusort_type itype = it == 1 ? GPUSORT_TYPE_U32 : it == 2 ? GPUSORT_TYPE_U64 : it == 3 ? GPUSORT_TYPE_F32 : GPUSORT_TYPE_U64;
    uint8_t *in = (uint8_t *)malloc(n * rs + 1), *orig = (uint8_t *)malloc(n * rs + 1);
    uint8_t *out = inplace ? in : (uint8_t *)malloc(n * rs + 1);
    uint64_t *idx = (uint64_t *)calloc(n + 1, 8);
    fz_bytes(&f, in, n * rs);
    memcpy(orig, in, n * rs);

    gpusort_status s = gpusort_sort_records(ctx, itype, in, n, rs, ko, ks, out, it ? idx : NULL,
                                            desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC, 0);
    int fits = ko <= rs && ks <= rs - ko;
    if (!fits || it == 3) {
        FUZZ_ASSERT(s == GPUSORT_STATUS_INVALID_ARGUMENT || (n == 0 && s == GPUSORT_STATUS_SUCCESS && it != 3));
        FUZZ_ASSERT(memcmp(in, orig, n * rs) == 0);
    } else {
        FUZZ_ASSERT(s == GPUSORT_STATUS_SUCCESS);
        /* Reference: a stable insertion sort of the record numbers by memcmp of the keys. */
        size_t *ref = (size_t *)malloc((n + 1) * sizeof *ref);
        for (size_t i = 0; i < n; i++) {
            size_t j = i;
            while (j > 0) {
                int c = memcmp(orig + ref[j - 1] * rs + ko, orig + i * rs + ko, ks);
                if (desc ? c >= 0 : c <= 0) break;
                ref[j] = ref[j - 1];
                j--;
            }
            ref[j] = i;
        }
        for (size_t i = 0; i < n; i++) {
            FUZZ_ASSERT(memcmp(out + i * rs, orig + ref[i] * rs, rs) == 0);
            if (it == 1) FUZZ_ASSERT(((uint32_t *)idx)[i] == ref[i]);
            if (it == 2) FUZZ_ASSERT(idx[i] == ref[i]);
        }
        if (!inplace) FUZZ_ASSERT(memcmp(in, orig, n * rs) == 0);
        free(ref);
    }
    if (!inplace) free(out);
    free(in);
    free(orig);
    free(idx);
    return 0;
}
