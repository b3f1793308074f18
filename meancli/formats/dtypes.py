"""Dtype facts the file formats need: bfloat16 as ``.npy`` stores it, native byte order."""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

#: What numpy writes as the descr of ``ml_dtypes.bfloat16`` data (2-byte void).
BFLOAT16_DESCRS = ("<V2", "|V2")
BFLOAT16_NOTE = "note: 2-byte void data ('<V2' or '|V2', ml_dtypes' layout) was read as bfloat16"


#: bfloat16 data as raw 2-byte values, read and written without ``ml_dtypes`` (whose
#: import costs about a second): what a ``'<V2'``/``'|V2'`` descr gives inside
#: bfloat16_as_raw() (the command line, which reads, reduces and writes the bytes).
#: The kernels take raw 2-byte data; the metadata says the bytes are bfloat16.
RAW_BFLOAT16: np.dtype[Any] = np.dtype("V2", metadata={"meancli": "bfloat16"})

_RAW = contextvars.ContextVar("meancli_bfloat16_as_raw", default=False)


@contextmanager
def bfloat16_as_raw() -> Iterator[None]:
    """Within: bfloat16_dtype() is RAW_BFLOAT16 (no ``ml_dtypes`` import). For the
    command line; the Python API returns ``ml_dtypes.bfloat16`` arrays."""
    token = _RAW.set(True)
    try:
        yield
    finally:
        _RAW.reset(token)


def is_raw_bfloat16(dtype: np.dtype[Any]) -> bool:
    """Whether ``dtype`` is RAW_BFLOAT16 (a 2-byte void carrying meancli's bfloat16 mark)."""
    metadata = getattr(dtype, "metadata", None)
    return metadata is not None and metadata.get("meancli") == "bfloat16" and dtype.itemsize == 2


def is_bfloat16(dtype: np.dtype[Any]) -> bool:
    """Return True if ``dtype`` is ``ml_dtypes.bfloat16`` (in either byte order) or RAW_BFLOAT16.

    Never imports ``ml_dtypes``: if it has not been imported, no bfloat16 dtype can exist.
    Raises nothing.
    """
    if is_raw_bfloat16(dtype):
        return True
    mod = sys.modules.get("ml_dtypes")
    if mod is None:
        return False
    bf16 = getattr(mod, "bfloat16", None)
    return bf16 is not None and getattr(dtype, "type", None) is bf16


def bfloat16_dtype() -> np.dtype[Any]:
    """``ml_dtypes.bfloat16`` as a dtype (imports ml_dtypes; ImportError if it is missing);
    RAW_BFLOAT16 within bfloat16_as_raw()."""
    if _RAW.get():
        return RAW_BFLOAT16
    import ml_dtypes  # lazy: only when bfloat16 data is met or written

    dtype: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
    return dtype


def as_ml_dtypes(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``array`` itself, or for RAW_BFLOAT16 data a view of it as ``ml_dtypes.bfloat16``
    (imports ml_dtypes): for what needs numpy to know the values (onnx, printing)."""
    if not is_raw_bfloat16(array.dtype):
        return array
    import ml_dtypes

    return array.view(np.dtype(ml_dtypes.bfloat16))


def native_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """``dtype`` in the machine's byte order (itself when it already is)."""
    return dtype if dtype.isnative else dtype.newbyteorder("=")
