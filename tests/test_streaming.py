"""Inputs larger than memory and pipelines: slabs, stdin, stdout, peak memory.

Streaming is forced on small files with MEANCLI_STREAM_MIN_BYTES=1 and cut
into many slabs with a small MEANCLI_SLAB_BYTES; every streamed result must
be bit-identical to the in-memory (memory-mapped) result.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from conftest import run_cli

MEANCLI = [sys.executable, "-m", "meancli"]
IN_MEMORY = {"MEANCLI_STREAM_MIN_BYTES": str(1 << 60)}


def streamed(slab_bytes: int) -> dict[str, str]:
    return {"MEANCLI_STREAM_MIN_BYTES": "1", "MEANCLI_SLAB_BYTES": str(slab_bytes)}


def run(args: list[str], env: dict[str, str], cwd: Path, stdin: bytes | None = None) -> bytes:
    """stdout of ``meancli ARGS`` in process (conftest.run_cli) with ``env``'s settings."""
    proc = run_cli(*args, env=env, cwd=cwd, stdin=stdin)
    assert proc.exit_code == 0, proc.stderr
    return proc.stdout_bytes


CASES = [
    ((300, 257), "C"),
    ((7, 50, 33), "C"),
    ((7, 50, 33), "F"),
    ((4000,), "C"),
    ((3, 1, 2000), "C"),
]


def _streamed_reduce(
    path: Path, axes: tuple[int, ...], slab_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> bytes:
    """ReduceMean of a .npy through the streaming path, in process."""
    from meancli.dtypes import spec_name
    from meancli.engine import streamed
    from meancli.io import source as io_source
    from meancli.io import thresholds
    from meancli.io.registry import Opening, open_input
    from meancli.ops.opset import resolve
    from meancli.ops.validate import validate_reduce

    monkeypatch.setattr(streamed, "SLAB_BYTES", slab_bytes)
    monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 1)
    ((_, source, _),) = open_input(str(path), Opening(stream=True))
    assert isinstance(source, io_source.Source)
    op = resolve("ReduceMean")
    call = validate_reduce(op, source.dtype, source.shape, axes)
    kept = tuple(n for n, m in zip(source.shape, call.reduce_mask, strict=True) if not m)
    out = np.empty(kept, dtype=source.dtype.newbyteorder("="))
    try:
        assert streamed.reduce_slabs(spec_name(source.dtype), source, call.reduce_mask, out, 2)
    finally:
        source.finish()
    return out.tobytes()


