/*
 * merge_inst.h -- instantiate merge_impl.h for one key width (MI_KBITS, defined by the includer)
 * and every value width (none, 4, 8 bytes) and key kind (integer, float): the six kernels of
 * that key width. Included twice by merge.c, for 32- and 64-bit keys.
 */
#define MI_VBYTES 0
#define MI_FLOAT 0
#include "merge_impl.h"
#undef MI_FLOAT
#define MI_FLOAT 1
#include "merge_impl.h"
#undef MI_FLOAT
#undef MI_VBYTES
#define MI_VBYTES 4
#define MI_FLOAT 0
#include "merge_impl.h"
#undef MI_FLOAT
#define MI_FLOAT 1
#include "merge_impl.h"
#undef MI_FLOAT
#undef MI_VBYTES
#define MI_VBYTES 8
#define MI_FLOAT 0
#include "merge_impl.h"
#undef MI_FLOAT
#define MI_FLOAT 1
#include "merge_impl.h"
#undef MI_FLOAT
#undef MI_VBYTES
