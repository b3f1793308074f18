"""--compare on a streamed Mean written to a .npy: each block of the result is compared
as it is written (engine.compare.Tally fed by engine.streamed), and the whole result is
never held in memory. The output must be the exact oracle's bits and the comparison the
one a single pass over the whole result gives, with the worst element and the first NaN
mismatch found in later blocks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from meancli.engine import streamed
from meancli.engine.compare import Tally, compare
from meancli.errors import InternalError
from meancli.io import thresholds
from tests.conftest import run_cli
from tests.oracles import exact_mean, same_bits

BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.fixture
def streamed_in_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every input streamed, in blocks of about 2 KiB; holding the result whole fails.
    Returns the block starts the comparison was fed."""
    monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 1)
    monkeypatch.setattr(streamed, "SLAB_BYTES", 2048)

    def refuse(*args: Any) -> None:
        raise AssertionError("the streamed Mean held its whole result")

    monkeypatch.setattr(streamed, "allocate", refuse)
    starts: list[int] = []
    add = Tally.add

    def spy(self: Tally, block: np.ndarray, start: int) -> None:
        starts.append(start)
        add(self, block, start)

    monkeypatch.setattr(Tally, "add", spy)
    return starts


def up(x: np.ndarray, at: list[int], k: int) -> np.ndarray:
    """``x`` with the flat elements ``at`` moved ``k`` representable values up (positive values)."""
    y = x.copy().reshape(-1)
    bits = y.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[y.dtype.itemsize])
    for i in at:
        assert 0 < float(y[i]) < float("inf")
        bits[i] += k
    return y.reshape(x.shape)


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), BF16, np.dtype(np.float64)], ids=str)
def test_streamed_mean_compared_block_by_block(
    dtype: np.dtype[Any], streamed_in_blocks: list[int], tmp_path: Path
) -> None:
    rng = np.random.default_rng(8)
    xs = [rng.uniform(1, 4, (12, 50, 9)).astype(dtype), rng.uniform(1, 4, (50, 1)).astype(dtype)]
    want = exact_mean(xs)
    n = want.size
    got = up(up(want, [n - 7, 901], 3), [0, 2, n // 2], 1)  # the first 3-ulp element is in a later block
    for i, x in enumerate(xs):
        np.save(tmp_path / f"x{i}.npy", x)
    np.save(tmp_path / "got.npy", got)
    run = run_cli("mean", "x0.npy", "x1.npy", "--compare", "got.npy", "-o", "y.npy", "--json", cwd=tmp_path)
    assert run.exit_code == 4, run.stderr
    report = json.loads(run.stdout)
    assert report["engine"]["name"] == "streamed" and "compare" in report["timings_ms"]
    assert same_bits(np.load(tmp_path / "y.npy").view(want.dtype), want)
    assert len(streamed_in_blocks) > 5 and streamed_in_blocks == sorted(streamed_in_blocks)
    (c,) = report["comparisons"]
    one_pass = compare(want, got, "got.npy")
    assert (
        c["histogram"]
        == one_pass.histogram
        == {"0": n - 5, "1": 3, "2-4": 2, "5-16": 0, ">16": 0, "nan_mismatch": 0}
    )
    assert c["worst"]["index"] == list(np.unravel_index(901, want.shape)) and c["worst"]["ulp"] == 3
    assert c["worst"]["expected"] == float(want.reshape(-1)[901].astype(np.float64))
    assert c["worst"]["got"] == float(got.reshape(-1)[901].astype(np.float64))
    assert (c["max_abs"], c["max_rel"], c["mean_ulp"]) == (
        one_pass.max_abs,
        one_pass.max_rel,
        one_pass.mean_ulp,
    )
    # a NaN mismatch in a later block is the worst; the same file compared again, identical
    got.reshape(-1)[n - 3] = np.nan
    np.save(tmp_path / "got.npy", got)
    run = run_cli("mean", "x0.npy", "x1.npy", "--compare", "got.npy", "-o", "y.npy", "--json", cwd=tmp_path)
    (c,) = json.loads(run.stdout)["comparisons"]
    assert c["worst"]["index"] == list(np.unravel_index(n - 3, want.shape)) and c["worst"]["ulp"] is None
    np.save(tmp_path / "same.npy", want)
    run = run_cli("mean", "x0.npy", "x1.npy", "--compare", "same.npy", "-o", "y.npy", "--json", cwd=tmp_path)
    (c,) = json.loads(run.stdout)["comparisons"]
    assert run.exit_code == 0 and c["inexact"] == 0 and c["worst"]["index"] == [0, 0, 0]
    assert c["worst"]["expected"] == float(want.reshape(-1)[0].astype(np.float64))


def test_signed_zeros_of_an_exact_result_keep_their_signs(
    streamed_in_blocks: list[int], tmp_path: Path
) -> None:
    """-0.0 against +0.0 is 0 ulp apart: the report still shows each side's own zero."""
    x = np.full((3, 40), -0.0, np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "got.npy", np.zeros((3, 40), np.float32))
    run = run_cli("mean", "x.npy", "x.npy", "--compare", "got.npy", "-o", "y.npy", "--json", cwd=tmp_path)
    (c,) = json.loads(run.stdout)["comparisons"]
    assert run.exit_code == 0 and c["inexact"] == 0
    assert str(c["worst"]["expected"]) == "-0.0" and str(c["worst"]["got"]) == "0.0"


def test_finishing_without_the_result_needs_every_block() -> None:
    got = np.arange(10, dtype=np.float32)
    tally = Tally((10,), got.dtype, got, "got")
    tally.add(got[:4].copy(), 0)
    with pytest.raises(InternalError, match="6 elements were never compared"):
        tally.finish(None)


@pytest.mark.parametrize("engine", ["memory", "streamed", "dask"])
def test_every_engine_gives_the_same_comparison(
    engine: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """--compare with -o on each engine: the result written, the same comparison."""
    rng = np.random.default_rng(9)
    xs = [rng.uniform(1, 4, (20, 30)).astype(np.float32) for _ in range(3)]
    want = exact_mean(xs)
    got = up(want, [7, 451], 2)
    files = []
    for i, x in enumerate(xs):
        if engine == "dask" and i == 0:
            zarr = pytest.importorskip("zarr")
            store = zarr.create_array(str(tmp_path / "x0.zarr"), shape=x.shape, chunks=(7, 11), dtype=x.dtype)
            store[...] = x
            files.append("x0.zarr")
        else:
            np.save(tmp_path / f"x{i}.npy", x)
            files.append(f"x{i}.npy")
    np.save(tmp_path / "got.npy", got)
    if engine == "streamed":
        monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 1)
        monkeypatch.setattr(streamed, "SLAB_BYTES", 512)
    run = run_cli("mean", *files, "--compare", "got.npy", "-o", "y.npy", "--json", cwd=tmp_path)
    assert run.exit_code == 4, run.stderr
    report = json.loads(run.stdout)
    assert report["engine"]["name"] == engine
    assert same_bits(np.load(tmp_path / "y.npy"), want)
    (c,) = report["comparisons"]
    assert (c["max_ulp"], c["inexact"], c["worst"]["index"]) == (2, 2, [0, 7])
