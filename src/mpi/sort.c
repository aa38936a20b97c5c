/*
 * sort.c -- gpusort_mpi_sort, _sort_pairs and _argsort (gpusort_mpi.h): the MPI transport of
 * the distributed sort whose steps live in src/dist/ (dist.h).
 *
 * One call, on every rank (each step's collectives in brackets):
 *   0. check the arguments; duplicate comm                       [MPI_Comm_dup]
 *   1. agree that every rank's arguments are valid and the same  [allreduce]
 *   2. counts of all ranks                                       [allgather]
 *   3. scratch; local sort with the rank's context (device data: on the GPU, then copied to
 *      pinned host memory); global indices for argsort; agree    [allreduce]
 *   4. the exact splits of this rank's run at the P + 1 output boundaries
 *      (gpusort__dist_select over mpi_comm_ops)            [key bits / 4 + 2 allreduce/exscan]
 *   5. the plan; counts to every peer                            [alltoall]; agree on the mode
 *      of the exchange                                            [allreduce]; its tables,
 *      agree                                                      [allreduce]
 *   6. the exchange of keys, then of values                      [alltoallv, or isend/irecv;
 *      GPU ranks: NCCL's send/recv when every rank can (decide_nccl)      or NCCL, agree]
 *   7. the stable merge of the P received runs, in rank order (gpusort__dist_merge), or on
 *      a GPU context their stable sort with the context (the same result), or, when they
 *      arrived in device memory, the backend's merge (multi.cu's, pairwise rounds); device
 *      data copied back; agree                                   [allreduce]
 * A rank that fails does not leave: it takes part in the next agreement with its status, so
 * every rank returns the error together (the agreements are where a failure can be seen; the
 * steps between them cannot fail alone: their scratch is allocated before step 3's agreement).
 *
 * Exchange: MPI-3's MPI_Alltoallv counts and displacements are int, so one call moves at most
 * 2^31 - 1 bytes per rank in each direction. When some rank's volume is larger (or larger
 * than the test knob GPUSORT_MPI_CHUNK_BYTES) every rank exchanges point to point instead,
 * each peer's slice in pieces of at most the chunk (2^30 bytes by default); pieces between two
 * ranks are matched in order (MPI's non-overtaking rule for one tag).
 */
#include "gpusort_mpi.h"

#include "backend.h"
#include "dist.h"
#include "internal.h"
#include "stage.h"

#include <pthread.h>

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest piece of the point-to-point exchange: well inside int, a multiple of 8. */
#define MPI_CHUNK_DEFAULT ((uint64_t)1 << 30)
#define MPI_TAG_EXCHANGE 17

static _Thread_local char last_error[512];
static _Thread_local gpusort_mpi_times last_times;

const char *gpusort_mpi_get_last_error(void) { return last_error; }
void gpusort_mpi_get_last_times(gpusort_mpi_times *t) { if (t) *t = last_times; }

/* malloc of at least one byte (n may be 0 on a rank), through the library's allocation hook
 * (src/alloc.c: the fault tests fail the k-th allocation). */
static void *host_alloc(size_t bytes) { return gpusort__malloc(bytes ? bytes : 1); }

/* One call's state. */
typedef struct mpi_job {
    gpusort_ctx *ctx;
    MPI_Comm comm;              /* our duplicate */
    int rank, P;
    gpusort_type ktype, vtype;  /* vtype NONE: keys only */
    size_t ks, vs;
    const void *keys_in, *values_in;   /* values_in NULL with a value type: global indices */
    void *keys_out, *values_out;
    size_t n;
    gpusort_order order;
    int device;                 /* the data is in device memory */
    int direct;                 /* device data exchanged as such (a CUDA-aware MPI, or NCCL) */
    gpusort_status st;          /* this rank's status so far */
    MPI_Comm user;              /* the caller's communicator (NCCL's id is cached on it) */
    int nccl;                   /* the exchange goes over NCCL (every rank agreed) */
    unsigned char nccl_id[GPUSORT__NCCL_ID_BYTES];
} mpi_job;

