"""What a FILE argument names: a ``.npy`` file, ``-`` (stdin), an ``.npz``
archive (every array, in stored order) or one member of it (``data.npz:name``).
"""

from __future__ import annotations

import os
from typing import Any, NamedTuple

import numpy as np

from .errors import InputFileError
from .npyio import NpyHeader, read_npy

ZIP_MAGIC = b"PK\x03\x04"


class NamedArray(NamedTuple):  # not a dataclass: no methods compiled at import time
    """One input tensor and the name the report shows for it (``path`` or ``path:member``)."""

    name: str
    array: np.ndarray[Any, Any]
    header: NpyHeader | None  # None for .npz members (numpy parsed them)


def _is_zip(path: str) -> bool:
    try:
        with open(path, "rb") as fp:
            return fp.read(4) == ZIP_MAGIC
    except OSError:
        return False


def _split_member(arg: str) -> tuple[str, str | None]:
    """``data.npz:name`` -> (``data.npz``, ``name``); anything else -> (arg, None)."""
    head, sep, member = arg.rpartition(":")
    if sep and head.lower().endswith(".npz") and os.path.isfile(head):
        return head, member
    return arg, None


def read_inputs(arg: str, *, mmap: bool = True) -> list[NamedArray]:
    """The arrays one FILE argument names.

    Args:
        arg: ``-``, a ``.npy`` path, an ``.npz`` path (all members, in stored
            order), or ``path.npz:member``.
        mmap: memory-map regular ``.npy`` files.

    Returns:
        One NamedArray for ``.npy``/``-``/a member; one per member for an archive.

    Raises:
        InputFileError: anything unreadable or malformed, an empty archive, a
            missing member (the message lists the members there are), or an
            archive member that needs pickle.
    """
    path, member = _split_member(arg)
    if path != "-" and (member is not None or (os.path.isfile(path) and _is_zip(path))):
        return _read_npz(path, member)
    array, header = read_npy(path, mmap=mmap)
    return [NamedArray(arg, array, header)]


def _read_npz(path: str, member: str | None) -> list[NamedArray]:
    try:
        archive = np.load(path, allow_pickle=False, mmap_mode=None)
    except Exception as exc:  # zipfile and numpy raise many kinds for a bad archive
        raise InputFileError(f"{path}: not a readable .npz archive: {' '.join(str(exc).split())}") from None
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise InputFileError(f"{path}: not an .npz archive")
    with archive:
        names = list(archive.files)
        if member is not None and member not in names:
            listed = ", ".join(names) if names else "none"
            raise InputFileError(f"{path}: no array named {member!r} (the archive holds: {listed})")
        wanted = [member] if member is not None else names
        if not wanted:
            raise InputFileError(f"{path}: the archive holds no arrays")
        out = []
        for name in wanted:
            try:
                array = archive[name]
            except MemoryError:
                raise InputFileError(f"{path}:{name}: the array does not fit in memory") from None
            except Exception as exc:  # zipfile, zlib and numpy raise many kinds for a bad member
                reason = " ".join(str(exc).split()) or type(exc).__name__
                raise InputFileError(f"{path}:{name}: cannot read the array: {reason}") from None
            if not isinstance(array, np.ndarray):
                raise InputFileError(f"{path}:{name}: the member is not a .npy array")
            out.append(NamedArray(f"{path}:{name}", _bfloat16_view(array), None))
    return out


def _bfloat16_view(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    # numpy stores ml_dtypes' bfloat16 as 2-byte void, as in .npy files
    if array.dtype.kind == "V" and array.dtype.itemsize == 2 and array.dtype.names is None:
        import ml_dtypes

        return array.view(ml_dtypes.bfloat16)
    return array
