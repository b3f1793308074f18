"""Arrays as the kernels take them: native byte order, aligned, C or Fortran
contiguous, never masked."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..dtypes import native_dtype
from ..errors import NotEnoughMemory, UsageError


def refuse_masked(x: Any) -> None:
    """Refuse a masked array, numpy's or a dask array of masked chunks: the
    kernels read the values under its mask as any others.

    Raises:
        UsageError: ``x`` is masked.
    """
    # numpy.ma is loaded only if the caller uses masked arrays; its class is None
    # while another thread still imports it (a dask worker's), when no masked array
    # can exist yet
    masked = getattr(sys.modules.get("numpy.ma"), "MaskedArray", None)
    meta = getattr(x, "_meta", None)  # a dask array's: what its chunks are
    if masked is not None and (isinstance(x, masked) or isinstance(meta, masked)):
        raise UsageError("masked arrays are not supported: pass .filled(value) or .compressed() instead")


def refuse_lazy(x: Any) -> None:
    """Refuse a lazy input meancli does not take as one: one that ``np.asarray`` would
    compute and load whole, silently. A dask array is taken by the API (the result is
    lazy too) and never reaches here; any other dask collection (``__dask_graph__``: an
    xarray object backed by dask, a dask DataFrame, a Delayed) and an xarray object not
    in memory (a file opened without ``chunks=``) are refused with what to pass instead.

    Raises:
        UsageError: ``x`` is such a lazy object.
    """
    if type(x) is np.ndarray:  # the common case, checked first: a plain array
        return
    kind = f"{type(x).__module__.split('.')[0]}.{type(x).__name__}"
    graph = getattr(x, "__dask_graph__", None)
    if callable(graph) and graph() is not None:  # an xarray object over numpy says None
        if kind.startswith("xarray."):  # its .data is the dask array
            hint = "pass its dask array (x.data) for a lazy result, or x.values to load it"
        else:
            hint = "pass a dask array (e.g. .to_dask_array()) for a lazy result, or .compute() it first"
        raise UsageError(f"a lazy {kind} is not loaded into memory silently: {hint}")
    # xarray's own lazy arrays (a file opened without chunks=, another chunk manager's
    # array): xarray has no public test for them; _in_memory is what its .load() reads.
    if kind.startswith("xarray.") and getattr(x, "_in_memory", True) is False:
        raise UsageError(
            f"a lazily loaded {kind} is not loaded into memory silently: pass x.values to load it, "
            "or open it with chunks= and pass x.data for a lazy result"
        )


def kernel_input(x: Any) -> np.ndarray:
    """``x`` as an ndarray the kernels take: native byte order, aligned, C or
    Fortran contiguous (copied only when it is not already).

    Raises:
        UsageError: ``x`` is a masked array (its mask would be ignored), or a lazy
            object np.asarray would load (refuse_lazy).
        NotEnoughMemory: its copy does not fit in memory.
    """
    refuse_masked(x)
    refuse_lazy(x)
    a = np.asarray(x)
    if a.size == 0:  # no data to read: any strides are fine, hand over plain ones
        return np.empty(a.shape, dtype=native_dtype(a.dtype))
    try:
        if not a.dtype.isnative:
            a = a.astype(native_dtype(a.dtype))
        if not (a.flags.c_contiguous or a.flags.f_contiguous) or not a.flags.aligned:
            a = np.array(a, order="C", copy=True)  # a fresh buffer is aligned
    except (MemoryError, ValueError):  # ValueError: numpy's "array is too big" for the address space
        raise NotEnoughMemory(
            f"an input of shape {a.shape} ({a.dtype}) is copied to be contiguous in native byte order, "
            f"and its {a.size * a.dtype.itemsize} bytes do not fit in memory"
        ) from None
    return a
