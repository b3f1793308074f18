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

import contextlib
import gc
import os
import sys

TYPE_CHECKING = False  # (not typing's: see meancli/__init__.py)
if TYPE_CHECKING:
    from typing import Any

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for Ctrl-C


class GuardedStdout:
    """sys.stdout with a failure to write it (a full disk, a descriptor closed
    before the run) turned into one error, ``cannot write <stdout>: REASON``
    (an OutputFileError: exit status 1), wherever the CLI writes it. A reader
    that went away (BrokenPipeError) stays what it is: the commands stop
    quietly on it. Everything else is the stream's own."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def _failed(self, exc: BaseException) -> Exception:
        from ..errors import OutputFileError

        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return OutputFileError(f"cannot write <stdout>: {why}")

    def write(self, text: str) -> int:
        if self._stream is None:
            raise self._failed(OSError(9, "it is closed"))
        try:
            return int(self._stream.write(text))
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        if self._stream is None:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except (OSError, ValueError) as exc:
            raise self._failed(exc) from None

    def isatty(self) -> bool:
        return self._stream is not None and bool(self._stream.isatty())

    def __getattr__(self, name: str) -> Any:
        if self._stream is None:
            raise self._failed(OSError(9, "it is closed"))
        return getattr(self._stream, name)


def _finish(status: int) -> int:
    """Flush stdout now, so a failure to write it is a one-line error and a
    status, not a traceback as the interpreter exits."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        return status
    except Exception as exc:  # GuardedStdout's InputFileError
        sys.stderr.write(f"error: {exc}\n")
        return status or 1
    return status


def main(argv: list[str] | None = None) -> int:
    """Run meancli with ``argv`` (default: sys.argv[1:]); returns the exit status.

    A Ctrl-C (or SIGTERM, once its handler is installed) anywhere in the run,
    start-up's imports included, is ``error: interrupted`` and status 130, never
    a traceback; the commands report it themselves once they run (run.session).
    """
    stdout = sys.stdout
    status = 1
    try:
        args = list(sys.argv[1:] if argv is None else argv)
        if not isinstance(stdout, GuardedStdout):
            sys.stdout = GuardedStdout(stdout)
        status = _run(args, restore_gc=argv is not None)
        return status
    except KeyboardInterrupt as exc:
        status = _interrupted(exc)
        return status
    finally:
        if argv is not None:  # a caller that passed argv gets its stdout back as it was
            sys.stdout = stdout
        else:
            try:
                _exit_as_decided(status)
            except KeyboardInterrupt as exc:  # in the moment before the signals' default actions
                _exit_as_decided(_interrupted(exc))


def _exit_as_decided(status: int) -> None:
    """The command line's last step, its status decided and its output flushed.

    A SIGINT or SIGTERM not ignored from now on takes its default action (the process ends
    by the signal, status 130 or 143 in a shell), instead of raising inside the
    interpreter's shutdown (tracebacks, "Exception ignored in" lines). An
    interrupted run ends here at once: its cleanup is done, and the shutdown
    would only add noise (pending zarr tasks' "Task was destroyed" lines).
    """
    import signal

    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) != signal.SIG_IGN:  # what the parent ignores stays ignored
            signal.signal(signum, signal.SIG_DFL)
    if status in (EXIT_INTERRUPTED, 128 + 15):
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed or broken stream: nothing more to say
                stream.flush()
        os._exit(status)


def _interrupted(exc: KeyboardInterrupt) -> int:
    """The one line and the status of a run interrupted outside a command's session."""
    terminated = type(exc).__name__ == "Terminated"  # run.Terminated: SIGTERM
    try:
        sys.stderr.write("error: terminated\n" if terminated else "error: interrupted\n")
        sys.stderr.flush()
    except (OSError, ValueError, KeyboardInterrupt):
        pass
    return 128 + 15 if terminated else EXIT_INTERRUPTED


def _run(args: list[str], *, restore_gc: bool) -> int:
    if args == ["--version"]:
        from .. import __version__

        try:
            sys.stdout.write(f"meancli {__version__}\n")
        except Exception as exc:
            sys.stderr.write(f"error: {exc}\n")
            return 1
        return _finish(0)
    collecting = gc.isenabled()
    gc.disable()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        from .app import main as app_main

        try:
            status = app_main(args)
        except Exception as exc:  # stdout failing where no command catches it (--help)
            from ..errors import MeancliError

            if not isinstance(exc, MeancliError):
                raise
            sys.stderr.write(f"error: {exc}\n")
            return exc.exit_code
        return _finish(status)
    finally:
        # A caller that passed argv gets the collector back as it was. The command
        # line's own run ends here: enabling it now would only run a full
        # collection of every object on the way out (about 3% of a run).
        if collecting and restore_gc:
            gc.enable()


if __name__ == "__main__":
    sys.exit(main())
