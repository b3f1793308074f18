"""FILE arguments that are URLs (``s3://``, ``gs://``, ``http(s)://``, any fsspec
protocol): zarr stores, ``.npy`` shard datasets, ``.npy`` files and ``.npz`` members.

What a URL names is found as for a path, by asking the store:

- ``URL`` or ``URL:path/in/group`` where URL holds zarr metadata (``zarr.json``,
  ``.zarray``, ``.zgroup``): a zarr array (io.zarr_input, through zarr's
  FsspecStore);
- a URL with a glob character (``*?[``; over http(s) only ``*[``: ``?``
  starts a query) in its path: the ``.npy`` objects it matches, in byte order
  of their names, as one shard dataset;
- an object: by its first bytes a zip (``.npz``, every member or
  ``URL:NAME``), else a ``.npy``;
- a prefix (a "directory": an S3 prefix, an HTTP directory listing): the
  ``.npy`` objects directly under it, in byte order of their names, as one
  shard dataset.

Nothing is downloaded whole but what is read in memory: a ``.npy`` of at least
io.thresholds.STREAM_MIN_BYTES is a RemoteSource read with range requests in
slabs (bounded memory), and shard datasets (RemoteShards) read one piece per
task with range requests. Both pickle as their URL and storage options, so a
dask worker opens the store itself: the data never goes through the client.
"""

from __future__ import annotations

import io
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..dtypes import native_dtype, spec_name
from ..errors import InputFileError, MeancliError
from .chunked import ChunkedArray
from .inputs import NamedArray
from .npy_format import NpyHeader, read_header
from .npy_read import check_size, read_npy_bytes
from .shards import plan_pieces
from .source import Source
from .thresholds import streams_size
from .urls import StorageOptions, filesystem, is_url, remote_error, split_url_member, url_protocol

GLOB_CHARS = frozenset("*?[")
ZARR_METADATA = ("zarr.json", ".zarray", ".zgroup")
RANGE_BYTES = 8 << 20  # bytes asked of the store per range request
HEADER_BLOCK = 1 << 16  # bytes read ahead for a header


def _in_range(data: bytes, start: int, end: int, size: int) -> bytes:
    """The bytes [start, end) of an object of ``size`` bytes from what a range request
    returned: an HTTP server that ignores ``Range`` (``python -m http.server``) answers
    the whole object, and fsspec passes it on; the range is then cut from it."""
    if len(data) != end - start and len(data) == size and end <= size:
        return data[start:end]
    return data


def open_url(
    arg: str, options: StorageOptions | None, *, stream: bool = False, lazy: bool = False
) -> list[NamedArray]:
    """The tensors a URL names (see the module docstring), each as a NamedArray.

    Args:
        arg: the URL, as given (``s3://bucket/era5.zarr:t2m``, ``https://host/x.npy``).
        options: storage options for the filesystem (``endpoint_url``, ``anon``, ...).
        stream: a ``.npy`` of at least io.thresholds.STREAM_MIN_BYTES as a RemoteSource.
        lazy: the run goes to dask: a ``.npy`` as a one-shard RemoteShards that the
            workers read themselves.

    Raises:
        InputFileError: one line for a missing package (naming the extra), a missing
            bucket or object, denied access, a server that does not answer, or what
            the format's reader refuses.
    """
    try:
        fs, path = filesystem(arg, options)
        if not path.strip("/") or path.strip("/") in (".", ".."):
            raise InputFileError(
                f"{arg}: the URL names no bucket or host path; give one as {url_protocol(arg)}://BUCKET/KEY"
            )
        # over HTTP a '?' starts a query (a presigned URL's signature), not a glob
        wild = GLOB_CHARS - {"?"} if url_protocol(arg) in ("http", "https") else GLOB_CHARS
        if wild & set(path) and not fs.exists(path):
            urls = sorted(_url(fs, p) for p in fs.glob(path) if p.endswith(".npy"))
            if not urls:
                raise InputFileError(f"{arg}: the pattern matches no .npy objects")
            return [_dataset(arg, urls, options)]
        for location, member in split_url_member(arg):
            if location != arg:
                fs, path = filesystem(location, options)
            if _is_zarr(fs, path):
                from .zarr_input import open_zarr

                return [NamedArray(a.name, a, None) for a in open_zarr(location, member, options=options)]
            info = _file_info(fs, path)
            if info is not None:
                return _open_object(arg, location, member, fs, path, info, options, stream=stream, lazy=lazy)
            if not member and _is_prefix(fs, path):
                urls = sorted(_url(fs, p) for p in fs.ls(path, detail=False) if str(p).endswith(".npy"))
                if not urls:
                    raise InputFileError(f"{arg}: a prefix with no .npy objects and no zarr metadata")
                return [_dataset(arg, urls, options)]
        fs, path = filesystem(arg, options)
        fs.info(path)  # the store's own words for what is missing (no such bucket, ...)
        raise InputFileError(f"{arg}: not found")
    except MeancliError:
        raise
    except Exception as exc:  # fsspec's filesystems raise many kinds
        raise remote_error(arg, exc, options) from None


