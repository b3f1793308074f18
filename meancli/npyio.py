"""Reading and writing ``.npy`` files safely.

The header is parsed here (never by unpickling): magic ``\\x93NUMPY``, format
version 1.0, 2.0 or 3.0, a header length, then a Python dict literal with exactly
the keys ``descr``, ``fortran_order`` and ``shape``.  Every problem with a file is
reported as one :class:`~meancli.errors.InputFileError` line that names the file.

Arrays are returned in the file's byte order (nothing is byteswapped here) and
with the file's memory layout (C or Fortran order).  The two-byte void descr
``'<V2'`` / ``'|V2'`` is what numpy writes for ``ml_dtypes.bfloat16``; such data
is read as bfloat16 (``ml_dtypes`` is imported only when such a file is met).
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, NamedTuple

import numpy as np

from meancli.errors import InputFileError, UnsupportedDtypeFile

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = [
    "BFLOAT16_NOTE",
    "MAX_DATA_BYTES",
    "MAX_HEADER_BYTES",
    "NpyHeader",
    "is_bfloat16",
    "read_header",
    "read_npy",
    "write_npy",
    "write_npy_blocks",
]

BFLOAT16_NOTE = "note: 2-byte void data ('<V2' or '|V2', ml_dtypes' layout) was read as bfloat16"

MAGIC = b"\x93NUMPY"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
#: The largest header accepted (numpy itself refuses more than 10000 bytes by default).
MAX_HEADER_BYTES = 1 << 20
#: The largest data size accepted, in bytes.
MAX_DATA_BYTES = 1 << 62
#: numpy's NPY_MAXDIMS.
MAX_NDIM = 64
STDIN_NAME = "<stdin>"
STDOUT_NAME = "<stdout>"
BFLOAT16_DESCRS = ("<V2", "|V2")
_EXPECTED_KEYS = frozenset({"descr", "fortran_order", "shape"})
# version -> (bytes in the header-length field, header text encoding)
_VERSIONS = {(1, 0): (2, "latin1"), (2, 0): (4, "latin1"), (3, 0): (4, "utf8")}
_CHUNK = 1 << 24  # bytes per read/write call


class NpyHeader(NamedTuple):  # not a dataclass: no methods compiled at import time
    """The parsed header of a ``.npy`` file.

    Attributes:
        version: the format version, ``(1, 0)``, ``(2, 0)`` or ``(3, 0)``.
        descr: the dtype descr exactly as in the file, e.g. ``'<f4'``, ``'>i8'``, ``'<V2'``.
        dtype: the resolved dtype (``ml_dtypes.bfloat16`` for ``'<V2'``/``'|V2'``), in the
            file's byte order.
        fortran_order: True if the data is stored in Fortran (column-major) order.
        shape: the array shape; ``()`` for a rank-0 array.
        data_offset: bytes from the start of the file to the first data byte.
        nbytes: the data size in bytes, ``dtype.itemsize * prod(shape)``.
    """

    version: tuple[int, int]
    descr: str
    dtype: np.dtype[Any]
    fortran_order: bool
    shape: tuple[int, ...]
    data_offset: int
    nbytes: int


def _display(name: str) -> str:
    """``name`` made safe to print on one line (control characters escaped)."""
    if name.isprintable():
        return name
    return name.encode("unicode_escape", "backslashreplace").decode("ascii")


def _reason(exc: BaseException) -> str:
    """A one-line reason from an exception (``strerror`` for an OSError)."""
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def _bad(where: str, what: str) -> InputFileError:
    """The one-line error ``WHERE: WHAT``."""
    return InputFileError(f"{where}: {what}")


def _malformed(where: str, what: str) -> InputFileError:
    """The one-line error ``WHERE: malformed header: WHAT``."""
    return InputFileError(f"{where}: malformed header: {what}")


def _shape_text(shape: tuple[int, ...]) -> str:
    return repr(tuple(shape))


def is_bfloat16(dtype: np.dtype[Any]) -> bool:
    """Return True if ``dtype`` is ``ml_dtypes.bfloat16`` (in either byte order).

    Never imports ``ml_dtypes``: if it has not been imported, no bfloat16 dtype can exist.
    Raises nothing.
    """
    mod = sys.modules.get("ml_dtypes")
    if mod is None:
        return False
    bf16 = getattr(mod, "bfloat16", None)
    return bf16 is not None and getattr(dtype, "type", None) is bf16


def _bfloat16_dtype() -> np.dtype[Any]:
    import ml_dtypes  # lazy: only when a bfloat16 file is met or written

    dtype: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
    return dtype


def _read_upto(fp: BinaryIO, n: int) -> bytes:
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


def _filter_python2_longs(text: str) -> str:
    """Drop the ``L`` suffix Python 2 wrote after long integers (as numpy does)."""
    import tokenize

    tokens = []
    last_was_number = False
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if last_was_number and tok.type == tokenize.NAME and tok.string == "L":
            continue
        tokens.append(tok)
        last_was_number = tok.type == tokenize.NUMBER
    return str(tokenize.untokenize(tokens))


_AST_NODE = re.compile(r"<ast\.(\w+) object at 0x[0-9a-fA-F]+>")


def _literal_reason(exc: BaseException) -> str:
    """Why ``ast.literal_eval`` refused: one short line, without memory addresses."""
    text = _reason(exc)
    if "Exceeds the limit" in text and "digits" in text:
        return "an integer literal with too many digits"
    return _AST_NODE.sub(lambda m: f"a {m.group(1)} expression", text)


def _literal(text: str, version: tuple[int, int]) -> object:
    """``ast.literal_eval`` of the header text; ValueError if it is not a literal."""
    errors = (SyntaxError, ValueError, TypeError, MemoryError, RecursionError)
    try:
        return ast.literal_eval(text)
    except errors as exc:
        first: BaseException = exc
    if version <= (2, 0) and "L" in text:
        try:
            return ast.literal_eval(_filter_python2_longs(text))
        except Exception:  # any failure: the original error stands
            raise ValueError(_literal_reason(first)) from None
    raise ValueError(_literal_reason(first))


def _resolve_dtype(descr: object, where: str) -> np.dtype[Any]:
    """The dtype of a header's descr; InputFileError if it is not a supported plain dtype."""
    if isinstance(descr, list):
        raise UnsupportedDtypeFile(
            f"{where}: structured dtypes (a list descr) are not supported: {descr!r:.200}"
        )
    if not isinstance(descr, str):
        raise InputFileError(
            f"{where}: malformed header: 'descr' must be a string, found {type(descr).__name__}"
        )
    if descr in BFLOAT16_DESCRS:
        try:
            return _bfloat16_dtype()
        except ImportError as exc:
            msg = f"descr {descr!r} is bfloat16 data, but ml_dtypes cannot be imported"
            raise _bad(where, f"{msg}: {_reason(exc)}") from None
    try:
        dtype = np.dtype(descr)
    except Exception as exc:  # numpy raises TypeError, ValueError, warnings as errors...
        raise InputFileError(
            f"{where}: descr {descr!r:.200} is not a dtype numpy understands ({_reason(exc)})"
        ) from None
    if dtype.names is not None or dtype.subdtype is not None:
        raise UnsupportedDtypeFile(
            f"{where}: structured or subarray dtypes are not supported (descr {descr!r:.200})"
        )
    if not getattr(type(dtype), "_legacy", True):  # e.g. 'T' (StringDType): data held elsewhere
        raise UnsupportedDtypeFile(f"{where}: dtype {dtype} cannot be read from raw bytes")
    if dtype.hasobject:
        raise UnsupportedDtypeFile(
            f"{where}: object arrays are not supported (they need pickle); descr {descr!r:.200}"
        )
    if dtype.itemsize == 0:
        raise UnsupportedDtypeFile(f"{where}: zero-size dtype (descr {descr!r:.200}) is not supported")
    return dtype


