/*
 * multi.cu -- the CUDA side of gpusort_multi_sort (src/multi.c drives it; backend.h's
 * gpusort__multi_ops): pieces of one sequence in the device memory of several GPUs.
 *
 *   count     the selection's question "how many keys of this sorted run are below v?" for all
 *             of a round's values in one kernel (a thread per value, a binary search in device
 *             memory), so a round costs one launch and two small copies per GPU, not thousands
 *             of one-key reads; launched on every GPU before the first is waited for.
 *   exchange  the all-to-all of the slices. CUDA peer copies (cudaMemcpyPeerAsync on the
 *             copy engines, no SM taken from the merges) when every two of the GPUs can reach
 *             each other over NVLink or PCIe: faster there than NCCL's send/recv
 *             (bench/results/multi-2026-11-28.md).
 *             Otherwise NCCL (ncclSend / ncclRecv of every pair in one group, one communicator
 *             per GPU from ncclCommInitAll) when libnccl.so.2 loads and every context has a GPU
 *             of its own, else peer copies staged by the driver. NCCL is loaded at run time
 *             (dlopen), so the library needs it neither to build nor to start; its
 *             communicators are made once per set of devices and kept for the process (making
 *             them takes far longer than an exchange). The slices that stay on their GPU are
 *             device copies on a second stream, beside the transfers.
 *   merge     the stable merge of a destination's received runs: adjacent runs merged in pairs,
 *             ceil(log2 runs) rounds, by merge.cu's merge-path pass for two runs of any
 *             lengths (gpusort__cuda_merge_pair). Ties take the left run, so source order (and
 *             with it the contract's (context, position) order) is kept.
 *   pipeline  exchange_merge: the slices of every output chunk enqueued at once, chunk by
 *             chunk, and each chunk's merges started by events as soon as its slices have
 *             landed, so the merges of chunk k run while chunk k + 1 moves (multi.c says when).
 *   buffers   the received slices land in the scratch slots that the context's local sort has
 *             just finished with (buf_get), so a call needs no memory beyond the piece's own
 *             sort (and the sorted copy when pipelined) and, repeated, allocates nothing.
 *   radix     the whole call another way, under GPUSORT_MULTI_RADIX=1 (multi_radix, the
 *             backend's `sort`): histograms on every GPU, one radix pass whose stores land on
 *             the GPU that owns each key's position, passes within buckets on every GPU
 *             (radix.cu, "Several GPUs"), and a merge across GPUs of each bucket that straddles
 *             a boundary (run_fix). No split, no exchange step, no merge of whole pieces.
 */
#include "cuda_internal.h"

#include "keys.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(GPUSORT_HAVE_NCCL)
#include <nccl.h>
#endif

namespace {

/* ---- count ---- */

template <typename K>
__device__ __forceinline__ uint64_t rkey(K bits, int type, int desc);
template <>
__device__ __forceinline__ uint64_t rkey<uint32_t>(uint32_t bits, int type, int desc)
{
    return gpusort__radix32(bits, type, desc);
}
template <>
__device__ __forceinline__ uint64_t rkey<unsigned long long>(unsigned long long bits, int type,
                                                             int desc)
{
    return gpusort__radix64(bits, type, desc);
}

template <typename K>
__global__ void k_count(const K *keys, uint64_t n, int type, int desc, const uint64_t *v, int m,
                        int or_equal, uint64_t *out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const uint64_t x = v[i];
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        uint64_t k = rkey<K>(keys[mid], type, desc);
        if (k < x || (or_equal && k == x)) lo = mid + 1;
        else hi = mid;
    }
    out[i] = lo;
}

/* ---- buffers ---- */

/* A call's buffers on a context: the scratch slots that its local sort has just finished with
 * (KEYS and VALUES: the radix sort's alternate buffers, n keys and n values, which is what the
 * received slices need), kept by the context between calls, so that a repeated multi_sort
 * allocates nothing and needs no device memory beyond the piece's own sort. A context with a
 * caller's workspace (whose regions are sized by one call's query) gets allocations of its own. */
void *buf_get(gpusort_ctx *ctx, int slot, size_t bytes, const char *what)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    if (!im->ws) return gpusort__cuda_scratch(ctx, slot, bytes);
    return gpusort__cuda_dev_alloc(ctx, bytes, what);
}

void buf_put(gpusort_ctx *ctx, void *p, size_t bytes)
{
    if (p && gpusort__cuda_impl_of(ctx)->ws) gpusort__cuda_dev_free(ctx, p, bytes);
}

/* Copy kbytes of keys (and vbytes of values, when vdst is given) device to device on st. */
gpusort_status copy_kv(gpusort_ctx *ctx, cudaStream_t st, void *kdst, const void *ksrc,
                       size_t kbytes, void *vdst, const void *vsrc, size_t vbytes)
{
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    if (kbytes)
        s = gpusort__cuda_check(ctx, cudaMemcpyAsync(kdst, ksrc, kbytes, cudaMemcpyDeviceToDevice,
                                                     st),
                                "multi copy");
    if (!s && vbytes && vdst)
        s = gpusort__cuda_check(ctx, cudaMemcpyAsync(vdst, vsrc, vbytes, cudaMemcpyDeviceToDevice,
                                                     st),
                                "multi copy");
    return s;
}

/* ---- merge ---- */

/* The stable merge of nruns sorted runs (keys/values at off[r] .. off[r + 1]) into
 * keys_out/values_out: adjacent runs merged in pairs by merge.cu's merge_pair, ceil(log2 nruns)
 * rounds ping-ponging between the two buffers (two runs, the case of two GPUs: one pass
 * straight into the output). Enqueued on the context's stream; waited for when sync. The
 * partition table is the context's AUX2 slot, shared by the merges of one stream. */
