"""The dask engine: chunked inputs as dask graphs of meancli's kernels.

- ReduceMean: ``dask.array.reduction`` with the exact partial states as
  chunk / combine / aggregate (meancli.engine.tasks): the same bits for any
  chunk grid, ``split_every``, worker count or scheduler.
- Mean: ``dask.array.blockwise`` over the inputs aligned on their trailing
  dims (multidirectional broadcasting: a size-1 dim stretches).

Where it runs (meancli.engine.where.Where): this process with dask's synchronous
scheduler (chunk by chunk, bounded memory), a ``LocalCluster`` of
``workers`` processes on 127.0.0.1, or the cluster at ``scheduler``. Only
public dask and distributed API is used.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import logging
import os
import shutil
import stat
import sys
import time
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ..chunked import ChunkedArray, require
from ..errors import ClusterError, InputFileError, OutputFileError
from ..formats.dtypes import native_dtype
from ..formats.messages import reason
from ..interrupts import IGNORED_ENV, ignored_interrupts, interrupts_deferred
from . import Clock, ProgressFactory
from .where import DEFAULT_TIMEOUT, Where, is_zarr_output

if TYPE_CHECKING:
    from ..semantics import ReduceCall

NUMPY_CHUNK_BYTES = 64 << 20  # chunks of an in-memory input shipped to a cluster


def as_dask(item: Any, *, cluster: bool) -> Any:
    """A dask array of ``item``: a ChunkedArray on its own chunk grid, a dask
    array as it is, a numpy array in chunks of about NUMPY_CHUNK_BYTES along
    axis 0 (one chunk in this process)."""
    da = require("dask.array")
    if isinstance(item, da.Array):
        return item
    if isinstance(item, ChunkedArray):
        meta = np.empty((0,) * item.ndim, dtype=item.dtype)
        return da.from_array(item, chunks=item.chunks, asarray=False, fancy=False, meta=meta, name=False)
    array = np.asarray(item)
    if not cluster or array.ndim == 0:
        return da.from_array(
            array, chunks=array.shape or (), meta=np.empty((0,) * array.ndim, array.dtype), name=False
        )
    row = max(1, int(np.prod(array.shape[1:], dtype=np.int64)) * array.dtype.itemsize)
    rows = max(1, NUMPY_CHUNK_BYTES // row)
    return da.from_array(
        array, chunks=(rows, *array.shape[1:]), meta=np.empty((0,) * array.ndim, array.dtype), name=False
    )


def reduce_graph(
    x: Any,
    call: ReduceCall,
    dtype_name: str,
    *,
    threads: int = 1,
    split_every: int | None = None,
    plan: bool = True,
) -> Any:
    """The lazy ReduceMean of dask array ``x`` for a validated ``call``: shape
    ``call.out_shape``, ``x``'s dtype, bit-identical to meancli.api.reduce_mean.

    ``threads``: kernel threads per chunk task (1 on a cluster: dask runs a
    task per worker thread). ``plan``: first bound the memory the partial
    states take (plan_chunks), and pick ``split_every`` when it is None;
    False runs on ``x``'s chunks as they are (the result is the same bits).
    Chunks that span every reduced axis go straight to their means; others
    to exact partial states, combined in a tree."""
    da = require("dask.array")
    from .. import kernels

    axes = tuple(d for d, m in enumerate(call.reduce_mask) if m)
    state = kernels.partial_dtype(dtype_name)
    dtype = native_dtype(x.dtype)  # what the kernels return
    if plan and axes:
        x, planned = plan_chunks(x, axes, state.itemsize)
        split_every = split_every or planned
    if all(x.numblocks[d] == 1 for d in axes):
        # each chunk holds all the reduced elements of its outputs: their
        # means straight from the kernel, without states 16-72 times their
        # size; no axes (the identity) runs the kernel too, whose NaNs are
        # the default NaN, as in memory
        out = x.map_blocks(
            partial(_whole_chunk, axis=axes, threads=threads),
            chunks=tuple((1,) if d in axes else c for d, c in enumerate(x.chunks)),
            dtype=dtype,
            meta=np.empty((0,) * x.ndim, dtype=dtype),
            token="meancli-reduce-mean",
        )
        return out.reshape(call.out_shape) if out.shape != call.out_shape else out
    out = da.reduction(
        x,
        chunk=partial(_chunk, threads=threads),
        combine=partial(_combine, dtype_name=dtype_name),
        aggregate=partial(_aggregate, dtype_name=dtype_name),
        axis=axes,
        keepdims=True,
        dtype=state,  # of the states between the steps
        split_every=split_every,
        concatenate=True,
        meta=np.empty((0,) * x.ndim, dtype=dtype),
        name="meancli-reduce-mean",
    )
    return out.reshape(call.out_shape) if out.shape != call.out_shape else out


STATES_PER_CHUNK = 8  # a chunk's partial states: at most 1/8 of its bytes
COMBINE_BYTES = 64 << 20  # the states one combine task gathers
CHUNK_ELEMENTS = 32 << 20  # bytes a merged chunk may reach without cutting its kept axes


def plan_chunks(x: Any, axes: tuple[int, ...], state_bytes: int) -> tuple[Any, int]:
    """``x`` rechunked, when needed, so that each chunk's partial states take at
    most 1/STATES_PER_CHUNK of the chunk's bytes, and the ``split_every`` that keeps
    a combine task's states under COMBINE_BYTES.

    A partial state (``state_bytes``, 32 to 288 bytes) stands for all the reduced
    elements of one output in a chunk: a chunk one element deep along the reduced
    axes (a time step of a climate field, reduced over time) would have states 16
    to 72 times its size. Such chunks are merged along the reduced axes and split
    along the kept ones, keeping about their size (dask's rechunk)."""
    itemsize = x.dtype.itemsize
    chunk = [max(c) if c else 0 for c in x.chunks]
    need = -(-STATES_PER_CHUNK * state_bytes // itemsize)  # reduced elements per output and chunk
    depth = int(np.prod([chunk[d] for d in axes], dtype=np.int64))
    if 0 < depth < need and x.size:
        factor = -(-need // depth)
        new = list(chunk)
        for d in axes:  # deepen along the reduced axes, as far as they go
            grow = min(x.shape[d], new[d] * factor)
            factor = -(-factor * new[d] // grow) if grow else factor
            new[d] = grow
        limit = max(int(np.prod(chunk, dtype=np.int64)), CHUNK_ELEMENTS // itemsize)
        kept = sorted((d for d in range(x.ndim) if d not in axes), key=lambda d: -new[d])
        for d in kept:  # and keep the chunk's size (or CHUNK_ELEMENTS bytes) by cutting kept axes
            size = int(np.prod(new, dtype=np.int64))
            if size <= limit:
                break
            new[d] = max(1, new[d] // -(-size // limit))
        x = x.rechunk(tuple(new))
        chunk = new
    outputs = int(np.prod([c for d, c in enumerate(chunk) if d not in axes], dtype=np.int64))
    states = max(1, outputs * state_bytes)
    return x, int(min(32, max(2, COMBINE_BYTES // states)))


def mean_graph(xs: list[Any], shape: tuple[int, ...], symbol: str, *, threads: int = 1) -> Any:
    """The lazy element-wise Mean of dask arrays ``xs`` (validated to broadcast
    to ``shape``), as blockwise tasks of the Mean kernel ``symbol``."""
    da = require("dask.array")
    rank = len(shape)
    index = tuple(range(rank))
    pairs: list[Any] = []
    for x in xs:
        pairs += [x, index[rank - x.ndim :]]
    return da.blockwise(
        partial(_mean_block, symbol=symbol, threads=threads),
        index,
        *pairs,
        dtype=native_dtype(xs[0].dtype),
        meta=np.empty((0,) * rank, dtype=native_dtype(xs[0].dtype)),
        name=None,
        token="meancli-mean",
    )


# The task functions, imported from tasks.py by name so they pickle by reference.
from .tasks import mean_block as _mean_block  # noqa: E402
from .tasks import partial_aggregate as _aggregate  # noqa: E402
from .tasks import partial_chunk as _chunk  # noqa: E402
from .tasks import partial_combine as _combine  # noqa: E402
from .tasks import whole_chunk as _whole_chunk  # noqa: E402


@contextmanager
def connect(where: Where) -> Iterator[Any]:
    """A distributed.Client for ``where`` (None: this process), closed on exit;
    a LocalCluster started here is always shut down, also on errors and Ctrl-C.

    Raises:
        ClusterError: the scheduler does not answer, or no worker joins it,
            within ``where.timeout`` seconds; a local cluster fails to start.
    """
    if not where.cluster:
        yield None
        return
    with warnings.catch_warnings():
        # dask warns, several lines long, when a graph carries much data (stdin or
        # an .npz member shipped with its tasks, as the README says): not meancli's
        # one-line report, and nothing the user can act on
        warnings.filterwarnings("ignore", message="Sending large graph", category=UserWarning)
        with _connected(where) as client:
            yield client


@contextmanager
def _connected(where: Where) -> Iterator[Any]:
    """connect's client for a cluster (``where.cluster``); raises as connect does."""
    distributed = require("distributed")
    dask_config = require("dask.config")
    quiet = logging.CRITICAL  # task errors are reported once, as the one error line
    for name in ["distributed", *logging.root.manager.loggerDict]:  # distributed sets some levels itself
        if name.startswith("distributed"):
            logging.getLogger(name).setLevel(quiet)
    cluster = client = None
    try:
        if where.workers is not None:
            try:
                # a cluster half started cannot be closed cleanly; the workers'
                # own tracebacks stay off meancli's stderr from their start
                with interrupts_deferred(), _children_stderr_to_devnull():
                    cluster = distributed.LocalCluster(
                        n_workers=where.workers,
                        # and those of workers started again later (worker_quiet)
                        preload=[*dask_config.get("distributed.worker.preload"), WORKER_PRELOAD],
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address="127.0.0.1:0",  # its HTTP routes: local, on a free port
                        silence_logs=quiet,
                        # SIGINT/SIGTERM ignored here (a background job of a script): ignored
                        # by the workers too (worker_quiet), which also inherit SIG_IGN
                        env={IGNORED_ENV: ",".join(ignored_interrupts())},
                    )
                client = _client(distributed, cluster, timeout=where.timeout)
            except (OSError, TimeoutError, RuntimeError) as exc:  # RuntimeError: a worker failed to start
                raise ClusterError(
                    f"cannot start a local cluster of {where.workers} workers: {exc}"
                ) from None
        else:
            assert where.scheduler is not None
            unusable = transport_error(where.scheduler)
            if unusable is not None:
                raise ClusterError(f"cannot reach the dask scheduler at {where.scheduler}: {unusable}")
            try:
                client = _client(distributed, where.scheduler, timeout=where.timeout)
            except (OSError, TimeoutError, ValueError) as exc:
                why = " ".join(str(exc).split()) or type(exc).__name__
                raise ClusterError(
                    f"cannot reach the dask scheduler at {where.scheduler} within {where.timeout:g} s: {why}"
                ) from None
        try:
            client.wait_for_workers(1, timeout=where.timeout)
        except (OSError, TimeoutError) as exc:
            raise ClusterError(f"no dask worker joined the scheduler within {where.timeout:g} s") from exc
        yield client
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


WORKER_PRELOAD = "meancli.engine.worker_quiet"


def _client(distributed: Any, address: Any, *, timeout: float) -> Any:
    """A started distributed.Client of ``address`` (an address or a cluster).

    A Client whose start fails is left half made, and its ``__del__`` closes it
    as the interpreter exits, when its event loop is gone: a wait of twice the
    timeout, then an ``Exception ignored in Client.__del__`` traceback. This one
    is closed at once when its start fails (KeyboardInterrupt included)."""

    class ClosedOnFailure(distributed.Client):  # type: ignore[misc]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            try:
                super().__init__(*args, **kwargs)
            except BaseException:
                with contextlib.suppress(Exception):  # (it is being abandoned either way)
                    self.close(timeout=1)
                raise

    return ClosedOnFailure(address, timeout=timeout, set_as_default=False)


def scheduler_address_error(address: str) -> str | None:
    """Why ``address`` cannot name a dask scheduler (None when it can): checked by
    distributed's own address parsing, and for the TCP-like schemes a host and a
    port from 1 to 65535; an ``inproc://`` address exists only inside one process."""
    distributed = require("distributed")
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        distributed.comm.registry.get_backend(scheme)
        if scheme == "inproc":
            return "an inproc:// address names a scheduler inside one process, not one meancli can reach"
        if scheme in ("tcp", "tls", "ws", "wss"):
            host, port = parse_host_port(location)
            if not host:
                return "no host"
            if not 1 <= int(port) <= 65535:
                return f"port {port} is not from 1 to 65535"
    except (ValueError, TypeError) as exc:
        return " ".join(str(exc).split()) or type(exc).__name__
    return None


def transport_error(address: str) -> str | None:
    """Why this installation cannot connect to ``address`` (well formed, see
    scheduler_address_error) whatever answers there, or None: a transport whose
    support is not installed (``ucx://`` needs the separate distributed-ucxx
    package), or ``tls://`` without the certificates dask's configuration names.
    Both depend on the environment, not on the command line (exit status 1)."""
    import dask.config
    from distributed.comm.addressing import parse_address
    from distributed.comm.registry import get_backend
    from distributed.security import Security

    scheme = parse_address(address)[0]
    try:
        get_backend(scheme).get_connector()  # type: ignore[no-untyped-call]
    except (TypeError, ImportError, FutureWarning):  # distributed's placeholder for a removed transport
        extra = " (install distributed-ucxx)" if scheme == "ucx" else ""
        return f"this installation of dask has no {scheme}:// transport{extra}"
    if scheme != "tls" or dask.config.get("distributed.client.security-loader", None):
        return None  # (a security loader gives the certificates when the client connects)
    try:
        context = Security().get_connection_args("client").get("ssl_context")  # type: ignore[no-untyped-call]
    except (OSError, ValueError) as exc:  # a certificate file missing or unreadable (ssl.SSLError too)
        return f"dask's TLS configuration cannot be used: {' '.join(str(exc).split()) or type(exc).__name__}"
    if context is None:
        return (
            "tls:// needs certificates, and dask's configuration names none "
            "(distributed.comm.tls.ca-file, .client.cert and .client.key)"
        )
    return None


@contextmanager
def _children_stderr_to_devnull() -> Iterator[None]:
    """Point file descriptor 2 at /dev/null while the block runs, so that the
    processes it starts (a LocalCluster's workers) inherit that as their
    stderr from birth: a Ctrl-C, which the terminal sends to them too, would
    otherwise print their tracebacks before the worker_quiet preload runs.
    What this process writes to stderr meanwhile is lost; meancli writes
    nothing there until the run ends (errors are raised, then printed)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, 2)
        finally:
            os.close(devnull)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def workers_of(client: Any) -> int:
    """Workers the cluster has now (0 for this process)."""
    if client is None:
        return 0
    return len(client.scheduler_info().get("workers", {}))


def compute(
    arrays: list[Any], client: Any, progress: ProgressFactory, *, timeout: float = DEFAULT_TIMEOUT
) -> list[Any]:
    """Compute dask collections on ``client`` (None: this process, synchronously)
    with a progress bar over their tasks.

    Raises:
        MeancliError: what a task raised (an unreadable chunk, ...), as it was raised.
        ClusterError: a worker could not import meancli; the cluster had no worker
            for ``timeout`` seconds while tasks were left (see _await_with_workers).
    """
    dask = require("dask")
    (arrays_opt,) = dask.optimize(arrays)  # optimized here, so the keys the bar counts are the ones run
    keys = {k for a in arrays_opt for k in a.__dask_graph__()}
    with progress(len(keys), "tasks", "tasks") as advance:
        try:
            if client is None:
                from dask.callbacks import Callback

                def posttask(key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
                    if advance is not None:
                        advance(1)

                from dask.local import get_sync

                # the scheduler as a function: by name, dask would import
                # dask.distributed (0.3 s) only to look for a client
                with Callback(posttask=posttask):  # type: ignore[no-untyped-call]
                    return list(dask.compute(*arrays_opt, scheduler=get_sync, optimize_graph=False))
            with _cluster_progress(client, keys, advance):
                futures = client.compute(arrays_opt, optimize_graph=False)
                try:
                    _await_with_workers(client, futures, timeout)
                    return [f.result() for f in futures]
                except BaseException:
                    _stop(client, futures, keys)
                    raise
        except ModuleNotFoundError as exc:
            raise ClusterError(
                f"a dask worker cannot import {exc.name}: install meancli (with its kernels) "
                "in the workers' environment"
            ) from None


def _await_with_workers(client: Any, futures: list[Any], timeout: float) -> None:
    """Wait until every future is done (finished or failed), as long as the cluster has a
    worker at least every ``timeout`` seconds. Workers that all stop for good (a signal
    sent to them alone: a worker closes itself on SIGINT or SIGTERM, and its nanny
    does not start another) would leave the tasks waiting forever.

    Raises:
        ClusterError: no worker for ``timeout`` seconds (or no answer from the scheduler).
    """
    import threading

    done = threading.Event()
    left = [len(futures)]
    lock = threading.Lock()

    def one_done(future: Any) -> None:  # finished or failed: f.result() tells which
        with lock:
            left[0] -= 1
            if left[0] == 0:
                done.set()

    if not futures:
        return
    for f in futures:
        f.add_done_callback(one_done)
    last_seen = time.monotonic()
    while not done.wait(0.5):
        try:
            workers = len(client.sync(client.scheduler.ncores, callback_timeout=timeout))
        except Exception:  # the scheduler does not answer: as good as no worker
            workers = 0
        if workers:
            last_seen = time.monotonic()
        elif time.monotonic() - last_seen >= timeout:
            raise ClusterError(
                f"the dask cluster has had no worker for {timeout:g} s (its workers stopped), "
                "with tasks left to run"
            )


def _stop(client: Any, futures: list[Any], keys: set[Any], timeout: float = 30.0) -> None:
    """Cancel a failed run's tasks and wait (up to ``timeout`` s) until none still runs,
    so no worker writes into an output being removed. A task cannot be stopped midway."""
    try:
        client.cancel(futures, force=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            running = client.processing()
            if not any(k in keys for tasks in running.values() for k in tasks):
                return
            time.sleep(0.1)
    except Exception:  # the cluster is already gone: nothing runs
        return


@contextmanager
def _cluster_progress(client: Any, keys: set[Any], advance: Any) -> Iterator[None]:
    """Feed ``advance`` with the run's tasks done on the cluster: a scheduler plugin
    counts them (task_counter.TaskCounter), polled twice a second. No bar: nothing is installed;
    a scheduler that cannot load the plugin runs without a bar."""
    if advance is None:
        yield
        return
    import threading

    from .task_counter import TaskCounter, tasks_done

    name = f"meancli-progress-{uuid.uuid4().hex[:12]}"
    try:
        client.register_plugin(TaskCounter(keys), name=name)
    except Exception:  # an older or foreign scheduler: run without the bar
        yield
        return
    stop = threading.Event()

    shown = 0

    def update() -> None:
        nonlocal shown
        done = int(client.run_on_scheduler(tasks_done, name=name))
        if done > shown:
            advance(done - shown)
            shown = done

    def poll() -> None:
        while not stop.wait(0.5):
            try:
                update()
            except Exception:
                return

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        try:
            update()  # the last tasks, before the bar closes
            client.unregister_scheduler_plugin(name)
        except Exception:
            pass


def write_zarr(
    result: Any,
    path: str,
    tmp: str,
    client: Any,
    progress: ProgressFactory,
    *,
    timeout: float = DEFAULT_TIMEOUT,
) -> None:
    """Write dask array ``result`` to a new zarr (format 3) array at ``path``,
    block by block from wherever the graph runs, atomically: into a temporary
    store beside ``path``, renamed into place once complete (an existing
    ``path`` is replaced only then). ``tmp`` is that temporary store
    (temporary_store()); the caller removes it once no worker can write into
    it any more (after the cluster has stopped the run's tasks).

    Raises:
        InputFileError: a dtype zarr cannot store (bfloat16), or the store
            cannot be written.
    """
    zarr = require("zarr")
    da = require("dask.array")
    from ..npyio import is_bfloat16

    if is_bfloat16(result.dtype):
        raise OutputFileError(f"{path}: zarr has no bfloat16 data type; write the result as .npy")
    # A rank-0 result is one chunk of shape (): zarr takes chunks=() for it (None is refused).
    chunk = tuple(max(c) if c else 1 for c in result.chunks)
    try:
        zarr.create_array(store=tmp, shape=result.shape, chunks=chunk, dtype=result.dtype)
        regular = result.rechunk(chunk) if result.ndim else result
        from .tasks import ZarrTarget

        stored = da.store(regular, ZarrTarget(tmp), lock=False, compute=False)
        compute([stored], client, progress, timeout=timeout)
        _replace(tmp, path)
    except OSError as exc:
        raise OutputFileError(f"cannot write {path}: {reason(exc)}") from None


@contextmanager
def temporary_store(path: str) -> Iterator[str]:
    """A fresh name beside ``path`` for write_zarr's temporary store, removed on exit if left."""
    from ..formats.atomic_write import temporary_name

    directory = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(directory, temporary_name())
    try:
        yield tmp
    finally:
        # removed whole: a second Ctrl-C (or `timeout`, which signals the process
        # and then its group) waits for the removal instead of cutting it short
        with interrupts_deferred():
            if os.path.exists(tmp):
                shutil.rmtree(tmp, ignore_errors=True)


def _replace(tmp: str, path: str) -> None:
    """Rename the finished store ``tmp`` to ``path``, replacing what is there: only a
    zarr array or an empty directory (checked before the run, and again here in
    case it changed since)."""
    from ..formats.zarr_target import check_zarr_target, is_zarr_array_dir

    check_zarr_target(path)
    if not is_zarr_array_dir(path):
        # Nothing or an empty directory, as checked: rename(2) puts the store there in
        # one step, and refuses a directory filled or a file made there since.
        try:
            os.rename(tmp, path)
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
                raise
            check_zarr_target(path)  # what is there now is refused, in the same words
            raise
    else:
        # An earlier array: the two swap places in one step where Linux can
        # (renameat2 RENAME_EXCHANGE), so `path` always names one of them; the
        # old one is then removed. Interrupts wait meanwhile: a run interrupted
        # there ends after it, with the new array in place and the old gone.
        os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))  # the directory's mode stays
        with interrupts_deferred():
            if _exchange(tmp, path):
                old = tmp
            else:
                old = f"{tmp}.old"
                os.rename(path, old)
                os.rename(tmp, path)
            if os.path.isdir(old) and not os.path.islink(old):
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.unlink(old)


def _exchange(a: str, b: str) -> bool:
    """Swap the names ``a`` and ``b`` atomically (Linux renameat2 RENAME_EXCHANGE);
    False where the system or the file system cannot.

    Raises:
        OSError: the swap failed for another reason.
    """
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux, or a C library without it
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), b)


def chunk_grid(x: Any) -> dict[str, Any]:
    """How a dask array is cut: its largest chunk shape and the chunks along each dim."""
    return {"chunk_shape": [max(c) if c else 0 for c in x.chunks], "grid": list(x.numblocks)}


def _graph_input(item: Any) -> Any:
    """A streamed .npy becomes a one-shard dataset (read by the workers); stdin is read whole."""
    from ..streaming import Source

    if not isinstance(item, Source):
        return item
    if item.seekable:
        from ..shards import ShardDataset

        item.finish()
        return ShardDataset(item.name, [item.name])
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


def run_reduce(
    call: ReduceCall,
    item: Any,
    where: Where,
    *,
    threads: int,
    output: str | None,
    clock: Clock,
    progress: ProgressFactory,
) -> tuple[np.ndarray[Any, Any] | None, dict[str, Any]]:
    """ReduceMean of ``item`` (a ChunkedArray, array, Source or dask array) on dask at ``where``.

    Returns:
        (the result, None when it was written to the zarr store ``output``;
        what the report says of where it ran: engine, scheduler, workers, chunk grid).
        Stage times go to ``clock``: cluster, graph, kernel (reading and
        reducing the chunks), write.

    Raises:
        ClusterError: see connect(); InputFileError: a chunk that cannot be
            read (named), an output that cannot be written.
    """
    from ..api import spec_dtype_name

    item = _graph_input(item)
    dtype_name = spec_dtype_name(item.dtype)
    return _run(
        [item],
        lambda xs, t: reduce_graph(xs[0], call, dtype_name, threads=t),
        where,
        threads=threads,
        output=output,
        clock=clock,
        progress=progress,
    )


def run_mean(
    shape: tuple[int, ...],
    items: list[Any],
    symbol: str,
    where: Where,
    *,
    threads: int,
    output: str | None,
    clock: Clock,
    progress: ProgressFactory,
) -> tuple[np.ndarray[Any, Any] | None, dict[str, Any]]:
    """Element-wise Mean of ``items`` (broadcasting to ``shape``) on dask at ``where``,
    as run_reduce: the result, or None when written to the zarr store ``output``
    block by block from the workers."""
    return _run(
        [_graph_input(x) for x in items],
        lambda xs, t: mean_graph(xs, shape, symbol, threads=t),
        where,
        threads=threads,
        output=output,
        clock=clock,
        progress=progress,
    )


def _run(
    items: list[Any],
    graph: Callable[[list[Any], int], Any],
    where: Where,
    *,
    threads: int,
    output: str | None,
    clock: Clock,
    progress: ProgressFactory,
) -> tuple[np.ndarray[Any, Any] | None, dict[str, Any]]:
    """Build ``graph(dask inputs, kernel threads)`` at ``where`` and run it: the result,
    or None when written to the zarr store ``output``; and the report's engine info."""
    with ExitStack() as stack:
        # entered first, left last: removed only after the cluster has stopped every task
        tmp = stack.enter_context(temporary_store(output)) if is_zarr_output(output) and output else ""
        with clock.stage("cluster"):
            client = stack.enter_context(connect(where))
        with clock.stage("graph"):
            xs = [as_dask(x, cluster=where.cluster) for x in items]
            result = graph(xs, 1 if where.cluster else threads)
        info = _info(where, client, xs)
        if is_zarr_output(output):
            assert output is not None
            with clock.stage("kernel"):
                write_zarr(result, output, tmp, client, progress, timeout=where.timeout)
            return None, info
        with clock.stage("kernel"):
            (value,) = compute([result], client, progress, timeout=where.timeout)
    return value, info


def is_dask_array(x: Any) -> bool:
    """Whether ``x`` is a dask array (never imports dask)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(x, da.Array)


def _known_shape(x: Any, what: str) -> tuple[int, ...]:
    from ..errors import SpecViolation

    if any(n != n for n in x.shape):  # NaN: a dim whose chunk sizes are unknown
        raise SpecViolation(
            f"{what}: a dask array of unknown shape {x.shape}; call .compute_chunk_sizes() first"
        )
    return tuple(int(n) for n in x.shape)


def lazy_reduce(op: Any, x: Any, axes: Any, keepdims: bool | None, **attributes: Any) -> Any:
    """meancli.reduce_mean of a dask array: a lazy dask array (see reduce_graph)."""
    from ..api import spec_dtype_name, validate_reduce

    call = validate_reduce(op, x.dtype, _known_shape(x, op.label), axes, keepdims, **attributes)
    return reduce_graph(x, call, spec_dtype_name(x.dtype))


def lazy_mean(op: Any, arrays: tuple[Any, ...], **attributes: Any) -> Any:
    """meancli.mean with a dask array among ``arrays``: a lazy dask array (see mean_graph)."""
    from ..api import prepare_mean, spec_dtype_name

    xs = [as_dask(a, cluster=False) if not is_dask_array(a) else a for a in arrays]
    for x in xs:
        _known_shape(x, op.label)
    shape = prepare_mean(op, xs, **attributes)
    return mean_graph(xs, shape, op.kernels[spec_dtype_name(xs[0].dtype)])


def open_lazy(path: str | os.PathLike[str]) -> Any:
    """A FILE as the command line reads it, as a lazy dask array on its own chunk grid.

    Args:
        path: a zarr store (``STORE.zarr``, ``STORE.zarr:path/in/group``, a zipped
            store), a dataset of ``.npy`` shards (a directory, a glob, ``@LIST``),
            or a ``.npy`` file (read in pieces of about 64 MiB along axis 0).

    Returns:
        A dask array (dtype as stored, native byte order; bfloat16 as
        ml_dtypes.bfloat16): pass it to meancli.reduce_mean / meancli.mean for a
        lazy result computed chunk by chunk, in this process or on a cluster.

    Raises:
        InputFileError: the path does not exist or cannot be opened, names several
            arrays (a zarr group: name one as ``STORE:PATH``), or dask/zarr are not
            installed.
        UsageError: ``path`` is not a path, or is stdin (``-``).
    """
    from ..chunked import open_chunked
    from ..errors import UsageError
    from ..shards import ShardDataset

    try:
        path = os.fspath(path)
    except TypeError:
        raise UsageError(f"open_lazy takes a path (str or os.PathLike), got {type(path).__name__}") from None
    if not isinstance(path, str):
        path = os.fsdecode(path)
    if path in ("", "-"):
        raise UsageError(
            f"open_lazy({path!r}): stdin and the empty path are no lazy input; read them with numpy"
        )
    found = open_chunked(path)
    if found is None:  # no zarr store or dataset: a .npy file, which must exist
        if not path.startswith("@") and not glob.has_magic(path) and not os.path.exists(path):
            raise InputFileError(f"{path}: no such file or directory")
        found = [ShardDataset(path, [path])]
    if len(found) != 1:
        listed = ", ".join(a.name for a in found)
        raise InputFileError(f"{path}: holds {len(found)} arrays ({listed}); name one as {path}:PATH")
    return as_dask(found[0], cluster=True)
