"""What a one-file run no longer imports at start-up (docs/speed.md, "Start-up and quick runs").

tests/test_startup.py checks that a run loads only its own command and engine;
these pin the standard modules taken off every run's start-up since:

- ``hashlib`` (with OpenSSL's ``_hashlib``): the instruction-set cache's file name
  is keyed by zlib checksums (kernels/isa_choice.py);
- ``glob``: imported only to expand a shard pattern (io/registry.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from oracles import exact_reduce_mean

# The console script's run (cli/entry.py main, argv from the command line), then
# its status and which of the given modules the run loaded (not the interpreter's
# start-up: an editable install's path finder loads fnmatch there).
PROBE = """
import sys
before = set(sys.modules)
from meancli.cli.entry import main

status = main()
print()
print(status, *sorted(m for m in sys.argv[1].split(",") if m in set(sys.modules) - before))
"""
DEFERRED = ("hashlib", "_hashlib", "glob")


def loaded(argv: list[str], cwd: Path, modules: tuple[str, ...] = DEFERRED) -> list[str]:
    """``[status, module, ...]``: a run's exit status and which of ``modules`` it loaded."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.replace("sys.argv[1]", repr(",".join(modules))), *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert proc.stderr == "", proc.stderr
    return proc.stdout.splitlines()[-1].split()


@pytest.fixture
def x(tmp_path: Path) -> Path:
    path = tmp_path / "x.npy"
    np.save(path, np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5))
    return path


@pytest.mark.parametrize("quiet", [["--quiet"], []], ids=["quiet", "report"])
def test_a_one_file_run_imports_none_of_the_deferred_modules(x: Path, quiet: list[str]) -> None:
    argv = ["reduce-mean", str(x), "--axes", "2", "3", "--keep-dims", "-o", "out.npy", *quiet]
    got = loaded(argv, x.parent, (*DEFERRED, "meancli.kernels"))
    assert got == ["0", "meancli.kernels"]  # the kernels ran, with their choice of instruction set
    expected = exact_reduce_mean(np.load(x), (2, 3), keepdims=True)
    np.testing.assert_array_equal(np.load(x.parent / "out.npy"), expected)


def test_a_shard_pattern_still_imports_glob(x: Path) -> None:
    np.save(x.parent / "y.npy", np.ones((1, 3, 4, 5), np.float32))
    got = loaded(["reduce-mean", str(x.parent / "[xy].npy"), "--axes", "0", "-o", "out.npy"], x.parent)
    assert got[0] == "0" and "glob" in got
    shards = np.concatenate([np.load(x), np.ones((1, 3, 4, 5), np.float32)])
    np.testing.assert_array_equal(
        np.load(x.parent / "out.npy"), exact_reduce_mean(shards, (0,), keepdims=True)
    )