def read_header(fp: BinaryIO, name: str) -> NpyHeader:
    """Read and validate a ``.npy`` header from ``fp``, positioned at the start of the file.

    Leaves ``fp`` positioned at the first data byte.  ``name`` is the file name used in
    error messages.  Never unpickles; the dict is parsed with :func:`ast.literal_eval`.

    Returns:
        The :class:`NpyHeader`: ``data_offset`` is the number of bytes consumed (magic,
        version, length field, header text); ``nbytes`` is ``itemsize * prod(shape)``
        bytes.  The data itself is not read or checked against the file size.

    Raises:
        InputFileError: one line naming the file when it is empty, an ``.npz`` archive,
            lacks the magic, has an unsupported version, a header longer than 1 MiB or
            past the end of the file, a header that is not a dict with exactly the keys
            descr/fortran_order/shape, a structured or object descr, a shape that is not a
            tuple of non-negative ints, or a byte size over 2**62; also on a read error.
    """
    where = _display(name)
    try:
        return _read_header(fp, where)
    except OSError as exc:
        raise InputFileError(f"{where}: read error: {_reason(exc)}") from None


def _read_header(fp: BinaryIO, where: str) -> NpyHeader:
    start = _read_upto(fp, len(MAGIC) + 2)
    if not start:
        raise InputFileError(f"{where}: empty file (0 bytes), not a .npy file")
    if start[:4] in ZIP_MAGICS:
        raise _bad(where, "is an .npz archive (zip), not a .npy file; extract the array first")
    if not start.startswith(MAGIC):
        if MAGIC.startswith(start):
            raise InputFileError(f"{where}: truncated header: only {len(start)} bytes")
        raise InputFileError(f"{where}: not a .npy file (it does not start with \\x93NUMPY)")
    if len(start) < len(MAGIC) + 2:
        raise InputFileError(f"{where}: truncated header: only {len(start)} bytes")
    version = (start[6], start[7])
    if version not in _VERSIONS:
        msg = f"unsupported .npy format version {version[0]}.{version[1]}"
        raise _bad(where, f"{msg} (supported: 1.0, 2.0, 3.0)")
    len_size, encoding = _VERSIONS[version]
    len_field = _read_upto(fp, len_size)
    if len(len_field) < len_size:
        raise InputFileError(f"{where}: truncated header: the header length field is cut off")
    hlen = int.from_bytes(len_field, "little")
    if hlen > MAX_HEADER_BYTES:
        raise InputFileError(
            f"{where}: header length {hlen} bytes exceeds the 1 MiB limit meancli accepts "
            "(numpy's own default limit is 10000 bytes)"
        )
    raw = _read_upto(fp, hlen)
    if len(raw) < hlen:
        raise InputFileError(
            f"{where}: truncated header: header length field says {hlen} bytes, "
            f"the file holds {len(raw)} after it"
        )
    data_offset = len(MAGIC) + 2 + len_size + hlen
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError:
        raise _malformed(where, f"not valid {encoding.upper()} text") from None
    try:
        d = _literal(text, version)
    except ValueError as exc:
        raise _malformed(where, f"not a Python literal ({exc!s:.200})") from None
    if not isinstance(d, dict):
        raise _malformed(where, f"expected a dict, found {type(d).__name__}")
    keys = set(d.keys())
    if keys != _EXPECTED_KEYS:
        missing = sorted(_EXPECTED_KEYS - keys)
        extra = sorted(repr(k) for k in keys - _EXPECTED_KEYS)
        parts = []
        if missing:
            parts.append("missing key(s) " + ", ".join(repr(k) for k in missing))
        if extra:
            parts.append("unexpected key(s) " + ", ".join(extra))
        raise InputFileError(
            f"{where}: malformed header: {'; '.join(parts)} "
            "(expected exactly 'descr', 'fortran_order', 'shape')"[:400]
        )
    descr = d["descr"]
    dtype = _resolve_dtype(descr, where)
    assert isinstance(descr, str)
    fortran_order = d["fortran_order"]
    if type(fortran_order) is not bool:
        found = f"{fortran_order!r:.100}"
        raise _malformed(where, f"'fortran_order' must be True or False, found {found}")
    shape = d["shape"]
    if not isinstance(shape, tuple):
        raise _malformed(where, f"'shape' must be a tuple, found {shape!r:.100}")
    for dim in shape:
        if type(dim) is not int:
            raise _malformed(where, f"shape {shape!r:.200} has a non-integer dimension {dim!r:.50}")
        if dim < 0:
            raise _malformed(where, f"shape {shape!r:.200} has a negative dimension")
    if len(shape) > MAX_NDIM:
        raise _bad(where, f"shape has {len(shape)} dimensions; at most {MAX_NDIM} are supported")
    nbytes = dtype.itemsize
    nominal = dtype.itemsize  # product of the non-zero dims: numpy's own overflow check
    for dim in shape:
        nbytes *= dim
        nominal *= max(dim, 1)
    if nominal > MAX_DATA_BYTES:
        raise InputFileError(
            f"{where}: shape {_shape_text(shape):.200} {dtype} is too large: "
            f"{nominal} bytes exceeds the 2**62-byte limit"
        )
    return NpyHeader(
        version=version,
        descr=descr,
        dtype=dtype,
        fortran_order=fortran_order,
        shape=shape,
        data_offset=data_offset,
        nbytes=nbytes,
    )


