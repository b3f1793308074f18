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
    shown = enabled and total_bytes >= SHOW_FROM_BYTES and sys.stderr.isatty()
    columns: tuple[object, ...] = ()
    if shown:  # rich loads only for a bar that is shown
        from rich.progress import DownloadColumn, TimeRemainingColumn, TransferSpeedColumn

        columns = (DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn())
    with _bar(total_bytes, label, columns, enabled=shown) as advance:
        yield advance


@contextmanager
def task_bar(total_tasks: int, *, enabled: bool, label: str) -> Iterator[Callable[[int], None] | None]:
    """Yield a callback taking tasks done, or None when no bar is shown (not a terminal, --quiet/--json)."""
    shown = enabled and sys.stderr.isatty()
    columns: tuple[object, ...] = ()
    if shown:
        from rich.progress import MofNCompleteColumn, TimeElapsedColumn

        columns = (MofNCompleteColumn(), TimeElapsedColumn())
    with _bar(total_tasks, label, columns, enabled=shown) as advance:
        yield advance


@contextmanager
def _bar(
    total: int, label: str, columns: tuple[object, ...], *, enabled: bool
) -> Iterator[Callable[[int], None] | None]:
    """A transient rich bar on stderr with ``columns`` after the bar itself, or None
    when not ``enabled`` or stderr is not a terminal."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        *columns,  # type: ignore[arg-type]
        console=Console(file=sys.stderr),
        transient=True,
    ) as bar:
        task = bar.add_task(label, total=total)
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
