"""gpusort -- sort and reduce numpy, CuPy, PyTorch and JAX arrays on NVIDIA GPUs, OpenCL devices
and multicore CPUs, with the C library of this repository (include/gpusort.h).

Functions, in the shape of the Array API (keyword arguments after ``*``):

    sort(x, axis=-1, descending=False, stable=True, return_indices=False, index_dtype, out)
    argsort(x, axis=-1, descending=False, stable=True, index_dtype=int64, out)
    sort_by_key(keys, values, axis=-1, descending=False, out)
    segmented_sort(x, offsets, descending=False, return_indices=False, index_dtype, out)
    topk(x, k, axis=-1, largest=True, index_dtype=int64)
    sum(x), min(x), max(x)
    sort_strings(strings, descending=False, return_indices=False)

Where the data lives decides where it is sorted:
  - numpy arrays (host memory) go to the library as they are; its AUTO backend sorts them on a
    GPU when one is present (copies included) and on the CPU's cores otherwise. ``backend=``
    ("auto", "cpu", "cuda", "opencl") or the environment variable GPUSORT_PY_BACKEND picks
    another.
  - CUDA arrays (torch tensors, CuPy arrays, and through them any object with
    ``__cuda_array_interface__`` or ``__dlpack__``: Numba, JAX) are sorted where they are, with no
    copy, on the caller's current stream (torch.cuda.current_stream(), CuPy's current stream);
    device scratch comes from the framework's own pool (torch.empty / cupy.empty of the bytes the
    library asks for), so gpusort does not hold memory the framework could use.
Results come back as the caller's kind: numpy in, numpy out; torch in, torch out; CuPy in, CuPy
out. Every sort is stable; floats sort -0.0 and +0.0 as equal keys and NaN last (first when
descending), keeping every key's bits.

Types: uint32, int32, float32, uint64, int64, float64 (the library's six). Other dtypes raise
TypeError. Sorts along the last axis run as one batched call (rows sorted independently); another
axis is moved last (a copy) and back. Non-contiguous inputs are copied; ``out=`` must be
C-contiguous, of the result's shape and dtype, and of the input's kind.

Errors: ValueError (bad arguments), TypeError (dtypes), MemoryError (host or device memory),
RuntimeError (device errors, a backend that is not built or has no device), each with the
library's message.

Contexts: one per (backend, device) and per thread, made on first use (module gpusort._core).
``trim()`` gives back the scratch the calling thread's contexts keep between calls.
"""
import atexit
import os
import sys

import numpy as np

from . import _core

__all__ = ["sort", "argsort", "sort_by_key", "segmented_sort", "topk", "sum", "min", "max",
           "sort_strings", "trim", "backends", "SUPPORTED_DTYPES", "__version__"]

__version__ = _core.version()
# The main thread's contexts go while the interpreter and the CUDA runtime are both still up
# (other threads' contexts go when their thread ends).
atexit.register(_core.trim, True)

# gpusort_type values by numpy dtype (include/gpusort.h, enum gpusort_type).
_TYPES = {np.dtype(np.uint32): 0, np.dtype(np.int32): 1, np.dtype(np.float32): 2,
          np.dtype(np.uint64): 3, np.dtype(np.int64): 4, np.dtype(np.float64): 5}
SUPPORTED_DTYPES = ("uint32", "int32", "float32", "uint64", "int64", "float64")
_U32, _U64 = 0, 3
_I32, _I64 = np.dtype(np.int32), np.dtype(np.int64)   # the index dtypes
_BACKENDS = {"auto": 0, "cpu": 1, "cuda": 2, "opencl": 3}
_CUDA = _BACKENDS["cuda"]
_QUERY = _core.FLAG_QUERY_SCRATCH
_ASC, _DESC = 0, 1
_SUM, _MIN, _MAX = 0, 1, 2
# The legacy default stream (cudaStreamLegacy): what torch's and CuPy's stream 0 means. Passing
# 0 would put the library on its own stream, unordered with the caller's work.
_CUDA_STREAM_LEGACY = 1
# The torch fast path (_sort_fast) keeps one scratch tensor per (device, stream) between calls
# when it is at most _KEEP_SCRATCH bytes, and remembers each call shape's scratch size: making
# the buffer and asking its size are host time before the first launch, which the GPU spends
# idle inside the caller's timing (bench/results/python-2026-11-29b.md). A call takes the
# buffer out of the dict while it runs, so another thread on the same stream makes its own.
# Reuse is stream-ordered: the next call on that stream runs after this one. torch's streams
# come from its pools and are never destroyed, so a handle is never another stream's later
# (a torch.cuda.ExternalStream is not torch's: call trim() before destroying one that sorted).
# trim() gives the buffers back.
_KEEP_SCRATCH = 256 << 20
_TORCH_SCRATCH = {}
_SCRATCH_SIZE = {}


