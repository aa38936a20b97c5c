"""Tests of the Python binding: every result is compared with numpy's stable sort bit for bit.

References (the contract of include/gpusort.h is numpy's order: NaN last ascending, -0.0 and
+0.0 equal keys kept in input order):
  ascending   numpy.sort / numpy.argsort(kind="stable")
  descending  the stable ascending sort of the reversed input, reversed back: equal keys then
              keep their input order, NaN comes first (as torch.sort(descending=True)).
Results are compared as raw bytes (uint views), so -0.0 against 0.0 and NaN payloads count.
Inputs mix random values, many duplicates, and each type's special values (NaN of both signs,
+-0.0, +-inf, denormals, the integer extremes). Sizes sit around the library's boundaries (the
OpenCL bitonic tile of 2048, the CPU radix's 2^17 and 2^19 switches). Arrays run on every
host backend (conftest.py) and, on a machine with a CUDA device, as torch and CuPy arrays.
"""
import gc
import os
import threading
import zlib

import numpy as np
import pytest

import gpusort
from conftest import SEED

DTYPES = ["uint32", "int32", "float32", "uint64", "int64", "float64"]
SMALL_SIZES = [1, 2, 3, 31, 33, 255, 256, 257, 2047, 2048, 2049, 4097]
BIG_SIZES = [(1 << 17) + 3, (1 << 19) + 1]


def _host_backends():
    built = gpusort.backends()
    names = [b for b, count in built.items() if count > 0]
    only = os.environ.get("GPUSORT_PY_BACKENDS")
    if only:
        names = [b for b in names if b in only.split(",")]
    return names


def _device_frameworks():
    out = []
    try:
        import torch
        if torch.cuda.is_available() and gpusort.backends().get("cuda", 0) > 0:
            out.append("torch")
    except ImportError:
        pass
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0 and gpusort.backends().get("cuda", 0) > 0:
            out.append("cupy")
    except Exception:
        pass
    return out


HOST = _host_backends()
DEVICE = _device_frameworks()
# (framework, backend) pairs: numpy on each host backend, and the device frameworks.
PLACES = [("numpy", b) for b in HOST] + [(f, None) for f in DEVICE]


def rng_for(*params):
    """A generator seeded by the run's seed and the test's parameters (so one test replays)."""
    return np.random.default_rng([SEED, zlib.crc32(repr(params).encode())])


