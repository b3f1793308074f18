"""The one engine planner: given a validated call's inputs and where the run
may go, pick the engine that runs it, for the command line and the Python
API alike.

Each engine is a module with two entry points of the same form::

    reduce(op, call, item, job) -> Outcome
    mean(op, shape, items, job) -> Outcome

(and optionally ``prepared_reduce(op, call, item, job)`` and
``prepared_mean(op, shape, items, job)``: the call ready to run again on arrays
like those, which the API keeps for calls that repeat) and an entry in
ENGINES, tried in order: the first whose ``wants`` says yes runs the call.
A new engine is its module and one line here. ``wants`` must not import the
engine's module (a run that goes elsewhere never pays for importing dask): it
only looks at the inputs and the Job.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple compiles each
# string annotation of its fields, in every run that imports this module (about
# 0.2 M instructions a class; docs/speed.md, "Start-up and quick runs").

import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from ..errors import UsageError
from . import Clock, EngineOption, ProgressFactory, StageTimes, no_progress
from .where import OPTIONS as DASK_OPTIONS
from .where import Where


class Job(NamedTuple):
    """How a call runs, whatever the engine.

    Attributes:
        options: the engines' options by name (engine_options: ``workers``,
            ``scheduler``, ``timeout``, ...), as the caller gave them; one not
            given (absent or None) takes its default. Each engine reads its own.
        threads: kernel threads (each dask task takes 1 on a cluster).
        output: the path the engine writes itself (a zarr store from the workers,
            or a ``.npy`` written block by block by the streamed Mean); None: return the result.
        clock: where stage times go (ms).
        progress: the progress bar factory.
        repeat: kernel runs timed in memory (the median is reported).
        out: an array the result goes into (the API's ``out=``); None: a new one.
        lazy: a dask array in gives a lazy dask array out (the API), not a computed one.
        storage_options: the filesystem's options for an output URL (io.urls), which the
            dask workers writing a remote zarr store get with it.
        skipna: meancli's own extension: each output is the exact mean of its
            non-NaN values (docs/semantics.md); integer types are unchanged.
        check: a comparison with the result (meancli.engine.compare.Tally) that an
            engine feeds as it writes the result: the streamed Mean writing ``output``
            itself each block, the memory engine's kernels each run of outputs while
            it is in cache; the caller finishes it, with the result when there is one.
    """

    options: Mapping[str, Any] = MappingProxyType({})
    threads: int = 1
    output: str | None = None
    clock: Clock | None = None  # None: a StageTimes of the run's own
    progress: ProgressFactory = no_progress
    repeat: int = 1
    out: Any = None
    lazy: bool = False
    storage_options: Any = None
    skipna: bool = False
    check: Any = None

    def option(self, name: str) -> Any:
        """The value of engine option ``name``: as given, else its declared default.

        Raises:
            KeyError: no engine declares ``name``.
        """
        declared = next((o for o in engine_options() if o.name == name), None)
        if declared is None:
            raise KeyError(f"no engine declares the option {name!r}")
        value = self.options.get(name)
        return declared.default if value is None else value

    @property
    def where(self) -> Where:
        """Where a dask graph runs, from the dask engine's options (Where(): this process).

        Raises:
            UsageError: both workers and a scheduler, or a malformed scheduler address.
        """
        return where_of(self.options)

    @property
    def times(self) -> Clock:
        """The clock; the planner gives every Job it dispatches one (StageTimes by default)."""
        assert self.clock is not None, "dispatched by meancli.engine.plan, which sets a clock"
        return self.clock


class Outcome(NamedTuple):
    """What an engine returns: the result (None when the engine wrote it to
    ``job.output``), what reports say of the engine (``{"name": ...}``, and for
    dask its scheduler, workers and chunk grid), and the kind of vector kernel
    that ran where the engine knows it (``"run"`` or ``"mean"``; or a function
    that works it out, which only a report calls: ``kind()``)."""

    result: Any
    engine: dict[str, Any]
    kernel_kind: str | Callable[[], str] | None = None

    def kind(self) -> str | None:
        """The kind of vector kernel that ran (``"run"``, ``"mean"``; None: unknown)."""
        return self.kernel_kind() if callable(self.kernel_kind) else self.kernel_kind


def is_source(item: Any) -> bool:
    """Whether ``item`` is read on demand (a meancli.io.source.Source); never imports it."""
    source = sys.modules.get("meancli.io.source")
    return source is not None and isinstance(item, source.Source)


def is_chunked(item: Any) -> bool:
    """Whether ``item`` is a ChunkedArray (a zarr array, a shard dataset) or a dask array;
    never imports them."""
    chunked = sys.modules.get("meancli.io.chunked")
    da = sys.modules.get("dask.array")
    return (chunked is not None and isinstance(item, chunked.ChunkedArray)) or (
        da is not None and isinstance(item, da.Array)
    )


def _wants_dask(items: Sequence[Any], job: Job) -> bool:
    # imported here, not above: the command line lists the engines' options
    # (engine_options) as it starts, before numpy is needed
    from ..io.registry import output_format

    return (
        job.where.cluster
        or (job.output is not None and output_format(job.output) == "zarr")
        or any(is_chunked(x) for x in items)
    )


def _wants_streamed(items: Sequence[Any], job: Job) -> bool:
    return any(is_source(x) for x in items)


class Engine(NamedTuple):
    """A planner entry: the engine's name, its module, when it runs a call,
    and the options it takes from its caller (declared by the engine, in a
    module that does not import what the engine runs on)."""

    name: str
    module: str
    wants: Callable[[Sequence[Any], Job], bool]
    options: tuple[EngineOption, ...] = ()


ENGINES: list[Engine] = [
    Engine("dask", "meancli.engine.dask.run", _wants_dask, DASK_OPTIONS),
    Engine("streamed", "meancli.engine.streamed", _wants_streamed),
    Engine("memory", "meancli.engine.memory", lambda items, job: True),
]


def engine_options() -> list[EngineOption]:
    """Every engine's options, in planner order (the command line makes a flag of each)."""
    return [option for engine in ENGINES for option in engine.options]


_HERE = Where()  # this process


def where_of(values: Mapping[str, Any]) -> Where:
    """Where a call runs, from the engine options' values by name (None: not
    given, the option's default).

    Raises:
        UsageError: both workers and a scheduler, or a malformed scheduler
            address (check_where).
    """
    if all(values.get(o.name) is None for o in DASK_OPTIONS):
        return _HERE  # the API's every call: nothing to check
    given = {o.name: o.default if values.get(o.name) is None else values[o.name] for o in DASK_OPTIONS}
    where = Where(**given)
    check_where(where)
    return where


def choose(items: Sequence[Any], job: Job) -> Engine:
    """The engine that runs a call on ``items`` (arrays, Sources, ChunkedArrays, dask arrays)."""
    return next(e for e in ENGINES if e.wants(items, job))


def reduce(op: Any, call: Any, item: Any, job: Job) -> Outcome:
    """ReduceMean of ``item`` for a validated ``call`` (meancli.ops.validate) on the chosen engine.

    Raises:
        MeancliError: what the engine raises (unreadable data, a cluster that
            cannot be reached, an output that cannot be written).
    """
    engine = choose([item], job)
    outcome: Outcome = importlib.import_module(engine.module).reduce(op, call, item, _clocked(job))
    return outcome


def prepared_reduce(op: Any, call: Any, item: Any, job: Job) -> Callable[..., Any] | None:
    """ReduceMean of ``item`` for a validated ``call``, prepared to run again on
    arrays like it (``prepared(data, out)`` returns the result), where the chosen
    engine offers that (its ``prepared_reduce``: the memory engine, for one kernel
    call); None: run the call through reduce() instead."""
    module = importlib.import_module(choose([item], job).module)
    prepare = getattr(module, "prepared_reduce", None)
    return None if prepare is None else prepare(op, call, item, job)


def mean(op: Any, shape: tuple[int, ...], items: Sequence[Any], job: Job) -> Outcome:
    """Element-wise Mean of validated ``items`` broadcasting to ``shape`` on the chosen engine.

    Raises:
        MeancliError: what the engine raises.
    """
    engine = choose(items, job)
    outcome: Outcome = importlib.import_module(engine.module).mean(op, shape, list(items), _clocked(job))
    return outcome


def prepared_mean(
    op: Any, shape: tuple[int, ...], items: Sequence[Any], job: Job
) -> Callable[..., Any] | None:
    """Element-wise Mean of validated ``items``, prepared to run again on arrays
    like them (``prepared(items, out)`` returns the result), where the chosen
    engine offers that (its ``prepared_mean``); None: run it through mean() instead."""
    module = importlib.import_module(choose(items, job).module)
    prepare = getattr(module, "prepared_mean", None)
    return None if prepare is None else prepare(op, shape, list(items), job)


def _clocked(job: Job) -> Job:
    return job if job.clock is not None else job._replace(clock=StageTimes())


def lazy_array(item: Any) -> Any:
    """A ChunkedArray (a zarr array, a shard dataset) as a dask array on its own chunk grid.

    Raises:
        InputFileError: dask is not installed.
    """
    graphs = importlib.import_module("meancli.engine.dask.graphs")
    return graphs.as_dask(item, cluster=True)


def check_where(where: Where) -> None:
    """Refuse, before anything is read, a place to run that cannot be used:
    both ``workers`` and ``scheduler``, or a malformed scheduler address.

    Raises:
        UsageError: one line saying why, with an example address.
    """
    if where.workers is not None and where.scheduler is not None:
        raise UsageError("--workers and --scheduler cannot be combined (--workers starts its own cluster)")
    if where.scheduler is None:
        return
    if not where.scheduler.strip():
        raise UsageError("--scheduler needs an address such as tcp://HOST:8786")
    cluster = importlib.import_module("meancli.engine.dask.cluster")
    why = cluster.scheduler_address_error(where.scheduler)
    if why is not None:
        raise UsageError(f"--scheduler {where.scheduler!r}: {why} (give an address such as tcp://HOST:8786)")
