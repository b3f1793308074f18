"""tests/conftest.py's ``run_cli``: in process it gives what a real ``python -m
meancli`` process gives (exit status, stdout bytes, stderr), and leaves the test
process as it found it."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli

X = np.arange(12, dtype=np.float32).reshape(3, 4)

CALLS = {
    "json": (["reduce-mean", "x.npy", "--axes", "1", "--json"], None),
    "to-file": (["reduce-mean", "x.npy", "--axes", "0", "-o", "out.npy", "--quiet"], None),
    "stdin-to-stdout": (["reduce-mean", "-", "--axes", "1", "-o", "-", "--quiet"], "x"),
    "mean-report": (["mean", "x.npy", "x.npy"], None),
    "missing-file": (["reduce-mean", "missing.npy"], None),
    "bad-axis": (["reduce-mean", "x.npy", "--axes", "5"], None),
    "usage": (["reduce-mean", "x.npy", "--no-such-option"], None),
    "not-npy-on-stdin": (["reduce-mean", "-"], "text"),
    "version": (["--version"], None),
}


def _prepare(d: Path) -> bytes:
    np.save(d / "x.npy", X)
    return (d / "x.npy").read_bytes()


@pytest.mark.parametrize("name", CALLS)
def test_in_process_is_the_real_process(name: str, tmp_path: Path) -> None:
    args, stdin = CALLS[name]
    results = []
    for real in (False, True):
        d = tmp_path / ("real" if real else "in-process")
        d.mkdir()
        npy = _prepare(d)
        data = {"x": npy, "text": b"not an array\n", None: None}[stdin]
        r = run_cli(*args, stdin=data, cwd=d, subprocess=real)
        files = sorted(p.name for p in d.iterdir())
        out = np.load(d / "out.npy").tobytes() if "out.npy" in files else b""
        # the timings in reports differ from run to run
        stdout = r.stdout_bytes if "--json" not in args and "-o" in args else b""
        results.append((r.exit_code, stdout, r.stderr if r.exit_code else "", files, out))
    assert results[0] == results[1]
    assert results[0][0] in (0, 1, 2)


def test_the_test_process_is_left_as_it_was(tmp_path: Path) -> None:
    _prepare(tmp_path)
    cwd, env = os.getcwd(), dict(os.environ)
    handlers = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
    streams = (sys.stdin, sys.stdout, sys.stderr)
    fds = [os.fstat(fd).st_ino for fd in (0, 1, 2)]
    r = run_cli("reduce-mean", "x.npy", "--json", cwd=tmp_path, env={"MEANCLI_TEST_VARIABLE": "1"})
    assert r.exit_code == 0 and r.stdout.startswith("{")
    assert os.getcwd() == cwd and dict(os.environ) == env
    assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)] == handlers
    assert (sys.stdin, sys.stdout, sys.stderr) == streams
    assert [os.fstat(fd).st_ino for fd in (0, 1, 2)] == fds