def make(dtype, n, rng, shape=None):
    """n values of dtype: random, a share of duplicates, and the type's special values."""
    dt = np.dtype(dtype)
    if dt.kind == "f":
        x = rng.standard_normal(n).astype(dt) * dt.type(1000)
        bits = np.dtype(f"u{dt.itemsize}")
        special = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf,
                            np.finfo(dt).tiny / 2, -np.finfo(dt).tiny / 4, 1.0, 1.0], dt)
        # A NaN with another payload: the library keeps every key's bits.
        payload = np.array([np.nan], dt).view(bits) | bits.type(3)
        special = np.concatenate([special, payload.view(dt)])
    else:
        info = np.iinfo(dt)
        x = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        special = np.array([info.min, info.max, 0, 1, info.max - 1, 0], dt)
    if n:
        k = max(1, n // 8)
        x[rng.integers(0, n, k)] = special[rng.integers(0, special.size, k)]
        dups = rng.integers(0, n, max(1, n // 4))
        x[dups] = x[rng.integers(0, n, dups.size)]
    return x.reshape(shape) if shape is not None else x


def ref_argsort(x, axis, descending):
    if not descending:
        return np.argsort(x, axis=axis, kind="stable")
    flipped = np.flip(x, axis)
    idx = np.flip(np.argsort(flipped, axis=axis, kind="stable"), axis)
    return x.shape[axis] - 1 - idx


def ref_sort(x, axis, descending):
    return np.take_along_axis(x, ref_argsort(x, axis, descending), axis)


def same_as_torch_sort(x, v, i, k):
    """v, i = gpusort.sort(x, return_indices=True) and k = gpusort.argsort(x, descending=True)
    of a torch tensor x equal torch.sort's stable results."""
    import torch
    ev, ei = torch.sort(x, stable=True)
    assert torch.equal(v, ev) and torch.equal(i, ei)
    assert torch.equal(k, torch.sort(x, stable=True, descending=True)[1])


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    assert a.dtype == b.dtype, (a.dtype, b.dtype)
    if a.size == 0:
        return
    ua = np.ascontiguousarray(a).view(np.dtype(f"u{a.dtype.itemsize}"))
    ub = np.ascontiguousarray(b).view(np.dtype(f"u{b.dtype.itemsize}"))
    bad = np.flatnonzero(ua.ravel() != ub.ravel())
    assert bad.size == 0, f"{bad.size} differ, first at {bad[0]}: {a.ravel()[bad[0]]} vs {b.ravel()[bad[0]]}"


def to_fw(x, fw):
    if fw == "numpy":
        return x
    if fw == "torch":
        import torch
        if x.dtype.kind == "u":   # torch's unsigned dtypes are young: build them from the bits
            if not hasattr(torch, x.dtype.name):
                pytest.skip(f"this torch has no {x.dtype.name}")
            t = torch.from_numpy(x.view(np.dtype(f"i{x.dtype.itemsize}")).copy())
            return t.view(getattr(torch, x.dtype.name)).cuda()
        return torch.from_numpy(x.copy()).cuda()   # (ascontiguousarray makes 0-d arrays 1-d)
    import cupy
    # From a 1-d view: CuPy 14.2's asarray of a 0-d array turns -0.0 into +0.0
    # (bench/results/pipeline-2026-11-28f.md).
    return cupy.asarray(x.reshape(-1)).reshape(x.shape)


def to_np(x):
    mod = type(x).__module__.split(".")[0]
    if mod == "torch":
        import torch
        if x.dtype in (getattr(torch, "uint32", None), getattr(torch, "uint64", None)):
            bits = np.dtype(str(x.dtype).replace("torch.u", "u"))
            signed = {4: torch.int32, 8: torch.int64}[bits.itemsize]
            return x.view(signed).cpu().numpy().view(bits)
        return x.cpu().numpy()
    if mod == "cupy":
        return x.get()
    assert isinstance(x, (np.ndarray, np.generic)), type(x)
    return x


def kind_of(x):
    return type(x).__module__.split(".")[0]


# ---- sort / argsort / return_indices against numpy, bit for bit ----

@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("n", SMALL_SIZES)
def test_sort_1d(fw, backend, dtype, descending, n):
    x = make(dtype, n, rng_for("1d", fw, backend, dtype, descending, n))
    xf = to_fw(x, fw)
    exp_idx = ref_argsort(x, 0, descending)
    y = gpusort.sort(xf, descending=descending, backend=backend)
    assert kind_of(y) == kind_of(xf)
    same_bits(to_np(y), x[exp_idx])
    same_bits(to_np(gpusort.argsort(xf, descending=descending, backend=backend)), exp_idx)
    v, i = gpusort.sort(xf, descending=descending, return_indices=True, index_dtype=np.int32,
                        backend=backend)
    same_bits(to_np(v), x[exp_idx])
    same_bits(to_np(i), exp_idx.astype(np.int32))
    same_bits(to_np(xf), x)   # the input is untouched


@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("n", BIG_SIZES)
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_sort_big_boundaries(fw, backend, dtype, n):
    x = make(dtype, n, rng_for("big", fw, backend, dtype, n))
    exp_idx = ref_argsort(x, 0, False)
    v, i = gpusort.sort(to_fw(x, fw), return_indices=True, backend=backend)
    same_bits(to_np(v), x[exp_idx])
    same_bits(to_np(i), exp_idx)


@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,axis", [((7, 300), -1), ((7, 300), 0), ((3, 5, 64), 1),
                                        ((4, 1), -1), ((1, 2049), 1), ((5, 6, 7), None)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_axes(fw, backend, dtype, shape, axis, descending):
    size = int(np.prod(shape))
    x = make(dtype, size, rng_for("axes", fw, backend, dtype, shape, axis, descending), shape)
    xf = to_fw(x, fw)
    xr = x.reshape(-1) if axis is None else x
    ax = 0 if axis is None else axis
    exp_idx = ref_argsort(xr, ax, descending)
    v, i = gpusort.sort(xf, axis=axis, descending=descending, return_indices=True, backend=backend)
    same_bits(to_np(v), np.take_along_axis(xr, exp_idx, ax))
    same_bits(to_np(i), exp_idx)
    same_bits(to_np(gpusort.argsort(xf, axis=axis, descending=descending, backend=backend)),
              exp_idx)


@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4), ()])
def test_empty_and_0d(fw, backend, shape):
    x = make("float32", int(np.prod(shape)), rng_for("empty", fw, shape), shape)
    xf = to_fw(x, fw)
    v, i = gpusort.sort(xf, return_indices=True, backend=backend)
    same_bits(to_np(v), x)
    same_bits(to_np(i), np.zeros(shape, np.int64))
    same_bits(to_np(gpusort.argsort(xf, backend=backend)), np.zeros(shape, np.int64))
    if x.ndim:
        same_bits(to_np(gpusort.sort(xf, axis=0, backend=backend)), x)


