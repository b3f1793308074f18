"""The streamed engine: ReduceMean and Mean of inputs larger than memory,
read in slabs of about SLAB_BYTES from a meancli.io.source.Source.

- ReduceMean: slabs are runs of rows of the input's outermost dimension in
  memory order; the kernel carries each output's running total and open
  chunk from slab to slab, so the result is bit-identical to the in-memory
  path (see templates/kernels.c.j2). Peak memory: one slab, the output, and
  (when the outermost dimension is reduced) a running total per output.
- Mean: the output is produced in blocks (a range along one dimension under
  a fixed prefix); each streamed input's block is one contiguous byte range
  of its file; small inputs stay in memory and are broadcast as views. With
  a ``.npy`` output, blocks are written as they are produced.

Not streamed (read through a memory map instead, so memory grows with the
file's size): Fortran-order inputs of Mean, and ReduceMean inputs where a
single row of the outermost dimension exceeds the slab size; archive members
and stdin in those cases are read whole.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from .. import kernels
from ..dtypes import native_dtype, spec_name
from ..io.npy_write import write_npy_blocks
from ..io.registry import writes_as_produced
from ..io.source import Source
from ..kernels.arrays import kernel_input
from ..ops.rules import ReduceCall
from ..ops.schema import OpVersion
from . import Clock, ProgressFactory, allocate
from .memory import execute_reduce, output_array, reduce_kernel_kind
from .plan import Job, Outcome

SLAB_BYTES = int(os.environ.get("MEANCLI_SLAB_BYTES", 32 << 20))
Progress = Callable[[int], None]  # called with bytes just read


def reduce(op: OpVersion, call: ReduceCall, source: Source, job: Job) -> Outcome:
    """The planner's entry (meancli.engine.plan): ReduceMean of a Source (reduce_streamed)."""
    result, kind = reduce_streamed(
        op, call, source, job.threads, job.times, job.progress, job.out, skipna=job.skipna
    )
    return Outcome(result, {"name": "streamed"}, kind)


def mean(op: OpVersion, shape: tuple[int, ...], items: list[Any], job: Job) -> Outcome:
    """The planner's entry: Mean with some inputs streamed (mean_streamed); a ``.npy``
    ``job.output`` is written block by block as it is produced (the result is then None)."""
    blockwise = job.output if job.output is not None and writes_as_produced(job.output) else None
    result = mean_streamed(
        op, shape, items, job.threads, blockwise, job.times, job.progress, job.out, job.skipna, job.check
    )
    return Outcome(result, {"name": "streamed"}, "mean")


def reduce_streamed(
    op: OpVersion,
    call: ReduceCall,
    source: Source,
    threads: int,
    clock: Clock,
    progress: ProgressFactory,
    out: np.ndarray[Any, Any] | None = None,
    skipna: bool = False,
) -> tuple[np.ndarray[Any, Any], str]:
    """ReduceMean of a streamed input, slab by slab (reduce_slabs; ``skipna``:
    each output the exact mean of its non-NaN values);
    read whole when one outermost row exceeds a slab. Time waiting for data is
    reported as stage ``read``, the rest as ``kernel``. The source is finished
    (closed) in every case.

    Returns:
        ``out`` (checked as memory.output_array checks it), or a new array of
        shape ``call.out_shape``, the input's dtype in native byte order, and
        the kind of vector kernel that ran (``"run"`` or ``"mean"``, as
        meancli.kernels.isa takes it).

    Raises:
        InputFileError: the data cannot be read, or the result does not fit in memory.
    """
    kept = tuple(n for n, m in zip(source.shape, call.reduce_mask, strict=True) if not m)
    native = native_dtype(source.dtype)
    given = out
    if given is not None:
        out = output_array(given, call.out_shape, native, [], elementwise=False).reshape(kept)
    else:
        out = allocate(kept, native, source.name)
    try:
        with clock.stage("kernel"), progress(source.nbytes, source.name, "bytes") as advance:
            kind = reduce_slabs(
                spec_name(source.dtype), source, call.reduce_mask, out, threads, advance, skipna=skipna
            )
        clock.timings_ms["read"] = clock.timings_ms.get("read", 0.0) + source.read_seconds * 1e3
        clock.timings_ms["kernel"] -= source.read_seconds * 1e3
        if kind is None:  # one outermost row is larger than a slab: read it whole
            with clock.stage("read"):
                data = kernel_input(source.read_all())
    finally:
        source.finish()
    if kind is not None:
        return (given if given is not None else out.reshape(call.out_shape)), kind
    with clock.stage("kernel"):
        result = execute_reduce(op, call, data, threads, given, skipna)
        return result, reduce_kernel_kind(op, call, data, skipna)


