"""A dask preload for the worker processes of a ``--workers`` cluster: what they
would print on stderr goes nowhere, and the signals meancli ignores they ignore.

meancli reports every failure of a run as one ``error:`` line (a task's error is
raised again in meancli itself; logs are silenced). A worker process that a
signal stops (SIGINT, SIGTERM sent to it alone) would print its traceback on the
terminal it shares with meancli; here it does not.

A meancli that ignores SIGINT or SIGTERM (a background job of a non-interactive
shell ignores SIGINT: ``meancli ... --workers 2 &`` in a script) must not lose its
workers to a Ctrl-C that reaches the process group: the worker processes inherit
SIG_IGN (meancli.interrupts keeps it while they start), and this preload sets it
again from ``MEANCLI_IGNORED_SIGNALS`` (interrupts.IGNORED_ENV, which the cluster
puts in their environment), whatever ran in between. Workers of an external
cluster (``--scheduler``) are left as their owner started them.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from ...interrupts import IGNORED_ENV, ignore_interrupts


def dask_setup(worker: Any) -> None:
    """Called by dask in each worker process as it starts (``preload``)."""
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 -- for the life of the process
    ignore_interrupts(os.environ.get(IGNORED_ENV, ""))
