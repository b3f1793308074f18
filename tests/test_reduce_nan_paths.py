"""ReduceMean on data with NaN and infinities, with and without skipna, on
every path the reduction kernels have (issue 28): inner-axis runs, outer-axis
columns, middle axes, reduce-all; every float dtype; 1 and 2 threads; every
instruction set; whole in memory, fed in slabs (the streamed engine's job),
and as exact partial states combined. Judged bit for bit, sign of zero
included, against the exact rational oracle (tests/oracles.py).

The kernels read a block holding an inf or NaN through a copy with those as
-0.0 and their flags (or, skipna, their count) into the exact state, and
skipna reads every run and group of rows through such a copy
(templates/kernel_exact.c.j2 clean_block, kernel_reduce.c.j2 "skipna")."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import oracles
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import same_bits

import meancli
from meancli import kernels

FLOATS = ("float16", "bfloat16", "float32", "float64")


def make(name: str, shape: tuple[int, ...], seed: int, mix: dict[str, float]) -> np.ndarray:
    """Values of ``name``: wide magnitudes and small integers (cancellation,
    ties), then, with the probabilities of ``mix``, NaN (random payloads and
    signs), +-inf, +-0.0, subnormals and the largest finite values."""
    rng = np.random.default_rng(seed)
    dt = oracles.DTYPES[name]
    size = int(np.prod(shape))
    fi = ml_dtypes.finfo(dt) if name == "bfloat16" else np.finfo(dt)
    e = 14 if name == "float16" else 30
    v = rng.standard_normal(size) * 2.0 ** rng.integers(-e, e, size)
    small = rng.random(size) < 0.3
    v[small] = rng.integers(-4, 5, int(small.sum()))
    x = v.astype(dt)
    u = oracles.UINT[dt.itemsize]
    bits = x.view(u)

    def pick(key: str) -> np.ndarray:
        return rng.random(size) < mix.get(key, 0.0)

    m = pick("zero")
    bits[m] = np.where(rng.random(int(m.sum())) < 0.5, 0, bits.dtype.type(1) << (8 * dt.itemsize - 1))
    m = pick("sub")
    x[m] = (rng.integers(-3, 4, int(m.sum())) * float(fi.smallest_subnormal)).astype(dt)
    m = pick("huge")
    x[m] = (np.where(rng.random(int(m.sum())) < 0.5, 1.0, -1.0) * float(fi.max)).astype(dt)
    m = pick("inf")
    x[m] = np.where(rng.random(int(m.sum())) < 0.5, np.inf, -np.inf).astype(dt)
    m = pick("nan")
    bits[m] = np.array(oracles.NAN_BITS[name], dtype=u)[
        rng.integers(0, len(oracles.NAN_BITS[name]), int(m.sum()))
    ]
    return x.reshape(shape)


MIXES = [
    {"nan": 0.01},
    {"nan": 0.3, "zero": 0.2},
    {"nan": 1.0},
    {"inf": 0.01},
    {"nan": 0.02, "inf": 0.02, "zero": 0.1, "sub": 0.1},
    {"zero": 0.9, "nan": 0.05},  # only zeros left: the sign of zero
    {"huge": 0.05, "nan": 0.05},
    {"sub": 0.5, "nan": 0.01, "inf": 0.001},
    {},
]


@st.composite
def cases(draw: Any) -> tuple[str, np.ndarray, tuple[int, ...] | None, bool]:
    name = draw(st.sampled_from(FLOATS))
    kind = draw(st.sampled_from(["inner", "outer", "middle", "all", "any", "long", "rows"]))
    if kind == "rows":  # many blocks of rows (the vector row kernels: 8 columns or more)
        shape: tuple[int, ...] = (draw(st.integers(300, 2000)), draw(st.integers(1, 70)))
        axes: tuple[int, ...] | None = (0,)
    elif kind == "long":  # runs longer than a block and a skipna copy
        shape = (draw(st.integers(1, 3)), draw(st.integers(5000, 20000)))
        axes = draw(st.sampled_from([(1,), None, (0,)]))
    else:
        rank = draw(st.integers(1, 4))
        shape = tuple(draw(st.lists(st.integers(1, 40), min_size=rank, max_size=rank)))
        while int(np.prod(shape)) > 6000:
            shape = tuple(max(1, d // 2) for d in shape)
        if kind == "inner":
            axes = (rank - 1,)
        elif kind == "outer":
            axes = (0,)
        elif kind == "middle":
            axes = (rank // 2,)
        elif kind == "all":
            axes = None
        else:
            axes = tuple(sorted(draw(st.sets(st.integers(0, rank - 1), min_size=1))))
    mix = draw(st.sampled_from(MIXES))
    x = make(name, shape, draw(st.integers(0, 2**32 - 1)), mix)
    return name, x, axes, draw(st.booleans())


def _slabs(x: np.ndarray, mask: list[bool], skipna: bool, states: bool, threads: int, cut: int) -> np.ndarray:
    """The reduction fed in slabs of about ``cut`` rows of the job's outermost dim."""
    shape = tuple(1 if m else n for n, m in zip(x.shape, mask, strict=True))
    out = np.empty(shape, dtype=kernels.partial_dtype(oracles.spec_name(x.dtype)) if states else x.dtype)
    with kernels.ReduceJob(
        oracles.spec_name(x.dtype), x.shape, x.strides, mask, skipna=skipna, states=states
    ) as job:
        d0, rows, _, granule = job.info()
        step = max(granule, (cut + granule - 1) // granule * granule)
        for a in range(0, rows, step):
            b = min(rows, a + step)
            index = [slice(None)] * x.ndim
            if d0 >= 0:
                index[d0] = slice(a, b)
            job.step(x[tuple(index)], a, b, out, threads)
        job.end(out)
    return out


@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture]
)  # the ISA is the same for every example
@given(case=cases(), threads=st.sampled_from([1, 2]), layout=st.sampled_from(["C", "F", "strided"]))
def test_in_memory_every_layout(isa: str, case: Any, threads: int, layout: str) -> None:
    name, x, axes, keepdims = case
    data = oracles.with_layout(x, layout)
    for skipna in (False, True):
        want = oracles.exact_reduce_mean(x, axes, keepdims, skipna=skipna)
        got = meancli.reduce_mean(data, axes, keepdims, skipna=skipna, threads=threads)
        assert same_bits(got, want), (isa, name, x.shape, axes, skipna, threads, layout)