def backends():
    """The backends built into this package and the devices each sees now:
    {"cpu": 1, "cuda": 2, "opencl": 0}; a built backend without a device has 0."""
    return {name: _core.device_count(b) for name, b in _BACKENDS.items()
            if b and _core.backend_built(b)}


def trim(free_contexts=False):
    """Give back the scratch memory kept between calls: the calling thread's contexts' and the
    torch workspaces the package keeps (up to 256 MiB per device and stream; call it before
    destroying a torch.cuda.ExternalStream that sorted); with free_contexts=True free the
    contexts too (the next call makes new ones)."""
    _TORCH_SCRATCH.clear()
    _core.trim(free_contexts)


# ---- arrays of each framework --------------------------------------------------------------

def _module_of(x):
    return type(x).__module__.split(".", 1)[0]


# torch dtype -> numpy dtype of the supported types (made whole on first use, then published:
# torch is imported only when a tensor comes), and numpy dtype -> torch dtype of every dtype
# asked for so far.
_TORCH_TO_NP = None
_NP_TO_TORCH = {}


def _torch_to_np():
    global _TORCH_TO_NP
    table = _TORCH_TO_NP
    if table is None:
        import torch
        # uint32 and uint64 only in newer torch
        table = {getattr(torch, n): np.dtype(n) for n in SUPPORTED_DTYPES if hasattr(torch, n)}
        _TORCH_TO_NP = table
    return table


def _dtype_of_torch(t):
    dt = _torch_to_np().get(t.dtype)
    if dt is None:
        raise TypeError(f"gpusort: dtype {t.dtype} is not supported; supported: "
                        f"{', '.join(SUPPORTED_DTYPES)}")
    return dt


def _torch_dtype(dt):
    t = _NP_TO_TORCH.get(dt)
    if t is None:
        import torch
        t = _NP_TO_TORCH[dt] = getattr(torch, np.dtype(dt).name)
    return t


