"""Where a dask graph runs: this process, a local cluster, or an existing one."""

from __future__ import annotations

from typing import NamedTuple

DEFAULT_TIMEOUT = 30.0  # seconds to reach a scheduler and see a worker


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