static gpusort_status fail(mpi_job *j, gpusort_status s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static gpusort_status fail(mpi_job *j, gpusort_status s, const char *fmt, ...)
{
    if (j->st != GPUSORT_STATUS_SUCCESS) return j->st;     /* keep the first failure */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    j->st = s;
    return s;
}

/* Every rank learns the worst status (and the rank that had it). Returns the agreed status;
 * on a rank that did not fail itself, the error says which rank did. */
static gpusort_status agree(mpi_job *j, const char *step)
{
    int mine[2] = {(int)j->st, j->rank}, all[2];
    if (MPI_Allreduce(mine, all, 1, MPI_2INT, MPI_MAXLOC, j->comm) != MPI_SUCCESS) {
        fail(j, GPUSORT_STATUS_DEVICE_ERROR, "MPI_Allreduce failed (%s)", step);
        return j->st;
    }
    if (all[0] != GPUSORT_STATUS_SUCCESS && j->st == GPUSORT_STATUS_SUCCESS)
        fail(j, (gpusort_status)all[0], "rank %d failed (%s): %s", all[1], step,
             gpusort_status_string((gpusort_status)all[0]));
    return j->st;
}

/* The selection's collectives over MPI (dist.h). */
static int mpi_sum(void *arg, uint64_t *v, size_t len)
{
    return MPI_Allreduce(MPI_IN_PLACE, v, (int)len, MPI_UINT64_T, MPI_SUM, *(MPI_Comm *)arg) !=
           MPI_SUCCESS;
}

static int mpi_exscan(void *arg, uint64_t *v, size_t len)
{
    MPI_Comm c = *(MPI_Comm *)arg;
    int rank;
    MPI_Comm_rank(c, &rank);
    if (MPI_Exscan(MPI_IN_PLACE, v, (int)len, MPI_UINT64_T, MPI_SUM, c) != MPI_SUCCESS) return 1;
    if (rank == 0) memset(v, 0, len * sizeof *v);      /* MPI leaves rank 0's undefined */
    return 0;
}

/* The requests of the point-to-point exchange of elements of `size` bytes in pieces of
 * `chunk` bytes: one per piece sent or received. */
static size_t exchange_requests(const mpi_job *j, const size_t *scnt, const size_t *rcnt,
                                size_t size, uint64_t chunk)
{
    size_t nreq = 0;
    for (int p = 0; chunk && p < j->P; p++)
        if (p != j->rank)
            nreq += (scnt[p] * size + chunk - 1) / chunk + (rcnt[p] * size + chunk - 1) / chunk;
    return nreq;
}

/* Move each peer's slice of send (elements of `size` bytes) into recv. `chunk` 0: one
 * MPI_Alltoallv (every count and offset fits an int; v: 4P ints of scratch); else point to
 * point in pieces (req: exchange_requests() of them). */
static int exchange(mpi_job *j, const void *send, const size_t *soff, const size_t *scnt,
                    void *recv, const size_t *roff, const size_t *rcnt, size_t size,
                    uint64_t chunk, int *v, MPI_Request *req)
{
    int P = j->P, me = j->rank;
    /* This rank's own slice is copied here, not by MPI (several threads; device to device
     * when direct), in both modes. */
    char err[256];
    char *own_dst = (char *)recv + roff[me] * size;
    const char *own_src = (const char *)send + soff[me] * size;
    int own_bad = 0, bad = 0;       /* a failed own copy must not skip MPI's calls: peers wait */
    if (j->direct)
        own_bad = gpusort__mpi_copy(own_dst, own_src, scnt[me] * size, err, sizeof err) != 0;
    else
        gpusort__mpi_copy_host(own_dst, own_src, scnt[me] * size);
    if (!chunk) {
        for (int p = 0; p < P; p++) {
            int own = p == me;
            v[p] = own ? 0 : (int)(scnt[p] * size);
            v[P + p] = (int)(soff[p] * size);
            v[2 * P + p] = own ? 0 : (int)(rcnt[p] * size);
            v[3 * P + p] = (int)(roff[p] * size);
        }
        int r = MPI_Alltoallv(send, v, v + P, MPI_BYTE, recv, v + 2 * P, v + 3 * P, MPI_BYTE,
                              j->comm);
        return r == MPI_SUCCESS && !own_bad ? 0 : -1;
    }
    size_t k = 0;
    for (int p = 0; p < P && !bad; p++) {
        if (p == j->rank) continue;
        const char *rb = (char *)recv + roff[p] * size;
        for (uint64_t o = 0, len = rcnt[p] * size; o < len && !bad; o += chunk)
            bad = MPI_Irecv((void *)(rb + o), (int)(len - o < chunk ? len - o : chunk), MPI_BYTE,
                            p, MPI_TAG_EXCHANGE, j->comm, &req[k++]) != MPI_SUCCESS;
    }
    for (int p = 0; p < P && !bad; p++) {
        if (p == j->rank) continue;
        const char *sb = (const char *)send + soff[p] * size;
        for (uint64_t o = 0, len = scnt[p] * size; o < len && !bad; o += chunk)
            bad = MPI_Isend(sb + o, (int)(len - o < chunk ? len - o : chunk), MPI_BYTE, p,
                            MPI_TAG_EXCHANGE, j->comm, &req[k++]) != MPI_SUCCESS;
    }
    if (MPI_Waitall((int)k, req, MPI_STATUSES_IGNORE) != MPI_SUCCESS) bad = 1;
    return bad || own_bad ? -1 : 0;
}

/* The chunk of the point-to-point exchange: the default, or GPUSORT_MPI_CHUNK_BYTES (a test
 * knob that sends the exchange through the chunked path at small sizes). */
static uint64_t chunk_bytes(void)
{
    const char *e = getenv("GPUSORT_MPI_CHUNK_BYTES");
    char *end;
    unsigned long long v = e && *e ? strtoull(e, &end, 10) : 0;
    if (!v || *end || v > MPI_CHUNK_DEFAULT) return MPI_CHUNK_DEFAULT;
    return v;
}

/* How step 7 combines the received runs: by re-sorting them with the context on a GPU
 * context, by the host merge on the CPU one. GPUSORT_MPI_MERGE=sort|tree overrides (a test
 * knob: the CPU tests run both ways). */
static int merge_by_sort(const gpusort_ctx *ctx)
{
    const char *e = getenv("GPUSORT_MPI_MERGE");
    if (e && !strcmp(e, "sort")) return 1;
    if (e && !strcmp(e, "tree")) return 0;
    return gpusort_ctx_get_backend(ctx) != GPUSORT_BACKEND_CPU;
}

/* Whether device data goes to MPI as device pointers: when the MPI library says at run time
 * that it takes them (gpusort__mpi_cuda_aware), unless GPUSORT_MPI_CUDA_AWARE=0; and only
 * where the rest of the call needs no host copy of the data: the received runs are sorted
 * on the GPU (merge_by_sort), and no global indices are made (they are added on the host). */
static int exchange_direct(const mpi_job *j)
{
    const char *e = getenv("GPUSORT_MPI_CUDA_AWARE");
    if (!j->device || (e && !strcmp(e, "0")) || !gpusort__mpi_cuda_aware()) return 0;
    return merge_by_sort(j->ctx) && !(j->vtype != GPUSORT_TYPE_NONE && !j->values_in);
}

/* ---- NCCL between GPU ranks ---- */

/* The id of the NCCL communicator of a caller's MPI communicator, cached on it as an attribute
 * (freed with the communicator): made once by rank 0 and broadcast. */
static int nccl_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t nccl_keyval_once = PTHREAD_ONCE_INIT;
static int nccl_id_free(MPI_Comm c, int kv, void *val, void *extra)
{
    (void)c; (void)kv; (void)extra;
    free(val);
    return MPI_SUCCESS;
}
static void nccl_keyval_make(void)
{
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, nccl_id_free, &nccl_keyval, NULL);
}