def _torch_stream(torch, dev):
    """The raw cudaStream_t of torch's current stream on device dev. torch._C's
    _cuda_getCurrentRawStream (what torch's own compiler uses) gives the integer without making
    a torch.cuda.Stream object (several microseconds a call); torch.cuda.current_stream() where
    a torch lacks it."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(dev)
    return torch.cuda.current_stream(dev).cuda_stream


class _Kind:
    """How to read and make arrays of one framework: numpy (host), torch or CuPy (device)."""
    name = "numpy"
    device = False

    def __init__(self, x):
        self.dev = -1      # CUDA device index (device kinds)
        self.stream = 0    # the caller's stream as an integer

    def empty(self, shape, dtype):
        return np.empty(shape, dtype)

    def ptr(self, a):
        return a.__array_interface__["data"][0] if a.size else 0

    def contiguous(self, a):
        return np.ascontiguousarray(a)

    def moveaxis(self, a, src, dst):
        return np.moveaxis(a, src, dst)

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def arange_rows(self, rows, row, dtype):
        return (np.arange(rows, dtype=dtype) * row).reshape(rows, 1)

    def scratch(self, nbytes):
        return None, 0    # host data: the library's context keeps its own scratch


class _NumpyKind(_Kind):
    pass


class _TorchCpuKind(_Kind):
    """A torch tensor in host memory: sorted as numpy through a zero-copy view, returned as
    torch tensors (torch.from_numpy shares the memory)."""
    name = "torch-cpu"


class _TorchKind(_Kind):
    name = "torch"
    device = True

    def __init__(self, x):
        import torch
        self.torch = torch
        device = x.device
        if device.index is None:
            device = torch.device("cuda", torch.cuda.current_device())
        self.device = device   # new tensors go here (a torch.device: no string to parse)
        self.dev = device.index
        self.stream = _torch_stream(torch, self.dev) or _CUDA_STREAM_LEGACY

    def empty(self, shape, dtype):
        return self.torch.empty(shape, dtype=_torch_dtype(dtype), device=self.device)

    def ptr(self, a):
        return a.data_ptr()

    def contiguous(self, a):
        return a.contiguous()

    def moveaxis(self, a, src, dst):
        return self.torch.movedim(a, src, dst)

    def is_contiguous(self, a):
        return a.is_contiguous()

    def arange_rows(self, rows, row, dtype):
        return (self.torch.arange(rows, dtype=_torch_dtype(dtype), device=self.device)
                * row).reshape(rows, 1)

    def scratch(self, nbytes):
        buf = self.torch.empty(nbytes, dtype=self.torch.uint8, device=self.device)
        return buf, buf.data_ptr()


class _CupyKind(_Kind):
    name = "cupy"
    device = True

    def __init__(self, x):
        import cupy
        self.cupy = cupy
        self.dev = x.device.id
        # Most calls come on the current device: no device switch then (it costs microseconds).
        self.same = self.dev == cupy.cuda.runtime.getDevice()
        if self.same:
            self.stream = cupy.cuda.get_current_stream().ptr or _CUDA_STREAM_LEGACY
        else:
            with cupy.cuda.Device(self.dev):
                self.stream = cupy.cuda.get_current_stream().ptr or _CUDA_STREAM_LEGACY

    def empty(self, shape, dtype):
        if self.same:
            return self.cupy.empty(shape, dtype)
        with self.cupy.cuda.Device(self.dev):
            return self.cupy.empty(shape, dtype)

    def ptr(self, a):
        return a.data.ptr

    def contiguous(self, a):
        with self.cupy.cuda.Device(self.dev):
            return self.cupy.ascontiguousarray(a)

    def moveaxis(self, a, src, dst):
        return self.cupy.moveaxis(a, src, dst)

    def is_contiguous(self, a):
        return a.flags.c_contiguous

    def arange_rows(self, rows, row, dtype):
        with self.cupy.cuda.Device(self.dev):
            return (self.cupy.arange(rows, dtype=dtype) * row).reshape(rows, 1)

    def scratch(self, nbytes):
        buf = self.empty(nbytes, self.cupy.uint8)
        return buf, buf.data.ptr


def _import(x):
    """(kind, array, dtype, back): the input as an array the library can read, and `back`, which
    turns a result array into the caller's kind."""
    mod = _module_of(x)
    if isinstance(x, np.ndarray):
        return _NumpyKind(x), x, x.dtype, lambda a: a
    if mod == "torch":
        dt = _dtype_of_torch(x)
        if x.is_cuda:
            return _TorchKind(x), x, dt, lambda a: a
        import torch
        return _TorchCpuKind(x), x.detach().numpy(), dt, torch.from_numpy
    if mod == "cupy":
        return _CupyKind(x), x, x.dtype, lambda a: a
    if hasattr(x, "__cuda_array_interface__") or hasattr(x, "__dlpack__"):
        dev = getattr(x, "__dlpack_device__", None)
        on_cuda = hasattr(x, "__cuda_array_interface__") or (dev is not None and dev()[0] == 2)
        if on_cuda:
            # Another CUDA framework (Numba, JAX): viewed through CuPy with no copy; the results
            # come back through DLPack to the caller's framework where it reads DLPack.
            try:
                import cupy
            except ImportError:
                raise TypeError(f"gpusort: a {type(x).__name__} on a CUDA device needs CuPy "
                                "(or pass a torch tensor or a CuPy array)") from None
            a = cupy.asarray(x) if hasattr(x, "__cuda_array_interface__") else cupy.from_dlpack(x)
            back = _back_to(mod)
            return _CupyKind(a), a, a.dtype, back
        a = np.from_dlpack(x)
        return _NumpyKind(a), a, a.dtype, _back_to(mod)
    a = np.asarray(x)
    return _NumpyKind(a), a, a.dtype, lambda r: r


def _back_to(mod):
    """The way back to a framework the results were viewed from through CuPy or numpy."""
    if mod in ("jax", "jaxlib"):
        import jax.numpy as jnp
        return jnp.from_dlpack
    if mod == "numba":
        from numba import cuda
        return cuda.as_cuda_array
    return lambda a: a


def _check_dtype(dt):
    """The gpusort_type of dt, a numpy dtype (as _import gives it)."""
    t = _TYPES.get(dt)
    if t is None:
        raise TypeError(f"gpusort: dtype {dt} is not supported; supported: "
                        f"{', '.join(SUPPORTED_DTYPES)}")
    return t


def _index_type(index_dtype):
    if index_dtype is np.int64:   # the default: no np.dtype() to parse
        return _U64, _I64
    dt = np.dtype(index_dtype)
    if dt == np.int64:
        return _U64, dt
    if dt == np.int32:
        return _U32, dt
    raise TypeError(f"gpusort: index_dtype {index_dtype} is not supported; supported: int64, int32")


