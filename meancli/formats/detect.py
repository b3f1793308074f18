"""Which format a file holds: by content for inputs (as ``np.load`` decides), by suffix for outputs;
and where an ``archive.npz:member`` argument splits (without loading ``zipfile``)."""

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


def output_format(path: str) -> Format:
    """``pb`` for a ``.pb`` name, ``npz`` for an ``.npz`` name (which no writer takes),
    else ``npy`` (``-``, stdout, is ``npy``)."""
    if path == "-":
        return "npy"
    if _has_pb_suffix(path):
        return "pb"
    return "npz" if path.lower().endswith(".npz") else "npy"


def split_member(arg: str) -> tuple[str, str | None]:
    """``data.npz:dense/kernel:0`` -> (``data.npz``, ``dense/kernel:0``).

    An argument that names an existing file is a path; otherwise the path ends at the
    first ``:`` where what comes before it is an existing file.  No such point: the
    argument is a path (that the reader will report missing).
    """
    if arg == "-" or ":" not in arg or os.path.exists(arg):
        return arg, None
    at = arg.find(":")
    while at >= 0:
        head = arg[:at]
        if head and os.path.isfile(head):
            return head, arg[at + 1 :]
        at = arg.find(":", at + 1)
    return arg, None
