"""``.npy`` outputs: written atomically to a file, or to standard output."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import OutputFileError
from .atomic_write import write_atomically
from .messages import STDOUT_NAME, display
from .npy_format import header_bytes
from .pipes import write_stdout

if TYPE_CHECKING:
    import numpy.typing as npt

_CHUNK = 1 << 24  # bytes per write call


def _data_chunks(array: npt.NDArray[Any], fortran: bool) -> Iterator[memoryview]:
    """The array's bytes in file order (C order, or Fortran order when ``fortran``)."""
    if array.size == 0 or array.dtype.itemsize == 0:
        return
    data = array.T if fortran else array
    data = np.asarray(data, order="C")  # no copy when already contiguous
    raw = data.reshape(-1).view(np.uint8).data
    for i in range(0, len(raw), _CHUNK):
        yield raw[i : i + _CHUNK]


def _block_chunks(blocks: Iterable[npt.NDArray[Any]], nbytes: int, where: str) -> Iterator[memoryview]:
    """The bytes of C-order blocks, checking they add up to the promised size."""
    written = 0
    for block in blocks:
        raw = np.asarray(block, order="C").reshape(-1).view(np.uint8).data
        written += len(raw)
        if written > nbytes:
            raise OutputFileError(f"cannot write {where}: more data than the header announces")
        for i in range(0, len(raw), _CHUNK):
            yield raw[i : i + _CHUNK]
    if written != nbytes:
        raise OutputFileError(f"cannot write {where}: {written} of {nbytes} data bytes were produced")


def _with_header(header: bytes, chunks: Iterable[memoryview]) -> Iterator[bytes | memoryview]:
    yield header
    yield from chunks


def write_npy(path: str, array: np.ndarray[Any, Any]) -> int:
    """Write ``array`` as a ``.npy`` file atomically; ``path`` ``"-"`` writes to stdout.

    The header is format version 1.0 (2.0 if it does not fit, as numpy does), written by
    ``numpy.lib.format``; the descr is ``dtype.str`` in the array's own byte order, or
    ``'<V2'`` for ``ml_dtypes.bfloat16``.  A Fortran-contiguous (and not C-contiguous)
    array is stored in Fortran order, anything else in C order.  A file is replaced
    whole or not at all (see :func:`~meancli.io.atomic_write.write_atomically`).

    Returns:
        The number of bytes written: header plus ``array.nbytes``.

    Raises:
        OutputFileError: ``cannot write PATH: REASON`` for any OS error (``<stdout>`` for
            ``"-"``), for object or structured dtypes, and when stdout is a terminal.
        BrokenPipeError: when writing to stdout and the reader has gone away.
    """
    where = STDOUT_NAME if path == "-" else display(path)
    header, fortran = header_bytes(array, where)
    parts = _with_header(header, _data_chunks(array, fortran))
    if path == "-":
        return write_stdout(parts)
    return write_atomically(path, where, parts)


def npy_bytes(array: np.ndarray[Any, Any], where: str) -> bytes:
    """``array`` as the bytes of a ``.npy`` file (as :func:`write_npy` writes it), for an
    output sent in one request (a URL: io.remote_output).

    Raises:
        OutputFileError: as write_npy, for the dtypes it refuses.
    """
    header, fortran = header_bytes(array, where)
    return b"".join([header, *_data_chunks(array, fortran)])


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
        OutputFileError: as write_npy, and when the blocks do not add up to the
            shape's size.
        BrokenPipeError: as write_npy.
    """
    template = np.lib.stride_tricks.as_strided(np.empty(1, dtype), shape=shape, strides=(0,) * len(shape))
    where = STDOUT_NAME if path == "-" else display(path)
    header, _ = header_bytes(template, where)
    nbytes = int(np.prod(shape, dtype=object)) * np.dtype(dtype).itemsize
    parts = _with_header(header, _block_chunks(blocks, nbytes, where))
    if path == "-":
        return write_stdout(parts)
    return write_atomically(path, where, parts)
