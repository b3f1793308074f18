"""The Python API: ``meancli.mean``, ``meancli.reduce_mean`` and ``meancli.open_lazy``.

Each resolves the operator version from ``opset`` (meancli.ops.opset),
validates the call with that version's generated validator
(meancli.ops.validate), and hands it to the engine planner
(meancli.engine.plan), which the command line uses too: a numpy array runs in
memory, a large memory-mapped array in the other byte order is streamed from
its file, and a dask array gives a lazy dask array of the same bits.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .dtypes import is_float, spec_name
from .engine import plan
from .engine.compare import Comparison, Tally
from .engine.memory import prepare_mean
from .errors import InputFileError, SpecViolation, UsageError
from .io.messages import split_member
from .io.registry import Opening, input_format_name, open_input
from .io.source import memmap_source
from .io.urls import is_url
from .kernels import threads_of
from .kernels.arrays import kernel_input, refuse_masked
from .ops import opset as opsets
from .ops.validate import validate_reduce


def _input(x: Any) -> Any:
    """``x`` as an engine takes it: a dask array as it is (masks refused), a large
    memory-mapped array the kernels cannot read in place as a Source, anything
    else as a kernel_input() array.

    Raises:
        UsageError: a masked array, or a copy that does not fit in memory.
    """
    if plan.is_chunked(x):
        refuse_masked(x)
        return x
    source = memmap_source(x)
    return source if source is not None else kernel_input(x)


def _shape(x: Any, label: str) -> tuple[int, ...]:
    """``x``'s shape, refusing a dask array whose chunk sizes are unknown (NaN dims).

    Raises:
        SpecViolation: a dim of unknown size.
    """
    if any(n != n for n in x.shape):  # NaN: a dim whose chunk sizes are unknown
        raise SpecViolation(
            f"{label}: a dask array of unknown shape {x.shape}; call .compute_chunk_sizes() first"
        )
    return tuple(int(n) for n in x.shape)


def _job(items: Sequence[Any], threads: int | None, out: Any, skipna: Any = False) -> plan.Job:
    """The Job of an API call; ``out=`` cannot receive a lazy result.

    Raises:
        UsageError: ``threads`` out of range; ``out`` given with a dask input;
            ``skipna`` not a bool; a path (str, bytes, os.PathLike) given as an array.
    """
    for x in items:
        if isinstance(x, (str, bytes, os.PathLike)):  # numpy would make a string array of it
            raise UsageError(
                f"got the path {os.fsdecode(x)!r}: the Python API takes arrays; load the file with "
                "np.load, or open it lazily with meancli.open_lazy"
            )
    n_threads = threads_of(threads)
    if not isinstance(skipna, (bool, np.bool_)):
        raise UsageError(f"skipna must be True or False, got {skipna!r}")
    if out is not None and any(plan.is_chunked(x) for x in items):
        raise UsageError("out= cannot receive a lazy dask result; call .compute() or .store()")
    return plan.Job(threads=n_threads, out=out, lazy=True, skipna=bool(skipna))


# Calls that repeat (a loop over small arrays of one shape) skip the work that
# depends only on the call's form: resolving the version, validating, planning,
# converting the kernel's arguments. The key holds everything that work reads;
# only plain aligned numpy arrays in native byte order qualify, whose kernel_input()
# is the array itself, with arguments of the plain types whose equality is
# their meaning (no bool for an int, no numpy scalar).
_PREPARED: dict[tuple[Any, ...], Any] = {}
_PREPARED_MAX = 256


def _array_key(x: Any) -> tuple[Any, ...] | None:
    """What the prepared work reads of an input: None unless it is its own kernel_input()."""
    if type(x) is not np.ndarray or not x.size:
        return None
    flags = x.flags
    if not (flags.aligned and (flags.c_contiguous or flags.f_contiguous) and x.dtype.isnative):
        return None
    return (x.dtype, x.shape, x.strides)


def _repeat_key(
    arrays: Sequence[Any],
    axes: Any,
    keepdims: Any,
    opset: Any,
    threads: Any,
    skipna: Any,
    attributes: dict[str, Any],
) -> tuple[Any, ...] | None:
    """The key of a call in _PREPARED (Mean: ``axes`` and ``keepdims`` None), or
    None for a call that is planned each time."""
    if attributes or not (skipna is True or skipna is False):
        return None
    if type(axes) is list or type(axes) is tuple:
        if not all(type(a) is int for a in axes):
            return None
        axes = ("seq", *axes)
    elif axes is not None and type(axes) is not int:
        return None
    if not (keepdims is None or type(keepdims) is bool):
        return None
    if not (opset is None or type(opset) is int or type(opset) is str):
        return None
    if not (threads is None or type(threads) is int):
        return None
    inputs = tuple(_array_key(x) for x in arrays)
    if None in inputs:
        return None
    return (inputs, axes, keepdims, opset, threads, skipna)


def _remember(key: tuple[Any, ...], prepared: Any) -> None:
    if len(_PREPARED) >= _PREPARED_MAX:
        _PREPARED.clear()
    _PREPARED[key] = prepared


def reduce_mean(
    data: Any,
    axes: int | Iterable[int] | None = None,
    keepdims: bool | None = None,
    opset: str | int | None = None,
    threads: int | None = None,
    out: np.ndarray | None = None,
    skipna: bool = False,
    **attributes: Any,
) -> Any:
    """ReduceMean of ``data`` as the selected operator version defines it.

    Args:
        data: array-like (or a dask array: the result is then a lazy dask
            array of the same bits, computed chunk by chunk with exact partial
            states wherever dask runs it) of shape (d0, ..., d{r-1}), r in 0..64, of a dtype the
            version allows (onnx: float16, float32, float64, int32, int64,
            uint32, uint64, bfloat16 from ReduceMean-13; openvino: also int8,
            int16, uint8, uint16). Either byte order, C or Fortran order. A
            memory-mapped array (``np.load(path, mmap_mode="r")``) of at least
            256 MiB in the other byte order is streamed from its file in slabs
            rather than copied whole.
        axes: None (omitted: reduce all; identity with noop_with_empty_axes on
            ReduceMean-18), an int, or a sequence of ints in [-r, r-1]; an
            empty sequence reduces all (onnx) or is the identity (openvino,
            and onnx ReduceMean-18 with noop_with_empty_axes).
        keepdims: keep reduced dims with size 1; None takes the version's
            default (onnx: True, openvino keep_dims: False).
        opset: None (newest onnx version), N, "onnx:N" or "openvino:N";
            the highest version with since_version <= N is used.
        threads: kernel threads; None uses the available cores. The result
            is bit-identical for any value.
        out: an array to write the result into instead of a new one (as
            numpy's ``out=``): exactly the result's shape and dtype, C-contiguous,
            writeable, aligned, native byte order, sharing no memory with ``data``.
        skipna: meancli's own extension (not in ONNX or OpenVINO;
            docs/semantics.md): each output is the exact mean of its non-NaN
            values rounded once (the divisor is the count of values kept),
            NaN where none is left; infinities are values. Integer dtypes
            have no NaN: no change. The same bits on every engine.
        attributes: any other attribute of the selected version, by its spec
            name (``meancli spec show ReduceMean-18``), e.g.
            ``noop_with_empty_axes=True`` on ReduceMean-18; naming an attribute
            the version lacks is an error.

    Returns:
        ``out``, or a new array of the input's dtype (native byte order); the reduced
        dims are removed, or kept as 1 with keepdims. Float means are the
        exact mean of the values rounded once to the dtype (round half to
        even); integer means are the exact sum divided by the count,
        truncated toward zero. A float mean over an empty set is NaN.

    Raises:
        OpsetError: no version of ReduceMean matches ``opset``.
        SpecViolation: a dtype the version does not allow, an axis out of
            range or repeated, an attribute the version lacks, axes omitted
            for openvino, an integer mean over an empty set, or an
            attribute the version lacks or a value it does not take.
        UsageError: ``threads`` out of range, ``out`` not a valid destination, or
            ``data`` a lazy object other than a dask array (kernels.arrays.refuse_lazy:
            a dask-backed xarray.DataArray is refused; pass its ``.data``).

    Implements ONNX ReduceMean-1/11/13/18 and OpenVINO ReduceMean-1 (spec/).
    """
    key = _repeat_key([data], axes, keepdims, opset, threads, skipna, attributes)
    prepared = _PREPARED.get(("ReduceMean", key)) if key is not None else None
    if prepared is not None:  # an identical call ran before: validated and planned then
        return prepared(data, out)
    op = opsets.resolve("ReduceMean", opset)
    job = _job([data], threads, out, skipna)
    item = _input(data)
    try:
        call = validate_reduce(op, item.dtype, _shape(item, op.label), axes, keepdims, **attributes)
        if key is not None:
            prepared = plan.prepared_reduce(op, call, item, job)
            if prepared is not None:
                _remember(("ReduceMean", key), prepared)
                return prepared(item, out)
        return plan.reduce(op, call, item, job).result
    finally:
        if plan.is_source(item):
            item.close()


def mean(
    *arrays: Any,
    opset: str | int | None = None,
    threads: int | None = None,
    out: np.ndarray | None = None,
    skipna: bool = False,
    **attributes: Any,
) -> Any:
    """Element-wise Mean of one or more arrays, as the selected ONNX version defines it.

    Args:
        arrays: 1 or more arrays, as separate arguments (a list or tuple is
            refused: ``mean(*arrays)``), numpy arrays or array-likes other than
            lists and tuples (if any is a dask array, the result is a
            lazy dask array of the same bits, computed block by block) of one dtype the version allows
            (float16, float32, float64; bfloat16 from Mean-13). Mean-1 and
            Mean-6 need equal shapes; Mean-8 and Mean-13 broadcast
            multidirectionally (numpy rules), size-0 dims included.
        opset: None (newest, Mean-13), N or "onnx:N"; the highest version with
            since_version <= N is used. Mean is not an OpenVINO operator.
        threads: kernel threads; None uses the available cores. The result
            is bit-identical for any value.
        out: an array to write the result into instead of a new one (as
            numpy's ``out=``): exactly the broadcast shape and the dtype,
            C-contiguous, writeable, aligned, native byte order; it may be
            one of the inputs when that input has the output's shape and
            layout, and must not otherwise share memory with them.
        skipna: meancli's own extension (docs/semantics.md): each element is
            the exact mean of the non-NaN values among the inputs at its
            position (after broadcasting), NaN where all are NaN. Integer
            dtypes: no change.
        attributes: an attribute of the selected version by its spec name
            (none of Mean-1..13 has one a caller sets).

    Returns:
        ``out``, or a new array of the broadcast shape and the inputs' dtype: each
        element is the exact mean of the inputs' elements rounded once to the
        dtype (round half to even).

    Raises:
        OpsetError: no version of Mean matches ``opset``.
        SpecViolation: no inputs, mixed or disallowed dtypes, shapes that
            differ (Mean-1/6) or do not broadcast.
        UsageError: ``threads`` out of range, ``out`` not a valid destination, a
            list or tuple argument, or a lazy input other than a dask array (refuse_lazy).

    Implements ONNX Mean-1/6/8/13 (spec/onnx/Mean-*.yaml).
    """
    for a in arrays:
        if isinstance(a, (list, tuple)):
            raise UsageError(
                f"mean takes its arrays as separate arguments, got a {type(a).__name__}: "
                "call meancli.mean(*arrays) (or pass np.asarray(values) for one array)"
            )
    key = _repeat_key(arrays, None, None, opset, threads, skipna, attributes)
    prepared = _PREPARED.get(("Mean", key)) if key is not None else None
    if prepared is not None:  # an identical call ran before: validated and planned then
        return prepared(arrays, out)
    op = opsets.resolve("Mean", opset)
    job = _job(arrays, threads, out, skipna)
    items = [x if plan.is_chunked(x) else kernel_input(x) for x in arrays]
    for x in items:
        if plan.is_chunked(x):
            refuse_masked(x)
            _shape(x, op.label)
    shape = prepare_mean(op, items, **attributes)
    if key is not None:
        prepared = plan.prepared_mean(op, shape, items, job)
        if prepared is not None:
            _remember(("Mean", key), prepared)
            return prepared(items, out)
    return plan.mean(op, shape, items, job).result


def compare(expected: Any, got: Any, max_ulp: int = 0, threads: int | None = None) -> Comparison:
    """Compare another runtime's output ``got`` with meancli's correctly rounded result
    ``expected``, element by element, as ``--compare`` does (docs/cli.md, "Comparing
    another result").

    Args:
        expected: the correctly rounded result (meancli.mean / meancli.reduce_mean's).
        got: the array to judge: the same shape and dtype (bfloat16, float16, float32,
            float64, or an integer type), any layout and byte order.
        max_ulp: the largest distance accepted (``--max-ulp``), >= 0.
        threads: the comparison's threads; None uses the available cores.

    Returns:
        A meancli.engine.compare.Comparison: ``max_ulp``, ``mean_ulp``, ``inexact``,
        ``total``, ``nan_mismatch``, ``max_abs``, ``max_rel``, ``worst`` (index, exact
        value, compared value, distance), ``histogram``; ``within`` is True when every
        element is within ``max_ulp`` and no NaN is where a number is expected (or the
        reverse). Floats are compared in units in the last place (the representable
        values between the two); integers by their absolute difference.

    Raises:
        UsageError: the shapes or dtypes differ, a dtype that is not compared, a
            negative ``max_ulp``, bad ``threads``, a list or tuple, a masked array.
    """
    if isinstance(max_ulp, bool) or not isinstance(max_ulp, (int, np.integer)) or max_ulp < 0:
        raise UsageError(f"max_ulp must be an integer >= 0, got {max_ulp!r}")
    arrays = []
    for name, x in (("expected", expected), ("got", got)):
        if isinstance(x, (list, tuple)):
            raise UsageError(f"{name} must be an array, got a {type(x).__name__}: pass np.asarray(...)")
        refuse_masked(x)
        arrays.append(np.asarray(x))
    a, b = arrays
    try:
        is_float(spec_name(a.dtype))
    except KeyError:
        raise UsageError(f"expected: {spec_name(a.dtype)} values are not compared") from None
    try:
        tally = Tally(a.shape, a.dtype, b, "got", int(max_ulp), threads_of(threads))
    except InputFileError as e:  # the command line's wording names a file; here it is an argument
        raise UsageError(str(e)) from None
    return tally.finish(a)


def open_lazy(path: str | os.PathLike[str], storage_options: dict[str, Any] | None = None) -> Any:
    """A FILE as the command line reads it, as a lazy dask array on its own chunk grid.

    Args:
        path: a zarr store (``STORE.zarr``, ``STORE.zarr:path/in/group``, a zipped
            store), a dataset of ``.npy`` shards (a directory, a glob, ``@LIST``),
            or a ``.npy`` file (read in pieces of about 64 MiB along axis 0); or a
            URL naming one of them (``s3://bucket/era5.zarr:t2m``, ``gs://...``,
            ``https://...``, any fsspec protocol installed), whose chunks are read by
            whichever process computes them (a dask worker opens the store itself).
        storage_options: for a URL, the filesystem's options (``{"endpoint_url":
            "http://127.0.0.1:9000"}``, ``{"anon": True}``), as the command line's
            ``--storage-option``; None: the filesystem library's defaults (its
            credentials from where it looks: AWS_* variables, config files).

    Returns:
        A dask array (dtype as stored, native byte order; bfloat16 as
        ml_dtypes.bfloat16): pass it to meancli.reduce_mean / meancli.mean for a
        lazy result computed chunk by chunk, in this process or on a cluster.

    Raises:
        InputFileError: the path does not exist or cannot be opened, names several
            arrays (a zarr group: name one as ``STORE:PATH``), names what is not
            opened lazily (an ``.npz`` archive or member, a ``.pb`` tensor file), or
            dask/zarr are not installed; for a URL also: the protocol's package is
            not installed (naming the extra), no such bucket or object, access
            denied, or the server did not answer.
        UsageError: ``path`` is not a path, or is stdin (``-``).
    """
    try:
        path = os.fspath(path)
    except TypeError:
        raise UsageError(f"open_lazy takes a path (str or os.PathLike), got {type(path).__name__}") from None
    if not isinstance(path, str):
        path = os.fsdecode(path)
    if path in ("", "-"):
        raise UsageError(
            f"open_lazy({path!r}): stdin and the empty path are no lazy input; read them with numpy"
        )
    if not is_url(path):
        _refuse_not_lazy(path)
    found = open_input(path, Opening(lazy=True, storage_options=storage_options))
    if any(not plan.is_chunked(a.data) for a in found):  # an .npz (member) at a URL
        raise InputFileError(
            f"{path}: an .npz archive or member is not opened lazily (open_lazy opens zarr stores, "
            ".npy shard datasets and .npy files)"
        )
    if len(found) != 1:
        listed = ", ".join(a.name for a in found)
        raise InputFileError(f"{path}: holds {len(found)} arrays ({listed}); name one as {path}:PATH")
    return plan.lazy_array(found[0].data)


def _refuse_not_lazy(arg: str) -> None:
    """What open_lazy does not open, said as such before anything is read: an ``.npz``
    archive or member, an ONNX tensor file (``.pb``), stdin.

    Raises:
        InputFileError: ``arg`` names one of them.
    """
    kind = input_format_name(arg)
    if kind == "npz":
        path, member = split_member(arg)
        what = "an .npz member" if member is not None else "an .npz archive"
        key = f"[{member!r}]" if member is not None else "[NAME]"
        raise InputFileError(
            f"{arg}: {what} is not opened lazily (open_lazy opens zarr stores, .npy shard datasets "
            f"and .npy files); load it: meancli.reduce_mean(np.load({path!r}){key})"
        )
    if kind == "pb":
        raise InputFileError(
            f"{arg}: an ONNX tensor file is not opened lazily (open_lazy opens zarr stores, .npy "
            "shard datasets and .npy files); load it with onnx.numpy_helper.to_array"
        )
