"""Outputs at URLs (``-o s3://bucket/out.npy``, ``-o s3://bucket/out.zarr``), published
in one step, so that a failed or interrupted run never leaves a half-written
array or object under the target name.

Object stores have no rename, so:

- a ``.npy`` is sent in one request once the result is complete (put_npy): an
  object store creates an object from a PUT only when the request completes
  (fsspec sends a large one as a multipart upload, which likewise creates the
  object only when it is completed, at the end). An existing object is
  replaced whole, as a file is.
- a zarr store is refused if anything exists under its prefix
  (check_url_target: -o never replaces a remote store), written by the
  workers under a temporary prefix beside it (temporary_url), then copied to
  its name object by object, server-side, its metadata (``zarr.json``) last
  (publish_url_store): until that last copy there is no array under the name,
  and after it the whole array is there. A failure or an interrupt during
  the copy removes what was copied; the temporary prefix is removed in every
  case (interrupts wait for the removals).

Not handled: a process killed outright (SIGKILL, a machine lost) during the
copy leaves chunk objects without metadata under the target prefix (no
readable array), and its temporary prefix; an interrupted multipart upload
of a large ``.npy`` may leave an incomplete upload that the store's own
lifecycle rules remove.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import MeancliError, OutputFileError
from ..interrupts import interrupts_deferred
from .atomic_write import temporary_name
from .messages import display
from .npy_write import npy_bytes
from .urls import StorageOptions, filesystem, remote_error, url_protocol

READ_ONLY = frozenset({"http", "https"})
METADATA = frozenset({"zarr.json", ".zarray", ".zgroup", ".zattrs", ".zmetadata"})


def _fs(url: str, options: StorageOptions | None) -> tuple[Any, str]:
    if url_protocol(url) in READ_ONLY:
        raise OutputFileError(f"cannot write {display(url)}: {url_protocol(url)}:// URLs are read-only")
    return filesystem(url, store_options(url, options), output=True)


def check_url_target(url: str, *, zarr: bool, options: StorageOptions | None) -> None:
    """Before any input is read: the URL can be written (its package is installed, its
    protocol writes), and for a zarr store nothing exists under its prefix.

    Raises:
        OutputFileError: ``cannot write URL: REASON``, or ``URL: exists; -o never
            replaces a remote zarr store (remove it or choose another name)``.
    """
    fs, path = _fs(url, options)
    if not zarr:
        return
    try:
        fs.invalidate_cache()  # asked of the store now, not of an earlier listing
        taken = fs.exists(path.rstrip("/"))
    except MeancliError:
        raise
    except Exception as exc:  # fsspec's filesystems raise many kinds
        raise remote_error(display(url), exc, options, output=True) from None
    if taken:
        raise OutputFileError(
            f"{display(url)}: exists; -o never replaces a remote zarr store "
            "(remove it or choose another name)"
        )


def put_npy(url: str, array: Any, options: StorageOptions | None) -> None:
    """Write ``array`` as a ``.npy`` object at ``url`` in one request of the finished bytes.

    Raises:
        OutputFileError: ``cannot write URL: REASON`` (no such bucket, access denied, no
            answer, ...); nothing is created then.
    """
    where = display(url)
    data = npy_bytes(array, where)
    fs, path = _fs(url, options)
    try:
        fs.pipe_file(path, data)
    except MeancliError:
        raise
    except Exception as exc:  # fsspec's filesystems raise many kinds
        raise remote_error(where, exc, options, output=True) from None


@contextmanager
def temporary_url(url: str, options: StorageOptions | None) -> Iterator[str]:
    """A fresh prefix beside ``url`` (``.meancli-XXXX.tmp``) for a store written before it
    is published (publish_url_store); removed on exit, interrupts deferred meanwhile."""
    parent = url.rstrip("/").rpartition("/")[0]
    tmp = f"{parent}/{temporary_name()}"
    try:
        yield tmp
    finally:
        with interrupts_deferred():
            _remove(tmp, options)


def _remove(url: str, options: StorageOptions | None) -> None:
    """Remove every object under ``url``, quietly (cleaning up after a failure)."""
    try:
        fs, path = _fs(url, options)
        if fs.exists(path):
            fs.rm(path, recursive=True)
    except Exception:
        pass


def publish_url_store(tmp: str, url: str, options: StorageOptions | None) -> None:
    """Copy the finished store ``tmp`` to ``url`` server-side, its chunks first and its
    metadata last, so that the array appears under ``url`` in one step (the metadata's
    copy); a failure or interrupt meanwhile removes what was copied.

    Raises:
        OutputFileError: something exists under ``url`` now (checked again), or a copy failed.
    """
    where = display(url)
    fs, src = _fs(tmp, options)
    _, dest = _fs(url, options)
    src, dest = src.rstrip("/"), dest.rstrip("/")
    try:
        fs.invalidate_cache()
        if fs.exists(dest):
            raise OutputFileError(
                f"{where}: exists; -o never replaces a remote zarr store (remove it or choose another name)"
            )
        objects = sorted(fs.find(src))
        data = [p for p in objects if posixpath.basename(p) not in METADATA]
        meta = [p for p in objects if posixpath.basename(p) in METADATA]
        # the root's zarr.json last of all: until then no array is under the name
        meta.sort(key=lambda p: (p == f"{src}/zarr.json" or p == f"{src}/.zarray", p))
        copied = False
        try:
            for group in (data, meta):
                for p in group:
                    copied = True
                    copy_object(fs, p, dest + p[len(src) :])
        except BaseException:
            if copied:
                with interrupts_deferred():
                    _remove(url, options)
            raise
    except MeancliError:
        raise
    except Exception as exc:  # fsspec's filesystems raise many kinds
        raise remote_error(where, exc, options, output=True) from None


def copy_object(fs: Any, source: str, dest: str) -> None:
    """Copy one object within the store, server-side (S3's CopyObject)."""
    fs.copy(source, dest)


def store_options(url: str, options: StorageOptions | None) -> dict[str, Any]:
    """The storage options zarr writes a store at ``url`` with: ``options``, and for a
    ``file://`` URL the local filesystem's ``auto_mkdir`` (fsspec creates no folder
    by itself there: every chunk's write into a new store failed)."""
    given = dict(options or {})
    if url_protocol(url) == "file":
        given.setdefault("auto_mkdir", True)
    return given


class UrlZarrTarget:
    """A zarr array at a URL that dask.array.store writes into, block by block, from any
    worker: it pickles as its URL and storage options, and each worker opens the store."""

    def __init__(self, url: str, options: StorageOptions | None) -> None:
        self.url = url
        self.options = store_options(url, options)
        self._array: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"url": self.url, "options": self.options, "_array": None}

    def __setitem__(self, region: tuple[slice, ...], block: Any) -> None:
        if self._array is None:
            import zarr

            self._array = zarr.open_array(store=self.url, mode="r+", storage_options=self.options)
        with interrupts_deferred():
            self._array[region] = block
