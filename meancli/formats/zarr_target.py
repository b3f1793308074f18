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

from ..errors import InputFileError
from .messages import display


def is_zarr_array_dir(path: str) -> bool:
    """Whether ``path`` is a directory holding a zarr array's metadata: format 3
    ``zarr.json`` with ``"node_type": "array"``, or format 2 ``.zarray`` (and no
    ``.zgroup``)."""
    if not os.path.isdir(path):
        return False
    v3 = os.path.join(path, "zarr.json")
    if os.path.isfile(v3):
        try:
            with open(v3, "rb") as fp:
                meta = json.loads(fp.read(1 << 20))
        except (OSError, ValueError):
            return False
        return isinstance(meta, dict) and meta.get("node_type") == "array"
    return os.path.isfile(os.path.join(path, ".zarray")) and not os.path.exists(os.path.join(path, ".zgroup"))


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
        InputFileError: ``OUT: exists and is (a directory that is not a zarr array|a
            zarr group|a file, not a zarr array|a dangling symbolic link); -o replaces
            only an earlier zarr array (remove it or choose another name)``.
    """
    if not os.path.lexists(path):
        return
    if is_zarr_array_dir(path) or is_empty_dir(path):
        return
    if os.path.isdir(path):
        group = any(os.path.isfile(os.path.join(path, meta)) for meta in ("zarr.json", ".zgroup"))
        what = "a zarr group" if group else "a directory that is not a zarr array"
    elif os.path.islink(path) and not os.path.exists(path):
        what = "a dangling symbolic link"
    else:
        what = "a file, not a zarr array"
    raise InputFileError(
        f"{display(path)}: exists and is {what}; -o replaces only an earlier zarr array "
        "(remove it or choose another name)"
    )