@given(case=cases(), threads=st.sampled_from([1, 2]), cut=st.integers(1, 9))
def test_streamed_in_slabs_and_partial_states(case: Any, threads: int, cut: int) -> None:
    name, x, axes, _ = case
    red = tuple(range(x.ndim)) if axes is None else axes
    mask = [d in red for d in range(x.ndim)]
    for skipna in (False, True):
        want = oracles.exact_reduce_mean(x, red, True, skipna=skipna)
        got = _slabs(x, mask, skipna, False, threads, cut)
        assert same_bits(got, want), ("slabs", name, x.shape, red, skipna, cut)
        # exact partial states of parts along axis 0, combined (the dask engine's path)
        if 0 in red and x.shape[0] > 1 and skipna:
            cuts = sorted({1 + (cut * k) % (x.shape[0] - 1) for k in range(1, 3)})
            parts = np.split(x, cuts, axis=0)
            states = np.concatenate(
                [kernels.reduce_partial(p, red, threads=threads, skipna=True) for p in parts]
            )
            got = kernels.finalize_partials(kernels.combine_partials(states, red, name), name)
            assert same_bits(got, want), ("states", name, x.shape, red, cuts)
            # and streamed states of the whole: the same as the combined parts
            whole = _slabs(x, mask, True, True, threads, cut)
            assert same_bits(kernels.finalize_partials(whole, name), want)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize(
    ("shape", "axes"),
    [
        ((3, 9000), (1,)),
        ((9000, 3), (0,)),
        ((3000, 64), (0,)),
        ((1500, 130), (0,)),
        ((40, 30, 20), (1,)),
        ((9000,), None),
    ],
)
def test_nan_in_every_block_both_ways(name: str, shape: tuple[int, ...], axes: Any) -> None:
    """1% NaN (every block holds some) and an output whose only finite values
    are -0.0, one with +inf and -inf, one with only +inf besides NaN."""
    x = make(name, shape, 11, {"nan": 0.01})
    flat = np.moveaxis(x, 0 if axes == (0,) else -1, -1).reshape(-1, shape[0] if axes == (0,) else shape[-1])
    if flat.shape[0] >= 3 and axes is not None:
        flat[0] = -0.0
        flat[0, ::7] = np.nan
        flat[1, 5], flat[1, 9] = np.inf, -np.inf
        flat[2, ::3] = np.inf
        flat[2, 1::3] = np.nan
        x = np.moveaxis(
            flat.reshape(np.moveaxis(x, 0 if axes == (0,) else -1, -1).shape), -1, 0 if axes == (0,) else -1
        )
    for threads in (1, 2):
        for skipna in (False, True):
            want = oracles.exact_reduce_mean(x, axes, False, skipna=skipna)
            got = meancli.reduce_mean(np.ascontiguousarray(x), axes, False, skipna=skipna, threads=threads)
            assert same_bits(got, want), (threads, skipna)


def test_a_nan_does_not_lose_the_units_largest_value(isa: str) -> None:
    """Hypothesis found it on an AVX2-only CPU: float64 short runs (3 runs of 14), the
    third holding NaN. The vector maximum of |x| over the unit gave the NaN its lane
    (the instruction returns its second operand where either is NaN), the next value
    replaced it, and 25001045.2 was lost: the unit's sigma was too small and run 0's
    mean came out 1 ulp low (1823927.4742857262, exact 1823927.4742857264)."""
    big = [-0.0, 0.0, 1.69410251e-07, 0.0, 0.0, 25001045.2, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -0.0]
    x = np.array(
        [
            [*big, 533939.44],
            [0.0, 0.0, 0.0, -0.0, -0.0, -0.0, -0.0, 0.0, -0.0, -0.0, -0.0, 0.0, -0.0, 0.0963289096],
            [np.nan, 0.0, -0.0, 0.0, -0.0, np.nan, np.nan, -0.0, 0.0, 0.0, 0.0, np.nan, -0.0, -2.0],
        ]
    )
    for rows in ([0, 1, 2], [0, 2], [2, 0], [2, 1, 0, 2, 0]):
        data = x[rows]
        want = oracles.exact_reduce_mean(data, (1,), True)
        assert same_bits(meancli.reduce_mean(data, [1], True), want), (isa, rows)
        assert same_bits(meancli.reduce_mean(data.T, [0], True), want.T), (isa, rows)
