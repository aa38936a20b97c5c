"""The fast path of sort and argsort (gpusort._sort_fast: 1-D contiguous torch CUDA tensors and
CuPy arrays) against the general path (gpusort._sort_impl) on the same input, bit for bit, and
the calls it must leave to the general path. The device tests run where a CUDA device is; the
host test checks that numpy arrays and torch CPU tensors never take the fast path."""
import numpy as np
import pytest

import gpusort
from test_gpusort import (DEVICE, DTYPES, make, rng_for, same_as_torch_sort, same_bits, to_fw,
                         to_np)

# (return_indices, keys_wanted) of sort, sort with indices, argsort.
MODES = [(False, True), (True, True), (True, False)]


def both_paths(x, descending, return_indices, keys_wanted, index_dtype=np.int64):
    """The fast path's result (it must take this call) and the general path's."""
    fast = gpusort._sort_fast(x, -1, descending, return_indices, index_dtype, keys_wanted,
                              None, None)
    assert fast is not None, "the fast path declined a call it is for"
    slow = gpusort._sort_impl(x, -1, descending, return_indices, index_dtype, keys_wanted,
                              None, None)
    return fast, slow


def device_of(a):
    return getattr(a.device, "id", a.device)     # CuPy's Device has an id, torch's is a value


def as_tuple(r):
    return r if isinstance(r, tuple) else (r,)


@pytest.mark.device
@pytest.mark.parametrize("fw", DEVICE)      # empty (skipped) without a CUDA device
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 33, 4097, (1 << 17) + 3])
@pytest.mark.parametrize("descending", [False, True])
def test_fast_equals_general(fw, dtype, n, descending):
    x = make(dtype, n, rng_for("fast", fw, dtype, n, descending))
    xf = to_fw(x, fw)
    for return_indices, keys_wanted in MODES:
        for index_dtype in (np.int64, np.int32):
            fast, slow = both_paths(xf, descending, return_indices, keys_wanted, index_dtype)
            assert len(as_tuple(fast)) == len(as_tuple(slow))
            for f, s in zip(as_tuple(fast), as_tuple(slow)):
                assert type(f) is type(s) and device_of(f) == device_of(s)
                same_bits(to_np(f), to_np(s))
    # The public calls take it and give the same.
    v, i = gpusort.sort(xf, return_indices=True, descending=descending)
    o = to_fw(np.empty_like(x), fw)
    same_bits(to_np(v), to_np(gpusort.sort(xf, descending=descending, out=o)))
    same_bits(to_np(i), to_np(gpusort.argsort(xf, axis=None, descending=descending)))
    same_bits(to_np(xf), x)     # the input is left as it was


@pytest.mark.device
@pytest.mark.parametrize("fw", DEVICE)      # empty (skipped) without a CUDA device
def test_fast_path_declines(fw):
    """Calls that are not the fast path's go to the general path, which gives its results."""
    x = make("int32", 600, rng_for("declines", fw))
    xf = to_fw(x, fw)
    declined = [
        dict(x=to_fw(x.reshape(20, 30), fw)),          # 2-D
        dict(x=xf[::2]),                                 # not contiguous
        dict(x=xf[:0]),                                  # empty
        dict(x=to_fw(x.astype(np.int16), fw)),           # a dtype the library lacks
        dict(axis=None), dict(axis=1),
        dict(out=to_fw(np.empty_like(x), fw)),
        dict(index_dtype="int64"), dict(index_dtype=np.int16),
        dict(backend="cpu"),
    ]
    for kw in declined:
        args = dict(x=xf, axis=-1, descending=False, return_indices=False,
                    index_dtype=np.int64, keys_wanted=True, out=None, backend=None)
        args.update(kw)
        assert gpusort._sort_fast(**args) is None, kw
    # The general path still answers these, as before.
    same_bits(to_np(gpusort.sort(xf[::2])), np.sort(x[::2], kind="stable"))
    same_bits(to_np(gpusort.argsort(xf, index_dtype="int32")),
              np.argsort(x, kind="stable").astype(np.int32))
    with pytest.raises(ValueError, match="cannot sort CUDA device memory"):
        gpusort.sort(xf, backend="cpu")
    with pytest.raises(ValueError, match="axis 1 is out of bounds"):
        gpusort.sort(xf, axis=1)


@pytest.mark.device
@pytest.mark.skipif("torch" not in DEVICE, reason="no CUDA device with torch")
def test_fast_path_other_device():
    """A tensor on cuda:1 while cuda:0 is current: results on cuda:1, as torch.sort's."""
    import torch
    if torch.cuda.device_count() < 2:
        pytest.skip("one CUDA device")
    x = torch.randint(-1000, 1000, (100000,), dtype=torch.int32, device="cuda:1")
    with torch.cuda.device(0):
        v, i = gpusort.sort(x, return_indices=True)
        k = gpusort.argsort(x, descending=True)
    assert v.device == x.device and i.device == x.device and k.device == x.device
    same_as_torch_sort(x, v, i, k)


@pytest.mark.device
@pytest.mark.skipif("torch" not in DEVICE, reason="no CUDA device with torch")
def test_kept_workspace():
    """The torch fast path keeps one workspace per (device, stream) up to _KEEP_SCRATCH bytes:
    calls of growing and shrinking sizes reuse or replace it with correct results, a side
    stream gets its own, a workspace above the limit is not kept, and trim() gives them back."""
    import torch
    gpusort.trim()
    assert not gpusort._TORCH_SCRATCH
    rng = rng_for("kept")
    for n in [5000, 300000, 7000, (1 << 20) + 5, 12]:
        x = make("int32", n, rng)
        v, i = gpusort.sort(to_fw(x, "torch"), return_indices=True)
        same_bits(to_np(v), np.sort(x, kind="stable"))
        same_bits(to_np(i), np.argsort(x, kind="stable"))
    kept = dict(gpusort._TORCH_SCRATCH)
    assert len(kept) == 1 and all(b.shape[0] > 0 for b in kept.values())
    side = torch.cuda.Stream()
    x = make("float32", 200000, rng)
    with torch.cuda.stream(side):
        xt = to_fw(x, "torch")
        k = gpusort.argsort(xt)
    side.synchronize()
    same_bits(to_np(k), np.argsort(x, kind="stable"))
    assert len(gpusort._TORCH_SCRATCH) == 2
    # Above the limit: the workspace is made for the call and not kept.
    limit = gpusort._KEEP_SCRATCH
    try:
        gpusort._KEEP_SCRATCH = 1024
        gpusort.trim()
        x = make("int64", 100000, rng)
        same_bits(to_np(gpusort.sort(to_fw(x, "torch"))), np.sort(x, kind="stable"))
        assert not gpusort._TORCH_SCRATCH
    finally:
        gpusort._KEEP_SCRATCH = limit
    gpusort.trim()
    assert not gpusort._TORCH_SCRATCH


def test_host_arrays_take_the_general_path():
    x = make("float32", 1000, rng_for("host-general"))
    assert gpusort._sort_fast(x, -1, False, True, np.int64, True, None, None) is None
    try:
        import torch
    except ImportError:
        return
    t = torch.from_numpy(x.copy())
    assert gpusort._sort_fast(t, -1, False, True, np.int64, True, None, None) is None
    v, i = gpusort.sort(t, return_indices=True)
    assert isinstance(v, torch.Tensor) and not v.is_cuda
    same_bits(v.numpy(), np.sort(x, kind="stable"))
    same_bits(i.numpy(), np.argsort(x, kind="stable"))
