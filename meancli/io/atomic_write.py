"""A file written whole or not at all: through a temporary file renamed into place."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterable

from ..errors import OutputFileError
from ..interrupts import interrupts_deferred
from .messages import reason
from .pipes import another_process_descriptor, descriptor_named, write_all

# Called with each temporary file's path as it is created, and None once it is
# renamed or removed (kernels.handle_bus_errors: a crash handler removes it).
temporary_watchers: list[Callable[[str | None], None]] = []


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(path: str, where: str, parts: Iterable[bytes | memoryview]) -> int:
    """Write the concatenated ``parts`` to ``path``, replacing it only once all are written.

    A regular destination is written through a temporary file in the same directory
    that then replaces ``path`` (a rename); on any exception (SIGINT and SIGTERM
    included, even one that arrives as the temporary file is created) the temporary file
    is removed and the destination is left untouched.  An existing destination keeps its
    permission bits, a new one gets ``0o666 & ~umask``.  If ``path`` is a symbolic link
    its target is replaced; if it is an existing non-regular file (``/dev/null``, a FIFO)
    it is written directly.  Writing onto a memory-mapped input file is safe.

    ``parts`` is consumed lazily, so an output larger than memory can be produced as
    it is written; an exception it raises aborts the write as any other.

    If ``path`` names a descriptor of this process (``/dev/stderr``, ``/dev/fd/N``:
    pipes.descriptor_named), the data are written through that descriptor instead.

    The temporary file is unnamed where Linux has them (O_TMPFILE) and named only
    once whole, so even a run killed by SIGKILL leaves nothing behind.

    Nothing is fsynced: whatever this process meets, the file is whole or absent;
    surviving a power loss is left to the operating system, as numpy's ``np.save``
    and the other tools in a pipeline leave it (an fsync cost more than the rest of
    a small run).

    Returns:
        The number of bytes written.

    Raises:
        OutputFileError: ``cannot write WHERE: REASON`` for any OS error.
    """
    descriptor = descriptor_named(path)
    if descriptor is not None:  # /dev/stderr, /dev/fd/N: written where the shell points it
        try:
            with os.fdopen(os.dup(descriptor), "wb") as fp:
                return write_all(fp, parts)
        except OSError as exc:
            raise OutputFileError(f"cannot write {where}: {reason(exc)}") from None
    target = path
    try:
        try:
            st: os.stat_result | None = os.stat(path)  # through symbolic links
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise OutputFileError(f"cannot write {where}: is a directory")
        if st is not None and (not stat.S_ISREG(st.st_mode) or another_process_descriptor(path)):
            # opened by its own name: /dev/stdout (a link to /proc/self/fd/1)
            # reopens a pipe, whose "target" path names nothing; another
            # process's /proc/PID/fd/N is written where it points
            with open(path, "wb") as fp:
                return write_all(fp, parts)
        if os.path.islink(path):
            target = os.path.realpath(path)
        mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_current_umask()
        directory = os.path.dirname(target)
    except OSError as exc:
        raise OutputFileError(f"cannot write {where}: {reason(exc)}") from None
    # A SIGINT or SIGTERM between the temporary file's creation and the try below would leave
    # it behind: they wait until the cleanup is in place.
    with interrupts_deferred() as resume:
        try:
            fd, tmp = create_temporary(directory or ".")
        except OSError as exc:
            raise OutputFileError(f"cannot write {where}: {reason(exc)}") from None
        for watch in temporary_watchers:
            watch(tmp)
        try:
            resume()  # a deferred interrupt is raised here, inside the cleanup's reach
            fp = os.fdopen(fd, "wb")
            try:
                os.fchmod(fp.fileno(), mode)
                total = write_all(fp, parts)
                fp.flush()
            except BaseException:
                with contextlib.suppress(OSError):
                    fp.close()
                raise
            # Naming and renaming wait for interrupts: a name made is renamed or
            # removed. An interrupt that came meanwhile is raised after the rename:
            # the run then ends with its status, the output replaced.
            with interrupts_deferred():
                try:
                    if tmp is None:  # an unnamed file: named now, beside the target
                        tmp = _name_unnamed(fp.fileno(), directory or ".")
                        for watch in temporary_watchers:
                            watch(tmp)
                finally:
                    fp.close()
                _replace(tmp, target)
        except BaseException as exc:
            if tmp is not None:  # an unnamed file goes with its descriptor
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            if isinstance(exc, OSError):
                raise OutputFileError(f"cannot write {where}: {reason(exc)}") from None
            raise
        finally:
            for watch in temporary_watchers:
                watch(None)
    return total


def _replace(tmp: str, target: str) -> None:
    """Rename ``tmp`` onto ``target``, holding the replaced file open meanwhile: the
    rename then only swaps names, and the old file's blocks are freed when it is
    closed (dropping the last link to a 200 MB file made the rename itself take
    19 ms, a window in which a SIGKILL left the complete temporary file behind).

    Raises:
        OSError: the rename fails.
    """
    try:
        old: int | None = os.open(
            target, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
        )
    except OSError:  # none there, or not readable: the rename frees it itself
        old = None
    try:
        os.replace(tmp, target)
    finally:
        if old is not None:
            os.close(old)


def temporary_name() -> str:
    """A fresh name for a temporary file or store beside an output: ``.meancli-XXXXXXXXXXXX.tmp``.

    Of a fixed, short length, not derived from the output's name: any output
    name that fits the file system's NAME_MAX has a temporary that fits too."""
    return f".meancli-{os.urandom(6).hex()}.tmp"


