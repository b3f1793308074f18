"""Arrays as the kernels take them: native byte order, aligned, C or Fortran
contiguous, never masked."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..dtypes import native_dtype
from ..errors import UsageError


def refuse_masked(x: Any) -> None:
    """Refuse a masked array, numpy's or a dask array of masked chunks: the
    kernels read the values under its mask as any others.

    Raises:
        UsageError: ``x`` is masked.
    """
    ma = sys.modules.get("numpy.ma")  # loaded only if the caller uses masked arrays
    meta = getattr(x, "_meta", None)  # a dask array's: what its chunks are
    if ma is not None and (isinstance(x, ma.MaskedArray) or isinstance(meta, ma.MaskedArray)):
        raise UsageError("masked arrays are not supported: pass .filled(value) or .compressed() instead")


def kernel_input(x: Any) -> np.ndarray:
    """``x`` as an ndarray the kernels take: native byte order, aligned, C or
    Fortran contiguous (copied only when it is not already).

    Raises:
        UsageError: ``x`` is a masked array (its mask would be ignored), or
            its copy does not fit in memory.
    """
    refuse_masked(x)
    a = np.asarray(x)
    if a.size == 0:  # no data to read: any strides are fine, hand over plain ones
        return np.empty(a.shape, dtype=native_dtype(a.dtype))
    try:
        if not a.dtype.isnative:
            a = a.astype(native_dtype(a.dtype))
        if not (a.flags.c_contiguous or a.flags.f_contiguous) or not a.flags.aligned:
            a = np.array(a, order="C", copy=True)  # a fresh buffer is aligned
    except (MemoryError, ValueError):  # ValueError: numpy's "array is too big" for the address space
        raise UsageError(
            f"an input of shape {a.shape} ({a.dtype}) is copied to be contiguous in native byte order, "
            f"and its {a.size * a.dtype.itemsize} bytes do not fit in memory"
        ) from None
    return a
