"""The dask graphs of meancli's kernels: ReduceMean as ``dask.array.reduction``
over exact partial states, Mean as ``dask.array.blockwise``; both lazy, the
same bits as in memory for any chunk grid and tree shape."""

from __future__ import annotations

import sys
from functools import partial
from typing import Any

import numpy as np

from ... import kernels
from ...dtypes import native_dtype
from ...io.chunked import ChunkedArray, require
from ...ops.rules import ReduceCall
from .tasks import mean_block as _mean_block
from .tasks import partial_aggregate as _aggregate
from .tasks import partial_chunk as _chunk
from .tasks import partial_combine as _combine
from .tasks import whole_chunk as _whole_chunk

NUMPY_CHUNK_BYTES = 64 << 20  # chunks of an in-memory input shipped to a cluster


def as_dask(item: Any, *, cluster: bool) -> Any:
    """A dask array of ``item``: a ChunkedArray on its own chunk grid, a dask
    array as it is, a numpy array in chunks of about NUMPY_CHUNK_BYTES along
    axis 0 (one chunk in this process)."""
    da = require("dask.array")
    if isinstance(item, da.Array):
        return item
    if isinstance(item, ChunkedArray):
        meta = np.empty((0,) * item.ndim, dtype=item.dtype)
        return da.from_array(item, chunks=item.chunks, asarray=False, fancy=False, meta=meta, name=False)
    array = np.asarray(item)
    if not cluster or array.ndim == 0:
        return da.from_array(
            array, chunks=array.shape or (), meta=np.empty((0,) * array.ndim, array.dtype), name=False
        )
    row = max(1, int(np.prod(array.shape[1:], dtype=np.int64)) * array.dtype.itemsize)
    rows = max(1, NUMPY_CHUNK_BYTES // row)
    return da.from_array(
        array, chunks=(rows, *array.shape[1:]), meta=np.empty((0,) * array.ndim, array.dtype), name=False
    )


def reduce_graph(
    x: Any,
    call: ReduceCall,
    dtype_name: str,
    *,
    threads: int = 1,
    split_every: int | None = None,
    plan: bool = True,
    skipna: bool = False,
) -> Any:
    """The lazy ReduceMean of dask array ``x`` for a validated ``call``: shape
    ``call.out_shape``, ``x``'s dtype, bit-identical to meancli.api.reduce_mean.

    ``threads``: kernel threads per chunk task (1 on a cluster: dask runs a
    task per worker thread). ``plan``: first bound the memory the partial
    states take (plan_chunks), and pick ``split_every`` when it is None;
    False runs on ``x``'s chunks as they are (the result is the same bits).
    Chunks that span every reduced axis go straight to their means; others
    to exact partial states, combined in a tree. ``skipna``: each output the
    exact mean of its non-NaN values (the states count the values kept)."""
    da = require("dask.array")
    axes = tuple(d for d, m in enumerate(call.reduce_mask) if m)
    state = kernels.partial_dtype(dtype_name)
    dtype = native_dtype(x.dtype)  # what the kernels return
    if plan and axes:
        x, planned = plan_chunks(x, axes, state.itemsize)
        split_every = split_every or planned
    if all(x.numblocks[d] == 1 for d in axes):
        # each chunk holds all the reduced elements of its outputs: their
        # means straight from the kernel, without states 16-72 times their
        # size; no axes (the identity) runs the kernel too, whose NaNs are
        # the default NaN, as in memory
        out = x.map_blocks(
            partial(_whole_chunk, axis=axes, threads=threads, skipna=skipna),
            chunks=tuple((1,) if d in axes else c for d, c in enumerate(x.chunks)),
            dtype=dtype,
            meta=np.empty((0,) * x.ndim, dtype=dtype),
            token="meancli-reduce-mean",
        )
        return out.reshape(call.out_shape) if out.shape != call.out_shape else out
    out = da.reduction(
        x,
        chunk=partial(_chunk, threads=threads, skipna=skipna),
        combine=partial(_combine, dtype_name=dtype_name),
        aggregate=partial(_aggregate, dtype_name=dtype_name),
        axis=axes,
        keepdims=True,
        dtype=state,  # of the states between the steps
        split_every=split_every,
        concatenate=True,
        meta=np.empty((0,) * x.ndim, dtype=dtype),
        name="meancli-reduce-mean",
    )
    return out.reshape(call.out_shape) if out.shape != call.out_shape else out


STATES_PER_CHUNK = 8  # a chunk's partial states: at most 1/8 of its bytes
COMBINE_BYTES = 64 << 20  # the states one combine task gathers
CHUNK_ELEMENTS = 32 << 20  # bytes a merged chunk may reach without cutting its kept axes


def plan_chunks(x: Any, axes: tuple[int, ...], state_bytes: int) -> tuple[Any, int]:
    """``x`` rechunked, when needed, so that each chunk's partial states take at
    most 1/STATES_PER_CHUNK of the chunk's bytes, and the ``split_every`` that keeps
    a combine task's states under COMBINE_BYTES.

    A partial state (``state_bytes``, 32 to 288 bytes) stands for all the reduced
    elements of one output in a chunk: a chunk one element deep along the reduced
    axes (a time step of a climate field, reduced over time) would have states 16
    to 72 times its size. Such chunks are merged along the reduced axes and split
    along the kept ones, keeping about their size (dask's rechunk)."""
    itemsize = x.dtype.itemsize
    chunk = [max(c) if c else 0 for c in x.chunks]
    need = -(-STATES_PER_CHUNK * state_bytes // itemsize)  # reduced elements per output and chunk
    depth = int(np.prod([chunk[d] for d in axes], dtype=np.int64))
    if 0 < depth < need and x.size:
        factor = -(-need // depth)
        new = list(chunk)
        for d in axes:  # deepen along the reduced axes, as far as they go
            grow = min(x.shape[d], new[d] * factor)
            factor = -(-factor * new[d] // grow) if grow else factor
            new[d] = grow
        limit = max(int(np.prod(chunk, dtype=np.int64)), CHUNK_ELEMENTS // itemsize)
        kept = sorted((d for d in range(x.ndim) if d not in axes), key=lambda d: -new[d])
        for d in kept:  # and keep the chunk's size (or CHUNK_ELEMENTS bytes) by cutting kept axes
            size = int(np.prod(new, dtype=np.int64))
            if size <= limit:
                break
            new[d] = max(1, new[d] // -(-size // limit))
        x = x.rechunk(tuple(new))
        chunk = new
    outputs = int(np.prod([c for d, c in enumerate(chunk) if d not in axes], dtype=np.int64))
    states = max(1, outputs * state_bytes)
    return x, int(min(32, max(2, COMBINE_BYTES // states)))


def mean_graph(
    xs: list[Any], shape: tuple[int, ...], dtype_name: str, *, threads: int = 1, skipna: bool = False
) -> Any:
    """The lazy element-wise Mean of dask arrays ``xs`` (validated to broadcast
    to ``shape``), as blockwise tasks of the Mean kernel of spec dtype ``dtype_name`` (``skipna``:
    of the non-NaN values at each position)."""
    da = require("dask.array")
    rank = len(shape)
    index = tuple(range(rank))
    pairs: list[Any] = []
    for x in xs:
        pairs += [x, index[rank - x.ndim :]]
    return da.blockwise(
        partial(_mean_block, dtype_name=dtype_name, threads=threads, skipna=skipna),
        index,
        *pairs,
        dtype=native_dtype(xs[0].dtype),
        meta=np.empty((0,) * rank, dtype=native_dtype(xs[0].dtype)),
        name=None,
        token="meancli-mean",
    )


def chunk_grid(x: Any) -> dict[str, Any]:
    """How a dask array is cut: its largest chunk shape and the chunks along each dim."""
    return {"chunk_shape": [max(c) if c else 0 for c in x.chunks], "grid": list(x.numblocks)}


def is_dask_array(x: Any) -> bool:
    """Whether ``x`` is a dask array (never imports dask)."""
    da = sys.modules.get("dask.array")
    return da is not None and isinstance(x, da.Array)