@pytest.mark.parametrize("fw,backend", PLACES)
def test_non_contiguous_is_copied(fw, backend):
    x = make("int32", 4000, rng_for("nc", fw, backend), (40, 100))
    xf = to_fw(x, fw)
    view = xf[::2, 1::3]
    xv = x[::2, 1::3]
    same_bits(to_np(gpusort.sort(view, backend=backend)), np.sort(xv, kind="stable"))
    same_bits(to_np(gpusort.argsort(view, axis=0, backend=backend)),
              np.argsort(xv, axis=0, kind="stable"))
    same_bits(to_np(xf), x)


@pytest.mark.parametrize("fw,backend", PLACES)
def test_out(fw, backend):
    x = make("float64", 1000, rng_for("out", fw, backend), (10, 100))
    xf = to_fw(x, fw)
    ov, oi = to_fw(np.empty_like(x), fw), to_fw(np.empty(x.shape, np.int64), fw)
    r = gpusort.sort(xf, return_indices=True, out=(ov, oi), backend=backend)
    assert r[0] is ov and r[1] is oi
    same_bits(to_np(ov), ref_sort(x, -1, False))
    same_bits(to_np(oi), ref_argsort(x, -1, False))
    o0 = to_fw(np.empty_like(x), fw)
    assert gpusort.sort(xf, axis=0, out=o0, backend=backend) is o0
    same_bits(to_np(o0), ref_sort(x, 0, False))
    # In place: out is the input.
    gpusort.sort(xf, out=xf, descending=True, backend=backend)
    same_bits(to_np(xf), ref_sort(x, -1, True))
    with pytest.raises(ValueError, match="shape"):
        gpusort.sort(xf, out=to_fw(np.empty(5, np.float64), fw), backend=backend)
    with pytest.raises(ValueError, match="dtype"):
        gpusort.argsort(xf, out=to_fw(np.empty(x.shape, np.int32), fw), backend=backend)
    with pytest.raises(ValueError, match="contiguous"):
        gpusort.sort(xf[:, :50], out=to_fw(np.empty((10, 100), np.float64), fw)[:, ::2],
                     backend=backend)


@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float16", "complex64"])
def test_wrong_dtype(fw, backend, dtype):
    if fw == "torch" and dtype in ("uint16", "complex64"):
        pytest.skip(f"no torch {dtype} to build the input from")
    x = to_fw(np.zeros(10, dtype), fw)
    with pytest.raises(TypeError, match="supported: uint32, int32, float32, uint64, int64, float64"):
        gpusort.sort(x, backend=backend)
    with pytest.raises(TypeError):
        gpusort.sum(x, backend=backend)
    with pytest.raises(TypeError, match="index_dtype"):
        gpusort.argsort(to_fw(np.zeros(3, np.int32), fw), index_dtype=np.int16, backend=backend)


