"""A zip holding a zarr store one folder down (``zip -r x.zip foo.zarr``) is that zarr store.

zarr's own ZipStore writes the store at the zip's top; zipping a store's
directory from its parent puts it under ``foo.zarr/``. Such a zip was read
as an ``.npz`` whose members were zarr metadata files. It is now opened at
that folder: ``x.zip:sub/x`` names ``foo.zarr/sub/x``, as ``foo.zarr:sub/x``
does on disk, for format 2 and 3.
"""

from __future__ import annotations

import os
import pickle
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
pytest.importorskip("dask.array")

import meancli  # noqa: E402
from meancli.cli.entry import main  # noqa: E402
from meancli.io.registry import open_input  # noqa: E402

X = np.array([[1.0, 2.0, 3.0], [10.0, 20.0, 33.0], [-4.0, 0.5, 7.0], [8.0, 8.0, 9.0]])
Y = np.array([5.0, -1.0, 2.0, 6.0])


def open_chunked(arg: str) -> list[Any]:
    """The chunked arrays (zarr arrays, shard datasets) the input registry opens for ``arg``."""
    return [named.data for named in open_input(arg)]


def zip_folder(directory: Path, archive: Path, *folders: str) -> None:
    """``cd directory && zip -r archive FOLDER...``: every file under its folder's name."""
    with zipfile.ZipFile(archive, "w") as z:
        for folder in folders:
            for top, _dirs, files in os.walk(directory / folder):
                for name in files:
                    full = Path(top) / name
                    z.write(full, str(full.relative_to(directory)))


def write_store(tmp_path: Path, zarr_format: int, fill_value: float | None = 0.0) -> Path:
    """``foo.zarr``: a root group holding ``y`` and a group ``sub`` holding ``x``, zipped from its parent."""
    group = zarr.open_group(str(tmp_path / "foo.zarr"), mode="w", zarr_format=zarr_format)
    x = group.create_group("sub").create_array(
        "x", shape=X.shape, chunks=(2, 2), dtype=X.dtype, fill_value=fill_value
    )
    x[...] = X
    group.create_array("y", shape=Y.shape, chunks=(3,), dtype=Y.dtype)[...] = Y
    archive = tmp_path / "x.zip"
    zip_folder(tmp_path, archive, "foo.zarr")
    names = zipfile.ZipFile(archive).namelist()
    assert (
        all(n.startswith("foo.zarr/") for n in names)
        and f"foo.zarr/{'zarr.json' if zarr_format == 3 else '.zgroup'}" in names
    )
    return archive


@pytest.fixture(params=[2, 3], ids=["format2", "format3"])
def archive(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    return write_store(tmp_path, request.param)


def test_arrays_are_named_relative_to_the_folder(archive: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.npy"
    assert main(["reduce-mean", f"{archive}:sub/x", "--axes", "0", "-o", str(out), "-q"]) == 0
    np.testing.assert_array_equal(np.load(out), np.mean(X, axis=0, keepdims=True))
    # The bare zip is the root group: its one array directly in it, y.
    assert main(["reduce-mean", str(archive), "-o", str(out), "-q"]) == 0
    np.testing.assert_array_equal(np.load(out), [np.mean(Y)])
    assert main(["mean", f"{archive}:sub", "-o", str(out), "-q"]) == 0
    np.testing.assert_array_equal(np.load(out), X)
    assert [a.name for a in open_chunked(f"{archive}:sub")] == [f"{archive}:sub/x"]
    np.testing.assert_array_equal(meancli.open_lazy(f"{archive}:sub/x").compute(scheduler="synchronous"), X)
    (shipped,) = [
        pickle.loads(pickle.dumps(a)) for a in open_chunked(f"{archive}:sub/x")
    ]  # as a worker gets it
    np.testing.assert_array_equal(shipped.read_all(), X)


def test_a_missing_path_says_where_the_store_is(archive: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reduce-mean", f"{archive}:foo.zarr/sub/x", "-q"]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"error: {archive}:foo.zarr/sub/x: no array or group there "
        "(the store under foo.zarr/ in the zip holds: sub, sub/x, y)\n"
    )


def test_fill_value_null_chunks_found_under_the_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A stored chunk is looked up under the folder; a missing one is named."""
    archive = write_store(tmp_path, 2, fill_value=None)
    out = tmp_path / "r.npy"
    assert main(["reduce-mean", f"{archive}:sub/x", "-o", str(out), "-q"]) == 0
    np.testing.assert_array_equal(np.load(out), [[np.mean(X)]])
    (tmp_path / "foo.zarr" / "sub" / "x" / "1.0").unlink()
    os.unlink(archive)
    zip_folder(tmp_path, archive, "foo.zarr")
    capsys.readouterr()
    assert main(["reduce-mean", f"{archive}:sub/x", "-o", str(out), "-q"]) == 1
    assert capsys.readouterr().err == (
        f"error: {archive}:sub/x: chunk (1, 0): missing, and the array has no fill_value to stand for it\n"
    )


def test_several_stores_in_one_zip_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("a.zarr", "b.zarr"):
        zarr.create_array(str(tmp_path / name), shape=(2,), dtype="f8")[...] = [1.0, 2.0]
    archive = tmp_path / "two.zip"
    zip_folder(tmp_path, archive, "a.zarr", "b.zarr")
    assert main(["reduce-mean", str(archive), "-q"]) == 1
    assert capsys.readouterr().err == (
        f"error: {archive}: a zip with zarr metadata in several folders (a.zarr/, b.zarr/) and none at "
        "its top; meancli reads a zip holding one zarr store, at its top or in one folder\n"
    )


def test_an_npz_member_named_as_zarr_metadata_is_a_member(tmp_path: Path) -> None:
    """An .npz is an archive of arrays whatever its members are called: one named zarr.json
    (or .zarray) is read as that member, not the archive as a zipped zarr store (found by
    hypothesis: `a.npz:zarr.json` said "no array or group there")."""
    for name in ("zarr.json", ".zarray"):
        archive = tmp_path / f"m{name}.npz"
        member = tmp_path / "m.npy"
        np.save(member, X)
        with zipfile.ZipFile(archive, "w") as z:
            z.write(member, name)
        (item,) = open_input(f"{archive}:{name}")
        np.testing.assert_array_equal(np.asarray(item.data), X)


def test_an_npz_is_still_an_npz(tmp_path: Path) -> None:
    archive = tmp_path / "d.npz"
    np.savez(archive, a=X)
    from meancli.io.registry import input_format_name

    assert input_format_name(str(archive)) == "npz"
    out = tmp_path / "r.npy"
    assert main(["reduce-mean", f"{archive}:a", "-o", str(out), "-q"]) == 0
    np.testing.assert_array_equal(np.load(out), [[np.mean(X)]])