def _size_text(h: NpyHeader) -> str:
    return f"header says shape {_shape_text(h.shape)} {h.dtype} = {h.nbytes} bytes"


def _order(h: NpyHeader) -> Literal["C", "F"]:
    return "F" if h.fortran_order else "C"


def _array_from_buffer(buf: npt.NDArray[np.uint8], h: NpyHeader) -> npt.NDArray[Any]:
    return buf.view(h.dtype).reshape(h.shape, order=_order(h))


def _read_data(fp: BinaryIO, h: NpyHeader, where: str, *, stream: bool) -> npt.NDArray[Any]:
    """Read exactly ``h.nbytes`` data bytes (short reads tolerated) into a new array."""
    try:
        buf = np.empty(h.nbytes, dtype=np.uint8)
    except MemoryError:
        raise InputFileError(
            f"{where}: cannot allocate {h.nbytes} bytes for the data ({_size_text(h)})"
        ) from None
    view = buf.data
    got = 0
    readinto = getattr(fp, "readinto", None)
    while got < h.nbytes:
        want = min(_CHUNK, h.nbytes - got)
        if readinto is not None:
            n = read_into(fp, view[got : got + want])
        else:
            chunk = read_bytes(fp, want)
            n = len(chunk)
            view[got : got + n] = chunk
        if not n:
            break
        got += n
    if got < h.nbytes:
        what = "the stream ends after" if stream else "file holds"
        raise InputFileError(f"{where}: truncated data: {_size_text(h)}, {what} {got}")
    if read_bytes(fp, 1):
        raise _bad(where, f"trailing bytes: {_size_text(h)}, but more data follows the array")
    return _array_from_buffer(buf, h)


