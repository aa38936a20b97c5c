# Type hints of the gpusort package (gpusort/__init__.py has the docstrings). An "array" is a
# numpy array, a torch tensor, a CuPy array, or any object with __cuda_array_interface__ or
# __dlpack__; results are arrays of the same kind.
from typing import Any, Literal, Sequence, TypeVar, overload

import numpy as np
import numpy.typing as npt

__version__: str
SUPPORTED_DTYPES: tuple[str, ...]

A = TypeVar("A")
Backend = Literal["auto", "cpu", "cuda", "opencl"] | None
IndexDType = type[np.int64] | type[np.int32] | np.dtype[Any] | str
Strings = TypeVar("Strings", list[str], list[bytes], npt.NDArray[Any])

@overload
def sort(x: A, /, *, axis: int | None = ..., descending: bool = ..., stable: bool = ...,
         return_indices: Literal[False] = ..., index_dtype: IndexDType = ...,
         out: A | None = ..., backend: Backend = ...) -> A: ...
@overload
def sort(x: A, /, *, axis: int | None = ..., descending: bool = ..., stable: bool = ...,
         return_indices: Literal[True], index_dtype: IndexDType = ...,
         out: tuple[A, A] | None = ..., backend: Backend = ...) -> tuple[A, A]: ...
def argsort(x: A, /, *, axis: int | None = ..., descending: bool = ..., stable: bool = ...,
            index_dtype: IndexDType = ..., out: A | None = ..., backend: Backend = ...) -> A: ...
def sort_by_key(keys: A, values: A, /, *, axis: int = ..., descending: bool = ...,
                out: tuple[A, A] | None = ..., backend: Backend = ...) -> tuple[A, A]: ...
@overload
def segmented_sort(x: A, offsets: Sequence[int] | Any, /, *, descending: bool = ...,
                   return_indices: Literal[False] = ..., index_dtype: IndexDType = ...,
                   backend: Backend = ...) -> A: ...
@overload
def segmented_sort(x: A, offsets: Sequence[int] | Any, /, *, descending: bool = ...,
                   return_indices: Literal[True], index_dtype: IndexDType = ...,
                   backend: Backend = ...) -> tuple[A, A]: ...
def topk(x: A, k: int, /, *, axis: int = ..., largest: bool = ...,
         index_dtype: IndexDType = ..., backend: Backend = ...) -> tuple[A, A]: ...
def sum(x: Any, /, *, backend: Backend = ...) -> np.int64 | np.uint64 | np.float64: ...
def min(x: Any, /, *, backend: Backend = ...) -> np.generic: ...
def max(x: Any, /, *, backend: Backend = ...) -> np.generic: ...
@overload
def sort_strings(strings: Strings, /, *, descending: bool = ...,
                 return_indices: Literal[False] = ..., index_dtype: IndexDType = ...,
                 backend: Backend = ...) -> Strings: ...
@overload
def sort_strings(strings: Strings, /, *, descending: bool = ...,
                 return_indices: Literal[True], index_dtype: IndexDType = ...,
                 backend: Backend = ...) -> tuple[Strings, npt.NDArray[np.integer[Any]]]: ...
def trim(free_contexts: bool = ...) -> None: ...
def backends() -> dict[str, int]: ...
