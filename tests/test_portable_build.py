"""generated/kernels.c builds warning-free for x86-64 and for the portable
loops alone (MEANCLI_PORTABLE_ONLY: what aarch64 and any CPU without x86
vectors compile), and cross-compiles for aarch64 where that compiler is
installed. The portable loops' results are tested at run time by
MEANCLI_ISA=portable (tests/test_simd_paths.py)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.build

KERNELS = Path(__file__).resolve().parents[1] / "generated" / "kernels.c"
HEADERS = Path(__file__).resolve().parents[1] / "meancli" / "kernels" / "csrc"
FLAGS = ["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fopenmp", f"-I{HEADERS}"]


def _cc() -> list[str]:
    return shlex.split(sysconfig.get_config_var("CC") or "cc")


def _compile(cc: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*cc, *FLAGS, *extra, str(KERNELS)], capture_output=True, text=True)


@pytest.mark.parametrize("extra", [[], ["-DMEANCLI_PORTABLE_ONLY"]], ids=["isa-paths", "portable-only"])
def test_builds_without_warnings(extra: list[str], tmp_path: Path) -> None:
    # a real compile (-fsyntax-only skips the checks of unused statics)
    proc = _compile(_cc(), "-c", "-o", str(tmp_path / "kernels.o"), *extra)
    assert proc.returncode == 0, proc.stderr


def test_aarch64_cross_build(tmp_path: Path) -> None:
    cross = shutil.which("aarch64-linux-gnu-gcc")
    if cross is None:
        pytest.skip("no aarch64-linux-gnu-gcc here (Debian: apt install gcc-aarch64-linux-gnu)")
    proc = _compile([cross], "-O2", "-c", "-o", str(tmp_path / "kernels.o"))
    assert proc.returncode == 0, proc.stderr