gpusort_status merge_all(gpusort_ctx *ctx, gpusort_type type, int desc, size_t vsize, char *keys,
                         char *values, const size_t *off0, int nruns, char *keys_out,
                         char *values_out, bool sync)
{
    const size_t n = off0[nruns], ks = gpusort_type_size(type);
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const size_t part_bytes = GPUSORT_CUDA_MERGE_PAIR_PART(n);
    uint64_t *part = (uint64_t *)buf_get(ctx, GPUSORT_CUDA_SCRATCH_AUX2, part_bytes,
                                         "multi merge table");
    if (!part) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    size_t *off = (size_t *)malloc(((size_t)nruns + 1) * sizeof *off);
    if (!off) {
        buf_put(ctx, part, part_bytes);
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "multi merge offsets");
    }
    memcpy(off, off0, ((size_t)nruns + 1) * sizeof *off);
    gpusort__sort_args a;
    memset(&a, 0, sizeof a);
    a.key_type = type;
    a.value_type = vsize == 8 ? GPUSORT_TYPE_U64 : vsize == 4 ? GPUSORT_TYPE_U32 : GPUSORT_TYPE_NONE;
    a.order = desc ? GPUSORT_ORDER_DESC : GPUSORT_ORDER_ASC;
    char *kb[2] = {keys, keys_out};
    char *vb[2] = {values, values_out};
    int cur = 0;
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    while (nruns > 1 && !s) {
        const char *ki = kb[cur], *vi = vb[cur];
        char *ko = kb[cur ^ 1], *vo = vb[cur ^ 1];
        for (int r = 0; r < nruns && !s; r += 2) {
            const size_t o = off[r], na = off[r + 1] - o;
            if (r + 1 == nruns) { /* the unpaired last run */
                s = copy_kv(ctx, st, ko + o * ks, ki + o * ks, na * ks, vsize ? vo + o * vsize : NULL,
                            vsize ? vi + o * vsize : NULL, na * vsize);
                continue;
            }
            a.keys_in = ki + o * ks;
            a.keys_out = ko + o * ks;
            a.values_in = vsize ? vi + o * vsize : NULL;
            a.values_out = vsize ? vo + o * vsize : NULL;
            a.n = off[r + 2] - o;
            s = gpusort__cuda_merge_pair(ctx, &a, na, part);
        }
        int m = 0;
        for (int r = 0; r < nruns; r += 2) off[++m] = off[r + 2 < nruns ? r + 2 : nruns];
        nruns = m;
        cur ^= 1;
    }
    if (!s && cur == 0) /* the result is in the input buffer */
        s = copy_kv(ctx, st, keys_out, keys, n * ks, values_out, values, n * vsize);
    if (!s && sync) s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "multi merge");
    buf_put(ctx, part, part_bytes);
    free(off);
    return s;
}

/* ---- NCCL, loaded at run time ---- */

#if defined(GPUSORT_HAVE_NCCL)
struct nccl_api {
    ncclResult_t (*comm_init_all)(ncclComm_t *, int, const int *);
    ncclResult_t (*group_start)(void);
    ncclResult_t (*group_end)(void);
    ncclResult_t (*send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    ncclResult_t (*recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
    const char *(*error_string)(ncclResult_t);
    ncclResult_t (*get_unique_id)(ncclUniqueId *);
    ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
};
static_assert(sizeof(ncclUniqueId) == GPUSORT__NCCL_ID_BYTES, "backend.h's NCCL id size");

/* Communicators kept for the process, one set per list of devices (a few sets at most). */
constexpr int NCCL_SETS = 8;
constexpr int NCCL_MAX = 64;
struct nccl_set {
    int count;
    int dev[NCCL_MAX];
    ncclComm_t comm[NCCL_MAX];
};

pthread_mutex_t nccl_lock = PTHREAD_MUTEX_INITIALIZER;  /* the API, the sets, and each use */
int nccl_tried;
nccl_api nccl;
void *nccl_lib;
nccl_set nccl_sets[NCCL_SETS];
int nccl_nsets;
char nccl_why[256];

/* Load libnccl.so.2 (or GPUSORT_NCCL_LIBRARY) once. Under nccl_lock. */
bool nccl_load()
{
    if (nccl_tried) return nccl_lib != NULL;
    nccl_tried = 1;
    const char *name = getenv("GPUSORT_NCCL_LIBRARY");
    if (!name || !*name) name = "libnccl.so.2";
    nccl_lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!nccl_lib) {
        snprintf(nccl_why, sizeof nccl_why, "%s", dlerror());
        return false;
    }
    static const char *const sym[8] = {"ncclCommInitAll", "ncclGroupStart", "ncclGroupEnd",
                                       "ncclSend",        "ncclRecv",       "ncclGetErrorString",
                                       "ncclGetUniqueId", "ncclCommInitRank"};
    void *f[8];
    for (int i = 0; i < 8; i++) f[i] = dlsym(nccl_lib, sym[i]);
    for (int i = 0; i < 8; i++)
        if (!f[i]) {
            snprintf(nccl_why, sizeof nccl_why, "%s lacks %s (every NCCL from 2.7 has it)", name,
                     sym[i]);
            dlclose(nccl_lib);
            nccl_lib = NULL;
            return false;
        }
    memcpy(&nccl.comm_init_all, &f[0], sizeof f[0]);
    memcpy(&nccl.group_start, &f[1], sizeof f[1]);
    memcpy(&nccl.group_end, &f[2], sizeof f[2]);
    memcpy(&nccl.send, &f[3], sizeof f[3]);
    memcpy(&nccl.recv, &f[4], sizeof f[4]);
    memcpy(&nccl.error_string, &f[5], sizeof f[5]);
    memcpy(&nccl.get_unique_id, &f[6], sizeof f[6]);
    memcpy(&nccl.comm_init_rank, &f[7], sizeof f[7]);
    return true;
}

/* Communicators between processes (the MPI sort's GPU ranks), kept for the process, one per
 * unique id (one id per MPI communicator: src/mpi/sort.c caches it on the communicator). */
constexpr int RANK_COMMS = 16;
struct rank_comm {
    unsigned char id[GPUSORT__NCCL_ID_BYTES];
    int dev;
    ncclComm_t comm;
};
rank_comm rank_comms[RANK_COMMS];
int rank_ncomms;

/* The communicators of this list of devices, made on first use. Under nccl_lock. */
nccl_set *nccl_comms(gpusort_ctx *ctx, const int *dev, int count)
{
    for (int i = 0; i < nccl_nsets; i++)
        if (nccl_sets[i].count == count && !memcmp(nccl_sets[i].dev, dev, count * sizeof *dev))
            return &nccl_sets[i];
    if (nccl_nsets == NCCL_SETS || count > NCCL_MAX) {
        gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                           "NCCL: more than %d device sets or %d devices", NCCL_SETS, NCCL_MAX);
        return NULL;
    }
    nccl_set *set = &nccl_sets[nccl_nsets];
    ncclResult_t r = nccl.comm_init_all(set->comm, count, dev);
    if (r != ncclSuccess) {
        gpusort__set_error(ctx, GPUSORT_STATUS_DEVICE_ERROR, "ncclCommInitAll: %s",
                           nccl.error_string(r));
        return NULL;
    }
    set->count = count;
    memcpy(set->dev, dev, count * sizeof *dev);
    nccl_nsets++;
    return set;
}
#endif

