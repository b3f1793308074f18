"""The compare kernel's vector paths (templates/kernel_compare.c.j2): the cases their
shortcuts could get wrong, each checked against the portable scalar loop bit for bit and
against exact values.

The shortcuts: for the types of up to 32 bits, the errors are looked at as floats and
computed in doubles only in the vectors where one may pass the largest so far
(cmp_abs_threshold, cmp_rel_threshold); for every type, NaN lanes are found by a float
compare and counted in the vectors that hold one, the counts stay in the lanes over
blocks of 8 chunks of 256 elements, and a chunk is skipped when its bytes are equal,
looked at 64 (AVX-512) or 32 (AVX2) bytes at a time and the rest by memcmp. Each
instruction set the CPU has runs (kernels.use_isa); those it lacks are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from meancli import kernels
from meancli.dtypes import spec_name

BF16 = np.dtype(ml_dtypes.bfloat16)
NARROW_FLOATS = [np.dtype(np.float32), np.dtype(np.float16), BF16]
FLOATS = [*NARROW_FLOATS, np.dtype(np.float64)]
UINT: dict[int, Any] = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


@pytest.fixture(scope="module")
def isas() -> Iterator[tuple[str, ...]]:
    """The instruction sets to run; the comparison's level is put back afterwards."""
    before = {dt: kernels.isa(dt, "compare") for dt in ("float32", "float16", "bfloat16", "float64")}
    yield kernels.supported_isas()
    for name, isa in before.items():
        kernels.use_isa(isa, name, "compare")


def stats(a: np.ndarray, b: np.ndarray, isa: str, threads: int = 1) -> kernels.CompareStats:
    name = spec_name(a.dtype)
    kernels.use_isa(isa, name if name in ("float32", "float16", "bfloat16", "float64") else None, "compare")
    return kernels.run_compare(name, np.ascontiguousarray(a), np.ascontiguousarray(b), threads)


def same_everywhere(
    isas: tuple[str, ...], a: np.ndarray, b: np.ndarray, threads: int = 1
) -> kernels.CompareStats:
    """The portable loop's statistics, after checking that every vector level gives them."""
    want = stats(a, b, "portable", threads)
    for isa in isas[1:]:
        assert repr(stats(a, b, isa, threads)) == repr(want), isa
    return want


def exact_abs(a: Any, b: Any) -> float:
    """|b - a| of two finite values, rounded once to double (what the scalar loop computes)."""
    return float(abs(Fraction(float(b)) - Fraction(float(a))))


def step(x: np.ndarray, k: int) -> np.ndarray:
    """x moved k representable values up (positive values; the bits)."""
    u = UINT[x.dtype.itemsize]
    return (x.view(u) + np.array(k, dtype=u)).view(x.dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=spec_name)
def test_nan_lanes(isas: tuple[str, ...], dtype: np.dtype[Any]) -> None:
    """NaN mismatches in the first and last lane of a vector, in a tail, beside a new
    largest error in the same vector, and NaN for NaN (a match) all over one vector."""
    n = 2048 + 37  # a block and a tail of a vector
    a = np.linspace(1, 3, n).astype(dtype)
    b = step(a, 1)
    b[40:56] = np.nan  # NaN for a number, a whole vector of 16 (two of 8)
    a[100:116] = np.nan
    b[100:116] = np.nan  # NaN for NaN: matches
    b[300] = a[300] * 8  # the largest error...
    a[301] = np.nan  # ...and a NaN mismatch in the same vector
    b[n - 1] = np.nan  # the last element, in the tail
    a[n - 2] = b[n - 2] = -np.inf  # equal infinities: distance 0, error NaN (left out)
    got = same_everywhere(isas, a, b)
    assert got.nan_mismatch == 16 + 1 + 1
    assert got.first_nan == 40
    assert got.max_abs == exact_abs(a[300], b[300])
    assert got.buckets[0] == 16 + 1  # the NaN-for-NaN lanes, the infinities
    only_tail = a.copy()
    only_tail[n - 3] = np.nan
    got = same_everywhere(isas, a, only_tail)
    assert (got.nan_mismatch, got.first_nan, got.examined) == (1, n - 3, n - 2048)


