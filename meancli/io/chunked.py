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

import bisect
import itertools
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

    def chunk_starts(self) -> tuple[tuple[int, ...], ...]:
        """Per dimension, where each chunk starts, and the dimension's size last
        (computed once per process, so locating a chunk costs O(log chunks), not O(chunks))."""
        starts = self.__dict__.get("_starts")
        if starts is None:
            starts = tuple(tuple(itertools.accumulate(c, initial=0)) for c in self.chunks)
            self.__dict__["_starts"] = starts
        return starts

    def chunk_region(self, index: tuple[int, ...]) -> tuple[slice, ...]:
        """The slices of the array that the chunk at grid coordinates ``index`` covers."""
        return tuple(slice(s[i], s[i + 1]) for s, i in zip(self.chunk_starts(), index, strict=True))

    def chunk_index(self, key: tuple[slice, ...]) -> tuple[int, ...]:
        """The grid coordinates of the chunk that ``key`` (its slices) starts
        (past the last chunk along a dimension where ``key`` starts at no chunk's start)."""
        index = []
        for starts, s in zip(self.chunk_starts(), key, strict=False):
            start = s.start or 0
            i = bisect.bisect_left(starts, start, 0, len(starts) - 1)
            index.append(i if i < len(starts) - 1 and starts[i] == start else len(starts) - 1)
        return tuple(index)

    def read_chunk(self, index: tuple[int, ...]) -> np.ndarray[Any, Any]:
        """The chunk at grid coordinates ``index``, of its full size, native byte order.

        Raises:
            InputFileError: ``NAME: chunk (i, j, ...): what is wrong``.
        """
        raise NotImplementedError

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_starts", None)  # recomputed where it is read: a graph ships the array small
        return state

    def __getitem__(self, key: tuple[slice, ...]) -> np.ndarray[Any, Any]:
        # dask.array.from_array asks for whole chunks of our own grid, by slices.
        if not isinstance(key, tuple):
            key = (key,)
        key = key + (slice(None),) * (self.ndim - len(key))
        if self.ndim == 0:
            return self.read_chunk(())
        index = self.chunk_index(key)
        whole = self.read_chunk(index)
        starts = [r.start for r in self.chunk_region(index)]
        local = tuple(
            slice((s.start or 0) - a, (s.stop if s.stop is not None else a + n) - a)
            for s, a, n in zip(key, starts, whole.shape, strict=True)
        )
        result: np.ndarray[Any, Any] = whole[local]
        return result

    def read_all(self) -> np.ndarray[Any, Any]:
        """The whole array in memory (for small or empty arrays), chunk by chunk in C order."""
        out = np.empty(self.shape, dtype=self.dtype)
        for index in np.ndindex(*self.grid):
            out[self.chunk_region(index)] = self.read_chunk(tuple(index))
        return out


def regular_chunks(shape: tuple[int, ...], chunk: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """The chunk grid of a regular chunk shape (the last chunk along each dim may be short)."""
    grid = []
    for n, c in zip(shape, chunk, strict=True):
        c = max(int(c), 1)
        sizes = tuple(min(c, n - a) for a in range(0, n, c)) if n else (0,)
        grid.append(sizes)
    return tuple(grid)


ZARR_METADATA = frozenset({"zarr.json", ".zarray", ".zgroup"})


def is_zarr_directory(path: str) -> bool:
    """Whether directory ``path`` holds zarr metadata at its top (a store, format 2 or 3)."""
    return os.path.isdir(path) and any(os.path.isfile(os.path.join(path, m)) for m in ZARR_METADATA)


def zip_store_root(path: str) -> str | None:
    """Where in zip file ``path`` its zarr store is: ``""`` when the zip holds zarr
    metadata at its top (zarr's ZipStore, ``cd foo.zarr && zip -r ../x.zip .``),
    the folder when it holds one store in one folder (``zip -r x.zip foo.zarr``:
    ``foo.zarr``; the shallowest folder holding zarr metadata); None when it is not
    a zip, holds no zarr metadata, or is named ``*.npz`` (an archive of arrays,
    whatever its members are called: ``a.npz:zarr.json`` is that member).

    Raises:
        InputFileError: a damaged zip named ``*.zarr.zip``, or a zip whose zarr
            metadata lies in several folders and not at its top.
    """
    import zipfile

    if not os.path.isfile(path) or path.lower().endswith(".npz"):
        return None
    try:
        with open(path, "rb") as fp:
            if fp.read(4) != b"PK\x03\x04":
                return None
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except Exception:  # zipfile raises many kinds for a hostile archive
        if path.endswith(".zarr.zip"):  # named as a zipped store: say so, not "not a readable .npz"
            raise InputFileError(f"{path}: not a readable zipped zarr store (a damaged zip file)") from None
        return None
    folders = {n.rpartition("/")[0] for n in names if n.rpartition("/")[2] in ZARR_METADATA}
    if not folders:
        return None
    depth = min(f.count("/") + bool(f) for f in folders)
    top = sorted(f for f in folders if f.count("/") + bool(f) == depth)
    if len(top) > 1:
        listed = ", ".join(f"{f}/" for f in top)
        raise InputFileError(
            f"{path}: a zip with zarr metadata in several folders ({listed}) and none at its top; "
            "meancli reads a zip holding one zarr store, at its top or in one folder"
        )
    return top[0]


def is_zarr_zip(path: str) -> bool:
    """Whether ``path`` is a zip file holding a zarr store (zip_store_root)."""
    return zip_store_root(path) is not None


def store_root(store: str) -> str:
    """The path inside ``store`` (a zarr directory or a zipped store) of its root
    group or array: ``""``, or the folder of a zip holding its store one folder down."""
    return (zip_store_root(store) or "") if os.path.isfile(store) else ""


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
