"""Reading a chunked input is linear in its number of chunks, for every store kind and fill value.

Not timed (the machine is shared and noisy): the work that grew with the
number of chunks per chunk is counted instead. A zip store's list of names
is read whole each time the zip is opened, so the zip must be opened a fixed
number of times, not once per chunk; locating a chunk in the grid must not
walk the grid.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
da = pytest.importorskip("dask.array")

from meancli.cli.entry import main  # noqa: E402
from meancli.io.chunked import ChunkedArray  # noqa: E402
from meancli.io.registry import open_input  # noqa: E402


def open_chunked(arg: str) -> list[Any]:
    """The chunked arrays (zarr arrays, shard datasets) the input registry opens for ``arg``."""
    return [named.data for named in open_input(arg)]


def values(chunks: int) -> np.ndarray:
    """Integers as float64: numpy's sum is exact and its mean rounded once, as meancli's."""
    return (np.arange(chunks * 3, dtype=np.float64) * 7.0 - 500.0).reshape(chunks, 3)


def write_store(tmp_path: Path, kind: str, fill: str, chunks: int) -> str:
    """A format 2 array of ``chunks`` chunks of (1, 3): a directory or a zip store."""
    x = values(chunks)
    path = str(tmp_path / f"s{chunks}_{fill}.zarr{'.zip' if kind == 'zip' else ''}")
    store: Any = zarr.storage.ZipStore(path, mode="w") if kind == "zip" else path
    array = zarr.create_array(
        store=store,
        shape=x.shape,
        chunks=(1, 3),
        dtype=x.dtype,
        zarr_format=2,
        fill_value=None if fill == "null" else 0.0,
    )
    array[...] = x
    if kind == "zip":
        store.close()
    return path


@pytest.fixture
def zip_opens(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every reading of a zip file's list of names (each ZipFile opened for reading)."""
    opened: list[str] = []
    real = zipfile.ZipFile._RealGetContents

    def counting(self: zipfile.ZipFile) -> None:
        opened.append(str(self.filename))
        real(self)

    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", counting)
    return opened


@pytest.mark.slow  # stores of 300 chunks: ~2 s each
@pytest.mark.parametrize("fill", ["null", "zero"])
def test_a_zip_store_is_opened_a_fixed_number_of_times(
    fill: str, tmp_path: Path, zip_opens: list[str]
) -> None:
    counts = []
    for chunks in (4, 300):
        path = write_store(tmp_path, "zip", fill, chunks)
        zip_opens.clear()
        out = tmp_path / f"r{chunks}.npy"
        assert main(["reduce-mean", path, "--axes", "0", "-o", str(out), "-q"]) == 0
        np.testing.assert_array_equal(np.load(out), np.mean(values(chunks), axis=0, keepdims=True))
        counts.append(len(zip_opens))
    assert counts[0] == counts[1], counts  # not one more opening per chunk
    assert counts[1] <= 6, counts


@pytest.mark.slow  # stores of 300 chunks: ~2 s each
@pytest.mark.parametrize("kind", ["dir", "zip"])
@pytest.mark.parametrize("fill", ["null", "zero"])
def test_every_chunk_read_once_and_right(kind: str, fill: str, tmp_path: Path, zip_opens: list[str]) -> None:
    """In this process (dask's synchronous scheduler) and whole (read_all): numpy's values."""
    path = write_store(tmp_path, kind, fill, 300)
    (array,) = open_chunked(path)
    zip_opens.clear()
    np.testing.assert_array_equal(array.read_all(), values(300))
    lazy = da.from_array(array, chunks=array.chunks, asarray=False, fancy=False)
    np.testing.assert_array_equal(lazy.compute(scheduler="synchronous"), values(300))
    assert len(zip_opens) <= 1  # the store's names, listed once for the fill_value null check


class CountingSizes(tuple):  # type: ignore[type-arg]
    """A dimension's chunk sizes that count every size read."""

    reads = 0

    def __iter__(self) -> Any:
        for n in tuple.__iter__(self):
            CountingSizes.reads += 1
            yield n

    def __getitem__(self, key: Any) -> Any:
        got = tuple.__getitem__(self, key)
        CountingSizes.reads += len(got) if isinstance(key, slice) else 1
        return got


class Ramp(ChunkedArray):
    """0, 1, 2, ... in chunks of 2 along axis 0 (and one chunk of 3 along axis 1)."""

    def __init__(self, chunks: int) -> None:
        self.name = "ramp"
        self.shape = (2 * chunks, 3)
        self.dtype = np.dtype(np.float64)
        self.chunks = (CountingSizes((2,) * chunks), CountingSizes((3,)))

    def read_chunk(self, index: tuple[int, ...]) -> np.ndarray:
        start = 2 * index[0]
        return np.arange(start * 3, (start + 2) * 3, dtype=np.float64).reshape(2, 3)


def test_locating_a_chunk_does_not_walk_the_grid() -> None:
    """Every ChunkedArray (zarr arrays, shard datasets): the grid is read O(chunks) times in all."""
    chunks = 3000
    ramp = Ramp(chunks)
    truth = np.arange(2 * chunks * 3, dtype=np.float64).reshape(2 * chunks, 3)
    CountingSizes.reads = 0
    lazy = da.from_array(ramp, chunks=tuple(tuple(c) for c in ramp.chunks), asarray=False, fancy=False)
    np.testing.assert_array_equal(lazy.compute(scheduler="synchronous"), truth)
    np.testing.assert_array_equal(ramp.read_all(), truth)
    assert CountingSizes.reads <= 10 * chunks, CountingSizes.reads