/* "nccl", "peer" or NULL (auto) from GPUSORT_MULTI_EXCHANGE. */
const char *exchange_knob() { return getenv("GPUSORT_MULTI_EXCHANGE"); }

/* Wait for every context's stream and both copy streams. */
gpusort_status sync_all(gpusort_ctx *const *ctxs, int count)
{
    gpusort_status s = GPUSORT_STATUS_SUCCESS, t;
    for (int g = 0; g < count; g++) {
        gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctxs[g]);
        if ((t = gpusort__cuda_check(ctxs[g], cudaSetDevice(im->device), "cudaSetDevice")) ||
            (t = gpusort__cuda_check(ctxs[g], cudaStreamSynchronize(im->stream),
                                     "multi exchange")) ||
            (t = gpusort__cuda_check(ctxs[g], cudaStreamSynchronize(im->copy_stream[0]),
                                     "multi exchange")) ||
            (t = gpusort__cuda_check(ctxs[g], cudaStreamSynchronize(im->copy_stream[1]),
                                     "multi exchange")))
            if (!s) s = t;
    }
    return s;
}

/* 1 when every two distinct GPUs of the contexts can reach each other's memory (NVLink or
 * PCIe peer to peer). */
bool all_peer(gpusort_ctx *const *ctxs, int count)
{
    for (int a = 0; a < count; a++)
        for (int b = a + 1; b < count; b++) {
            int da = gpusort__cuda_impl_of(ctxs[a])->device;
            int db = gpusort__cuda_impl_of(ctxs[b])->device, can = 0;
            if (da != db && (cudaDeviceCanAccessPeer(&can, da, db) != cudaSuccess || !can))
                return false;
        }
    return true;
}

/* Whether the exchange takes peer copies: GPUSORT_MULTI_EXCHANGE=peer, or no knob and every
 * two of the GPUs can reach each other (all_peer). Otherwise NCCL where it loads (multi_exchange;
 * the pipelined exchange_merge declines, since NCCL's kernels would take SMs from the merges). */
bool use_peer(gpusort_ctx *const *ctxs, int count)
{
    const char *knob = exchange_knob();
    if (knob && !strcmp(knob, "peer")) return true;
    if (knob && !strcmp(knob, "nccl")) return false;
    return all_peer(ctxs, count);
}

/* One slice from context src's GPU to GPU ddev, on stream st (one of src's): a peer copy
 * (direct over NVLink or PCIe where the GPUs can reach each other, staged by the driver
 * otherwise; peer access enabled on first use, for the process), or a device copy between two
 * contexts of one GPU. */
gpusort_status peer_copy(gpusort_ctx *src, int ddev, void *to, const void *from, size_t bytes,
                         cudaStream_t st)
{
    gpusort__cuda_impl *si = gpusort__cuda_impl_of(src);
    gpusort_status s = gpusort__cuda_check(src, cudaSetDevice(si->device), "cudaSetDevice");
    if (s || !bytes) return s;
    int can = 0;
    if (ddev != si->device && cudaDeviceCanAccessPeer(&can, si->device, ddev) == cudaSuccess &&
        can && cudaDeviceEnablePeerAccess(ddev, 0) != cudaSuccess)
        (void)cudaGetLastError(); /* cudaErrorPeerAccessAlreadyEnabled */
    cudaError_t e = ddev == si->device
                        ? cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, st)
                        : cudaMemcpyPeerAsync(to, ddev, from, si->device, bytes, st);
    return gpusort__cuda_check(src, e, "cudaMemcpyPeerAsync (multi exchange)");
}

/* The slices that stay on their context: device-to-device copies on each context's first copy
 * stream, beside the transfers between GPUs (the caller synchronised every context before the
 * exchange, so nothing on the main stream is pending). */
gpusort_status exchange_local(gpusort_ctx *const *ctxs, const gpusort__multi_xfer *x, size_t nx)
{
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    for (size_t i = 0; i < nx && !s; i++) {
        if (!x[i].bytes || x[i].src != x[i].dst) continue;
        gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctxs[x[i].src]);
        if (!(s = gpusort__cuda_check(ctxs[x[i].src], cudaSetDevice(im->device), "cudaSetDevice")))
            s = copy_kv(ctxs[x[i].src], im->copy_stream[0], x[i].to, x[i].from, x[i].bytes, NULL,
                        NULL, 0);
    }
    return s;
}

/* Peer copies (the copy engines: no SM is taken from other work): each slice between two GPUs
 * on its source's second copy stream. */
gpusort_status exchange_peer(gpusort_ctx *const *ctxs, int count, const gpusort__multi_xfer *x,
                             size_t nx)
{
    gpusort_status s = exchange_local(ctxs, x, nx);
    for (size_t i = 0; i < nx && !s; i++)
        if (x[i].src != x[i].dst)
            s = peer_copy(ctxs[x[i].src], gpusort__cuda_impl_of(ctxs[x[i].dst])->device, x[i].to,
                          x[i].from, x[i].bytes,
                          gpusort__cuda_impl_of(ctxs[x[i].src])->copy_stream[1]);
    gpusort_status t = sync_all(ctxs, count);
    return s ? s : t;
}

#if defined(GPUSORT_HAVE_NCCL)
gpusort_status exchange_nccl(gpusort_ctx *const *ctxs, int count, const gpusort__multi_xfer *x,
                             size_t nx, nccl_set *set)
{
    gpusort_status s = exchange_local(ctxs, x, nx);
    if (s) return s;
    /* Every other slice: a send on its source's communicator and the matching receive on its
     * destination's, posted in the same order on both sides (NCCL matches the operations
     * between two ranks in order), all in one group so that no pair waits on another. */
    ncclResult_t r = nccl.group_start();
    for (size_t i = 0; i < nx && r == ncclSuccess; i++) {
        if (!x[i].bytes || x[i].src == x[i].dst) continue;
        const int a = x[i].src, b = x[i].dst;
        r = nccl.send(x[i].from, x[i].bytes, ncclUint8, b, set->comm[a],
                      gpusort__cuda_impl_of(ctxs[a])->stream);
        if (r == ncclSuccess)
            r = nccl.recv(x[i].to, x[i].bytes, ncclUint8, a, set->comm[b],
                          gpusort__cuda_impl_of(ctxs[b])->stream);
    }
    ncclResult_t r2 = nccl.group_end();
    if (r == ncclSuccess) r = r2;
    if (r != ncclSuccess)
        return gpusort__set_error(ctxs[0], GPUSORT_STATUS_DEVICE_ERROR, "NCCL exchange: %s",
                                  nccl.error_string(r));
    return sync_all(ctxs, count);
}
#endif

