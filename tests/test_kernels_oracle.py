"""The kernels, through the Python API, against exact oracles (tests/conftest.py).

Every operator version in the registry and every dtype its spec allows is a
parametrized case, so a new spec is tested with no new code. Hypothesis draws
shapes (rank 0..6, size-0 dims, one long dim), axes (omitted, empty, single,
non-adjacent, all, negative, unordered), keepdims, memory layouts (C, Fortran,
byte-swapped, strided, reversed, unaligned) and values (small integers,
normal, mixed magnitudes, subnormals, near the dtype's limits, NaN/inf).

Tolerances: none. Integers exactly; floats bit-equal to the exactly computed
mean rounded once to the dtype (signed zeros included, any NaN for NaN).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from conftest import (
    FLOAT_NAMES,
    SPEC_DTYPES,
    finfo,
    is_float,
    make_array,
    np_dtype,
    op_id,
    ops,
    ops_of_kind,
    opset_of,
)
from hypothesis import given
from hypothesis import strategies as st
from oracles import assert_float_close, exact_mean, exact_reduce_mean, round_rational, spec_name, ulp_distance

import meancli
from meancli.errors import SpecViolation
from meancli.ops.schema import OpVersion

REDUCE_OPS = ops_of_kind("reduce")
MEAN_OPS = ops_of_kind("elementwise_mean")
REDUCE_CASES = [pytest.param(op, t, id=f"{op_id(op)}-{t}") for op in REDUCE_OPS for t in op.types]
MEAN_CASES = [pytest.param(op, t, id=f"{op_id(op)}-{t}") for op in MEAN_OPS for t in op.types]
REDUCE_IDS = [pytest.param(op, id=op_id(op)) for op in REDUCE_OPS]
MEAN_IDS = [pytest.param(op, id=op_id(op)) for op in MEAN_OPS]

#: Cap on the elements of a hypothesis-drawn array (keeps the exact oracle fast).
MAX_ELEMENTS = 2000
LAYOUTS = ("C", "F", "byteswapped", "byteswapped-F", "strided", "reversed", "unaligned")


def test_registry_is_not_empty() -> None:
    assert len(REDUCE_CASES) >= 40 and len(MEAN_CASES) >= 13
    assert {op.kind for op in ops()} == {"reduce", "elementwise_mean"}


# --------------------------------------------------------------------------- helpers


def with_layout(x: np.ndarray, layout: str) -> np.ndarray:
    """An array equal to ``x`` with another memory layout or byte order."""
    if layout == "C":  # (np.ascontiguousarray would make a rank-0 array rank 1)
        return x.copy(order="C")
    if layout == "F":
        return x.copy(order="F")
    if layout.startswith("byteswapped"):
        y = x.astype(x.dtype.newbyteorder(">" if x.dtype.isnative else "<"))
        return y.copy(order="F") if layout.endswith("-F") else y
    if layout == "strided":
        y = np.zeros((*x.shape, 2), dtype=x.dtype)
        y[..., 1] = x
        return y[..., 1]
    if layout == "reversed":  # negative strides on every dim (size-1 dims included)
        if x.ndim == 0:
            return x
        flip = (slice(None, None, -1),) * x.ndim
        return np.ascontiguousarray(x[flip])[flip]
    if layout == "unaligned":
        buf = np.zeros(x.nbytes + 1, dtype=np.uint8)[1:]
        y = buf.view(x.dtype).reshape(x.shape)
        y[...] = x
        return y
    raise AssertionError(layout)


def check_result(got: np.ndarray, want: np.ndarray, context: str = "") -> None:
    """Integers exactly; floats bit-equal to ``want`` (the once-rounded exact
    mean): the same value, the same sign of zero, NaN where it is NaN."""
    assert isinstance(got, np.ndarray), type(got)
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype} {context}"
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape} {context}"
    if got.dtype.kind in "iu":
        assert np.array_equal(got, want), f"{context}: got {got}, want {want}"
        return
    assert_float_close(got, want, max_ulps=0, context=context)
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    zeros = w64 == 0
    assert np.array_equal(np.signbit(g64[zeros]), np.signbit(w64[zeros])), f"signed zero {context}"


def expected_reduced_axes(op: OpVersion, axes: list[int] | None, noop: bool) -> list[int] | str | None:
    """What the spec says to reduce: None (all), a list ([] is the identity), or "error"."""
    assert op.axes is not None
    if axes:
        return axes
    rule = op.axes.when_omitted if axes is None else op.axes.when_empty
    if rule == "noop_with_empty_axes":
        rule = "identity" if noop else "reduce_all"
    return {"reduce_all": None, "identity": [], "error": "error"}[rule]


def newest(kind: str, dtype_name: str, domain: str | None = "onnx") -> OpVersion:
    """The newest version of ``kind`` (in ``domain``, or any) that accepts ``dtype_name``."""
    found = [op for op in ops_of_kind(kind) if dtype_name in op.types and domain in (None, op.domain)]
    return max(found, key=lambda op: op.since_version)


def call_reduce(op: OpVersion, x: Any, **kw: Any) -> np.ndarray:
    return meancli.reduce_mean(x, opset=opset_of(op), **kw)


def call_mean(op: OpVersion, *xs: Any, **kw: Any) -> np.ndarray:
    return meancli.mean(*xs, opset=opset_of(op), **kw)


def reference_reduce(
    x: np.ndarray, op: OpVersion, axes: list[int] | None, keepdims: bool | None, noop: bool = False
) -> Any:
    """The expected result of ReduceMean on native ``x``, or SpecViolation."""
    red = expected_reduced_axes(op, axes, noop)
    if red == "error":
        return SpecViolation
    kd = op.keepdims.default if keepdims is None else keepdims
    try:
        return exact_reduce_mean(x, red, kd)
    except ZeroDivisionError:
        return SpecViolation


# --------------------------------------------------------------------------- strategies


@st.composite
def shapes(draw: st.DrawFn, max_rank: int = 6, max_dim: int = 5, cap: int = MAX_ELEMENTS) -> tuple[int, ...]:
    """Rank 0..max_rank, dims 0..max_dim, sometimes one dim 1..300; at most ``cap`` elements."""
    rank = draw(st.integers(0, max_rank))
    long_dim = draw(st.none() | st.integers(0, rank - 1)) if rank else None
    dims = [
        draw(st.integers(1, 300)) if i == long_dim else draw(st.integers(0, max_dim)) for i in range(rank)
    ]
    while math.prod(dims) > cap:
        j = max((i for i in range(rank) if i != long_dim), key=lambda i: dims[i], default=None)
        if j is None or dims[j] <= 1:
            assert long_dim is not None
            others = math.prod(d for i, d in enumerate(dims) if i != long_dim)
            dims[long_dim] = max(1, cap // others)
            break
        dims[j] -= 1
    return tuple(dims)


@st.composite
def axes_for(draw: st.DrawFn, rank: int) -> list[int] | None:
    """Omitted, explicitly empty, or a non-empty set of distinct axes in any order,
    each written positive or negative."""
    kind = draw(
        st.sampled_from(["omitted", "empty", "listed", "listed", "all"] if rank else ["omitted", "empty"])
    )
    if kind == "omitted":
        return None
    if kind == "empty":
        return []
    if kind == "all":
        chosen = draw(st.permutations(range(rank)))
    else:
        chosen = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    return [a - rank if draw(st.booleans()) else a for a in chosen]


# --------------------------------------------------------------------------- ReduceMean vs the oracle


@pytest.mark.parametrize(("op", "dtype_name"), REDUCE_CASES)
@given(data=st.data())
def test_reduce_mean_matches_oracle(op: OpVersion, dtype_name: str, data: st.DataObject) -> None:
    shape = data.draw(shapes(), label="shape")
    axes = data.draw(axes_for(len(shape)), label="axes")
    keepdims = data.draw(st.sampled_from([None, True, False]), label="keepdims")
    noop = data.draw(st.booleans(), label="noop") if op.attribute("noop_with_empty_axes") else False
    layout = data.draw(st.sampled_from(LAYOUTS), label="layout")
    specials = is_float(dtype_name) and data.draw(
        st.sampled_from([False, False, False, True]), label="specials"
    )
    threads = data.draw(st.sampled_from([None, 1, 3]), label="threads")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    x = make_array(dtype_name, shape, rng, specials=specials)
    arg = with_layout(x, layout)
    before = arg.tobytes()
    want = reference_reduce(x, op, axes, keepdims, noop)
    kw = {"axes": axes, "keepdims": keepdims, "threads": threads}
    if noop:
        kw["noop_with_empty_axes"] = True
    if want is SpecViolation:
        with pytest.raises(SpecViolation):
            call_reduce(op, arg, **kw)
        return
    got = call_reduce(op, arg, **kw)
    check_result(got, want, context=f"{op.label} {dtype_name} {shape} axes={axes} keepdims={keepdims}")
    assert got.dtype.isnative and got.flags.c_contiguous
    assert arg.tobytes() == before, "the input was modified"


# --------------------------------------------------------------------------- Mean vs the oracle


@st.composite
def mean_shapes(draw: st.DrawFn, broadcasting: bool) -> list[tuple[int, ...]]:
    """1..5 input shapes: equal, or (broadcasting) with leading dims dropped and dims set to 1."""
    base = draw(shapes(max_rank=5, max_dim=4, cap=600))
    n = draw(st.integers(1, 5))
    if not broadcasting:
        return [base] * n
    out = []
    for _ in range(n):
        drop = draw(st.integers(0, len(base)))
        out.append(tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in base[drop:]))
    return out


@pytest.mark.parametrize(("op", "dtype_name"), MEAN_CASES)
@given(data=st.data())
def test_mean_matches_oracle(op: OpVersion, dtype_name: str, data: st.DataObject) -> None:
    input_shapes = data.draw(mean_shapes(op.broadcasting == "multidirectional"), label="shapes")
    layouts = [data.draw(st.sampled_from(LAYOUTS), label="layout") for _ in input_shapes]
    specials = data.draw(st.sampled_from([False, False, False, True]), label="specials")
    threads = data.draw(st.sampled_from([None, 1, 3]), label="threads")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
    xs = [make_array(dtype_name, s, rng, specials=specials) for s in input_shapes]
    got = call_mean(op, *[with_layout(x, lay) for x, lay in zip(xs, layouts, strict=True)], threads=threads)
    check_result(got, exact_mean(xs), context=f"{op.label} {dtype_name} {input_shapes}")


# --------------------------------------------------------------------------- exactness in bulk


@pytest.mark.parametrize("dtype_name", FLOAT_NAMES)
def test_floats_are_correctly_rounded_always(dtype_name: str) -> None:
    """Every output is the exact mean rounded once (across value regimes)."""
    rng = np.random.default_rng(20240601)
    op = newest("reduce", dtype_name)
    differ = total = 0
    for _ in range(40):
        x = make_array(dtype_name, (int(rng.integers(1, 40)), 50), rng)
        got = call_reduce(op, x, axes=[0], keepdims=False)
        want = exact_reduce_mean(x, [0], False)
        fin = np.isfinite(want.astype(np.float64))
        assert_float_close(got, want, max_ulps=0)
        differ += int((ulp_distance(got[fin], want[fin]) > 0).sum())
        total += int(fin.sum())
    assert total > 1000
    assert differ == 0, f"{differ} of {total} outputs are not correctly rounded"


# --------------------------------------------------------------------------- spec rules from the registry


def test_registry_axes_rules_match_the_design() -> None:
    for op in REDUCE_OPS:
        assert op.axes is not None
        if op.domain == "onnx":
            assert op.keepdims.default is True
            rule = "noop_with_empty_axes" if op.since_version >= 18 else "reduce_all"
            assert (op.axes.when_omitted, op.axes.when_empty) == (rule, rule), op.label
            assert (op.attribute("noop_with_empty_axes") is not None) == (op.since_version >= 18)
        elif op.domain == "openvino":
            assert op.keepdims.default is False
            assert (op.axes.when_omitted, op.axes.when_empty) == ("error", "identity")
    for op in MEAN_OPS:
        assert op.broadcasting == ("multidirectional" if op.since_version >= 8 else "none"), op.label
        assert ("bfloat16" in op.types) == (op.since_version >= 13), op.label


@pytest.mark.parametrize("op", [*REDUCE_IDS, *MEAN_IDS])
def test_dtypes_outside_the_spec_are_rejected(op: OpVersion) -> None:
    rejected = [np_dtype(t) for t in SPEC_DTYPES if t not in op.types]
    rejected += [np.dtype(np.bool_), np.dtype(np.complex64)]
    for dtype in rejected:
        x = np.zeros((2, 3), dtype=dtype)
        with pytest.raises(SpecViolation, match=r"does not accept|accepts"):
            if op.kind == "reduce":
                call_reduce(op, x, axes=[0])
            else:
                call_mean(op, x, x)


@pytest.mark.parametrize("op", REDUCE_IDS)
def test_axes_errors(op: OpVersion) -> None:
    x = np.zeros((2, 3, 4), dtype=np.float32)
    for axes in ([3], [-4], [1, -2], [0, 0], [2, 1, 2]):
        with pytest.raises(SpecViolation):
            call_reduce(op, x, axes=axes)
    with pytest.raises(SpecViolation):
        call_reduce(op, np.float32(1.0), axes=[0])
    if op.attribute("noop_with_empty_axes") is None:
        with pytest.raises(SpecViolation):
            call_reduce(op, x, axes=[0], noop_with_empty_axes=True)


@pytest.mark.parametrize("op", REDUCE_IDS)
def test_rank0_and_keepdims_default(op: OpVersion) -> None:
    t = "float32"
    x = np.float32(2.5)
    axes = None if op.axes and op.axes.when_omitted != "error" else []
    got = call_reduce(op, x, axes=axes)
    assert got.shape == () and got.dtype == np.dtype(t) and got == np.float32(2.5)
    y = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = call_reduce(op, y, axes=[1])
    assert got.shape == ((2, 1) if op.keepdims.default else (2,))
    np.testing.assert_array_equal(got.ravel(), [1.0, 4.0])


def test_mixed_dtypes_are_rejected() -> None:
    for op in MEAN_OPS:
        with pytest.raises(SpecViolation):
            call_mean(op, np.zeros(3, np.float32), np.zeros(3, np.float64))


# --------------------------------------------------------------------------- empty sets and size-0 tensors


@pytest.mark.parametrize(("op", "dtype_name"), REDUCE_CASES)
def test_empty_reductions(op: OpVersion, dtype_name: str) -> None:
    x = np.zeros((0, 3), dtype=np_dtype(dtype_name))
    if is_float(dtype_name):
        got = call_reduce(op, x, axes=[0], keepdims=False)
        assert got.shape == (3,) and got.dtype == x.dtype
        assert np.isnan(got.astype(np.float64)).all()
        got = call_reduce(op, x, axes=[-2, 1], keepdims=True)
        assert got.shape == (1, 1) and np.isnan(got.astype(np.float64)).all()
    else:
        with pytest.raises(SpecViolation):
            call_reduce(op, x, axes=[0], keepdims=False)
        with pytest.raises(SpecViolation):
            call_reduce(op, x, axes=[0, 1])
    # the kept dim is the empty one: an empty output, no mean is taken
    got = call_reduce(op, x, axes=[1], keepdims=False)
    assert got.shape == (0,) and got.dtype == x.dtype
    got = call_reduce(op, x, axes=[1], keepdims=True)
    assert got.shape == (0, 1)


@pytest.mark.parametrize(("op", "dtype_name"), MEAN_CASES)
def test_mean_size0_and_shapes(op: OpVersion, dtype_name: str) -> None:
    dt = np_dtype(dtype_name)
    a, b = np.zeros((0, 3), dt), np.ones((3,), dt)
    c = np.arange(6).astype(dt).reshape(2, 3)
    assert call_mean(op, a, a.copy()).shape == (0, 3)
    if op.broadcasting == "multidirectional":
        got = call_mean(op, a, b)
        assert got.shape == (0, 3) and got.dtype == dt
        assert call_mean(op, a, np.ones((1, 1), dt)).shape == (0, 3)
        assert call_mean(op, np.ones((0, 1), dt), np.ones((1, 4), dt)).shape == (0, 4)
        with pytest.raises(SpecViolation):
            call_mean(op, a, c)  # 0 against 2
        x, y, z = np.ones((2, 1, 3), dt), np.arange(4).astype(dt).reshape(4, 1), np.array(8, dtype=dt)
        got = call_mean(op, x, y, z)
        assert got.shape == (2, 4, 3)
        check_result(got, exact_mean([x, y, z]))
        check_result(call_mean(op, c, b), exact_mean([c, b]))
    else:
        for other in (b, np.ones((1, 3), dt), np.ones((2, 1), dt), a):
            with pytest.raises(SpecViolation):
                call_mean(op, c, other)
    check_result(call_mean(op, c), c)
    with pytest.raises(SpecViolation):
        call_mean(op)


# --------------------------------------------------------------------------- high ranks


@pytest.mark.parametrize("rank", [32, 64])
@pytest.mark.parametrize(("op", "dtype_name"), REDUCE_CASES)
def test_high_rank_reduce(op: OpVersion, dtype_name: str, rank: int) -> None:
    rng = np.random.default_rng(rank)
    for _ in range(3):
        shape = [1] * rank
        for d in rng.choice(rank, size=4, replace=False):
            shape[int(d)] = 2
        x = make_array(dtype_name, shape, rng)
        k = int(rng.integers(1, 6))
        axes = [int(a) - (rank if rng.integers(2) else 0) for a in rng.choice(rank, size=k, replace=False)]
        for kd in (True, False):
            want = exact_reduce_mean(x, axes, kd)
            got = call_reduce(op, with_layout(x, "F" if kd else "C"), axes=axes, keepdims=kd)
            check_result(got, want)
        if op.axes is not None and op.axes.when_omitted == "reduce_all":
            check_result(call_reduce(op, x, keepdims=False), exact_reduce_mean(x, None, False))


@pytest.mark.parametrize(("op", "dtype_name"), MEAN_CASES)
def test_high_rank_mean(op: OpVersion, dtype_name: str) -> None:
    rng = np.random.default_rng(64)
    shape = [1] * 64
    for d in (0, 17, 40, 63):
        shape[d] = 2
    xs = [make_array(dtype_name, shape, rng) for _ in range(3)]
    if op.broadcasting == "multidirectional":
        small = list(shape)
        small[17] = 1
        xs.append(make_array(dtype_name, small[30:], rng))
    check_result(call_mean(op, *xs), exact_mean(xs))


# --------------------------------------------------------------------------- large reductions


def fsum_truth(x: np.ndarray, axes: Sequence[int] | None, keepdims: bool) -> np.ndarray:
    """The mean from a correctly rounded sum plus its correctly rounded residual
    (good to ~2**-106), rounded once -- fast enough for millions of elements."""
    rank = x.ndim
    red = list(range(rank)) if axes is None else sorted(a % rank for a in axes)
    kept = [d for d in range(rank) if d not in red]
    rows = np.transpose(x.astype(np.float64), kept + red).reshape(-1, math.prod(x.shape[d] for d in red))
    n = rows.shape[1]
    out = []
    for row in rows:
        s = math.fsum(row)
        r = math.fsum(np.append(row, -s))
        q = (Fraction(s) + Fraction(r)) / n
        out.append(round_rational(q.numerator, q.denominator, spec_name(x.dtype)))
    shape = (
        tuple(1 if d in red else x.shape[d] for d in range(rank))
        if keepdims
        else tuple(x.shape[d] for d in kept)
    )
    return np.array(out, dtype=x.dtype).reshape(shape)


@pytest.mark.slow
def test_one_million_float32() -> None:
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(10**6) * 2.0 ** rng.integers(-10, 10, 10**6) + 0.1).astype(np.float32)
    want = np.float32(math.fsum(x.astype(np.float64)) / x.size)
    for op in (op for op in REDUCE_OPS if "float32" in op.types):
        axes = None if op.axes and op.axes.when_omitted != "error" else [0]
        got = call_reduce(op, x, axes=axes, keepdims=False)
        assert got.shape == () and got.dtype == np.float32
        assert ulp_distance(got.reshape(1), want.reshape(1))[0] <= 1, (got, want)


# Shapes that cross the kernels' fixed chunk sizes (32768 elements per chunk,
# 1024 rows per row chunk, 512-column tiles) and switch between their paths
# (many or few outputs, reduced or kept inner dimension, threads on or off).
CHUNKY = [
    ((2, 32769), [1]),
    ((3, 300_001), [1]),
    ((1025, 513), [0]),
    ((300_001, 3), [0]),
    ((300, 1000), [0]),
    ((40, 1025, 17), [0, 2]),
    ((17, 3, 4099), [0, 2]),
    ((65537,), [0]),
]


@pytest.mark.parametrize(
    "dtype_name", ["float16", "bfloat16", "float32", "float64", "int64", "uint64", "int32"]
)
@pytest.mark.parametrize(("shape", "axes"), CHUNKY, ids=[f"{s}-{a}" for s, a in CHUNKY])
def test_chunk_boundaries(shape: tuple[int, ...], axes: list[int], dtype_name: str) -> None:
    rng = np.random.default_rng(math.prod(shape))
    x = make_array(dtype_name, shape, rng, extremes=dtype_name.startswith(("int", "uint")))
    op = newest("reduce", dtype_name)
    want = fsum_truth(x, axes, False) if is_float(dtype_name) else exact_reduce_mean(x, axes, False)
    for layout, threads in (("C", 1), ("F", 4)):
        got = call_reduce(op, with_layout(x, layout), axes=axes, keepdims=False, threads=threads)
        check_result(got, want, context=layout)


# --------------------------------------------------------------------------- threads


THREAD_PATTERNS = {"all": [0, 1, 2], "last": [2], "first": [0], "middle": [1]}


@pytest.mark.parametrize("dtype_name", [*FLOAT_NAMES, "int64"])
def test_threads_bit_identical(dtype_name: str) -> None:
    rng = np.random.default_rng(3)
    dt = np_dtype(dtype_name)
    if is_float(dtype_name):
        v = rng.standard_normal(3 * 10**6) * 2.0 ** rng.integers(-12, 12, 3 * 10**6)
        x = v.astype(dt).reshape(30, 100, 1000)
    else:
        x = make_array(dtype_name, (30, 100, 1000), rng)
    op = newest("reduce", dtype_name)
    for name, axes in THREAD_PATTERNS.items():
        for arr in (x, np.asfortranarray(x)) if name == "middle" else (x,):
            results = [call_reduce(op, arr, axes=axes, threads=t) for t in (1, 2, 8, 8)]
            for t, r in zip((2, 8, 8), results[1:], strict=True):
                assert r.tobytes() == results[0].tobytes(), f"{name} axes {axes}: threads=1 vs {t} differ"
        if name == "all" and is_float(dtype_name):
            check_result(results[0].reshape(()), fsum_truth(x, None, False))
    # few outputs, many chunks: the partial-sum paths
    for shape, axes in (((3, 10**6), [1]), ((10**6, 3), [0])):
        y = x.reshape(-1)[: math.prod(shape)].reshape(shape)
        results = [call_reduce(op, y, axes=axes, threads=t).tobytes() for t in (1, 2, 8)]
        assert results[0] == results[1] == results[2], f"{shape} axes {axes}"


@pytest.mark.parametrize("dtype_name", FLOAT_NAMES)
def test_mean_threads_bit_identical(dtype_name: str) -> None:
    rng = np.random.default_rng(4)
    op = newest("elementwise_mean", dtype_name)
    xs = [
        make_array(dtype_name, s, rng, extremes=False)
        for s in ((1000, 1000), (1000,), (1000, 1), (1000, 1000))
    ]
    results = [call_mean(op, *xs, threads=t).tobytes() for t in (1, 2, 8)]
    assert results[0] == results[1] == results[2]


# --------------------------------------------------------------------------- values at the limits


def _ops_with(dtype_name: str, kind: str = "reduce") -> list[OpVersion]:
    return [op for op in ops_of_kind(kind) if dtype_name in op.types]


def _reduce_all(op: OpVersion, x: np.ndarray, **kw: Any) -> np.ndarray:
    axes = list(range(x.ndim)) if op.axes and op.axes.when_omitted == "error" else None
    return call_reduce(op, x, axes=axes, keepdims=False, **kw)


@pytest.mark.parametrize("op", [pytest.param(op, id=op_id(op)) for op in _ops_with("float16")])
def test_float16_accumulates_wider(op: OpVersion) -> None:
    x = np.full(1000, 60000, dtype=np.float16)
    assert _reduce_all(op, x) == np.float16(60000)
    assert _reduce_all(op, -x) == np.float16(-60000)
    big = np.full((1000, 3), np.finfo(np.float16).max, dtype=np.float16)
    np.testing.assert_array_equal(call_reduce(op, big, axes=[0], keepdims=False), big[0])
    np.testing.assert_array_equal(call_reduce(op, np.asfortranarray(big), axes=[-2], keepdims=False), big[0])


@pytest.mark.parametrize(
    "op", [pytest.param(op, id=op_id(op)) for op in _ops_with("float16", "elementwise_mean")]
)
def test_float16_mean_accumulates_wider(op: OpVersion) -> None:
    x = np.full((4, 5), 60000, dtype=np.float16)
    np.testing.assert_array_equal(call_mean(op, x, x, x), x)
    np.testing.assert_array_equal(call_mean(op, x, -x, x), np.full((4, 5), 20000, np.float16))


@pytest.mark.parametrize("dtype_name", ["bfloat16", "float32"])
def test_near_max_does_not_overflow(dtype_name: str) -> None:
    dt = np_dtype(dtype_name)
    values = [np.array(3e38).astype(dt), np.array(finfo(dt).max).astype(dt)]
    for op in _ops_with(dtype_name):
        for v in values:
            x = np.full((1000, 2), v, dtype=dt)
            got = _reduce_all(op, x)
            assert got == v, (op.label, got, v)
            assert call_reduce(op, x, axes=[0], keepdims=False).tolist() == [v, v]
    for op in _ops_with(dtype_name, "elementwise_mean"):
        for v in values:
            x = np.full(7, v, dtype=dt)
            np.testing.assert_array_equal(call_mean(op, x, x, x), x)


def test_float64_large_but_safe_values() -> None:
    for op in _ops_with("float64"):
        x = np.full(1000, 1e299)
        assert _reduce_all(op, x) == 1e299
        assert _reduce_all(op, np.array([1e299, -1e299, 3e299])) == 1e299


@pytest.mark.parametrize("values", [[1e301, 1e301], [-1.5e300, -1.5e300], [1.7e308]], ids=str)
def test_float64_huge_values(values: list[float]) -> None:
    """The mean of equal values v is v (no sum overflows here). Regression: means
    above ~2**996 were NaN (dd_div's Dekker split overflowed), every version."""
    bad = []
    x = np.array(values)
    for op in _ops_with("float64"):
        got = float(_reduce_all(op, x))
        if got != values[0]:
            bad.append(f"{op.label}: {got}")
    for op in _ops_with("float64", "elementwise_mean"):
        got = float(call_mean(op, *x))
        if got != values[0]:
            bad.append(f"{op.label}: {got}")
    assert not bad, bad


@pytest.mark.parametrize("op", REDUCE_IDS)
def test_negative_stride_on_size1_dim(op: OpVersion) -> None:
    """numpy's relaxed strides flag np.arange(3.)[::-1][0:1] (shape (1,), strides (-8,))
    as C- and F-contiguous. Regression: such input reached the kernel unchanged and
    failed its stride check with InternalError."""
    x = np.arange(3.0)[::-1][0:1]
    assert x.flags.c_contiguous and x.strides[0] < 0
    assert _reduce_all(op, x) == 2.0
    y = np.arange(12.0).reshape(3, 4)[::-1][0:1]  # shape (1, 4), strides (-32, 8)
    np.testing.assert_array_equal(call_reduce(op, y, axes=[1], keepdims=False), [9.5])


INT_NAMES = [t for t in SPEC_DTYPES if not is_float(t)]


@pytest.mark.parametrize("dtype_name", INT_NAMES)
def test_integer_limits_exact(dtype_name: str) -> None:
    dt = np_dtype(dtype_name)
    info = np.iinfo(dt)
    lo, hi = int(info.min), int(info.max)
    cases: list[tuple[list[int], int]] = [
        ([hi] * 1000, hi),
        ([lo] * 1000, lo),
        ([hi, hi - 1], hi - 1),  # hi - 0.5 truncates toward zero
        ([hi] * 999 + [hi - 1], hi - 1),
    ]
    if lo < 0:
        cases += [
            ([lo, lo + 1], lo + 1),  # lo + 0.5: toward zero, not floor
            ([hi, lo], 0),  # -0.5 -> 0
            ([-3, 0], -1),  # -1.5 -> -1
            ([-7, -7, -7, 0], -5),  # -5.25 -> -5
            ([lo] * 500 + [hi] * 500, 0),  # -0.5 -> 0, with a sum far beyond 64 bits when n grows
        ]
    ops_here = _ops_with(dtype_name)
    if not ops_here:
        pytest.skip(f"no operator version accepts {dtype_name}")
    for values, expected in cases:
        x = np.array(values, dtype=dt)
        assert int(exact_reduce_mean(x, None, False)) == expected
        for op in ops_here:
            got = _reduce_all(op, x)
            assert got.dtype == dt and int(got) == expected, (op.label, values[:4], int(got), expected)
            got = call_reduce(op, np.stack([x, x[::-1]], axis=1), axes=[0], keepdims=False)
            assert [int(v) for v in got] == [expected, expected], (op.label, got)


@pytest.mark.slow
@pytest.mark.parametrize("dtype_name", ["int64", "uint64"])
def test_one_million_64bit_integers_near_limits(dtype_name: str) -> None:
    rng = np.random.default_rng(7)
    dt = np_dtype(dtype_name)
    info = np.iinfo(dt)
    x = rng.integers(int(info.max) - 10**6, int(info.max), 10**6, endpoint=True, dtype=dt)
    if dtype_name == "int64":
        x[::3] = rng.integers(int(info.min), int(info.min) + 10**6, x[::3].size, dtype=dt)
    x = x.reshape(1000, 1000)
    op = newest("reduce", dtype_name, domain=None)
    for axes in (None, [0], [1]):
        want = exact_reduce_mean(x, axes, False)
        for threads in (1, 2):
            check_result(call_reduce(op, x, axes=axes, keepdims=False, threads=threads), want)


@pytest.mark.parametrize("dtype_name", FLOAT_NAMES)
def test_nan_and_inf_propagate(dtype_name: str) -> None:
    dt = np_dtype(dtype_name)
    x = np.array(
        [
            [1.0, np.nan, 2.0],
            [np.inf, 1.0, 2.0],
            [np.inf, -np.inf, 0.0],
            [-np.inf, 5.0, -np.inf],
            [1.0, 2.0, 4.5],
        ]
    ).astype(dt)
    want = [np.nan, np.inf, np.nan, -np.inf, 2.5]
    for op in _ops_with(dtype_name):
        got = call_reduce(op, x, axes=[1], keepdims=False).astype(np.float64)
        np.testing.assert_array_equal(got, want, err_msg=op.label)
        got = call_reduce(op, np.asfortranarray(x.T), axes=[0], keepdims=False).astype(np.float64)
        np.testing.assert_array_equal(got, want, err_msg=op.label)
    for op in _ops_with(dtype_name, "elementwise_mean"):
        got = call_mean(op, *np.asfortranarray(x.T)).astype(np.float64)
        np.testing.assert_array_equal(got, want, err_msg=op.label)
