/*
 * multi.cu -- the CUDA side of gpusort_multi_sort (src/multi.c drives it; backend.h's
 * gpusort__multi_ops): pieces of one sequence in the device memory of several GPUs.
 *
 *   count     the selection's question "how many keys of this sorted run are below v?" for all
 *             of a round's values in one kernel (a thread per value, a binary search in device
 *             memory), so a round costs one launch and two small copies per GPU, not thousands
 *             of one-key reads.
 *   exchange  the all-to-all of the slices. NCCL (ncclSend / ncclRecv of every pair in one
 *             group, one communicator per GPU from ncclCommInitAll) when libnccl.so.2 loads and
 *             every context has a GPU of its own; CUDA peer copies (cudaMemcpyPeerAsync: NVLink
 *             or PCIe peer access, staged by the driver where there is none) otherwise. A
 *             context's slice to itself is a device-to-device copy either way. NCCL is loaded at
 *             run time (dlopen), so the library neither needs it to build nor to start: a
 *             machine without it still sorts, through peer copies. Its communicators are made
 *             once per set of devices and kept for the process (making them takes far longer
 *             than an exchange).
 *   merge     the stable merge of a destination's received runs: adjacent runs merged in pairs,
 *             ceil(log2 runs) rounds, ping-pong between the two buffers. One merge is a
 *             merge path (Green, McColl and Bader 2012; ModernGPU's tiles): a first kernel
 *             finds where every tile of 1024 outputs starts in each input, a second merges each
 *             tile from shared memory, 8 outputs a thread. Ties take the left run, so source
 *             order (and with it the contract's (context, position) order) is kept.
 */
#include "cuda_internal.h"

#include "keys.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- merge ---- */

constexpr int MERGE_THREADS = 128;
constexpr int MERGE_ITEMS = 8;
constexpr int MERGE_TILE = MERGE_THREADS * MERGE_ITEMS;

/* The number of a's elements among the first `diag` outputs of the stable merge of a (na) and
 * b (nb), ties to a. */
template <typename K>
__device__ __forceinline__ uint64_t merge_path(const K *a, uint64_t na, const K *b, uint64_t nb,
                                               uint64_t diag, int type, int desc)
{
    uint64_t lo = diag > nb ? diag - nb : 0, hi = diag < na ? diag : na;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (rkey<K>(a[mid], type, desc) <= rkey<K>(b[diag - 1 - mid], type, desc)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

template <typename K>
__global__ void k_merge_partition(const K *a, uint64_t na, const K *b, uint64_t nb, int type,
                                  int desc, uint64_t tiles, uint64_t *part)
{
    uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t > tiles) return;
    uint64_t diag = t * MERGE_TILE;
    if (diag > na + nb) diag = na + nb;
    part[t] = merge_path<K>(a, na, b, nb, diag, type, desc);
}

template <typename K, typename V>
__global__ void __launch_bounds__(MERGE_THREADS)
    k_merge(const K *a, const V *av, uint64_t na, const K *b, const V *bv, uint64_t nb, int type,
            int desc, const uint64_t *part, K *out, V *outv)
{
    __shared__ K s[MERGE_TILE];
    const uint64_t t = blockIdx.x, base = t * MERGE_TILE;
    const uint64_t a0 = part[t], a1 = part[t + 1];
    uint64_t end = base + MERGE_TILE;
    if (end > na + nb) end = na + nb;
    const uint64_t b0 = base - a0, b1 = end - a1;
    const int la = (int)(a1 - a0), lb = (int)(b1 - b0);
    for (int i = threadIdx.x; i < la + lb; i += MERGE_THREADS)
        s[i] = i < la ? a[a0 + i] : b[b0 + (i - la)];
    __syncthreads();
    const K *sa = s, *sb = s + la;
    int diag = threadIdx.x * MERGE_ITEMS;
    if (diag > la + lb) diag = la + lb;
    int ai = (int)merge_path<K>(sa, (uint64_t)la, sb, (uint64_t)lb, (uint64_t)diag, type, desc);
    int bi = diag - ai;
    for (int k = 0; k < MERGE_ITEMS && diag + k < la + lb; k++) {
        bool take_a = bi >= lb ||
                      (ai < la && rkey<K>(sa[ai], type, desc) <= rkey<K>(sb[bi], type, desc));
        uint64_t o = base + diag + k;
        if (take_a) {
            out[o] = sa[ai];
            if (outv) outv[o] = av[a0 + ai];
            ai++;
        } else {
            out[o] = sb[bi];
            if (outv) outv[o] = bv[b0 + bi];
            bi++;
        }
    }
}

template <typename K, typename V>
gpusort_status merge_two(gpusort_ctx *ctx, const K *a, const V *av, uint64_t na, const K *b,
                         const V *bv, uint64_t nb, int type, int desc, K *out, V *outv,
                         uint64_t *part)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    const uint64_t tiles = (na + nb + MERGE_TILE - 1) / MERGE_TILE;
    k_merge_partition<K><<<(unsigned)((tiles + 1 + 255) / 256), 256, 0, st>>>(
        a, na, b, nb, type, desc, tiles, part);
    k_merge<K, V><<<(unsigned)tiles, MERGE_THREADS, 0, st>>>(a, av, na, b, bv, nb, type, desc,
                                                             part, out, outv);
    return gpusort__cuda_check(ctx, cudaGetLastError(), "multi merge launch");
}

