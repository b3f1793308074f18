"""The Python API: ``meancli.mean`` and ``meancli.reduce_mean`` on numpy arrays.

Both resolve the operator version from ``opset`` (meancli.opset), validate
with that version's generated validator, and run the generated C kernel. The
CLI calls the same steps (``prepare_*`` then ``execute_*``) so it can time them.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from . import kernels
from . import opset as opsets
from .errors import SpecViolation, UsageError
from .formats.dtypes import is_raw_bfloat16, native_dtype
from .opversion import OpVersion
from .semantics import ReduceCall

_SPEC_NAMES: dict[np.dtype[Any], str] = {}


def spec_dtype_name(dtype: np.dtype[Any]) -> str:
    """The spec's name for a numpy dtype: float16/bfloat16/float32/float64,
    int8..int64, uint8..uint64; other dtypes keep numpy's name (and are then
    rejected by every spec)."""
    if is_raw_bfloat16(dtype):  # (equal to, and hashed as, a plain 2-byte void: not cached)
        return "bfloat16"
    name = _SPEC_NAMES.get(dtype)
    if name is None:
        name = _SPEC_NAMES[dtype] = _spec_dtype_name(dtype)
    return name


def _spec_dtype_name(dtype: np.dtype[Any]) -> str:
    if dtype.name == "bfloat16":
        return "bfloat16"
    if dtype.kind in "iu" and dtype.itemsize in (1, 2, 4, 8):
        return f"{'u' if dtype.kind == 'u' else ''}int{dtype.itemsize * 8}"
    if dtype.kind == "f" and dtype.itemsize in (2, 4, 8):
        return f"float{dtype.itemsize * 8}"
    return dtype.name


def refuse_masked(x: Any) -> None:
    """Refuse a masked array, numpy's or a dask array of masked chunks: the
    kernels read the values under its mask as any others.

    Raises:
        UsageError: ``x`` is masked.
    """
    ma = sys.modules.get("numpy.ma")  # loaded only if the caller uses masked arrays
    meta = getattr(x, "_meta", None)  # a dask array's: what its chunks are
    if ma is not None and (isinstance(x, ma.MaskedArray) or isinstance(meta, ma.MaskedArray)):
        raise UsageError("masked arrays are not supported: pass .filled(value) or .compressed() instead")


def _check_lazy_call(inputs: Sequence[Any], threads: int | None, out: Any) -> None:
    """What a call with a dask input is refused for, as one with arrays is:
    masked inputs, bad ``threads`` (dask's tasks then take 1 thread each);
    and ``out=``, which cannot receive a lazy result.

    Raises:
        UsageError: any of these.
    """
    if out is not None:
        raise UsageError("out= cannot receive a lazy dask result; call .compute() or .store()")
    _threads(threads)
    for x in inputs:
        refuse_masked(x)


def kernel_input(x: Any) -> np.ndarray:
    """``x`` as an ndarray the kernels take: native byte order, aligned, C or
    Fortran contiguous (copied only when it is not already).

    Raises:
        UsageError: ``x`` is a masked array (its mask would be ignored), or
            its copy does not fit in memory.
    """
    refuse_masked(x)
    a = np.asarray(x)
    if a.size == 0:  # no data to read: any strides are fine, hand over plain ones
        return np.empty(a.shape, dtype=native_dtype(a.dtype))
    try:
        if not a.dtype.isnative:
            a = a.astype(native_dtype(a.dtype))
        if not (a.flags.c_contiguous or a.flags.f_contiguous) or not a.flags.aligned:
            a = np.array(a, order="C", copy=True)  # a fresh buffer is aligned
    except (MemoryError, ValueError):  # ValueError: numpy's "array is too big" for the address space
        raise UsageError(
            f"an input of shape {a.shape} ({a.dtype}) is copied to be contiguous in native byte order, "
            f"and its {a.size * a.dtype.itemsize} bytes do not fit in memory"
        ) from None
    return a


def _axes_list(axes: int | Iterable[int] | None) -> list[int] | None:
    if axes is None:
        return None
    if isinstance(axes, bool):
        raise SpecViolation(f"axes must be integers, got {axes!r}")
    if isinstance(axes, (int, np.integer)) or (isinstance(axes, np.ndarray) and axes.ndim == 0):
        try:
            return [operator.index(axes)]
        except TypeError:
            raise SpecViolation(f"axes must be integers, got {axes!r}") from None
    if isinstance(axes, (str, bytes)) or not isinstance(axes, Iterable):
        raise SpecViolation(f"axes must be an integer or integers, got {axes!r}")
    out = []
    for a in axes:
        if isinstance(a, (bool, np.bool_)):
            raise SpecViolation(f"axes must be integers, got {a!r}")
        try:
            out.append(operator.index(a))
        except TypeError:
            raise SpecViolation(f"axes must be integers, got {a!r}") from None
    return out


def prepare_reduce(
    op: OpVersion,
    data: np.ndarray,
    axes: int | Iterable[int] | None,
    keepdims: bool | None,
    **attributes: Any,
) -> ReduceCall:
    """Validate a ReduceMean call on ``data`` against ``op``'s spec (see validate_reduce)."""
    return validate_reduce(op, data.dtype, tuple(data.shape), axes, keepdims, **attributes)


def validate_reduce(
    op: OpVersion,
    dtype: np.dtype[Any],
    shape: tuple[int, ...],
    axes: int | Iterable[int] | None = None,
    keepdims: bool | None = None,
    **attributes: Any,
) -> ReduceCall:
    """Validate a ReduceMean call on an input of ``dtype`` and ``shape`` against ``op``'s spec.

    Args:
        axes: None (omitted), an int, or a sequence of ints (may be empty).
        keepdims: the version's keepdims attribute (onnx keepdims, openvino
            keep_dims); None for its default.
        attributes: any other attribute of the version, by its spec name
            (noop_with_empty_axes on ReduceMean-18); None means not given.

    Raises:
        SpecViolation: what the version's generated validator rejects (dtype,
            axes, attributes it lacks or values it does not take, an integer
            mean over an empty set).
    """
    if op.kind != "reduce" or op.keepdims is None:
        raise SpecViolation(f"{op.label} is not a reduction")
    axes_list = _axes_list(axes)
    if keepdims is not None:
        if attributes.get(op.keepdims.attribute) is not None:
            raise SpecViolation(f"{op.label}: keepdims and {op.keepdims.attribute} both given")
        attributes[op.keepdims.attribute] = keepdims
    return _validate_reduce(
        op,
        spec_dtype_name(dtype),
        shape,
        None if axes_list is None else tuple(axes_list),
        _frozen(attributes),
    )


def _frozen(attributes: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The given attributes as a hashable key (lists become tuples; None is not given)."""
    items = []
    for name, value in sorted(attributes.items()):
        if value is None:
            continue
        if isinstance(value, np.ndarray):
            value = value.tolist()  # a 0-d array is its scalar
        if isinstance(value, list):
            value = tuple(value)
        items.append((name, value))
    return tuple(items)


def _validate_reduce(
    op: OpVersion,
    dtype: str,
    shape: tuple[int, ...],
    axes: tuple[int, ...] | None,
    attributes: tuple[tuple[str, Any], ...],
) -> ReduceCall:
    try:
        return _validate_reduce_cached(op, dtype, shape, axes, attributes, _types_of(attributes))
    except TypeError:  # an unhashable attribute value: the validator reports it
        call: ReduceCall = op.validator(op, dtype, shape, axes, dict(attributes))
        return call


def _types_of(value: Any) -> Any:
    """The types within ``value`` (a tuple's element by element): True, 1 and 1.0 are
    equal keys, but not equally valid attribute values."""
    if isinstance(value, tuple):
        return tuple(_types_of(v) for v in value)
    return type(value)


@lru_cache(maxsize=512)
def _validate_reduce_cached(
    op: OpVersion,
    dtype: str,
    shape: tuple[int, ...],
    axes: tuple[int, ...] | None,
    attributes: tuple[tuple[str, Any], ...],
    types: Any,
) -> ReduceCall:
    # Validation is a pure function of these; caching it keeps small calls cheap. ``types``
    # (_types_of(attributes)) is part of the key only, so a value is never taken for an
    # equal one of another type that was validated before.
    call: ReduceCall = op.validator(op, dtype, shape, axes, dict(attributes))
    return call


def _threads(threads: int | None) -> int:
    if threads is None:
        return kernels.default_threads()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 1024:
        raise UsageError(f"threads must be an integer from 1 to 1024, got {threads!r}")
    return int(threads)


def output_array(
    out: Any, shape: tuple[int, ...], dtype: np.dtype[Any], inputs: Sequence[np.ndarray], elementwise: bool
) -> np.ndarray:
    """``out`` checked as the destination of a result of ``shape`` and ``dtype``,
    or a new C-contiguous array when ``out`` is None.

    ``out`` must be a writeable, aligned, C-contiguous ndarray of exactly that
    shape and dtype (native byte order) that shares no memory with the
    inputs; an element-wise Mean may also write into one of its own inputs
    when that input has the output's shape and layout (each output element
    reads its inputs before it is written).

    Raises:
        UsageError: ``out`` is not such an array, or a new one does not fit in memory.
    """
    if out is None:
        try:
            return np.empty(shape, dtype=dtype)
        except (MemoryError, ValueError):  # ValueError: numpy's "array is too big"
            nbytes = np.prod(shape, dtype=object) * dtype.itemsize
            raise UsageError(f"the result of shape {shape} ({nbytes} bytes) does not fit in memory") from None
    if not isinstance(out, np.ndarray):
        raise UsageError(f"out must be a numpy array, got {type(out).__name__}")
    if not out.dtype.isnative:
        raise UsageError("out must be in native byte order")
    if out.shape != shape or out.dtype != dtype:
        raise UsageError(
            f"out must have shape {shape} and dtype {spec_dtype_name(dtype)}, "
            f"got shape {out.shape} and dtype {spec_dtype_name(out.dtype)}"
        )
    if not (out.flags.c_contiguous and out.flags.writeable and out.flags.aligned):
        raise UsageError("out must be a writeable, aligned, C-contiguous array")
    for x in inputs:
        if x.size == 0 or out.size == 0 or not np.may_share_memory(x, out):
            continue
        same = x.shape == out.shape and x.flags.c_contiguous and x.ctypes.data == out.ctypes.data
        if not (elementwise and same):
            raise UsageError(
                "out overlaps an input (only Mean may write into an input of its own shape and layout)"
            )
    return out


def execute_reduce(
    op: OpVersion,
    call: ReduceCall,
    data: np.ndarray,
    threads: int | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Run ``op``'s kernel for a validated call.

    Args:
        data: a kernel_input() array of the shape the call was validated for.
        threads: kernel threads (None: the available cores).
        out: where to write the result (see output_array); None: a new array.

    Returns:
        ``out``, or a new C-contiguous array of dtype ``data.dtype`` and shape ``call.out_shape``.

    Raises:
        UsageError: ``out`` is not a valid destination (output_array).
    """
    out = output_array(out, call.out_shape, data.dtype, [data], elementwise=False)
    symbol = op.kernels[spec_dtype_name(data.dtype)]
    threads = _threads(threads)
    kernels.run_reduce(symbol, data, call.reduce_mask, out, threads)
    return out


def reduce_kernel_kind(op: OpVersion, call: ReduceCall, data: np.ndarray) -> str:
    """The kind of vector kernel (meancli.kernels.isa) execute_reduce runs for
    ``data`` (a kernel_input() array): ``"mean"``, the Mean unit kernels, for
    few rows or short runs; else ``"run"``.

    Raises:
        SpecViolation: integer mean over an empty set.
    """
    symbol = op.kernels[spec_dtype_name(data.dtype)]
    with kernels.ReduceJob(symbol, data.shape, data.strides, call.reduce_mask) as job:
        return job.kind(whole=True)


def reduce_mean(
    data: Any,
    axes: int | Iterable[int] | None = None,
    keepdims: bool | None = None,
    opset: str | int | None = None,
    threads: int | None = None,
    out: np.ndarray | None = None,
    **attributes: Any,
) -> np.ndarray:
    """ReduceMean of ``data`` as the selected operator version defines it.

    Args:
        data: array-like (or a dask array: the result is then a lazy dask
            array of the same bits, computed chunk by chunk with exact partial
            states wherever dask runs it) of shape (d0, ..., d{r-1}), r in 0..64, of a dtype the
            version allows (onnx: float16, float32, float64, int32, int64,
            uint32, uint64, bfloat16 from ReduceMean-13; openvino: also int8,
            int16, uint8, uint16). Either byte order, C or Fortran order.
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
        UsageError: ``threads`` out of range, or ``out`` not a valid destination.

    Implements ONNX ReduceMean-1/11/13/18 and OpenVINO ReduceMean-1 (spec/).
    """
    op = opsets.resolve("ReduceMean", opset)
    if "dask.array" in sys.modules:  # a dask array in: a lazy dask array out, the same bits
        from .engine import distributed

        if distributed.is_dask_array(data):
            _check_lazy_call([data], threads, out)
            return distributed.lazy_reduce(op, data, axes, keepdims, **attributes)  # type: ignore[no-any-return]
    x = kernel_input(data)
    call = prepare_reduce(op, x, axes, keepdims, **attributes)
    return execute_reduce(op, call, x, threads, out)


def prepare_mean(op: OpVersion, inputs: Sequence[Any], **attributes: Any) -> tuple[int, ...]:
    """Validate a Mean call against ``op``'s spec; returns the output shape.

    ``inputs`` need only ``dtype`` and ``shape`` (arrays or streamed sources);
    ``attributes`` are the version's attributes by spec name (None: not given).

    Raises:
        SpecViolation: mixed or disallowed dtypes, shapes that differ (Mean-1,
            Mean-6) or do not broadcast (Mean-8, Mean-13), no inputs.
    """
    if op.kind != "elementwise_mean":
        raise SpecViolation(f"{op.label} is not an element-wise mean")
    if not inputs:
        raise SpecViolation(f"{op.label} needs at least one input")
    _, shape = op.validator(
        op, [spec_dtype_name(x.dtype) for x in inputs], [tuple(x.shape) for x in inputs], attributes
    )
    if len(shape) > kernels.max_rank():
        raise SpecViolation(f"{op.label}: rank {len(shape)} exceeds the maximum of {kernels.max_rank()}")
    return tuple(shape)


def execute_mean(
    op: OpVersion,
    shape: tuple[int, ...],
    inputs: Sequence[np.ndarray],
    threads: int | None = None,
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Run ``op``'s Mean kernel on validated kernel_input() arrays; returns
    ``out`` (see output_array) or a new C-contiguous array of the inputs'
    dtype and the broadcast ``shape``.

    Raises:
        UsageError: ``out`` is not a valid destination (output_array).
    """
    out = output_array(out, shape, inputs[0].dtype, inputs, elementwise=True)
    symbol = op.kernels[spec_dtype_name(inputs[0].dtype)]
    threads = _threads(threads)
    kernels.run_mean(symbol, inputs, out, threads)
    return out


def mean(
    *arrays: Any,
    opset: str | int | None = None,
    threads: int | None = None,
    out: np.ndarray | None = None,
    **attributes: Any,
) -> np.ndarray:
    """Element-wise Mean of one or more arrays, as the selected ONNX version defines it.

    Args:
        arrays: 1 or more array-likes (if any is a dask array, the result is a
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
        UsageError: ``threads`` out of range, or ``out`` not a valid destination.

    Implements ONNX Mean-1/6/8/13 (spec/onnx/Mean-*.yaml).
    """
    op = opsets.resolve("Mean", opset)
    if "dask.array" in sys.modules:  # a dask array among the inputs: a lazy dask array out
        from .engine import distributed

        if any(distributed.is_dask_array(a) for a in arrays):
            _check_lazy_call(arrays, threads, out)
            return distributed.lazy_mean(op, arrays, **attributes)  # type: ignore[no-any-return]
    xs = [kernel_input(a) for a in arrays]
    shape = prepare_mean(op, xs, **attributes)
    return execute_mean(op, shape, xs, threads, out)
