"""Inputs larger than memory: ``.npy`` data read in slabs, never all at once.

A large regular file (at least meancli.engine.where.STREAM_MIN_BYTES) or any ``-``
(stdin) input becomes a :class:`Source`: its header is read and checked, and
its data is read on demand into a reused buffer of about ``SLAB_BYTES``.

- ReduceMean: slabs are runs of rows of the input's outermost dimension in
  memory order; the kernel carries each output's running total and open
  chunk from slab to slab, so the result is bit-identical to the in-memory
  path (see templates/kernels.c.j2). Peak memory: one slab, the output, and
  (when the outermost dimension is reduced) a running total per output.
- Mean: the output is produced in blocks (a range along one dimension under
  a fixed prefix); each streamed input's block is one contiguous byte range
  of its file; small inputs stay in memory and are broadcast as views.

An ``.npz`` member of at least ``STREAM_MIN_BYTES`` (uncompressed) streams the
same way, read in order through ``zipfile`` (stored or deflated; its CRC is
checked as its last byte is read).

Not streamed (read through a memory map instead, so memory grows with the
file's size): Fortran-order inputs of Mean, and ReduceMean inputs where a
single row of the outermost dimension exceeds the slab size; archive members
and stdin in those cases are read whole.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from math import prod
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from .engine import where
from .errors import InputFileError
from .formats.dtypes import native_dtype
from .formats.messages import STDIN_NAME, reason
from .formats.npy_format import NpyHeader, read_header
from .formats.npy_read import check_size
from .formats.pipes import read_bytes, read_into, stdin_buffer

if TYPE_CHECKING:
    from .formats.npz import Archive

SLAB_BYTES = int(os.environ.get("MEANCLI_SLAB_BYTES", 32 << 20))

STREAM_READ_BYTES = 1 << 20  # bytes asked of a stream per read
Progress = Callable[[int], None]  # called with bytes just read


@dataclass
class Source:
    """A ``.npy`` input whose data is read on demand.

    ``read_into(offset, view)`` fills ``view`` with data bytes starting at
    ``offset`` (relative to the first data byte). A seekable file reads any
    range; a stream (stdin, a pipe, an archive member) only the next one.
    """

    name: str
    header: NpyHeader
    fp: BinaryIO
    seekable: bool
    position: int = 0  # next data byte a stream will deliver
    read_seconds: float = field(default=0.0)  # time spent waiting for data
    #: what a read of ``fp`` raises for bad data or a failing device (an archive
    #: member adds zipfile's and zlib's errors)
    errors: tuple[type[BaseException], ...] = (OSError,)
    #: closed by finish() after ``fp`` (the archive a member stream comes from)
    archive: Archive | None = None
    #: a seekable file's path and (st_dev, st_ino): its ``fp`` may be closed between
    #: reads to keep within the budget of open files (_keep_open) and is opened again
    path: str | None = None
    identity: tuple[int, int] | None = None

    @property
    def shape(self) -> tuple[int, ...]:
        return self.header.shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.header.dtype

    @property
    def nbytes(self) -> int:
        return self.header.nbytes

    def read_into(self, offset: int, view: memoryview) -> None:
        """Fill ``view`` with data bytes [offset, offset + len(view)).

        Raises:
            InputFileError: the data ends early or cannot be read.
        """
        started = time.perf_counter()
        want = len(view)
        if offset + want > self.nbytes:
            raise InputFileError(f"{self.name}: read past the end of the data")
        got = 0
        try:
            if self.seekable:
                fd = self._descriptor()
                while got < want:
                    n = os.preadv(fd, [view[got:]], self.header.data_offset + offset + got)
                    if n == 0:
                        break
                    got += n
            else:
                if offset != self.position:
                    raise InputFileError(f"{self.name}: a stream can only be read in order")
                while got < want:
                    # in pieces: a zip member's readinto reads (and a deflated one
                    # decompresses) a whole request into a temporary bytes object
                    n = read_into(self.fp, view[got : got + STREAM_READ_BYTES])
                    if not n:
                        break
                    got += n
                self.position += got
        except self.errors as exc:
            raise InputFileError(f"{self.name}: read error: {reason(exc)}") from None
        if got < want:
            raise InputFileError(
                f"{self.name}: truncated data: {self.header.size_text()}, the data ends after {offset + got}"
            )
        self.read_seconds += time.perf_counter() - started

    def finish(self) -> None:
        """Check a stream holds nothing after the data, then close the file.

        Raises:
            InputFileError: trailing bytes on a stream.
        """
        try:
            if not self.seekable and self.position == self.nbytes and read_bytes(self.fp, 1):
                msg = f"trailing bytes: {self.header.size_text()}, but more data follows the array"
                raise InputFileError(f"{self.name}: {msg}")
        except self.errors as exc:
            raise InputFileError(f"{self.name}: read error: {reason(exc)}") from None
        finally:
            self.close()

    def _descriptor(self) -> int:
        """The open descriptor of a seekable file, opened again if the budget closed it.

        Raises:
            InputFileError: the file cannot be opened again, or is another file now.
            OSError: from os.fstat.
        """
        if self.fp.closed and self.path is not None:
            try:
                fp = open(self.path, "rb")  # noqa: SIM115 -- closed by close() or the budget
            except OSError as exc:
                raise InputFileError(f"{self.name}: cannot open it again: {reason(exc)}") from None
            st = os.fstat(fp.fileno())
            if (st.st_dev, st.st_ino) != self.identity:
                fp.close()
                raise InputFileError(f"{self.name}: the file was replaced while it was being read")
            self.fp = fp
        _keep_open(self)
        return self.fp.fileno()

    def close(self) -> None:
        """Close the file (not stdin) and the archive it comes from, checking nothing."""
        _OPEN.pop(id(self), None)
        if self.fp is not getattr(sys.stdin, "buffer", None):
            self.fp.close()
        if self.archive is not None:
            self.archive.close()

    def read_all(self) -> np.ndarray[Any, Any]:
        """The whole array in memory (for a stream too small to be worth streaming).

        Raises:
            InputFileError: the data cannot be read or does not fit in memory.
        """
        try:
            buf = np.empty(self.nbytes, dtype=np.uint8)
        except MemoryError:
            raise InputFileError(f"{self.name}: {self.nbytes} bytes of data do not fit in memory") from None
        if self.nbytes:
            self.read_into(0, buf.data)
        array: np.ndarray[Any, Any] = buf.view(self.dtype)
        return array.reshape(self.shape, order="F" if self.header.fortran_order else "C")


def open_source(arg: str) -> Source | None:
    """A Source for ``-`` (stdin), a regular ``.npy`` file with at least
    where.STREAM_MIN_BYTES, or an ``archive.npz:NAME`` member holding that
    much; None for anything else (read it in memory).

    Raises:
        InputFileError: an unreadable file or a malformed header; for a
            regular file or a member also truncated data or trailing bytes.
    """
    if arg == "-":
        return stdin_source()
    from .formats.detect import input_format, split_member

    path, member = split_member(arg)
    kind = input_format(path)
    if kind == "npz" and member is not None:
        from .formats.npz import Archive

        archive = Archive(path)
        try:
            ((info, name),) = archive.wanted(member)
        except BaseException:
            archive.close()
            raise
        if info.file_size < where.STREAM_MIN_BYTES:
            archive.close()
            return None
        return member_source(archive, info, name)
    if kind != "npy" or member is not None:
        return None
    return file_source(path)


def stdin_source() -> Source:
    """Standard input as a Source (its header read and checked).

    Raises:
        InputFileError: stdin is missing or a terminal, or its header is refused.
    """
    buffer = stdin_buffer()
    return Source(STDIN_NAME, read_header(buffer, STDIN_NAME), buffer, seekable=False)


def file_source(path: str) -> Source | None:
    """A Source for a regular ``.npy`` file of at least where.STREAM_MIN_BYTES; None otherwise.

    Raises:
        InputFileError: a malformed header, truncated data or trailing bytes.
    """
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None  # the in-memory reader reports it
    if not stat.S_ISREG(st.st_mode) or st.st_size < where.STREAM_MIN_BYTES:
        return None
    try:
        fp = open(path, "rb")  # noqa: SIM115 -- closed by Source.finish
    except OSError:
        return None
    try:
        header = read_header(fp, path)
        check_size(header, st.st_size - header.data_offset, path)
        st = os.fstat(fp.fileno())
    except BaseException:
        fp.close()
        raise
    source = Source(path, header, fp, seekable=True, path=path, identity=(st.st_dev, st.st_ino))
    _keep_open(source)
    return source


#: Seekable Sources whose file is open, least recently read first: at most
#: _open_budget() of them, so a thousand large inputs do not each hold a descriptor.
_OPEN: OrderedDict[int, Source] = OrderedDict()


def _open_budget() -> int:
    """How many streamed files stay open at once: a quarter of the limit of open files
    (``ulimit -n``; 256 of the usual 1024), at least 4."""
    try:
        import resource  # POSIX

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return 256
    if soft == resource.RLIM_INFINITY:
        return 256
    return max(4, soft // 4)


def _keep_open(source: Source) -> None:
    """Mark ``source``'s file as just used; close the least recently used ones beyond the
    budget (Source._descriptor opens them again when they are next read)."""
    _OPEN.pop(id(source), None)
    _OPEN[id(source)] = source
    budget = _open_budget()
    while len(_OPEN) > budget:
        _, oldest = _OPEN.popitem(last=False)
        oldest.fp.close()


def member_source(archive: Archive, info: Any, name: str) -> Source:
    """An archive member (a ``zipfile.ZipInfo`` of ``archive``, shown as ``name``) as a
    Source read in order; Source.finish closes the member and the archive.

    Raises:
        InputFileError: the member's header is refused or its size does not match it.
    """
    from .formats.npz import ZIP_ERRORS

    try:
        fp, header = archive.open_stream(info, name)
    except BaseException:
        archive.close()
        raise
    return Source(archive.member_where(name), header, fp, seekable=False, errors=ZIP_ERRORS, archive=archive)


def _c_strides(shape: tuple[int, ...], itemsize: int, fortran: bool) -> tuple[int, ...]:
    strides = [0] * len(shape)
    step = itemsize
    dims = range(len(shape)) if fortran else range(len(shape) - 1, -1, -1)
    for d in dims:
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def reduce_slabs(
    symbol: str,
    source: Source,
    reduce_mask: tuple[bool, ...],
    out: np.ndarray[Any, Any],
    threads: int,
    progress: Progress | None = None,
) -> str | None:
    """ReduceMean of a Source into ``out`` (C-contiguous, the kept dims), slab by slab.

    Returns the kind of vector kernel that ran (``"run"`` or ``"mean"``, as
    meancli.kernels.isa takes it), or None, having read nothing, when the
    input cannot be streamed within SLAB_BYTES (one outermost row is
    larger): the caller then reads it whole.

    Raises:
        InputFileError: the data cannot be read.
        SpecViolation / InternalError: as the in-memory kernel.
    """
    from . import kernels

    h = source.header
    itemsize = h.dtype.itemsize
    strides = _c_strides(h.shape, itemsize, h.fortran_order)
    with kernels.ReduceJob(symbol, h.shape, strides, reduce_mask) as job:
        d0, rows, row_bytes, granule = job.info()
        if h.nbytes == 0:  # no data to read: the kernel only needs to see every row go by
            job.step(np.empty(1, dtype=np.uint8), 0, rows, out, threads)
            job.end(out)
            return job.kind(whole=True)
        if d0 < 0:  # one element, no dimension above 1: one row holding it
            row_bytes = h.nbytes
        if d0 < 0 or rows == 0 or row_bytes == 0:
            rows_per_slab = max(rows, 1)
        else:
            rows_per_slab = max(granule, (SLAB_BYTES // row_bytes) // granule * granule)
            if rows_per_slab * row_bytes > 2 * SLAB_BYTES and rows_per_slab < rows:
                return None
        buffer = np.empty(min(rows_per_slab, max(rows, 1)) * row_bytes, dtype=np.uint8)
        swap = not h.dtype.isnative
        for a in range(0, rows, rows_per_slab):
            b = min(a + rows_per_slab, rows)
            view = buffer.data[: (b - a) * row_bytes]
            source.read_into(a * row_bytes, view)
            if swap:
                slab = buffer[: (b - a) * row_bytes].view(h.dtype)
                slab.byteswap(inplace=True)
            job.step(buffer, a, b, out, threads)
            if progress is not None:
                progress((b - a) * row_bytes)
        job.end(out)
        return job.kind(whole=rows_per_slab >= rows)


@dataclass
class _Block:
    prefix: tuple[int, ...]  # indices of dims [0, j)
    start: int  # range along dim j
    stop: int


def _blocks(shape: tuple[int, ...], j: int, step: int) -> Iterator[_Block]:
    for prefix in np.ndindex(*shape[:j]) if j else [()]:
        for a in range(0, shape[j], step):
            yield _Block(tuple(prefix), a, min(a + step, shape[j]))


def mean_blocks(
    shape: tuple[int, ...],
    inputs: list[Source | np.ndarray[Any, Any]],
    dtype: np.dtype[Any],
    progress: Progress | None = None,
) -> Iterator[tuple[tuple[int, ...], int, int, list[np.ndarray[Any, Any]]]]:
    """Cut the Mean output ``shape`` into blocks of about SLAB_BYTES and yield
    ``(prefix, start, stop, block_inputs)`` for each, in C order: the block is
    ``out[prefix + (slice(start, stop),)]`` and every input comes as an array
    broadcastable to its shape ``(stop - start, *shape[j + 1:])``. Blocks
    follow each other in C order, so their results can be written as they come.

    Sources must be C-order; each block of one is a single contiguous read.

    Raises:
        InputFileError: a Source cannot be read.
    """
    rank = len(shape)
    if rank == 0 or prod(shape) == 0:
        yield (), 0, 1, [np.broadcast_to(_whole(x), shape) for x in inputs]
        return
    per_element = dtype.itemsize * (1 + sum(isinstance(x, Source) for x in inputs))
    j = 0
    while j < rank - 1 and prod(shape[j + 1 :]) * per_element > SLAB_BYTES:
        j += 1
    step = max(1, SLAB_BYTES // max(1, prod(shape[j + 1 :]) * per_element))
    buffers: dict[int, np.ndarray[Any, Any]] = {}
    for block in _blocks(shape, j, step):
        views = []
        for k, x in enumerate(inputs):
            if isinstance(x, Source):
                views.append(_source_block(x, shape, j, block, buffers, k, progress))
            else:
                full = np.broadcast_to(x, shape)
                index: tuple[Any, ...] = (*block.prefix, slice(block.start, block.stop))
                views.append(full[index])
        yield block.prefix, block.start, block.stop, views


def _whole(x: Source | np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    if isinstance(x, Source):
        array = x.read_all()
        return array.astype(native_dtype(array.dtype)) if not array.dtype.isnative else array
    return x


def _source_block(
    src: Source,
    shape: tuple[int, ...],
    j: int,
    block: _Block,
    buffers: dict[int, np.ndarray[Any, Any]],
    key: int,
    progress: Progress | None,
) -> np.ndarray[Any, Any]:
    """The part of a C-order Source under ``block``, as an array broadcastable to the block."""
    rank = len(shape)
    own = (1,) * (rank - len(src.shape)) + src.shape
    index = [block.prefix[d] if own[d] > 1 else 0 for d in range(j)]
    a, b = (block.start, block.stop) if own[j] > 1 else (0, 1)
    inner = prod(own[j + 1 :])
    flat_prefix = 0
    for d in range(j):
        flat_prefix = flat_prefix * own[d] + index[d]
    first = (flat_prefix * own[j] + a) * inner
    count = (b - a) * inner
    itemsize = src.dtype.itemsize
    nbytes = count * itemsize
    scratch = buffers.get(key)
    if scratch is None or scratch.size < nbytes:
        scratch = buffers[key] = np.empty(nbytes, dtype=np.uint8)  # reused by later blocks
    view = scratch.data[:nbytes]
    src.read_into(first * itemsize, view)
    if progress is not None:
        progress(nbytes)
    region = scratch[:nbytes].view(src.dtype).reshape((b - a, *own[j + 1 :]))
    if not src.dtype.isnative:
        region = region.byteswap().view(native_dtype(src.dtype))
    return np.broadcast_to(region, (block.stop - block.start, *shape[j + 1 :]))
