"""Standard input and output for binary data, also when they are non-blocking pipes.

A non-blocking stream answers a read with None (no data yet) and a write with
EAGAIN or a partial write until the other end catches up: these helpers wait
and go on, so every byte is read and written.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any, BinaryIO

from ..errors import InputFileError, OutputFileError, UsageError
from .messages import STDIN_NAME, STDOUT_NAME, reason


def _fileno(fp: Any) -> int | None:
    """``fp``'s descriptor, or None for a stream without one (a test's capture)."""
    try:
        return int(fp.fileno())
    except (AttributeError, OSError, ValueError):
        return None


def _wait_ready(fd: int, *, write: bool) -> None:
    """Block until ``fd`` can be written (or read)."""
    import select

    select.select([] if write else [fd], [fd] if write else [], [])


def read_bytes(fp: Any, n: int) -> bytes:
    """``fp.read(n)``, waiting while a non-blocking stream has no data yet
    (it returns None then, not end of stream); b"" only at the end."""
    while (data := fp.read(n)) is None:
        fd = _fileno(fp)
        if fd is None:
            return b""
        _wait_ready(fd, write=False)
    return bytes(data)


def read_into(fp: Any, view: memoryview) -> int:
    """``fp.readinto(view)``, waiting as read_bytes does; 0 only at the end.
    A stream without ``readinto`` is read with ``read``."""
    readinto = getattr(fp, "readinto", None)
    if readinto is None:
        chunk = read_bytes(fp, len(view))
        view[: len(chunk)] = chunk
        return len(chunk)
    while (n := readinto(view)) is None:
        fd = _fileno(fp)
        if fd is None:
            return 0
        _wait_ready(fd, write=False)
    return int(n)


def read_upto(fp: Any, n: int) -> bytes:
    """Read up to ``n`` bytes, tolerating short reads; fewer only at end of stream."""
    parts: list[bytes] = []
    got = 0
    while got < n:
        chunk = read_bytes(fp, n - got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def _binary_buffer(stream: Any, missing: str, terminal: str) -> Any:
    """``stream.buffer``, checked: there is one (else InputFileError ``missing``)
    and it is not a terminal (else UsageError ``terminal``: the command line
    forgot a redirection, whatever the data)."""
    buffer = getattr(stream, "buffer", None) if stream is not None else None
    if buffer is None:
        raise InputFileError(missing)
    try:
        tty = buffer.isatty()
    except (OSError, ValueError):
        tty = False
    if tty:
        raise UsageError(terminal)
    return buffer


def stdin_buffer() -> BinaryIO:
    """``sys.stdin.buffer``, checked: there is one and it is not a terminal.

    Raises:
        InputFileError: standard input is missing.
        UsageError: standard input is a terminal.
    """
    buffer: BinaryIO = _binary_buffer(
        sys.stdin,
        f"{STDIN_NAME}: standard input is not available",
        f"{STDIN_NAME}: refusing to read binary .npy data from a terminal; "
        "redirect or pipe a .npy file into standard input",
    )
    return buffer


def _write_fd_all(fd: int, data: bytes | memoryview) -> None:
    """os.write until every byte is out: a pipe may take part of a write, and a
    non-blocking one refuses (EAGAIN) until the reader catches up."""
    view = memoryview(data).cast("B")
    while view:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            _wait_ready(fd, write=True)
            continue
        view = view[n:]


def write_all(fp: BinaryIO, parts: Iterable[bytes | memoryview]) -> int:
    """Write every part to ``fp``; the number of bytes written."""
    total = 0
    for part in parts:
        fp.write(part)
        total += len(part)
    return total


_STANDARD_NAMES = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}
_DESCRIPTOR_PREFIXES = ("/dev/fd/", "/proc/")  # where the other names of a descriptor start


def _names_of(path: str) -> list[str]:
    """``path`` made absolute and normal (``..`` folded, ``//`` as ``/``), then the
    target of each symbolic link on the way, in turn (at most 40)."""
    names: list[str] = []
    try:
        name = path if os.path.isabs(path) else os.path.join(os.getcwd(), path)
        for _ in range(40):
            name = "/" + os.path.normpath(name).lstrip("/")
            names.append(name)
            if not os.path.islink(name):
                break
            name = os.path.join(os.path.dirname(name), os.readlink(name))
    except OSError:  # the working directory is gone, or a link cannot be read
        pass
    return names


def descriptor_named(path: str) -> int | None:
    """The descriptor of this process that ``path`` names, or None.

    ``/dev/stdin``, ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N`` and
    ``/proc/{self,thread-self,PID}/fd/N`` (PID this process's), however spelt,
    or reached through symbolic links, name a descriptor rather than a file:
    opening one opens anew what it points at, so a redirection to a regular
    file (``>> log``) would be truncated, or replaced by a rename. meancli
    writes such an output through the descriptor itself, at its offset and
    with its flags, as the shell set them."""
    import re

    for name in _names_of(path):
        if name in _STANDARD_NAMES:
            return _STANDARD_NAMES[name]
        if not name.startswith(_DESCRIPTOR_PREFIXES):  # no pattern to compile for every run's output
            continue
        m = re.fullmatch(rf"/dev/fd/(\d+)|/proc/(?:self|thread-self|{os.getpid()})/fd/(\d+)", name)
        if m is not None:
            digits = m.group(1) or m.group(2)
            return int(digits) if len(digits) < 10 else None
    return None


def another_process_descriptor(path: str) -> bool:
    """Whether ``path`` (however spelt, or through symbolic links) is
    ``/proc/PID/fd/N`` of another process (a shell's ``/proc/$$/fd/1``): what it
    points at is written in place, opened by that name, as a shell's ``>`` would,
    never replaced by a rename."""
    import re

    for name in _names_of(path):
        if not name.startswith("/proc/"):
            continue
        m = re.fullmatch(r"/proc/(\d+)/fd/\d+", name)
        if m is not None and int(m.group(1)) != os.getpid():
            return True
    return False


def check_writable(fd: int, name: str) -> None:
    """That descriptor ``fd`` (named ``name``) is open for writing.

    Raises:
        OutputFileError: ``cannot write NAME: Bad file descriptor`` (or the reason).
    """
    import errno
    import fcntl

    try:
        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    except OSError as exc:
        raise OutputFileError(f"cannot write {name}: {reason(exc)}") from None
    if flags & os.O_ACCMODE == os.O_RDONLY:
        raise OutputFileError(f"cannot write {name}: {os.strerror(errno.EBADF)}")


def is_terminal(path: str) -> bool:
    """Whether ``path`` names a terminal (``/dev/tty``, ``/dev/stdout`` on one):
    a character device that isatty says is one. Opened without waiting and
    without becoming the controlling terminal; False when it cannot be."""
    import stat

    try:
        if not stat.S_ISCHR(os.stat(path).st_mode):
            return False
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    try:
        return os.isatty(fd)
    finally:
        os.close(fd)


def stdout_buffer() -> BinaryIO:
    """``sys.stdout.buffer``, checked: there is one and it is not a terminal.

    Raises:
        InputFileError: standard output is missing.
        UsageError: standard output is a terminal.
    """
    buffer: BinaryIO = _binary_buffer(
        sys.stdout,
        f"cannot write {STDOUT_NAME}: standard output is not available",
        "-o -: refusing to write binary .npy data to a terminal; redirect stdout or use -o FILE",
    )
    return buffer


def write_stdout(parts: Iterable[bytes | memoryview]) -> int:
    """Write ``parts`` to standard output, every byte; the number of bytes written.

    Raises:
        OutputFileError: stdout is missing or fails (``cannot write <stdout>``).
        UsageError: stdout is a terminal.
        BrokenPipeError: the reader has gone away.
    """
    buffer = stdout_buffer()
    try:
        fd = _fileno(buffer)
        if fd is None:
            total = write_all(buffer, parts)
            buffer.flush()
        else:  # every byte written and checked, whatever kind of pipe stdout is
            buffer.flush()
            total = 0
            for part in parts:
                _write_fd_all(fd, part)
                total += len(part)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputFileError(f"cannot write {STDOUT_NAME}: {reason(exc)}") from None
    return total
