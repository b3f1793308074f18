"""The ``.npy`` names other modules import, kept where they have always been.

The code lives in :mod:`meancli.formats` (one module per job); this module only
re-exports it.
"""

from __future__ import annotations

from .formats.dtypes import BFLOAT16_DESCRS, BFLOAT16_NOTE, is_bfloat16, native_dtype
from .formats.messages import STDIN_NAME, STDOUT_NAME
from .formats.npy_format import MAGIC, MAX_DATA_BYTES, MAX_HEADER_BYTES, ZIP_MAGICS, NpyHeader, read_header
from .formats.npy_read import read_npy, read_npy_bytes, read_npy_stream
from .formats.npy_write import write_npy, write_npy_blocks
from .formats.pipes import read_bytes, read_into

__all__ = [
    "BFLOAT16_DESCRS",
    "BFLOAT16_NOTE",
    "MAGIC",
    "MAX_DATA_BYTES",
    "MAX_HEADER_BYTES",
    "STDIN_NAME",
    "STDOUT_NAME",
    "ZIP_MAGICS",
    "NpyHeader",
    "is_bfloat16",
    "native_dtype",
    "read_bytes",
    "read_header",
    "read_into",
    "read_npy",
    "read_npy_bytes",
    "read_npy_stream",
    "write_npy",
    "write_npy_blocks",
]