def test_bad_arguments():
    x = np.arange(10, dtype=np.int32)
    with pytest.raises(ValueError, match="axis"):
        gpusort.sort(x, axis=1)
    with pytest.raises(ValueError, match="backend"):
        gpusort.sort(x, backend="metal")
    with pytest.raises(ValueError, match="k = 11"):
        gpusort.topk(x, 11)
    with pytest.raises(ValueError):
        gpusort.min(np.zeros(0, np.float32))
    with pytest.raises(ValueError):
        gpusort.segmented_sort(x, [0, 5, 3])   # decreasing offsets: the library's message
    with pytest.raises(ValueError):
        gpusort.segmented_sort(x, [0, 11])
    with pytest.raises(ValueError, match="same kind|shape"):
        gpusort.sort_by_key(x, np.arange(9, dtype=np.int32))
    with pytest.raises(ValueError, match="must be a numpy array"):
        gpusort.sort(x, out=[0] * 10)


# ---- the other calls ----

@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("vdtype", ["float32", "int64"])
def test_sort_by_key(fw, backend, dtype, vdtype):
    rng = rng_for("sbk", fw, backend, dtype, vdtype)
    for shape, axis in [((3000,), -1), ((6, 513), -1), ((6, 513), 0)]:
        k = make(dtype, int(np.prod(shape)), rng, shape)
        v = make(vdtype, k.size, rng, shape)
        for desc in (False, True):
            idx = ref_argsort(k, axis, desc)
            sk, sv = gpusort.sort_by_key(to_fw(k, fw), to_fw(v, fw), axis=axis, descending=desc,
                                         backend=backend)
            same_bits(to_np(sk), np.take_along_axis(k, idx, axis))
            same_bits(to_np(sv), np.take_along_axis(v, idx, axis))


@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_segmented_sort(fw, backend, dtype):
    rng = rng_for("seg", fw, backend, dtype)
    n = 5000
    x = make(dtype, n, rng)
    cuts = np.sort(rng.integers(0, n, 40))
    offsets = np.concatenate([[10], cuts[(cuts > 10) & (cuts < n - 7)], [n - 7]]).astype(np.int64)
    for desc in (False, True):
        exp = x.copy()
        eidx = np.arange(n)
        for s, e in zip(offsets[:-1], offsets[1:]):
            r = ref_argsort(x[s:e], 0, desc)
            exp[s:e] = x[s:e][r]
            eidx[s:e] = s + r
        y, i = gpusort.segmented_sort(to_fw(x, fw), offsets, descending=desc,
                                      return_indices=True, backend=backend)
        same_bits(to_np(y), exp)
        same_bits(to_np(i)[offsets[0]:offsets[-1]], eidx[offsets[0]:offsets[-1]])


@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_topk(fw, backend, dtype):
    rng = rng_for("topk", fw, backend, dtype)
    for shape, axis, k in [((5000,), -1, 100), ((8, 700), -1, 33), ((8, 700), 0, 3),
                           ((9,), 0, 9), ((9,), 0, 0)]:
        x = make(dtype, int(np.prod(shape)), rng, shape)
        for largest in (True, False):
            idx = np.take(ref_argsort(x, axis, largest), np.arange(k), axis)
            v, i = gpusort.topk(to_fw(x, fw), k, axis=axis, largest=largest, backend=backend)
            same_bits(to_np(i), idx)
            same_bits(to_np(v), np.take_along_axis(x, idx, axis))


