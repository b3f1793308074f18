"""A scheduler plugin that counts the finished tasks of one run, for the progress bar.

Installed on the scheduler with Client.register_plugin (it pickles by
reference: the scheduler imports this module) and polled with
Client.run_on_scheduler(tasks_done, name=...).
"""

from __future__ import annotations

from typing import Any

from distributed.diagnostics.plugin import SchedulerPlugin


class TaskCounter(SchedulerPlugin):
    """Counts the tasks among ``keys`` that reach memory (each once, also when rerun)."""

    def __init__(self, keys: set[Any]) -> None:
        self.pending = set(keys)
        self.done = 0

    def transition(self, key: Any, start: str, finish: str, *args: Any, **kwargs: Any) -> None:
        if finish == "memory" and key in self.pending:
            self.pending.discard(key)
            self.done += 1


def tasks_done(dask_scheduler: Any, name: str) -> int:
    """Run on the scheduler: how many tasks the plugin ``name`` has counted."""
    return int(dask_scheduler.plugins[name].done)
