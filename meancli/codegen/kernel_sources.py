"""Which generated files are the C kernel sources, and their fingerprint.

The generator records the sha256 in the registry; the cffi build
(meancli/_ffi_build.py, which loads this file by path since it runs before
meancli is installed) compiles it into the module; meancli.kernels compares
the two at import.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

KERNEL_SOURCES = ("kernels.c", "kernels_cdef.h")


def kernel_sources_sha256(texts: Iterable[str]) -> str:
    """sha256 over the texts of KERNEL_SOURCES, in that order, each followed by a NUL."""
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()
