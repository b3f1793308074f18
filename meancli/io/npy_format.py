"""The ``.npy`` header: parsed and checked when read, built when written.

The header is parsed here (never by unpickling): magic ``\\x93NUMPY``, format
version 1.0, 2.0 or 3.0, a header length, then a Python dict literal with exactly
the keys ``descr``, ``fortran_order`` and ``shape``.  Every problem is reported as
one :class:`~meancli.errors.InputFileError` line that names the file (or the
``archive.npz:member``).

The two-byte void descr ``'<V2'`` / ``'|V2'`` is what numpy writes for
``ml_dtypes.bfloat16``; such data is read as bfloat16 (``ml_dtypes`` is imported
only when such a file is met).
"""

from __future__ import annotations

import ast
import io
import re
from typing import TYPE_CHECKING, Any, BinaryIO, Literal, NamedTuple

import numpy as np

from ..dtypes import BFLOAT16_DESCRS, bfloat16_dtype, is_bfloat16
from ..errors import InputFileError, OutputFileError, UnsupportedDtypeFile
from .messages import bad, display, reason
from .pipes import read_upto

if TYPE_CHECKING:
    import numpy.typing as npt

MAGIC = b"\x93NUMPY"
#: How a zip archive starts: a local file header, or (an archive with no members)
#: the end-of-central-directory record.
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
#: The largest header accepted (numpy itself refuses more than 10000 bytes by default).
MAX_HEADER_BYTES = 1 << 20
#: The largest data size accepted, in bytes.
MAX_DATA_BYTES = 1 << 62
#: numpy's NPY_MAXDIMS.
MAX_NDIM = 64
_EXPECTED_KEYS = frozenset({"descr", "fortran_order", "shape"})
# version -> (bytes in the header-length field, header text encoding)
_VERSIONS = {(1, 0): (2, "latin1"), (2, 0): (4, "latin1"), (3, 0): (4, "utf8")}
# Kinds whose data is the bytes themselves ('O' and 'T' hold references elsewhere).
_PLAIN_KINDS = frozenset("biufcSUVmM")


class NpyHeader(NamedTuple):  # not a dataclass: no methods compiled at import time
    """The parsed header of a ``.npy`` file.

    Attributes:
        version: the format version, ``(1, 0)``, ``(2, 0)`` or ``(3, 0)``.
        descr: the dtype descr exactly as in the file, e.g. ``'<f4'``, ``'>i8'``, ``'<V2'``.
        dtype: the resolved dtype (``ml_dtypes.bfloat16`` for ``'<V2'``/``'|V2'``), in the
            file's byte order.
        fortran_order: True if the data is stored in Fortran (column-major) order.
        shape: the array shape; ``()`` for a rank-0 array.
        data_offset: bytes from the start of the ``.npy`` bytes to the first data byte.
        nbytes: the data size in bytes, ``dtype.itemsize * prod(shape)``.
    """

    version: tuple[int, int]
    descr: str
    dtype: np.dtype[Any]
    fortran_order: bool
    shape: tuple[int, ...]
    data_offset: int
    nbytes: int

    @property
    def order(self) -> Literal["C", "F"]:
        """``"F"`` for Fortran order, else ``"C"``."""
        return "F" if self.fortran_order else "C"

    def size_text(self) -> str:
        """``header says shape (2, 3) float32 = 24 bytes``, for size errors."""
        return f"header says shape {tuple(self.shape)!r} {self.dtype} = {self.nbytes} bytes"


def _malformed(where: str, what: str) -> InputFileError:
    return InputFileError(f"{where}: malformed header: {what}")


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


_AST_NODE = r"<ast\.(\w+) object at 0x[0-9a-fA-F]+>"  # compiled (by re) only for a bad header


def _literal_reason(exc: BaseException) -> str:
    """Why ``ast.literal_eval`` refused: one short line, without memory addresses."""
    text = reason(exc)
    if "Exceeds the limit" in text and "digits" in text:
        return "an integer literal with too many digits"
    return re.sub(_AST_NODE, lambda m: f"a {m.group(1)} expression", text)


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
        raise _malformed(where, f"'descr' must be a string, found {type(descr).__name__}")
    if descr in BFLOAT16_DESCRS:
        try:
            return bfloat16_dtype()
        except ImportError as exc:
            msg = f"descr {descr!r} is bfloat16 data, but ml_dtypes cannot be imported"
            raise bad(where, f"{msg}: {reason(exc)}") from None
    try:
        dtype = np.dtype(descr)
    except Exception as exc:  # numpy raises TypeError, ValueError, warnings as errors...
        raise InputFileError(
            f"{where}: descr {descr!r:.200} is not a dtype numpy understands ({reason(exc)})"
        ) from None
    if dtype.names is not None or dtype.subdtype is not None:
        raise UnsupportedDtypeFile(
            f"{where}: structured or subarray dtypes are not supported (descr {descr!r:.200})"
        )
    if dtype.kind == "O":
        raise UnsupportedDtypeFile(
            f"{where}: object arrays are not supported (they need pickle); descr {descr!r:.200}"
        )
    if dtype.kind not in _PLAIN_KINDS or dtype.hasobject:  # e.g. 'T' (StringDType): data held elsewhere
        raise UnsupportedDtypeFile(f"{where}: dtype {dtype} cannot be read from raw bytes")
    if dtype.itemsize == 0:
        raise UnsupportedDtypeFile(f"{where}: zero-size dtype (descr {descr!r:.200}) is not supported")
    return dtype