def _url(fs: Any, path: str) -> str:
    path = str(path)
    return path if is_url(path) else str(fs.unstrip_protocol(path))


def _is_zarr(fs: Any, path: str) -> bool:
    base = path.rstrip("/")
    return any(fs.isfile(f"{base}/{m}") for m in ZARR_METADATA)


def _file_info(fs: Any, path: str) -> dict[str, Any] | None:
    """The object at ``path`` (its info), or None when there is none (a prefix, nothing).
    An HTTP page in HTML (a directory listing) is no object."""
    try:
        info: dict[str, Any] = fs.info(path)
    except FileNotFoundError:
        return None
    if info.get("type") == "directory" or info.get("mimetype") == "text/html":
        return None
    return info


def _is_prefix(fs: Any, path: str) -> bool:
    try:
        return bool(fs.isdir(path))
    except FileNotFoundError:
        return False


def _open_object(
    arg: str,
    location: str,
    member: str,
    fs: Any,
    path: str,
    info: dict[str, Any],
    options: StorageOptions | None,
    *,
    stream: bool,
    lazy: bool,
) -> list[NamedArray]:
    """An object: an ``.npz`` (by its zip magic; every member, or ``member``) or a ``.npy``."""
    size = info.get("size")
    with fs.open(path, "rb", block_size=HEADER_BLOCK) as fp:
        magic = fp.read(4)
    if magic == b"PK\x03\x04":
        return _open_npz(location, member or None, fs, path, options)
    if member:
        raise InputFileError(f"{location}: not an .npz archive, so it has no member {member!r} ({arg})")
    if lazy:
        return [_dataset(location, [location], options)]
    if stream and size is not None and streams_size(int(size)):
        source = remote_source(location, options)
        return [NamedArray(location, source, source.header)]
    array, header = read_npy_bytes(fs.cat_file(path), location)
    return [NamedArray(location, array, header)]


def _open_npz(
    location: str, member: str | None, fs: Any, path: str, options: StorageOptions | None
) -> list[NamedArray]:
    """The members of a remote ``.npz``, read in memory through a seekable remote file
    (zipfile reads the central directory, then each member, with range requests); from
    an HTTP server that answers no range request (``python -m http.server``), the
    whole object is read in memory first."""
    from .npz import Archive

    fp: Any = fs.open(path, "rb", block_size=RANGE_BYTES)
    try:
        fp.seek(-1, io.SEEK_END)  # zipfile starts at the end: the central directory
        fp.read(1)
        fp.seek(0)
    except ValueError:  # fsspec's HTTPFile: "The HTTP server doesn't appear to support range requests"
        fp.close()
        fp = io.BytesIO(fs.cat_file(path))
    out: list[NamedArray] = []
    with Archive(location, fp=fp) as archive:
        for info, name in archive.wanted(member):
            array, header = archive.read(info, name)
            out.append(NamedArray(archive.member_where(name), array, header))
    return out


def _dataset(name: str, urls: list[str], options: StorageOptions | None) -> NamedArray:
    dataset = RemoteShards(name, urls, options)
    return NamedArray(dataset.name, dataset, dataset.header)


def _header(fs: Any, path: str, where: str) -> tuple[NpyHeader, int]:
    """The ``.npy`` header of the object at ``path`` and the object's size, checked."""
    with fs.open(path, "rb", block_size=HEADER_BLOCK, cache_type="readahead") as fp:
        header = read_header(fp, where)
        size = int(fp.size)
    return header, size


@dataclass
class RemoteSource(Source):
    """A remote ``.npy`` read on demand with range requests (``read_into``: any byte range,
    in requests of at most RANGE_BYTES), for the streamed engine: bounded memory,
    whatever the object's size. Its ``fp`` is an empty placeholder."""

    url: str = ""
    options: StorageOptions | None = None

    def read_into(self, offset: int, view: memoryview) -> None:
        """Fill ``view`` with data bytes [offset, offset + len(view)).

        Raises:
            InputFileError: the object ends early, or the store fails (one line, remote_error).
        """
        started = time.perf_counter()
        want = len(view)
        if offset + want > self.nbytes:
            raise InputFileError(f"{self.name}: read past the end of the data")
        fs, path = filesystem(self.url, self.options)
        start = self.header.data_offset + offset
        got = 0
        try:
            while got < want:
                n = min(RANGE_BYTES, want - got)
                data = fs.cat_file(path, start=start + got, end=start + got + n)
                data = _in_range(data, start + got, start + got + n, self.header.data_offset + self.nbytes)
                if not data:
                    break
                view[got : got + len(data)] = data
                got += len(data)
        except MeancliError:
            raise
        except Exception as exc:  # fsspec's filesystems raise many kinds
            raise remote_error(self.name, exc, self.options) from None
        if got < want:
            raise InputFileError(
                f"{self.name}: truncated data: {self.header.size_text()}, the data ends after {offset + got}"
            )
        self.read_seconds += time.perf_counter() - started

    def load(self) -> np.ndarray[Any, Any]:
        """The whole array, read with range requests (read_all)."""
        return self.read_all()

    def dataset(self) -> Any:
        """This ``.npy`` as a one-shard RemoteShards, which dask workers read themselves."""
        return RemoteShards(self.name, [self.url], self.options)


