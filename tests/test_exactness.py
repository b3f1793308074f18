"""Exactness: meancli's results against the exact mean (docs/semantics.md).

The truth is tests/oracles.py's: every float is an integer multiple of
2**-1074, so sums are exact Python integers; the mean is that sum over the
count, rounded once to the output dtype (floats) or truncated toward zero
(integers).
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import oracles
import pytest
from conftest import Result, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import BF16, DTYPES, Groups

import meancli

FLOATS = ("float16", "bfloat16", "float32", "float64")
RNG_SEED = 20240607


def rows(x: np.ndarray, axis: int | None) -> Groups:
    """The reduction groups of ``x`` over ``axis`` (None: all)."""
    if axis is None:
        return Groups(x.reshape(1, -1), ())
    moved = np.moveaxis(x, axis, -1)
    return Groups(np.ascontiguousarray(moved).reshape(-1, x.shape[axis]), moved.shape[:-1])


def exact(x: np.ndarray, axis: int | None = None) -> oracles.Truth:
    return oracles.exact_truth(oracles.spec_name(x.dtype), rows(x, axis))


def rmean(x: np.ndarray, axis: int | None = None, **kw: Any) -> np.ndarray:
    """meancli's ReduceMean over ``axis`` (None: all) without kept dims."""
    return meancli.reduce_mean(x, axes=None if axis is None else [axis], keepdims=False, **kw)


def error(value: float, sum_scaled: int, n: int) -> Fraction:
    """|value - exact mean| exactly."""
    return abs(Fraction(value) - Fraction(sum_scaled, n << oracles.SHIFT))


# --------------------------------------------------------------------------- float32


