"""The formats meancli reads and writes: one input registry and one output registry.

Every front end and engine opens a FILE argument through :func:`open_input`
(the command line, the Python API's ``open_lazy``; dask workers reopen the
chunked arrays it gives, which pickle as their path) and writes through
:func:`write_output`, so one array is opened one way however it is named.

INPUTS are tried in order; the first whose ``recognise`` accepts the argument
opens it. A new input format is its module and one InputFormat line here; a new
output format one OutputFormat line.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple compiles each
# string annotation of its fields, in every run that imports this module (about
# 0.2 M instructions a class; docs/speed.md, "Start-up and quick runs").

import errno
import os
import re
import stat
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from ..errors import InputFileError, OutputFileError, UsageError
from .detect import input_format
from .inputs import NamedArray, read_npy_input, read_npz_input, read_pb_input, read_stdin_input
from .messages import reason, shown_input, split_member
from .urls import StorageOptions, is_url, split_url_member

GLOB_CHARS = frozenset("*?[")


class Opening(NamedTuple):
    """How the caller wants inputs opened.

    Attributes:
        stream: give a meancli.io.source.Source for stdin, ``.npy`` files and ``.npz``
            members of at least io.thresholds.STREAM_MIN_BYTES, instead of reading them.
        lazy: the run goes to dask: a plain ``.npy`` file becomes a one-shard
            dataset, so that the workers read it themselves.
        mmap: memory-map regular ``.npy`` files read in memory.
        storage_options: for URL arguments (io.urls), the filesystem's options
            (``endpoint_url``, ``anon``, ...); None: the library's defaults.
    """

    stream: bool = False
    lazy: bool = False
    mmap: bool = True
    storage_options: StorageOptions | None = None


class InputFormat(NamedTuple):
    """An input registry entry: its name, whether it takes an argument, and how it opens one."""

    name: str
    recognise: Callable[[str], bool]
    open: Callable[[str, Opening], list[NamedArray]]


def _is_stdin(arg: str) -> bool:
    return arg == "-"


def _open_url(arg: str, how: Opening) -> list[NamedArray]:
    from .remote import open_url  # fsspec and the protocol's package load only for a URL

    return open_url(arg, how.storage_options, stream=how.stream, lazy=how.lazy)


def _is_zarr(arg: str) -> bool:
    if os.path.isfile(arg) and input_format(arg) != "npz":  # a plain file is no store (only a zip may be)
        return False
    from .chunked import split_store  # zarr's helpers load only for what may be a store

    return split_store(arg) is not None


def _open_zarr(arg: str, how: Opening) -> list[NamedArray]:
    from .chunked import split_store
    from .zarr_input import open_zarr

    store = split_store(arg)
    assert store is not None
    return [NamedArray(a.name, a, None) for a in open_zarr(*store)]


def _is_dataset(arg: str) -> bool:
    """A directory (of ``.npy`` shards), ``@LIST``, or a glob pattern that names no file
    (nor a member of an existing file: ``data.npz:?`` is the member named ``?``)."""
    if os.path.isdir(arg):
        return True
    if arg.startswith("@") and not os.path.exists(arg):
        return True
    return bool(GLOB_CHARS & set(arg)) and not os.path.exists(arg) and split_member(arg)[1] is None


def _open_dataset(arg: str, how: Opening) -> list[NamedArray]:
    from .chunked import require
    from .shards import ShardDataset, read_list_file

    require("dask.array")  # a dataset runs on dask alone: said before any shard is read
    if os.path.isdir(arg):
        names = sorted(n for n in os.listdir(arg) if n.endswith(".npy"))
        if not names:
            raise InputFileError(f"{arg}: a directory with no .npy shards and no zarr metadata")
        dataset = ShardDataset(arg, [os.path.join(arg, n) for n in names])
    elif arg.startswith("@"):
        dataset = ShardDataset(arg, read_list_file(arg[1:]))
    else:
        import glob  # (with fnmatch: only for a pattern, not in every run's start-up)

        paths = sorted(glob.glob(arg))
        if not paths:
            raise InputFileError(f"{arg}: the pattern matches no files")
        dataset = ShardDataset(arg, paths)
    return [NamedArray(dataset.name, dataset, getattr(dataset, "header", None))]


def _is_npz(arg: str) -> bool:
    path, _ = split_member(arg)
    return input_format(path) == "npz"


def _open_npz(arg: str, how: Opening) -> list[NamedArray]:
    path, member = split_member(arg)
    return read_npz_input(path, member, stream=how.stream)


def _is_pb(arg: str) -> bool:
    path, member = split_member(arg)
    return member is None and input_format(path) == "pb"


def _open_pb(arg: str, how: Opening) -> list[NamedArray]:
    return read_pb_input(arg)


def _open_npy(arg: str, how: Opening) -> list[NamedArray]:
    path, member = split_member(arg)
    if member is not None:
        raise InputFileError(f"{path}: not an .npz archive, so it has no member {member!r} ({arg})")
    if how.lazy and os.path.isfile(path):  # the workers read it themselves, in pieces along axis 0
        from .shards import ShardDataset

        dataset = ShardDataset(path, [path])
        return [NamedArray(path, dataset, getattr(dataset, "header", None))]
    return read_npy_input(path, stream=how.stream, mmap=how.mmap)


def _open_stdin(arg: str, how: Opening) -> list[NamedArray]:
    return [read_stdin_input(stream=how.stream)]


INPUTS: tuple[InputFormat, ...] = (
    InputFormat("stdin", _is_stdin, _open_stdin),
    InputFormat("url", is_url, _open_url),  # s3://, gs://, http(s)://: what it names is asked of the store
    InputFormat("zarr", _is_zarr, _open_zarr),  # before npz: a zipped store is a zip
    InputFormat("shards", _is_dataset, _open_dataset),
    InputFormat("npz", _is_npz, _open_npz),
    InputFormat("pb", _is_pb, _open_pb),
    InputFormat("npy", lambda arg: True, _open_npy),  # by content; its reader says what is wrong
)


def open_input(arg: str, how: Opening | None = None) -> list[NamedArray]:
    """The tensors one FILE argument names, opened by the first format that recognises it.

    Args:
        arg: ``-`` (stdin), a ``.npy`` path, an ``.npz`` path (every member, in stored
            order) or ``path.npz:member``, a ``.pb`` TensorProto file, a zarr store
            (``STORE`` or ``STORE:path/in/group``; a bare group gives every array
            directly in it), a dataset of ``.npy`` shards (a directory, a glob, ``@LIST``),
            or a URL naming any of those but ``.pb`` (io.remote: ``s3://bucket/era5.zarr:t2m``).
        how: streaming, lazy (dask) or in-memory opening, and storage options for a URL
            (Opening; None: in memory, the filesystem library's defaults).

    Returns:
        NamedArrays whose ``data`` is an array (file byte order and layout), a
        Source (``how.stream``), or a ChunkedArray (zarr arrays, shard datasets).

    Raises:
        InputFileError: anything unreadable or malformed, in one line naming the
            file (the archive member, the store path, the shard).
    """
    fmt = next(f for f in INPUTS if f.recognise(arg))
    return fmt.open(arg, how or Opening())


def input_format_name(arg: str) -> str:
    """The name of the input format that opens ``arg`` (``npy``, ``npz``, ``zarr``, ...)."""
    return next(f.name for f in INPUTS if f.recognise(arg))


def input_location(arg: str) -> tuple[str, str | None]:
    """The path a FILE argument lives at, and the member or array it names in it:
    ``data.npz:a`` -> (``data.npz``, ``a``), ``store.zarr:g/x`` -> (``store.zarr``,
    ``g/x``), ``@list.txt`` -> (``list.txt``, None), ``'dir/part-*.npy'`` -> (``dir``,
    None), a path -> (the path, None). Decided without reading any data (output
    templates are filled from it before the first input is read).
    """
    if is_url(arg):  # decided without asking the store: URL:MEMBER after the host
        ways = split_url_member(arg)
        url, inside = ways[1] if len(ways) > 1 else ways[0]
        return url.rstrip("/") or url, inside or None
    path, member = split_member(arg)
    if member is not None or os.path.exists(arg):  # (a file as given: no store, list or glob to look for)
        return (path.rstrip("/") or path), member
    from .chunked import split_store

    store = split_store(arg) if ":" in arg else None
    if store is not None:
        path, member = store[0], store[1] or None
    elif arg.startswith("@"):
        path = arg[1:]
    elif GLOB_CHARS & set(arg):
        parts = arg.split("/")
        fixed = next(i for i, part in enumerate(parts) if GLOB_CHARS & set(part))
        path = "/".join(parts[:fixed]) or ("/" if arg.startswith("/") else ".")
    return (path.rstrip("/") or path), member


def read_tensor(arg: str, use: str) -> tuple[str, np.ndarray]:
    """The one tensor the file ``arg`` holds, whole in memory (file byte order and
    layout), and how messages name it: for ``--axes-from`` (whose values
    ops.validate.axes_input checks) and check-model's ``--input``.

    Args:
        arg: a FILE argument naming one tensor (``-``: a ``.npy`` on stdin, which
            the caller checks is not also a data FILE).
        use: the option that reads it, for messages (``--axes-from``).

    Raises:
        InputFileError: the file is unreadable, holds several tensors, or is a zarr
            array or shard dataset (chunked, never read whole: not_whole).
    """
    if input_format_name(arg) in ("zarr", "shards"):  # said before anything is read
        raise not_whole(arg, f"{use} takes one whole array")
    named = open_input(arg)
    if len(named) != 1:
        listed = ", ".join(n.name for n in named)
        raise InputFileError(f"{arg}: holds {len(named)} arrays ({listed}); name one as {arg}:NAME")
    (item,) = named
    if not isinstance(item.data, np.ndarray):  # a URL naming a zarr array or shard dataset
        raise not_whole(arg, f"{use} takes one whole array")
    return shown_input(item.name), item.data


def not_whole(arg: str, why: str) -> InputFileError:
    """The error for a zarr array or shard dataset given where a whole array is read."""
    return InputFileError(
        f"{arg}: {why}; a zarr array or shard dataset is not one (convert it to .npy first)"
    )


# --------------------------------------------------------------------------- outputs


class OutputFormat(NamedTuple):
    """An output registry entry: its name, whether it takes a path, and its writer
    ``write(path, array, storage_options)`` (None: written by an engine as it runs, a
    zarr store from the dask workers)."""

    name: str
    recognise: Callable[[str], bool]
    write: Callable[[str, Any, StorageOptions | None], None] | None


def _write_npy(path: str, array: Any, options: StorageOptions | None) -> None:
    if is_url(path):
        from .remote_output import put_npy  # fsspec loads only for a URL

        put_npy(path, array, options)
        return
    from .npy_write import write_npy

    write_npy(path, array)


def _write_pb(path: str, array: Any, options: StorageOptions | None) -> None:
    from .onnx_tensor import write_tensor_file

    write_tensor_file(path, array)


def _suffix(path: str) -> str:
    return path.rstrip("/").lower()


OUTPUTS: tuple[OutputFormat, ...] = (
    OutputFormat("npy", lambda path: path == "-", _write_npy),  # stdout
    OutputFormat("zarr", lambda path: _suffix(path).endswith(".zarr"), None),
    OutputFormat("pb", lambda path: _suffix(path).endswith(".pb"), _write_pb),
    OutputFormat("npy", lambda path: True, _write_npy),
)


def output_format(path: str) -> str:
    """The format an output path asks for: ``zarr`` for ``*.zarr``, ``pb`` for ``*.pb``,
    else ``npy`` (``-``, stdout, included)."""
    return next(f.name for f in OUTPUTS if f.recognise(path))


def check_output_format(output: str, path: str) -> None:
    """Before any file is read: a usage error for an output meancli does not write
    (``.npz``; a zip archive, a zipped zarr store included, rather than a ``.npy`` under its name).
    ``output`` is the ``-o`` value as given (a template), ``path`` one path it gives.

    Raises:
        UsageError: one line naming what to write instead.
    """
    name = _suffix(path)
    # the member syntax of inputs (STORE.zarr:PATH, data.npz:NAME) names no output: as a
    # file name it would write a .npy called "grp.zarr:t2m" beside the store
    member = re.search(r"\.(zarr|npz|zip)/?:", name)
    if member is not None and member.group(1) == "zarr":
        raise UsageError(
            f"-o {output}: an array inside a zarr group (STORE.zarr:PATH) is not written; "
            "write a store of its own (-o NAME.zarr)"
        )
    if member is not None:
        name = name[: member.start() + 1 + len(member.group(1))]
    if is_url(path) and output_format(path) == "pb":
        raise UsageError(f"-o {output}: ONNX tensor outputs are written to files only; write .npy or .zarr")
    if path != "-" and name.endswith(".npz"):
        raise UsageError(f"-o {output}: .npz outputs are not supported; write .npy or .pb")
    if name.endswith(".zarr.zip"):
        given = output.rstrip("/")
        store = given[: -len(".zip")] if given.lower().endswith(".zip") else path.rstrip("/")[: -len(".zip")]
        raise UsageError(
            f"-o {output}: zipped zarr stores are not written; write a directory store "
            f"(-o {store}) and zip its contents if needed"
        )
    if name.endswith(".zip"):
        raise UsageError(f"-o {output}: zip outputs are not supported; write .npy, .pb or .zarr")


def check_output_target(path: str | None, storage_options: StorageOptions | None = None) -> None:
    """Before its input is read: an output error (exit status 1, as for an output that
    cannot be written) for a zarr output ``path`` that would replace something other
    than a zarr array or an empty directory (io.zarr_output), for a file output that
    is a directory, and for an output whose directory does not exist (found before a
    long run, not after it; zarr would make it).

    A URL (io.remote_output.check_url_target): its protocol's package is installed and
    can write (not http(s)); a zarr store there does not exist yet (an object store
    has no rename: -o never replaces a remote store).

    Raises:
        OutputFileError: ``cannot write PATH: REASON``.
    """
    if path is None or path == "-":
        return
    if is_url(path):
        from .remote_output import check_url_target

        check_url_target(path, zarr=output_format(path) == "zarr", options=storage_options)
        return
    if output_format(path) == "zarr":
        from .zarr_output import check_zarr_target

        check_zarr_target(path)
    elif os.path.isdir(path):
        raise OutputFileError(f"cannot write {path}: is a directory")
    try:
        parent = os.stat(os.path.dirname(path) or ".")
    except OSError as exc:
        raise OutputFileError(f"cannot write {path}: {reason(exc)}") from None
    if not stat.S_ISDIR(parent.st_mode):
        raise OutputFileError(f"cannot write {path}: {os.strerror(errno.ENOTDIR)}")


def write_output(path: str, result: Any, storage_options: StorageOptions | None = None) -> None:
    """Write ``result`` to ``path`` in the format its name asks for, atomically:
    ``.pb`` an ONNX TensorProto, anything else (``-`` = stdout included) ``.npy``;
    a URL (``s3://bucket/out.npy``) in one request of the finished bytes, with the
    filesystem's ``storage_options`` (io.remote_output.put_npy).

    Raises:
        OutputFileError: the file cannot be written (or the onnx package is missing for ``.pb``).
        UsageError: ``path`` names a format meancli does not write (check_output_format),
            or one an engine writes as it runs (a zarr store).
    """
    check_output_format(path, path)
    fmt = next(f for f in OUTPUTS if f.recognise(path))
    if fmt.write is None:
        raise UsageError(f"-o {path}: a {fmt.name} output is written by the dask engine as it runs")
    fmt.write(path, result, storage_options)


def writes_as_produced(path: str) -> bool:
    """Whether an engine may write ``path`` block by block as the result is produced
    (a ``.npy`` file or stdout); a URL is sent whole once finished (write_output)."""
    return output_format(path) == "npy" and not is_url(path)