/* Whether device data travels over NCCL (collective: every rank must take part in NCCL's
 * calls): every rank's context offers it (the CUDA backend's table), the data is device memory
 * (or the rank has none), the received runs are sorted on the GPU, no global indices are made
 * on the host, GPUSORT_MPI_NCCL is not 0, and no two ranks share a GPU (by UUID); then rank 0
 * makes the communicator's id (if NCCL loads) and every rank learns it. Before step 3. A
 * failure of an MPI call here leaves the exchange to MPI (the agreements after it report). */
static void decide_nccl(mpi_job *j)
{
    const char *e = getenv("GPUSORT_MPI_NCCL");
    const gpusort__multi_ops *mo = j->ctx ? j->ctx->ops->multi : NULL;
    int can = !(e && !strcmp(e, "0")) && mo && mo->rank_exchange && merge_by_sort(j->ctx) &&
              (j->device || j->n == 0) &&
              !(j->vtype != GPUSORT_TYPE_NONE && !j->values_in);
    unsigned char uuid[16] = {0};
    if (can && gpusort__mpi_device_uuid(gpusort_ctx_get_device(j->ctx), uuid)) can = 0;
    if (MPI_Allreduce(MPI_IN_PLACE, &can, 1, MPI_INT, MPI_MIN, j->comm) != MPI_SUCCESS || !can)
        return;
    /* One GPU per rank: NCCL refuses two ranks on one device. */
    unsigned char *all = (unsigned char *)malloc((size_t)j->P * 16);
    int distinct = all != NULL;
    if (MPI_Allreduce(MPI_IN_PLACE, &distinct, 1, MPI_INT, MPI_MIN, j->comm) != MPI_SUCCESS ||
        !distinct ||
        MPI_Allgather(uuid, 16, MPI_BYTE, all, 16, MPI_BYTE, j->comm) != MPI_SUCCESS) {
        free(all);
        return;
    }
    for (int a = 0; a < j->P && distinct; a++)
        for (int b = a + 1; b < j->P && distinct; b++)
            if (!memcmp(all + 16 * (size_t)a, all + 16 * (size_t)b, 16)) distinct = 0;
    free(all);
    if (!distinct) return;
    pthread_once(&nccl_keyval_once, nccl_keyval_make);
    void *val = NULL;
    int have = 0;
    if (nccl_keyval != MPI_KEYVAL_INVALID)
        MPI_Comm_get_attr(j->user, nccl_keyval, &val, &have);
    int all_have = have;    /* the same on every rank, unless a caller mixed communicators */
    if (MPI_Allreduce(MPI_IN_PLACE, &all_have, 1, MPI_INT, MPI_MIN, j->comm) != MPI_SUCCESS)
        return;
    if (all_have) {
        memcpy(j->nccl_id, val, sizeof j->nccl_id);
    } else {
        unsigned char msg[1 + GPUSORT__NCCL_ID_BYTES] = {0};
        if (j->rank == 0) msg[0] = mo->rank_id(j->ctx, msg + 1) == GPUSORT_STATUS_SUCCESS;
        if (MPI_Bcast(msg, (int)sizeof msg, MPI_BYTE, 0, j->comm) != MPI_SUCCESS || !msg[0])
            return;    /* NCCL does not load on rank 0: MPI carries the exchange */
        memcpy(j->nccl_id, msg + 1, sizeof j->nccl_id);
        void *copy = malloc(sizeof j->nccl_id);
        if (copy && nccl_keyval != MPI_KEYVAL_INVALID) {
            memcpy(copy, j->nccl_id, sizeof j->nccl_id);
            if (have) MPI_Comm_delete_attr(j->user, nccl_keyval);
            MPI_Comm_set_attr(j->user, nccl_keyval, copy);
        } else {
            free(copy);
        }
    }
    j->nccl = 1;
    if (j->device) j->direct = 1;
}