# Where the system has unnamed files (Linux O_TMPFILE) and /proc to name one.
_UNNAMED = getattr(os, "O_TMPFILE", 0) if os.path.isdir("/proc/self/fd") else 0
# What open(O_TMPFILE) answers on a file system or kernel without it.
_NO_UNNAMED = {"EOPNOTSUPP", "EISDIR", "EINVAL", "ENOTSUP"}


def create_temporary(directory: str) -> tuple[int, str | None]:
    """A new file in ``directory`` (mode 0o600), open for writing: its descriptor, and
    its path, or None for an unnamed file (Linux O_TMPFILE, named by _name_unnamed
    once whole). A run killed while it writes an unnamed file (SIGKILL, the OOM
    killer) leaves nothing behind. Elsewhere, or on a file system without unnamed
    files: ``DIRECTORY/.meancli-XXXXXXXXXXXX.tmp`` (temporary_name), as
    ``tempfile.mkstemp`` makes one (an exclusive create under a random name, retried
    on a clash), without importing ``tempfile`` and ``random``: about a millisecond
    of every run that writes a file.

    Raises:
        OSError: the file cannot be created (FileExistsError after 100 clashes).
    """
    import errno

    if _UNNAMED:
        try:
            # read and write: _name_unnamed may copy it
            return os.open(directory, _UNNAMED | os.O_RDWR | getattr(os, "O_CLOEXEC", 0), 0o600), None
        except OSError as exc:
            if errno.errorcode.get(exc.errno or 0) not in _NO_UNNAMED:
                raise
    return _create_named(directory)


def _create_named(directory: str) -> tuple[int, str]:
    """A new file ``DIRECTORY/.meancli-XXXXXXXXXXXX.tmp`` (mode 0o600): its descriptor and path.

    Raises:
        OSError: it cannot be created (FileExistsError after 100 clashes).
    """
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        path = os.path.join(directory, temporary_name())
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary file name in {directory}")


def _name_unnamed(fd: int, directory: str) -> str:
    """A name (temporary_name) in ``directory`` for the whole unnamed file open at ``fd``:
    a link to it, or where the system refuses that (a /proc that does not resolve
    the link), a named temporary file its bytes are copied into.

    Raises:
        OSError: neither can be made.
    """
    try:
        return _link_unnamed(fd, directory)
    except FileExistsError:
        raise
    except OSError:
        pass
    out, path = _create_named(directory)
    try:
        st = os.fstat(fd)
        done = 0
        while done < st.st_size:
            n = os.sendfile(out, fd, done, st.st_size - done)
            if n == 0:
                raise OSError(f"{path}: copied {done} of {st.st_size} bytes")
            done += n
        os.fchmod(out, stat.S_IMODE(st.st_mode))
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    finally:
        os.close(out)
    return path


def _link_unnamed(fd: int, directory: str) -> str:
    """A name (temporary_name) in ``directory`` for the unnamed file open at ``fd``.

    Raises:
        OSError: it cannot be linked (FileExistsError after 100 clashes).
    """
    # linkat(AT_SYMLINK_FOLLOW) on /proc/self/fd/FD: os.link calls it only when given a
    # directory descriptor (else link(2), which links the /proc link itself: EXDEV)
    fds = os.open("/proc/self/fd", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        for _ in range(100):
            path = os.path.join(directory, temporary_name())
            try:
                os.link(str(fd), path, src_dir_fd=fds, follow_symlinks=True)
                return path
            except FileExistsError:
                continue
    finally:
        os.close(fds)
    raise FileExistsError(f"no unused temporary file name in {directory}")
