"""Steps that must finish once begun: SIGINT and SIGTERM wait for their end.

Used where an interruption midway would leave something behind: a temporary
file made but not yet in the cleanup's reach, an output named but not yet
renamed, a zarr store half swapped, a dask LocalCluster half started.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any

INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


#: The names of the INTERRUPTS this process ignores, comma-separated, in the environment
#: of a LocalCluster's worker processes (engine.worker_quiet ignores them there too).
IGNORED_ENV = "MEANCLI_IGNORED_SIGNALS"


def ignored_interrupts() -> list[str]:
    """The names (``SIGINT``, ``SIGTERM``) of the INTERRUPTS whose disposition is SIG_IGN here."""
    return [signal.Signals(s).name for s in INTERRUPTS if signal.getsignal(s) == signal.SIG_IGN]


def ignore_interrupts(names: str) -> None:
    """Set SIG_IGN for each of the comma-separated INTERRUPTS ``names`` (IGNORED_ENV's value);
    unknown names and signals outside INTERRUPTS are skipped. Main thread only (ValueError elsewhere)."""
    known = {signal.Signals(s).name: s for s in INTERRUPTS}
    for name in filter(None, (n.strip() for n in names.split(","))):
        if name in known:
            signal.signal(known[name], signal.SIG_IGN)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[Callable[[], None]]:
    """Hold back SIGINT and SIGTERM until the ``resume()`` it yields is called (or the block ends).

    Their Python handlers are swapped for one that only takes note; ``resume()`` puts the
    handlers back and raises each noted signal again, so that its handler (and exception,
    KeyboardInterrupt for SIGINT, in place of what the block raised) runs there, and a
    default action (SIGTERM's) ends the process there. (Blocking the signals would not do:
    any other thread, an OpenMP worker for one, still receives them.) Does nothing off the
    main thread, where handlers cannot be set, nor for a handler that was not set from Python,
    nor for an ignored signal (SIG_IGN, as a background job of a script has SIGINT): it stays
    ignored, also for the processes started in the block (a LocalCluster's workers), which
    inherit it.
    """
    noted: list[int] = []
    saved: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in INTERRUPTS:
            handler = signal.getsignal(signum)
            if handler is not None and handler != signal.SIG_IGN:  # (None: set from C, not restorable)
                saved[signum] = signal.signal(signum, lambda number, frame: noted.append(number))

    def resume() -> None:
        while saved:
            signal.signal(*saved.popitem())
        while noted:
            signal.raise_signal(noted.pop(0))

    try:
        yield resume
    finally:
        resume()
