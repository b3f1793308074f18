"""Running dask graphs: in this process or on a cluster, with a progress bar
over their tasks, failing clearly when the cluster loses its workers."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...errors import ClusterError
from ...io.chunked import require
from .. import ProgressFactory
from ..where import DEFAULT_TIMEOUT


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