/* One round over all runs: pairs (2i, 2i + 1) merged from `in` into `out` at the same offsets;
 * an unpaired last run copied. */
template <typename K, typename V>
gpusort_status merge_round(gpusort_ctx *ctx, int type, int desc, const K *in, const V *inv,
                           K *out, V *outv, const size_t *off, int nruns, uint64_t *part)
{
    cudaStream_t st = gpusort__cuda_stream(ctx);
    gpusort_status s;
    for (int r = 0; r < nruns; r += 2) {
        const uint64_t o = off[r], na = off[r + 1] - off[r];
        if (r + 1 == nruns) {
            if (na && (s = gpusort__cuda_check(
                           ctx, cudaMemcpyAsync(out + o, in + o, na * sizeof(K),
                                                cudaMemcpyDeviceToDevice, st),
                           "multi merge copy")))
                return s;
            if (na && outv &&
                (s = gpusort__cuda_check(ctx, cudaMemcpyAsync(outv + o, inv + o, na * sizeof(V),
                                                              cudaMemcpyDeviceToDevice, st),
                                         "multi merge copy")))
                return s;
            continue;
        }
        const uint64_t nb = off[r + 2] - off[r + 1];
        if (na + nb == 0) continue;
        if ((s = merge_two<K, V>(ctx, in + o, inv ? inv + o : NULL, na, in + o + na,
                                 inv ? inv + o + na : NULL, nb, type, desc, out + o,
                                 outv ? outv + o : NULL, part)))
            return s;
    }
    return GPUSORT_STATUS_SUCCESS;
}

template <typename K, typename V>
gpusort_status merge_all(gpusort_ctx *ctx, int type, int desc, K *keys, V *values,
                         const size_t *off0, int nruns, K *keys_out, V *values_out)
{
    const uint64_t n = off0[nruns];
    cudaStream_t st = gpusort__cuda_stream(ctx);
    gpusort_status s;
    /* The partition table of the largest merge (all of n) serves every merge of a round: the
     * merges of one round run one after another on the stream. */
    const size_t part_bytes = ((n + MERGE_TILE - 1) / MERGE_TILE + 2) * sizeof(uint64_t);
    uint64_t *part = (uint64_t *)gpusort__cuda_dev_alloc(ctx, part_bytes, "multi merge table");
    if (!part) return GPUSORT_STATUS_OUT_OF_DEVICE_MEMORY;
    size_t *off = (size_t *)malloc(((size_t)nruns + 1) * sizeof *off);
    if (!off) {
        gpusort__cuda_dev_free(ctx, part, part_bytes);
        return gpusort__set_error(ctx, GPUSORT_STATUS_OUT_OF_HOST_MEMORY, "multi merge offsets");
    }
    memcpy(off, off0, ((size_t)nruns + 1) * sizeof *off);
    K *kb[2] = {keys, keys_out};
    V *vb[2] = {values, values_out};
    int cur = 0;
    s = GPUSORT_STATUS_SUCCESS;
    while (nruns > 1) {
        if ((s = merge_round<K, V>(ctx, type, desc, kb[cur], vb[cur], kb[cur ^ 1], vb[cur ^ 1],
                                   off, nruns, part)))
            break;
        int m = 0;
        for (int r = 0; r < nruns; r += 2) off[++m] = off[r + 2 < nruns ? r + 2 : nruns];
        nruns = m;
        cur ^= 1;
    }
    if (!s && cur == 0 && n) { /* the result is in the input buffer */
        s = gpusort__cuda_check(ctx, cudaMemcpyAsync(keys_out, keys, n * sizeof(K),
                                                     cudaMemcpyDeviceToDevice, st),
                                "multi merge copy");
        if (!s && values_out)
            s = gpusort__cuda_check(ctx, cudaMemcpyAsync(values_out, values, n * sizeof(V),
                                                         cudaMemcpyDeviceToDevice, st),
                                    "multi merge copy");
    }
    if (!s) s = gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "multi merge");
    gpusort__cuda_dev_free(ctx, part, part_bytes);
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
};

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
    void *f[6] = {dlsym(nccl_lib, "ncclCommInitAll"), dlsym(nccl_lib, "ncclGroupStart"),
                  dlsym(nccl_lib, "ncclGroupEnd"),    dlsym(nccl_lib, "ncclSend"),
                  dlsym(nccl_lib, "ncclRecv"),        dlsym(nccl_lib, "ncclGetErrorString")};
    for (int i = 0; i < 6; i++)
        if (!f[i]) {
            snprintf(nccl_why, sizeof nccl_why, "%s lacks ncclSend/ncclRecv (NCCL >= 2.7)", name);
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
    return true;
}

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