@pytest.mark.parametrize(("shape", "order"), CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", ">f4"])
def test_reduce_streamed_is_bit_identical(
    tmp_path: Path, shape: tuple[int, ...], order: str, dtype: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import meancli

    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape) * 100
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x = np.asarray(x.astype(np_dtype), order=order)
    np.save(tmp_path / "x.npy", x)
    rank = len(shape)
    d0 = next(d for d in (range(rank) if order == "C" else reversed(range(rank))) if shape[d] > 1)
    row_bytes = x.nbytes // shape[d0]
    for k in range(1, rank + 1):
        for axes in itertools.combinations(range(rank), k):
            want = meancli.reduce_mean(x, axes=axes, keepdims=False).tobytes()
            for slab in (row_bytes, 3 * row_bytes + 5, 1 << 20):
                got = _streamed_reduce(tmp_path / "x.npy", axes, slab, monkeypatch)
                assert got == want, (axes, slab)


def test_long_row_reduction_streamed_in_slabs_that_cut_its_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """140000 rows are reduced in chunks of 2048 rows (longer than the 1024 of
    shorter reductions); slabs of 1000 rows and of 64 KiB end inside chunks,
    which the next slab continues: the same bits as in memory."""
    import meancli

    rng = np.random.default_rng(140_000)
    x = (rng.standard_normal((140_000, 5)) * 2.0 ** rng.integers(-30, 30, (140_000, 5))).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    want = meancli.reduce_mean(x, axes=[0], keepdims=False).tobytes()
    for slab in (1000 * x.shape[1] * 4, 1 << 16):
        assert _streamed_reduce(tmp_path / "x.npy", (0,), slab, monkeypatch) == want, slab


DEGENERATE = [(), (1,), (1, 1), (1, 1, 1), (0,), (3, 0), (0, 3), (1, 0), (0, 1, 4)]


@pytest.mark.parametrize("shape", DEGENERATE)
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int64", ">f8"])
def test_degenerate_input_streamed(tmp_path: Path, shape: tuple[int, ...], dtype: str) -> None:
    """One element (one row of no dimension above 1) and no element at all,
    streamed in tiny slabs: the same bytes as in memory."""
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x = (np.arange(int(np.prod(shape))).reshape(shape) * 1.5 + 2.25).astype(np_dtype)
    np.save(tmp_path / "x.npy", x)
    rank = len(shape)
    axes_choices = [[]] + [
        [str(a) for a in c] for k in range(1, rank + 1) for c in itertools.combinations(range(rank), k)
    ]
    for axes in axes_choices:
        if dtype == "int64" and 0 in shape and (not axes or any(shape[int(a)] == 0 for a in axes)):
            continue  # the integer mean of no element is an error, tested elsewhere
        args = ["reduce-mean", "x.npy", "-o", "-", "-q"] + (["--axes", *axes] if axes else [])
        want = run(args, IN_MEMORY, tmp_path)
        for slab in ("1", "7"):
            env = {"MEANCLI_STREAM_MIN_BYTES": "0", "MEANCLI_SLAB_BYTES": slab}
            assert run(args, env, tmp_path) == want, (axes, slab)


def test_reduce_streamed_through_the_cli(tmp_path: Path) -> None:
    x = np.random.default_rng(5).standard_normal((300, 257)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    for axes in (["0"], ["1"], ["0", "1"]):
        args = ["reduce-mean", "x.npy", "--axes", *axes, "-o", "-", "-q"]
        assert run(args, streamed(1000), tmp_path) == run(args, IN_MEMORY, tmp_path)


def test_stdin_in_small_pieces(tmp_path: Path) -> None:
    """A .npy arriving on stdin a few bytes at a time, through a real pipe."""
    x = np.random.default_rng(3).standard_normal((64, 129)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    feeder = (
        "import sys, time\n"
        "data = open(sys.argv[1], 'rb').read()\n"
        "for i in range(0, len(data), 997):\n"
        "    sys.stdout.buffer.write(data[i:i + 997]); sys.stdout.buffer.flush()\n"
    )
    producer = subprocess.Popen(
        [sys.executable, "-c", feeder, str(tmp_path / "x.npy")], stdout=subprocess.PIPE
    )
    consumer = subprocess.run(
        [*MEANCLI, "reduce-mean", "-", "--axes", "0", "-o", "out.npy", "-q"],
        stdin=producer.stdout,
        cwd=tmp_path,
        env={**os.environ, **streamed(4096)},
        capture_output=True,
    )
    assert producer.stdout is not None
    producer.stdout.close()
    producer.wait()
    assert consumer.returncode == 0, consumer.stderr
    got = np.load(tmp_path / "out.npy")
    want = x.astype(np.float64).mean(axis=0, keepdims=True).astype(np.float32)
    np.testing.assert_array_equal(got, want)


def test_pipeline_of_two_commands(tmp_path: Path) -> None:
    """meancli reduce-mean - --axes 0 -o - < x.npy | meancli mean - other.npy -o out.npy"""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((10, 6, 5)).astype(np.float32)
    other = rng.standard_normal((6, 5)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "other.npy", other)
    py = sys.executable
    cmd = f"{py} -m meancli reduce-mean - --axes 0 -o - < x.npy | {py} -m meancli mean - other.npy -o out.npy"
    proc = subprocess.run(cmd, shell=True, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    reduced = x.astype(np.float64).mean(axis=0, keepdims=True).astype(np.float32)
    want = ((reduced.astype(np.float64) + other) / 2).astype(np.float32)
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), want)
    # the first command's report went to stderr, not into the pipe
    assert "ReduceMean-18" in proc.stderr


def test_no_progress_bar_in_pipes(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.ones((100, 10), np.float32))
    proc = subprocess.run(
        [*MEANCLI, "reduce-mean", "x.npy", "--axes", "0", "-o", "o.npy"],
        cwd=tmp_path,
        env={**os.environ, **streamed(400)},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    assert "━" not in proc.stderr and "%" not in proc.stderr


def _peak_rss_mib(args: list[str], cwd: Path) -> float:
    """Peak resident set of one child process, in MiB (ru_maxrss is in KiB on Linux)."""
    script = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, *MEANCLI, *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return int(proc.stdout.strip().splitlines()[-1]) / 1024


@pytest.mark.slow
def test_peak_memory_on_a_512_mib_file(tmp_path: Path) -> None:
    """Peak RSS stays under 256 MiB plus the output's size, whatever the input size."""
    path = tmp_path / "big.npy"
    shape = (128, 1024, 1024)  # 512 MiB of float32
    header = np.lib.format.header_data_from_array_1_0(np.empty((0,), np.float32))
    header["shape"] = shape
    with open(path, "wb") as fp:
        np.lib.format.write_array_header_1_0(fp, header)
        row = np.arange(1024 * 1024, dtype=np.float32)
        for _ in range(shape[0]):
            fp.write(row.tobytes())
    assert path.stat().st_size > 512 << 20
    for axes, out_mib in ((["0"], 4), (["1", "2"], 0), (["2"], 0.5)):
        peak = _peak_rss_mib(["reduce-mean", "big.npy", "--axes", *axes, "-o", "out.npy", "-q"], tmp_path)
        assert peak < 256 + out_mib, (axes, peak)
        got = np.load(tmp_path / "out.npy")
        if axes == ["0"]:
            np.testing.assert_array_equal(got.ravel(), row)
    # mean's 512 MiB output is written block by block as it is produced, never held whole
    peak = _peak_rss_mib(["mean", "big.npy", "big.npy", "-o", "mean.npy", "-q"], tmp_path)
    assert peak < 256, peak
    got = np.load(tmp_path / "mean.npy", mmap_mode="r")
    assert got.shape == shape
    np.testing.assert_array_equal(got[-1, -1], row[-1024:])