/* ---- NCCL between processes (src/mpi/sort.c's GPU ranks) ---- */

gpusort_status multi_rank_id(gpusort_ctx *ctx, void *id)
{
#if defined(GPUSORT_HAVE_NCCL)
    pthread_mutex_lock(&nccl_lock);
    gpusort_status s = GPUSORT_STATUS_UNSUPPORTED;
    if (!nccl_load()) {
        gpusort__set_error(ctx, s, "NCCL: %s", nccl_why);
    } else {
        ncclUniqueId u;
        ncclResult_t r = nccl.get_unique_id(&u);
        if (r == ncclSuccess) {
            memcpy(id, &u, sizeof u);
            s = GPUSORT_STATUS_SUCCESS;
        } else {
            s = gpusort__set_error(ctx, GPUSORT_STATUS_DEVICE_ERROR, "ncclGetUniqueId: %s",
                                   nccl.error_string(r));
        }
    }
    pthread_mutex_unlock(&nccl_lock);
    return s;
#else
    (void)id;
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "this library was built without nccl.h");
#endif
}

/* One rank's part of the all-to-all over the communicator of `id` (made here on first use:
 * every rank of it gets here at once). Its own slice is a device copy. */
gpusort_status multi_rank_exchange(gpusort_ctx *ctx, const void *id, int nranks, int rank,
                                   const void *send, const size_t *soff, const size_t *scnt,
                                   void *recv, const size_t *roff, const size_t *rcnt,
                                   size_t esize)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (s) return s;
#if defined(GPUSORT_HAVE_NCCL)
    pthread_mutex_lock(&nccl_lock);
    if (!nccl_load()) {
        pthread_mutex_unlock(&nccl_lock);
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED, "NCCL: %s", nccl_why);
    }
    rank_comm *rc = NULL;
    for (int i = 0; i < rank_ncomms && !rc; i++)
        if (rank_comms[i].dev == im->device && !memcmp(rank_comms[i].id, id, sizeof rc->id))
            rc = &rank_comms[i];
    ncclResult_t r = ncclSuccess;
    if (!rc && rank_ncomms == RANK_COMMS) {
        pthread_mutex_unlock(&nccl_lock);
        return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                                  "NCCL: more than %d communicators between processes",
                                  RANK_COMMS);
    }
    if (!rc) {
        rc = &rank_comms[rank_ncomms];
        ncclUniqueId u;
        memcpy(&u, id, sizeof u);
        r = nccl.comm_init_rank(&rc->comm, nranks, u, rank);
        if (r == ncclSuccess) {
            memcpy(rc->id, id, sizeof rc->id);
            rc->dev = im->device;
            rank_ncomms++;
        }
    }
    if (r == ncclSuccess && scnt[rank])
        s = gpusort__cuda_check(ctx, cudaMemcpyAsync((char *)recv + roff[rank] * esize,
                                                     (const char *)send + soff[rank] * esize,
                                                     scnt[rank] * esize,
                                                     cudaMemcpyDeviceToDevice, im->stream),
                                "multi rank copy");
    /* The transfers even when the own slice's copy failed: the peers wait for them. */
    if (r == ncclSuccess) {
        r = nccl.group_start();
        for (int p = 0; p < nranks && r == ncclSuccess; p++) {
            if (p == rank) continue;
            if (scnt[p])
                r = nccl.send((const char *)send + soff[p] * esize, scnt[p] * esize, ncclUint8,
                              p, rc->comm, im->stream);
            if (r == ncclSuccess && rcnt[p])
                r = nccl.recv((char *)recv + roff[p] * esize, rcnt[p] * esize, ncclUint8, p,
                              rc->comm, im->stream);
        }
        ncclResult_t r2 = nccl.group_end();
        if (r == ncclSuccess) r = r2;
    }
    pthread_mutex_unlock(&nccl_lock);
    if (r != ncclSuccess)
        return gpusort__set_error(ctx, GPUSORT_STATUS_DEVICE_ERROR, "NCCL exchange: %s",
                                  nccl.error_string(r));
    if (s) return s;
    return gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream), "NCCL exchange");
#else
    (void)id; (void)nranks; (void)rank; (void)send; (void)soff; (void)scnt; (void)recv;
    (void)roff; (void)rcnt; (void)esize;
    return gpusort__set_error(ctx, GPUSORT_STATUS_UNSUPPORTED,
                              "this library was built without nccl.h");
#endif
}

/* ---- the table's methods ---- */

int multi_where(gpusort_ctx *ctx, const void *p)
{
    struct cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged) return 0;
    return a.device == gpusort__cuda_impl_of(ctx)->device ? 1 : -1;
}

/* GPUSORT__MULTI_BUF_* -> the scratch slot lent (buf_get). */
const int buf_slot[5] = {GPUSORT_CUDA_SCRATCH_KEYS, GPUSORT_CUDA_SCRATCH_VALUES,
                         GPUSORT_CUDA_SCRATCH_AUX, GPUSORT_CUDA_SCRATCH_IO_KEYS,
                         GPUSORT_CUDA_SCRATCH_IO_VALUES};

void *multi_alloc(gpusort_ctx *ctx, int which, size_t bytes)
{
    if (cudaSetDevice(gpusort__cuda_impl_of(ctx)->device) != cudaSuccess) {
        (void)cudaGetLastError();
        gpusort__set_error(ctx, GPUSORT_STATUS_DEVICE_ERROR, "cudaSetDevice failed");
        return NULL;
    }
    return buf_get(ctx, buf_slot[which], bytes, "multi-GPU receive buffers");
}

void multi_free(gpusort_ctx *ctx, int which, void *p, size_t bytes)
{
    (void)which;
    if (!p) return;
    cudaSetDevice(gpusort__cuda_impl_of(ctx)->device);
    buf_put(ctx, p, bytes);
}

gpusort_status multi_sync(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (!s) s = gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream), "multi sync");
    return s;
}