/* The selection's counts on this rank's sorted run in device memory (direct exchange: no host
 * copy of the keys is made), by the backend's count kernel. */
typedef struct rank_count {
    mpi_job *j;
    const void *keys;
    uint64_t *work;             /* device, 2 x cap u64 */
} rank_count;

static int rank_device_count(void *arg, const uint64_t *v, size_t m, int or_equal, uint64_t *cnt)
{
    rank_count *rc = (rank_count *)arg;
    const gpusort__multi_ops *mo = rc->j->ctx->ops->multi;
    int desc = rc->j->order == GPUSORT_ORDER_DESC;
    return mo->count_launch(rc->j->ctx, rc->j->ktype, desc, rc->keys, rc->j->n, v, m, or_equal,
                            rc->work) != GPUSORT_STATUS_SUCCESS ||
           mo->count_fetch(rc->j->ctx, m, cnt, rc->work) != GPUSORT_STATUS_SUCCESS;
}

/* The context's stable sort of n keys (and values: vt NONE for keys only). */
static gpusort_status sort_with(mpi_job *j, gpusort_type vt, const void *kin, const void *vin,
                                void *kout, void *vout)
{
    if (vt == GPUSORT_TYPE_NONE)
        return gpusort_sort(j->ctx, j->ktype, kin, j->n, kout, j->order,
                            GPUSORT_ALGORITHM_AUTO, 0);
    return gpusort_sort_pairs(j->ctx, j->ktype, vt, kin, vin, j->n, kout, vout, j->order,
                              GPUSORT_ALGORITHM_AUTO, 0);
}