@pytest.mark.parametrize("fw,backend", PLACES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce(fw, backend, dtype):
    rng = rng_for("reduce", fw, backend, dtype)
    x = make(dtype, 10007, rng)
    dt = np.dtype(dtype)
    xf = to_fw(x, fw)
    if dt.kind == "f":
        x = np.where(np.isnan(x), 1.0, x).astype(dt)
        x[np.isinf(x)] = 2
        xf = to_fw(x, fw)
        exact = np.sum(x.astype(np.float64))
        # The contract's bounds (include/gpusort.h, "Reduce"): 1e-12 * n * sum|x| for f32
        # input, 2 * n * eps(double) * sum|x| for f64.
        bound = (1e-12 if dt.itemsize == 4 else 2 * np.finfo(np.float64).eps) * x.size
        assert abs(float(gpusort.sum(xf, backend=backend)) - exact) <= \
            bound * np.sum(np.abs(x.astype(np.float64)))
    else:
        wide = np.uint64 if dt.kind == "u" else np.int64
        assert gpusort.sum(xf, backend=backend) == np.sum(x.astype(wide), dtype=wide)
    same_bits(np.array(gpusort.min(xf, backend=backend)), np.array(x.min()))
    same_bits(np.array(gpusort.max(xf, backend=backend)), np.array(x.max()))
    if dt.kind == "f":
        x[5] = np.nan
        assert np.isnan(gpusort.min(to_fw(x, fw), backend=backend))


@pytest.mark.parametrize("backend", HOST)
def test_sort_strings(backend):
    rng = rng_for("strings", backend)
    words = ["", "a", "ab", "b", "é", "z", "Ω", "ab\0", "abc"]
    items = [words[i] + str(rng.integers(0, 3)) * int(rng.integers(0, 2)) for i in
             rng.integers(0, len(words), 3000)]
    exp = sorted(range(len(items)), key=lambda i: items[i].encode())
    s, i = gpusort.sort_strings(items, return_indices=True, backend=backend)
    assert s == [items[j] for j in exp] and i.tolist() == exp
    b = [w.encode() for w in items]
    exp_d = sorted(range(len(b)), key=lambda j: b[j], reverse=True)
    # sorted(reverse=True) is stable too: equal keys keep their input order.
    sd, id_ = gpusort.sort_strings(b, descending=True, return_indices=True, backend=backend)
    assert id_.tolist() == exp_d and sd == [b[j] for j in exp_d]
    arr = np.array([w.rstrip("\0") for w in items])
    got = gpusort.sort_strings(arr, backend=backend)
    assert got.dtype == arr.dtype and np.array_equal(got, np.sort(arr, kind="stable"))
    assert gpusort.sort_strings([], backend=backend) == []
    with pytest.raises(TypeError):
        gpusort.sort_strings([1, 2])


@pytest.mark.parametrize("backend", HOST)
def test_threads(backend):
    """Each thread has its own context: sorts from four threads at once all come out right."""
    errors = []

    def work(t):
        try:
            rng = rng_for("threads", backend, t)
            for r in range(5):
                x = make("float32", 20000 + r, rng)
                same_bits(gpusort.sort(x, backend=backend), np.sort(x, kind="stable"))
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(e)

    ts = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors


def test_library_errors_are_exceptions():
    # The library's own check (a segment beyond n) comes back as ValueError with its message.
    with pytest.raises(ValueError, match="gpusort.segmented_sort: invalid argument"):
        gpusort.segmented_sort(np.arange(10, dtype=np.float32), [0, 4, 12])


# ---- device only: streams, the caching allocators, > 2^31 elements ----

@pytest.mark.device
@pytest.mark.skipif("torch" not in DEVICE, reason="no CUDA device with torch")
def test_torch_side_stream():
    """A tensor produced on a side stream and sorted there without a synchronisation: gpusort
    must run on torch's current stream (the side one), after the producing kernels."""
    import torch
    s = torch.cuda.Stream()
    n = 1 << 22
    with torch.cuda.stream(s):
        a = torch.randn(4096, 4096, device="cuda")
        for _ in range(4):
            a = a @ a / 64        # keeps the side stream busy while the host races ahead
        x = torch.randint(-1000, 1000, (n,), device="cuda", dtype=torch.int32)
        x += (a[0, 0] * 0).to(torch.int32)   # x is finished only after the matmuls
        v, i = gpusort.sort(x, return_indices=True)
        k = gpusort.argsort(x, descending=True)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    same_as_torch_sort(x, v, i, k)


@pytest.mark.device
@pytest.mark.skipif("cupy" not in DEVICE, reason="no CUDA device with CuPy")
def test_cupy_stream():
    import cupy
    s = cupy.cuda.Stream(non_blocking=True)
    with s:
        x = cupy.random.standard_normal(1 << 21, dtype=cupy.float32)
        y = gpusort.sort(x)
    s.synchronize()
    same_bits(y.get(), np.sort(x.get(), kind="stable"))
    # The stream is gone once collected; the thread's cached context must not still use it
    # (trim and free synchronise the context's stream, and a destroyed stream is invalid).
    del s, x, y
    gc.collect()
    gpusort.trim()
    gpusort.trim(free_contexts=True)


@pytest.mark.device
@pytest.mark.skipif("torch" not in DEVICE, reason="no CUDA device with torch")
def test_scratch_from_torch_pool():
    """Device scratch comes from torch's caching allocator: after a sort, torch has it cached
    (memory_reserved grew or stayed), and no cudaMalloc of the library is left holding it."""
    import torch
    n = 1 << 24
    x = torch.randint(0, 1 << 30, (n,), device="cuda", dtype=torch.int32)
    gpusort.trim(free_contexts=True)   # the contexts' own scratch, if any, is gone
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    v, i = gpusort.sort(x, return_indices=True)
    torch.cuda.synchronize()
    # Outputs take 12 bytes a key (int32 + int64); the radix sort's double buffers (keys and
    # indices) come on top, from torch: without them the peak would be 12 n.
    assert torch.cuda.max_memory_allocated() - base > 16 * n
    assert torch.equal(v, torch.sort(x, stable=True)[0])


def test_torch_cpu_tensor():
    """A torch tensor in host memory is sorted as numpy (a zero-copy view) and comes back torch."""
    torch = pytest.importorskip("torch")
    x = make("float32", 5000, rng_for("torch-cpu"), (10, 500))
    v, i = gpusort.sort(torch.from_numpy(x), axis=0, return_indices=True)
    assert isinstance(v, torch.Tensor) and isinstance(i, torch.Tensor)
    same_bits(v.numpy(), ref_sort(x, 0, False))
    same_bits(i.numpy(), ref_argsort(x, 0, False))


@pytest.mark.device
@pytest.mark.skipif(not os.environ.get("GPUSORT_PY_JAX"), reason="set GPUSORT_PY_JAX=1 (with "
                    "XLA_PYTHON_CLIENT_PREALLOCATE=false) to sort JAX and Numba device arrays")
def test_jax_and_numba():
    """Other CUDA frameworks go through CuPy (DLPack, __cuda_array_interface__) and come back
    as their own kind."""
    pytest.importorskip("cupy")
    x = make("float32", 100000, rng_for("jax"))
    jnp = pytest.importorskip("jax.numpy")
    import jax
    if jax.default_backend() != "gpu":
        pytest.skip("JAX has no GPU here")
    y = gpusort.sort(jnp.asarray(x), descending=True)
    assert type(y).__module__.split(".")[0] in ("jax", "jaxlib")
    same_bits(np.asarray(y), ref_sort(x, 0, True))
    cuda = pytest.importorskip("numba.cuda")
    d = cuda.to_device(x)
    y = gpusort.sort(d)
    assert hasattr(y, "copy_to_host")
    same_bits(y.copy_to_host(), ref_sort(x, 0, False))


@pytest.mark.big
@pytest.mark.device
@pytest.mark.skipif("torch" not in DEVICE or not os.environ.get("GPUSORT_BIG_TESTS"),
                    reason="set GPUSORT_BIG_TESTS=1 on a GPU machine with torch (> 2^31 elements)")
def test_big_torch():
    import torch
    n = (1 << 31) + 1234
    g = torch.Generator(device="cuda").manual_seed(SEED)
    x = torch.randint(0, 1000, (n,), device="cuda", dtype=torch.int32, generator=g)
    v, i = gpusort.sort(x, return_indices=True)
    assert v.shape == (n,) and i.dtype == torch.int64
    assert bool((v[1:] >= v[:-1]).all())
    assert torch.equal(torch.bincount(v, minlength=1000), torch.bincount(x, minlength=1000))
    assert torch.equal(x[i], v)
    assert bool(((i[1:] > i[:-1]) | (v[1:] != v[:-1])).all())     # stable
    del v, i
    k = gpusort.sort(x, descending=True)
    assert bool((k[1:] <= k[:-1]).all())
