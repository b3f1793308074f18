"""cffi build script (out-of-line API mode): compiles generated/kernels.c into
``meancli._kernels`` when the package is installed (``pip install .``).

The module records the sha256 of the sources it was built from, which
``meancli.kernels`` checks against the registry at import.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

from cffi import FFI

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"
KERNEL_SOURCES = ("kernels.c", "kernels_cdef.h")  # same order as meancli/codegen/render.py


def _sources_sha256() -> str:
    h = hashlib.sha256()
    for name in KERNEL_SOURCES:
        h.update((GENERATED / name).read_text(encoding="utf-8").encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def _compile_args() -> tuple[list[str], list[str]]:
    # No -march=native: the built module must run on any x86-64; the hot loops
    # carry their own AVX2/F16C clones chosen at load time. No -ffast-math:
    # the compensated sums depend on strict IEEE evaluation order.
    cflags = ["-O3", "-std=gnu11", "-fno-fast-math", "-fvisibility=hidden"]
    ldflags: list[str] = []
    if sys.platform.startswith("linux") and os.environ.get("MEANCLI_NO_OPENMP") != "1":
        cflags.append("-fopenmp")
        ldflags.append("-fopenmp")
    extra = os.environ.get("MEANCLI_EXTRA_CFLAGS", "").split()
    return cflags + extra, ldflags + extra


ffibuilder = FFI()
ffibuilder.cdef((GENERATED / "kernels_cdef.h").read_text(encoding="utf-8"))
_cflags, _ldflags = _compile_args()
ffibuilder.set_source(
    "meancli._kernels",
    '#include "kernels.c"\n',
    include_dirs=[str(GENERATED)],
    define_macros=[("MEANCLI_SOURCE_SHA256", f'"{_sources_sha256()}"')],
    extra_compile_args=_cflags,
    extra_link_args=_ldflags,
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