/* Steps 1 to 7 (see the top of the file). */
static gpusort_status run(mpi_job *j)
{
    gpusort_mpi_times times = {0};
    int P = j->P, me = j->rank, desc = j->order == GPUSORT_ORDER_DESC;
    int want_keys = j->keys_out != NULL, with_values = j->vtype != GPUSORT_TYPE_NONE;
    size_t ks = j->ks, vs = j->vs, n = j->n;

    /* 1. The same arguments everywhere (each rank checked its own before). */
    if (agree(j, "argument check")) return j->st;
    int a[5] = {(int)j->ktype, (int)j->vtype, (int)j->order, j->values_in != NULL, want_keys};
    int lo[5], hi[5];
    if (MPI_Allreduce(a, lo, 5, MPI_INT, MPI_MIN, j->comm) != MPI_SUCCESS ||
        MPI_Allreduce(a, hi, 5, MPI_INT, MPI_MAX, j->comm) != MPI_SUCCESS)
        return fail(j, GPUSORT_STATUS_DEVICE_ERROR, "MPI_Allreduce failed (argument check)");
    for (int i = 0; i < 4; i++)     /* want_keys (i = 4) may differ: it is each rank's own */
        if (lo[i] != hi[i])
            return fail(j, GPUSORT_STATUS_INVALID_ARGUMENT,
                        "the ranks disagree on the %s", (const char *[]){"key type",
                        "value type", "order", "values (given or global indices)"}[i]);
    decide_nccl(j);

    /* 2. Every rank's count: the output layout. */
    size_t *counts = (size_t *)gpusort__malloc((size_t)P * sizeof *counts);
    uint64_t n64 = n, *c64 = (uint64_t *)gpusort__malloc((size_t)P * sizeof *c64);
    /* A rank without its tables must not skip the Allgather alone (the others would wait in it
     * for ever): every rank learns first. */
    if (!counts || !c64) fail(j, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "count tables for %d ranks", P);
    if (agree(j, "count tables")) {
        free(counts);
        free(c64);
        return j->st;
    }
    int ok = MPI_Allgather(&n64, 1, MPI_UINT64_T, c64, 1, MPI_UINT64_T, j->comm) == MPI_SUCCESS;
    uint64_t base = 0;              /* global index of this rank's first element */
    for (int p = 0; ok && p < P; p++) {
        counts[p] = (size_t)c64[p];
        if (p < me) base += c64[p];
    }
    free(c64);
    if (!ok) {
        free(counts);
        return fail(j, GPUSORT_STATUS_DEVICE_ERROR, "MPI_Allgather of the counts failed");
    }

    /* 3. Scratch, then the local sort. Host views: sk/sv hold the sorted run (and receive the
     * merge), rk/rv the received runs. Host data sorts straight into the outputs. Device data
     * sorts on the GPU and is staged to sk/sv (pageable; gpusort__mpi_stage pipelines the
     * copy through small pinned buffers); exchanged directly (j->direct), only its keys are
     * staged, for the selection, and rk/rv are device memory. */
    double t0 = MPI_Wtime();
    size_t tab = (size_t)P + 1;
    uint64_t *pos = (uint64_t *)gpusort__malloc((tab + GPUSORT_DIST_SELECT_WORK(tab)) * sizeof *pos);
    size_t *sizes = (size_t *)gpusort__malloc((tab + 4 * (size_t)P) * sizeof *sizes);
    void *sk = NULL, *sv = NULL, *rk = NULL, *rv = NULL;
    void *dkeys = NULL;             /* device data, keys not wanted: their device scratch */
    /* Direct exchange with the backend's count kernel: the selection counts on the GPU, and no
     * host copy of the keys is made. */
    const gpusort__multi_ops *mo = j->ctx->ops->multi;
    const int dev_count = j->direct && mo && mo->count_launch && mo->alloc;
    /* ... and its receive buffers lent from the local sort's scratch (asked for after it). */
    const int lend = dev_count && mo->merge;
    const size_t work_bytes = 2 * 15 * (tab + 1) * sizeof(uint64_t);
    uint64_t *work = NULL;
    int *ints = NULL;
    MPI_Request *req = NULL;
    int own_sk = 0, own_sv = 0;
    if (!pos || !sizes) fail(j, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "plan tables for %d ranks", P);
    if (!j->st) {
        int host_values = with_values && !j->direct;
        if (j->device) {
            sk = dev_count ? NULL : host_alloc(n * ks);
            sv = host_values ? host_alloc(n * vs) : NULL;
            own_sk = own_sv = 1;
            /* Values only (argsort): the GPU sort still puts the keys somewhere. */
            if (!want_keys && !(dkeys = gpusort__mpi_device_alloc(n * ks)))
                fail(j, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                     "device scratch for %zu keys", n);
        } else {
            sk = want_keys ? j->keys_out : host_alloc(n * ks);
            own_sk = !want_keys;
            sv = j->values_out;
        }
        if (lend) {
            /* after the local sort */
        } else if (j->direct) {
            rk = gpusort__mpi_device_alloc(n * ks);
            rv = with_values ? gpusort__mpi_device_alloc(n * vs) : NULL;
            if (!j->st && (!rk || (with_values && !rv)))
                fail(j, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                     "device buffers for the exchange: %zu bytes", n * (ks + vs));
        } else {
            rk = host_alloc(n * ks);
            rv = with_values ? host_alloc(n * vs) : NULL;
        }
        if (!j->st && ((!sk && !dev_count) || (host_values && !sv) ||
                       (!lend && (!rk || (with_values && !rv)))))
            fail(j, GPUSORT_STATUS_OUT_OF_HOST_MEMORY,
                 "scratch for the exchange: %zu bytes", 2 * n * (ks + vs));
    }
    if (!j->st && n) {
        /* Device data sorts on the GPU into the outputs, then is staged to host memory. */
        void *ko = j->device ? (want_keys ? j->keys_out : dkeys) : sk;
        void *vo = j->device ? j->values_out : sv;
        gpusort_status s;
        if (!with_values)
            s = gpusort_sort(j->ctx, j->ktype, j->keys_in, n, ko, j->order,
                             GPUSORT_ALGORITHM_AUTO, 0);
        else
            s = gpusort_sort_pairs(j->ctx, j->ktype, j->vtype, j->keys_in, j->values_in, n, ko,
                                   vo, j->order, GPUSORT_ALGORITHM_AUTO, 0);
        if (s)
            fail(j, s, "local sort of %zu keys: %s", n, gpusort_ctx_get_last_error(j->ctx));
        char err[256];
        if (!j->st && dev_count && !(work = (uint64_t *)mo->alloc(j->ctx, GPUSORT__MULTI_BUF_WORK,
                                                                  work_bytes)))
            fail(j, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY, "device scratch of the selection");
        if (!j->st && lend &&
            (!(rk = mo->alloc(j->ctx, GPUSORT__MULTI_BUF_KEYS, n * ks)) ||
             (with_values && !(rv = mo->alloc(j->ctx, GPUSORT__MULTI_BUF_VALUES, n * vs)))))
            fail(j, GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY,
                 "device buffers for the exchange: %zu bytes", n * (ks + vs));
        if (!j->st && j->device && !dev_count &&
            (gpusort__mpi_stage(sk, ko, n * ks, 0, err, sizeof err) ||
             (with_values && !j->direct &&
              gpusort__mpi_stage(sv, vo, n * vs, 0, err, sizeof err))))
            fail(j, GPUSORT_STATUS_DEVICE_ERROR, "staging the sorted run: %s", err);
        if (!j->st && with_values && !j->values_in)      /* local indices -> global */
            for (size_t i = 0; i < n; i++) ((uint64_t *)sv)[i] += base;
    }
    times.local_sort_s = MPI_Wtime() - t0;
    if (agree(j, "local sort")) goto out;

    /* 4. Exact splits of this rank's run at every output boundary. */
    t0 = MPI_Wtime();
    size_t *split = sizes, *soff = sizes + tab, *scnt = soff + P, *roff = scnt + P,
           *rcnt = roff + P;
    gpusort__dist_bounds(P, counts, pos);
    gpusort__dist_run mine = {sk, sv, n};
    rank_count rc = {j, NULL, work};
    if (dev_count) {    /* the sorted run where the local sort left it (step 6's send buffer) */
        rc.keys = want_keys ? j->keys_out : dkeys;
        mine.keys = rc.keys;
        mine.count = rank_device_count;
        mine.count_arg = &rc;
    }
    gpusort__dist_comm ops = {&j->comm, mpi_sum, mpi_exscan};
    gpusort_status s = gpusort__dist_select(j->ktype, desc, &mine, 1, pos, tab, &ops, split,
                                            pos + tab);
    if (s) { fail(j, s, "the selection's collectives failed"); goto out; }
    times.split_s = MPI_Wtime() - t0;

    /* 5. The plan, the counts each peer sends here, and the exchange's mode (the same on
     * every rank: agreed by an allreduce of the need for pieces and of the chunk). */
    t0 = MPI_Wtime();
    gpusort__dist_plan(P, split, soff, scnt);
    uint64_t *s64 = (uint64_t *)pos, *r64 = (uint64_t *)pos + P;   /* pos is no longer needed */
    for (int p = 0; p < P; p++) s64[p] = scnt[p];
    if (MPI_Alltoall(s64, 1, MPI_UINT64_T, r64, 1, MPI_UINT64_T, j->comm) != MPI_SUCCESS) {
        fail(j, GPUSORT_STATUS_DEVICE_ERROR, "MPI_Alltoall of the counts failed");
        goto out;
    }
    size_t got = 0;
    for (int p = 0; p < P; p++) {
        rcnt[p] = (size_t)r64[p];
        roff[p] = got;
        got += rcnt[p];
    }
    if (got != n)       /* the splits are exact by construction: a mismatch is a bug */
        fail(j, GPUSORT_STATUS_DEVICE_ERROR, "internal error: %zu keys to receive, not %zu",
             got, n);
    uint64_t chunk = chunk_bytes(), esize = ks > vs ? ks : vs;
    long long mode[2] = {(long long)(n * esize > chunk || n * esize > INT_MAX),
                         -(long long)chunk};
    if (MPI_Allreduce(MPI_IN_PLACE, mode, 2, MPI_LONG_LONG, MPI_MAX, j->comm) != MPI_SUCCESS) {
        fail(j, GPUSORT_STATUS_DEVICE_ERROR, "MPI_Allreduce failed (exchange mode)");
        goto out;
    }
    chunk = mode[0] ? (uint64_t)(-mode[1]) : 0;
    times.chunked = chunk != 0;
    size_t nreq = exchange_requests(j, scnt, rcnt, ks, chunk);
    if (with_values && exchange_requests(j, scnt, rcnt, vs, chunk) > nreq)
        nreq = exchange_requests(j, scnt, rcnt, vs, chunk);
    ints = (int *)gpusort__malloc(4 * (size_t)P * sizeof *ints);
    req = (MPI_Request *)gpusort__malloc((nreq ? nreq : 1) * sizeof *req);
    if (!ints || !req) fail(j, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "exchange tables");
    if (agree(j, "exchange tables")) goto out;

    /* 6. Keys, then values (direct: from the device run, where the local sort left it). */
    const void *xk = sk, *xv = sv;
    if (j->direct) {
        xk = want_keys ? j->keys_out : dkeys;
        xv = j->values_out;
    }
    if (j->nccl) {  /* every rank is here (decide_nccl): a failure is agreed on below */
        if ((s = mo->rank_exchange(j->ctx, j->nccl_id, P, me, xk, soff, scnt, rk, roff, rcnt,
                                   ks)) ||
            (with_values && (s = mo->rank_exchange(j->ctx, j->nccl_id, P, me, xv, soff, scnt,
                                                   rv, roff, rcnt, vs))))
            fail(j, s, "the NCCL exchange failed: %s", gpusort_ctx_get_last_error(j->ctx));
        if (agree(j, "NCCL exchange")) goto out;
    } else if (exchange(j, xk, soff, scnt, rk, roff, rcnt, ks, chunk, ints, req) ||
               (with_values && exchange(j, xv, soff, scnt, rv, roff, rcnt, vs, chunk, ints, req))) {
        fail(j, GPUSORT_STATUS_DEVICE_ERROR, "the exchange failed");
        goto out;
    }
    times.sent_bytes = (uint64_t)(n - scnt[me]) * (ks + vs);
    times.exchange_s = MPI_Wtime() - t0;

    /* 7. Merge the P runs (rank order: ties keep (rank, position) order) into sk/sv; or, on
     * a GPU context, sort the received runs with it: a stable sort of the runs laid end to
     * end in rank order gives exactly the merge's result, at the GPU's radix rate instead of
     * the host's merge (bench/mpi/model.py: the CPU merge dominates GPU ranks' time). */
    t0 = MPI_Wtime();
    if (merge_by_sort(j->ctx)) {
        gpusort_type vt = with_values ? j->vtype : GPUSORT_TYPE_NONE;
        if (j->direct && mo && mo->merge) { /* the runs arrived in device memory: the
                                              * backend's merge (gpusort_multi_sort's) */
            void *dk = want_keys ? j->keys_out : dkeys;
            size_t *off = (size_t *)gpusort__malloc(((size_t)P + 1) * sizeof *off);
            if (!off) {
                fail(j, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "merge tables");
            } else {
                memcpy(off, roff, (size_t)P * sizeof *off);
                off[P] = n;
                if (n && (s = mo->merge(j->ctx, j->ktype, desc, with_values ? vs : 0, rk, rv, off,
                                        P, dk, j->values_out)))
                    fail(j, s, "merging the received runs: %s",
                         gpusort_ctx_get_last_error(j->ctx));
                free(off);
            }
        } else if (j->direct) {    /* the runs arrived in device memory */
            void *dk = want_keys ? j->keys_out : dkeys;
            if (n && (s = sort_with(j, vt, rk, rv, dk, j->values_out)))
                fail(j, s, "sorting the received runs: %s", gpusort_ctx_get_last_error(j->ctx));
        } else if (j->device) {    /* up to the device, sorted in place there */
            void *dk = want_keys ? j->keys_out : dkeys;
            char e2[256];
            if (gpusort__mpi_stage(dk, rk, n * ks, 1, e2, sizeof e2) ||
                (with_values && gpusort__mpi_stage(j->values_out, rv, n * vs, 1, e2, sizeof e2)))
                fail(j, GPUSORT_STATUS_DEVICE_ERROR, "copying the received runs: %s", e2);
            else if (n && (s = sort_with(j, vt, dk, j->values_out, dk, j->values_out)))
                fail(j, s, "sorting the received runs: %s", gpusort_ctx_get_last_error(j->ctx));
        } else if (n && (s = sort_with(j, vt, rk, rv, sk, sv))) {
            fail(j, s, "sorting the received runs: %s", gpusort_ctx_get_last_error(j->ctx));
        }
        times.merge_s = MPI_Wtime() - t0;
        agree(j, "merge");
        goto out;
    }
    gpusort__dist_run *runs = (gpusort__dist_run *)gpusort__malloc((size_t)P * sizeof *runs);
    if (!runs) {
        fail(j, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "merge tables");
    } else {
        for (int p = 0; p < P; p++)
            runs[p] = (gpusort__dist_run){(char *)rk + roff[p] * ks,
                                          rv ? (char *)rv + roff[p] * vs : NULL, rcnt[p]};
        s = gpusort__dist_merge(j->ktype, desc, with_values ? vs : 0, runs, (size_t)P, sk, sv,
                                gpusort_ctx_get_threads(j->ctx));
        free(runs);
        if (s) fail(j, s, "merge of %d runs (%zu keys)", P, n);
    }
    char err[256];
    if (!j->st && j->device &&
        ((want_keys && gpusort__mpi_stage(j->keys_out, sk, n * ks, 1, err, sizeof err)) ||
         (with_values && gpusort__mpi_stage(j->values_out, sv, n * vs, 1, err, sizeof err))))
        fail(j, GPUSORT_STATUS_DEVICE_ERROR, "copying the result to the device: %s", err);
    times.merge_s = MPI_Wtime() - t0;
    agree(j, "merge");
out:
    if (work) mo->free(j->ctx, GPUSORT__MULTI_BUF_WORK, work, work_bytes);
    gpusort__mpi_device_free(dkeys);
    free(ints);
    free(req);
    if (own_sk) free(sk);
    if (own_sv) free(sv);
    if (lend) {
        if (rk) mo->free(j->ctx, GPUSORT__MULTI_BUF_KEYS, rk, n * ks);
        if (rv) mo->free(j->ctx, GPUSORT__MULTI_BUF_VALUES, rv, n * vs);
    } else if (j->direct) {
        gpusort__mpi_device_free(rk);
        gpusort__mpi_device_free(rv);
    } else {
        free(rk);
        free(rv);
    }
    free(pos);
    free(sizes);
    free(counts);
    times.device_data = j->device;
    times.cuda_aware = j->direct && !j->nccl;
    times.nccl = j->nccl;
    if (!j->st) last_times = times;
    return j->st;
}

