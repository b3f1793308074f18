"""Inputs hold no file descriptor each: ``meancli mean`` of more inputs than the limit of
open files (``ulimit -n``) works, and where the limit is still met the message says so.

The command runs in a subprocess whose soft RLIMIT_NOFILE is 64 (the usual 1024
scaled down), with 200 inputs. Results are checked bit for bit against the exact
mean rounded once (oracles.exact_mean, exact fractions).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from oracles import exact_mean

from meancli.errors import InputFileError

pytestmark = pytest.mark.skipif(os.name != "posix", reason="RLIMIT_NOFILE is POSIX")

N_INPUTS = 200
LIMIT = 64
# meancli's entry point, run under a soft limit of LIMIT open files
UNDER_LIMIT = f"""
import resource, sys
from meancli.cli.entry import main

resource.setrlimit(resource.RLIMIT_NOFILE, ({LIMIT}, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
sys.exit(main(sys.argv[1:]))
"""


def run_limited(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", **env}
    return subprocess.run(
        [sys.executable, "-c", UNDER_LIMIT, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env=environ,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def inputs(tmp_path: Path) -> list[np.ndarray]:
    """in000.npy ... in199.npy: float32 (3, 7) of mixed magnitudes (inexact means)."""
    rng = np.random.default_rng(1015)
    arrays = []
    for i in range(N_INPUTS):
        x = (rng.standard_normal((3, 7)) * 10.0 ** rng.integers(-3, 4, (3, 7))).astype(np.float32)
        np.save(tmp_path / f"in{i:03d}.npy", x)
        arrays.append(x)
    return arrays


NAMES = [f"in{i:03d}.npy" for i in range(N_INPUTS)]


@pytest.mark.parametrize("streamed", [False, True], ids=["mapped", "streamed"])
def test_mean_of_more_inputs_than_the_limit_of_open_files(
    tmp_path: Path, inputs: list[np.ndarray], streamed: bool
) -> None:
    """200 inputs under a limit of 64: memory-mapped inputs close their descriptor once
    mapped; streamed ones (MEANCLI_STREAM_MIN_BYTES=1) keep at most a quarter of the
    limit open and open the others again when read. Used to fail with
    ``cannot write out.npy: Too many open files`` (or at the 60th input)."""
    env = {"MEANCLI_STREAM_MIN_BYTES": "1"} if streamed else {}
    ran = run_limited(["mean", *NAMES, "-o", "out.npy", "-q"], tmp_path, **env)
    assert (ran.returncode, ran.stderr) == (0, "")
    got = np.load(tmp_path / "out.npy")
    want = exact_mean(inputs)
    assert got.dtype == want.dtype == np.float32
    assert got.tobytes() == want.tobytes()


def test_the_limit_met_anyway_is_named_with_ulimit(tmp_path: Path, inputs: list[np.ndarray]) -> None:
    """Streamed .npz members each hold their archive open: 200 of them still meet the
    limit, and the one error line says the inputs used it up and how to raise it."""
    for i, x in enumerate(inputs):
        np.savez(tmp_path / f"z{i:03d}.npz", x=x)
    members = [f"z{i:03d}.npz:x" for i in range(N_INPUTS)]
    ran = run_limited(["mean", *members, "-o", "out.npy"], tmp_path, MEANCLI_STREAM_MIN_BYTES="1")
    assert ran.returncode == 1
    assert ran.stdout == ""
    (line,) = ran.stderr.splitlines()
    assert line.startswith("error: z0")
    assert f"Too many open files: the inputs used up this process's limit of open files ({LIMIT})" in line
    assert "`ulimit -n`" in line
    assert not (tmp_path / "out.npy").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts /proc/self/fd")
def test_a_memory_mapped_input_holds_no_descriptor(tmp_path: Path, inputs: list[np.ndarray]) -> None:
    from meancli.io.npy_read import read_npy

    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = open_fds()
    held = [read_npy(str(tmp_path / name)) for name in NAMES]
    assert open_fds() == before
    for (array, _), x in zip(held, inputs, strict=True):
        assert not array.flags.writeable  # a read-only map of the file
        assert array.base is not None  # not a copy in memory
        np.testing.assert_array_equal(array, x)
    views = [array[1:] for array, _ in held]
    del held
    for view, x in zip(views, inputs, strict=True):  # a view keeps its mapping
        np.testing.assert_array_equal(view, x[1:])


def test_a_streamed_file_replaced_between_reads_is_refused(
    tmp_path: Path, inputs: list[np.ndarray], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A streamed file whose descriptor the budget closed is opened again by name: a
    file replaced meanwhile is an error, not other data read silently."""
    from meancli.io import source as streaming
    from meancli.io import thresholds

    monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 1)
    monkeypatch.setattr(streaming, "_open_budget", lambda: 2)
    sources = [streaming.file_source(str(tmp_path / name)) for name in NAMES[:5]]
    try:
        assert all(s is not None for s in sources)
        assert [s.fp.closed for s in sources] == [True, True, True, False, False]  # type: ignore[union-attr]
        for s, x in zip(sources, inputs, strict=False):
            assert s is not None
            np.testing.assert_array_equal(s.read_all(), x)
        np.save(tmp_path / "new.npy", inputs[0] + 1)
        os.replace(tmp_path / "new.npy", tmp_path / NAMES[0])
        first = sources[0]
        assert first is not None and first.fp.closed
        with pytest.raises(InputFileError, match=r"in000\.npy: the file was replaced"):
            first.read_all()
    finally:
        for s in sources:
            if s is not None:
                s.close()
    assert streaming._OPEN == {}
