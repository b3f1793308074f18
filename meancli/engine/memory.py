"""The in-memory engine: the whole input in memory (or memory-mapped), one kernel call."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import kernels
from ..dtypes import spec_name
from ..errors import SpecViolation, UsageError
from ..ops.rules import ReduceCall
from ..ops.schema import OpVersion
from ..ops.validate import validate_mean
from . import allocate
from .plan import Job, Outcome


def prepare_mean(op: OpVersion, inputs: Sequence[Any], **attributes: Any) -> tuple[int, ...]:
    """Validate a Mean call (ops.validate.validate_mean) and check its rank against
    the kernels' limit; returns the output shape.

    Raises:
        SpecViolation: what validate_mean raises; a rank above kernels.max_rank().
    """
    shape = validate_mean(op, inputs, **attributes)
    if len(shape) > kernels.max_rank():
        raise SpecViolation(f"{op.label}: rank {len(shape)} exceeds the maximum of {kernels.max_rank()}")
    return shape


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
        UsageError: ``out`` is not such an array.
        NotEnoughMemory: a new one does not fit in memory.
    """
    if out is None:
        held: np.ndarray = allocate(shape, dtype, None)
        return held
    if not isinstance(out, np.ndarray):
        raise UsageError(f"out must be a numpy array, got {type(out).__name__}")
    if not out.dtype.isnative:
        raise UsageError("out must be in native byte order")
    if out.shape != shape or out.dtype != dtype:
        raise UsageError(
            f"out must have shape {shape} and dtype {spec_name(dtype)}, "
            f"got shape {out.shape} and dtype {spec_name(out.dtype)}"
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
    skipna: bool = False,
    check: Any = None,
) -> np.ndarray:
    """Run ``op``'s kernel for a validated call (``skipna``: the exact mean of
    each output's non-NaN values, meancli's own extension).

    Args:
        data: a kernels.arrays.kernel_input() array of the shape the call was validated for.
        threads: kernel threads (None: the available cores).
        out: where to write the result (see output_array); None: a new array.
        check: a comparison with the result (engine.compare.Tally, plan.Job's ``check``):
            the kernel compares the outputs as it writes them and hands it what it found
            (not with ``skipna``, nor where the compared array is not C-contiguous in
            native order: the caller's ``finish`` compares then).

    Returns:
        ``out``, or a new C-contiguous array of dtype ``data.dtype`` and shape ``call.out_shape``.

    Raises:
        UsageError: ``out`` is not a valid destination (output_array).
    """
    if not skipna:
        return PreparedReduce(call, data, threads)(data, out, check)
    out = output_array(out, call.out_shape, data.dtype, [data], elementwise=False)
    kernels.run_reduce(
        spec_name(data.dtype), data, call.reduce_mask, out, kernels.threads_of(threads), skipna
    )
    return out


class PreparedReduce:
    """A validated ReduceMean call, ready to run on any array of the dtype, shape
    and strides of the one it was prepared with: ``prepared(data, out)`` is
    ``execute_reduce(op, call, data, threads, out)`` without looking up the kernel
    or converting its arguments again (meancli.api keeps these for calls that repeat).

    Raises (on call):
        UsageError: ``out`` is not a valid destination (output_array).
    """

    __slots__ = ("_call", "_kernel")

    def __init__(self, call: ReduceCall, data: np.ndarray, threads: int | None) -> None:
        self._call = call
        threads = kernels.threads_of(threads)
        self._kernel = kernels.ReduceKernel(spec_name(data.dtype), data, call.reduce_mask, threads)

    def __call__(self, data: np.ndarray, out: np.ndarray | None = None, check: Any = None) -> np.ndarray:
        """The mean of ``data`` into ``out`` (None: a new array of shape ``call.out_shape``),
        compared as it is written when ``check`` is given (execute_reduce)."""
        out = output_array(out, self._call.out_shape, data.dtype, [data], elementwise=False)
        got = check.whole_got() if check is not None else None
        found = self._kernel(data, out, got)
        if found is not None:
            check.add_found(found, out)
        return out


def prepared_reduce(op: OpVersion, call: ReduceCall, data: np.ndarray, job: Job) -> PreparedReduce | None:
    """The planner's entry for calls that repeat (meancli.engine.plan.prepared_reduce):
    ``call`` on kernel_input() arrays like ``data``, prepared once; None where the
    call is not one kernel call (skipna)."""
    return None if job.skipna else PreparedReduce(call, data, job.threads)


