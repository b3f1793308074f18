"""The Mean and ReduceMean kernels that compare their result as they write it
(templates/kernel_mean.c.j2 mean_compare, templates/kernel_reduce.c.j2 reduce_compare,
what the memory engine runs for --compare): the same result bits as the plain kernels,
and the same statistics as the separate compare kernel and a numpy oracle of the
distances, on every thread count, whichever thread compares which outputs.

The compared arrays hold equal largest distances far apart (the first must be
reported, whichever thread folded it in first), NaN mismatches, and elements of
every histogram bucket. The shapes take each writing path: the Mean's units along a
long inner dim, its short-row units, a broadcast bias row; ReduceMean's short runs
(compared as written) and its row path (compared in a pass after, in the same call);
the Mean's outputs by cached stores, and streamed past the caches (staged, compared,
then streamed out).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from meancli import kernels
from meancli.dtypes import spec_name
from meancli.engine.compare import Tally, compare
from meancli.engine.memory import execute_mean, execute_reduce
from meancli.ops.opset import find_op
from meancli.ops.rules import reduce_call
from tests.oracles import exact_mean, exact_reduce_mean, same_bits

FLOATS = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}
THREADS = [1, 2, 3]


def moved(y: np.ndarray, steps: dict[int, int]) -> np.ndarray:
    """``y`` (flat C order) with element i moved ``steps[i]`` representable values up (floats,
    positive values) or ``steps[i]`` up (integers)."""
    got = np.asarray(y, order="C").copy().reshape(-1)
    for i, k in steps.items():
        if got.dtype.kind in "iu":
            got[i] += k
        else:
            got.view(UINT[got.dtype.itemsize])[i] += k
    return got.reshape(y.shape)


def oracle(want: np.ndarray, got: np.ndarray) -> tuple[int, int, int, int, list[int]]:
    """(largest distance, its first flat index, sum of distances, NaN mismatches, the
    histogram 0 / 1 / 2-4 / 5-16 / >16) by numpy, from the bits."""
    w, g = want.reshape(-1), got.reshape(-1)
    if w.dtype.kind in "iu":
        d = np.abs(w.astype(object) - g.astype(object)).astype(np.uint64)
        nan = np.zeros(w.size, bool)
    else:
        u = UINT[w.dtype.itemsize]
        bits = w.dtype.itemsize * 8

        def order(x: np.ndarray) -> np.ndarray:
            b = x.view(u).astype(np.int64) if bits < 64 else x.view(np.int64)
            mag = b & ((1 << (bits - 1)) - 1)
            return np.where(b < 0, -mag, mag)

        wf, gf = w.astype(np.float64), g.astype(np.float64)
        nan = np.isnan(wf) ^ np.isnan(gf)
        both = np.isnan(wf) & np.isnan(gf)
        d = np.abs(order(w) - order(g)).astype(np.uint64)
        d[both | nan] = 0
    hist = [int(np.sum(~nan & (d == 0))), int(np.sum(d == 1))]
    hist += [int(np.sum((d >= 2) & (d <= 4))), int(np.sum((d >= 5) & (d <= 16))), int(np.sum(d > 16))]
    dmax = int(d.max()) if d.size else 0
    first = int(np.argmax(d)) if dmax else -1
    return dmax, first, int(d.astype(object).sum()), int(nan.sum()), hist


def check_found(found: kernels.CompareStats, want: np.ndarray, got: np.ndarray, threads: int) -> None:
    """``found`` is what the separate compare kernel finds, and what the oracle says
    (elements examined one by one may differ: the kernels' chunks start where the units do)."""
    name = spec_name(want.dtype)
    alone = kernels.run_compare(name, want.reshape(-1), got.reshape(-1), threads)
    assert found._replace(examined=0, buckets=found.buckets[1:]) == alone._replace(
        examined=0, buckets=alone.buckets[1:]
    )
    dmax, first, total, nan, hist = oracle(want, got)
    assert (found.max_ulp, found.ulp_sum, found.nan_mismatch) == (dmax, total, nan)
    if dmax:
        assert found.at_max == first
    examined_zero = found.buckets[0] + (want.size - found.examined)
    assert [examined_zero, *found.buckets[1:]] == hist


def gots(y: np.ndarray) -> list[np.ndarray]:
    """Compared arrays for the result ``y``: identical; equal largest distances far apart
    with every bucket filled; and (floats) with NaN mismatches."""
    n = y.size
    far = {11: 20, n // 2: 3, n - 7: 20, n // 3: 1, n // 4: 5, 2 * n // 3: 2}
    out = [y.copy(), moved(y, far)]
    if y.dtype.kind == "f" or y.dtype == ml_dtypes.bfloat16:
        nan = moved(y, far).reshape(-1)
        nan[[n - 5, n // 5 + 1]] = np.nan
        out.append(nan.reshape(y.shape))
    return out


@cache
def mean_case(shapes: tuple[tuple[int, ...], ...], dtype: str) -> tuple[list[np.ndarray], np.ndarray]:
    """Inputs of ``shapes`` and their exact Mean (computed once for every thread count)."""
    rng = np.random.default_rng(len(shapes))
    xs = [rng.uniform(1, 4, s).astype(np.dtype(dtype)) for s in shapes]
    return xs, exact_mean(xs)


@cache
def reduce_case(
    shape: tuple[int, ...], axes: tuple[int, ...], order: str, dtype: str
) -> tuple[np.ndarray, np.ndarray]:
    """An input of ``shape`` in ``order`` and its exact ReduceMean over ``axes`` (kept dims)."""
    rng = np.random.default_rng(len(shape))
    if np.dtype(dtype).kind in "iu":
        x = np.asarray(rng.integers(0, 100, shape), dtype=np.dtype(dtype), order=order)
    else:
        x = np.asarray(rng.uniform(1, 4, shape).astype(np.dtype(dtype)), order=order)
    return x, exact_reduce_mean(x, list(axes), keepdims=True)


MEAN_SHAPES = [
    pytest.param([(100, 1000)] * 3, id="units"),  # long rows: units of TILE outputs
    pytest.param([(50000, 3)] * 2, id="short-rows"),  # short rows: units of several rows
    pytest.param([(160, 900), (900,)], id="bias-row"),  # a broadcast row summed once
]


@pytest.fixture(params=["cached", "streamed"])
def stores(request: pytest.FixtureRequest) -> Iterator[str]:
    """The Mean's outputs written by cached stores, or streamed past the caches (every
    output, the threshold lowered: the kernel stages them, compares, streams them out)."""
    threshold = kernels.mean_stream_bytes()
    kernels.mean_stream_bytes(1 if request.param == "streamed" else 2**62)
    try:
        yield request.param
    finally:
        kernels.mean_stream_bytes(threshold)


@pytest.mark.parametrize("shapes", MEAN_SHAPES)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("threads", THREADS)
def test_mean_compared_as_written(
    shapes: list[tuple[int, ...]], dtype: Any, threads: int, stores: str
) -> None:
    xs, want = mean_case(tuple(shapes), np.dtype(dtype).name)
    shape = want.shape
    op = find_op("onnx:Mean:13")
    for got in gots(want):
        tally = Tally(shape, want.dtype, got, "got")
        result = execute_mean(op, shape, xs, threads, check=tally)
        assert tally.covered == want.size  # compared by the kernel, nothing left to finish
        assert same_bits(result, want)
        kernel = kernels.MeanKernel(spec_name(want.dtype), xs, shape, threads)
        out = np.empty(shape, want.dtype)
        found = kernel(xs, out, got)
        assert found is not None and same_bits(out, want)
        check_found(found, want, got, threads)
        assert repr(tally.finish(None)) == repr(compare(want, got, "got"))  # repr: NaN == NaN


REDUCE_CASES = [
    pytest.param((100000, 3), (-1,), "C", id="short-runs"),  # compared as written
    pytest.param((50000, 2, 3), (2,), "C", id="short-runs-rank3"),
    pytest.param((3, 100000), (0,), "C", id="rows"),  # compared after, in the same call
    pytest.param((100000, 3), (-1,), "F", id="short-runs-fortran"),  # outputs not a run: after
    pytest.param((300, 900), (1,), "C", id="long-runs"),
]


@pytest.mark.parametrize(("shape", "axes", "order"), REDUCE_CASES)
@pytest.mark.parametrize("dtype", [*FLOATS, np.int32, np.int64], ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("threads", THREADS)
def test_reduce_mean_compared_as_written(
    shape: tuple[int, ...], axes: tuple[int, ...], order: str, dtype: Any, threads: int
) -> None:
    x, want = reduce_case(shape, axes, order, np.dtype(dtype).name)
    op = find_op("onnx:ReduceMean:18")
    call = reduce_call(x.shape, tuple(a % x.ndim for a in axes), True, {})
    for got in gots(want):
        tally = Tally(want.shape, want.dtype, got, "got")
        result = execute_reduce(op, call, x, threads, check=tally)
        assert tally.covered == want.size
        assert same_bits(result, want)
        mask = [d in {a % x.ndim for a in axes} for d in range(x.ndim)]
        out = np.empty(want.shape, want.dtype)
        found = kernels.ReduceKernel(spec_name(x.dtype), x, mask, threads)(x, out, got)
        assert found is not None and same_bits(out, want)
        check_found(found, want, got, threads)
        assert repr(tally.finish(None)) == repr(compare(want, got, "got"))  # repr: NaN == NaN


def test_a_compared_array_the_kernel_cannot_read_is_compared_after() -> None:
    """A compared array in another byte order (a big-endian .npy) is not given to the
    kernel; finish compares it, with the same report."""
    x = np.random.default_rng(5).uniform(1, 4, (1000, 3)).astype(np.float32)
    want = exact_reduce_mean(x, [1], keepdims=True)
    got = moved(want, {4: 2, 900: 2}).astype(">f4")
    op = find_op("onnx:ReduceMean:18")
    tally = Tally(want.shape, want.dtype, got, "got")
    result = execute_reduce(op, reduce_call(x.shape, (1,), True, {}), x, 2, check=tally)
    assert tally.covered == 0
    c = tally.finish(result)
    assert (c.max_ulp, c.inexact, c.worst.at if c.worst else None) == (2, 2, (4, 0))