gpusort_status multi_count_launch(gpusort_ctx *ctx, gpusort_type type, int desc,
                                  const void *keys, size_t n, const uint64_t *v, size_t m,
                                  int or_equal, uint64_t *work)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (s || m == 0) return s;
    cudaStream_t st = im->stream;
    /* From pageable memory the copy is staged before the call returns: v may be reused. */
    if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(work, v, m * sizeof *v,
                                                      cudaMemcpyHostToDevice, st),
                                 "multi count copy")))
        return s;
    const unsigned blocks = (unsigned)((m + 127) / 128);
    if (gpusort_type_size(type) == 4)
        k_count<uint32_t><<<blocks, 128, 0, st>>>((const uint32_t *)keys, n, (int)type, desc,
                                                  work, (int)m, or_equal, work + m);
    else
        k_count<unsigned long long><<<blocks, 128, 0, st>>>(
            (const unsigned long long *)keys, n, (int)type, desc, work, (int)m, or_equal,
            work + m);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "multi count launch");
}

gpusort_status multi_count_fetch(gpusort_ctx *ctx, size_t m, uint64_t *cnt, uint64_t *work)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (s || m == 0) return s;
    if ((s = gpusort__cuda_check(ctx, cudaMemcpyAsync(cnt, work + m, m * sizeof *cnt,
                                                      cudaMemcpyDeviceToHost, im->stream),
                                 "multi count copy")))
        return s;
    return gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream), "multi count");
}

gpusort_status multi_exchange(gpusort_ctx *const *ctxs, int count, const gpusort__multi_xfer *x,
                              size_t nx, const char **how)
{
    const char *knob = exchange_knob();
    const bool need_nccl = knob && !strcmp(knob, "nccl");
    const bool want_peer = use_peer(ctxs, count);
    *how = "peer";
#if defined(GPUSORT_HAVE_NCCL)
    if (!want_peer) {
        int dev[NCCL_MAX];
        bool distinct = count <= NCCL_MAX;
        for (int g = 0; g < count && distinct; g++) {
            dev[g] = gpusort__cuda_impl_of(ctxs[g])->device;
            for (int h = 0; h < g; h++)
                if (dev[h] == dev[g]) distinct = false;
        }
        pthread_mutex_lock(&nccl_lock);
        if (distinct && nccl_load()) {
            nccl_set *set = nccl_comms(ctxs[0], dev, count);
            gpusort_status s = set ? exchange_nccl(ctxs, count, x, nx, set)
                                   : gpusort_status(GPUSORT_STATUS_DEVICE_ERROR);
            pthread_mutex_unlock(&nccl_lock);
            *how = "nccl";
            return s;
        }
        pthread_mutex_unlock(&nccl_lock);
        if (need_nccl)
            return gpusort__set_error(ctxs[0], GPUSORT_STATUS_UNSUPPORTED,
                                      "GPUSORT_MULTI_EXCHANGE=nccl: %s",
                                      distinct ? nccl_why
                                               : "two contexts share a GPU (NCCL needs one "
                                                 "GPU per rank)");
    }
#else
    if (need_nccl)
        return gpusort__set_error(ctxs[0], GPUSORT_STATUS_UNSUPPORTED,
                                  "GPUSORT_MULTI_EXCHANGE=nccl: this library was built without "
                                  "nccl.h");
#endif
    return exchange_peer(ctxs, count, x, nx);
}

gpusort_status multi_merge(gpusort_ctx *ctx, gpusort_type type, int desc, size_t vsize,
                           void *keys, void *values, const size_t *off, int nruns,
                           void *keys_out, void *values_out)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (s) return s;
    return merge_all(ctx, type, desc, vsize, (char *)keys, (char *)values, off, nruns,
                     (char *)keys_out, (char *)values_out, true);
}

/* The pipeline: every slice is enqueued at once, chunk by chunk, on its source's copy streams
 * (0: the slices that stay, 1: those to other GPUs), with an event per (source, stream, chunk)
 * after its chunk; each merge job waits on its destination's stream for every source's events
 * of its chunk, then merges. So chunk k merges while chunk k + 1 moves (the copy engines move
 * the slices, the SMs merge). Peer copies only: NCCL's kernels would take SMs from the merges
 * and order themselves on the same streams. */
gpusort_status multi_exchange_merge(gpusort_ctx *const *ctxs, int count, gpusort_type type, int desc,
                                    size_t vsize, const gpusort__multi_xfer *x, size_t nx,
                                    const gpusort__multi_merge_job *jobs, size_t njobs,
                                    const char **how)
{
    if (!use_peer(ctxs, count)) {
        *how = NULL;   /* NCCL serves where the GPUs cannot reach each other, or when asked */
        return GPUSORT_STATUS_SUCCESS;
    }
    *how = "peer";
    int chunks = 1;
    for (size_t i = 0; i < nx; i++) chunks = x[i].chunk >= chunks ? x[i].chunk + 1 : chunks;
    for (size_t i = 0; i < njobs; i++) chunks = jobs[i].chunk >= chunks ? jobs[i].chunk + 1 : chunks;
    const size_t nev = (size_t)count * chunks * 2;
    cudaEvent_t *ev = (cudaEvent_t *)calloc(nev, sizeof *ev);
    if (!ev)
        return gpusort__set_error(ctxs[0], GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "multi events");
#define EV(g, k, c) ev[((size_t)(g) * chunks + (k)) * 2 + (c)]
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    /* Each destination's merge table at its largest first: a slot grown between two merges
     * would be freed (and the device waited for) in the middle of the pipeline. */
    for (size_t i = 0; i < njobs && !s; i++) {
        gpusort_ctx *ctx = ctxs[jobs[i].dst];
        if (gpusort__cuda_impl_of(ctx)->ws) continue;
        if (!(s = gpusort__cuda_check(ctx, cudaSetDevice(gpusort__cuda_impl_of(ctx)->device),
                                      "cudaSetDevice")) &&
            !buf_get(ctx, GPUSORT_CUDA_SCRATCH_AUX2,
                     GPUSORT_CUDA_MERGE_PAIR_PART(jobs[i].off[jobs[i].nruns]), "multi merge table"))
            s = GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    }
    for (int g = 0; g < count && !s; g++) {
        gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctxs[g]);
        s = gpusort__cuda_check(ctxs[g], cudaSetDevice(im->device), "cudaSetDevice");
        for (int k = 0; k < chunks && !s; k++)
            for (int c = 0; c < 2 && !s; c++)
                s = gpusort__cuda_check(ctxs[g], cudaEventCreateWithFlags(&EV(g, k, c),
                                                                          cudaEventDisableTiming),
                                        "cudaEventCreate (multi)");
    }
    /* The slices between GPUs on copy stream 1, one chunk after another (two chunks in flight
     * on both streams delay each chunk's merges: bench/results/multi-2026-11-28.md). */
    for (int k = 0; k < chunks && !s; k++) {
        for (size_t i = 0; i < nx && !s; i++) {
            if (x[i].chunk != k || !x[i].bytes) continue;
            gpusort__cuda_impl *si = gpusort__cuda_impl_of(ctxs[x[i].src]);
            s = peer_copy(ctxs[x[i].src], gpusort__cuda_impl_of(ctxs[x[i].dst])->device, x[i].to,
                          x[i].from, x[i].bytes, si->copy_stream[x[i].src == x[i].dst ? 0 : 1]);
        }
        for (int g = 0; g < count && !s; g++) {
            gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctxs[g]);
            s = gpusort__cuda_check(ctxs[g], cudaSetDevice(im->device), "cudaSetDevice");
            for (int c = 0; c < 2 && !s; c++)
                s = gpusort__cuda_check(ctxs[g], cudaEventRecord(EV(g, k, c), im->copy_stream[c]),
                                        "cudaEventRecord (multi)");
        }
    }
    for (size_t i = 0; i < njobs && !s; i++) {
        gpusort_ctx *ctx = ctxs[jobs[i].dst];
        gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
        s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
        for (int g = 0; g < count && !s; g++)   /* an event of another GPU may be waited on */
            for (int c = 0; c < 2 && !s; c++)
                s = gpusort__cuda_check(ctx, cudaStreamWaitEvent(im->stream,
                                                                 EV(g, jobs[i].chunk, c), 0),
                                        "cudaStreamWaitEvent (multi)");
        if (!s && jobs[i].off[jobs[i].nruns] > 0)
            s = merge_all(ctx, type, desc, vsize, (char *)jobs[i].keys, (char *)jobs[i].values,
                          jobs[i].off, jobs[i].nruns, (char *)jobs[i].keys_out,
                          (char *)jobs[i].values_out, false);
    }
    gpusort_status t = sync_all(ctxs, count);
    if (!s) s = t;
    for (int g = 0; g < count; g++) {
        cudaSetDevice(gpusort__cuda_impl_of(ctxs[g])->device);
        for (int k = 0; k < chunks; k++)
            for (int c = 0; c < 2; c++)
                if (EV(g, k, c)) cudaEventDestroy(EV(g, k, c));
    }
