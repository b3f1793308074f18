"""``--workers N`` follows meancli's own signal disposition: what meancli ignores
(SIGINT in a background job of a script, ``meancli ... --workers 2 &``; SIGTERM
under ``nohup``-like parents) its LocalCluster's workers ignore too.

meancli runs in a process group of its own with the signals ignored (set before
exec, as a shell does); the test sends them to the whole group again and again
from start to end -- while the cluster starts and while it computes -- and the
run must still finish with the exact mean and status 0. The workers used to die
(distributed: "Nanny failed to start", or a 30 s stall and "the dask cluster has
had no worker"). The group is always killed at the end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from meancli import interrupts

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads process groups from /proc")

ROWS, COLS = 2000, 500


def group_members(pgid: int) -> list[str]:
    """The command lines of the live processes of process group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(cmdline)
    return found


@pytest.fixture
def store(tmp_path: Path) -> Path:
    zarr = pytest.importorskip("zarr")
    pytest.importorskip("distributed")
    path = tmp_path / "x.zarr"
    z = zarr.open_array(str(path), mode="w", shape=(ROWS, COLS), chunks=(50, COLS), dtype="float64")
    z[...] = np.arange(ROWS * COLS, dtype=np.float64).reshape(ROWS, COLS)
    return path


@pytest.mark.cluster  # starts a LocalCluster of 2 workers
@pytest.mark.parametrize(
    "ignored",
    [(signal.SIGINT,), (signal.SIGINT, signal.SIGTERM)],
    ids=["SIGINT", "SIGINT+SIGTERM"],
)
def test_workers_ignore_what_meancli_ignores(tmp_path: Path, store: Path, ignored: tuple[int, ...]) -> None:
    def background_job() -> None:  # what a non-interactive shell does for `cmd &`
        for signum in ignored:
            signal.signal(signum, signal.SIG_IGN)
        os.setpgid(0, 0)

    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "meancli", "reduce-mean", str(store), "--workers", "2", "-o", "out.npy", "-q"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=background_job,  # (as a shell does before exec)
    )
    sent_to_workers = 0
    try:
        deadline = time.monotonic() + 240
        k = 0
        while proc.poll() is None and time.monotonic() < deadline:
            workers = [c for c in group_members(proc.pid) if "spawn_main" in c]
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, ignored[k % len(ignored)])
            k += 1
            sent_to_workers += len(workers) >= 2
            time.sleep(0.25)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert sent_to_workers > 0  # the signals reached running workers, not only their start
    assert (proc.returncode, stdout, stderr.decode()) == (0, b"", "")
    got = np.load(tmp_path / "out.npy")
    assert got.shape == (1, 1)
    assert got[0, 0] == (ROWS * COLS - 1) / 2  # the mean of 0 .. n-1, exact in float64


def test_ignored_interrupts_are_named_and_set_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the cluster passes to its workers (interrupts.IGNORED_ENV) and what the
    worker_quiet preload does with it."""
    saved = {s: signal.getsignal(s) for s in interrupts.INTERRUPTS}
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        assert interrupts.ignored_interrupts() == ["SIGINT"]
        with interrupts.interrupts_deferred():  # an ignored signal stays ignored in the block
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) != signal.SIG_DFL
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
        signal.signal(signal.SIGINT, signal.default_int_handler)
        interrupts.ignore_interrupts("SIGTERM, SIGINT,SIGKILL,nonsense,")
        assert interrupts.ignored_interrupts() == ["SIGINT", "SIGTERM"]
        from meancli.engine.dask import worker_quiet

        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        monkeypatch.setattr(sys, "stderr", sys.stderr)  # the preload replaces it
        monkeypatch.setenv(interrupts.IGNORED_ENV, "SIGTERM")
        worker_quiet.dask_setup(None)
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) == signal.default_int_handler
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