def read_header(fp: BinaryIO, name: str) -> NpyHeader:
    """Read and validate a ``.npy`` header from ``fp``, positioned at the start of the ``.npy`` bytes.

    Leaves ``fp`` positioned at the first data byte.  ``name`` is the file name used in
    error messages (``archive.npz:member`` for a member).  Never unpickles; the dict is
    parsed with :func:`ast.literal_eval`.

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
    where = display(name)
    try:
        return _read_header(fp, where)
    except OSError as exc:
        raise InputFileError(f"{where}: read error: {reason(exc)}") from None


def _read_header(fp: BinaryIO, where: str) -> NpyHeader:
    start = read_upto(fp, len(MAGIC) + 2)
    if not start:
        raise InputFileError(f"{where}: empty file (0 bytes), not a .npy file")
    if start[:4] in ZIP_MAGICS:
        raise bad(where, "is an .npz archive (zip), not a .npy file; extract the array first")
    if not start.startswith(MAGIC):
        if MAGIC.startswith(start):
            raise InputFileError(f"{where}: truncated header: only {len(start)} bytes")
        raise InputFileError(f"{where}: not a .npy file (it does not start with \\x93NUMPY)")
    if len(start) < len(MAGIC) + 2:
        raise InputFileError(f"{where}: truncated header: only {len(start)} bytes")
    version = (start[6], start[7])
    if version not in _VERSIONS:
        msg = f"unsupported .npy format version {version[0]}.{version[1]}"
        raise bad(where, f"{msg} (supported: 1.0, 2.0, 3.0)")
    len_size, encoding = _VERSIONS[version]
    len_field = read_upto(fp, len_size)
    if len(len_field) < len_size:
        raise InputFileError(f"{where}: truncated header: the header length field is cut off")
    hlen = int.from_bytes(len_field, "little")
    if hlen > MAX_HEADER_BYTES:
        raise InputFileError(
            f"{where}: header length {hlen} bytes exceeds the 1 MiB limit meancli accepts "
            "(numpy's own default limit is 10000 bytes)"
        )
    raw = read_upto(fp, hlen)
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
        raise bad(where, f"shape has {len(shape)} dimensions; at most {MAX_NDIM} are supported")
    nbytes = dtype.itemsize
    nominal = dtype.itemsize  # product of the non-zero dims: numpy's own overflow check
    for dim in shape:
        nbytes *= dim
        nominal *= max(dim, 1)
    if nominal > MAX_DATA_BYTES:
        raise InputFileError(
            f"{where}: shape {tuple(shape)!r:.200} {dtype} is too large: "
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


def header_bytes(array: npt.NDArray[Any], where: str) -> tuple[bytes, bool]:
    """The header (magic through padding) for ``array``, and whether it is Fortran order.

    Format version 1.0 (2.0 when the header does not fit, as numpy does), written by
    ``numpy.lib.format``; the descr is ``dtype.str`` or ``'<V2'`` for bfloat16.

    Raises:
        OutputFileError: ``cannot write WHERE: ...`` for object, structured or other
            dtypes ``.npy`` cannot hold.
    """
    dtype = array.dtype
    if is_bfloat16(dtype):
        descr = "<V2"
    else:
        if dtype.hasobject:
            msg = "object arrays are not supported (they need pickle)"
            raise OutputFileError(f"cannot write {where}: {msg}")
        if dtype.names is not None or dtype.subdtype is not None:
            raise OutputFileError(f"cannot write {where}: structured dtypes are not supported")
        descr = dtype.str
        try:
            ok = np.dtype(descr) == dtype
        except Exception:
            ok = False
        if not ok:
            raise OutputFileError(f"cannot write {where}: dtype {dtype} cannot be stored in .npy")
    fortran = bool(array.flags.f_contiguous and not array.flags.c_contiguous)
    d = {"descr": descr, "fortran_order": fortran, "shape": tuple(int(n) for n in array.shape)}
    out = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(out, d)
    except ValueError:  # header longer than 65535 bytes
        out = io.BytesIO()
        np.lib.format.write_array_header_2_0(out, d)
    return out.getvalue(), fortran
