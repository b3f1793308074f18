"""The one dtype table at run time: spec name <-> numpy dtype <-> ONNX enum.

Its rows are generated from the code generator's dtype table
(meancli/codegen/dtypes.py -> generated/tables.py), so a new element type is
one row there, its C primitives and the specs that allow it. Every module
asks this one for a dtype's spec name, its numpy dtype or its ONNX enum;
nothing else maps dtypes. bfloat16 is ``ml_dtypes.bfloat16`` in numpy, stored
in ``.npy`` files as 2-byte void data (``'<V2'``), the layout numpy writes for it.
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from typing import Any

import numpy as np

from .generated.tables import DTYPES

#: What numpy writes as the descr of ``ml_dtypes.bfloat16`` data (2-byte void).
BFLOAT16_DESCRS = ("<V2", "|V2")
BFLOAT16_NOTE = "note: 2-byte void data ('<V2' or '|V2', ml_dtypes' layout) was read as bfloat16"

#: bfloat16 data as raw 2-byte values, read and written without ``ml_dtypes`` (whose
#: import costs about a second): what a ``'<V2'``/``'|V2'`` descr gives inside
#: bfloat16_as_raw() (the command line, which reads, reduces and writes the bytes).
#: The kernels take raw 2-byte data; the metadata says the bytes are bfloat16.
RAW_BFLOAT16: np.dtype[Any] = np.dtype("V2", metadata={"meancli": "bfloat16"})

_RAW = contextvars.ContextVar("meancli_bfloat16_as_raw", default=False)

#: Every spec dtype name, in the table's order (floats first).
NAMES: tuple[str, ...] = tuple(row[0] for row in DTYPES)
_ROWS = {row[0]: row for row in DTYPES}
# numpy's (kind, itemsize) of every type numpy itself defines: bfloat16 is ml_dtypes'
_BY_KIND_SIZE = {(kind, size): name for name, numpy, kind, size, _ in DTYPES if numpy != "bfloat16"}
_BY_ONNX = {row[4]: row[0] for row in DTYPES}


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


def bfloat16_as_float32(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """bfloat16 values (RAW_BFLOAT16 or ml_dtypes.bfloat16) as float32, exactly: a
    bfloat16's bits are a float32's upper half (no ml_dtypes import). Same shape, C order."""
    bits = np.asarray(array, order="C").view(np.uint16).astype(np.uint32) << 16
    return bits.view(np.float32)


def native_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """``dtype`` in the machine's byte order (itself when it already is)."""
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def spec_name(dtype: np.dtype[Any]) -> str:
    """The spec's name of a numpy dtype (either byte order): float16, bfloat16,
    float32, float64, int8..int64, uint8..uint64. Any other dtype keeps numpy's
    name (``float8_e4m3fn``, ``complex64``, ``V2``), which no spec allows: a
    1-byte float8 or raw void data is never taken for bfloat16.

    Raises nothing.
    """
    if is_bfloat16(dtype):  # first, uncached: RAW_BFLOAT16 is equal to (and hashed as) a plain V2
        return "bfloat16"
    return _plain_spec_name(dtype)


@lru_cache(maxsize=64)
def _plain_spec_name(dtype: np.dtype[Any]) -> str:
    name = _BY_KIND_SIZE.get((dtype.kind, dtype.itemsize)) if dtype.kind in "fiu" else None
    return name if name is not None else dtype.name


def numpy_dtype(name: str) -> np.dtype[Any]:
    """The numpy dtype (native byte order) of spec dtype ``name``; bfloat16 imports ml_dtypes.

    Raises:
        KeyError: ``name`` is not in the table.
    """
    numpy = _ROWS[name][1]
    return bfloat16_dtype() if numpy == "bfloat16" else np.dtype(numpy)


def itemsize(name: str) -> int:
    """Bytes per element of spec dtype ``name`` (KeyError: not in the table)."""
    return int(_ROWS[name][3])


def is_float(name: str) -> bool:
    """Whether spec dtype ``name`` is a floating type (KeyError: not in the table)."""
    return bool(_ROWS[name][2] == "f")


def onnx_enum(name: str) -> int:
    """The ``TensorProto.DataType`` value of spec dtype ``name`` (KeyError: not in the table)."""
    return int(_ROWS[name][4])


def from_onnx_enum(value: int) -> str | None:
    """The spec dtype name of a ``TensorProto.DataType`` value; None for a type not in the table."""
    return _BY_ONNX.get(value)