@pytest.mark.parametrize(
    "dtype", [*FLOATS, np.dtype(np.int16), np.dtype(np.uint8), np.dtype(np.int64)], ids=spec_name
)
def test_ties_of_the_largest_distance(isas: tuple[str, ...], dtype: np.dtype[Any]) -> None:
    """The largest distance first at index 0 (the first lane of the first chunk) and again
    in later chunks and blocks; then first in a tail: the first one is reported."""
    n = 3 * 2048 + 5
    if dtype.kind in "iu":
        a = (np.arange(n) % 50).astype(dtype)
        b = a + np.array(1, dtype)
        b[[0, 700, 2048, n - 1]] = a[[0, 700, 2048, n - 1]] + np.array(3, dtype)
    else:
        a = np.linspace(1, 2, n).astype(dtype)
        b = step(a, 1)
        b[[0, 700, 2048, n - 1]] = step(a[[0, 700, 2048, n - 1]], 3)
    got = same_everywhere(isas, a, b)
    assert (got.max_ulp, got.at_max) == (3, 0)
    c = a.copy()
    c[n - 1] = b[n - 1]
    c[n - 3] = b[n - 1]  # a larger distance only in the tail, twice
    got = same_everywhere(isas, a, c)
    assert got.at_max == n - 3 and got.examined == 5