gpusort_status sync_all(gpusort_ctx *const *ctxs, int count)
{
    gpusort_status s = GPUSORT_STATUS_SUCCESS, t;
    for (int g = 0; g < count; g++) {
        gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctxs[g]);
        if ((t = gpusort__cuda_check(ctxs[g], cudaSetDevice(im->device), "cudaSetDevice")) ||
            (t = gpusort__cuda_check(ctxs[g], cudaStreamSynchronize(im->stream),
                                     "multi exchange")))
            if (!s) s = t;
    }
    return s;
}

/* Peer copies: each slice on its source's stream (its destination's work so far is complete:
 * the caller synchronised every context before the exchange). */
gpusort_status exchange_peer(gpusort_ctx *const *ctxs, int count, const gpusort__multi_xfer *x,
                             size_t nx)
{
    gpusort_status s;
    for (size_t i = 0; i < nx; i++) {
        if (!x[i].bytes) continue;
        gpusort_ctx *src = ctxs[x[i].src];
        gpusort__cuda_impl *si = gpusort__cuda_impl_of(src);
        int ddev = gpusort__cuda_impl_of(ctxs[x[i].dst])->device, can = 0;
        if ((s = gpusort__cuda_check(src, cudaSetDevice(si->device), "cudaSetDevice"))) return s;
        /* Direct copies over NVLink or PCIe where the two GPUs can reach each other (the
         * driver stages through host memory otherwise); enabled once per pair per process. */
        if (ddev != si->device && cudaDeviceCanAccessPeer(&can, si->device, ddev) == cudaSuccess &&
            can && cudaDeviceEnablePeerAccess(ddev, 0) != cudaSuccess)
            (void)cudaGetLastError(); /* cudaErrorPeerAccessAlreadyEnabled */
        cudaError_t e = ddev == si->device
                            ? cudaMemcpyAsync(x[i].to, x[i].from, x[i].bytes,
                                              cudaMemcpyDeviceToDevice, si->stream)
                            : cudaMemcpyPeerAsync(x[i].to, ddev, x[i].from, si->device,
                                                  x[i].bytes, si->stream);
        if ((s = gpusort__cuda_check(src, e, "cudaMemcpyPeerAsync (multi exchange)"))) return s;
    }
    return sync_all(ctxs, count);
}