#undef EV
    free(ev);
    return s;
}

/* ---- the radix path: one pass moves the keys (radix.cu, "Several GPUs") ---- */

/* GPUSORT_MULTI_RADIX=1 takes this path whenever the shape allows (any size; any bucket across
 * GPUs, as in skewed data, is merged across them: the tests force it so); unset or 0, the steps
 * above run. On two H200s (NV18) it lost to them at every size measured: the scatter pass's
 * stores reach the other GPU at 200-250 GB/s a direction, the copy engines at ~340
 * (bench/results/multi-2026-11-28d.md). */
constexpr int MULTI_RADIX_MAX = 8;   /* contexts (radix.cu's receive buffer table) */

double wall_s()
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A bucket whose keys land on several GPUs (h0 .. h1): each part is sorted where it is, so h0
 * gathers the parts (peer copies), merges them and sends them back. Its scratch: 2 (e - s) keys
 * and values in h0's alternate buffers (scratch slots KEYS and VALUES), free once h0's own
 * passes are done. */
struct radix_fix {
    int h0, h1;
    uint64_t s, e;        /* the bucket's global positions */
    char *tk, *tv;
};

struct radix_job {
    gpusort_ctx *const *ctxs;
    int count;
    const size_t *n;
    size_t ks, vs;
    uint64_t pos[MULTI_RADIX_MAX + 1];          /* piece h's first global position */
    gpusort__sort_args d[MULTI_RADIX_MAX];     /* the pieces */
    void *rk[MULTI_RADIX_MAX], *rv[MULTI_RADIX_MAX]; /* receive buffers */
    radix_fix fix[MULTI_RADIX_MAX];
    int nfix;
    cudaEvent_t ev[MULTI_RADIX_MAX][6];        /* start, scattered, local start, sorted,
                                                  fix start, fixed */
};

gpusort_status set_dev(gpusort_ctx *ctx)
{
    return gpusort__cuda_check(ctx, cudaSetDevice(gpusort__cuda_impl_of(ctx)->device),
                               "cudaSetDevice");
}

/* Peer access between every two distinct GPUs (kept for the process). */
gpusort_status enable_peers(gpusort_ctx *const *ctxs, int count)
{
    for (int a = 0; a < count; a++) {
        const int da = gpusort__cuda_impl_of(ctxs[a])->device;
        gpusort_status s = set_dev(ctxs[a]);
        if (s) return s;
        for (int b = 0; b < count; b++) {
            const int db = gpusort__cuda_impl_of(ctxs[b])->device;
            if (da == db) continue;
            cudaError_t e = cudaDeviceEnablePeerAccess(db, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) (void)cudaGetLastError();
            else if (e != cudaSuccess)
                return gpusort__cuda_check(ctxs[a], e, "cudaDeviceEnablePeerAccess");
        }
    }
    return GPUSORT_STATUS_SUCCESS;
}

/* The buckets of digit m (global sizes H) that cross a boundary between non-empty pieces. */
void find_fixes(radix_job *j, const uint64_t *H)
{
    uint64_t at = 0;
    j->nfix = 0;
    for (int t = 0; t < 256; t++) {
        const uint64_t s = at, e = at + H[t];
        at = e;
        if (e == s) continue;
        int h0 = 0, h1;
        while (j->pos[h0 + 1] <= s) h0++;    /* the piece holding position s (non-empty) */
        h1 = h0;
        while (j->pos[h1 + 1] < e) h1++;     /* ... and position e - 1 */
        if (h1 == h0) continue;
        j->fix[j->nfix++] = radix_fix{h0, h1, s, e, NULL, NULL};
    }
}

