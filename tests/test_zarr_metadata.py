"""One zarr array gives one answer however it is named: its own metadata is the truth.

A group's consolidated metadata (format 2 ``.zmetadata``, format 3
``consolidated_metadata`` in its ``zarr.json``) is a copy written once; after
the array is resized and rewritten without consolidating again, it still says
the old shape. Every reader (a bare group, ``STORE:PATH``, ``mean``,
``reduce-mean``, ``open_lazy``, a worker opening the array again) must read
the array's own metadata, and agree with numpy on the real values.
"""

from __future__ import annotations

import pickle
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
pytest.importorskip("dask.array")

import meancli  # noqa: E402
from meancli.cli.entry import main  # noqa: E402
from meancli.io.registry import open_input  # noqa: E402

VALUES = np.array([1.0, 2.0, 3.0, 40.0, 50.0, 60.0])


def open_chunked(arg: str) -> list[Any]:
    """The chunked arrays (zarr arrays, shard datasets) the input registry opens for ``arg``."""
    return [named.data for named in open_input(arg)]


def stale_store(tmp_path: Path, zarr_format: int) -> str:
    """A group holding one array ``x``: 3 values, consolidated, then resized to 6 and
    rewritten without consolidating again (the consolidated copy says shape (3,))."""
    path = str(tmp_path / f"stale{zarr_format}.zarr")
    group = zarr.open_group(path, mode="w", zarr_format=zarr_format)
    x = group.create_array("x", shape=(3,), chunks=(2,), dtype="f8")
    x[:] = VALUES[:3]
    with warnings.catch_warnings():  # format 3 consolidated metadata warns it is not in the spec
        warnings.simplefilter("ignore")
        zarr.consolidate_metadata(path)
        assert zarr.open_group(path, mode="r")["x"].shape == (3,)  # the stale copy zarr would read
    x = zarr.open_array(path, path="x", mode="r+")
    x.resize((6,))
    x[:] = VALUES
    return path


@pytest.fixture(params=[2, 3], ids=["format2", "format3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return stale_store(tmp_path, request.param)


@pytest.mark.parametrize("named", ["group", "path"])
def test_reduce_mean_reads_the_arrays_own_metadata(store: str, named: str, tmp_path: Path) -> None:
    arg = store if named == "group" else f"{store}:x"
    out = tmp_path / "r.npy"
    assert main(["reduce-mean", arg, "-o", str(out), "-q"]) == 0
    result = np.load(out)
    assert result.shape == (1,)
    assert result[0] == np.mean(VALUES)


@pytest.mark.parametrize("named", ["group", "path"])
def test_mean_reads_the_arrays_own_metadata(store: str, named: str, tmp_path: Path) -> None:
    arg = store if named == "group" else f"{store}:x"
    out = tmp_path / "m.npy"
    assert main(["mean", arg, "-o", str(out), "-q"]) == 0
    np.testing.assert_array_equal(np.load(out), VALUES)
    # The two namings together: one array, so the Mean is the array itself.
    assert main(["mean", store, f"{store}:x", "-o", str(out), "-q"]) == 0
    np.testing.assert_array_equal(np.load(out), VALUES)


@pytest.mark.parametrize("named", ["group", "path"])
def test_open_lazy_reads_the_arrays_own_metadata(store: str, named: str) -> None:
    arg = store if named == "group" else f"{store}:x"
    lazy = meancli.open_lazy(arg)
    assert lazy.shape == (6,)
    np.testing.assert_array_equal(lazy.compute(scheduler="synchronous"), VALUES)
    assert meancli.reduce_mean(lazy, axes=[0], keepdims=False).compute(scheduler="synchronous") == np.mean(
        VALUES
    )


def test_a_worker_opens_the_arrays_own_metadata(store: str) -> None:
    """What a dask worker receives: the array pickled without zarr's object, opened again there."""
    (array,) = open_chunked(store)
    shipped = pickle.loads(pickle.dumps(array))
    assert shipped._array is None  # the worker opens the store itself
    assert shipped.shape == (6,)
    np.testing.assert_array_equal(shipped.read_all(), VALUES)
    np.testing.assert_array_equal(shipped[(slice(4, 6),)], VALUES[4:])


def test_group_listing_ignores_consolidated_members(tmp_path: Path) -> None:
    """An array added after consolidating is listed; one deleted since is not."""
    import shutil

    path = str(tmp_path / "g.zarr")
    group = zarr.open_group(path, mode="w", zarr_format=2)
    group.create_array("gone", shape=(2,), dtype="f8")[:] = [7.0, 8.0]
    group.create_array("a", shape=(2,), dtype="f8")[:] = [1.0, 2.0]
    zarr.consolidate_metadata(path)
    shutil.rmtree(tmp_path / "g.zarr" / "gone")
    zarr.open_group(path, mode="r+", use_consolidated=False).create_array("b", shape=(2,), dtype="f8")[:] = [
        3.0,
        5.0,
    ]
    names = [a.name for a in open_chunked(path)]
    assert names == [f"{path}:a", f"{path}:b"]
    out = tmp_path / "m.npy"
    assert main(["mean", path, "-o", str(out), "-q"]) == 0
    np.testing.assert_array_equal(np.load(out), np.mean([[1.0, 2.0], [3.0, 5.0]], axis=0))