def _open_for_reading(path: str, where: str) -> BinaryIO:
    try:
        return open(path, "rb")  # closed by the caller
    except FileNotFoundError:
        raise InputFileError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise InputFileError(f"{where}: is a directory, not a .npy file") from None
    except PermissionError:
        raise InputFileError(f"{where}: permission denied") from None
    except OSError as exc:
        raise InputFileError(f"{where}: cannot open: {_reason(exc)}") from None
    except ValueError as exc:  # e.g. an embedded NUL byte in the path
        raise InputFileError(f"{where}: cannot open: {_reason(exc)}") from None


def read_npy(path: str, *, mmap: bool = True) -> tuple[npt.NDArray[Any], NpyHeader]:
    """Read a ``.npy`` file; ``path`` ``"-"`` reads a ``.npy`` stream from standard input.

    Args:
        path: the file to read, or ``"-"`` for ``sys.stdin.buffer`` (named ``<stdin>``).
        mmap: memory-map a regular file (read-only) instead of reading it into memory.

    Returns:
        ``(array, header)``.  The array has ``header.shape`` and ``header.dtype`` in the
        file's byte order (not byteswapped), in Fortran order when ``header.fortran_order``
        (without a copy), and always aligned for its dtype.  For a regular file with
        ``mmap=True`` and data at an aligned offset it is a read-only :class:`numpy.memmap`;
        a size-0 array is a fresh ``np.empty``; otherwise (``mmap`` False, a header whose
        length leaves the data misaligned, stdin, pipes and other non-regular files) it is
        a writable in-memory array.
        bfloat16 data (descr ``'<V2'``/``'|V2'``) has dtype ``ml_dtypes.bfloat16``; callers
        may print :data:`BFLOAT16_NOTE` when :func:`is_bfloat16` is true of it.

    Raises:
        InputFileError: one line naming the file for a missing file, a directory, a
            permission problem, any other OS error, an empty file, an ``.npz`` archive,
            any malformed header (see :func:`read_header`), object or structured dtypes,
            truncated data or trailing bytes after the data, or standard input that is a
            terminal.
    """
    if path == "-":
        return _read_stdin()
    where = _display(path)
    fp = _open_for_reading(path, where)
    with fp:
        try:
            st = os.fstat(fp.fileno())
        except OSError as exc:
            raise InputFileError(f"{where}: cannot stat: {_reason(exc)}") from None
        if stat.S_ISDIR(st.st_mode):
            raise InputFileError(f"{where}: is a directory, not a .npy file")
        h = read_header(fp, where)
        if not stat.S_ISREG(st.st_mode):  # a pipe, a FIFO, a character device...
            try:
                return _read_data(fp, h, where, stream=True), h
            except OSError as exc:
                raise InputFileError(f"{where}: read error: {_reason(exc)}") from None
        held = st.st_size - h.data_offset
        if held < h.nbytes:
            raise InputFileError(f"{where}: truncated data: {_size_text(h)}, file holds {held}")
        if held > h.nbytes:
            raise InputFileError(
                f"{where}: trailing bytes: {_size_text(h)}, file holds {held} "
                f"({held - h.nbytes} bytes after the data)"
            )
        if h.nbytes == 0:
            return np.empty(h.shape, dtype=h.dtype, order=_order(h)), h
        # A header not padded as the format requires (to 64 bytes) would map the data at
        # an offset misaligned for its dtype, and the C kernels dereference typed
        # pointers: read such a file into (aligned) memory instead.
        if mmap and h.data_offset % h.dtype.alignment == 0:
            try:
                arr = np.memmap(
                    fp,
                    mode="r",
                    dtype=h.dtype,
                    shape=h.shape,
                    order=_order(h),
                    offset=h.data_offset,
                )
                return arr, h
            except (OSError, ValueError):
                pass  # cannot be mapped (e.g. the file system): read it instead
        try:
            fp.seek(h.data_offset)
            return _read_data(fp, h, where, stream=False), h
        except OSError as exc:
            raise InputFileError(f"{where}: read error: {_reason(exc)}") from None


