"""``.npz`` archives: numpy's member lookup, members read by the one ``.npy`` reader.

An argument ``archive.npz:NAME`` picks one member; the path ends at the first
``:`` where what comes before is an existing file (so member names may hold ``:``
and ``/``, as TensorFlow's ``dense/kernel:0`` does).  A member is looked up as
numpy's ``NpzFile`` does: ``NAME`` as stored, then ``NAME.npy``.  A member asked
for is named in messages by the name it was asked for; the others as numpy lists
them (``archive.npz:a`` for ``a.npy``), or by their stored name where that short
name would find another member (``b.npy`` stored beside ``b``).

Each member is read by :func:`~meancli.io.npy_read.read_npy_stream` from the
file object ``zipfile`` gives (stored or deflated alike, its CRC checked), with the
member's uncompressed size checked against its header before anything is read.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from types import TracebackType
from typing import TYPE_CHECKING, Any, BinaryIO

from ..errors import InputFileError
from .messages import display, reason
from .npy_format import NpyHeader, read_header
from .npy_read import check_size, open_for_reading, read_npy_stream

if TYPE_CHECKING:
    import numpy.typing as npt

#: What ``zipfile`` and ``zlib`` raise for a damaged, encrypted or unsupported archive.
ZIP_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    RuntimeError,  # an encrypted member
    NotImplementedError,  # a compression method zipfile lacks
    zlib.error,
    EOFError,
    OSError,
    ValueError,
    OverflowError,
    struct.error,
)


def shown_name(stored: str) -> str:
    """The name numpy lists a member by: the stored name without ``.npy``."""
    return stored[: -len(".npy")] if stored.endswith(".npy") else stored


class Archive:
    """An open ``.npz`` archive (a context manager closing it).

    Raises (each method):
        InputFileError: one line naming ``path`` or ``path:member``.
    """

    def __init__(self, path: str, fp: BinaryIO | None = None) -> None:
        """Open the archive at ``path``, or read it from ``fp`` (a seekable file object,
        a remote file: io.remote), named ``path``; closed by close()."""
        self.path = path
        self.where = display(path)
        if fp is None:
            fp = open_for_reading(path, self.where)
        try:
            self.zip = zipfile.ZipFile(fp)
        except ZIP_ERRORS as exc:
            fp.close()
            raise InputFileError(f"{self.where}: not a readable .npz archive: {reason(exc)}") from None
        self._fp = fp
        #: the members that can hold arrays (directory entries left out), in stored order
        self.members = [info for info in self.zip.infolist() if not info.filename.endswith("/")]
        self._by_name = {info.filename: info for info in self.members}
        if len(self._by_name) != len(self.members):  # a name stored twice: no name selects the first
            names = [info.filename for info in self.members]
            twice = next(name for i, name in enumerate(names) if name in names[:i])
            self.close()
            raise InputFileError(f"{self.where}: holds two members named {display(twice)}; rename one")

    def __enter__(self) -> Archive:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self.zip.close()
        self._fp.close()

    def member_where(self, name: str) -> str:
        """``archive.npz:name`` as messages and reports show the member ``name``."""
        return f"{self.where}:{display(name)}"

    def listed_name(self, info: zipfile.ZipInfo) -> str:
        """The name a member is listed by: numpy's (without ``.npy``) when that name
        finds this member, else the stored name, so each names the member it shows."""
        short = shown_name(info.filename)
        return short if self._find(short) is info else info.filename

    def _find(self, name: str) -> zipfile.ZipInfo | None:
        return self._by_name.get(name) or self._by_name.get(name + ".npy")

    def lookup(self, name: str) -> zipfile.ZipInfo:
        """The member ``name`` or ``name.npy`` (numpy's rule).

        Raises:
            InputFileError: no such member; the message lists the names there are.
        """
        found = self._find(name)
        if found is None:
            listed = ", ".join(display(self.listed_name(i)) for i in self.members) or "no arrays"
            msg = f"no array named {display(name)!r} (the archive holds: {listed})"
            raise InputFileError(f"{self.where}: {msg}")
        return found

    def wanted(self, name: str | None) -> list[tuple[zipfile.ZipInfo, str]]:
        """The member ``name`` (see :meth:`lookup`), or every member when None, each
        with the name to show it by (``name`` itself, or :meth:`listed_name`).

        Raises:
            InputFileError: a missing member, or an archive with no arrays.
        """
        if name is not None:
            return [(self.lookup(name), name)]
        if not self.members:
            raise InputFileError(f"{self.where}: the .npz archive holds no arrays")
        return [(info, self.listed_name(info)) for info in self.members]

    def _refuse_encrypted(self, info: zipfile.ZipInfo, where: str) -> None:
        if info.flag_bits & 0x1:  # zipfile would ask for a password
            raise InputFileError(f"{where}: the member is encrypted (password-protected); not supported")

    def read(self, info: zipfile.ZipInfo, name: str) -> tuple[npt.NDArray[Any], NpyHeader]:
        """The member's array, in memory (as :func:`read_npy_stream` returns it);
        ``name`` is what messages call it (see :meth:`wanted`)."""
        where = self.member_where(name)
        self._refuse_encrypted(info, where)
        try:
            with self.zip.open(info) as fp:
                return read_npy_stream(fp, where, size=info.file_size)  # type: ignore[arg-type]
        except MemoryError:
            raise InputFileError(f"{where}: the array does not fit in memory") from None
        except ZIP_ERRORS as exc:
            raise InputFileError(f"{where}: cannot read the member: {reason(exc)}") from None

    def open_stream(self, info: zipfile.ZipInfo, name: str) -> tuple[BinaryIO, NpyHeader]:
        """The member as a stream positioned at its first data byte, and its checked header
        (``name``: what messages call it, see :meth:`wanted`).

        The stream checks the member's CRC when its last byte is read; its read errors
        are among :data:`ZIP_ERRORS`.  The caller closes it (before the archive).
        """
        where = self.member_where(name)
        self._refuse_encrypted(info, where)
        try:
            fp: BinaryIO = self.zip.open(info)  # type: ignore[assignment]
        except ZIP_ERRORS as exc:
            raise InputFileError(f"{where}: cannot read the member: {reason(exc)}") from None
        try:
            header = read_header(fp, where)
            check_size(header, info.file_size - header.data_offset, where)
        except ZIP_ERRORS as exc:
            fp.close()
            raise InputFileError(f"{where}: cannot read the member: {reason(exc)}") from None
        except BaseException:
            fp.close()
            raise
        return fp, header
