"""Dtype facts the file formats need: bfloat16 as ``.npy`` stores it, native byte order."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

#: What numpy writes as the descr of ``ml_dtypes.bfloat16`` data (2-byte void).
BFLOAT16_DESCRS = ("<V2", "|V2")
BFLOAT16_NOTE = "note: 2-byte void data ('<V2' or '|V2', ml_dtypes' layout) was read as bfloat16"


def is_bfloat16(dtype: np.dtype[Any]) -> bool:
    """Return True if ``dtype`` is ``ml_dtypes.bfloat16`` (in either byte order).

    Never imports ``ml_dtypes``: if it has not been imported, no bfloat16 dtype can exist.
    Raises nothing.
    """
    mod = sys.modules.get("ml_dtypes")
    if mod is None:
        return False
    bf16 = getattr(mod, "bfloat16", None)
    return bf16 is not None and getattr(dtype, "type", None) is bf16


def bfloat16_dtype() -> np.dtype[Any]:
    """``ml_dtypes.bfloat16`` as a dtype (imports ml_dtypes; ImportError if it is missing)."""
    import ml_dtypes  # lazy: only when bfloat16 data is met or written

    dtype: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
    return dtype


def native_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """``dtype`` in the machine's byte order (itself when it already is)."""
    return dtype if dtype.isnative else dtype.newbyteorder("=")
