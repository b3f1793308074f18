"""The Python API goes through the same engine planner as the command line: a
memory-mapped array the kernels cannot read in place (the other byte order) is
streamed from its file in slabs, not copied whole, and gives the same bits."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import meancli
from meancli.engine import plan, streamed
from meancli.io import thresholds


@pytest.fixture
def engines_used(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    used: list[str] = []
    real = plan.choose

    def spy(items: object, job: plan.Job) -> plan.Engine:
        engine = real(items, job)  # type: ignore[arg-type]
        used.append(engine.name)
        return engine

    monkeypatch.setattr(plan, "choose", spy)
    monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 1024)
    monkeypatch.setattr(streamed, "SLAB_BYTES", 512)
    return used


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("axes", [(0,), (1,), (0, 1), None])
def test_a_byte_swapped_memmap_streams_with_the_same_bits(
    tmp_path: Path, engines_used: list[str], order: str, axes: tuple[int, ...] | None
) -> None:
    rng = np.random.default_rng(7)
    x = np.asarray(rng.standard_normal((300, 7)) * 10.0 ** rng.integers(-20, 20, (300, 7)), order=order)
    x = x.astype(">f8")
    np.save(tmp_path / "x.npy", x)
    mapped = np.load(tmp_path / "x.npy", mmap_mode="r")
    got = meancli.reduce_mean(mapped, axes=axes, keepdims=False)
    assert engines_used == ["streamed"]
    expected = meancli.reduce_mean(np.array(x), axes=axes, keepdims=False)  # in memory
    assert engines_used == ["streamed", "memory"]
    assert got.tobytes() == expected.tobytes()
    # and the exact rational mean, rounded once, for one output
    column = x[:, 0] if axes == (0,) else (x[0, :] if axes == (1,) else x.ravel())
    exact = sum(Fraction(float(v)) for v in column) / len(column)
    assert got.ravel()[0] == np.float64(float(exact))


def test_out_receives_a_streamed_result(tmp_path: Path, engines_used: list[str]) -> None:
    x = np.arange(600, dtype=">f4").reshape(200, 3)
    np.save(tmp_path / "x.npy", x)
    out = np.empty(3, dtype=np.float32)
    got = meancli.reduce_mean(np.load(tmp_path / "x.npy", mmap_mode="r"), axes=0, keepdims=False, out=out)
    assert got is out and engines_used == ["streamed"]
    assert out.tolist() == [float(np.mean(np.arange(c, 600, 3, dtype=np.float64))) for c in range(3)]


def test_a_native_memmap_and_a_view_of_one_are_read_in_place(tmp_path: Path, engines_used: list[str]) -> None:
    np.save(tmp_path / "n.npy", np.ones((300, 4), dtype="<f8"))
    np.save(tmp_path / "s.npy", np.ones((300, 4), dtype=">f8"))
    meancli.reduce_mean(np.load(tmp_path / "n.npy", mmap_mode="r"))
    meancli.reduce_mean(np.load(tmp_path / "s.npy", mmap_mode="r")[::2])  # a view: its own offset is unknown
    assert engines_used == ["memory", "memory"]
