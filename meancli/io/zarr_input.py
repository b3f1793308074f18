"""Zarr arrays (format 2 and 3) as inputs: a directory store or a zip store.

Chunks are read with zarr itself (so every codec zarr knows decodes); the
task grid is zarr's chunk grid, or its shard grid for arrays written with
the sharding codec. A chunk that cannot be read or decoded, or decodes to
the wrong size, is an error naming the array and the chunk. A missing chunk
is what the zarr specification says it is: the array's fill_value; when the
fill_value is null (format 2), it is an error naming the chunk.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from ..errors import InputFileError
from .chunked import ChunkedArray, is_zarr_directory, regular_chunks, require, store_root
from .urls import StorageOptions, filesystem, is_url

MAX_CHUNKS = 1 << 22  # a dask graph of more tasks than this is impractical anyway


def _reason(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _open_store(store: str, options: StorageOptions | None = None) -> Any:
    zarr = require("zarr")
    if is_url(store):  # through fsspec (io.urls): s3://, gs://, http(s)://, ...
        filesystem(store, options)  # a missing package: the one-line error naming the extra
        return zarr.storage.FsspecStore.from_url(store, storage_options=dict(options or {}), read_only=True)
    if is_zarr_directory(store):
        return zarr.storage.LocalStore(store, read_only=True)
    return zarr.storage.ZipStore(store, mode="r")


def open_node(store: str, path: str, options: StorageOptions | None = None) -> Any:
    """The zarr array or group at ``path`` in ``store`` (a directory or a zip
    file; ``""``: the root), read from that node's own metadata.

    Consolidated metadata (format 2 ``.zmetadata``, format 3
    ``consolidated_metadata`` in a group's ``zarr.json``) is never read: it is
    a copy written once, stale as soon as an array is resized or rewritten
    without consolidating again, and one array must give one answer however
    it is named (``STORE`` for a group of one array, ``STORE:PATH``). Every
    reader of zarr metadata in meancli goes through this function (group
    listings, the array at a path, the arrays of a group, a worker opening
    the array again).

    Raises:
        FileNotFoundError: nothing at ``path``; zarr's own exceptions for
            unreadable metadata.
    """
    zarr = require("zarr")
    # zarr warns on stderr, past -q and --json, of what it chose (a store holding both
    # format 2 and 3 metadata: format 3); it reads what it says, so the warning is dropped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return zarr.open(store=_open_store(store, options), path=path, mode="r", use_consolidated=False)


def open_array(store: str, path: str, options: StorageOptions | None = None) -> Any:
    """The zarr array at ``path`` in ``store`` (a path or a URL, read with the storage
    ``options``), from its own metadata (open_node).

    Raises:
        FileNotFoundError: nothing at ``path``; ValueError: a group there; zarr's
            own exceptions for unreadable metadata.
    """
    zarr = require("zarr")
    node = open_node(store, path, options)
    if not isinstance(node, zarr.Array):
        raise ValueError(f"{path or 'the root'} is a group, not an array")
    return node


def open_zarr(store: str, path: str, *, options: StorageOptions | None = None) -> list[ChunkedArray]:
    """The array at ``path`` in ``store`` (``""``: the root), or every array directly in
    the group there, in name order; each opened from its own metadata (open_node),
    never from consolidated metadata. ``path`` is relative to the store's root: a
    zip holding its store in one folder (``zip -r x.zip foo.zarr``) is opened at
    that folder (chunked.store_root), so ``x.zip:sub/x`` is ``foo.zarr/sub/x`` in it.
    ``store`` may be a URL (io.remote), read with the storage ``options``.

    Raises:
        InputFileError: no array or group at ``path`` (the message lists what
            the group holds), a group with no arrays, or unreadable metadata.
    """
    zarr = require("zarr")
    shown = f"{store}:{path}" if path else store
    root = store_root(store)
    where = f"the store under {root}/ in the zip" if root else "the store"
    try:
        node = open_node(store, _inside(root, path), options)
    except FileNotFoundError:
        listed = _members(store, root, options)
        raise InputFileError(f"{shown}: no array or group there ({where} holds: {listed})") from None
    except Exception as exc:  # zarr raises many kinds for unreadable metadata
        raise InputFileError(f"{shown}: not a readable zarr array or group: {_reason(exc)}") from None
    if isinstance(node, zarr.Array):
        return [ZarrInput(store, _inside(root, path), shown, node, options)]
    # The group's own listing of its members (not its consolidated copy), and each
    # array opened from its own metadata: node[n] could carry the group's copy.
    names = sorted(node.array_keys())
    if not names:
        held = _members(store, root, options)
        raise InputFileError(
            f"{shown}: the zarr group holds no arrays directly ({where} holds: {held}); "
            f"name one as {store}:PATH"
        )
    base = f"{path}/" if path else ""
    arrays: list[ChunkedArray] = []
    for n in names:
        name = f"{store}:{base}{n}"
        try:
            array = open_array(store, _inside(root, base + n), options)
        except Exception as exc:  # zarr raises many kinds for unreadable metadata
            raise InputFileError(f"{name}: not a readable zarr array: {_reason(exc)}") from None
        arrays.append(ZarrInput(store, _inside(root, base + n), name, array, options))
    return arrays


def _inside(root: str, path: str) -> str:
    """The path in the store of ``path`` relative to its root (chunked.store_root)."""
    return "/".join(p for p in (root, path) if p)


def _members(store: str, root: str, options: StorageOptions | None = None) -> str:
    """What ``store`` holds, for a message: the paths in its root group, or its root
    array (a store may be one array, which the store's own name reads)."""
    zarr = require("zarr")
    try:
        top = open_node(store, root, options)
        if isinstance(top, zarr.Array):
            shape = tuple(int(n) for n in top.shape)
            return f"one array at its root, of shape {shape} and dtype {top.dtype}: give {store} alone"
        names = sorted(k for k, _ in top.members(max_depth=None))
    except Exception:
        return "nothing readable"
    return ", ".join(names) if names else "nothing"


class ZarrInput(ChunkedArray):
    """One zarr array, opened again (lazily) wherever it is read: it pickles as its
    store's path or URL, the path in it and the storage options, so a dask worker
    opens the store itself."""

    def __init__(
        self, store: str, path: str, name: str, array: Any, options: StorageOptions | None = None
    ) -> None:
        self.store = store if is_url(store) else os.path.abspath(store)
        self.options = dict(options or {})
        self.path = path
        self.name = name
        self.shape = tuple(int(n) for n in array.shape)
        dtype = np.dtype(array.dtype)
        if dtype.kind not in "iuf":
            raise InputFileError(f"{name}: zarr data type {array.dtype} is not a numeric type meancli reads")
        self.dtype = dtype if dtype.isnative else dtype.newbyteorder("=")
        grid = tuple(array.shards or array.chunks)
        if any(int(c) < 1 for n, c in zip(self.shape, grid, strict=True) if n > 0):
            raise InputFileError(f"{name}: chunk shape {grid} has a dimension of 0 (malformed zarr metadata)")
        count = 1
        for n, c in zip(self.shape, grid, strict=True):
            count *= -(-n // max(int(c), 1))
        if count > MAX_CHUNKS:
            raise InputFileError(
                f"{name}: {count} chunks of {grid}; meancli takes at most {MAX_CHUNKS} (rechunk the array)"
            )
        self.chunks = regular_chunks(self.shape, grid) if self.shape else ()
        self.fill_value_null = array.metadata.zarr_format == 2 and array.metadata.fill_value is None
        self._array: Any = array
        self._zip_names: frozenset[str] | None = None

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_array"] = None  # a worker opens the store itself
        state["_zip_names"] = None  # and lists a zip store itself, once
        return state

    def _zarr(self) -> Any:
        if self._array is None:
            self._array = open_array(self.store, self.path, self.options)
        return self._array

    def _chunk_stored(self, array: Any, index: tuple[int, ...]) -> bool:
        """Whether the chunk at ``index`` is stored, in O(1): a directory store
        is asked for one file; a zip store's names are listed once per array
        and process (a zip's list of names is read whole on every opening)."""
        key = array.metadata.encode_chunk_key(index)
        full = f"{self.path}/{key}" if self.path else key
        if is_url(self.store):
            fs, base = filesystem(self.store, self.options)
            return bool(fs.isfile(f"{base.rstrip('/')}/{full}"))
        if os.path.isdir(self.store):
            return os.path.isfile(os.path.join(self.store, *full.split("/")))
        if self._zip_names is None:
            import zipfile

            with zipfile.ZipFile(self.store) as archive:
                self._zip_names = frozenset(archive.namelist())
        return full in self._zip_names

    def _first_missing(self, array: Any, index: tuple[int, ...]) -> tuple[int, ...]:
        """The first chunk in C order of chunk index that is not stored, given that the
        chunk at ``index`` is not: the error names it whatever order the chunks are
        read in (dask's tasks and threads run in any order). Only on that error."""
        for earlier in np.ndindex(*self.grid):
            if earlier == tuple(index) or not self._chunk_stored(array, earlier):
                return earlier
        return tuple(index)

    def read_chunk(self, index: tuple[int, ...]) -> np.ndarray[Any, Any]:
        """The chunk at grid coordinates ``index`` (see ChunkedArray.read_chunk).

        Raises:
            InputFileError: ``NAME: chunk (i, ...): cannot be read: ...`` (or decodes to the
                wrong shape); for a missing chunk of an array without a fill_value, the
                first missing chunk in C order, which may come before ``index``.
        """
        where = f"{self.name}: chunk {tuple(index)}"
        region = self.chunk_region(index)
        expected = tuple(s.stop - s.start for s in region)
        try:
            array = self._zarr()
            if self.fill_value_null and array.shards is None and not self._chunk_stored(array, index):
                first = self._first_missing(array, index)
                raise InputFileError(
                    f"{self.name}: chunk {first}: missing, and the array has no fill_value to stand for it"
                )
            data = np.asarray(array[region] if region else array[...])
        except InputFileError:
            raise
        except Exception as exc:  # codecs and stores raise many kinds
            raise InputFileError(f"{where}: cannot be read: {_reason(exc)}") from None
        if data.shape != expected:
            raise InputFileError(f"{where}: decodes to shape {data.shape}, expected {expected}")
        if not data.dtype.isnative:
            data = data.astype(self.dtype)
        return data