def reduce_kernel_kind(op: OpVersion, call: ReduceCall, data: np.ndarray, skipna: bool = False) -> str:
    """The kind of vector kernel (meancli.kernels.isa) execute_reduce runs for
    ``data`` (a kernel_input() array): ``"mean"``, the Mean unit kernels, for
    few rows or short runs; else ``"run"``.

    Raises:
        SpecViolation: integer mean over an empty set.
    """
    name = spec_name(data.dtype)
    skips = kernels.skips_nan(name, skipna) and data.size > 0
    with kernels.ReduceJob(name, data.shape, data.strides, call.reduce_mask, skipna=skips) as job:
        return job.kind(whole=True)


def execute_mean(
    op: OpVersion,
    shape: tuple[int, ...],
    inputs: Sequence[np.ndarray],
    threads: int | None = None,
    out: np.ndarray | None = None,
    skipna: bool = False,
    check: Any = None,
) -> np.ndarray:
    """Run ``op``'s Mean kernel on validated kernel_input() arrays (``skipna``:
    the exact mean of the non-NaN values at each position); returns
    ``out`` (see output_array) or a new C-contiguous array of the inputs'
    dtype and the broadcast ``shape``. ``check``: a comparison with the result, made
    as it is written, as execute_reduce's.

    Raises:
        UsageError: ``out`` is not a valid destination (output_array).
    """
    return PreparedMean(shape, inputs, threads, skipna)(inputs, out, check)


class PreparedMean:
    """A validated Mean call, ready to run on any inputs of the dtypes, shapes and
    strides of those it was prepared with: ``prepared(inputs, out)`` is
    ``execute_mean(op, shape, inputs, threads, out, skipna)`` without looking up
    the kernel or converting its arguments again (meancli.api keeps these for
    calls that repeat).

    Raises (on call):
        UsageError: ``out`` is not a valid destination (output_array).
    """

    __slots__ = ("_kernel", "_shape")

    def __init__(
        self,
        shape: tuple[int, ...],
        inputs: Sequence[np.ndarray],
        threads: int | None,
        skipna: bool = False,
    ) -> None:
        self._shape = shape
        threads = kernels.threads_of(threads)
        self._kernel = kernels.MeanKernel(spec_name(inputs[0].dtype), inputs, shape, threads, skipna)

    def __call__(
        self, inputs: Sequence[np.ndarray], out: np.ndarray | None = None, check: Any = None
    ) -> np.ndarray:
        """The mean of ``inputs`` into ``out`` (None: a new array of the broadcast shape),
        compared as it is written when ``check`` is given (execute_reduce)."""
        out = output_array(out, self._shape, inputs[0].dtype, inputs, elementwise=True)
        got = check.whole_got() if check is not None and self._kernel.compares else None
        found = self._kernel(inputs, out, got)
        if found is not None:
            check.add_found(found, out)
        return out


def prepared_mean(
    op: OpVersion, shape: tuple[int, ...], items: Sequence[np.ndarray], job: Job
) -> PreparedMean:
    """The planner's entry for calls that repeat (meancli.engine.plan.prepared_mean):
    the Mean of kernel_input() arrays like ``items``, prepared once."""
    return PreparedMean(shape, items, job.threads, job.skipna)


def reduce(op: OpVersion, call: ReduceCall, data: np.ndarray, job: Job) -> Outcome:
    """The planner's entry (meancli.engine.plan): ReduceMean of a kernel_input()
    array in one kernel call, timed as stage ``kernel`` (``job.repeat`` times),
    into ``job.out`` when given; the kernel compares the result with ``job.check``
    as it writes it, where it can (execute_reduce)."""
    result = job.times.repeat(
        "kernel",
        lambda: execute_reduce(op, call, data, job.threads, job.out, job.skipna, job.check),
        job.repeat,
    )
    # the kind costs a plan of the call: worked out only when a report asks (Outcome.kind)
    return Outcome(
        result, {"name": "memory"}, functools.partial(reduce_kernel_kind, op, call, data, job.skipna)
    )


def mean(op: OpVersion, shape: tuple[int, ...], inputs: list[np.ndarray], job: Job) -> Outcome:
    """The planner's entry: element-wise Mean of kernel_input() arrays in one kernel call,
    compared with ``job.check`` as it is written (execute_mean)."""
    result = job.times.repeat(
        "kernel",
        lambda: execute_mean(op, shape, inputs, job.threads, job.out, job.skipna, job.check),
        job.repeat,
    )
    return Outcome(result, {"name": "memory"}, "mean")