@pytest.mark.parametrize(
    "dtype", [*FLOATS, np.dtype(np.int8), np.dtype(np.int32), np.dtype(np.uint64)], ids=spec_name
)
@pytest.mark.parametrize("n", [1, 15, 16, 17, 255, 256, 257, 2047, 2048, 2049, 4096 + 300])
def test_chunk_and_block_tails(isas: tuple[str, ...], dtype: np.dtype[Any], n: int) -> None:
    """One difference at each place a loop ends: the first and last element, the last of
    the first chunk, the first of the second block, and past the first 64 bytes of a chunk
    (the bytes looked at first); the chunks examined are those that hold one."""
    a = (np.arange(n) % 7 + 1).astype(dtype)
    for where in sorted({0, n - 1, min(255, n - 1), min(2048, n - 1), min(40, n - 1)}):
        b = a.copy()
        b[where] = a[where] + (np.array(1, dtype) if dtype.kind in "iu" else a[where])
        got = same_everywhere(isas, a, b)
        assert got.examined == min(n, (where // 256 + 1) * 256) - where // 256 * 256
        assert (got.max_ulp > 0, got.at_max) == (True, where)
        assert got.buckets[1:].count(0) == 3 and sum(got.buckets) == got.examined


def test_an_error_that_only_doubles_tell_apart(isas: tuple[str, ...]) -> None:
    """float32 errors equal as floats but not as doubles: 2^24 + 2 (exact), then
    2^24 + 2 + 2^-27, which rounds to the same float but not to the same double; the
    larger must be found though its float does not pass the first (and its relative
    error, about 1, is below the largest, 2: only the absolute error's test finds it)."""
    a = np.full(64, 1.0, np.float32)
    b = step(a, 1)
    a[3], b[3] = np.float32(2**24 + 2), np.float32(0)
    a[5], b[5] = 1, 3
    a[50], b[50] = np.float32(2**24 + 2), np.float32(-(2.0**-27))
    got = same_everywhere(isas, a, b)
    assert got.max_abs == 2**24 + 2 + 2.0**-27 == exact_abs(a[50], b[50])
    assert got.max_rel == 2.0


@pytest.mark.parametrize("dtype", NARROW_FLOATS, ids=spec_name)
def test_relative_errors(isas: tuple[str, ...], dtype: np.dtype[Any]) -> None:
    """Relative errors growing by one value at a time (the threshold moves each time),
    beyond float's range (a tiny value for a huge one), inf (0 expected, another value),
    equal zeros (0 / 0, left out), subnormals."""
    tiny = float(np.finfo(dtype).smallest_subnormal)
    n = 1000
    a = np.linspace(2, 1, n).astype(dtype)  # |a| falls: the same step is a larger relative error
    b = step(a, 1)
    got = same_everywhere(isas, a, b)
    rels = [Fraction(exact_abs(x, y)) / Fraction(float(x)) for x, y in zip(a, b, strict=True)]
    assert got.max_rel == float(max(rels))
    c = b.copy()
    c[10], a[10] = np.finfo(dtype).max, np.finfo(dtype).tiny
    c[20], a[20] = 0, 0
    c[30], a[30] = 2 * tiny, tiny
    got = same_everywhere(isas, a, c)
    assert got.max_rel == float(Fraction(exact_abs(a[10], c[10])) / Fraction(float(a[10])))
    c[700], a[700] = tiny, 0
    got = same_everywhere(isas, a, c)
    assert got.max_rel == np.inf


def test_int32_relative_errors_rising(isas: tuple[str, ...]) -> None:
    """int32: the same difference over values falling from 2^31 - 1 (each relative error
    just above the last, |a| rounded up as a float) and the extremes."""
    a = (np.int64(2**31 - 1) - np.arange(5000)).astype(np.int32)
    b = a - np.int32(1)
    got = same_everywhere(isas, a, b)
    assert got.max_rel == float(Fraction(1, int(a[-1])))
    a[4000], b[4000] = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    got = same_everywhere(isas, a, b)
    assert (got.max_ulp, got.at_max, got.max_abs) == (2**32 - 1, 4000, float(2**32 - 1))


@pytest.mark.parametrize("dtype", NARROW_FLOATS, ids=spec_name)
def test_every_error_a_tie(isas: tuple[str, ...], dtype: np.dtype[Any]) -> None:
    """Every element in one binade, one value off: every vector holds the largest error
    (the exact path each time), and two threads split it the same way on every level."""
    n = (1 << 20) + 77
    a = np.linspace(1, 2, n, endpoint=False).astype(dtype)
    b = step(a, 1)
    got = same_everywhere(isas, a, b, threads=2)
    errors = np.abs(b.astype(np.float64) - a.astype(np.float64))  # exact: one value apart
    assert got.buckets[1] == n and got.max_abs == errors.max()


@pytest.mark.parametrize("dtype", NARROW_FLOATS, ids=spec_name)
@pytest.mark.parametrize("where", ["near 1", "near the largest value", "near the smallest normal"])
@pytest.mark.parametrize("sign", [1, -1])
def test_quick_pass_a_quotient_a_hair_above_the_largest(
    isas: tuple[str, ...], dtype: np.dtype[Any], where: str, sign: int
) -> None:
    """The quick pass approximates the relative errors (within 2^-13 on AVX-512, 2^-10 on
    AVX2) and hands on a chunk where one may pass the largest so far. Here every third
    chunk holds an element whose exact quotient passes the largest before it by a hair
    (2^-23 of it for float32: its |a| one value smaller, the same error); the chunks
    between are the quick pass's. Near the largest value (reciprocals near the smallest
    normal) and near the smallest normal (a / 4 subnormal: AVX2's reciprocal is inf)."""
    info = np.finfo(dtype)
    m = {
        "near 1": 1.0,
        "near the largest value": float(info.max) / 2,
        "near the smallest normal": float(info.tiny),
    }[where]
    u = UINT[dtype.itemsize]
    n = 256 * 40
    a = np.full(n, 1.9 * m, dtype=dtype)  # relative errors 1 / 1.9 of a value's spacing
    b = step(a, 1)
    hairs = list(range(256 * 2 + 37, n, 256 * 3))
    for k, at in enumerate(hairs):  # 1.5 * m less k values: each passes the last by a hair
        a[at] = (np.array(1.5 * m, dtype=dtype).view(u) - np.array(k, dtype=u)).view(dtype)
        b[at] = step(a[at : at + 1], 1)[0]
    a, b = (a * sign).astype(dtype), (b * sign).astype(dtype)
    got = same_everywhere(isas, a, b)
    last = hairs[-1]
    assert got.max_rel == float(Fraction(exact_abs(a[last], b[last])) / abs(Fraction(float(a[last]))))
    assert got.max_abs == max(exact_abs(x, y) for x, y in zip(a, b, strict=True))
    assert (got.max_ulp, got.buckets[1]) == (1, n)


@pytest.mark.parametrize("dtype", NARROW_FLOATS, ids=spec_name)
@pytest.mark.parametrize(
    "kind",
    [
        "sign flipped",
        "-0 for +0",
        "a binade apart",
        "a binade and one value apart",
        "NaN got",
        "NaN expected",
        "inf for inf",
        "inf for the largest value",
        "NaN for the largest value",
        "NaN for NaN",
        "a larger error",
        "0 for 0",
        "a value for 0",
    ],
)
def test_quick_pass_hands_on_each_kind_of_chunk(
    isas: tuple[str, ...], dtype: np.dtype[Any], kind: str
) -> None:
    """A result 0 to 2 values off (the quick pass's chunks), one element of a kind the
    quick pass cannot tell in some chunks: each level gives the scalar loop's statistics,
    and the counts add up."""
    info = np.finfo(dtype)
    u = UINT[dtype.itemsize]
    n = 256 * 30 + 11
    rng = np.random.default_rng(8)
    a = (np.where(rng.random(n) < 0.5, -1, 1) * (1 + rng.random(n))).astype(dtype)
    b = (a.view(u) + rng.integers(0, 3, n).astype(u)).view(dtype)  # away from 0: |b| >= |a|

    def away(x: Any, k: int) -> Any:
        """x moved k values away from 0."""
        return (np.abs(np.array([x], dtype)).view(u) + np.array(k, u)).view(dtype)[0] * np.sign(x)

    binade = 1 << info.nmant  # values to twice the value
    nan, inf, big = np.array(np.nan, dtype), np.array(np.inf, dtype), np.array(info.max, dtype)
    for at in range(256 * 3 + 5, n, 256 * 4):
        x = a[at]
        a[at], b[at] = {
            "sign flipped": (x, -x),
            "-0 for +0": (0.0, -0.0),
            "a binade apart": (x, away(x, binade)),
            "a binade and one value apart": (x, away(x, binade + 1)),
            "NaN got": (x, nan),
            "NaN expected": (nan, b[at]),
            "inf for inf": (inf, inf),
            "inf for the largest value": (big, inf),
            # the bits a few values apart
            "NaN for the largest value": (big, nan),
            "NaN for NaN": (nan, (nan.view(u) + np.array(1, u)).view(dtype)),
            "a larger error": (x, away(x, 3 + at // 256)),
            "0 for 0": (0.0, 0.0),
            "a value for 0": (0.0, info.smallest_subnormal),
        }[kind]
    got = same_everywhere(isas, a, b)
    assert sum(got.buckets) + got.nan_mismatch == got.examined == n


@pytest.mark.parametrize("dtype", NARROW_FLOATS, ids=spec_name)
def test_quick_pass_the_buckets_edges(isas: tuple[str, ...], dtype: np.dtype[Any]) -> None:
    """Every chunk holds distances on each side of the histogram's edges (1, 2, 4, 5, 16, 17)
    and one of 100: the quick pass takes most chunks once the largest errors are found, and
    counts each bucket (AVX2: bytes by a table up to 7, above 16 counted again after the chunk)."""
    n = 256 * 40 + 3
    rng = np.random.default_rng(16)
    a = (np.where(rng.random(n) < 0.5, -1, 1) * (1 + rng.random(n))).astype(dtype)
    d = np.array([0, 1, 2, 4, 5, 16, 17, 0, 1, 100], np.int64)[np.arange(n) % 10]
    u = UINT[dtype.itemsize]
    b = ((np.abs(a).view(u) + d.astype(u)).view(dtype) * np.sign(a)).astype(dtype)  # away from 0
    got = same_everywhere(isas, a, b)
    want = [
        np.sum(d == 0),
        np.sum(d == 1),
        np.sum((d >= 2) & (d <= 4)),
        np.sum((d >= 5) & (d <= 16)),
        np.sum(d > 16),
    ]
    assert (list(got.buckets), got.max_ulp, got.ulp_sum) == (want, 100, int(d.sum()))


def test_quick_pass_an_error_the_float_subtraction_rounds(isas: tuple[str, ...]) -> None:
    """The quick pass takes the float subtraction for the error only where the two are at
    most a binade apart (exact there). Here 0.5 + 3 * 2^-24 for 4.0 (more than a binade
    apart): the error, 3.5 - 0.75 * 2^-22, rounds down to a float that equals max_abs
    so far (3.5 - 2^-22, exact), which it passes; the largest relative error is far above
    its own (2^-10 for 2^-5)."""
    n = 256 * 8
    a = np.linspace(1, 2, n, endpoint=False).astype(np.float32)
    b = step(a, 1)
    a[5], b[5] = 2.0**-10, 2.0**-5
    a[300], b[300] = 0.5, 4 - 2.0**-22
    a[1000], b[1000] = 0.5 + 3 * 2.0**-24, 4.0
    got = same_everywhere(isas, a, b)
    assert got.max_abs == exact_abs(a[1000], b[1000]) == 3.5 - 0.75 * 2.0**-22
    assert got.max_rel == 31.0


def test_the_compare_kind_has_its_own_level() -> None:
    """The comparison's instruction set is its own ISA group ("compare"), set apart from
    the reductions' ("run")."""
    if len(kernels.supported_isas()) < 2:
        pytest.skip("no vector instruction set here")
    run_before, cmp_before = kernels.isa("float32", "run"), kernels.isa("float32", "compare")
    try:
        kernels.use_isa("portable", "float32", "compare")
        assert kernels.isa("float32", "compare") == "portable"
        assert kernels.isa("float32", "run") == run_before
    finally:
        kernels.use_isa(cmp_before, "float32", "compare")


@pytest.mark.parametrize("at", [0, 5, 300, 1999])
def test_float64_errors_beyond_the_largest_double(isas: tuple[str, ...], at: int) -> None:
    """Two finite float64 of opposite signs whose difference passes the largest double:
    max_abs is that difference rounded to double (inf), max_rel is |b - a| / |a|, finite
    (it was reported as inf); an infinity expected or given is inf, in every path."""
    m = 0.75 * float(np.finfo(np.float64).max)
    rng = np.random.default_rng(at)
    a = rng.random(2000) + 1.0
    b = a.copy()
    b[::7] = np.nextafter(a[::7], 3.0)  # 1 ulp off
    a[at], b[at] = m, -m
    got = same_everywhere(isas, a, b)
    assert got.max_abs == np.inf  # |b - a| = 1.5 * DBL_MAX: inf as a double
    assert got.max_rel == 2.0  # exactly |-m - m| / m
    a[at], b[at] = -m, m / 2
    got = same_everywhere(isas, a, b)
    assert (got.max_abs, got.max_rel) == (np.inf, float(1 + Fraction(m / 2) / Fraction(m)))
    for x, y in [(np.inf, 1.0), (1.0, -np.inf), (np.inf, -np.inf)]:
        a[at], b[at] = x, y
        got = same_everywhere(isas, a, b)
        assert (got.max_abs, got.max_rel) == (np.inf, np.inf), (x, y)


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float64)], ids=["float32", "float64"])
def test_max_rel_against_the_exact_quotient(isas: tuple[str, ...], dtype: np.dtype[Any]) -> None:
    """max_rel is |b - a| rounded to double, divided by |a| and rounded again: the exact
    quotient correctly rounded where the difference is exact in a double (every float32
    pair), at most 1 ulp from it for float64 values far apart (docs/cli.md)."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(dtype)
        b = (a * (1 + rng.standard_normal(n) * 10.0 ** rng.integers(-8, 3, n))).astype(dtype)
        got = same_everywhere(isas, a, b)
        exact = max(
            abs(Fraction(float(y)) - Fraction(float(x))) / abs(Fraction(float(x)))
            for x, y in zip(a, b, strict=True)
        )
        want = float(exact)  # the exact quotient, correctly rounded
        if dtype == np.float32:
            assert got.max_rel == want
        else:
            assert abs(got.max_rel - want) <= np.spacing(want), (got.max_rel, want)


def test_max_rel_of_64_bit_integers_far_apart(isas: tuple[str, ...]) -> None:
    """int64 differences beyond 2**53 are rounded to double before the division (docs/cli.md):
    max_rel at most 1 ulp from the exact quotient; below 2**53 it is the exact one."""
    rng = np.random.default_rng(5)
    for lo, hi, exact_ok in ((2**60, 2**63 - 1, False), (2**20, 2**52, True)):
        a = rng.integers(1, 2**20, 64, dtype=np.int64)
        b = rng.integers(lo, hi, 64, dtype=np.int64)
        got = same_everywhere(isas, a, b)
        want = float(max(Fraction(int(y) - int(x), int(x)) for x, y in zip(a, b, strict=True)))
        assert got.max_rel == want if exact_ok else abs(got.max_rel - want) <= np.spacing(want)
