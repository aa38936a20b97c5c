/*
 * radix_wc.h -- INTERNAL to radix_impl.h: the scatter through software write-combining
 * buffers, included once per line-store flavour (RI_WC_NAME, RI_STORE_LINE).
 *
 * The same scatter as `scatter` in radix_impl.h, through software write-combining buffers (Polychroniou & Ross 2014, see
 * radix.c): each digit collects one cache line of keys (and one of values) in a small buffer
 * that stays in cache; a full line goes to memory with non-temporal stores, which skip the
 * read-for-ownership of the destination line and touch its page once per line instead of
 * once per element.
 *   slot = (position + phase) % elements-per-line, where phase aligns positions to the
 *   destination's 64-byte lines. A line is written when the NEXT element of that digit lands
 *   in slot 0 (not when the last slot fills: re-reading a line just written element-wise
 *   would stall on store forwarding). A line that lies wholly inside this thread's region of
 *   the digit goes out with non-temporal stores; the first line of a region may be shared with
 *   the previous thread's region and, like the last partial line, is written element by
 *   element with ordinary stores, only at this thread's own positions.
 * Used when the destination is far larger than the caches; radix.c checks the alignment. */
#define RI_FLUSH_PREV(dst, buf, E, ph)                                                        \
    do {                                                                                      \
        if (o - st[d] >= (E)) {             /* line [o - E, o) is wholly this thread's */     \
            RI_STORE_LINE((dst) + o - (E), (buf)[d]);                                            \
        } else {                                                                              \
            for (size_t q = st[d]; q < o; q++) (dst)[q] = (buf)[d][(q + (ph)) & ((E) - 1)];   \
        }                                                                                     \
    } while (0)

static void RI_FN(RI_WC_NAME)(void *arg, size_t t)
{
    enum { EK = 64 / sizeof(RI_KT) };
    rplan *p = (rplan *)arg;
    const RI_KT *sk = (const RI_KT *)p->src_k;
    RI_KT *dk = (RI_KT *)p->dst_k;
    const RI_KT xm = (RI_KT)p->xor_mask;
    const unsigned shift = (unsigned)p->shift;
    const RI_KT mask = (RI_KT)(p->radix - 1);
    const size_t radix = p->radix;
    size_t *restrict off = p->offs + t * radix;
    size_t *restrict st = p->wc_start + t * radix;   /* where this thread's region of d starts */
    unsigned char *wc = p->wc + t * radix * 128;
    RI_KT (*kb)[EK] = (RI_KT (*)[EK])wc;
    const size_t phk = ((uintptr_t)dk / sizeof(RI_KT)) & (EK - 1);
    size_t lo = p->bounds[t], hi = p->bounds[t + 1];
    memcpy(st, off, radix * sizeof *st);
#if RI_VBYTES
    enum { EV = 64 / RI_VBYTES };
    const RI_VT *sv = (const RI_VT *)p->src_v;
    RI_VT *dv = (RI_VT *)p->dst_v;
    RI_VT (*vb)[EV] = (RI_VT (*)[EV])(wc + radix * 64);
    const size_t phv = ((uintptr_t)dv / RI_VBYTES) & (EV - 1);
    const uint64_t base = p->job->index_base;
#endif
    for (size_t i = lo; i < hi; i++) {
        RI_KT b = sk[i];
        size_t d = (size_t)((RI_RK(b) >> shift) & mask);
        size_t o = off[d]++;
        size_t slot = (o + phk) & (EK - 1);
        if (slot == 0 && o != st[d]) RI_FLUSH_PREV(dk, kb, EK, phk);
        kb[d][slot] = b;
#if RI_VBYTES
        RI_VT v = sv ? sv[i] : (RI_VT)(base + i);
        size_t vslot = (o + phv) & (EV - 1);
        if (vslot == 0 && o != st[d]) RI_FLUSH_PREV(dv, vb, EV, phv);
        vb[d][vslot] = v;
#endif
    }
    for (size_t d = 0; d < radix; d++) {             /* the last line of each region */
        size_t e = off[d], r;
        if (e == st[d]) continue;
        r = (e + phk) & (EK - 1);
        r = r ? r : EK;                              /* elements in the last line */
        for (size_t q = e - st[d] < r ? st[d] : e - r; q < e; q++)
            dk[q] = kb[d][(q + phk) & (EK - 1)];
#if RI_VBYTES
        r = (e + phv) & (EV - 1);
        r = r ? r : EV;
        for (size_t q = e - st[d] < r ? st[d] : e - r; q < e; q++)
            dv[q] = vb[d][(q + phv) & (EV - 1)];
#endif
    }
    store_fence();
}
#undef RI_FLUSH_PREV