#if defined(GPUSORT_HAVE_NCCL)
gpusort_status exchange_nccl(gpusort_ctx *const *ctxs, int count, const gpusort__multi_xfer *x,
                             size_t nx, nccl_set *set)
{
    gpusort_status s = GPUSORT_STATUS_SUCCESS;
    /* A context's slice to itself: a copy on its stream. */
    for (size_t i = 0; i < nx && !s; i++) {
        if (!x[i].bytes || x[i].src != x[i].dst) continue;
        gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctxs[x[i].src]);
        if (!(s = gpusort__cuda_check(ctxs[x[i].src], cudaSetDevice(im->device), "cudaSetDevice")))
            s = gpusort__cuda_check(ctxs[x[i].src],
                                    cudaMemcpyAsync(x[i].to, x[i].from, x[i].bytes,
                                                    cudaMemcpyDeviceToDevice, im->stream),
                                    "multi exchange copy");
    }
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

void *multi_alloc(gpusort_ctx *ctx, size_t bytes)
{
    if (cudaSetDevice(gpusort__cuda_impl_of(ctx)->device) != cudaSuccess) {
        (void)cudaGetLastError();
        gpusort__set_error(ctx, GPUSORT_STATUS_DEVICE_ERROR, "cudaSetDevice failed");
        return NULL;
    }
    return gpusort__cuda_dev_alloc(ctx, bytes, "multi-GPU receive buffers");
}

void multi_free(gpusort_ctx *ctx, void *p, size_t bytes)
{
    if (!p) return;
    cudaSetDevice(gpusort__cuda_impl_of(ctx)->device);
    gpusort__cuda_dev_free(ctx, p, bytes);
}

gpusort_status multi_sync(gpusort_ctx *ctx)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (!s) s = gpusort__cuda_check(ctx, cudaStreamSynchronize(im->stream), "multi sync");
    return s;
}

gpusort_status multi_count(gpusort_ctx *ctx, gpusort_type type, int desc, const void *keys,
                           size_t n, const uint64_t *v, size_t m, int or_equal, uint64_t *cnt,
                           uint64_t *work)
{
    gpusort__cuda_impl *im = gpusort__cuda_impl_of(ctx);
    gpusort_status s = gpusort__cuda_check(ctx, cudaSetDevice(im->device), "cudaSetDevice");
    if (s) return s;
    if (m == 0) return GPUSORT_STATUS_SUCCESS;
    cudaStream_t st = im->stream;
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
    if ((s = gpusort__cuda_check(ctx, cudaGetLastError(), "multi count launch")) ||
        (s = gpusort__cuda_check(ctx, cudaMemcpyAsync(cnt, work + m, m * sizeof *cnt,
                                                      cudaMemcpyDeviceToHost, st),
                                 "multi count copy")))
        return s;
    return gpusort__cuda_check(ctx, cudaStreamSynchronize(st), "multi count");
}

gpusort_status multi_exchange(gpusort_ctx *const *ctxs, int count, const gpusort__multi_xfer *x,
                              size_t nx, const char **how)
{
    const char *knob = exchange_knob();
    const bool want_peer = knob && !strcmp(knob, "peer");
    const bool need_nccl = knob && !strcmp(knob, "nccl");
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
    typedef unsigned long long u64;
    const int t = (int)type;
    if (gpusort_type_size(type) == 4) {
        uint32_t *k = (uint32_t *)keys, *ko = (uint32_t *)keys_out;
        if (vsize == 8)
            return merge_all<uint32_t, u64>(ctx, t, desc, k, (u64 *)values, off, nruns, ko,
                                            (u64 *)values_out);
        if (vsize == 4)
            return merge_all<uint32_t, uint32_t>(ctx, t, desc, k, (uint32_t *)values, off, nruns,
                                                 ko, (uint32_t *)values_out);
        return merge_all<uint32_t, uint32_t>(ctx, t, desc, k, NULL, off, nruns, ko, NULL);
    }
    u64 *k = (u64 *)keys, *ko = (u64 *)keys_out;
    if (vsize == 8)
        return merge_all<u64, u64>(ctx, t, desc, k, (u64 *)values, off, nruns, ko,
                                   (u64 *)values_out);
    if (vsize == 4)
        return merge_all<u64, uint32_t>(ctx, t, desc, k, (uint32_t *)values, off, nruns, ko,
                                        (uint32_t *)values_out);
    return merge_all<u64, uint32_t>(ctx, t, desc, k, NULL, off, nruns, ko, NULL);
}

} // namespace

extern "C" const gpusort__multi_ops gpusort__cuda_multi = {
    multi_where, multi_alloc, multi_free, multi_sync, multi_count, multi_exchange, multi_merge,
};