def float32_cases(rng: np.random.Generator) -> list[tuple[np.ndarray, int | None]]:
    """Random float32 reductions: several distributions, sizes 1..4000, reduce all or one axis."""
    cases: list[tuple[np.ndarray, int | None]] = []
    for i in range(240):
        n = int(rng.integers(1, 4000))
        kind = i % 6
        if kind == 0:
            v = rng.random(n)
        elif kind == 1:
            v = rng.standard_normal(n)
        elif kind == 2:  # magnitudes over 20 decades, mixed signs
            v = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-10, 10, n)
        elif kind == 3:  # heavy cancellation
            v = rng.standard_normal(n) * 1e6
            v = np.concatenate([v, -v[: n // 2] * (1 + 1e-7)])
        elif kind == 4:  # near float32's top
            v = rng.uniform(-3.4e38, 3.4e38, n)
        else:  # a large offset: naive float32 sums lose the low bits
            v = 1e4 + rng.random(n)
        x = v.astype(np.float32)
        if i % 3 == 0 and x.size >= 12:
            m = x.size // 4 * 4
            cases.append((x[:m].reshape(4, -1), int(rng.integers(0, 2))))
        else:
            cases.append((x, None))
    return cases


def test_float32_correctly_rounded_always() -> None:
    rng = np.random.default_rng(RNG_SEED)
    total = rounded = 0
    for x, axis in float32_cases(rng):
        truth = exact(x, axis)
        got = rmean(x, axis).ravel()
        want = truth.value.ravel()
        with np.errstate(all="ignore"):
            theirs = np.mean(x, axis=axis).ravel()  # numpy: pairwise summation in float32
        assert truth.sums is not None
        for i in range(got.size):
            total += 1
            rounded += bool(got[i] == want[i])
            mine_err = error(float(got[i]), truth.sums[i], truth.n)
            if np.isfinite(theirs[i]):
                assert mine_err <= error(float(theirs[i]), truth.sums[i], truth.n), (x, axis, i)
    assert total > 1000
    assert rounded == total, f"{total - rounded} of {total} not correctly rounded"


@pytest.mark.slow
@pytest.mark.parametrize("layout", ["all", "inner", "rows"])
def test_float32_ten_million(layout: str) -> None:
    """10**7 float32 values near 1: a naive float32 running sum is off by hundreds of
    ulps of the mean; meancli's mean is correctly rounded, whichever kernel path."""
    rng = np.random.default_rng(RNG_SEED + 1)
    x = (1.0 + rng.random(10**7)).astype(np.float32)
    if layout == "all":
        arr, axis = x, None
    elif layout == "inner":
        arr, axis = x.reshape(2, -1), 1  # two contiguous runs of 5e6
    else:
        arr, axis = x.reshape(-1, 2), 0  # reduce the outer axis, keep the inner one
    truth = exact(arr, axis)
    got = rmean(arr, axis).ravel()
    assert np.array_equal(got, truth.value.ravel())
    # the naive float32 running sum is far off; numpy's pairwise sum is no closer than meancli
    assert truth.sums is not None
    naive = np.cumsum(x, dtype=np.float32)[-1] / np.float32(x.size)
    ulp = oracles.ulp("float32", float(naive))
    if layout == "all":
        assert error(float(naive), truth.sums[0], truth.n) > 100 * Fraction(ulp)
        assert error(float(got[0]), truth.sums[0], truth.n) <= error(
            float(np.mean(x)), truth.sums[0], truth.n
        )


# --------------------------------------------------------------------------- float64


def test_float64_correctly_rounded_always() -> None:
    rng = np.random.default_rng(RNG_SEED + 2)
    wrong = []
    for i in range(300):
        n = int(rng.integers(1, 3000))
        v = rng.standard_normal(n) * 10.0 ** rng.integers(-8, 8, n)
        if i % 2:
            v = np.concatenate([v, -v[: n // 2] * (1 + 1e-12)])
        x = rng.permutation(v)
        truth = exact(x)
        got = rmean(x)
        if got.tobytes() != truth.value.tobytes():
            wrong.append((i, float(got), float(truth.value)))
    assert not wrong


@pytest.mark.slow
def test_float64_million_correctly_rounded() -> None:
    rng = np.random.default_rng(RNG_SEED + 3)
    x = rng.standard_normal((4, 250_000)) * 1e3 + 1e-3
    truth = exact(x, 1)
    assert np.array_equal(rmean(x, 1), truth.value)


def test_float64_huge_values() -> None:
    x = np.array([2.0**1000, 2.0**1000, 2.0**999])
    assert rmean(x).item() == 2.0**1000 * 5 / 6
    # the sum leaves float64's range, the mean does not
    y = np.array([1e308, 1e308, -1e308])
    assert rmean(y).item() == 3.3333333333333333e307


# --------------------------------------------------------------------------- kernel paths

# Shapes that cross the kernels' fixed boundaries (32768-element chunks, 1024-row
# chunks, 512-column tiles, the 262144-element parallel threshold), reduced over
# inner, outer, middle and mixed axes, in C order on 2 threads and Fortran order on 1.
KERNEL_PATHS = [
    ((70_001,), (0,)),
    ((3, 100_003), (1,)),
    ((100_003, 3), (0,)),
    ((2049, 1300), (0,)),
    ((1300, 2049), (1,)),
    ((33, 515, 40), (0, 2)),
    ((40, 515, 33), (1,)),
    ((7, 9000, 11), (1,)),
    ((520, 3, 700), (0,)),
]


@pytest.mark.parametrize(("shape", "axes"), KERNEL_PATHS, ids=lambda v: str(v))
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int64"])
def test_kernel_paths_exact(shape: tuple[int, ...], axes: tuple[int, ...], dtype: str) -> None:
    rng = np.random.default_rng([RNG_SEED, math.prod(shape), len(dtype)])
    if dtype == "int64":
        x = rng.integers(-(2**63), 2**63 - 1, size=shape, dtype=np.int64, endpoint=True)
    else:
        x = (rng.standard_normal(shape) * 1e3 + 7).astype(DTYPES[dtype])
    for layout, threads in (("C", 2), ("F", 1)):  # test_bit_identical_* covers the other pairings
        case = oracles.Case("onnx", "ReduceMean", 18, dtype, (oracles.with_layout(x, layout),), axes=axes)
        result = oracles.evaluate(case, impls=(), threads=threads)
        assert result.meancli_ok, result.failures()


def test_mean_kernel_paths_exact() -> None:
    """Many inputs, wide rows, broadcast inner and outer dims, Fortran order."""
    rng = np.random.default_rng(RNG_SEED + 11)
    a = rng.standard_normal((90, 1100)).astype(np.float32)
    b = rng.standard_normal((1, 1100)).astype(np.float32) * 1e6
    c = np.asfortranarray(rng.standard_normal((90, 1)).astype(np.float32))
    many = [rng.standard_normal(1030).astype(np.float16) * 100 for _ in range(150)]
    for inputs in ((a, b, c), (c, a), tuple(many), (np.asfortranarray(a), a[::-1], b)):
        dtype = oracles.spec_name(inputs[0].dtype)
        for threads in (1, 2):
            case = oracles.Case("onnx", "Mean", 13, dtype, inputs)
            result = oracles.evaluate(case, impls=(), threads=threads)
            assert result.meancli_ok, result.failures()


# --------------------------------------------------------------------------- float16, bfloat16


def test_float16_does_not_overflow() -> None:
    x = np.full(1000, 60000.0, dtype=np.float16)
    assert rmean(x).tolist() == 60000.0
    assert meancli.mean(*[np.array([60000.0], np.float16)] * 1000).tolist() == [60000.0]
    y = np.concatenate([x, -x[:500]])  # sum 3e7, mean 20000
    assert rmean(y).item() == float(np.float16(20000.0))


def test_bfloat16_near_the_top() -> None:
    rng = np.random.default_rng(RNG_SEED + 4)
    for _ in range(50):
        x = rng.uniform(2.9e38, 3.38e38, int(rng.integers(2, 300))).astype(BF16)
        truth = exact(x)
        got = rmean(x)
        assert got.dtype == BF16
        assert got.item() == truth.value.item()
        assert np.isfinite(float(got.item()))
    a = np.array([3e38, 3.3e38], BF16)
    b = np.array([3.3e38, 3e38], BF16)
    want = exact(np.stack([a, b]), 0).value
    assert np.array_equal(meancli.mean(a, b), want)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_types_correctly_rounded(dtype: str) -> None:
    rng = np.random.default_rng(RNG_SEED + 5)
    total = rounded = 0
    for i in range(200):
        n = int(rng.integers(1, 2000))
        scale = 1e3 if dtype == "float16" else 1e30
        x = (rng.standard_normal(n) * scale * (10.0 ** rng.integers(-3, 1))).astype(DTYPES[dtype])
        if i % 2:
            x = x[: x.size // 3 * 3].reshape(3, -1) if x.size >= 3 else x
        axis = 1 if x.ndim == 2 else None
        truth = exact(x, axis)
        got = rmean(x, axis).ravel()
        total += got.size
        rounded += int(np.sum(got.astype(np.float64) == truth.value.ravel().astype(np.float64)))
    assert rounded == total


# --------------------------------------------------------------------------- integers

INT_LIMIT_CASES = [
    ("int64", [2**63 - 1] * 5, 2**63 - 1),
    ("int64", [-(2**63)] * 5, -(2**63)),
    ("int64", [2**63 - 1, 2**63 - 2], 2**63 - 2),  # (2**64 - 3) / 2 = 2**63 - 1.5 -> truncated
    ("int64", [-(2**63), -(2**63) + 1], -(2**63) + 1),  # -2**63 + 0.5 -> toward zero
    ("int64", [-(2**63), 2**63 - 1], 0),  # -0.5 -> 0, not -1
    ("int64", [-(2**63), 2**63 - 1, -1], 0),  # -2/3 -> 0
    ("int64", [-7, 0, 0], -2),
    ("int64", [2**62 + 1] * 3 + [1], 3 * 2**60 + 1),  # (3 * 2**62 + 4) / 4
    ("uint64", [2**64 - 1] * 7, 2**64 - 1),
    ("uint64", [2**64 - 1, 2**64 - 2], 2**64 - 2),
    ("uint64", [2**64 - 1, 0, 0], (2**64 - 1) // 3),
    ("int32", [2**31 - 1] * 3, 2**31 - 1),
    ("int32", [-(2**31), -1], -(2**30)),
    ("int32", [-(2**31), 2**31 - 1], 0),
    ("uint32", [2**32 - 1] * 3, 2**32 - 1),
    ("int16", [32767, 32767, 32766], 32766),
    ("int16", [-32768, -32767], -32767),
    ("uint16", [65535, 65535, 65534], 65534),
    ("int8", [127, 127], 127),
    ("int8", [-128, -127], -127),
    ("int8", [127, 1], 64),
    ("int8", [-128, -1], -64),
    ("uint8", [255, 255, 254], 254),
    ("uint8", [255, 1], 128),
]


@pytest.mark.parametrize(("dtype", "values", "want"), INT_LIMIT_CASES)
def test_integer_limits_exact_truncated(dtype: str, values: list[int], want: int) -> None:
    x = np.array(values, dtype=DTYPES[dtype])
    opsets = ["openvino:1"]
    if dtype in ("int32", "int64", "uint32", "uint64"):
        opsets += ["onnx:1", "onnx:11", "onnx:13", "onnx:18"]
    for opset in opsets:
        got = meancli.reduce_mean(x, axes=[0], keepdims=False, opset=opset)
        assert got.dtype == x.dtype and int(got) == want, opset


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_integer_million_at_the_limits(dtype: str) -> None:
    """10**6 values near the limits: a 2**83 sum, exact in 128 bits, in every kernel path."""
    info = np.iinfo(DTYPES[dtype])
    rng = np.random.default_rng(RNG_SEED + 6)
    x = rng.integers(int(info.max) - 1000, int(info.max), size=10**6, dtype=DTYPES[dtype], endpoint=True)
    if dtype == "int64":
        x[::2] = rng.integers(int(info.min), int(info.min) + 1000, size=x[::2].size, dtype=np.int64)
    for arr, axis in ((x, None), (x.reshape(1000, 1000), 0), (x.reshape(1000, 1000), 1)):
        truth = exact(arr, axis)
        assert np.array_equal(rmean(arr, axis), truth.value)
        assert np.array_equal(rmean(arr, 0 if axis is None else axis, opset="openvino:1"), truth.value)


@pytest.mark.parametrize("dtype", oracles.INT_DTYPES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_integer_means_exact(dtype: str, data: Any) -> None:
    info = np.iinfo(DTYPES[dtype])
    lo, hi = int(info.min), int(info.max)
    edge = st.sampled_from([lo, lo + 1, hi - 1, hi, 0, -1 if lo < 0 else 1])
    values = data.draw(st.lists(st.one_of(st.integers(lo, hi), edge), min_size=1, max_size=60))
    width = data.draw(st.sampled_from([1, 2, 3]))
    x = np.array(values[: len(values) // width * width] or values[:1], dtype=object).astype(DTYPES[dtype])
    x = x.reshape(-1, width) if x.size % width == 0 else x.reshape(-1, 1)
    axis = data.draw(st.sampled_from([0, 1]))
    truth = exact(x, axis)
    got = meancli.reduce_mean(x, axes=[axis], keepdims=False, opset="openvino:1")
    assert np.array_equal(got, truth.value)
    if dtype in ("int32", "int64", "uint32", "uint64"):
        assert np.array_equal(meancli.reduce_mean(x, axes=[axis], keepdims=False), truth.value)


# --------------------------------------------------------------------------- NaN and infinities


def _specials_case(dtype: str, n: int, where: list[int], values: list[float]) -> np.ndarray:
    x = np.ones(n, dtype=np.float64)
    for i, v in zip(where, values, strict=True):
        x[i] = v
    return x.astype(DTYPES[dtype])


SPECIALS = [
    ([math.nan], math.nan),
    ([math.inf], math.inf),
    ([-math.inf], -math.inf),
    ([math.inf, -math.inf], math.nan),
    ([math.inf, math.inf], math.inf),
    ([math.nan, math.inf], math.nan),
    ([-math.inf, math.nan], math.nan),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(("values", "want"), SPECIALS, ids=lambda v: str(v))
def test_nan_and_infinities_reduce(dtype: str, values: list[float], want: float) -> None:
    """In a small group, a group spanning several chunks (the last value 10**5 in), and
    a column of a row reduction."""
    for n, where in (
        (7, [3, 6][: len(values)]),
        (100_003, [0, 100_002][: len(values)]),
        (70_001, [40_000, 70_000][: len(values)]),
    ):
        where = where if len(where) == len(values) else list(range(len(values)))
        x = _specials_case(dtype, n, where, values)
        got = float(rmean(x).item())
        assert (math.isnan(got) and math.isnan(want)) or got == want, (dtype, n, values)
        # the same values in one column of a (n, 3) reduction over axis 0; other columns stay finite
        m = np.stack([np.ones(n, DTYPES[dtype]), x, np.ones(n, DTYPES[dtype])], axis=1)
        col = rmean(m, 0).astype(np.float64)
        assert col[0] == 1.0 and col[2] == 1.0
        assert (math.isnan(col[1]) and math.isnan(want)) or col[1] == want


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16"])
@pytest.mark.parametrize(("values", "want"), SPECIALS, ids=lambda v: str(v))
def test_nan_and_infinities_mean(dtype: str, values: list[float], want: float) -> None:
    inputs = [np.array([1.0, v, 2.0], dtype=DTYPES[dtype]) for v in values] + [np.ones(3, DTYPES[dtype])]
    got = meancli.mean(*inputs).astype(np.float64)
    k = len(values)
    assert got[0] == 1.0 and got[2] == float(np.array((2 * k + 1) / (k + 1)).astype(DTYPES[dtype]))
    assert (math.isnan(got[1]) and math.isnan(want)) or got[1] == want
    # broadcast: a special in a (1,)-shaped input reaches every element
    b = meancli.mean(np.array([values[0]], DTYPES[dtype]), np.ones((2, 3), DTYPES[dtype])).astype(np.float64)
    w0 = values[0]
    assert np.all(np.isnan(b)) if math.isnan(w0) else np.all(b == w0)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16"])
def test_signed_zero(dtype: str) -> None:
    """A mean of zeros that are all -0.0 is -0.0 (IEEE: -0 + -0 = -0), in every
    float type and path: small, several chunks, row reduction, Mean; any +0.0
    or a cancellation gives +0.0."""
    t = DTYPES[dtype]
    for n in (1, 2, 7, 100_003):
        z = np.full(n, -0.0, t)
        assert np.signbit(rmean(z).astype(np.float64)).all(), (dtype, n)
        assert np.signbit(rmean(np.stack([z, z], axis=1), 0).astype(np.float64)).all(), (dtype, n)
    assert np.signbit(meancli.mean(np.array([-0.0], t)).astype(np.float64)).all()
    assert np.signbit(np.float64(meancli.mean(np.array(-0.0, t), np.array(-0.0, t)))).all()
    for values in ([-0.0, 0.0], [1.0, -1.0], [0.0]):
        assert not np.signbit(rmean(np.array(values, t)).astype(np.float64)).any(), (dtype, values)
        assert not np.signbit(meancli.mean(*[np.array(v, t) for v in values]).astype(np.float64)), (
            dtype,
            values,
        )


def test_float64_addend_far_below_the_sum_decides_the_rounding() -> None:
    """-2**-60 is 113 bits below 2**53: a double-double sum loses it and rounds
    up at what looks like a tie; the exact sum rounds down."""
    v = [2.0**53 + 2, 1.0, -(2.0**-60), 0.0]
    exact = float(oracles.exact_reduce_mean(np.array(v)))
    got = float(rmean(np.array(v)).item())
    assert exact == 2.0**51 + 0.5
    assert got == exact


# --------------------------------------------------------------------------- determinism


@pytest.fixture(scope="module")
def big_float32() -> np.ndarray:
    rng = np.random.default_rng(RNG_SEED + 7)
    return (rng.standard_normal(2 * 10**7) * 1e3).astype(np.float32)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("shape", "axes"),
    [((2 * 10**7,), None), ((20, 10**6), [1]), ((10**6, 20), [0]), ((200, 100, 1000), [0, 2])],
)
def test_bit_identical_across_threads_and_runs(
    big_float32: np.ndarray, shape: tuple[int, ...], axes: Any
) -> None:
    x = big_float32.reshape(shape)
    first = meancli.reduce_mean(x, axes=axes, threads=1)
    for threads in (2, 8, 8, 1):
        again = meancli.reduce_mean(x, axes=axes, threads=threads)
        assert again.tobytes() == first.tobytes(), threads


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "int64", "uint8"])
def test_bit_identical_across_threads_other_types(dtype: str) -> None:
    rng = np.random.default_rng(RNG_SEED + 8)
    if oracles.is_float(dtype):
        x = (rng.standard_normal((3000, 700)) * 100).astype(DTYPES[dtype])
    else:
        info = np.iinfo(DTYPES[dtype])
        x = rng.integers(int(info.min), int(info.max), size=(3000, 700), dtype=DTYPES[dtype], endpoint=True)
    opset = "openvino:1" if dtype == "uint8" else None
    for axes in ([0], [1], [0, 1]):
        ref = meancli.reduce_mean(x, axes=axes, opset=opset, threads=1).tobytes()
        for threads in (2, 8):
            assert meancli.reduce_mean(x, axes=axes, opset=opset, threads=threads).tobytes() == ref


@pytest.mark.slow
def test_mean_bit_identical_across_threads(big_float32: np.ndarray) -> None:
    a = big_float32.reshape(4000, 5000)
    b = big_float32[:5000].reshape(1, 5000)
    c = big_float32[-4000:].reshape(4000, 1)
    ref = meancli.mean(a, b, c, threads=1).tobytes()
    for threads in (2, 8):
        assert meancli.mean(a, b, c, threads=threads).tobytes() == ref


# --------------------------------------------------------------------------- layouts through the CLI


# "streamed": the CLI reads the file in slabs of 256 bytes (meancli/engine/streamed.py), the path
# every large file takes; "in-memory": the whole array at once.
STREAMED_ENV = {"MEANCLI_STREAM_MIN_BYTES": "0", "MEANCLI_SLAB_BYTES": "256"}


def cli(tmp_path: Path, *args: str, streamed: bool = False) -> Result:
    """The command line in process; ``streamed``: a real process with STREAMED_ENV."""
    proc = run_cli(*args, "--quiet", cwd=tmp_path, env=STREAMED_ENV if streamed else None)
    assert proc.returncode == 0, proc.stderr
    return proc


def load_result(path: Path) -> np.ndarray:
    y = np.load(path, allow_pickle=False)
    return y.view(BF16) if y.dtype.kind == "V" else y


LAYOUTS = [
    # (dtype written to the file, order, opset, axes)
    (">f4", "F", None, ["1", "-1"]),
    (">f2", "C", None, ["0"]),
    (">f8", "F", None, ["0", "2"]),
    (">i8", "C", None, ["1"]),
    (">i4", "F", "onnx:11", ["2"]),
    (">u8", "F", "onnx:13", ["0", "1"]),
    (">u4", "C", "openvino:1", ["1"]),
    (">i2", "F", "openvino:1", ["0", "2"]),
    ("<f4", "F", None, ["0"]),
    ("<V2", "C", None, ["1"]),
    ("|V2", "F", None, ["0", "-1"]),
]


@pytest.mark.parametrize("streamed", [False, True], ids=["in-memory", "streamed"])
@pytest.mark.parametrize(("file_dtype", "order", "opset", "axes"), LAYOUTS, ids=lambda v: str(v))
def test_layouts_through_cli(
    tmp_path: Path, file_dtype: str, order: str, opset: str | None, axes: list[str], streamed: bool
) -> None:
    """A Fortran-order, big-endian or V2 (bfloat16) file gives exactly the result
    of its C-order native twin (computed in memory), and that is the exact mean."""
    rng = np.random.default_rng(RNG_SEED + 9)
    shape = (5, 6, 7)
    if file_dtype.endswith("V2"):
        native = (rng.standard_normal(shape) * 100).astype(BF16)
        data = native.view(np.dtype(file_dtype))
    else:
        nat = np.dtype(file_dtype).newbyteorder("=")
        if nat.kind == "f":
            native = (rng.standard_normal(shape) * 100).astype(nat)
        else:
            info = np.iinfo(nat)
            native = rng.integers(int(info.min), int(info.max), size=shape, dtype=nat, endpoint=True)
        data = native.astype(file_dtype)
    data = np.asfortranarray(data) if order == "F" else np.ascontiguousarray(data)
    np.save(tmp_path / "x.npy", data)
    argv = ["reduce-mean", "x.npy", "--axes", *axes, "-o", "y.npy"]
    if opset:
        argv += ["--opset", opset]
    cli(tmp_path, *argv, streamed=streamed)
    got = load_result(tmp_path / "y.npy")
    want = meancli.reduce_mean(np.ascontiguousarray(native), axes=[int(a) for a in axes], opset=opset)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    truth = oracles.exact_truth(
        oracles.spec_name(native.dtype),
        oracles.groups_of(
            oracles.Case(
                "openvino" if opset == "openvino:1" else "onnx",
                "ReduceMean",
                1 if opset == "openvino:1" else 18,
                oracles.spec_name(native.dtype),
                (native,),
                axes=tuple(int(a) for a in axes),
            )
        ),
    )
    assert truth.value is not None and truth.value.tobytes() == got.tobytes()


def test_mean_layouts_through_cli(tmp_path: Path) -> None:
    """mean over a big-endian Fortran file, a C-order native one and a V2 pair."""
    rng = np.random.default_rng(RNG_SEED + 10)
    a = (rng.standard_normal((4, 5)) * 10).astype(np.float32)
    b = (rng.standard_normal((4, 5)) * 10).astype(np.float32)
    np.save(tmp_path / "a.npy", np.asfortranarray(a.astype(">f4")))
    np.save(tmp_path / "b.npy", b)
    ha = a.astype(BF16)
    hb = b[:1].astype(BF16)
    np.save(tmp_path / "ha.npy", np.asfortranarray(ha.view("<V2")))
    np.save(tmp_path / "hb.npy", hb.view("<V2"))
    cli(tmp_path, "mean", "a.npy", "b.npy", "-o", "y.npy")
    cli(tmp_path, "mean", "ha.npy", "hb.npy", "-o", "hy.npy", streamed=True)
    assert np.load(tmp_path / "y.npy").tobytes() == meancli.mean(a, b).tobytes()
    got = load_result(tmp_path / "hy.npy")
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.tobytes() == meancli.mean(ha, hb).tobytes()
