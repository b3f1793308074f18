"""A missing chunk of an array without a fill_value: the error names the first one in C order.

Format 2 ``fill_value: null`` leaves nothing to stand for a missing chunk, so
the run fails naming it. With several missing, the chunk named must not
depend on the order the chunks happened to be read in (dask's synchronous
scheduler, its threads, a whole read in memory): the first missing chunk in
C order of chunk index.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

zarr = pytest.importorskip("zarr")
pytest.importorskip("dask.array")

import meancli  # noqa: E402
from meancli.cli.entry import main  # noqa: E402
from meancli.errors import InputFileError  # noqa: E402
from meancli.io.registry import open_input  # noqa: E402

MESSAGE = "missing, and the array has no fill_value to stand for it"


def open_chunked(arg: str) -> list[Any]:
    """The chunked arrays (zarr arrays, shard datasets) the input registry opens for ``arg``."""
    return [named.data for named in open_input(arg)]


def write_store(tmp_path: Path, kind: str, grid: tuple[int, ...], missing: list[tuple[int, ...]]) -> str:
    """A format 2 float64 array with fill_value null, chunks of 2 along each dim, ``missing`` removed."""
    shape = tuple(2 * g for g in grid)
    directory = tmp_path / "null.zarr"
    array = zarr.create_array(
        str(directory), shape=shape, chunks=(2,) * len(grid), dtype="f8", zarr_format=2, fill_value=None
    )
    array[...] = np.arange(np.prod(shape), dtype="f8").reshape(shape)
    for index in missing:
        os.unlink(directory / ".".join(str(i) for i in index))
    if kind == "dir":
        return str(directory)
    archive = tmp_path / "null.zarr.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for name in sorted(os.listdir(directory)):
            z.write(directory / name, name)
    return str(archive)


CASES = {
    "chunks 1-9 of 10": ((10,), [(i,) for i in range(1, 10)], (1,)),
    "2-d, last row and (0, 2)": ((3, 4), [(2, 0), (2, 1), (2, 3), (0, 2), (1, 3)], (0, 2)),
}


@pytest.mark.parametrize("kind", ["dir", "zip"])
@pytest.mark.parametrize("case", list(CASES))
def test_the_first_missing_chunk_is_named(
    case: str, kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    grid, missing, first = CASES[case]
    path = write_store(tmp_path, kind, grid, missing)
    expected = f"{path}: chunk {first}: {MESSAGE}"
    # The command line, on dask's synchronous scheduler, over every axis and over each one.
    for axes in ([], *[[str(d)] for d in range(len(grid))]):
        capsys.readouterr()
        assert main(["reduce-mean", path, *(["--axes", *axes] if axes else []), "-q"]) == 1
        assert capsys.readouterr().err == f"error: {expected}\n", axes
    assert main(["mean", path, path, "-q"]) == 1
    assert capsys.readouterr().err == f"error: {expected}\n"
    # In memory, whole.
    (array,) = open_chunked(path)
    with pytest.raises(InputFileError) as caught:
        array.read_all()
    assert str(caught.value) == expected
    # dask's threads, the chunks read in any order; each chunk read alone, last first.
    lazy = meancli.open_lazy(path)
    for scheduler in ("threads", "synchronous"):
        with pytest.raises(InputFileError) as caught:
            lazy.compute(scheduler=scheduler)
        assert str(caught.value) == expected
    for index in reversed(missing):
        with pytest.raises(InputFileError) as caught:
            array.read_chunk(index)
        assert str(caught.value) == expected
