"""Correctly rounded, always: every float result of ReduceMean and Mean is the
exact rational mean of the inputs rounded once to the output type (round half
to even; inf only when the rounded mean overflows; NaN/inf as IEEE says; a
mean of -0.0s is -0.0, an exact cancellation +0.0), bit for bit, for every
float dtype, layout, thread count, and in memory or streamed in slabs.

The data are adversarial (tests/adversarial.py); the truth is the rational
oracle of tests/oracles.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import adversarial
import numpy as np
import oracles
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_partials import same_bits, truth

import meancli
from meancli import kernels

FLOATS = ("float16", "bfloat16", "float32", "float64")
LAYOUTS = ("C", "F", "strided")
SETTINGS = settings(
    deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)


@pytest.fixture
def isas() -> Iterator[tuple[str, ...]]:
    """Every instruction set this CPU runs, for a test that switches among
    them (kernels.use_isa); the one in use before is restored after."""
    saved = kernels.isas_in_use()
    yield kernels.supported_isas()
    for (kind, dtype), name in saved.items():
        kernels.use_isa(name, dtype, kind)


def layout(x: np.ndarray, how: str) -> np.ndarray:
    if how == "F":
        return np.asfortranarray(x)
    if how == "strided":
        return np.repeat(x, 2, axis=-1)[..., ::2]
    return x


@st.composite
def reduce_case(draw: Any, max_dim: int = 70) -> tuple[np.ndarray, tuple[int, ...]]:
    dtype = draw(st.sampled_from(FLOATS))
    kind = draw(st.sampled_from(adversarial.KINDS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    shape = tuple(draw(st.lists(st.integers(1, max_dim), min_size=1, max_size=3)))
    n = int(np.prod(shape))
    x = np.resize(adversarial.values(rng, dtype, max(n, 2), kind), n)
    x = x[rng.permutation(n)].reshape(shape)
    axes = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    return layout(x, draw(st.sampled_from(LAYOUTS))), axes


@SETTINGS
@given(reduce_case(), st.sampled_from([1, 2, 8]))
def test_reduce_mean_is_the_exact_mean_rounded_once(
    case: tuple[np.ndarray, tuple[int, ...]], threads: int
) -> None:
    x, axes = case
    got = meancli.reduce_mean(x, axes=list(axes), keepdims=True, threads=threads)
    assert same_bits(got, truth(x, axes)), (x, axes)


@pytest.mark.slow
@SETTINGS
@given(st.sampled_from(FLOATS), st.sampled_from(adversarial.KINDS), st.integers(0, 2**32 - 1))
def test_reduce_mean_long_runs_and_many_rows(dtype: str, kind: str, seed: int) -> None:
    """Long enough for the vector loops' blocks, the threads' splits and the chunk boundaries."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20_000, 80_000))
    x = adversarial.values(rng, dtype, n, kind)
    x = np.resize(x, n)[rng.permutation(n)]
    for arr, axes in (
        (x, (0,)),
        (x[: n // 40 * 40].reshape(-1, 40), (0,)),
        (x[: n // 7 * 7].reshape(7, -1), (1,)),
    ):
        for threads in (1, 2):
            got = meancli.reduce_mean(arr, axes=list(axes), keepdims=True, threads=threads)
            assert same_bits(got, truth(arr, axes)), (kind, arr.shape, axes, threads)


@st.composite
def mean_case(draw: Any) -> list[np.ndarray]:
    dtype = draw(st.sampled_from(FLOATS))
    kind = draw(st.sampled_from(adversarial.KINDS))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    k = draw(st.integers(1, 20))
    shape = (draw(st.integers(1, 5)), draw(st.integers(1, 40)))
    n = int(np.prod(shape))
    pool = np.resize(adversarial.values(rng, dtype, max(n * k, 2), kind), n * k)[rng.permutation(n * k)]
    xs = []
    for i in range(k):
        v = pool[i * n : (i + 1) * n].reshape(shape)
        form = draw(st.sampled_from(["full", "column", "row", "F", "strided"]))
        xs.append(
            {"full": v, "column": v[:, :1], "row": v[0], "F": np.asfortranarray(v)}.get(form, layout(v, form))
        )
    return xs


def mean_truth(xs: list[np.ndarray]) -> np.ndarray:
    """The exact Mean of xs (multidirectional broadcasting) rounded once to their dtype."""
    return oracles.exact_mean(xs)


@SETTINGS
@given(mean_case(), st.sampled_from([1, 2, 8]))
def test_mean_is_the_exact_mean_rounded_once(xs: list[np.ndarray], threads: int) -> None:
    assert same_bits(meancli.mean(*xs, threads=threads), mean_truth(xs))


def _tie_inputs(rng: np.random.Generator, k: int, width: int, scale: int) -> list[np.ndarray]:
    """k float32 rows of `width` (k >= 3) whose column sums S make S / k an
    exact float32 midpoint (a tie, most columns) or zero (every 5th): k - 1
    values in [1.5, 2) * 2^scale and one in (0, 1) * 2^scale that completes
    the sum, so every value passes the vector path's exponent check."""
    ulp = 2.0 ** (scale - 23)  # of a mean in [1, 2) * 2^scale
    cols = []
    for j in range(width):
        vals = [float(np.float32(v * 2.0**scale)) for v in rng.uniform(1.5, 2, k - 1)]
        if j % 5 == 4:  # cancels exactly
            vals = [vals[0], -vals[0], *vals[2:], 0.0]
            vals[2:] = [0.0] * (k - 2)
        else:
            part = sum(vals)  # exact: multiples of ulp / 2 far below 2^53 of it
            mid = (np.floor((part + 0.5 * 2.0**scale) / k / ulp) + 0.5) * ulp
            last = k * mid - part
            assert 0 < last < 2.0**scale and float(np.float32(last)) == last
            vals.append(last)
        rng.shuffle(vals)
        cols.append(vals)
    return [np.array([c[i] for c in cols], dtype=np.float32).reshape(1, width) for i in range(k)]


def _assert_mean_exact(xs: list[np.ndarray]) -> None:
    assert same_bits(meancli.mean(*xs, threads=1), mean_truth(xs))


@pytest.mark.parametrize("k", [3, 5, 6, 7, 12, 49])
def test_mean_vector_finish_at_float32_ties(k: int) -> None:
    """The vector Mean's finish multiplies by 1/k and corrects the product by
    its exact remainder: ties, near ties, zero means (signed) and subnormal
    means are each the exact mean rounded once."""
    rng = np.random.default_rng(k)
    for scale in (0, -120, 100):
        xs = [np.concatenate([x, x[:, ::-1]]) for x in _tie_inputs(rng, k, 100, scale)]
        _assert_mean_exact(xs)
        _assert_mean_exact([*xs[:-1], xs[-1][:1, :1]])  # one input broadcast (summed once per unit)
    # zeros among normal means: -0.0s alone (-0.0), with +0.0 or cancelling (+0.0)
    z = rng.standard_normal((k, 1, 96)).astype(np.float32)
    z[:, 0, ::4] = -0.0
    z[0, 0, 1::4] = 0.0
    z[:, 0, 1::4] = -0.0
    z[:, 0, 2::4] = 0.0
    z[0, 0, 2::4], z[1, 0, 2::4] = 1.5, -1.5
    _assert_mean_exact(list(z))
    # means below float32's normal range (subnormal results have other ties)
    tiny = rng.integers(-300, 300, size=(k, 1, 104)).astype(np.float64) * 2.0**-149
    tiny[:, 0, :8] = [[2.0**-126], [2.0**-149]] * (k // 2) + [[0.0]] * (k % 2)
    _assert_mean_exact(list(tiny.astype(np.float32)))


def _float64_near(rng: np.random.Generator, k: int, width: int, centre: float, spread: int) -> np.ndarray:
    """k rows of `width` float64 integers within `spread` of `centre` (a
    multiple of a power of two near 2^53): their means need 54 or more bits,
    so they fall on, next to and between float64 rounding boundaries, often
    exactly on a tie, and around 2^53 they cross the binade edge where the
    gap below a power of two is half the gap above."""
    return (centre + rng.integers(-spread, spread + 1, size=(k, width))).astype(np.float64)


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6, 7, 8, 9, 16, 33])
def test_float64_mean_at_ties_and_binade_edges(k: int) -> None:
    """float64 Mean decides each rounding from two exact double sums (its
    branch-free and vector finish): ties to even, near ties, a power of two's
    edge from both sides, negative means, values that cancel, widths with
    vector tails, a broadcast input. Each output is the exact mean rounded
    once."""
    rng = np.random.default_rng(k)
    for centre, spread in [(2.0**53, 40), (2.0**53, 3), (-(2.0**53), 40), (3 * 2.0**52, 9), (2.0**60, 2**10)]:
        x = _float64_near(rng, k, 203, centre, spread)
        x[:, ::7] *= -1  # some outputs cancel to near zero
        for width in (203, 8, 5):
            _assert_mean_exact(list(x[:, :width]))
        _assert_mean_exact([*x[:-1], x[-1][:1]])  # one input broadcast
    # scaled to the ends of the range where the double arithmetic is trusted
    for scale in (2.0**-960, 2.0**-1000, 2.0**900, 2.0**960):
        _assert_mean_exact(list(_float64_near(rng, k, 64, 2.0**53, 40) * scale))


@pytest.mark.parametrize("k", [8, 12, 16, 24, 32])
def test_float64_short_runs_in_vectors(k: int, isas: tuple[str, ...]) -> None:
    """float64 runs of k values (a kept outer dim, k a multiple of the
    vector width) are extracted VD_N values at a time and their lanes added
    after: adversarial values, -0.0 (taken exactly), NaN and inf in some
    runs, far smaller values that decide a mean; every instruction set."""
    rng = np.random.default_rng(k)
    arrays = []
    for kind in adversarial.KINDS:
        x = np.resize(adversarial.values(rng, "float64", 600 * k, kind), 600 * k).reshape(600, k)
        x[::5, 0] = -0.0
        x[3, 1], x[7, 2], x[11, 0] = np.nan, np.inf, -np.inf
        arrays.append(x)
    x = 1.0 + rng.standard_normal((600, k))
    x[:, k // 2 :] = -x[:, : k // 2]  # each run cancels: its far smaller values decide
    x[:, 0] = np.ldexp(rng.uniform(-1.0, 1.0, 600), -rng.integers(30, 80, 600))
    x[:, k // 2] = 0.0  # the partner of the far smaller value
    arrays.append(x)
    for name in isas:
        kernels.use_isa(name)
        for x in arrays:
            got = meancli.reduce_mean(x, axes=[1], keepdims=True)
            assert same_bits(got, truth(x, (1,))), (name, x.shape)


@pytest.mark.slow
@pytest.mark.parametrize("count", [33, 65, 300, 1500])
def test_float64_reduce_mean_from_the_two_kept_sums(count: int, isas: tuple[str, ...]) -> None:
    """float64 ReduceMean keeps the sums of its two extraction levels apart
    (runs: lanes_keep; rows: t_keep_in) and divides the pair once with
    dd_mean when no block reached the superaccumulator. Means at ties, near
    ties and a power of two's edge, with second-level parts (far smaller
    values) that decide the rounding, scaled to each end of the range
    dd_mean trusts, and subnormal means (which it leaves to the
    superaccumulator); runs and rows, every instruction set, 1 and 2 threads."""
    rng = np.random.default_rng(count)
    arrays = []
    for centre, spread in [(2.0**53, 40), (-(2.0**53), 3), (3 * 2.0**52, 9), (2.0**60, 2**10)]:
        x = _float64_near(rng, count, 97, centre, spread)
        x[:, ::7] *= -1
        x[rng.integers(count, size=40), rng.integers(97, size=40)] = np.ldexp(rng.uniform(-1, 1, 40), -30)
        arrays += [x, x * 2.0**-1000, x * 2.0**960]
    # values of 53 bits near the smallest normals: the second level holds
    # their last bits, and the means are subnormal
    arrays.append(rng.uniform(-1.0, 1.0, (count, 97)) * 2.0**-1020)
    for name in isas:
        kernels.use_isa(name)
        for x in arrays:
            for threads in (1, 2):
                for arr, axes in ((x, (0,)), (np.ascontiguousarray(x.T), (1,))):
                    got = meancli.reduce_mean(arr, axes=list(axes), keepdims=True, threads=threads)
                    assert same_bits(got, truth(arr, axes)), (name, arr.shape, axes, threads)


@pytest.mark.parametrize(
    ("dtype", "values"),
    [
        ("float64", [2.0**1000, 2.0**1000]),  # was NaN (an overflowing split in the old division)
        ("float32", [2.0, 1.0, 1 + 2.0**-22, 2.0**-60]),  # was rounded from a double sum that dropped 2^-60
    ],
)
def test_former_conformance_issues(dtype: str, values: list[float]) -> None:
    """The inputs docs/conformance.md once listed as meancli's known issues."""
    x = np.array(values, dtype=dtype)
    want = oracles.exact_truth(dtype, oracles.Groups(x.reshape(1, -1), ())).value
    assert same_bits(meancli.reduce_mean(x, keepdims=False), want)
    assert same_bits(meancli.mean(*x), want)


def _streamed(
    path: Path, axes: tuple[int, ...], slab_bytes: int, monkeypatch: pytest.MonkeyPatch
) -> np.ndarray | None:
    """ReduceMean of a .npy streamed in slabs of about slab_bytes (None: the
    layout needs larger slabs, so it would not be streamed)."""
    from meancli.dtypes import spec_name
    from meancli.engine import streamed
    from meancli.io import source as io_source
    from meancli.io import thresholds
    from meancli.io.registry import Opening, open_input
    from meancli.ops.opset import resolve
    from meancli.ops.validate import validate_reduce

    monkeypatch.setattr(streamed, "SLAB_BYTES", slab_bytes)
    monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 1)
    ((_, source, _),) = open_input(str(path), Opening(stream=True))
    assert isinstance(source, io_source.Source)
    op = resolve("ReduceMean")
    call = validate_reduce(op, source.dtype, source.shape, axes, None, noop_with_empty_axes=True)
    kept = tuple(1 if m else n for n, m in zip(source.shape, call.reduce_mask, strict=True))
    out = np.empty(kept, dtype=source.dtype.newbyteorder("="))
    try:
        done = streamed.reduce_slabs(spec_name(source.dtype), source, call.reduce_mask, out, 2)
    finally:
        source.finish()
    return out if done else None


@SETTINGS
@given(reduce_case(max_dim=40), st.integers(64, 4096))
def test_streamed_reduce_mean_is_the_exact_mean_rounded_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: tuple[np.ndarray, tuple[int, ...]], slab_bytes: int
) -> None:
    x, axes = case
    path = tmp_path / "x.npy"
    np.save(path, x)
    with monkeypatch.context() as m:
        got = _streamed(path, axes, slab_bytes, m)
    assume(got is not None)
    assert same_bits(got, truth(x, axes)), (x.shape, axes, slab_bytes)


ISSUE_TABLE = [
    ("float32", [1e30, 1, 3, -1e30], 1.0),
    ("float32", [1, 1e20, -1e20], 0.33333334),
    ("float32", [1e20, 1, -1e20], 0.33333334),
    ("bfloat16", [1e30, 1, 3, -1e30], 1.0),
    ("float64", [1e308, 1e308, -1e308], 3.3333333333333333e307),
    ("float64", [2.0**53 + 2, 1, -(2.0**-60), 0], 2251799813685248.5),
]


@pytest.mark.parametrize(("dtype", "values", "mean"), ISSUE_TABLE)
def test_issue_table_reduce_mean_and_mean(dtype: str, values: list[float], mean: float) -> None:
    dt = oracles.DTYPES[dtype]
    x = np.array(values, dtype=dt)
    want = np.array(mean, dtype=dt)
    assert same_bits(meancli.reduce_mean(x, keepdims=False), want)
    assert same_bits(meancli.mean(*[np.array([v], dtype=dt) for v in values]), want.reshape(1))
    # and a million values around them: the vector loops, threads and blocks
    big = np.zeros(1_000_000, dt)
    big[np.random.default_rng(1).choice(big.size, len(values), replace=False)] = x
    got = meancli.reduce_mean(big, keepdims=False, threads=2)
    assert same_bits(got, truth(big, (0,)).reshape(()))


@pytest.mark.parametrize("dtype", FLOATS)
def test_partials_agree_with_reduce_mean(dtype: str) -> None:
    rng = np.random.default_rng(5)
    for kind in adversarial.KINDS:
        x = np.resize(adversarial.values(rng, dtype, 6000, kind), 6000).reshape(60, 100)
        for axes in ((0,), (1,), (0, 1)):
            parts = np.array_split(x, 3, axis=axes[0])
            states = np.concatenate([kernels.reduce_partial(p, axes) for p in parts], axis=axes[0])
            combined = kernels.combine_partials(states, (axes[0],), dtype)
            got = kernels.finalize_partials(combined, dtype)
            assert same_bits(got, meancli.reduce_mean(x, axes=list(axes), keepdims=True))


# The exact path sorts values into windows of exponents: float64 by the top 6
# bits of the exponent field (window 63, |x| >= 2^993, value by value),
# float16/bfloat16/float32 by the top 4 bits of the float32 one. Values on
# both sides of every window edge, with cancellation, in runs and in narrow
# rows long enough that the blocks go straight to the exact path.
WINDOW_EDGES = {"float64": (32, 2046, 1023), "float32": (16, 254, 127), "bfloat16": (16, 254, 127)}


@pytest.mark.parametrize("dtype", sorted(WINDOW_EDGES))
def test_exact_path_window_edges(dtype: str) -> None:
    width, top, bias = WINDOW_EDGES[dtype]
    fields = sorted({f for k in range(0, top + 2, width) for f in (k - 1, k) if 1 <= f <= top})
    rng = np.random.default_rng(11)
    n, extra = 64 * 2400, 64
    half = (n - extra) // 2
    exps = rng.choice(np.array(fields) - bias, half)
    v = np.ldexp(rng.uniform(1.0, 2.0, half), exps) * rng.choice([-1.0, 1.0], half)
    v = v.astype(oracles.DTYPES[dtype]).astype(np.float64)
    # the pairs cancel: the mean is that of the smallest values, so a bit lost anywhere shows
    scale = -900 if dtype == "float64" else -100
    low = np.ldexp(rng.integers(-(2**7), 2**7, extra).astype(np.float64), scale)
    x = np.concatenate([v, -v, low])[rng.permutation(n)].astype(oracles.DTYPES[dtype])
    assert truth(x, (0,)).item() != 0.0
    for arr, axes in ((x, (0,)), (x.reshape(-1, 64), (0,)), (x.reshape(-1, 16), (0,))):
        for threads in (1, 2):
            got = meancli.reduce_mean(arr, axes=list(axes), keepdims=True, threads=threads)
            assert same_bits(got, truth(arr, axes)), (arr.shape, threads)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("width", [5, 64, 256, 300])
@pytest.mark.parametrize("nrows", [800, 1024, 1500])
def test_row_blocks_whose_kept_sums_would_round(dtype: str, width: int, nrows: int) -> None:
    """Innermost dim kept, rows in blocks: each block's sum is exact, but the
    blocks' sums added in double would round (large values in a block, small
    ones after, then the large ones negated); a column of -0.0s; a column that cancels to an
    exact zero. One chunk of rows (the means straight from it) and more."""
    rng = np.random.default_rng(width * 7919 + nrows)
    big = 2.0**12 if dtype == "float16" else 2.0**40
    x = rng.uniform(-1.0, 1.0, (nrows, width)) * 2.0 ** rng.integers(-12, 0, (nrows, width))
    # blocks of their own (ROWS_CAP rows) that cancel each other, small values between
    x[:256] = rng.choice([-1.0, 1.0], (256, width)) * big
    x[512:768] = -x[:256]
    x = x.astype(oracles.DTYPES[dtype])
    x[:, 0] = -0.0
    x[: nrows // 2 * 2, 1] = np.repeat(x[: nrows // 2, 2], 2) * np.tile([1, -1], nrows // 2).astype(x.dtype)
    if nrows % 2:
        x[-1, 1] = 0.0
    for threads in (1, 2):
        got = meancli.reduce_mean(x, axes=[0], keepdims=True, threads=threads)
        assert same_bits(got, truth(x, (0,))), (threads,)
    assert np.signbit(got[0, 0]) and got[0, 1] == 0.0 and not np.signbit(got[0, 1])


@pytest.mark.slow
@pytest.mark.parametrize("dtype", FLOATS)
def test_wide_row_blocks_read_a_row_from_each_quarter(dtype: str, isas: tuple[str, ...]) -> None:
    """Rows wider than the narrow panels are added ROW_GROUP (4) at a time,
    one from each quarter of a block, then the rows left over: blocks of
    every remainder (nrows % 4), widths with and without a vector tail.
    Each column's normal values cancel (each has its negation in another
    row), so far smaller values, put in the last row of each quarter and in
    the left-over rows (their partners zeroed), decide every mean: a block
    whose check missed them would sum them inexactly. Every instruction
    set, 1 and 2 threads."""
    rng = np.random.default_rng(11)
    cases = []
    for width in (65, 96, 257):
        for nrows in (5, 258, 515, 1027):
            h = nrows // 2
            half = rng.standard_normal((h, width))
            perm = rng.permutation(nrows)
            x = np.concatenate([half, -half, np.zeros((nrows - 2 * h, width))])[perm]
            row_of = np.argsort(perm)  # original row -> row of x
            for b0 in range(0, nrows, 256):
                nb = min(256, nrows - b0)
                q = nb // 4
                last = [b0 + k * q + q - 1 for k in range(4) if q > 0] + list(range(b0 + 4 * q, b0 + nb))
                for i in last:
                    j, o = int(rng.integers(width)), int(perm[i])
                    if o < 2 * h:  # its partner, the negation, becomes 0
                        x[row_of[o + h if o < h else o - h], j] = 0.0
                    x[i, j] = np.ldexp(rng.uniform(-1.0, 1.0), -int(rng.integers(20, 60)))
            cases.append(x.astype(oracles.DTYPES[dtype]))
    for name in isas:
        kernels.use_isa(name)
        for x in cases:
            for threads in (1, 2):
                got = meancli.reduce_mean(x, axes=[0], keepdims=True, threads=threads)
                assert same_bits(got, truth(x, (0,))), (name, x.shape, threads)


DEFAULT_NAN = {"float16": 0x7E00, "bfloat16": 0x7FC0, "float32": 0x7FC00000, "float64": 0x7FF8000000000000}


@pytest.mark.parametrize("dtype", FLOATS)
def test_a_nan_result_is_the_default_nan_also_where_the_result_is_the_input(dtype: str) -> None:
    """NaNs of either sign, quiet or signalling, with payloads, give the default
    quiet NaN, as docs/semantics.md says, also where the result is the input itself
    (noop_with_empty_axes, openvino's empty axes, a reduced dim of size 1, Mean of
    one input), where a copy would keep their bits: the same bits on every engine."""
    dt = oracles.DTYPES[dtype]
    bits = np.dtype(f"u{np.dtype(dt).itemsize}")
    nbits = 8 * np.dtype(dt).itemsize
    exp_all = {16: 0x7C00 if dtype == "float16" else 0x7F80, 32: 0x7F800000, 64: 0x7FF0000000000000}[nbits]
    sign = 1 << (nbits - 1)
    nans = [exp_all | 1, sign | exp_all | 5, DEFAULT_NAN[dtype] | 3, sign | DEFAULT_NAN[dtype]]
    x = np.array(nans, dtype=bits).view(dt).reshape(4, 1)
    with np.errstate(invalid="ignore"):  # the signalling ones
        assert np.isnan(x.astype(np.float64)).all()
    results = [
        meancli.reduce_mean(x, axes=[], noop_with_empty_axes=True),
        meancli.reduce_mean(x, axes=[1]),
        meancli.reduce_mean(x, axes=[0]),
        meancli.mean(x),
        meancli.mean(x, x),
    ]
    if dtype != "bfloat16":  # openvino ReduceMean-1 takes no bfloat16
        results.append(meancli.reduce_mean(x, axes=[], opset="openvino:1"))
    for got in results:
        assert (got.view(bits) == DEFAULT_NAN[dtype]).all(), [hex(v) for v in got.view(bits).ravel()]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["bfloat16", "float32", "float64"])
@pytest.mark.parametrize("nrows", [140_000, 1_100_000])
def test_long_row_reductions_in_longer_chunks(dtype: str, nrows: int, isas: tuple[str, ...]) -> None:
    """A row reduction of 128 * 1024 rows or more takes longer chunks of rows
    (2048 rows here at 140000, 8192 at 1100000): large values in the first
    chunk cancelled in a later one, in the middle of it, small values
    between, so the result is the small values' mean; every instruction
    set, threads 1 and 2."""
    rng = np.random.default_rng(nrows)
    x = rng.uniform(-1.0, 1.0, (nrows, 5)) * 2.0 ** rng.integers(-20, 0, (nrows, 5))
    x[:300] = rng.choice([-1.0, 1.0], (300, 5)) * 2.0**60
    x[20_000:20_300] = -x[:300]
    x = x.astype(oracles.DTYPES[dtype])
    want = truth(x, (0,))
    for name in isas:
        kernels.use_isa(name)
        for threads in (1, 2):
            got = meancli.reduce_mean(x, axes=[0], keepdims=True, threads=threads)
            assert same_bits(got, want), (name, threads)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["bfloat16", "float32"])
def test_blocks_with_a_few_far_smaller_values(dtype: str, isas: tuple[str, ...]) -> None:
    """Benign values with a few far smaller ones: a block fails its one-sum
    check and is summed as a large and a small part (split_block, rows_split
    for row blocks), or exactly when the small part spreads too far; every
    instruction set."""
    rng = np.random.default_rng(5)
    cases = []
    for k in (3, 100, 1000):
        v = rng.standard_normal(30_000)
        x = np.concatenate([v, -v])  # the large values cancel: the small ones decide the mean
        pos = rng.choice(30_000, k, replace=False)
        x[pos] = np.ldexp(rng.uniform(-1.0, 1.0, k), -rng.integers(20, 41, k))
        x[30_000 + pos] = 0.0
        x = x.astype(oracles.DTYPES[dtype])
        for y in (x, x[rng.permutation(x.size)], adversarial.values(rng, dtype, 60_000, "sparse_tiny")):
            runs = [(y, (0,)), (y.reshape(-1, 600), (1,)), (y.reshape(-1, 25), (1,))]
            rows = [(y.reshape(-1, 300), (0,)), (y.reshape(-1, 40), (0,)), (y.reshape(-1, 25), (0,))]
            cases += runs + rows
    for name in isas:
        kernels.use_isa(name)
        for arr, axes in cases:
            got = meancli.reduce_mean(arr, axes=list(axes), keepdims=True)
            assert same_bits(got, truth(arr, axes)), (name, arr.shape)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("tail", [0, 777])
def test_run_blocks_whose_kept_sums_would_round(dtype: str, tail: int) -> None:
    """A run in blocks (1024 values; float16 8192): each block's sum is exact,
    but adding the blocks' sums in double would round (large values in a
    block, small ones after, then the large ones negated); a run of -0.0s."""
    block = 8192 if dtype == "float16" else 1024
    rng = np.random.default_rng(block + tail)
    big = 2.0**10 if dtype == "float16" else 2.0**40
    x = rng.uniform(-1.0, 1.0, 5 * block + tail) * 2.0 ** rng.integers(-12, 0, 5 * block + tail)
    x[:block] = rng.choice([-1.0, 1.0], block) * big
    x[2 * block : 3 * block] = -x[:block]
    x = x.astype(oracles.DTYPES[dtype])
    runs = np.stack([x, np.full_like(x, -0.0), x[::-1]])
    for threads in (1, 2):
        got = meancli.reduce_mean(runs, axes=[1], keepdims=True, threads=threads)
        assert same_bits(got, truth(runs, (1,))), (threads,)
    assert np.signbit(got[1, 0])


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("count", [3, 5, 7, 10, 49, 1000])
def test_one_chunk_means_from_the_kept_sum(dtype: str, count: int) -> None:
    """Outputs of one chunk of values take their mean straight from the kept
    double sum (float64: one IEEE division; narrower: divided rounding to odd,
    then rounded to the format): 300 outputs per count, each checked."""
    rng = np.random.default_rng(count)
    x = rng.standard_normal((300, count)) * 2.0 ** rng.integers(-8, 8, (300, 1))
    x = x.astype(oracles.DTYPES[dtype])
    got = meancli.reduce_mean(x, axes=[1], keepdims=True, threads=1)
    assert same_bits(got, truth(x, (1,)))


def _exact_path_inputs(rng: np.random.Generator, dtype: str, k: int, n: int, big: float) -> list[np.ndarray]:
    """k inputs of n values whose outputs mostly need the exact sum: -0.0s,
    values of size `big` (beyond the format's range when summed) that leave
    a far smaller one when they cancel, values spread over the exponent
    range, and plain normal values in between."""
    xs = np.array(rng.standard_normal((k, n)), dtype=np.float64)
    xs[:, 0::5] = -0.0
    xs[:, 1::5] = big
    xs[: k // 2, 2::5] = big / 4
    xs[k // 2 :, 2::5] = -big / 4
    xs[-1, 2::5] = 2.0**-10
    xs[:, 3::5] = adversarial.values(rng, dtype, k * len(range(3, n, 5)), "spread").reshape(k, -1)
    return [x.astype(oracles.DTYPES[dtype]) for x in xs]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("k", [2, 3, 4, 7])
def test_mean_into_an_input_on_the_exact_path(dtype: str, k: int, isas: tuple[str, ...]) -> None:
    """Mean may write into an input of its own layout; an output whose sum
    must be exact reads that input's value before its output is written
    (once read after: a mean of -0.0s came out +0.0, an overflowing sum inf),
    on every instruction set and thread count."""
    rng = np.random.default_rng(k)
    top = float(np.finfo(oracles.DTYPES[dtype]).max) if dtype != "bfloat16" else 3.0e38
    for name in isas:
        kernels.use_isa(name)
        for n, threads, big in ((1037, 1, top / 2), (1037, 1, 1024.0), (2600, 2, 1.0e4), (3, 1, 1.0)):
            xs = _exact_path_inputs(rng, dtype, k, n, big)
            want = mean_truth(xs)
            got = meancli.mean(*xs, out=xs[0], threads=threads)
            assert got is xs[0]
            assert same_bits(got, want), (name, n)


def _bias_row_inputs(rng: np.random.Generator, dtype: str, rows: int, width: int) -> list[np.ndarray]:
    """A full (rows, width) input x, two bias rows b1 and b2 (width,) and a
    column c (rows, 1), float values of mean about 1, with: b1 far smaller
    than the rest at 80 columns of the second tile (that tile's sums are not
    exact in double; the others are), x cancelling b2 over the first 40
    columns (to a small rest), and -0.0 in every input at columns 1000-1009
    of row 0."""
    np_dtype = oracles.DTYPES[dtype]
    tiny = {"float16": 2.0**-20, "float64": 2.0**-600}.get(dtype, 2.0**-100)
    x, b1, b2 = (rng.standard_normal(shape) + 1 for shape in ((rows, width), (width,), (width,)))
    c = rng.standard_normal((rows, 1)) + 1
    b1[520:600] = tiny
    x[:, :40] = -b2[:40] + rng.standard_normal((rows, 40)) * 2.0**-8
    if width > 1010:
        for v in (x[0], b1, b2):
            v[1000:1010] = -0.0
        c[0] = -0.0
    return [np.asarray(v).astype(np_dtype) for v in (x, b1, b2, c)]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", FLOATS)
def test_mean_of_bias_rows(dtype: str, isas: tuple[str, ...]) -> None:
    """Inputs broadcast along every dim but the inner one (bias rows) are
    summed once per call, with their values' bound per column tile: rows of
    1100 columns (tiles of 512, 512 and 76) where one tile's bias values
    alone make its sums inexact, inputs that cancel the bias, -0.0 in every
    input, 1 or 2 bias rows with and without a broadcast column, and a row
    of 70000 columns (too wide to sum ahead). Cached and streamed stores,
    in place into the full input and not; every instruction set, 1 and 2
    threads."""
    rng = np.random.default_rng(7)
    x, b1, b2, c = _bias_row_inputs(rng, dtype, 6, 1100)
    wide = _bias_row_inputs(rng, dtype, 2, 70000)
    sets = [[x, b1], [x, b1, b2, c], [x, b2, c], [b1, c], [wide[0], wide[1]]]
    wants = [mean_truth(xs) for xs in sets]
    threshold = kernels.mean_stream_bytes()
    try:
        for name in isas:
            kernels.use_isa(name)
            for streamed in (False, True):
                kernels.mean_stream_bytes(1 if streamed else threshold)
                for xs, want in zip(sets, wants, strict=True):
                    for threads in (1, 2):
                        got = meancli.mean(*xs, threads=threads)
                        assert same_bits(got, want), (name, streamed, threads, [v.shape for v in xs])
                        if xs[0].shape == want.shape:
                            inplace = xs[0].copy()
                            assert meancli.mean(inplace, *xs[1:], out=inplace, threads=threads) is inplace
                            assert same_bits(inplace, want), (name, streamed, threads, "in place")
    finally:
        kernels.mean_stream_bytes(threshold)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 8, 64, 65])
def test_float64_mean_lanes_at_their_limits(k: int, isas: tuple[str, ...]) -> None:
    """float64 Mean splits each output's values against sigmas of its own
    largest |x|: values right at the edge of what two levels hold (2^(50 -
    2c) below the largest, 2^c >= k), largest values at 2^1000 and around
    2^-900 (where the lane goes exact), means below the normal range, one
    input broadcast, outputs after the last whole vector (out at every
    8-byte offset) and units narrower than a vector; nothing outside out is
    written."""
    rng = np.random.default_rng(k)
    c = max(0, (k - 1).bit_length())
    n = 203
    x = rng.standard_normal((k, n)) * 2.0 ** rng.integers(-4, 4, (k, n))
    top = np.abs(x).max(axis=0)
    for shift in range(46 - 2 * c, 58 - c):  # around the second level's last bit
        cols = rng.choice(n, 12, replace=False)
        x[-1, cols] = np.ldexp(top[cols], -shift) * (1 + 2.0**-52)
    if k > 1:  # a tie of the sum (1 + 2^-51 + 2^-53), moved off it by far smaller parts, or not
        cols = np.arange(0, n, 3)
        x[:, cols] = 0.0
        x[0, cols] = 1 + 2.0**-51
        x[1, cols] = np.ldexp(1 + np.ldexp(1.0, -rng.integers(44, 53, cols.size)), -53)
        x[1, cols[::4]] = 2.0**-53
        x[:, cols[1::2]] *= -1
    scaled = [x * 2.0**990, x * 2.0**-895, x * 2.0**-905, np.ldexp(np.sign(x), 1000), x * 2.0**-1066]
    cases = [list(x), *map(list, scaled)] + ([[*x[:-1], x[-1, :1]]] if k > 1 else [])
    for name in isas:
        kernels.use_isa(name)
        for xs in cases:
            want = mean_truth(xs)
            for width, offset in [(n, o) for o in range(8)] + [(w, 3) for w in (1, 2, 3, 5)]:
                buf = np.full(n + 24, 7.0)  # out, and values either side that must stay as they are
                start = 8 + offset
                out = buf[start : start + width]
                meancli.mean(*[v[..., :width] if v.shape[-1] == n else v for v in xs], out=out, threads=1)
                assert same_bits(out, want[..., :width]), (name, width, offset)
                assert (buf[:start] == 7.0).all() and (buf[start + width :] == 7.0).all(), (name, width)


@pytest.mark.parametrize("n", [32767, 32768, 32769])
def test_float64_sums_beyond_dbl_max_with_finite_means(n: int, isas: tuple[str, ...]) -> None:
    """float64 values of 2^1000 to 2^1013 with mixed signs, about a run's
    chunk of values (32768: one chunk takes its mean straight from the kept
    double sum, more combine their partials): the blocks' sums added on in
    double pass DBL_MAX while the mean is finite. As runs (one reduced
    whole) and as rows of 8 columns; every instruction set, 1 and 2 threads."""
    rng = np.random.default_rng(n)
    # exponents 1011 down to 1000, each half as likely as the one above (|x| averages
    # 2^1011): below 2^1012, so the blocks' fast sums are kept (the exact path takes larger)
    x = np.ldexp(rng.uniform(1.0, 2.0, (n, 8)), 1012 - np.minimum(rng.geometric(0.5, (n, 8)), 12))
    x *= rng.choice([-1.0, 1.0], (n, 8), p=[0.2, 0.8])  # sums of about 2^1025
    # columns 0 and 1 on a grid of 2^992: the kept sum of their blocks' sums stays exact
    # in double until it passes DBL_MAX (column 1: positive, then as many negative)
    x[:, :2] = np.ldexp(np.round(x[:, :2] * 2.0**-992), 992)
    x[:, 1] = np.abs(x[:, 1]) * np.where(np.arange(n) < n // 2, 1.0, -1.0)
    x[:, 2] = np.abs(x[:, 2]) * rng.choice([-1.0, 1.0], n)  # signs at random
    # column 3: some up to 2^1013 (blocks on the exact path between kept ones); its second
    # half cancels the first in another order but for one ulp, so a bit lost shows
    x[::5, 3] *= 2.0
    half = n // 2
    x[half : 2 * half, 3] = -x[:half, 3][rng.permutation(half)]
    x[half, 3] = np.nextafter(x[half, 3], 0.0)
    runs = np.ascontiguousarray(x.T)
    with np.errstate(over="ignore", invalid="ignore"):
        assert not np.isfinite(np.cumsum(runs[:2], axis=1)).all(axis=1).any()
    cases = [(runs[0], (0,)), (runs[1], (0,)), (runs[3], (0,)), (runs, (1,)), (x, (0,))]
    wants = [truth(arr, axes) for arr, axes in cases]
    assert all(np.isfinite(w).all() for w in wants)
    _exact_on_every_isa(cases, isas, wants)


def _at_split_threshold(rng: np.random.Generator, m: int, nb: int, width: int) -> np.ndarray:
    """Three blocks of nb float32 values (nb a power of two, 2^cl) down each
    of `width` columns, built so a block splits at T = cl + m + 24 - 53 (the
    threshold split_threshold picks from a largest value of exponent m):
    block 1 holds values in [1.5, 2) 2^m, two of exactly 2^T, one just below
    2^T (late in the block) and three small ones (k 2^(T - 12)): it fails
    its one-sum check, and its part of values >= 2^T sums exactly only
    without the one just below (with it, that part's exact sum is an odd
    multiple of 2^(T - 24) of at least 2^(m + cl): no double). Blocks 2 and
    3 negate block 1 but for the small values, half each, so the mean is
    that of the small values: a bit lost anywhere shows."""
    t = (nb - 1).bit_length() + m + 24 - 53
    block = np.ldexp(rng.uniform(1.5, 2.0, (nb, width)), m)
    block[[5, 17]] = 2.0**t
    block[nb - 24] = 2.0**t * (1 - 2.0**-24)
    small = [3, 40, nb - 9]  # odd multiples of 2^(T - 12), three a column: never a zero sum
    block[small] = rng.choice([-7, -3, -1, 1, 5], (len(small), width)) * 2.0 ** (t - 12)
    block = block.astype(np.float32)
    negated = -block
    negated[small] = 0.0
    half = nb // 2
    zeros = np.zeros((half, width), np.float32)
    return np.concatenate([block, negated[:half], zeros, zeros, negated[half:]])


@pytest.mark.parametrize("m", [-90, 0, 40, 100])
def test_float32_blocks_split_at_their_threshold(m: int, isas: tuple[str, ...]) -> None:
    """float32 blocks whose values sit at exactly 2^T and just below, T the
    exponent that splits a block into a part at or above 2^T and one below
    (split_block for a run of blocks of 1024 values; rows_split for blocks
    of 256 rows, T from the largest value of the whole block): the small
    values decide the mean. Every instruction set, 1 and 2 threads."""
    rng = np.random.default_rng(m + 1000)
    runs = np.ascontiguousarray(_at_split_threshold(rng, m, 1024, 5).T)  # 5 runs of 3 blocks
    rows = _at_split_threshold(rng, m, 256, 40)  # rows of 40 columns: vector registers and a tail
    cases = [(runs, (1,)), (rows, (0,))]
    wants = [truth(arr, axes) for arr, axes in cases]
    assert all((w != 0).all() for w in wants)
    _exact_on_every_isa(cases, isas, wants)


def _bfloat16_tie_rows(rng: np.random.Generator, rows: int, spread: int, scale: int) -> np.ndarray:
    """bfloat16 rows of 1024 values (one block each): 896 in [1, 2) * 2^scale
    whose sum makes the mean an exact bfloat16 tie, and 64 pairs +-v of
    values 2^spread below them with their last bit set (their sum is 0): a
    float32 sum of 3 large values and one of these is not exact when
    spread > 14, and its rounding moves the mean off the tie."""
    out = np.empty((rows, 1024), np.float64)
    for r in range(rows):
        m = rng.integers(128, 256, 896)  # significands: m * 2^-7 in [1, 2)
        d = (512 - int(m.sum())) % 1024  # the sum (in 2^-7) must be 512 mod 1024
        d = d - 1024 if d > 512 else d
        movable = np.flatnonzero(m < 255 if d > 0 else m > 128)  # stays in [128, 255]
        m[rng.permutation(movable)[: abs(d)]] += np.sign(d)
        assert int(m.sum()) % 1024 == 512
        small = (128 + 2 * rng.integers(0, 64, 64) + 1) * 2.0 ** (-7 - spread)
        vals = np.concatenate([m * 2.0**-7, small, -small])
        out[r] = rng.permutation(vals) * 2.0**scale
    return out.astype(oracles.DTYPES["bfloat16"])


def test_bfloat16_blocks_at_the_float32_quad_limit(isas: tuple[str, ...]) -> None:
    """bfloat16 runs are summed 4 values at a time in float32 where the
    block's values span at most 2^14 (quads_exact), else again in double:
    means on an exact tie with far smaller values 2^14 and 2^15 below the
    rest (a float32 quad would round at 2^15), blocks of values near 2^126
    (4 of them overflow float32) and 2^125, subnormals, zeros and -0.0s.
    Every instruction set, 1 and 2 threads."""
    rng = np.random.default_rng(11)
    bf16 = oracles.DTYPES["bfloat16"]
    near_top = (rng.uniform(1.5, 1.9, (4, 1024)) * 2.0**126).astype(bf16)  # in [2^126, 2^127)
    cases = [
        _bfloat16_tie_rows(rng, 32, 14, 0),
        _bfloat16_tie_rows(rng, 32, 15, 0),
        _bfloat16_tie_rows(rng, 8, 15, -110),
        near_top,
        (near_top.astype(np.float64) / 2).astype(bf16),
        (rng.integers(1, 128, (4, 1024)) * 2.0**-133).astype(bf16),  # subnormals
        np.array([[0.0] * 1024, [-0.0] * 1024, [-0.0, 0.0] * 512], bf16),
    ]
    wants = [truth(x, (1,)) for x in cases]
    assert np.isfinite(wants[3].astype(np.float64)).all()
    for name in isas:
        kernels.use_isa(name)
        for x, want in zip(cases, wants, strict=True):
            for threads in (1, 2):
                got = meancli.reduce_mean(x, axes=[1], keepdims=True, threads=threads)
                assert same_bits(got, want), (name, threads, x[0, :4])


def _exact_on_every_isa(
    cases: list[tuple[np.ndarray, tuple[int, ...]]],
    isas: tuple[str, ...],
    wants: list[np.ndarray] | None = None,
) -> None:
    """ReduceMean of each (x, axes) is the exact mean rounded once (wants,
    when the caller has it already), on every instruction set, 1 and 2 threads."""
    wants = wants if wants is not None else [truth(x, axes) for x, axes in cases]
    for name in isas:
        kernels.use_isa(name)
        for (x, axes), want in zip(cases, wants, strict=True):
            for threads in (1, 2):
                got = meancli.reduce_mean(x, axes=list(axes), keepdims=True, threads=threads)
                assert same_bits(got, want), (name, x.shape, axes, threads)


@pytest.mark.parametrize("dtype", FLOATS)
def test_reductions_of_few_rows(dtype: str, isas: tuple[str, ...]) -> None:
    """A reduction over a kept innermost dim with at most 48 (float64: 64)
    rows per output is computed as the Mean of those rows: row counts on
    both sides of those limits, adversarial values, rows over two reduced
    dims, C and Fortran order (the columns then strided in the output), 3
    column tiles. Every instruction set, 1 and 2 threads."""
    rng = np.random.default_rng(5)
    cases = []
    for nred, kind in ((1, "cancel"), (2, "tie"), (3, "spread"), (7, "overflow"), (16, "subnormal")):
        cases.append((adversarial.values(rng, dtype, 3 * nred * 1100, kind).reshape(3, nred, 1100), (1,)))
    for nred, kind in ((47, "sparse_tiny"), (48, "cancel"), (49, "tie"), (64, "special"), (65, "spread")):
        cases.append((adversarial.values(rng, dtype, 2 * nred * 70, kind).reshape(2, nred, 70), (1,)))
    cases.append((adversarial.values(rng, dtype, 4 * 3 * 5 * 40, "cancel").reshape(4, 3, 5, 40), (0, 2)))
    cases += [(np.asfortranarray(x), axes) for x, axes in cases[:4]]
    _exact_on_every_isa(cases, isas)


@pytest.mark.parametrize("dtype", FLOATS)
def test_reductions_of_short_runs(dtype: str, isas: tuple[str, ...]) -> None:
    """A reduction of the innermost dim with at most 32 values per output
    is computed as the Mean of those values: runs of 1, 2, 3, 4, 8, 16, 32
    and 33 values, adversarial and special values, runs over two reduced dims, outputs strided
    (a kept dim between the reduced ones), and a float64 run whose first
    block picks its sigmas in the vector loop (300 values). Every
    instruction set, 1 and 2 threads."""
    rng = np.random.default_rng(9)
    cases = []
    for nred, kind in (
        (1, "cancel"),
        (2, "tie"),
        (3, "spread"),
        (4, "special"),
        (8, "sparse_tiny"),
        (16, "overflow"),
        (32, "subnormal"),
        (33, "cancel"),
    ):
        cases.append((adversarial.values(rng, dtype, 1100 * nred, kind).reshape(1100, nred), (1,)))
    cases.append((adversarial.values(rng, dtype, 600 * 3 * 4, "sparse_tiny").reshape(600, 3, 4), (1, 2)))
    cases.append((adversarial.values(rng, dtype, 3 * 700 * 5, "special").reshape(3, 700, 5), (0, 2)))
    cases.append((adversarial.values(rng, dtype, 40 * 300, "benign").reshape(40, 300), (1,)))
    _exact_on_every_isa(cases, isas)


@pytest.fixture
def every_mean_output_streamed() -> Iterator[None]:
    """Mean writes every output with non-temporal stores (where the ISA has
    them and the output is aligned for them); the threshold is restored after."""
    threshold = kernels.mean_stream_bytes()
    kernels.mean_stream_bytes(1)
    yield
    kernels.mean_stream_bytes(threshold)


def _nan_filled_at(shape: tuple[int, ...], dtype: np.dtype[Any], offset: int) -> np.ndarray:
    """A C-contiguous array of NaNs whose first element is `offset` bytes past a 64-byte boundary."""
    nbytes = int(np.prod(shape)) * dtype.itemsize
    buf = np.empty(nbytes + 128, np.uint8)
    start = -buf.ctypes.data % 64 + offset
    out = buf[start : start + nbytes].view(dtype).reshape(shape)
    out[...] = np.nan
    return out


@pytest.mark.usefixtures("every_mean_output_streamed")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("width", [1100, 4, 12, 28, 1101])
def test_streamed_mean_into_out_at_every_offset(
    dtype: str, k: int, width: int, isas: tuple[str, ...]
) -> None:
    """Mean with every output streamed into an `out=` array whose first
    element sits at each offset its dtype allows from a 64-byte boundary (so
    each row and column tile starts at another alignment: the outputs before
    the first aligned vector go out in 16-byte quarters, or, off a 16-byte
    boundary, by cached stores alone): 2 and 3 inputs, one of them broadcast
    or none; benign values, near ties and means far below 1. Rows of 1100
    (tiles of 512, 512 and 76 outputs, rows 4400 bytes apart), of 4 and 12
    (narrower than a vector), 28 (quarters at both ends of one vector) and
    1101 (rows not a multiple of 16 bytes: cached stores). Every output is
    the exact mean rounded once, none left unwritten (out starts as NaNs).
    Every instruction set."""
    rng = np.random.default_rng(k)
    rows = 3
    sets = []
    for scale in (0, -120):
        if dtype == "float64":
            v = _float64_near(rng, k, rows * width, 2.0**53, 40) * 2.0**scale
        elif k >= 3:
            v = np.stack([np.concatenate(_tie_inputs(rng, k, width, scale)) for _ in range(rows)], 1)
        else:
            v = np.ldexp(rng.standard_normal((k, rows * width)), scale)
        xs = list(v.astype(dtype).reshape(k, rows, width))
        sets += [xs, [*xs[:-1], xs[-1][:, :1]]]
    for name in isas:
        kernels.use_isa(name)
        for xs in sets:
            want = mean_truth(xs)
            step = np.dtype(dtype).itemsize  # out must be aligned for its dtype
            for offset in range(0, 64, step):
                for threads in (1, 2):
                    out = _nan_filled_at(want.shape, np.dtype(dtype), offset)
                    assert meancli.mean(*xs, out=out, threads=threads) is out
                    assert same_bits(out, want), (name, offset, threads, [x.shape for x in xs])
