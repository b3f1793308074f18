"""Where a validated call runs: one planner (meancli.engine.plan) picks the
engine for the command line and the Python API alike.

- ``memory`` (engine/memory.py): the whole input in memory (or memory-mapped),
  one kernel call.
- ``streamed`` (engine/streamed.py): inputs larger than memory (a large ``.npy``,
  stdin, a large ``.npz`` member, a large memory-mapped array from the API)
  read in slabs, bounded memory.
- ``dask`` (engine/dask/): a chunked input (a zarr array, a dataset of ``.npy``
  shards, a dask array), or a run with ``--workers``/``--scheduler`` or a zarr
  output, as a dask graph whose tasks are meancli's kernels. Its scheduler is
  this process (chunk by chunk, bounded memory), a ``LocalCluster`` of
  ``--workers N`` processes, or an existing cluster (``--scheduler``).

Every engine gives the same bits: ReduceMean on dask reduces each chunk to
exact partial states, combines them exactly and rounds once.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple compiles each
# string annotation of its fields, in every run that imports this module (about
# 0.2 M instructions a class; docs/speed.md, "Start-up and quick runs").

import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, NamedTuple, Protocol

from ..errors import NotEnoughMemory

Progress = Callable[[int], None]  # called with units (bytes, tasks) just done
# Given the total, a label and the unit ("bytes" or "tasks"): a context yielding a
# Progress, or None (no bar shown).
ProgressFactory = Callable[[int, str, str], AbstractContextManager[Progress | None]]


class EngineOption(NamedTuple):
    """An option an engine takes from its caller, declared by the engine
    (listed by its planner entry, meancli.engine.plan.Engine.options): the
    command line makes ``flag`` of it, as it makes an option of each spec
    attribute. ``name`` is the keyword the engine reads it by; ``type`` int,
    float or str; ``minimum``/``maximum`` bound numbers (a float must also be
    a number: NaN is refused); ``default`` applies when it is not given."""

    name: str
    flag: str
    type: type
    default: Any
    metavar: str
    help: str
    minimum: float | None = None
    maximum: float | None = None


class Clock(Protocol):
    """Where stage times go (StageTimes, and the CLI's Report, one of them):
    ``timings_ms[name]`` in milliseconds."""

    timings_ms: dict[str, float]

    def stage(self, name: str) -> AbstractContextManager[Any]: ...

    def repeat(self, name: str, fn: Callable[[], Any], times: int) -> Any: ...


class StageTimes:
    """A Clock: the stages' wall-clock times in ``timings_ms`` (milliseconds)."""

    def __init__(self) -> None:
        self.timings_ms: dict[str, float] = {}
        self.repeats = 1

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the enclosed block as stage ``name`` (added to what it already took)."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.timings_ms[name] = self.timings_ms.get(name, 0.0) + (time.perf_counter() - start) * 1e3

    def repeat(self, name: str, fn: Callable[[], Any], times: int) -> Any:
        """Run ``fn()`` ``times`` times as stage ``name``; the stage's time is the
        median, and ``{name}_min`` is recorded too when times > 1. Returns the last result."""
        samples = []
        result = None
        for _ in range(times):
            start = time.perf_counter()
            result = fn()
            samples.append((time.perf_counter() - start) * 1e3)
        samples.sort()
        half = len(samples) // 2
        self.timings_ms[name] = samples[half] if len(samples) % 2 else (samples[half - 1] + samples[half]) / 2
        if times > 1:
            self.timings_ms[f"{name}_min"] = samples[0]
            self.repeats = times
        return result


@contextmanager
def no_progress(total: int, label: str, unit: str) -> Iterator[Progress | None]:
    """A ProgressFactory that shows nothing."""
    yield None


def allocate(shape: tuple[int, ...], dtype: Any, inputs: str | None) -> Any:
    """np.empty for a result, or an error naming ``inputs`` (None: none named, the API's
    arrays) when it does not fit in memory.

    Raises:
        NotEnoughMemory: the result's size cannot be allocated.
    """
    import numpy as np  # not at import: the command line's start-up does without it

    try:
        return np.empty(shape, dtype=dtype)
    except (MemoryError, ValueError):  # ValueError: numpy's "array is too big"
        says = f"the result, shape {shape} {np.dtype(dtype)}, does not fit in memory"
        raise NotEnoughMemory(f"{inputs}: {says}" if inputs else says) from None
