"""Connecting to where a dask graph runs: a LocalCluster started for the run
(on 127.0.0.1, always shut down), or an existing scheduler."""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ...errors import ClusterError
from ...interrupts import IGNORED_ENV, ignored_interrupts, interrupts_deferred
from ...io.chunked import require
from ..where import Where


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
            except MemoryError:  # dask read another protocol's bytes as a frame length of exabytes
                raise ClusterError(
                    f"cannot reach the dask scheduler at {where.scheduler}: what answers there "
                    "does not speak dask's protocol"
                ) from None
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


WORKER_PRELOAD = "meancli.engine.dask.worker_quiet"


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
