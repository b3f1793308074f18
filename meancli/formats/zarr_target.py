"""What ``-o OUT.zarr`` may replace: nothing, an empty directory, or a zarr array.

A zarr output is written into a temporary store and renamed over OUT when it
is complete, so whatever OUT held is removed then. That is right for an
earlier result (a zarr array) and for an empty directory made to receive the
result (``mkdir out.zarr``), and data loss for anything else: a directory of
the user's files, a zarr group holding other arrays, a plain file that
happens to end in ``.zarr``. Those are refused before any input is read.
"""

from __future__ import annotations

import json
import os
import re

from ..errors import OutputFileError
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