/* The three entry points share this: local checks, the duplicate communicator, run(). */
static gpusort_status mpi_call(gpusort_ctx *ctx, MPI_Comm comm, gpusort_type ktype,
                               gpusort_type vtype, const void *keys_in, const void *values_in,
                               size_t n, void *keys_out, void *values_out, gpusort_order order,
                               unsigned flags)
{
    last_error[0] = 0;
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized) {
        snprintf(last_error, sizeof last_error, "MPI is not initialised (call MPI_Init first)");
        return GPUSORT_STATUS_INVALID_ARGUMENT;
    }
    if (comm == MPI_COMM_NULL) {
        snprintf(last_error, sizeof last_error, "comm is MPI_COMM_NULL");
        return GPUSORT_STATUS_INVALID_ARGUMENT;
    }
    mpi_job j = {ctx, MPI_COMM_NULL, 0, 0, ktype, vtype, gpusort_type_size(ktype),
                 vtype == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(vtype), keys_in,
                 values_in, keys_out, values_out, n, order, 0, 0, GPUSORT_STATUS_SUCCESS, comm};
    if (MPI_Comm_dup(comm, &j.comm) != MPI_SUCCESS) {
        snprintf(last_error, sizeof last_error, "MPI_Comm_dup failed");
        return GPUSORT_STATUS_DEVICE_ERROR;
    }
    MPI_Comm_set_errhandler(j.comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(j.comm, &j.rank);
    MPI_Comm_size(j.comm, &j.P);

    /* This rank's own checks; a failure here is agreed on in run()'s first step. */
    if (!ctx)
        fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT, "ctx is NULL");
    else if (!j.ks)
        fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT, "invalid key type %d", (int)ktype);
    else if (vtype != GPUSORT_TYPE_NONE && vtype != GPUSORT_TYPE_U32 && vtype != GPUSORT_TYPE_U64)
        fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT, "value type must be u32 or u64");
    else if (vtype != GPUSORT_TYPE_NONE && !values_in && vtype != GPUSORT_TYPE_U64)
        fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT,
             "global indices (values_in NULL) need value type u64");
    else if (order != GPUSORT_ORDER_ASC && order != GPUSORT_ORDER_DESC)
        fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT, "invalid order %d", (int)order);
    else if (flags)
        fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT, "unknown flags 0x%x", flags);
    else if (n && (!keys_in || (vtype == GPUSORT_TYPE_NONE ? !keys_out : !values_out)))
        fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT, "NULL data pointer with n = %zu", n);
    else if (n > SIZE_MAX / 16)
        fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT, "n = %zu is too large", n);
    if (!j.st && n) {
        int kinds = gpusort__mpi_is_device(keys_in) + gpusort__mpi_is_device(keys_out) +
                    gpusort__mpi_is_device(values_in) + gpusort__mpi_is_device(values_out);
        int ptrs = 1 + (keys_out != NULL) + (values_in != NULL) + (values_out != NULL);
        if (kinds && kinds != ptrs)
            fail(&j, GPUSORT_STATUS_INVALID_ARGUMENT,
                 "mixed host and device pointers (all must be on one side)");
        j.device = kinds != 0;
        j.direct = exchange_direct(&j);
    }
    gpusort_status s = run(&j);
    MPI_Comm_free(&j.comm);
    return s;
}