def _backend(kind, backend):
    """The (backend, device) of the context for this input."""
    if kind.device:
        if backend not in (None, "auto", "cuda"):
            raise ValueError(f"gpusort: backend {backend!r} cannot sort CUDA device memory; "
                             "use 'cuda' or 'auto'")
        return _CUDA, kind.dev
    name = backend or os.environ.get("GPUSORT_PY_BACKEND") or "auto"
    b = _BACKENDS.get(name)
    if b is None:
        raise ValueError(f"gpusort: unknown backend {name!r}; one of {', '.join(_BACKENDS)}")
    return b, -1


def _run(kind, be, fn, *args):
    """Call _core.fn on the caller's stream; device data takes its scratch from the caller's
    framework: the call asked with GPUSORT_FLAG_QUERY_SCRATCH, a buffer of that size, the call.
    The buffer goes back to the framework's pool when this returns; the pools are
    stream-ordered, and the call ran on that stream, so nothing reuses it too early."""
    b, d = be
    call = getattr(_core, fn)
    if kind.device:
        nbytes = call(b, d, kind.stream, 0, 0, *args[:-1], args[-1] | _QUERY)
        buf, ptr = kind.scratch(nbytes) if nbytes else (None, 0)
        return call(b, d, kind.stream, ptr, nbytes, *args)
    return call(b, d, 0, 0, 0, *args)


def _normalize_axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise ValueError(f"gpusort: axis {axis} is out of bounds for an array of {ndim} "
                         "dimension(s)")
    return axis % ndim


def _check_out(kind, out, shape, dtype, what):
    if _module_of(out) == "torch" and not getattr(out, "is_cuda", False):
        out = out.numpy()
    if not kind.device and not isinstance(out, np.ndarray):
        raise ValueError(f"gpusort: {what} must be a numpy array (or a torch CPU tensor) like "
                         f"the input, not {type(out).__name__}")
    odt = _dtype_of_torch(out) if _module_of(out) == "torch" else np.dtype(out.dtype)
    if tuple(out.shape) != tuple(shape) or odt != np.dtype(dtype):
        raise ValueError(f"gpusort: {what} has shape {tuple(out.shape)} and dtype {odt}; the "
                         f"result has shape {tuple(shape)} and dtype {np.dtype(dtype)}")
    if not kind.is_contiguous(out):
        raise ValueError(f"gpusort: {what} must be C-contiguous")
    if kind.device and _module_of(out) != kind.name:
        raise ValueError(f"gpusort: {what} must be a {kind.name} array like the input")
    return out


