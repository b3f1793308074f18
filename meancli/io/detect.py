"""Which format a file holds, by content (as ``np.load`` decides), without loading ``zipfile``."""

from __future__ import annotations

import os
import stat
from typing import Literal

from .npy_format import MAGIC, ZIP_MAGICS

Format = Literal["npy", "npz", "pb"]
PB_SUFFIX = ".pb"


def _has_pb_suffix(path: str) -> bool:
    return path.lower().endswith(PB_SUFFIX)


def input_format(path: str) -> Format:
    """``npz`` for a zip archive, ``npy`` for ``.npy`` magic, else ``pb`` for a ``.pb`` name.

    Anything else, and anything that cannot be opened, is ``npy``: the ``.npy`` reader
    then says what is wrong.  A pipe or other non-regular file is judged by its name
    alone (peeking would consume its bytes).  ``-`` (stdin) is ``npy``.
    """
    if path == "-":
        return "npy"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return "pb" if _has_pb_suffix(path) else "npy"
        with open(path, "rb") as fp:
            start = fp.read(len(MAGIC))
    except (OSError, ValueError):
        return "npy"
    if start[:4] in ZIP_MAGICS:
        return "npz"
    if start.startswith(MAGIC):
        return "npy"
    return "pb" if _has_pb_suffix(path) else "npy"
