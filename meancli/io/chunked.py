"""Inputs stored in chunks: a zarr array, or a dataset of ``.npy`` shards.

A FILE argument names one when it is:

- a zarr store: a directory holding ``zarr.json`` (format 3) or ``.zarray`` /
  ``.zgroup`` (format 2), usually ``PATH.zarr``, or a zip file holding one;
  ``STORE:path/in/group`` picks an array of a group (as ``data.npz:NAME``);
- a dataset of ``.npy`` shards concatenated along axis 0: a directory of
  ``.npy`` files (in byte order of their names), a quoted glob pattern
  (``'shards/*.npy'``, matches in byte order of their paths), or ``@LIST``, a
  text file naming one shard per line in the order given (relative paths are
  relative to the list file).

Each is a :class:`ChunkedArray`: shape, dtype, a chunk grid, and a reader of
one chunk at a time that names the array and the chunk in every error. It
pickles to a few strings, so dask ships it to workers, which open the store
themselves.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import InputFileError, extra_hint


def require(module: str) -> Any:
    """Import ``module`` (zarr, dask.array, distributed), or a one-line error naming the extra.

    Raises:
        InputFileError: the module is not installed.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        top = module.split(".")[0]
        raise InputFileError(
            f"{top} is needed for zarr arrays, .npy shard datasets, --workers and --scheduler; "
            f"{extra_hint('dask')}"
        ) from None


class ChunkedArray:
    """An array read one chunk at a time (the subclasses: ZarrInput, ShardDataset).

    Attributes:
        name: how reports and errors name it.
        shape, dtype: the array's (dtype in native byte order; bfloat16 as ml_dtypes.bfloat16).
        chunks: the chunk grid as dask spells it: per dimension, the sizes of its chunks.
    """

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    chunks: tuple[tuple[int, ...], ...]

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) * self.dtype.itemsize

    @property
    def grid(self) -> tuple[int, ...]:
        """Chunks along each dimension."""
        return tuple(len(c) for c in self.chunks)

    def chunk_index(self, key: tuple[slice, ...]) -> tuple[int, ...]:
        """The grid coordinates of the chunk that ``key`` (its slices) starts."""
        index = []
        for d, s in enumerate(key):
            start, edge = s.start or 0, 0
            for i, n in enumerate(self.chunks[d]):
                if edge == start:
                    index.append(i)
                    break
                edge += n
            else:
                index.append(len(self.chunks[d]))
        return tuple(index)

    def read_chunk(self, index: tuple[int, ...]) -> np.ndarray[Any, Any]:
        """The chunk at grid coordinates ``index``, of its full size, native byte order.

        Raises:
            InputFileError: ``NAME: chunk (i, j, ...): what is wrong``.
        """
        raise NotImplementedError

    def __getitem__(self, key: tuple[slice, ...]) -> np.ndarray[Any, Any]:
        # dask.array.from_array asks for whole chunks of our own grid, by slices.
        if not isinstance(key, tuple):
            key = (key,)
        key = key + (slice(None),) * (self.ndim - len(key))
        if self.ndim == 0:
            return self.read_chunk(())
        whole = self.read_chunk(self.chunk_index(key))
        starts = [sum(c[:i]) for c, i in zip(self.chunks, self.chunk_index(key), strict=True)]
        local = tuple(
            slice((s.start or 0) - a, (s.stop if s.stop is not None else a + n) - a)
            for s, a, n in zip(key, starts, whole.shape, strict=True)
        )
        result: np.ndarray[Any, Any] = whole[local]
        return result

    def read_all(self) -> np.ndarray[Any, Any]:
        """The whole array in memory (for small or empty arrays)."""
        out = np.empty(self.shape, dtype=self.dtype)
        for index in np.ndindex(*self.grid):
            region = tuple(
                slice(sum(c[:i]), sum(c[: i + 1])) for c, i in zip(self.chunks, index, strict=True)
            )
            out[region] = self.read_chunk(tuple(index))
        return out


def regular_chunks(shape: tuple[int, ...], chunk: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The chunk grid of a regular chunk shape (the last chunk along each dim may be short)."""
    grid = []
    for n, c in zip(shape, chunk, strict=True):
        c = max(int(c), 1)
        sizes = tuple(min(c, n - a) for a in range(0, n, c)) if n else (0,)
        grid.append(sizes)
    return tuple(grid)


def is_zarr_directory(path: str) -> bool:
    return os.path.isdir(path) and any(
        os.path.isfile(os.path.join(path, m)) for m in ("zarr.json", ".zarray", ".zgroup")
    )


def is_zarr_zip(path: str) -> bool:
    import zipfile

    if not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as fp:
            if fp.read(4) != b"PK\x03\x04":
                return False
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except Exception:  # zipfile raises many kinds for a hostile archive
        if path.endswith(".zarr.zip"):  # named as a zipped store: say so, not "not a readable .npz"
            raise InputFileError(f"{path}: not a readable zipped zarr store (a damaged zip file)") from None
        return False
    return bool(names & {"zarr.json", ".zarray", ".zgroup"})


def split_store(arg: str) -> tuple[str, str] | None:
    """``STORE`` or ``STORE:path/in/group`` -> (store, path) when STORE is a zarr store."""
    if is_zarr_directory(arg) or is_zarr_zip(arg):
        return arg, ""
    at = arg.find(":")
    while at != -1:
        head = arg[:at]
        if head and (is_zarr_directory(head) or is_zarr_zip(head)):
            return head, arg[at + 1 :].strip("/")
        at = arg.find(":", at + 1)
    return None