def remote_source(url: str, options: StorageOptions | None) -> RemoteSource:
    """The ``.npy`` object at ``url`` as a RemoteSource (its header read and checked).

    Raises:
        InputFileError: a malformed header, a size that does not match it, or the store fails.
    """
    try:
        fs, path = filesystem(url, options)
        header, size = _header(fs, path, url)
    except MeancliError:
        raise
    except Exception as exc:  # fsspec's filesystems raise many kinds
        raise remote_error(url, exc, options) from None
    check_size(header, size - header.data_offset, url)
    return RemoteSource(url, header, io.BytesIO(), seekable=True, url=url, options=options)


class RemoteShards(ChunkedArray):
    """Remote ``.npy`` objects concatenated along axis 0 (as io.shards.ShardDataset):
    each piece of at most io.shards.PIECE_BYTES (rows whole) is one range request, made
    by whichever process reads it (a dask worker opens the store itself). A shard in
    Fortran order is one piece, read whole.

    Raises (on construction):
        InputFileError: as ShardDataset: a header that cannot be read, a size that does
            not match it, a shard whose dtype or trailing shape differs from the first's.
    """

    def __init__(self, name: str, urls: list[str], options: StorageOptions | None) -> None:
        self.name = name
        self.urls = list(urls)
        self.options = dict(options or {})
        self.offsets: list[int] = []
        self.sizes: list[int] = []  # each object's bytes (check_size: header and data, nothing after)
        self.fortran: list[bool] = []
        rows: list[int] = []
        first: tuple[str, np.dtype[Any], tuple[int, ...]] | None = None
        for url in self.urls:
            try:
                fs, path = filesystem(url, self.options)
                h, size = _header(fs, path, url)
            except MeancliError:
                raise
            except Exception as exc:  # fsspec's filesystems raise many kinds
                raise remote_error(url, exc, self.options) from None
            check_size(h, size - h.data_offset, url)
            dtype = native_dtype(h.dtype)
            if not h.shape and len(self.urls) > 1:
                raise InputFileError(f"{url}: a rank-0 shard; shards are concatenated along axis 0")
            if first is None:
                first = (url, dtype, h.shape[1:])
                self.header = h
                self.file_dtype = h.dtype
            elif dtype != first[1] or h.shape[1:] != first[2]:
                raise InputFileError(
                    f"{url}: the shard does not match {first[0]}: dtype {spec_name(dtype)}, "
                    f"trailing shape {h.shape[1:]} (expected {spec_name(first[1])}, {first[2]})"
                )
            self.offsets.append(h.data_offset)
            self.sizes.append(size)
            self.fortran.append(bool(h.fortran_order) and len(h.shape) > 1)
            if h.shape:
                rows.append(h.shape[0])
        assert first is not None
        self.dtype = first[1]
        # a Fortran-order shard is one piece (read whole): its rows are not contiguous
        self.shape, self.pieces, self.chunks = plan_pieces(rows, first[2], self.dtype, self.fortran)

    def read_chunk(self, index: tuple[int, ...]) -> np.ndarray[Any, Any]:
        """The piece at ``index`` (see ChunkedArray.read_chunk), by one range request.

        Raises:
            InputFileError: ``NAME: chunk (i) (URL, rows a to b): what went wrong``.
        """
        k, a, n = self.pieces[index[0] if index else 0]
        url = self.urls[k]
        where = f"{self.name}: chunk ({index[0] if index else 0}) ({url}, rows {a} to {a + n})"
        trailing = self.shape[1:]
        row = int(np.prod(trailing, dtype=np.int64)) * self.dtype.itemsize
        start = self.offsets[k] + a * row
        try:
            fs, path = filesystem(url, self.options)
            data = fs.cat_file(path, start=start, end=start + n * row) if n * row else b""
            data = _in_range(data, start, start + n * row, self.sizes[k])
        except MeancliError:
            raise
        except Exception as exc:  # fsspec's filesystems raise many kinds
            raise remote_error(where, exc, self.options) from None
        if len(data) != n * row:
            raise InputFileError(f"{where}: the object changed since the dataset was opened")
        array = np.frombuffer(data, dtype=self.file_dtype)
        if not self.shape:
            piece = array.reshape(())
        else:
            piece = array.reshape((n, *trailing), order="F" if self.fortran[k] else "C")
        if not piece.dtype.isnative:
            return piece.astype(self.dtype)
        return np.array(piece, dtype=self.dtype)