def _read_stdin() -> tuple[npt.NDArray[Any], NpyHeader]:
    stdin = sys.stdin
    buffer = getattr(stdin, "buffer", None) if stdin is not None else None
    if buffer is None:
        raise InputFileError(f"{STDIN_NAME}: standard input is not available")
    try:
        tty = buffer.isatty()
    except (OSError, ValueError):
        tty = False
    if tty:
        raise InputFileError(
            f"{STDIN_NAME}: refusing to read binary .npy data from a terminal; "
            "redirect or pipe a .npy file into standard input"
        )
    h = read_header(buffer, STDIN_NAME)
    try:
        return _read_data(buffer, h, STDIN_NAME, stream=True), h
    except OSError as exc:
        raise InputFileError(f"{STDIN_NAME}: read error: {_reason(exc)}") from None


# ----------------------------------------------------------------------------- writing


def _header_bytes(array: npt.NDArray[Any], where: str) -> tuple[bytes, bool]:
    """The header (magic through padding) for ``array`` and whether it is Fortran order."""
    dtype = array.dtype
    if is_bfloat16(dtype):
        descr = "<V2"
    else:
        if dtype.hasobject:
            msg = "object arrays are not supported (they need pickle)"
            raise InputFileError(f"cannot write {where}: {msg}")
        if dtype.names is not None or dtype.subdtype is not None:
            raise InputFileError(f"cannot write {where}: structured dtypes are not supported")
        descr = dtype.str
        try:
            ok = np.dtype(descr) == dtype
        except Exception:
            ok = False
        if not ok:
            raise InputFileError(f"cannot write {where}: dtype {dtype} cannot be stored in .npy")
    fortran = bool(array.flags.f_contiguous and not array.flags.c_contiguous)
    d = {"descr": descr, "fortran_order": fortran, "shape": tuple(int(n) for n in array.shape)}
    out = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(out, d)
    except ValueError:  # header longer than 65535 bytes
        out = io.BytesIO()
        np.lib.format.write_array_header_2_0(out, d)
    return out.getvalue(), fortran


