"""The one ``.npy`` reader, for bytes from any source.

A file, standard input, an ``.npz`` member (stored or deflated) and a shard all go
through :func:`read_npy_stream`: the same header limit, the same checks (magic,
version, header, dtype, shape, truncation, trailing bytes, object refusal) and
the same one-line messages, naming the file or ``archive.npz:member``.

Arrays are returned in the file's byte order (nothing is byteswapped here) and
with the file's memory layout (C or Fortran order).
"""

from __future__ import annotations

import io
import os
import stat
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from ..errors import InputFileError
from .mapped import map_readonly
from .messages import STDIN_NAME, bad, display, reason
from .npy_format import NpyHeader, read_header
from .pipes import read_bytes, read_into, stdin_buffer

if TYPE_CHECKING:
    import numpy.typing as npt

_CHUNK = 1 << 24  # bytes per read call


def check_size(h: NpyHeader, held: int, where: str) -> None:
    """Check that ``held`` bytes follow the header: exactly ``h.nbytes``.

    Raises:
        InputFileError: ``truncated data`` or ``trailing bytes``, naming ``where``.
    """
    if held < h.nbytes:
        raise InputFileError(f"{where}: truncated data: {h.size_text()}, file holds {held}")
    if held > h.nbytes:
        raise InputFileError(
            f"{where}: trailing bytes: {h.size_text()}, file holds {held} "
            f"({held - h.nbytes} bytes after the data)"
        )


def read_data(fp: BinaryIO, h: NpyHeader, where: str, *, known_size: bool) -> npt.NDArray[Any]:
    """Read exactly ``h.nbytes`` data bytes from ``fp`` (just past the header; short reads
    tolerated) into a new array, then check that nothing follows.

    Raises:
        InputFileError: ``truncated data`` (``file holds N`` when ``known_size``, else ``the
            stream ends after N``), ``trailing bytes``, or a size that cannot be allocated.
        OSError: a read error (the caller names the file).
    """
    try:
        buf = np.empty(h.nbytes, dtype=np.uint8)
    except MemoryError:
        msg = f"cannot allocate {h.nbytes} bytes for the data ({h.size_text()})"
        raise bad(where, msg) from None
    view = buf.data
    got = 0
    while got < h.nbytes:
        n = read_into(fp, view[got : got + min(_CHUNK, h.nbytes - got)])
        if not n:
            break
        got += n
    if got < h.nbytes:
        what = "file holds" if known_size else "the stream ends after"
        raise InputFileError(f"{where}: truncated data: {h.size_text()}, {what} {got}")
    if read_bytes(fp, 1):
        raise bad(where, f"trailing bytes: {h.size_text()}, but more data follows the array")
    return buf.view(h.dtype).reshape(h.shape, order=h.order)


def read_npy_stream(
    fp: BinaryIO, name: str, *, size: int | None = None
) -> tuple[npt.NDArray[Any], NpyHeader]:
    """Read one ``.npy`` from ``fp`` (positioned at its first byte) into memory.

    Args:
        fp: any binary file object: a file, a pipe, a zip member, ``io.BytesIO``.
        name: how messages name it (``archive.npz:member`` for a member).
        size: the number of bytes the ``.npy`` occupies, when known: a size that does
            not match the header is refused before any data is read or memory allocated.

    Returns:
        ``(array, header)``: a writable array in the file's byte order and layout.

    Raises:
        InputFileError: anything :func:`read_header` refuses, truncated data or trailing
            bytes, a size that cannot be allocated, or a read error (OSError).
    """
    where = display(name)
    h = read_header(fp, name)
    if size is not None:
        check_size(h, size - h.data_offset, where)
    try:
        return read_data(fp, h, where, known_size=size is not None), h
    except OSError as exc:
        raise InputFileError(f"{where}: read error: {reason(exc)}") from None


def read_npy_bytes(data: bytes, name: str) -> tuple[npt.NDArray[Any], NpyHeader]:
    """Read a ``.npy`` held in memory (a shard, a decompressed chunk); as :func:`read_npy_stream`."""
    return read_npy_stream(io.BytesIO(data), name, size=len(data))


def open_for_reading(path: str, where: str) -> BinaryIO:
    """``open(path, "rb")``, its failures as one-line InputFileErrors naming ``where``."""
    try:
        return open(path, "rb")  # closed by the caller
    except FileNotFoundError:
        raise InputFileError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{where}: is a directory, not a .npy file") from None
    except PermissionError:
        raise InputFileError(f"{where}: permission denied") from None
    except (OSError, ValueError) as exc:  # ValueError: e.g. an embedded NUL byte in the path
        raise InputFileError(f"{where}: cannot open: {reason(exc)}") from None


def read_npy(path: str, *, mmap: bool = True) -> tuple[npt.NDArray[Any], NpyHeader]:
    """Read a ``.npy`` file; ``path`` ``"-"`` reads a ``.npy`` stream from standard input.

    Args:
        path: the file to read, or ``"-"`` for ``sys.stdin.buffer`` (named ``<stdin>``).
        mmap: memory-map a regular file (read-only) instead of reading it into memory.

    Returns:
        ``(array, header)``.  The array has ``header.shape`` and ``header.dtype`` in the
        file's byte order (not byteswapped), in Fortran order when ``header.fortran_order``
        (without a copy), and always aligned for its dtype.  For a regular file with
        ``mmap=True`` and data at an aligned offset it is a read-only array over a memory
        map of the file that holds no file descriptor (io.mapped: a thousand inputs
        do not use up the limit of open files);
        a size-0 array is a fresh ``np.empty``; otherwise (``mmap`` False, a header whose
        length leaves the data misaligned, stdin, pipes and other non-regular files) it is
        a writable in-memory array.
        bfloat16 data (descr ``'<V2'``/``'|V2'``) has dtype ``ml_dtypes.bfloat16``.

    Raises:
        InputFileError: one line naming the file for a missing file, a directory, a
            permission problem, any other OS error, an empty file, an ``.npz`` archive,
            any malformed header (see :func:`read_header`), object or structured dtypes,
            truncated data or trailing bytes after the data, or standard input that is a
            terminal.
    """
    if path == "-":
        return read_npy_stream(stdin_buffer(), STDIN_NAME)
    where = display(path)
    with open_for_reading(path, where) as fp:
        try:
            st = os.fstat(fp.fileno())
        except OSError as exc:
            raise InputFileError(f"{where}: cannot stat: {reason(exc)}") from None
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError(f"{where}: is a directory, not a .npy file")
        if not stat.S_ISREG(st.st_mode):  # a pipe, a FIFO, a character device...
            return read_npy_stream(fp, path)
        h = read_header(fp, path)
        check_size(h, st.st_size - h.data_offset, where)
        if h.nbytes == 0:
            return np.empty(h.shape, dtype=h.dtype, order=h.order), h
        # A header not padded as the format requires (to 64 bytes) would map the data at
        # an offset misaligned for its dtype, and the C kernels dereference typed
        # pointers: read such a file into (aligned) memory instead.
        if mmap and h.data_offset % h.dtype.alignment == 0:
            try:
                raw = map_readonly(fp.fileno(), h.data_offset, h.nbytes)  # holds no descriptor
            except (OSError, ValueError):
                pass  # cannot be mapped (e.g. the file system): read it instead
            else:
                return raw.view(h.dtype).reshape(h.shape, order=h.order), h
        try:
            fp.seek(h.data_offset)
            return read_data(fp, h, where, known_size=True), h
        except OSError as exc:
            raise InputFileError(f"{where}: read error: {reason(exc)}") from None
