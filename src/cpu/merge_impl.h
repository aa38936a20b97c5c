/*
 * merge_impl.h -- INTERNAL to merge.c: the element loops of the merge sort, compiled once per
 * (key width, value width, key family). merge.c includes this file twelve times with
 *   MI_KBITS 32|64, MI_VBYTES 0|4|8, MI_FLOAT 0|1
 * and gets <name>_<K>_<V>_<F> plus a table mi_ops_<K>_<V>_<F>. Keys compare by their radix
 * keys (rkey.h), computed on the fly; the original bits are moved, never rewritten.
 * Values pointers may be NULL when MI_VBYTES is 0.
 */
#define MI_CAT_(a, b, c, d) a##_##b##_##c##_##d
#define MI_CAT(a, b, c, d) MI_CAT_(a, b, c, d)
#define MI_FN(name) MI_CAT(name, MI_KBITS, MI_VBYTES, MI_FLOAT)

#if MI_KBITS == 32
#define MI_KT uint32_t
#define MI_RK(b) gpusort__cpu_rk32((b), (uint32_t)xm, MI_FLOAT)
#else
#define MI_KT uint64_t
#define MI_RK(b) gpusort__cpu_rk64((b), xm, MI_FLOAT)
#endif
#if MI_VBYTES == 4
#define MI_VT uint32_t
#elif MI_VBYTES == 8
#define MI_VT uint64_t
#endif

/* Stable insertion sort of elements [lo, hi) in place. */
static void MI_FN(insertion)(void *k_, void *v_, size_t lo, size_t hi, uint64_t xm)
{
    MI_KT *k = (MI_KT *)k_;
#if MI_VBYTES
    MI_VT *v = (MI_VT *)v_;
#endif
    for (size_t i = lo + 1; i < hi; i++) {
        MI_KT b = k[i], r = MI_RK(b);
#if MI_VBYTES
        MI_VT x = v[i];
#endif
        size_t j = i;
        for (; j > lo && MI_RK(k[j - 1]) > r; j--) {
            k[j] = k[j - 1];
#if MI_VBYTES
            v[j] = v[j - 1];
#endif
        }
        k[j] = b;
#if MI_VBYTES
        v[j] = x;
#endif
    }
}

/* Stable merge of a = src[a0, a1) and b = src[b0, b1) into dst from position o; on equal
 * keys a's element goes first. src and dst are distinct arrays. */
static void MI_FN(merge)(const void *sk_, const void *sv_, void *dk_, void *dv_, size_t a0,
                         size_t a1, size_t b0, size_t b1, size_t o, uint64_t xm)
{
    const MI_KT *sk = (const MI_KT *)sk_;
    MI_KT *dk = (MI_KT *)dk_;
#if MI_VBYTES
    const MI_VT *sv = (const MI_VT *)sv_;
    MI_VT *dv = (MI_VT *)dv_;
#endif
    if (a0 < a1 && b0 < b1) {
        MI_KT ra = MI_RK(sk[a0]), rb = MI_RK(sk[b0]);
        for (;;) {
            if (rb < ra) {
                dk[o] = sk[b0];
#if MI_VBYTES
                dv[o] = sv[b0];
#endif
                o++;
                if (++b0 == b1) break;
                rb = MI_RK(sk[b0]);
            } else {
                dk[o] = sk[a0];
#if MI_VBYTES
                dv[o] = sv[a0];
#endif
                o++;
                if (++a0 == a1) break;
                ra = MI_RK(sk[a0]);
            }
        }
    }
    memcpy(dk + o, sk + a0, (a1 - a0) * sizeof(MI_KT));
#if MI_VBYTES
    memcpy(dv + o, sv + a0, (a1 - a0) * sizeof(MI_VT));
#endif
    o += a1 - a0;
    memcpy(dk + o, sk + b0, (b1 - b0) * sizeof(MI_KT));
#if MI_VBYTES
    memcpy(dv + o, sv + b0, (b1 - b0) * sizeof(MI_VT));
#endif
}

/* Merge path (Odeh, Green, Mwassi, Shmueli, Birk, "Merge Path - parallel merging made
 * simple", IPDPSW 2012): how many of the first `target` elements of the stable merge of
 * a = k[a0, a1) and b = k[b0, b1) come from a. Binary search on the diagonal. */
static size_t MI_FN(corank)(const void *k_, size_t a0, size_t a1, size_t b0, size_t b1,
                            size_t target, uint64_t xm)
{
    const MI_KT *k = (const MI_KT *)k_;
    size_t na = a1 - a0, nb = b1 - b0;
    size_t lo = target > nb ? target - nb : 0, hi = target < na ? target : na;
    while (lo < hi) {
        size_t i = lo + (hi - lo) / 2, j = target - i;     /* i < na, j >= 1 */
        if (MI_RK(k[a0 + i]) <= MI_RK(k[b0 + j - 1])) lo = i + 1;   /* a[i] precedes b[j-1] */
        else hi = i;
    }
    return lo;
}

static const mkernels MI_FN(mi_ops) = {MI_FN(insertion), MI_FN(merge), MI_FN(corank)};

#undef MI_RK
#undef MI_KT
#undef MI_VT
#undef MI_FN
#undef MI_CAT
#undef MI_CAT_