def _data_chunks(array: npt.NDArray[Any], fortran: bool) -> Iterator[memoryview]:
    """The array's bytes in file order (C order, or Fortran order when ``fortran``)."""
    if array.size == 0 or array.dtype.itemsize == 0:
        return
    data = array.T if fortran else array
    data = np.ascontiguousarray(data)  # no copy when already contiguous
    raw = data.reshape(-1).view(np.uint8).data
    for i in range(0, len(raw), _CHUNK):
        yield raw[i : i + _CHUNK]


def _fileno(fp: Any) -> int | None:
    """``fp``'s descriptor, or None for a stream without one (a test's capture)."""
    try:
        return int(fp.fileno())
    except (AttributeError, OSError, ValueError):
        return None


def _wait_ready(fd: int, *, write: bool) -> None:
    """Block until ``fd`` can be written (or read): a non-blocking pipe says
    EAGAIN, or returns no data, until the other end catches up."""
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
    """``fp.readinto(view)``, waiting as read_bytes does; 0 only at the end."""
    while (n := fp.readinto(view)) is None:
        fd = _fileno(fp)
        if fd is None:
            return 0
        _wait_ready(fd, write=False)
    return int(n)


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


def _write_all(fp: BinaryIO, header: bytes, chunks: Iterable[memoryview]) -> int:
    fp.write(header)
    total = len(header)
    for chunk in chunks:
        fp.write(chunk)
        total += len(chunk)
    return total


def _block_chunks(blocks: Iterable[npt.NDArray[Any]], nbytes: int, where: str) -> Iterator[memoryview]:
    """The bytes of C-order blocks, checking they add up to the promised size."""
    written = 0
    for block in blocks:
        raw = np.ascontiguousarray(block).reshape(-1).view(np.uint8).data
        written += len(raw)
        if written > nbytes:
            raise InputFileError(f"cannot write {where}: more data than the header announces")
        for i in range(0, len(raw), _CHUNK):
            yield raw[i : i + _CHUNK]
    if written != nbytes:
        raise InputFileError(f"cannot write {where}: {written} of {nbytes} data bytes were produced")


def _current_umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_npy(path: str, array: np.ndarray[Any, Any]) -> int:
    """Write ``array`` as a ``.npy`` file atomically; ``path`` ``"-"`` writes to stdout.

    The header is format version 1.0 (2.0 if it does not fit, as numpy does), written by
    ``numpy.lib.format``; the descr is ``dtype.str`` in the array's own byte order, or
    ``'<V2'`` for ``ml_dtypes.bfloat16``.  A Fortran-contiguous (and not C-contiguous)
    array is stored in Fortran order, anything else in C order.

    A regular destination is written through a temporary file in the same directory
    (flushed and fsynced) that then replaces ``path``; on any exception (SIGINT and SIGTERM
    included, even one that arrives as the temporary file is created) the temporary file
    is removed and the destination is left untouched.  An existing destination keeps its
    permission bits, a new one gets ``0o666 & ~umask``.  If ``path`` is a symbolic link
    its target is replaced; if it is an existing non-regular file (``/dev/null``, a FIFO)
    it is written directly.  Writing onto a memory-mapped input file is safe.

    Returns:
        The number of bytes written: header plus ``array.nbytes``.

    Raises:
        InputFileError: ``cannot write PATH: REASON`` for any OS error (``<stdout>`` for
            ``"-"``), for object or structured dtypes, and when stdout is a terminal.
        BrokenPipeError: when writing to stdout and the reader has gone away.
    """
    if path == "-":
        header, fortran = _header_bytes(array, STDOUT_NAME)
        return _write_stdout(header, _data_chunks(array, fortran))
    where = _display(path)
    header, fortran = _header_bytes(array, where)
    return _write_file(path, where, header, _data_chunks(array, fortran))


