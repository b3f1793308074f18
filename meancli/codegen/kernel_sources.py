"""Which files are the C kernel sources (generated, and the static headers), and their fingerprint.

The generator records the sha256 in the registry; the cffi build
(meancli/_ffi_build.py, which loads this file by path since it runs before
meancli is installed) compiles it into the module; meancli.kernels compares
the two at import.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

KERNEL_SOURCES = ("kernels.c", "kernels_cdef.h")  # in generated/
# The static C that generated/kernels.c includes: real headers, not templates.
HEADERS_DIR = Path(__file__).resolve().parents[1] / "kernels" / "csrc"


def header_texts() -> list[str]:
    """Each header of HEADERS_DIR, by name: its name, a NUL, its text."""
    return [f"{p.name}\0{p.read_text(encoding='utf-8')}" for p in sorted(HEADERS_DIR.glob("*.h"))]


def kernel_sources_sha256(texts: Iterable[str]) -> str:
    """sha256 over the texts of KERNEL_SOURCES (given, in that order), then
    header_texts() (read here), each followed by a NUL."""
    h = hashlib.sha256()
    for text in [*texts, *header_texts()]:
        h.update(text.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()
