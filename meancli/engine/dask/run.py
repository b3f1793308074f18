"""The dask engine's entry points for the planner (meancli.engine.plan): build
the graph at the place ``Where`` names, run it, and return the result or write
it to a zarr store from the workers."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from ...dtypes import is_bfloat16, spec_name
from ...errors import OutputFileError
from ...io.chunked import ChunkedArray, require
from ...io.messages import reason
from ...io.registry import output_format
from ...io.remote_output import UrlZarrTarget, publish_url_store, store_options, temporary_url
from ...io.source import Source
from ...io.urls import StorageOptions, is_url, remote_error
from ...io.zarr_output import ZarrTarget, replace_store, temporary_store
from ...ops.rules import ReduceCall
from .. import ProgressFactory, allocate
from ..plan import Job, Outcome
from ..where import DEFAULT_TIMEOUT, Where
from .cluster import connect, workers_of
from .compute import compute
from .graphs import as_dask, chunk_grid, is_dask_array, mean_graph, reduce_graph


def write_zarr(
    result: Any,
    path: str,
    tmp: str,
    client: Any,
    progress: ProgressFactory,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    options: StorageOptions | None = None,
) -> None:
    """Write dask array ``result`` to a new zarr (format 3) array at ``path``,
    block by block from wherever the graph runs, atomically: into a temporary
    store beside ``path``, renamed into place once complete (an existing
    ``path`` is replaced only then). ``tmp`` is that temporary store
    (temporary_store()); the caller removes it once no worker can write into
    it any more (after the cluster has stopped the run's tasks). A URL ``path``
    (``s3://bucket/out.zarr``, with the storage ``options``): the workers write a
    temporary prefix beside it (temporary_url()), published by a server-side copy
    whose last step writes the metadata (io.remote_output.publish_url_store).

    Raises:
        InputFileError: a dtype zarr cannot store (bfloat16), or the store
            cannot be written.
    """
    zarr = require("zarr")
    da = require("dask.array")
    remote = is_url(path)
    if is_bfloat16(result.dtype):
        raise OutputFileError(f"{path}: zarr has no bfloat16 data type; write the result as .npy")
    # A rank-0 result is one chunk of shape (): zarr takes chunks=() for it (None is refused).
    chunk = tuple(max(c) if c else 1 for c in result.chunks)
    try:
        extra = {"storage_options": store_options(tmp, options)} if remote else {}
        zarr.create_array(store=tmp, shape=result.shape, chunks=chunk, dtype=result.dtype, **extra)
        regular = result.rechunk(chunk) if result.ndim else result
        target = UrlZarrTarget(tmp, options) if remote else ZarrTarget(tmp)
        stored = da.store(regular, target, lock=False, compute=False)
        compute([stored], client, progress, timeout=timeout)
        if remote:
            publish_url_store(tmp, path, options)
        else:
            replace_store(tmp, path)
    except OSError as exc:
        if is_url(path):
            raise remote_error(path, exc, options, output=True) from None
        raise OutputFileError(f"cannot write {path}: {reason(exc)}") from None


def _graph_input(item: Any) -> Any:
    """A streamed .npy becomes a one-shard dataset (read by the workers); stdin is read whole."""
    if not isinstance(item, Source):
        return item
    if item.seekable:
        item.finish()
        return item.dataset()
    data = item.read_all()
    item.finish()
    return data


def _info(where: Where, client: Any, xs: list[Any]) -> dict[str, Any]:
    return {
        "name": "dask",
        "scheduler": where.scheduler
        if where.scheduler is not None
        else ("local-cluster" if where.workers is not None else "synchronous"),
        "workers": workers_of(client),
        "chunks": [chunk_grid(x) for x in xs],
    }


def _run(items: list[Any], graph: Callable[[list[Any], int], Any], job: Job) -> Outcome:
    """Build ``graph(dask inputs, kernel threads)`` at ``job.where`` and run it.

    Returns:
        The Outcome: the result (None when written to the zarr store ``job.output``
        block by block from the workers) and what the report says of where it ran
        (engine, scheduler, workers, chunk grid). Stage times go to ``job.times``:
        cluster, graph, kernel (reading and reducing the chunks, writing a zarr output).

    Raises:
        ClusterError: see connect(); InputFileError: a chunk that cannot be
            read (named); OutputFileError: an output that cannot be written.
    """
    where, output, clock, progress = job.where, job.output, job.times, job.progress
    threads = job.threads
    with ExitStack() as stack:
        # entered first, left last: removed only after the cluster has stopped every task
        zarr_out = output is not None and output_format(output) == "zarr"
        tmp = ""
        if output is not None and zarr_out:
            temporary = (
                temporary_url(output, job.storage_options) if is_url(output) else temporary_store(output)
            )
            tmp = stack.enter_context(temporary)
        with clock.stage("cluster"):
            client = stack.enter_context(connect(where))
        with clock.stage("graph"):
            xs = [as_dask(x, cluster=where.cluster) for x in items]
            result = graph(xs, 1 if where.cluster else threads)
        info = _info(where, client, xs)
        if output is not None and output_format(output) == "zarr":
            assert output is not None
            with clock.stage("kernel"):
                write_zarr(
                    result, output, tmp, client, progress, timeout=where.timeout, options=job.storage_options
                )
            return Outcome(None, info)
        # the result comes back to this process: one that cannot be held is refused now, as
        # the in-memory engine refuses it, not once the gathered blocks have filled the memory
        probe = allocate(tuple(result.shape), result.dtype, ", ".join(_names(items)))
        del probe
        with clock.stage("kernel"):
            (value,) = compute([result], client, progress, timeout=where.timeout)
    return Outcome(value, info)


def _names(items: list[Any]) -> list[str]:
    """How errors name the inputs: a zarr array's or shard dataset's name ("the input" for
    an array or a dask array, whose name is its graph key)."""
    return [x.name if isinstance(x, ChunkedArray) else "the input" for x in items]


def reduce(op: Any, call: ReduceCall, item: Any, job: Job) -> Outcome:
    """The planner's entry (meancli.engine.plan): ReduceMean of ``item`` (a ChunkedArray,
    array, Source or dask array) on dask at ``job.where`` (see _run); a lazy dask array
    when ``job.lazy`` and ``item`` is a dask array."""
    if job.lazy and is_dask_array(item):
        graph = reduce_graph(item, call, spec_name(item.dtype), skipna=job.skipna)
        return Outcome(graph, {"name": "dask", "lazy": True})
    item = _graph_input(item)
    dtype_name = spec_name(item.dtype)
    return _run(
        [item], lambda xs, t: reduce_graph(xs[0], call, dtype_name, threads=t, skipna=job.skipna), job
    )


def mean(op: Any, shape: tuple[int, ...], items: list[Any], job: Job) -> Outcome:
    """The planner's entry: element-wise Mean of ``items`` (broadcasting to ``shape``) on
    dask at ``job.where`` (see _run); a lazy dask array when ``job.lazy``."""
    dtype_name = spec_name(items[0].dtype)
    if job.lazy:
        xs = [x if is_dask_array(x) else as_dask(x, cluster=False) for x in items]
        return Outcome(mean_graph(xs, shape, dtype_name, skipna=job.skipna), {"name": "dask", "lazy": True})
    return _run(
        [_graph_input(x) for x in items],
        lambda xs, t: mean_graph(xs, shape, dtype_name, threads=t, skipna=job.skipna),
        job,
    )
