"""Opening the tensor files held whole or streamed: ``.npy`` files, ``-`` (stdin),
``.npz`` archives (every array, in stored order, or one member), ONNX tensor
files (``.pb``); each as NamedArrays. meancli.io.registry decides which one a
FILE argument is (by content, as ``np.load`` does: zip -> ``.npz``; ``.npy``
magic -> ``.npy``; else a ``.pb`` name -> ONNX TensorProto, so a renamed file is
still read for what it is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..dtypes import BFLOAT16_DESCRS
from ..errors import InputFileError
from .messages import STDIN_NAME, reason
from .npy_format import NpyHeader, read_header
from .npy_read import read_data, read_npy
from .pipes import stdin_buffer
from .thresholds import streams_file, streams_size

if TYPE_CHECKING:
    import numpy as np

    from .chunked import ChunkedArray
    from .source import Source


class NamedArray(NamedTuple):  # not a dataclass: no methods compiled at import time
    """One input tensor and the name the report shows for it.

    Attributes:
        name: ``path``, ``path:member`` (as numpy names members), or ``<stdin>``'s ``-``.
        data: the array (file byte order and layout), or an io.source.Source when the
            caller asked for streaming and the input is large (or is stdin), or a
            chunked.ChunkedArray (a zarr array, a shard dataset: meancli.cli.run).
        header: the ``.npy`` header it was read from; None for a ``.pb`` tensor.
    """

    name: str
    data: np.ndarray[Any, Any] | Source | ChunkedArray
    header: NpyHeader | None

    @property
    def from_void_descr(self) -> bool:
        """True when bfloat16 data came from a 2-byte void descr (worth a note)."""
        return self.header is not None and self.header.descr in BFLOAT16_DESCRS


def read_npy_input(path: str, *, stream: bool = False, mmap: bool = True) -> list[NamedArray]:
    """A ``.npy`` file: memory-mapped (``mmap``) or read, or a Source when ``stream``
    and the file has at least io.thresholds.STREAM_MIN_BYTES.

    Raises:
        InputFileError: an unreadable or malformed file, in one line naming it.
    """
    if stream and streams_file(path):
        from .source import file_source  # the streaming machinery loads only for a large file

        source = file_source(path)
        if source is not None:
            return [NamedArray(path, source, source.header)]
    array, header = read_npy(path, mmap=mmap)
    return [NamedArray(path, array, header)]


def read_pb_input(path: str) -> list[NamedArray]:
    """An ONNX TensorProto file (``.pb``).

    Raises:
        InputFileError: unreadable, not a TensorProto, or the onnx package is missing.
    """
    from .onnx_tensor import read_tensor_file  # imports onnx: only for a .pb file

    return [NamedArray(path, read_tensor_file(path), None)]


def read_stdin_input(*, stream: bool = False) -> NamedArray:
    """stdin, streamed when asked and large; read whole (by the one reader) otherwise.

    Raises:
        InputFileError: stdin is a terminal or missing, or its data is malformed.
    """
    buffer = stdin_buffer()
    header = read_header(buffer, STDIN_NAME)
    if stream and streams_size(header.nbytes):
        from .source import Source

        return NamedArray("-", Source(STDIN_NAME, header, buffer, seekable=False), header)
    try:
        array = read_data(buffer, header, STDIN_NAME, known_size=False)
    except OSError as exc:
        raise InputFileError(f"{STDIN_NAME}: read error: {reason(exc)}") from None
    return NamedArray("-", array, header)


def read_npz_input(path: str, member: str | None, *, stream: bool = False) -> list[NamedArray]:
    """Every array of the ``.npz`` archive ``path`` in stored order, or its ``member``
    (numpy's lookup: ``NAME``, then ``NAME.npy``); members of at least
    STREAM_MIN_BYTES (uncompressed) as Sources when ``stream``.

    Raises:
        InputFileError: an unreadable archive or member, an archive with no arrays,
            a missing member (the message lists the members there are).
    """
    from .npz import Archive  # zipfile: only for an archive
    from .source import Source, member_source

    out: list[NamedArray] = []
    try:
        with Archive(path) as archive:
            for info, name in archive.wanted(member):
                if stream and streams_size(info.file_size):
                    # a Source owns an archive of its own, open until Source.finish
                    source = member_source(Archive(path), info, name)
                    out.append(NamedArray(source.name, source, source.header))
                else:
                    array, header = archive.read(info, name)
                    out.append(NamedArray(archive.member_where(name), array, header))
    except BaseException:
        for item in out:  # the members opened as streams before the failure
            if isinstance(item.data, Source):
                item.data.close()
        raise
    return out
