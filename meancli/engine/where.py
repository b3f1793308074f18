"""Where a dask graph runs: this process, a local cluster, or an existing one;
and the options that say so (the dask engine's, declared here so that the
planner lists them without importing dask)."""

# No ``from __future__ import annotations`` here: typing.NamedTuple compiles each
# string annotation of its fields, in every run that imports this module (about
# 0.2 M instructions a class; docs/speed.md, "Start-up and quick runs").

from typing import NamedTuple

from . import EngineOption

DEFAULT_TIMEOUT = 30.0  # seconds to reach a scheduler and see a worker
MAX_TIMEOUT = 7 * 86_400.0  # seconds: a week; past it a wait is a mistake, and an infinite one hangs

# The dask engine's options, one per field of Where (the command line's --workers, ...).
OPTIONS = (
    EngineOption(
        "workers",
        "--workers",
        int,
        None,
        "N",
        "Run on a dask LocalCluster of N worker processes on 127.0.0.1, shut down after the run.",
        1,
        1024,
    ),
    EngineOption(
        "scheduler",
        "--scheduler",
        str,
        None,
        "ADDRESS",
        "Run on the existing dask cluster whose scheduler is at ADDRESS (tcp://HOST:PORT).",
    ),
    EngineOption(
        "timeout",
        "--timeout",
        float,
        DEFAULT_TIMEOUT,
        "SECONDS",
        "Give up when the scheduler does not answer, or no worker joins it, within SECONDS.",
        0.1,
        MAX_TIMEOUT,
    ),
)


class Where(NamedTuple):
    """Where a dask graph runs: ``workers`` (a LocalCluster of that many
    processes on 127.0.0.1), ``scheduler`` (an address), or neither (this
    process, synchronously); ``timeout`` in seconds."""

    workers: int | None = None
    scheduler: str | None = None
    timeout: float = DEFAULT_TIMEOUT

    @property
    def cluster(self) -> bool:
        return self.workers is not None or self.scheduler is not None
