"""A dask preload for the worker processes of a ``--workers`` cluster: what they
would print on stderr goes nowhere.

meancli reports every failure of a run as one ``error:`` line (a task's error is
raised again in meancli itself; logs are silenced). A worker process that a
signal stops (SIGINT, SIGTERM sent to it alone) would print its traceback on the
terminal it shares with meancli; here it does not. Workers of an external
cluster (``--scheduler``) are left as their owner started them.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def dask_setup(worker: Any) -> None:
    """Called by dask in each worker process as it starts (``preload``)."""
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 -- for the life of the process
