"""Zarr outputs (``-o OUT.zarr``): what they may replace, the temporary store
they are written into, the writer of its blocks, and publishing it in one step.

What OUT may replace: nothing, an empty directory, or a zarr array. A zarr
output is written into a temporary store and renamed over OUT when it is
complete, so whatever OUT held is removed then. That is right for an earlier
result (a zarr array) and for an empty directory made to receive the result
(``mkdir out.zarr``), and data loss for anything else: a directory of the
user's files, a zarr group holding other arrays, a plain file that happens to
end in ``.zarr``. Those are refused before any input is read.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ..errors import OutputFileError
from ..interrupts import interrupts_deferred
from .atomic_write import temporary_name
from .messages import display


def is_zarr_array_dir(path: str) -> bool:
    """Whether ``path`` is a directory holding a zarr array's metadata: format 3
    ``zarr.json`` with ``"node_type": "array"``, or format 2 ``.zarray`` (and no
    ``.zgroup``)."""
    if not os.path.isdir(path):
        return False
    kind = _metadata_node_type(path)
    if kind is not None:
        return kind == "array"
    return os.path.isfile(os.path.join(path, ".zarray")) and not os.path.exists(os.path.join(path, ".zgroup"))


# What zarr writes in an array's directory: its metadata (format 3, format 2),
# and chunk keys: "c/..." (format 3's default), or "0.1.2" / "0/1/2" (format
# 2, format 3's "v2" encoding).
_ZARR_NAMES = frozenset({"zarr.json", ".zarray", ".zattrs", "c"})
_CHUNK_KEY = re.compile(r"\d+(\.\d+)*")


def foreign_entries(path: str) -> list[str]:
    """The entries of directory ``path`` that zarr does not write in an array's
    directory, sorted (top level only)."""
    try:
        names = os.listdir(path)
    except OSError:
        return []
    return sorted(n for n in names if n not in _ZARR_NAMES and not _CHUNK_KEY.fullmatch(n))


def _metadata_node_type(path: str) -> str | None:
    """A directory's format 3 ``zarr.json`` node type; "" when that file cannot be
    read as zarr metadata; None when there is none."""
    v3 = os.path.join(path, "zarr.json")
    if not os.path.isfile(v3):
        return None
    try:
        with open(v3, "rb") as fp:
            meta = json.loads(fp.read(1 << 20))
    except (OSError, ValueError):
        return ""
    kind = meta.get("node_type") if isinstance(meta, dict) else None
    return kind if kind in ("array", "group") else ""


def is_empty_dir(path: str) -> bool:
    """Whether ``path`` is a directory (not a symbolic link to one) with no entries."""
    if os.path.islink(path) or not os.path.isdir(path):
        return False
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def check_zarr_target(path: str) -> None:
    """Refuse an output store ``path`` that exists and is neither a zarr array nor an
    empty directory.

    Raises:
        OutputFileError: ``OUT: exists and is (a directory that is not a zarr array|a
            zarr group|a directory whose zarr.json is not zarr metadata|a zarr array
            beside files zarr does not write (NAMES)|a file, not a zarr array|a
            dangling symbolic link); -o replaces only an earlier zarr array (remove
            it or choose another name)``.
    """
    if not os.path.lexists(path):
        return
    if is_empty_dir(path):
        return
    if is_zarr_array_dir(path):
        foreign = foreign_entries(path)
        if not foreign:
            return
        listed = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        what = f"a zarr array beside files zarr does not write ({listed})"
    elif os.path.isdir(path):
        kind = _metadata_node_type(path)
        if kind == "":
            what = "a directory whose zarr.json is not zarr metadata"
        elif kind == "group" or os.path.isfile(os.path.join(path, ".zgroup")):
            what = "a zarr group"
        else:
            what = "a directory that is not a zarr array"
    elif os.path.islink(path) and not os.path.exists(path):
        what = "a dangling symbolic link"
    else:
        what = "a file, not a zarr array"
    raise OutputFileError(
        f"{display(path)}: exists and is {what}; -o replaces only an earlier zarr array "
        "(remove it or choose another name)"
    )


@contextmanager
def temporary_store(path: str) -> Iterator[str]:
    """A fresh name beside ``path`` for a store written before it is published
    (replace_store); removed on exit if it is left."""
    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, temporary_name())
    try:
        yield tmp
    finally:
        # removed whole: a second Ctrl-C (or `timeout`, which signals the process
        # and then its group) waits for the removal instead of cutting it short
        with interrupts_deferred():
            if os.path.exists(tmp):
                shutil.rmtree(tmp, ignore_errors=True)


def replace_store(tmp: str, path: str) -> None:
    """Rename the finished store ``tmp`` to ``path``, replacing what is there: only a
    zarr array or an empty directory (checked before the run, and again here in
    case it changed since)."""
    check_zarr_target(path)
    if not is_zarr_array_dir(path):
        # Nothing or an empty directory, as checked: rename(2) puts the store there in
        # one step, and refuses a directory filled or a file made there since.
        try:
            os.rename(tmp, path)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
                raise
            check_zarr_target(path)  # what is there now is refused, in the same words
            raise
    else:
        # An earlier array: the two swap places in one step where Linux can
        # (renameat2 RENAME_EXCHANGE), so `path` always names one of them; the
        # old one is then removed. Interrupts wait meanwhile: a run interrupted
        # there ends after it, with the new array in place and the old gone.
        os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))  # the directory's mode stays
        with interrupts_deferred():
            if _exchange(tmp, path):
                old = tmp
            else:
                old = f"{tmp}.old"
                os.rename(path, old)
                os.rename(tmp, path)
            if os.path.isdir(old) and not os.path.islink(old):
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.unlink(old)


def _exchange(a: str, b: str) -> bool:
    """Swap the names ``a`` and ``b`` atomically (Linux renameat2 RENAME_EXCHANGE);
    False where the system or the file system cannot.

    Raises:
        OSError: the swap failed for another reason.
    """
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux, or a C library without it
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), b)


class ZarrTarget:
    """A zarr array that dask.array.store writes into, block by block, from any
    worker: it pickles as its path and opens the store where it is written."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._array: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "_array": None}

    def __setitem__(self, region: tuple[slice, ...], block: np.ndarray[Any, Any]) -> None:
        if self._array is None:
            import zarr

            self._array = zarr.open_array(store=self.path, mode="r+")
        # zarr writes on its own I/O thread: a Ctrl-C that ended the wait here
        # would let it write on after the run removed the temporary store
        with interrupts_deferred():
            self._array[region] = block
