"""The console entry point: answers ``meancli --version`` before importing
the command-line framework, and hands everything else to app.main.

A run of one file is mostly start-up (the interpreter, numpy, typer), so two
things are set here, before anything is imported:

- The cyclic garbage collector is off: start-up creates some hundred
  thousand objects and no garbage cycles, and collecting while they are made
  costs about 4% of a one-file run's instructions. Arrays and everything else
  without cycles are freed as always; a run over several files turns it back
  on (batch.run_many) so that cycles cannot pile up over a long run.
- ``OPENBLAS_NUM_THREADS=1`` unless it is set: meancli never calls BLAS, and
  numpy's OpenBLAS would otherwise start a thread per core at import, which
  then spin on the CPUs the kernels use.
"""

from __future__ import annotations

import gc
import os
import sys


def main(argv: list[str] | None = None) -> int:
    """Run meancli with ``argv`` (default: sys.argv[1:]); returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args == ["--version"]:
        from .. import __version__

        sys.stdout.write(f"meancli {__version__}\n")
        return 0
    collecting = gc.isenabled()
    gc.disable()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        from .app import main as app_main

        return app_main(args)
    finally:
        # A caller that passed argv gets the collector back as it was. The command
        # line's own run ends here: enabling it now would only run a full
        # collection of every object on the way out (about 3% of a run).
        if collecting and argv is not None:
            gc.enable()


if __name__ == "__main__":
    sys.exit(main())
