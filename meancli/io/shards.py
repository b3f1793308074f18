"""A dataset of ``.npy`` shards concatenated along axis 0, read as one array.

Every shard must have the first shard's dtype and trailing shape (all dims
after the first); the dataset's shape is ``(sum of the shards' first dims,
*trailing)``. Each shard is one chunk along axis 0, cut into pieces of at
most ``PIECE_BYTES`` (rows whole), so a worker holds one piece at a time.
Shards are read through meancli.io.npy_read.read_npy (memory-mapped), with its
checks: a truncated or over-long shard is an error naming it.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..dtypes import is_bfloat16, native_dtype, spec_name
from ..errors import InputFileError
from .chunked import ChunkedArray
from .messages import reason
from .npy_format import read_header
from .npy_read import read_npy

PIECE_BYTES = int(os.environ.get("MEANCLI_PIECE_BYTES", 64 << 20))


def read_list_file(path: str) -> list[str]:
    """The shard paths a list file names, one a line; blank lines and lines
    starting with ``#`` are skipped; relative paths are relative to the list file.

    Raises:
        InputFileError: the list cannot be read or names no shard.
    """
    try:
        with open(path, encoding="utf-8") as fp:
            lines = fp.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(f"@{path}: cannot read the list of shards: {exc}") from None
    base = os.path.dirname(path)
    paths = [os.path.join(base, s) for s in (line.strip() for line in lines) if s and not s.startswith("#")]
    if not paths:
        raise InputFileError(f"@{path}: the list names no shards")
    return paths


def plan_pieces(
    rows: list[int], row_shape: tuple[int, ...], dtype: np.dtype[Any], whole: list[bool] | None = None
) -> tuple[tuple[int, ...], list[tuple[int, int, int]], tuple[tuple[int, ...], ...]]:
    """The pieces of a dataset of shards of ``rows`` rows each (empty: one rank-0
    file), rows of ``row_shape`` and ``dtype``: its shape, each piece as (shard
    number, first row, rows) along axis 0 in order (at most PIECE_BYTES, rows
    whole; a shard with ``whole[k]`` set is one piece), and its chunk grid."""
    if not rows:  # one rank-0 .npy (a plain file given to a cluster)
        return (), [(0, 0, 1)], ()
    row_bytes = max(1, int(np.prod(row_shape, dtype=np.int64)) * dtype.itemsize)
    per_piece = max(1, PIECE_BYTES // row_bytes)
    steps = [n if whole and whole[k] else per_piece for k, n in enumerate(rows)]
    pieces = [(k, a, min(steps[k], n - a)) for k, n in enumerate(rows) for a in range(0, n, steps[k])]
    if not pieces:  # every shard is empty: one empty chunk
        pieces = [(0, 0, 0)]
    return (sum(rows), *row_shape), pieces, (tuple(p[2] for p in pieces), *((n,) for n in row_shape))


class ShardDataset(ChunkedArray):
    """``.npy`` shards concatenated along axis 0 (see the module docstring).

    Raises (on construction):
        InputFileError: a shard that cannot be read or whose header is
            malformed, or the first shard whose dtype or trailing shape differs
            from the first shard's (named, with both), or rank-0 shards.
    """

    def __init__(self, name: str, paths: list[str]) -> None:
        self.name = name
        self.paths = list(paths)  # as given, for messages
        rows: list[int] = []
        first: tuple[str, np.dtype[Any], tuple[int, ...]] | None = None
        for path in self.paths:
            try:
                with open(path, "rb") as fp:
                    h = read_header(fp, path)
                    size = os.fstat(fp.fileno()).st_size
            except OSError as exc:
                raise InputFileError(f"{path}: cannot read the shard: {reason(exc)}") from None
            if size - h.data_offset != h.nbytes:
                what = "truncated data" if size - h.data_offset < h.nbytes else "trailing bytes"
                raise InputFileError(
                    f"{path}: {what}: header says {h.nbytes} bytes of data, "
                    f"the file holds {size - h.data_offset}"
                )
            dtype = native_dtype(h.dtype)
            if not h.shape and len(self.paths) > 1:
                raise InputFileError(f"{path}: a rank-0 shard; shards are concatenated along axis 0")
            if first is None:
                first = (path, dtype, h.shape[1:])
                self.header = h  # the first shard's: its descr says whether V2 was read as bfloat16
            elif dtype != first[1] or h.shape[1:] != first[2]:
                raise InputFileError(
                    f"{path}: the shard does not match {first[0]}: dtype {spec_name(dtype)}, "
                    f"trailing shape {h.shape[1:]} (expected {spec_name(first[1])}, {first[2]})"
                )
            if h.shape:
                rows.append(h.shape[0])
        assert first is not None
        # read by absolute path: a worker of another process may run in another directory
        self.absolute = [os.path.abspath(p) for p in self.paths]
        self.dtype = first[1]
        self.shape, self.pieces, self.chunks = plan_pieces(rows, first[2], self.dtype)

    def read_chunk(self, index: tuple[int, ...]) -> np.ndarray[Any, Any]:
        k, a, n = self.pieces[index[0] if index else 0]
        where = f"{self.name}: chunk ({index[0] if index else 0}) ({self.paths[k]}, rows {a} to {a + n})"
        try:
            data, _ = read_npy(self.absolute[k], mmap=True)
            if is_bfloat16(data.dtype) and is_bfloat16(self.dtype):
                # a worker reads ml_dtypes' bfloat16 where the command line read 2-byte values
                data = data.view(self.dtype)
            if data.dtype.newbyteorder("=") != self.dtype or data.shape[1:] != self.shape[1:]:
                raise InputFileError("the shard changed since the dataset was opened")
            piece = data[a : a + n] if self.shape else data
            if not piece.dtype.isnative:
                return piece.astype(self.dtype)
            return np.array(piece)  # a plain in-memory copy, not a view of the map
        except InputFileError as exc:
            raise InputFileError(f"{where}: {exc}") from None
        except OSError as exc:
            raise InputFileError(f"{where}: read error: {reason(exc)}") from None
