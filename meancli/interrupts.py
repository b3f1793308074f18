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


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[Callable[[], None]]:
    """Hold back SIGINT and SIGTERM until the ``resume()`` it yields is called (or the block ends).

    Their Python handlers are swapped for one that only takes note; ``resume()`` puts the
    handlers back and raises each noted signal again, so that its handler (and exception,
    KeyboardInterrupt for SIGINT, in place of what the block raised) runs there, and a
    default action (SIGTERM's) ends the process there. (Blocking the signals would not do:
    any other thread, an OpenMP worker for one, still receives them.) Does nothing off the
    main thread, where handlers cannot be set, nor for a handler that was not set from Python.
    """
    noted: list[int] = []
    saved: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in INTERRUPTS:
            if signal.getsignal(signum) is not None:  # (None: installed from C, not restorable)
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
