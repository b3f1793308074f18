"""Where a run goes: in memory, streamed in slabs (meancli.streaming), or dask
(meancli.engine.distributed).

Kept apart from both so that a run that goes to neither (a small ``.npy``
file, no ``--workers``/``--scheduler``, a ``.npy`` output) decides so without
importing them: a streamed or chunked input exists only once its module has
been imported, so the tests here look the module up in ``sys.modules``.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import Any, NamedTuple

# Inputs with at least this many bytes (a regular .npy file's size, an .npz member's
# uncompressed size, stdin's data) are streamed; read on each use, so tests can lower it.
STREAM_MIN_BYTES = int(os.environ.get("MEANCLI_STREAM_MIN_BYTES", 256 << 20))
DEFAULT_TIMEOUT = 30.0  # seconds to reach a scheduler and see a worker


class Where(NamedTuple):
    """Where a dask graph runs: ``workers`` (a LocalCluster), ``scheduler`` (an
    address), or neither (this process, synchronously)."""

    workers: int | None = None
    scheduler: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @property
    def cluster(self) -> bool:
        return self.workers is not None or self.scheduler is not None


def streams_file(path: str) -> bool:
    """Whether the ``.npy`` file ``path`` is streamed: a regular file of at least
    STREAM_MIN_BYTES (False when it cannot be stat'ed: the in-memory reader reports it)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size >= STREAM_MIN_BYTES


def is_streamed(item: Any) -> bool:
    """Whether ``item`` is a streaming.Source."""
    streaming = sys.modules.get("meancli.streaming")
    return streaming is not None and isinstance(item, streaming.Source)


def is_chunked(item: Any) -> bool:
    """Whether ``item`` is a chunked.ChunkedArray (a zarr array, a shard dataset) or a dask array."""
    chunked = sys.modules.get("meancli.chunked")
    da = sys.modules.get("dask.array")
    return (chunked is not None and isinstance(item, chunked.ChunkedArray)) or (
        da is not None and isinstance(item, da.Array)
    )


def is_zarr_output(output: str | None) -> bool:
    """``-o OUT.zarr``: the result goes to a zarr store."""
    return output is not None and output.rstrip("/").lower().endswith(".zarr")


def wanted(where: Where, output: str | None, items: list[Any]) -> bool:
    """Whether a run goes to dask: a cluster was named, the output is a zarr
    store, or an input is chunked (a zarr array, a shard dataset, a dask array)."""
    return where.cluster or is_zarr_output(output) or any(is_chunked(x) for x in items)
