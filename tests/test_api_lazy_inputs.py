"""The Python API on what numpy users pass: a list of arrays to mean (refused: mean(*arrays)),
lazy objects other than dask arrays (refused, never loaded silently), and what open_lazy
does not open (said as such, with what to do instead)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import meancli
from meancli.errors import InputFileError, UsageError
from meancli.io.onnx_tensor import write_tensor_file

X = np.arange(12, dtype=np.float32).reshape(3, 4)
Y = np.arange(12, 24, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize("args", [([X, Y],), ((X, Y),), (X, [Y]), ([X],)])
def test_mean_refuses_a_list_of_arrays(args: tuple[Any, ...]) -> None:
    with pytest.raises(UsageError, match=r"mean\(\*arrays\)") as info:
        meancli.mean(*args)
    assert "\n" not in str(info.value)


def test_mean_of_separate_arrays_still_works() -> None:
    got = meancli.mean(X, Y)
    truth = ((X.astype(np.float64) + Y) / 2).astype(np.float32)  # exact: small integers and halves
    assert got.dtype == np.float32 and np.array_equal(got, truth)
    assert np.array_equal(meancli.mean(*[X, Y]), truth)


class Computed:
    """Counts the chunks a dask graph computes (none may be, when a call is refused)."""

    def __init__(self) -> None:
        self.blocks = 0

    def __call__(self, block: np.ndarray) -> np.ndarray:
        self.blocks += block.size > 0  # dask calls it on an empty array for its meta
        return block


def _lazy(values: np.ndarray, computed: Computed) -> Any:
    da = pytest.importorskip("dask.array")
    return da.from_array(values, chunks=2).map_blocks(computed, dtype=values.dtype)


def test_dask_backed_dataarray_is_refused_not_loaded() -> None:
    xr = pytest.importorskip("xarray")
    computed = Computed()
    lazy = xr.DataArray(_lazy(X, computed), dims=("row", "col"))
    calls = [
        lambda: meancli.reduce_mean(lazy, axes=[1]),
        lambda: meancli.reduce_mean(lazy),
        lambda: meancli.mean(lazy, X),
        lambda: meancli.mean(X, lazy),
        lambda: meancli.mean(_lazy(Y, computed), lazy),  # with a dask array: the lazy path
    ]
    for call in calls:
        with pytest.raises(UsageError, match=r"xarray\.DataArray.*x\.data") as info:
            call()
        assert "\n" not in str(info.value)
    assert computed.blocks == 0
    # what the message says works, and stays lazy
    result = meancli.reduce_mean(lazy.data, axes=[1], keepdims=False)
    assert computed.blocks == 0
    assert np.array_equal(result.compute(), X.astype(np.float64).mean(axis=1).astype(np.float32))


def test_numpy_backed_dataarray_is_taken() -> None:
    xr = pytest.importorskip("xarray")
    got = meancli.reduce_mean(xr.DataArray(X, dims=("row", "col")), axes=[0], keepdims=False)
    assert isinstance(got, np.ndarray)
    assert np.array_equal(got, X.astype(np.float64).mean(axis=0).astype(np.float32))


def test_file_backed_dataarray_is_refused_not_loaded(tmp_path: Path) -> None:
    """xarray's own lazy loading (a zarr store opened without chunks=): np.asarray would
    read it whole."""
    xr = pytest.importorskip("xarray")
    pytest.importorskip("zarr")
    store = str(tmp_path / "t.zarr")
    xr.Dataset({"t": (("row", "col"), X)}).to_zarr(store, consolidated=False)
    with xr.open_dataset(store, engine="zarr", chunks=None, consolidated=False) as ds:
        lazy = ds["t"]
        for call in (lambda: meancli.reduce_mean(lazy, axes=[1]), lambda: meancli.mean(lazy, X)):
            with pytest.raises(UsageError, match=r"lazily loaded xarray\.DataArray.*x\.values"):
                call()
        assert not lazy._in_memory  # refused before anything was read
        got = meancli.reduce_mean(lazy.values, axes=[1], keepdims=False)  # as the message says
    assert np.array_equal(got, X.astype(np.float64).mean(axis=1).astype(np.float32))


def test_other_dask_collections_are_refused_not_computed() -> None:
    dask = pytest.importorskip("dask")
    calls: list[int] = []

    def make() -> np.ndarray:
        calls.append(1)
        return X

    delayed = dask.delayed(make)()
    for call in (lambda: meancli.reduce_mean(delayed), lambda: meancli.mean(delayed)):
        with pytest.raises(UsageError, match="is not loaded into memory silently"):
            call()
    assert calls == []


def test_open_lazy_says_what_it_does_not_open(tmp_path: Path) -> None:
    archive = tmp_path / "arch.npz"
    np.savez(archive, a=X, b=Y)
    for arg, values in ((f"{archive}:a", X), (f"{archive}:b.npy", Y)):
        with pytest.raises(InputFileError) as info:
            meancli.open_lazy(arg)
        message = str(info.value)
        assert message.startswith(f"{arg}: an .npz member is not opened lazily"), message
        assert "no such file" not in message
        # the message's own advice computes the mean
        advice = message.split("load it: ")[1]
        got = eval(advice, {"np": np, "meancli": meancli})
        assert got == np.float32(values.astype(np.float64).mean())
    with pytest.raises(InputFileError, match=r"an \.npz archive is not opened lazily"):
        meancli.open_lazy(archive)
    pb = tmp_path / "t.pb"
    write_tensor_file(str(pb), X)
    with pytest.raises(InputFileError, match="an ONNX tensor file is not opened lazily"):
        meancli.open_lazy(pb)
    # a path that is not there is still said so
    with pytest.raises(InputFileError, match=r"missing\.npz:a: no such file"):
        meancli.open_lazy(tmp_path / "missing.npz:a")
