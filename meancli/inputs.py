"""What a FILE argument names: a ``.npy`` file, ``-`` (stdin), an ``.npz`` archive
(every array, in stored order), one member of it (``data.npz:name``), or an ONNX
tensor file (``.pb``).

The format is judged by content, as ``np.load`` does (zip -> ``.npz``; ``.npy``
magic -> ``.npy``; else a ``.pb`` name -> ONNX TensorProto), so a renamed file is
still read for what it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from .errors import InputFileError
from .formats.npy_format import NpyHeader

if TYPE_CHECKING:
    import numpy as np

    from .chunked import ChunkedArray
    from .streaming import Source


class NamedArray(NamedTuple):  # not a dataclass: no methods compiled at import time
    """One input tensor and the name the report shows for it.

    Attributes:
        name: ``path``, ``path:member`` (as numpy names members), or ``<stdin>``'s ``-``.
        data: the array (file byte order and layout), or a streaming.Source when the
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
        from .formats.dtypes import BFLOAT16_DESCRS

        return self.header is not None and self.header.descr in BFLOAT16_DESCRS


def read_inputs(arg: str, *, mmap: bool = True, stream: bool = False) -> list[NamedArray]:
    """The tensors one FILE argument names.

    Args:
        arg: ``-``, a ``.npy`` path, an ``.npz`` path (all members, in stored order),
            ``path.npz:member`` (``member`` or ``member.npy``; the path ends at the first
            ``:`` where it names an existing file), or a ``.pb`` TensorProto file.
        mmap: memory-map regular ``.npy`` files.
        stream: give a streaming.Source instead of an array for stdin, ``.npy`` files
            and archive members of at least engine.where.STREAM_MIN_BYTES.

    Returns:
        One NamedArray for ``.npy``/``-``/a member/``.pb``; one per member for an archive.

    Raises:
        InputFileError: anything unreadable or malformed (one line naming the file or
            ``archive.npz:member``), an archive with no arrays, a missing member (the
            message lists the members there are), a member given for a file that is not
            an archive, or a ``.pb`` file without the onnx package installed.
    """
    from .engine.where import streams_file
    from .formats.detect import input_format, split_member

    if arg == "-":
        return [_stdin(stream)]
    path, member = split_member(arg)
    kind = input_format(path)
    if kind == "npz":
        return _read_npz(path, member, stream=stream)
    if member is not None:
        raise InputFileError(f"{path}: not an .npz archive, so it has no member {member!r} ({arg})")
    if kind == "pb":
        from .formats.onnx_tensor import read_tensor_file

        return [NamedArray(path, read_tensor_file(path), None)]
    if stream and streams_file(path):  # meancli.streaming loads only for a large file
        from .streaming import file_source

        source = file_source(path)
        if source is not None:
            return [NamedArray(path, source, source.header)]
    from .formats.npy_read import read_npy

    array, header = read_npy(path, mmap=mmap)
    return [NamedArray(path, array, header)]


def _stdin(stream: bool) -> NamedArray:
    """stdin, streamed when asked and large; read whole (by the one reader) otherwise."""
    from .engine import where
    from .formats.messages import STDIN_NAME, reason
    from .formats.npy_format import read_header
    from .formats.npy_read import read_data
    from .formats.pipes import stdin_buffer

    buffer = stdin_buffer()
    header = read_header(buffer, STDIN_NAME)
    if stream and header.nbytes >= where.STREAM_MIN_BYTES:
        from .streaming import Source

        return NamedArray("-", Source(STDIN_NAME, header, buffer, seekable=False), header)
    try:
        array = read_data(buffer, header, STDIN_NAME, known_size=False)
    except OSError as exc:
        raise InputFileError(f"{STDIN_NAME}: read error: {reason(exc)}") from None
    return NamedArray("-", array, header)


def _read_npz(path: str, member: str | None, *, stream: bool) -> list[NamedArray]:
    from .engine import where
    from .formats.npz import Archive

    out: list[NamedArray] = []
    try:
        with Archive(path) as archive:
            for info, name in archive.wanted(member):
                if stream and info.file_size >= where.STREAM_MIN_BYTES:
                    from .streaming import member_source

                    # a Source owns an archive of its own, open until Source.finish
                    source = member_source(Archive(path), info, name)
                    out.append(NamedArray(source.name, source, source.header))
                else:
                    array, header = archive.read(info, name)
                    out.append(NamedArray(archive.member_where(name), array, header))
    except BaseException:
        from .streaming import Source

        for item in out:  # the members opened as streams before the failure
            if isinstance(item.data, Source):
                item.data.close()
        raise
    return out


def read_axes(arg: str, allowed: tuple[str, ...], label: str) -> list[int]:
    """The axes held by the tensor file ``arg`` (any input format): a 1-D integer tensor,
    as ReduceMean-18's ``axes`` input is.

    Args:
        arg: a FILE argument naming one tensor (``-``: a ``.npy`` on stdin, which
            the caller checks is not also a data FILE).
        allowed: the spec's dtype names the operator version takes for axes (int64 for ONNX).
        label: the operator version as messages name it.

    Returns:
        The axes, in the file's order (an empty list for an empty tensor: explicitly empty).

    Raises:
        InputFileError: the file is unreadable, holds several tensors, is not 1-D, or its
            dtype is not one of ``allowed``.
    """
    import numpy as np

    from .api import spec_dtype_name
    from .formats.messages import shown_input

    named = read_inputs(arg)
    if len(named) != 1:
        listed = ", ".join(n.name for n in named)
        raise InputFileError(f"{arg}: holds {len(named)} arrays ({listed}); name one as {arg}:NAME")
    (item,) = named
    shown = shown_input(item.name)
    array = np.asarray(item.data)
    dtype = spec_dtype_name(array.dtype)
    if dtype not in allowed:
        raise InputFileError(f"{shown}: axes must be {' or '.join(allowed)} for {label}, found {dtype}")
    if array.ndim != 1:
        raise InputFileError(f"{shown}: axes must be a 1-D tensor, found shape {array.shape}")
    return [int(a) for a in array.tolist()]
