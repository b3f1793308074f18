"""Inputs read on demand: ``.npy`` data that is never held all at once.

A large regular file (at least io.thresholds.STREAM_MIN_BYTES), an ``.npz`` member that
large (uncompressed), a large memory-mapped array handed to the API, or any
``-`` (stdin) input becomes a :class:`Source`: its header is read and checked,
and its data is read on demand, any byte range of a seekable file, in order
from a stream (stdin, a pipe, an archive member, read through ``zipfile``,
whose CRC is checked as its last byte is read). The streamed engine
(meancli.engine.streamed) reads Sources in slabs.
"""

from __future__ import annotations

import mmap
import os
import stat
import sys
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO

import numpy as np

from ..errors import InputFileError
from .messages import STDIN_NAME, reason
from .npy_format import NpyHeader, read_header
from .npy_read import check_size, read_npy
from .pipes import read_bytes, read_into, stdin_buffer
from .thresholds import streams_size

if TYPE_CHECKING:
    from .npz import Archive


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

    def load(self) -> np.ndarray[Any, Any]:
        """The whole array, for an engine that cannot read this one in pieces: a seekable
        file memory-mapped (io.npy_read.read_npy), a stream read whole (read_all); a
        remote Source (io.remote.RemoteSource) read whole with range reads.

        Raises:
            InputFileError: as read_npy and read_all.
        """
        return read_npy(self.name)[0] if self.seekable else self.read_all()

    def dataset(self) -> Any:
        """This seekable ``.npy`` as a one-shard dataset (io.shards.ShardDataset) that dask
        workers read themselves, in pieces along axis 0."""
        from .shards import ShardDataset

        return ShardDataset(self.name, [self.name])

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


def stdin_source() -> Source:
    """Standard input as a Source (its header read and checked).

    Raises:
        InputFileError: stdin is missing or a terminal, or its header is refused.
    """
    buffer = stdin_buffer()
    return Source(STDIN_NAME, read_header(buffer, STDIN_NAME), buffer, seekable=False)


def file_source(path: str) -> Source | None:
    """A Source for a regular ``.npy`` file of at least io.thresholds.STREAM_MIN_BYTES; None otherwise.

    Raises:
        InputFileError: a malformed header, truncated data or trailing bytes.
    """
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None  # the in-memory reader reports it
    if not stat.S_ISREG(st.st_mode) or not streams_size(st.st_size):
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
    from .npz import ZIP_ERRORS

    try:
        fp, header = archive.open_stream(info, name)
    except BaseException:
        archive.close()
        raise
    return Source(archive.member_where(name), header, fp, seekable=False, errors=ZIP_ERRORS, archive=archive)


def memmap_source(x: Any) -> Source | None:
    """A Source over the file behind a memory-mapped array (``np.memmap``, what
    ``np.load(path, mmap_mode="r")`` returns) that the kernels could not read in
    place: at least io.thresholds.STREAM_MIN_BYTES, C or Fortran contiguous over the whole map,
    but in the other byte order, so reading it in memory would copy it whole.
    None for anything else (the kernels read it as it is, or it is copied).

    Raises nothing: a file that cannot be opened again gives None.
    """
    if not isinstance(x, np.memmap) or not streams_size(x.nbytes) or x.dtype.isnative:
        return None
    filename, offset = getattr(x, "filename", None), getattr(x, "offset", None)
    # only the map itself, not a view of it (a view keeps the map's offset, not its own)
    whole = isinstance(x.base, mmap.mmap) and (x.flags.c_contiguous or x.flags.f_contiguous)
    if filename is None or offset is None or not whole:
        return None
    fortran = x.flags.f_contiguous and not x.flags.c_contiguous
    try:
        fp = open(filename, "rb")  # noqa: SIM115 -- closed by Source.finish
    except OSError:
        return None
    header = NpyHeader((1, 0), x.dtype.str, x.dtype, fortran, tuple(x.shape), int(offset), int(x.nbytes))
    return Source(str(filename), header, fp, seekable=True)
