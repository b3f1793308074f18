"""What a one-file run no longer imports at start-up (docs/speed.md, "Start-up and quick runs").

tests/test_startup.py checks that a run loads only its own command and engine;
these pin the standard modules taken off every run's start-up since:

- ``hashlib`` (with OpenSSL's ``_hashlib``): the instruction-set cache's file name
  is keyed by zlib checksums (kernels/isa_choice.py);
- ``glob`` (with ``fnmatch``): imported only to expand a shard pattern (io/registry.py);
- ``subprocess`` (with ``locale`` and ``selectors``), ``bz2``, ``lzma`` and
  ``fnmatch``: typer imports them (the last three through shutil) for what a run
  never does; a stand-in takes each one's place while typer is imported
  (cli/deferred.py), and still gives typer the real module when it asks.
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
DEFERRED = ("hashlib", "_hashlib", "glob", "fnmatch", "subprocess", "locale", "selectors", "bz2", "lzma")


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


# After a one-file run: what typer's main module holds as ``subprocess``, used as
# typer.launch would use it, and whether it is then the module sys.modules holds.
TYPER_SUBPROCESS = """
import sys
from meancli.cli.entry import main

status = main(sys.argv[1:])
import typer.main
stand_in = typer.main.subprocess
before = "subprocess" in sys.modules
out = stand_in.run([sys.executable, "-c", "print(6 * 7)"], stdout=stand_in.PIPE, text=True).stdout
import subprocess
print(status, type(stand_in).__name__, before, out.strip(), stand_in.Popen is subprocess.Popen)
"""


def test_typer_gets_the_real_subprocess_when_it_uses_it(x: Path) -> None:
    argv = ["reduce-mean", str(x), "--axes", "0", "-o", "out.npy", "--quiet"]
    proc = subprocess.run(
        [sys.executable, "-c", TYPER_SUBPROCESS, *argv],
        capture_output=True,
        text=True,
        cwd=x.parent,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "OnFirstUse", "False", "42", "True"]


def test_a_module_imported_before_stays_itself() -> None:
    """In-process callers (this test runner imported subprocess) keep their modules."""
    from meancli.cli import deferred

    real = sys.modules["subprocess"]
    with deferred.stand_ins():
        assert sys.modules["subprocess"] is real
    assert sys.modules["subprocess"] is real


# A stand-in read while it is in place (an import that reads subprocess.X at once)
# imports the real module, which stays; one never read leaves no trace.
READ_INSIDE = """
import sys
from meancli.cli import deferred

with deferred.stand_ins(("colorsys", "_meancli_never_read")):
    import colorsys
    value = colorsys.rgb_to_hsv(1.0, 0.0, 0.0)
print(type(sys.modules["colorsys"]).__name__, "_meancli_never_read" in sys.modules, *value)
"""


def test_a_stand_in_read_while_in_place_imports_the_module() -> None:
    proc = subprocess.run([sys.executable, "-c", READ_INSIDE], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["module", "False", "0.0", "1.0", "1.0"]
