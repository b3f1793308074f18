"""Where a validated call runs: plan, then run in memory, in streamed slabs, or on dask.

The front ends (the CLI and the Python API) resolve the operator version and
validate the call; the engine then picks one of three ways to run it:

- ``memory``: the whole input in memory (or memory-mapped), one kernel call
  (meancli.api.execute_reduce / execute_mean).
- ``streamed``: a large ``.npy`` or stdin read in slabs of about
  meancli.streaming.SLAB_BYTES (meancli.engine.streamed), bounded memory.
- ``dask``: a chunked input (a zarr array, a dataset of ``.npy`` shards, a
  dask array) as a dask graph whose tasks are meancli's kernels
  (meancli.engine.distributed). Its scheduler is this process
  (``synchronous``: chunk by chunk, bounded memory), a ``LocalCluster`` of
  ``--workers N`` processes, or an existing cluster (``--scheduler``).

ReduceMean on dask reduces each chunk to exact partial states
(meancli.kernels.reduce_partial), combines them exactly and rounds once
(finalize_partials): the result is the same bits for every chunk grid,
tree shape, worker count and scheduler, and the same as in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

Progress = Callable[[int], None]  # called with units (bytes, tasks) just done
# Given the total, a label and the unit ("bytes" or "tasks"): a context yielding a
# Progress, or None (no bar shown).
ProgressFactory = Callable[[int, str, str], AbstractContextManager[Progress | None]]


class Clock(Protocol):
    """Where stage times go (the CLI's Report is one): ``timings_ms[name]`` in milliseconds."""

    timings_ms: dict[str, float]

    def stage(self, name: str) -> AbstractContextManager[Any]: ...


class StageTimes:
    """A Clock for callers that keep the times for themselves (the Python API)."""

    def __init__(self) -> None:
        self.timings_ms: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        import time

        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings_ms[name] = self.timings_ms.get(name, 0.0) + (time.perf_counter() - start) * 1e3


@contextmanager
def no_progress(total: int, label: str, unit: str) -> Iterator[Progress | None]:
    """A ProgressFactory that shows nothing."""
    yield None


def allocate(shape: tuple[int, ...], dtype: Any, inputs: str) -> Any:
    """np.empty for a result, or an error naming ``inputs`` when it does not fit in memory.

    Raises:
        InputFileError: the result's size cannot be allocated.
    """
    import numpy as np

    from ..errors import InputFileError

    try:
        return np.empty(shape, dtype=dtype)
    except (MemoryError, ValueError):
        raise InputFileError(
            f"{inputs}: the result, shape {shape} {np.dtype(dtype)}, does not fit in memory"
        ) from None