def write_npy_blocks(
    path: str, shape: tuple[int, ...], dtype: np.dtype[Any], blocks: Iterable[npt.NDArray[Any]]
) -> int:
    """Write a C-order ``.npy`` of ``shape`` and ``dtype`` whose data arrives as
    ``blocks`` (arrays whose bytes, in C order, follow each other): an output
    larger than memory is written as it is produced, by the same atomic rule
    as :func:`write_npy` (``"-"``: stdout).

    Returns:
        The number of bytes written.

    Raises:
        InputFileError: as write_npy, and when the blocks do not add up to the
            shape's size.
        BrokenPipeError: as write_npy.
    """
    template = np.lib.stride_tricks.as_strided(np.empty(1, dtype), shape=shape, strides=(0,) * len(shape))
    where = STDOUT_NAME if path == "-" else _display(path)
    header, _ = _header_bytes(template, where)
    nbytes = int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize
    chunks = _block_chunks(blocks, nbytes, where)
    if path == "-":
        return _write_stdout(header, chunks)
    return _write_file(path, where, header, chunks)


def _write_file(path: str, where: str, header: bytes, chunks: Iterable[memoryview]) -> int:
    """Header and data to ``path`` through a temporary file renamed into place."""
    target = path
    try:
        if os.path.islink(path):
            target = os.path.realpath(path)
        try:
            st: os.stat_result | None = os.stat(target)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise InputFileError(f"cannot write {where}: is a directory")
        if st is not None and not stat.S_ISREG(st.st_mode):
            with open(target, "wb") as fp:
                return _write_all(fp, header, chunks)
        mode = stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_current_umask()
        directory, base = os.path.split(target)
    except OSError as exc:
        raise InputFileError(f"cannot write {where}: {_reason(exc)}") from None
    import tempfile  # only when a file is written

    # A SIGINT or SIGTERM between the temporary file's creation and the try below would leave
    # it behind: they wait until the cleanup is in place.
    with _interrupts_deferred() as resume:
        try:
            fd, tmp = tempfile.mkstemp(dir=directory or ".", prefix="." + base + ".", suffix=".tmp")
        except OSError as exc:
            raise InputFileError(f"cannot write {where}: {_reason(exc)}") from None
        try:
            resume()  # a deferred interrupt is raised here, inside the cleanup's reach
            with os.fdopen(fd, "wb") as fp:
                os.fchmod(fp.fileno(), mode)
                total = _write_all(fp, header, chunks)
                fp.flush()
                os.fsync(fp.fileno())
            os.replace(tmp, target)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            if isinstance(exc, OSError):
                raise InputFileError(f"cannot write {where}: {_reason(exc)}") from None
            raise
    _fsync_directory(os.path.dirname(target) or ".")
    return total


_INTERRUPTS = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[Callable[[], None]]:
    """Hold back SIGINT and SIGTERM until the ``resume()`` it yields is called (or the block ends).

    Their Python handlers are swapped for one that only takes note; ``resume()`` puts the
    handlers back and raises each noted signal again, so that its handler (and exception)
    runs there.  (Blocking the signals would not do: any other thread, an OpenMP worker for
    one, still receives them.)  Does nothing off the main thread, where handlers cannot be
    set, nor for a handler that was not set from Python.
    """
    noted: list[int] = []
    saved: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in _INTERRUPTS:
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


def _fsync_directory(directory: str) -> None:
    """Best effort: make the rename durable."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)


def _write_stdout(header: bytes, chunks: Iterable[memoryview]) -> int:
    stdout = sys.stdout
    buffer = getattr(stdout, "buffer", None) if stdout is not None else None
    if buffer is None:
        raise InputFileError(f"cannot write {STDOUT_NAME}: standard output is not available")
    try:
        tty = buffer.isatty()
    except (OSError, ValueError):
        tty = False
    if tty:
        raise InputFileError(
            "refusing to write binary .npy data to a terminal; redirect stdout or use -o FILE"
        )
    try:
        fd = _fileno(buffer)
        if fd is None:
            total = _write_all(buffer, header, chunks)
            buffer.flush()
        else:  # every byte written and checked, whatever kind of pipe stdout is
            buffer.flush()
            _write_fd_all(fd, header)
            total = len(header)
            for chunk in chunks:
                _write_fd_all(fd, chunk)
                total += len(chunk)
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise InputFileError(f"cannot write {STDOUT_NAME}: {_reason(exc)}") from None
    return total
