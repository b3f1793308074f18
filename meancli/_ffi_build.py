"""cffi build script (out-of-line API mode): compiles generated/kernels.c into
``meancli._kernels`` when the package is installed (``pip install .``).

The module records the sha256 of the sources it was built from, which
``meancli.kernels`` checks against generated/tables.py at import.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

from cffi import FFI

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "generated"


def _kernel_sources() -> ModuleType:
    # By path: this script runs in the build before meancli is importable.
    path = ROOT / "meancli" / "codegen" / "kernel_sources.py"
    spec = importlib.util.spec_from_file_location("_meancli_kernel_sources", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sources_sha256() -> str:
    sources = _kernel_sources()
    texts = ((GENERATED / name).read_text(encoding="utf-8") for name in sources.KERNEL_SOURCES)
    digest: str = sources.kernel_sources_sha256(texts)
    return digest


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
    include_dirs=[str(GENERATED), str(_kernel_sources().HEADERS_DIR)],
    define_macros=[("MEANCLI_SOURCE_SHA256", f'"{_sources_sha256()}"')],
    extra_compile_args=_cflags,
    extra_link_args=_ldflags,
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=True)
