"""The streamed engine: ReduceMean and Mean of inputs read in slabs (meancli.streaming).

Peak memory is a slab per streamed input plus the result (ReduceMean), or a
block of the result when Mean writes its output as it is produced.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..formats.dtypes import native_dtype
from . import Clock, ProgressFactory, allocate

if TYPE_CHECKING:
    from ..opversion import OpVersion
    from ..semantics import ReduceCall
    from ..streaming import Source


def reduce_streamed(
    op: OpVersion,
    call: ReduceCall,
    source: Source,
    threads: int,
    clock: Clock,
    progress: ProgressFactory,
) -> tuple[np.ndarray[Any, Any], str]:
    """ReduceMean of a streamed input, slab by slab (meancli.streaming.reduce_slabs);
    read whole when one outermost row exceeds a slab. Time waiting for data is
    reported as stage ``read``, the rest as ``kernel``. The source is finished
    (closed) in every case.

    Returns:
        A new array of shape ``call.out_shape``, the input's dtype in native
        byte order, and the kind of vector kernel that ran (``"run"`` or
        ``"mean"``, as meancli.kernels.isa takes it).

    Raises:
        InputFileError: the data cannot be read, or the result does not fit in memory.
    """
    from .. import api
    from ..streaming import reduce_slabs

    kept = tuple(n for n, m in zip(source.shape, call.reduce_mask, strict=True) if not m)
    out = allocate(kept, native_dtype(source.dtype), source.name)
    symbol = op.kernels[api.spec_dtype_name(source.dtype)]
    try:
        with clock.stage("kernel"), progress(source.nbytes, source.name, "bytes") as advance:
            kind = reduce_slabs(symbol, source, call.reduce_mask, out, threads, advance)
        clock.timings_ms["read"] = clock.timings_ms.get("read", 0.0) + source.read_seconds * 1e3
        clock.timings_ms["kernel"] -= source.read_seconds * 1e3
        if kind is None:  # one outermost row is larger than a slab: read it whole
            with clock.stage("read"):
                data = api.kernel_input(source.read_all())
    finally:
        source.finish()
    if kind is not None:
        return out.reshape(call.out_shape), kind
    with clock.stage("kernel"):
        return api.execute_reduce(op, call, data, threads), api.reduce_kernel_kind(op, call, data)


def mean_streamed(
    op: OpVersion,
    shape: tuple[int, ...],
    items: list[Any],
    threads: int,
    output: str | None,
    clock: Clock,
    progress: ProgressFactory,
) -> np.ndarray[Any, Any] | None:
    """Mean with some inputs (``items``: arrays and Sources) streamed in blocks
    (meancli.streaming.mean_blocks). With ``output``, the result is written
    to that .npy path (``-``: stdout) block by block as it is produced,
    atomically, and None is returned; else it is returned whole. Every
    Source is finished (closed) in every case.

    Raises:
        InputFileError: an input cannot be read (OutputFileError: the output cannot be written),
            or the result does not fit in memory.
    """
    from .. import api, kernels
    from ..npyio import read_npy, write_npy_blocks
    from ..streaming import Source, mean_blocks

    items = list(items)
    try:
        # Streams that cannot be read block by block in order are read whole.
        for k, item in enumerate(items):
            if not isinstance(item, Source):
                continue
            padded = (1,) * (len(shape) - len(item.shape)) + item.shape
            if item.header.fortran_order or (not item.seekable and padded != shape):
                with clock.stage("read"):
                    data = item.read_all() if not item.seekable else read_npy(item.name)[0]
                    item.finish()
                    items[k] = api.kernel_input(data)
        sources = [x for x in items if isinstance(x, Source)]
        native = native_dtype(items[0].dtype)
        symbol = op.kernels[api.spec_dtype_name(native)]
        total = sum(s.nbytes for s in sources)
        with clock.stage("kernel"), progress(total, "mean", "bytes") as advance:
            blocks = mean_blocks(shape, items, native, advance)
            if output is None:  # shown: the whole result in memory
                out = allocate(shape, native, ", ".join(s.name for s in sources))
                for prefix, a, b, views in blocks:
                    index: tuple[Any, ...] = (*prefix, slice(a, b))
                    kernels.run_mean(symbol, views, out[index] if shape else out, threads)
                result: np.ndarray[Any, Any] | None = out
            else:  # written block by block as it is produced (atomically, as any output)
                write_npy_blocks(output, shape, native, _computed(blocks, native, symbol, threads))
                result = None
        waited = sum(s.read_seconds for s in sources) * 1e3
        clock.timings_ms["read"] = clock.timings_ms.get("read", 0.0) + waited
        clock.timings_ms["kernel"] -= waited
    finally:
        for s in items:
            if isinstance(s, Source):
                s.finish()
    return result


def _computed(blocks: Any, dtype: Any, symbol: str, threads: int) -> Iterator[np.ndarray[Any, Any]]:
    """Each block's Mean, in order, in one reused buffer (consumed before the next)."""
    from .. import kernels

    scratch: np.ndarray[Any, Any] | None = None
    for *_where, views in blocks:
        block_shape = views[0].shape  # every view has the block's shape
        size = int(np.prod(block_shape, dtype=np.int64))
        if scratch is None or scratch.size < size:
            scratch = np.empty(size, dtype=dtype)
        out = scratch[:size].reshape(block_shape)
        kernels.run_mean(symbol, views, out, threads)
        yield out
