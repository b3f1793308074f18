"""When an input is read on demand (meancli.io.source) rather than whole: one
threshold, read on each use so tests can lower it. Its own module so that a run
on a small file decides without importing the streaming machinery."""

from __future__ import annotations

import os
import stat

# Inputs with at least this many bytes (a regular .npy file's size, an .npz member's
# uncompressed size, stdin's data, a memory-mapped array's) are streamed.
STREAM_MIN_BYTES = int(os.environ.get("MEANCLI_STREAM_MIN_BYTES", 256 << 20))


def streams_size(nbytes: int) -> bool:
    """Whether data of ``nbytes`` bytes is streamed: at least STREAM_MIN_BYTES."""
    return nbytes >= STREAM_MIN_BYTES


def streams_file(path: str) -> bool:
    """Whether the ``.npy`` file ``path`` is streamed: a regular file of at least
    STREAM_MIN_BYTES (False when it cannot be stat'ed: the in-memory reader reports it)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and streams_size(st.st_size)