def mean_streamed(
    op: OpVersion,
    shape: tuple[int, ...],
    items: list[Any],
    threads: int,
    output: str | None,
    clock: Clock,
    progress: ProgressFactory,
    out: np.ndarray[Any, Any] | None = None,
    skipna: bool = False,
    check: Any = None,
) -> np.ndarray[Any, Any] | None:
    """Mean with some inputs (``items``: arrays and Sources) streamed in blocks
    (mean_blocks; ``skipna``: of the non-NaN values at each position). With ``output``, the result is written
    to that .npy path (``-``: stdout) block by block as it is produced,
    atomically, and None is returned (``check``, an engine.compare.Tally: each block
    compared as it is written); else it is returned whole. Every
    Source is finished (closed) in every case.

    Raises:
        InputFileError: an input cannot be read (OutputFileError: the output cannot be written),
            or the result does not fit in memory.
    """
    items = list(items)
    finished: list[Source] = []
    try:
        # Streams that cannot be read block by block in order are read whole.
        for k, item in enumerate(items):
            if not isinstance(item, Source):
                continue
            padded = (1,) * (len(shape) - len(item.shape)) + item.shape
            if item.header.fortran_order or (not item.seekable and padded != shape):
                with clock.stage("read"):
                    data = item.load()
                    item.finish()
                    items[k] = kernel_input(data)
        sources = [x for x in items if isinstance(x, Source)]
        compared = [0.0]  # seconds the comparison took inside the kernel stage
        native = native_dtype(items[0].dtype)
        dtype_name = spec_name(native)
        total = sum(s.nbytes for s in sources)
        with clock.stage("kernel"), progress(total, "mean", "bytes") as advance:
            blocks = mean_blocks(shape, items, native, advance)
            if output is None:  # shown: the whole result in memory
                if out is not None:
                    out = output_array(out, shape, native, [], elementwise=False)
                else:
                    out = allocate(shape, native, ", ".join(s.name for s in sources))
                for prefix, a, b, views in blocks:
                    index: tuple[Any, ...] = (*prefix, slice(a, b))
                    kernels.run_mean(dtype_name, views, out[index] if shape else out, threads, skipna)
                result: np.ndarray[Any, Any] | None = out
            else:  # written block by block as it is produced (atomically, as any output)
                # the sources are finished (trailing bytes on a stream refused) before
                # the last block is handed over, so a failure leaves no output
                computed = _computed(blocks, native, threads, skipna)
                if check is not None:
                    computed = _compared(computed, check, compared)
                write_npy_blocks(output, shape, native, _then_finished(computed, sources, finished))
                result = None
        waited = sum(s.read_seconds for s in sources) * 1e3
        clock.timings_ms["read"] = clock.timings_ms.get("read", 0.0) + waited
        clock.timings_ms["kernel"] -= waited + compared[0] * 1e3
        if check is not None and compared[0]:
            clock.timings_ms["compare"] = clock.timings_ms.get("compare", 0.0) + compared[0] * 1e3
    finally:
        for s in items:
            if isinstance(s, Source) and not any(s is f for f in finished):
                s.finish()
    return result


def _then_finished(
    blocks: Iterator[np.ndarray[Any, Any]], sources: list[Source], finished: list[Source]
) -> Iterator[np.ndarray[Any, Any]]:
    """``blocks``, each Source finished (checked and closed) after the last block,
    before the consumer (an atomic write) learns there is no more."""
    yield from blocks
    for s in sources:
        finished.append(s)
        s.finish()


def _compared(
    blocks: Iterator[np.ndarray[Any, Any]], check: Any, spent: list[float]
) -> Iterator[np.ndarray[Any, Any]]:
    """``blocks`` (the result's, in C order), each fed to the comparison ``check`` (an
    engine.compare.Tally) before it is handed on; the seconds it took are added to ``spent[0]``."""
    start = 0
    for block in blocks:
        began = time.perf_counter()
        check.add(block.reshape(-1), start)
        spent[0] += time.perf_counter() - began
        start += block.size
        yield block


def _computed(blocks: Any, dtype: Any, threads: int, skipna: bool = False) -> Iterator[np.ndarray[Any, Any]]:
    """Each block's Mean, in order, in one reused buffer (consumed before the next)."""
    scratch: np.ndarray[Any, Any] | None = None
    for *_where, views in blocks:
        block_shape = views[0].shape  # every view has the block's shape
        size = int(np.prod(block_shape, dtype=np.int64))
        if scratch is None or scratch.size < size:
            scratch = np.empty(size, dtype=dtype)
        out = scratch[:size].reshape(block_shape)
        kernels.run_mean(spec_name(dtype), views, out, threads, skipna)
        yield out


def _c_strides(shape: tuple[int, ...], itemsize: int, fortran: bool) -> tuple[int, ...]:
    strides = [0] * len(shape)
    step = itemsize
    dims = range(len(shape)) if fortran else range(len(shape) - 1, -1, -1)
    for d in dims:
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def reduce_slabs(
    dtype_name: str,
    source: Source,
    reduce_mask: tuple[bool, ...],
    out: np.ndarray[Any, Any],
    threads: int,
    progress: Progress | None = None,
    skipna: bool = False,
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
    h = source.header
    itemsize = h.dtype.itemsize
    strides = _c_strides(h.shape, itemsize, h.fortran_order)
    skips = kernels.skips_nan(dtype_name, skipna) and h.nbytes > 0
    with kernels.ReduceJob(dtype_name, h.shape, strides, reduce_mask, skipna=skips) as job:
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
