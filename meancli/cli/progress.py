"""A progress bar on stderr for long runs (only on a terminal): bytes read by the
streamed engine, tasks done by dask (in this process or on the cluster)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager

SHOW_FROM_BYTES = 1 << 30  # about half a second of reading here, or more


@contextmanager
def progress_bar(total_bytes: int, *, enabled: bool, label: str) -> Iterator[Callable[[int], None] | None]:
    """Yield a callback taking bytes processed, or None when no bar is shown:
    not a terminal, --quiet/--json, or less than SHOW_FROM_BYTES of input."""
    if not enabled or total_bytes < SHOW_FROM_BYTES or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn, TransferSpeedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total_bytes)
        yield lambda n: bar.advance(task, n)


@contextmanager
def task_bar(total_tasks: int, *, enabled: bool, label: str) -> Iterator[Callable[[int], None] | None]:
    """Yield a callback taking tasks done, or None when no bar is shown (not a terminal, --quiet/--json)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total_tasks)
        yield lambda n: bar.advance(task, n)


def progress_factory(
    *, enabled: bool
) -> Callable[[int, str, str], AbstractContextManager[Callable[[int], None] | None]]:
    """An engine ProgressFactory: a bar of ``total`` bytes or tasks (``unit``) when ``enabled``."""

    def factory(total: int, label: str, unit: str) -> AbstractContextManager[Callable[[int], None] | None]:
        if unit == "tasks":
            return task_bar(total, enabled=enabled, label=label)
        return progress_bar(total, enabled=enabled, label=label)

    return factory