/* Enqueue the merge of fix f's bucket on h0's stream, after every part's local sort. */
gpusort_status run_fix(radix_job *j, radix_fix *f, gpusort_type kt, int desc)
{
    gpusort_ctx *c0 = j->ctxs[f->h0];
    gpusort__cuda_impl *i0 = gpusort__cuda_impl_of(c0);
    cudaStream_t st = i0->stream;
    const uint64_t B = f->e - f->s;
    char *tk = f->tk, *tk2 = tk + B * j->ks;
    char *tv = f->tv, *tv2 = j->vs ? tv + B * j->vs : NULL;
    size_t off[MULTI_RADIX_MAX + 1];
    int nr = 0;
    gpusort_status s = set_dev(c0);
    for (int h = f->h0; h <= f->h1 && !s; h++) {
        if (!j->n[h]) continue;
        if (h != f->h0)
            s = gpusort__cuda_check(c0, cudaStreamWaitEvent(st, j->ev[h][3], 0),
                                    "cudaStreamWaitEvent (multi)");
    }
    if (!s) s = gpusort__cuda_check(c0, cudaEventRecord(j->ev[f->h0][4], st), "cudaEventRecord");
    /* 1 gather, 3 send back */
    for (int way = 0; way < 2 && !s; way++) {
        nr = 0;
        for (int h = f->h0; h <= f->h1 && !s; h++) {
            const uint64_t lo = f->s > j->pos[h] ? f->s : j->pos[h];
            const uint64_t hi = f->e < j->pos[h + 1] ? f->e : j->pos[h + 1];
            if (hi <= lo) continue;
            off[nr++] = lo - f->s;
            const int dev = gpusort__cuda_impl_of(j->ctxs[h])->device;
            char *pk = (char *)j->d[h].keys_out + (lo - j->pos[h]) * j->ks;
            char *pv = j->vs ? (char *)j->d[h].values_out + (lo - j->pos[h]) * j->vs : NULL;
            char *bk = (way ? tk2 : tk) + (lo - f->s) * j->ks;
            char *bv = j->vs ? (way ? tv2 : tv) + (lo - f->s) * j->vs : NULL;
            for (int kv = 0; kv < (j->vs ? 2 : 1) && !s; kv++) {
                const size_t es = kv ? j->vs : j->ks;
                char *piece = kv ? pv : pk, *buf = kv ? bv : bk;
                s = gpusort__cuda_check(
                    c0, way ? cudaMemcpyPeerAsync(piece, dev, buf, i0->device, (hi - lo) * es, st)
                            : cudaMemcpyPeerAsync(buf, i0->device, piece, dev, (hi - lo) * es, st),
                    "cudaMemcpyPeerAsync (multi bucket)");
            }
        }
        off[nr] = B;
        if (!way && !s)
            s = merge_all(c0, kt, desc, j->vs, tk, tv, off, nr, tk2, tv2, false);
    }
    if (!s) s = gpusort__cuda_check(c0, cudaEventRecord(j->ev[f->h0][5], st), "cudaEventRecord");
    return s;
}

float ev_ms(cudaEvent_t a, cudaEvent_t b)
{
    float ms = 0;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return ms;
}

