"""The functions dask ships to workers: module-level, so they pickle by name.

Each loads the compiled kernels in the process that runs it
(meancli.kernels loads ``meancli._kernels`` on first use; importing this
module imports neither the API nor the command line); cffi objects
never travel. ReduceMean's chunk / combine / aggregate are the exact partial
states of meancli.kernels (reduce_partial, combine_partials,
finalize_partials), so any grouping of chunks gives the same bits; a chunk
that spans the reduced axes is reduced straight to its means (whole_chunk).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import kernels
from ...kernels.arrays import kernel_input


def partial_chunk(
    x: np.ndarray[Any, Any], axis: tuple[int, ...], keepdims: bool, threads: int = 1, skipna: bool = False
) -> np.ndarray[Any, Any]:
    """dask.array.reduction's ``chunk``: the exact partial state of each output of a chunk
    (``axis`` kept as size 1; ``skipna``: of its non-NaN values)."""
    return kernels.reduce_partial(kernel_input(x), tuple(axis), threads, skipna)


def whole_chunk(
    x: np.ndarray[Any, Any], axis: tuple[int, ...], threads: int = 1, skipna: bool = False
) -> np.ndarray[Any, Any]:
    """A chunk that holds every reduced element of its outputs: their means
    (``axis`` kept as size 1; ``skipna``: of their non-NaN values), with no
    partial states between."""
    return kernels.reduce_kept(kernel_input(x), tuple(axis), threads, skipna)


def partial_combine(
    states: np.ndarray[Any, Any], axis: tuple[int, ...], keepdims: bool, dtype_name: str
) -> np.ndarray[Any, Any]:
    """``combine``: partial states concatenated along ``axis``, combined exactly (size 1 there)."""
    return kernels.combine_partials(states, tuple(axis), dtype_name)


def partial_aggregate(
    states: np.ndarray[Any, Any], axis: tuple[int, ...], keepdims: bool, dtype_name: str
) -> np.ndarray[Any, Any]:
    """``aggregate``: the last combine, then each output's mean rounded once."""
    return kernels.finalize_partials(kernels.combine_partials(states, tuple(axis), dtype_name), dtype_name)


def mean_block(
    *blocks: np.ndarray[Any, Any], dtype_name: str, threads: int = 1, skipna: bool = False
) -> np.ndarray[Any, Any]:
    """One block of an element-wise Mean: ``blocks`` broadcast multidirectionally
    (size-1 dims stretch), averaged by the Mean kernel of spec dtype ``dtype_name`` (``skipna``:
    the non-NaN values at each position)."""
    xs = [kernel_input(b) for b in blocks]
    out = np.empty(np.broadcast_shapes(*(x.shape for x in xs)), dtype=xs[0].dtype)
    kernels.run_mean(dtype_name, xs, out, threads, skipna)
    return out