def _sort_impl(x, axis, descending, return_indices, index_dtype, keys_wanted, out, backend,
               algorithm=0):
    """The one path of sort and argsort: keys and/or indices of x sorted along axis."""
    kind, a, dt, back = _import(x)
    ktype = _check_dtype(dt)
    itype, idt = _index_type(index_dtype)
    order = _DESC if descending else _ASC
    be = _backend(kind, backend)
    shape = tuple(a.shape)
    if axis is None:
        a = a.reshape(-1) if kind.is_contiguous(a) else kind.contiguous(a).reshape(-1)
        shape, axis = (a.shape[0],), 0
    if len(shape) == 0:
        rshape = ()
        a = a.reshape(1)
        axis = 0
    else:
        rshape = shape
        axis = _normalize_axis(axis, len(shape))
    moved = axis != a.ndim - 1
    if moved:
        a = kind.moveaxis(a, axis, -1)
    if not kind.is_contiguous(a):
        a = kind.contiguous(a)
    wshape = tuple(a.shape)
    n = 1
    for s in wshape:
        n *= s
    row = wshape[-1] if wshape else 1
    if return_indices and itype == _U32 and row > 2**31 - 1:
        raise ValueError(f"gpusort: int32 indices cannot index {row} elements; use int64")

    # Outputs: the caller's out= when the result needs no moving back, else fresh arrays.
    outs = out if isinstance(out, tuple) else (out,) if out is not None else ()
    want = (["keys"] if keys_wanted else []) + (["indices"] if return_indices else [])
    if out is not None and len(outs) != len(want):
        raise ValueError(f"gpusort: out= must give {len(want)} array(s): {', '.join(want)}")
    checked = [_check_out(kind, o, rshape, dt if w == "keys" else idt, f"out ({w})")
               for o, w in zip(outs, want)]
    direct = not moved and checked
    keys = (checked[0] if direct else kind.empty(wshape, dt)) if keys_wanted else None
    idx = (checked[-1] if direct else kind.empty(wshape, idt)) if return_indices else None

    if n:
        kp = kind.ptr(a)
        ko = kind.ptr(keys) if keys is not None else 0
        io = kind.ptr(idx) if idx is not None else 0
        if row == n:
            if idx is None:
                _run(kind, be, "sort", ktype, kp, n, ko, order, algorithm, 0)
            elif keys is None:
                _run(kind, be, "argsort", ktype, itype, kp, n, io, order, algorithm, 0)
            else:
                _run(kind, be, "sort_pairs", ktype, itype, kp, 0, n, ko, io, order, algorithm, 0)
        else:
            _run(kind, be, "sort_batch", ktype, itype if idx is not None else -1, kp, 0, n, row,
                 ko, io, order, algorithm, 0)
            if idx is not None:   # the batch gives indices into the whole array: make them per row
                idx -= kind.arange_rows(n // row, row, idt).reshape(wshape[:-1] + (1,))
    res = [r for r in (keys, idx) if r is not None]
    if checked:
        if moved:
            for o, r in zip(checked, res):
                o[...] = kind.moveaxis(r, -1, axis)
        return outs[0] if len(outs) == 1 else tuple(outs)
    if moved:
        res = [kind.moveaxis(r, -1, axis) for r in res]
    res = [back(r.reshape(rshape)) for r in res]
    return res[0] if len(res) == 1 else tuple(res)


def _sort_fast(x, axis, descending, return_indices, index_dtype, keys_wanted, out, backend):
    """The fast path of sort and argsort, for their common device call: a non-empty 1-D
    contiguous torch CUDA tensor or CuPy array (on the current device) of a supported dtype,
    axis -1 or 0, out=None, index_dtype np.int64 or np.int32, backend None, "auto" or "cuda".
    It makes only the calls such a sort needs, because the host time before the first launch
    is time the GPU idles inside the caller's timing (bench/python/bench_py.py measures the
    calls, pydiag.py beside it breaks one down). Returns None for every other call, which
    _sort_impl then takes with its checks and messages; the two give the same results."""
    torch = sys.modules.get("torch")    # a tensor's framework is imported already
    cupy = sys.modules.get("cupy")
    if torch is not None and type(x) is torch.Tensor:
        if not x.is_cuda or x.dim() != 1:
            return None
        ktype = _TYPES.get(_torch_to_np().get(x.dtype))
        if ktype is None or not x.is_contiguous():
            return None
        dev = x.get_device()            # x's device, which need not be the current one
        fw = torch
    elif cupy is not None and type(x) is cupy.ndarray:
        ktype = _TYPES.get(x.dtype)
        if x.ndim != 1 or ktype is None or not x.flags.c_contiguous:
            return None
        dev = x.device.id
        if dev != cupy.cuda.runtime.getDevice():
            return None                 # the general path switches to x's device
        fw = cupy
    else:
        return None
    n = x.shape[0]
    if index_dtype is np.int64:
        itype = _U64
    elif index_dtype is np.int32 and n <= 2**31 - 1:
        itype = _U32
    else:
        return None
    if n == 0 or out is not None or axis not in (-1, 0) or backend not in (None, "auto", "cuda"):
        return None

    if fw is torch:
        stream = _torch_stream(torch, dev) or _CUDA_STREAM_LEGACY
        # New tensors on x's device, from torch's pool, by the quickest calls (torch.empty with a
        # device= takes longer).
        keys = torch.empty_like(x) if keys_wanted else None
        idx = (torch.empty_like(x, dtype=torch.int64 if itype == _U64 else torch.int32)
               if return_indices else None)
        ptr = torch.Tensor.data_ptr

        def scratch(nbytes):
            return x.new_empty(nbytes, dtype=torch.uint8)
    else:
        stream = cupy.cuda.get_current_stream().ptr or _CUDA_STREAM_LEGACY
        keys = cupy.empty(n, x.dtype) if keys_wanted else None    # (cupy.empty_like takes longer)
        idx = cupy.empty(n, _I64 if itype == _U64 else _I32) if return_indices else None

        def ptr(a):
            return a.data.ptr

        def scratch(nbytes):
            return cupy.empty(nbytes, cupy.uint8)
    order = _DESC if descending else _ASC
    if idx is None:
        call, args = _core.sort, (ktype, ptr(x), n, ptr(keys), order, 0)
    elif keys is None:
        call, args = _core.argsort, (ktype, itype, ptr(x), n, ptr(idx), order, 0)
    else:
        call, args = _core.sort_pairs, (ktype, itype, ptr(x), 0, n, ptr(keys), ptr(idx), order, 0)
    # _run's protocol, flags 0: the scratch size, a buffer of it from the framework's pool (back
    # to the pool, stream-ordered, when this returns), the call. torch: the size remembered and
    # the buffer kept (_KEEP_SCRATCH above).
    shape = (call, ktype, itype, n, order, dev)
    nbytes = _SCRATCH_SIZE.get(shape) if fw is torch else None
    if nbytes is None:
        nbytes = call(_CUDA, dev, stream, 0, 0, *args, _QUERY)
        if fw is torch:
            if len(_SCRATCH_SIZE) >= 4096:
                _SCRATCH_SIZE.clear()
            _SCRATCH_SIZE[shape] = nbytes
    keep = fw is torch and 0 < nbytes <= _KEEP_SCRATCH
    buf = _TORCH_SCRATCH.pop((dev, stream), None) if keep else None
    if nbytes and (buf is None or buf.shape[0] < nbytes):
        buf = scratch(nbytes)
    call(_CUDA, dev, stream, ptr(buf) if nbytes else 0, nbytes, *args, 0)
    if keep:
        _TORCH_SCRATCH[(dev, stream)] = buf
    if idx is None:
        return keys
    return idx if keys is None else (keys, idx)


def sort(x, /, *, axis=-1, descending=False, stable=True, return_indices=False,
         index_dtype=np.int64, out=None, backend=None):
    """A sorted copy of x along `axis` (None: the flattened array).

    descending: largest first (NaN first), still stable: equal keys keep their input order.
    stable: accepted for the Array API; every gpusort sort is stable.
    return_indices: also return the input positions (values, indices), as torch.sort does, in
        index_dtype (int64, or int32 to halve the memory).
    out: an array (or a (values, indices) pair) of the result's shape, dtype and kind to write.
    backend: "auto", "cpu", "cuda" or "opencl" for host data (default: GPUSORT_PY_BACKEND or
        "auto"); device data always runs on its CUDA device.
    """
    r = _sort_fast(x, axis, descending, return_indices, index_dtype, True, out, backend)
    if r is not None:
        return r
    return _sort_impl(x, axis, descending, return_indices, index_dtype, True, out, backend)


def argsort(x, /, *, axis=-1, descending=False, stable=True, index_dtype=np.int64, out=None,
            backend=None):
    """The indices that sort x along `axis` (stable), as numpy.argsort(kind='stable') gives them;
    index_dtype int64 (default) or int32. Other arguments as in sort()."""
    r = _sort_fast(x, axis, descending, True, index_dtype, False, out, backend)
    if r is not None:
        return r
    return _sort_impl(x, axis, descending, True, index_dtype, False, out, backend)


def _values_type(dt):
    dt = np.dtype(dt)
    if dt.itemsize == 4:
        return _U32, np.dtype(np.uint32)
    if dt.itemsize == 8:
        return _U64, np.dtype(np.uint64)
    raise TypeError(f"gpusort: values of dtype {dt} are not supported; values are any 4- or "
                    "8-byte dtype")


def _view(kind, a, dt):
    if kind.name == "torch":
        return a.view(_torch_dtype(dt))
    return a.view(dt)


def sort_by_key(keys, values, /, *, axis=-1, descending=False, out=None, backend=None):
    """(sorted keys, values in the same order): a stable sort of keys along `axis` carrying
    values (same shape as keys, any 4- or 8-byte dtype, moved bit for bit)."""
    kind, k, kdt, back = _import(keys)
    ktype = _check_dtype(kdt)
    vkind, v, vdt, _ = _import(values)
    if vkind.name != kind.name:
        raise ValueError("gpusort: keys and values must be arrays of the same kind")
    if tuple(k.shape) != tuple(v.shape):
        raise ValueError(f"gpusort: keys have shape {tuple(k.shape)}, values {tuple(v.shape)}")
    vtype, vraw = _values_type(vdt)
    be = _backend(kind, backend)
    shape = tuple(k.shape)
    if len(shape) == 0:
        k, v, axis = k.reshape(1), v.reshape(1), 0
    axis = _normalize_axis(axis, k.ndim)
    moved = axis != k.ndim - 1
    if moved:
        k, v = kind.moveaxis(k, axis, -1), kind.moveaxis(v, axis, -1)
    k = k if kind.is_contiguous(k) else kind.contiguous(k)
    v = v if kind.is_contiguous(v) else kind.contiguous(v)
    wshape = tuple(k.shape)
    n = 1
    for s in wshape:
        n *= s
    row = wshape[-1]
    if out is not None:
        if not isinstance(out, tuple) or len(out) != 2:
            raise ValueError("gpusort: out= must be a (keys, values) pair")
        ok = _check_out(kind, out[0], shape, kdt, "out (keys)")
        ov = _check_out(kind, out[1], shape, vdt, "out (values)")
    ko = ok if out is not None and not moved else kind.empty(wshape, kdt)
    vo = ov if out is not None and not moved else kind.empty(wshape, vdt)
    if n:
        vin, vout = _view(kind, v, vraw), _view(kind, vo, vraw)
        if row == n:
            _run(kind, be, "sort_pairs", ktype, vtype, kind.ptr(k), kind.ptr(vin), n, kind.ptr(ko),
                 kind.ptr(vout), _DESC if descending else _ASC, 0, 0)
        else:
            _run(kind, be, "sort_batch", ktype, vtype, kind.ptr(k), kind.ptr(vin), n, row,
                 kind.ptr(ko), kind.ptr(vout), _DESC if descending else _ASC, 0, 0)
    res = [ko, vo]
    if moved:
        res = [kind.moveaxis(r, -1, axis) for r in res]
        if out is not None:
            ok[...] = res[0]
            ov[...] = res[1]
            res = [ok, ov]
    if out is not None:
        return tuple(out)
    return tuple(back(r.reshape(shape)) for r in res)


def segmented_sort(x, offsets, /, *, descending=False, return_indices=False,
                   index_dtype=np.int64, backend=None):
    """Sort each segment [offsets[s], offsets[s+1]) of the 1-D array x on its own (stable);
    elements outside every segment keep their place. offsets: S+1 non-decreasing integers,
    offsets[-1] <= len(x), an array of x's kind or a sequence. With return_indices, also the
    positions in x (global, not within the segment) of the sorted elements."""
    kind, a, dt, back = _import(x)
    ktype = _check_dtype(dt)
    itype, idt = _index_type(index_dtype)
    if a.ndim != 1:
        raise ValueError(f"gpusort: segmented_sort takes a 1-D array, not {a.ndim}-D")
    if not kind.is_contiguous(a):
        a = kind.contiguous(a)
    off = np.asarray(offsets.get() if kind.name == "cupy" and hasattr(offsets, "get")
                     else offsets.cpu().numpy() if _module_of(offsets) == "torch" else offsets)
    if off.ndim != 1 or off.size < 1 or off.dtype.kind not in "iu":
        raise ValueError("gpusort: offsets must be a 1-D integer sequence of S+1 entries")
    if off.dtype.kind == "i" and off.size and off.min() < 0:
        raise ValueError("gpusort: offsets must not be negative")
    off = np.ascontiguousarray(off, dtype=np.uint64)
    if kind.name == "torch":      # the same bits as int64: torch's uint64 copies are young
        off_arr = kind.torch.from_numpy(off.view(np.int64)).to(f"cuda:{kind.dev}")
    elif kind.name == "cupy":
        with kind.cupy.cuda.Device(kind.dev):
            off_arr = kind.cupy.asarray(off)
    else:
        off_arr = off
    n = a.shape[0]
    keys = kind.empty((n,), dt)
    idx = kind.empty((n,), idt) if return_indices else None
    if n:
        _run(kind, _backend(kind, backend), "sort_segmented", ktype,
             itype if return_indices else -1, kind.ptr(a), 0, n, kind.ptr(off_arr),
             off.size - 1, kind.ptr(keys), kind.ptr(idx) if idx is not None else 0,
             _DESC if descending else _ASC, 0, 0)
    return (back(keys), back(idx)) if return_indices else back(keys)


def topk(x, k, /, *, axis=-1, largest=True, index_dtype=np.int64, backend=None):
    """(values, indices) of the k largest (largest=True) or smallest entries of x along `axis`,
    in sorted order (largest first, or smallest first), ties to the lower index, as
    torch.topk(sorted=True) returns them; indices are positions along the axis."""
    kind, a, dt, back = _import(x)
    ktype = _check_dtype(dt)
    itype, idt = _index_type(index_dtype)
    be = _backend(kind, backend)
    scalar = a.ndim == 0
    if scalar:
        a = a.reshape(1)
    axis = _normalize_axis(axis, a.ndim)
    moved = axis != a.ndim - 1
    if moved:
        a = kind.moveaxis(a, axis, -1)
    if not kind.is_contiguous(a):
        a = kind.contiguous(a)
    k = int(k)
    row = a.shape[-1]
    if not 0 <= k <= row:
        raise ValueError(f"gpusort: k = {k} is outside [0, {row}]")
    n = 1
    for s in a.shape:
        n *= s
    oshape = tuple(a.shape[:-1]) + (k,)
    vals, idx = kind.empty(oshape, dt), kind.empty(oshape, idt)
    if n and k:
        order = _DESC if largest else _ASC
        b, d = be
        if row == n:
            _core.topk(b, d, kind.stream, ktype, itype, kind.ptr(a), n, k, kind.ptr(vals),
                       kind.ptr(idx), order)
        else:
            _core.topk_batch(b, d, kind.stream, ktype, itype, kind.ptr(a), n, row, k,
                             kind.ptr(vals), kind.ptr(idx), order)
    if moved:
        vals, idx = kind.moveaxis(vals, -1, axis), kind.moveaxis(idx, -1, axis)
    if scalar:
        vals, idx = vals.reshape(()), idx.reshape(())
    return back(vals), back(idx)


def _reduce(x, op, backend):
    kind, a, dt, _ = _import(x)
    t = _check_dtype(dt)
    if not kind.is_contiguous(a):
        a = kind.contiguous(a)
    n = 1
    for s in a.shape:
        n *= s
    if n == 0 and op != _SUM:
        raise ValueError(f"gpusort: {('sum', 'min', 'max')[op]} of an empty array")
    r = _run(kind, _backend(kind, backend), "reduce", t, kind.ptr(a) if n else 0, n, op, 0)
    if op == _SUM:
        return (np.float64 if dt.kind == "f" else np.uint64 if dt.kind == "u" else np.int64)(r)
    if dt.kind == "u" and dt.itemsize == 8:
        r &= (1 << 64) - 1
    return dt.type(r)


def sum(x, /, *, backend=None):
    """The sum of all elements: int64 for signed, uint64 for unsigned (exact modulo 2^64),
    float64 for floats (accumulated in double; NaN if any element is NaN)."""
    return _reduce(x, _SUM, backend)


def min(x, /, *, backend=None):
    """The smallest element (NaN if any element is NaN, as numpy.min), in x's dtype."""
    return _reduce(x, _MIN, backend)


def max(x, /, *, backend=None):
    """The largest element (NaN if any element is NaN, as numpy.max), in x's dtype."""
    return _reduce(x, _MAX, backend)


def sort_strings(strings, /, *, descending=False, return_indices=False,
                 index_dtype=np.int64, backend=None):
    """Sort a list of str or bytes, or a numpy array of dtype S or U, stably in byte order (str:
    by their UTF-8 bytes, which is code point order, as Python's sorted). Returns the same kind
    (a list, or a numpy array), with the permutation too when return_indices is True."""
    itype, idt = _index_type(index_dtype)
    is_array = isinstance(strings, np.ndarray)
    if is_array:
        if strings.dtype.kind not in "SU" or strings.ndim != 1:
            raise TypeError("gpusort: sort_strings takes a 1-D numpy array of dtype S or U")
        items = strings.tolist()
    else:
        items = list(strings)
    enc = []
    for s in items:
        if isinstance(s, str):
            enc.append(s.encode("utf-8", "surrogatepass"))
        elif isinstance(s, (bytes, bytearray, memoryview)):
            enc.append(bytes(s))
        else:
            raise TypeError(f"gpusort: sort_strings takes str or bytes, not {type(s).__name__}")
    n = len(enc)
    idx = np.empty(n, idt)
    if n:
        offsets = np.zeros(n + 1, np.uint64)
        np.cumsum(np.fromiter(map(len, enc), np.uint64, n), out=offsets[1:])
        data = np.frombuffer(b"".join(enc) or b"\0", np.uint8)
        b, d = _backend(_NumpyKind(None), backend)
        _core.sort_strings(b, d, itype, data.ctypes.data, offsets.ctypes.data, n,
                           idx.ctypes.data, _DESC if descending else _ASC)
    res = strings[idx] if is_array else [items[i] for i in idx.tolist()]
    return (res, idx) if return_indices else res