/* The steps, after multi_radix's checks; *declined stays 1 until the first key moves. */
gpusort_status radix_run(radix_job *j, gpusort_type kt, int desc, gpusort_multi_times *t,
                         int *declined)
{
    const int G = j->count;
    gpusort_ctx *const *ctxs = j->ctxs;
    const double t0 = wall_s();
    uint64_t N = j->pos[G];
    const int P = (int)j->ks;
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    uint64_t *hist = (uint64_t *)calloc((size_t)G * 8 * 256, sizeof *hist);
    uint64_t *H = (uint64_t *)calloc(8 * 256, sizeof *H);
    if (!hist || !H) {
        free(hist);
        free(H);
        return gpusort__set_error(ctxs[0], GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "multi_sort: tables");
    }
    /* 1. histograms: every GPU at once, then the sums */
    for (int g = 0; g < G && !s; g++)
        if (j->n[g] && !(s = set_dev(ctxs[g]))) s = gpusort__cuda_radix_multi_hist(ctxs[g], &j->d[g]);
    for (int g = 0; g < G && !s; g++)
        if (j->n[g] && !(s = set_dev(ctxs[g])))
            s = gpusort__cuda_radix_multi_hist_fetch(ctxs[g], &j->d[g], hist + (size_t)g * 2048);
    for (int g = 0; g < G && !s; g++)
        for (int i = 0; i < P * 256; i++) H[i] += hist[(size_t)g * 2048 + i];
    int m = -1;
    for (int p = P - 1; p >= 0 && m < 0 && !s; p--) {
        uint64_t most = 0;
        for (int d = 0; d < 256; d++) most = H[p * 256 + d] > most ? H[p * 256 + d] : most;
        if (most < N) m = p;
    }
    if (!s && m < 0) { /* every radix key is equal: the pieces are the sorted sequence already */
        *declined = 0;
        t->exchange = "none";
        t->split_s = wall_s() - t0; /* multi.c sets total_s */
        goto out;
    }
    if (s) goto out;
    {
        /* 2. the buckets across GPUs, and their scratch; the receive buffers */
        find_fixes(j, H + m * 256);
        for (int i = 0; i < j->nfix; i++) {
            radix_fix *f = &j->fix[i];
            const size_t c = 2 * (f->e - f->s) > j->n[f->h0] ? 2 * (f->e - f->s) : j->n[f->h0];
            if (set_dev(ctxs[f->h0]) ||
                !(f->tk = (char *)gpusort__cuda_scratch(ctxs[f->h0], GPUSORT_CUDA_SCRATCH_KEYS,
                                                        c * j->ks)) ||
                (j->vs && !(f->tv = (char *)gpusort__cuda_scratch(
                                ctxs[f->h0], GPUSORT_CUDA_SCRATCH_VALUES, c * j->vs))))
                goto out_clear; /* declined: the steps above need less memory */
        }
        for (int h = 0; h < G; h++) {
            if (!j->n[h]) continue;
            if (set_dev(ctxs[h]) ||
                !(j->rk[h] = buf_get(ctxs[h], GPUSORT_CUDA_SCRATCH_IO_KEYS, j->n[h] * j->ks,
                                     "multi_sort receive buffer")) ||
                (j->vs && !(j->rv[h] = buf_get(ctxs[h], GPUSORT_CUDA_SCRATCH_IO_VALUES,
                                               j->n[h] * j->vs, "multi_sort receive buffer"))))
                goto out_clear;
        }
        for (int g = 0; g < G && !s; g++) {
            if (!(s = set_dev(ctxs[g])))
                for (int e = 0; e < 6 && !s; e++)
                    s = gpusort__cuda_check(ctxs[g], cudaEventCreate(&j->ev[g][e]),
                                            "cudaEventCreate (multi)");
        }
        if (s) goto out;
        *declined = 0;
        t->split_s = wall_s() - t0;

        /* 3. the scatter pass on every GPU */
        gpusort__cuda_multi_dst dst;
        memset(&dst, 0, sizeof dst);
        dst.count = G;
        for (int h = 0; h < G; h++) {
            dst.start[h] = j->pos[h];
            dst.keys[h] = j->rk[h];
            dst.values[h] = j->rv[h];
        }
        uint64_t bases[256], moved = 0;
        for (int g = 0; g < G && !s; g++) {
            if (!j->n[g]) continue;
            uint64_t at = 0;
            for (int d = 0; d < 256; d++) {
                uint64_t b = at;
                for (int q = 0; q < g; q++) b += hist[(size_t)q * 2048 + m * 256 + d];
                bases[d] = b;
                /* the keys of (g, d) that land on another GPU */
                const uint64_t c = hist[(size_t)g * 2048 + m * 256 + d];
                const uint64_t lo = j->pos[g] > b ? j->pos[g] : b;
                const uint64_t hi = j->pos[g + 1] < b + c ? j->pos[g + 1] : b + c;
                moved += c - (hi > lo ? hi - lo : 0);
                at += H[m * 256 + d];
            }
            cudaStream_t st = gpusort__cuda_impl_of(ctxs[g])->stream;
            if (!(s = set_dev(ctxs[g])) &&
                !(s = gpusort__cuda_check(ctxs[g], cudaEventRecord(j->ev[g][0], st), "cudaEventRecord")) &&
                !(s = gpusort__cuda_radix_multi_scatter(ctxs[g], &j->d[g], m, bases, &dst)))
                s = gpusort__cuda_check(ctxs[g], cudaEventRecord(j->ev[g][1], st), "cudaEventRecord");
        }
        t->moved_bytes = moved * (j->ks + j->vs);

        /* 4. every GPU sorts what it received, once every scatter is done */
        for (int h = 0; h < G && !s; h++) {
            if (!j->n[h]) continue;
            cudaStream_t st = gpusort__cuda_impl_of(ctxs[h])->stream;
            s = set_dev(ctxs[h]);
            for (int g = 0; g < G && !s; g++)
                if (g != h && j->n[g])
                    s = gpusort__cuda_check(ctxs[h], cudaStreamWaitEvent(st, j->ev[g][1], 0),
                                            "cudaStreamWaitEvent (multi)");
            if (s) break;
            gpusort__sort_args a = j->d[h];
            a.keys_in = j->rk[h];
            a.values_in = j->rv[h];
            if (!(s = gpusort__cuda_check(ctxs[h], cudaEventRecord(j->ev[h][2], st), "cudaEventRecord")) &&
                !(s = gpusort__cuda_radix_multi_local(ctxs[h], &a, m)))
                s = gpusort__cuda_check(ctxs[h], cudaEventRecord(j->ev[h][3], st), "cudaEventRecord");
        }

        /* 5. the buckets across GPUs */
        for (int i = 0; i < j->nfix && !s; i++) s = run_fix(j, &j->fix[i], kt, desc);
        gpusort_status w = sync_all(ctxs, G);
        if (!s) s = w;
        if (!s) {
            double sc = 0, lo = 0, fx = 0;
            for (int g = 0; g < G; g++) {
                if (!j->n[g]) continue;
                cudaSetDevice(gpusort__cuda_impl_of(ctxs[g])->device);
                double a = ev_ms(j->ev[g][0], j->ev[g][1]), b = ev_ms(j->ev[g][2], j->ev[g][3]);
                sc = a > sc ? a : sc;
                lo = b > lo ? b : lo;
            }
            for (int i = 0; i < j->nfix; i++) {
                const int h0 = j->fix[i].h0;
                cudaSetDevice(gpusort__cuda_impl_of(ctxs[h0])->device);
                double c = ev_ms(j->ev[h0][4], j->ev[h0][5]);
                fx = c > fx ? c : fx;
            }
            t->exchange_s = sc * 1e-3;
            t->local_sort_s = lo * 1e-3;
            t->merge_s = fx * 1e-3;
            t->exchange = "scatter";
        }
        goto out;
    }
out_clear: /* declined for want of memory: not an error */
    for (int g = 0; g < G; g++) ctxs[g]->last_error[0] = 0;
out:
    for (int h = 0; h < G; h++) {
        cudaSetDevice(gpusort__cuda_impl_of(ctxs[h])->device);
        buf_put(ctxs[h], j->rk[h], j->n[h] * j->ks);
        buf_put(ctxs[h], j->rv[h], j->n[h] * j->vs);
        for (int e = 0; e < 6; e++)
            if (j->ev[h][e]) cudaEventDestroy(j->ev[h][e]);
    }
    free(hist);
    free(H);
    return s;
}

gpusort_status multi_radix(gpusort_ctx *const *ctxs, int count, gpusort_type kt, gpusort_type vt,
                           void *const *keys, void *const *values, const size_t *n,
                           gpusort_order order, gpusort_multi_times *t, int *declined)
{
    *declined = 1;
    const char *knob = getenv("GPUSORT_MULTI_RADIX");
    if (!knob || strcmp(knob, "1") || count < 2 || count > MULTI_RADIX_MAX)
        return GPUSORT_STATUS_SUCCESS;
    radix_job *j = (radix_job *)calloc(1, sizeof *j);
    if (!j) return GPUSORT_STATUS_SUCCESS;
    j->ctxs = ctxs;
    j->count = count;
    j->n = n;
    j->ks = gpusort_type_size(kt);
    j->vs = vt == GPUSORT_TYPE_NONE ? 0 : gpusort_type_size(vt);
    for (int g = 0; g < count; g++) {
        j->pos[g + 1] = j->pos[g] + n[g];
        gpusort__sort_args *d = &j->d[g];
        d->key_type = kt;
        d->value_type = vt;
        d->order = order;
        d->keys_in = keys[g];
        d->keys_out = keys[g];
        d->values_in = j->vs ? values[g] : NULL;
        d->values_out = j->vs ? values[g] : NULL;
        d->n = n[g];
    }
    bool ok = true;
    for (int g = 0; g < count && ok; g++)
        ok = !gpusort__cuda_impl_of(ctxs[g])->ws && gpusort__cuda_radix_multi_ok(ctxs[g], &j->d[g]);
    ok = ok && all_peer(ctxs, count);
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    if (ok && !(s = enable_peers(ctxs, count)))
        s = radix_run(j, kt, order == GPUSORT_ORDER_DESC, t, declined);
    free(j);
    return s;
}

} // namespace

extern "C" const gpusort__multi_ops gpusort__cuda_multi = {
    multi_where,    multi_alloc,        multi_free,        multi_sync,
    multi_count_launch, multi_count_fetch, multi_exchange, multi_merge,
    multi_exchange_merge, multi_rank_id, multi_rank_exchange, multi_radix,
};
