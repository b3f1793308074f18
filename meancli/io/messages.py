"""How file errors name their file and say why: one line each."""

from __future__ import annotations

import errno
import os

from ..errors import InputFileError

STDIN_NAME = "<stdin>"
STDOUT_NAME = "<stdout>"


def display(name: str) -> str:
    """``name`` made safe to print on one line (control characters escaped)."""
    if name.isprintable():
        return name
    return name.encode("unicode_escape", "backslashreplace").decode("ascii")


def shown_input(path: str | None) -> str:
    """How a message names an input argument: stdin (``-``) as ``<stdin>``, any other
    name made safe to print (display)."""
    return STDIN_NAME if path in ("-", None) else display(path)


def naming_input(text: str, file: str, within: str | None = None) -> str:
    """``text`` as a message about the input argument ``file``: ``FILE: text``,
    unless it already begins with that name (or, for ``data.npz:NAME`` or
    ``STORE.zarr:PATH``, with the archive's or store's), or with a path in the
    directory ``within`` (a shard of the dataset ``file`` names: ``ds/c.npy: ...``)."""
    shown = shown_input(file)
    named: tuple[str, ...] = (f"{shown}:", f"{shown_input(split_member(file)[0])}:")
    if within:
        named += (display(within.rstrip("/")) + "/",)
    if text.startswith(named):
        return text
    return f"{shown}: {text}"


def one_line(text: str) -> str:
    """A message as every ``error:`` line prints it: whitespace runs (newlines
    included) as one space, control characters escaped (display)."""
    return display(" ".join(text.split()))


def reason(exc: BaseException) -> str:
    """A one-line reason from an exception (``strerror`` for an OSError; for EMFILE
    also that the inputs used up the limit of open files, see too_many_open_files)."""
    if isinstance(exc, OSError) and exc.errno == errno.EMFILE:
        return too_many_open_files()
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def too_many_open_files() -> str:
    """What EMFILE means in a meancli run, wherever it is met (an input, a temporary
    file, the output): ``Too many open files: the inputs used up this process's
    limit of open files (N); raise it with `ulimit -n` ...``."""
    limit = ""
    try:
        import resource  # POSIX only; read only when the limit was hit

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft != resource.RLIM_INFINITY:
            limit = f" ({soft})"
    except (ImportError, OSError, ValueError):
        pass
    return (
        f"{os.strerror(errno.EMFILE)}: the inputs used up this process's limit of open files{limit}; "
        "raise it with `ulimit -n` (for example `ulimit -n 4096`) or give fewer inputs"
    )


def explained_os_error(exc: BaseException) -> InputFileError | None:
    """An OSError that means the same wherever it was raised, as the one-line error a
    run reports for it (EMFILE: too_many_open_files); None for anything else."""
    if isinstance(exc, OSError) and exc.errno == errno.EMFILE:
        name = exc.filename if isinstance(exc.filename, str) else None
        return InputFileError(f"{display(name)}: {reason(exc)}" if name else reason(exc))
    return None


def bad(where: str, what: str) -> InputFileError:
    """The one-line error ``WHERE: WHAT``."""
    return InputFileError(f"{where}: {what}")


def split_member(arg: str) -> tuple[str, str | None]:
    """``data.npz:dense/kernel:0`` -> (``data.npz``, ``dense/kernel:0``).

    An argument that names an existing file is a path; otherwise the path ends at the
    first ``:`` where what comes before it is an existing file.  No such point: the
    argument is a path (that the reader will report missing).
    """
    if arg == "-" or ":" not in arg or os.path.exists(arg):
        return arg, None
    at = arg.find(":")
    while at >= 0:
        head = arg[:at]
        if head and os.path.isfile(head):
            return head, arg[at + 1 :]
        at = arg.find(":", at + 1)
    return arg, None