gpusort_status gpusort_mpi_sort(gpusort_ctx *ctx, MPI_Comm comm, gpusort_type type,
                                const void *keys_in, size_t n, void *keys_out,
                                gpusort_order order, unsigned flags)
{
    return mpi_call(ctx, comm, type, GPUSORT_TYPE_NONE, keys_in, NULL, n, keys_out, NULL, order,
                    flags);
}

gpusort_status gpusort_mpi_sort_pairs(gpusort_ctx *ctx, MPI_Comm comm, gpusort_type key_type,
                                      gpusort_type value_type, const void *keys_in,
                                      const void *values_in, size_t n, void *keys_out,
                                      void *values_out, gpusort_order order, unsigned flags)
{
    if (value_type == GPUSORT_TYPE_NONE) value_type = (gpusort_type)-2;  /* a pairs call needs one */
    return mpi_call(ctx, comm, key_type, value_type, keys_in, values_in, n, keys_out,
                    values_out, order, flags);
}

gpusort_status gpusort_mpi_argsort(gpusort_ctx *ctx, MPI_Comm comm, gpusort_type key_type,
                                   const void *keys_in, size_t n, uint64_t *indices_out,
                                   gpusort_order order, unsigned flags)
{
    return mpi_call(ctx, comm, key_type, GPUSORT_TYPE_U64, keys_in, NULL, n, NULL, indices_out,
                    order, flags);
}
