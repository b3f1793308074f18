"""The compare kernel's vector paths (templates/kernel_compare.c.j2, one per instruction
set) give the portable scalar loop's statistics bit for bit, and the statistics agree
with a numpy oracle of the ULP distance.

The data are random bit patterns with the values that take a path of their own mixed
in: NaN (every payload, both signs), +-inf, +-0, subnormals, the largest finite value,
elements 0 to 3 representable values apart, lengths and offsets that are no multiple of
a vector or of the kernel's chunk of 256. Each instruction set the CPU has runs in this
process (kernels.use_isa); the levels it lacks are skipped.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from meancli import kernels
from meancli.dtypes import spec_name

FLOATS = [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)]
INTS = [np.dtype(t) for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64)] + [
    np.dtype(np.uint64)
]
UINT: dict[int, Any] = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
# (mantissa bits, exponent bits) of each float format
FORMAT = {2: {"float16": (10, 5), "bfloat16": (7, 8)}, 4: {"float32": (23, 8)}, 8: {"float64": (52, 11)}}


@pytest.fixture(scope="module")
def isas() -> Iterator[tuple[str, ...]]:
    """The instruction sets to run; every dtype's level is put back afterwards."""
    before = {dt.name: kernels.isa(dt, "compare") for dt in FLOATS}
    yield kernels.supported_isas()
    for name, isa in before.items():
        kernels.use_isa(isa, name, "compare")


def special_bits(dtype: np.dtype[Any], rng: np.random.Generator, n: int) -> np.ndarray:
    """n bit patterns of a float dtype, a third of them special values."""
    u = UINT[dtype.itemsize]
    bits_total = dtype.itemsize * 8
    mant, exp = FORMAT[dtype.itemsize][dtype.name]
    sign = np.array(1, dtype=u) << np.array(bits_total - 1, dtype=u)
    inf = ((np.array(1, dtype=u) << np.array(exp, dtype=u)) - np.array(1, dtype=u)) << np.array(mant, dtype=u)
    mant_mask = (np.array(1, dtype=u) << np.array(mant, dtype=u)) - np.array(1, dtype=u)
    bits = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
    kind = rng.integers(0, 18, n)
    payload = rng.integers(1, int(mant_mask), n, dtype=u, endpoint=True)
    sub = rng.integers(0, int(mant_mask), n, dtype=u, endpoint=True)
    signs = np.where(rng.random(n) < 0.5, sign, np.array(0, dtype=u)).astype(u)
    bits = np.where(kind == 0, inf | payload, bits)  # NaN, any payload
    bits = np.where(kind == 1, inf, bits)
    bits = np.where(kind == 2, np.array(0, dtype=u), bits)
    bits = np.where(kind == 3, sub, bits)  # subnormal (or 0)
    bits = np.where(kind == 4, inf - np.array(1, dtype=u), bits)  # the largest finite value
    bits = np.where(kind == 5, inf | mant_mask, bits)  # the all-ones NaN
    return (bits | np.where(kind <= 5, signs, np.array(0, dtype=u))).astype(u)


def pair(dtype: np.dtype[Any], seed: int, n: int, mode: int) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays of dtype: a, and b a copy with some elements moved, replaced, or made special."""
    rng = np.random.default_rng(seed)
    u = UINT[dtype.itemsize]
    if dtype.kind == "f" or dtype == np.dtype(ml_dtypes.bfloat16):
        a = special_bits(dtype, rng, n)
        other = special_bits(dtype, rng, n)
    else:
        a = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
        other = rng.integers(0, np.iinfo(u).max, n, dtype=u, endpoint=True)
        # the extremes: 0, the type's minimum and maximum (as bits)
        ext = np.array([0, np.iinfo(u).max, np.iinfo(u).max >> 1, (np.iinfo(u).max >> 1) + 1], dtype=u)
        pick = rng.random(n) < 0.2
        a[pick] = rng.choice(ext, int(pick.sum()))
    if (
        mode == 4
    ):  # a result a few values off, specials rare: the chunks the quick pass takes, and some it hands on
        b = a.copy()
        if dtype.kind == "f" or dtype == np.dtype(ml_dtypes.bfloat16):
            # finite values of random sign and exponent (the specials of `other` replace a few below)
            top = np.array(dtype.itemsize * 8 - 1, dtype=u)
            finite = (np.array(1, dtype=u) << top) - (
                np.array(1, dtype=u) << np.array(FORMAT[dtype.itemsize][dtype.name][0], dtype=u)
            )
            a = rng.integers(0, int(finite), n, dtype=u) | (rng.integers(0, 2, n).astype(u) << top)
        b = a + rng.integers(0, 3, n).astype(u)
        replaced = rng.random(n) < 0.001
        b[replaced] = other[replaced]
        return a.view(dtype), b.view(dtype)
    b = a.copy()
    share = (0.95, 0.3, 0.02, 1.0)[mode]
    moved = rng.random(n) < share
    b[moved] += rng.integers(-3, 4, int(moved.sum())).astype(u)  # wraps: also across 0 and -0
    replaced = rng.random(n) < (0.05 if mode < 3 else 0.5)
    b[replaced] = other[replaced]
    return a.view(dtype), b.view(dtype)


def oracle(dtype: np.dtype[Any], a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    """The distances' statistics by numpy: buckets (0, 1, 2-4, 5-16, >16 over all elements
    but the NaN mismatches), NaN mismatches, the largest distance, the first index of it
    (-1 when it is 0), the sum."""
    u = UINT[dtype.itemsize]
    if dtype.kind in "iu":
        up = a.astype(u).astype(np.uint64) - b.astype(u).astype(np.uint64)
        if dtype.kind == "i":
            up = a.astype(np.int64).view(np.uint64) - b.astype(np.int64).view(np.uint64)
        lt = a < b
        d = np.where(lt, np.uint64(0) - up, up)
        nan_mis = np.zeros(a.size, bool)
    else:
        ua, ub = a.view(u).astype(np.uint64), b.view(u).astype(np.uint64)
        top = np.uint64(dtype.itemsize * 8 - 1)
        mag = (np.uint64(1) << top) - np.uint64(1)
        with np.errstate(invalid="ignore"):  # signalling NaNs turn quiet
            na, nb = np.isnan(a.astype(np.float64)), np.isnan(b.astype(np.float64))
        nan_mis = na != nb

        def ordered(x: np.ndarray) -> np.ndarray:
            m = (x & mag).view(np.int64)
            return np.where((x >> top) == 1, -m, m)

        oa, ob = ordered(ua), ordered(ub)
        up = oa.view(np.uint64) - ob.view(np.uint64)
        d = np.where(oa < ob, np.uint64(0) - up, up)
        d = np.where(na | nb, np.uint64(0), d)
    counted = d[~nan_mis]
    edges = [(0, 0), (1, 1), (2, 4), (5, 16), (17, np.iinfo(np.uint64).max)]
    buckets = tuple(int(((counted >= lo) & (counted <= hi)).sum()) for lo, hi in edges)
    top_d = int(d.max()) if d.size else 0
    return {
        "buckets": buckets,
        "nan_mismatch": int(nan_mis.sum()),
        "max_ulp": top_d,
        "at_max": int(np.argmax(d == top_d)) if top_d > 0 else -1,
        "ulp_sum": sum(int(x) for x in d),
        "first_nan": int(np.argmax(nan_mis)) if nan_mis.any() else -1,
    }


def stats(name: str, a: np.ndarray, b: np.ndarray, isa: str, threads: int = 1) -> kernels.CompareStats:
    kernels.use_isa(isa, name if name in {d.name for d in FLOATS} else None, "compare")
    return kernels.run_compare(name, a, b, threads)


@pytest.mark.parametrize("dtype", FLOATS + INTS, ids=lambda d: d.name)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 1400),
    offset=st.integers(0, 7),
    mode=st.integers(0, 4),
)
def test_vector_paths_match_the_scalar_loop(
    isas: tuple[str, ...], dtype: np.dtype[Any], seed: int, n: int, offset: int, mode: int
) -> None:
    a, b = pair(dtype, seed, n + offset, mode)
    a, b = a[offset:], b[offset:]  # not aligned to a vector
    name = spec_name(dtype)
    want = stats(name, a, b, "portable")
    for isa in isas[1:]:
        got = stats(name, a, b, isa)
        assert repr(got) == repr(want), isa  # repr: NaN-free floats, bit for bit via repr
    # the numpy oracle (over the examined chunks the rest are equal bits: distance 0)
    o = oracle(dtype, a, b)
    skipped = a.size - want.examined
    assert (want.buckets[0] + skipped, *want.buckets[1:]) == o["buckets"]
    assert want.nan_mismatch == o["nan_mismatch"]
    assert want.max_ulp == o["max_ulp"]
    assert want.ulp_sum == o["ulp_sum"]
    assert want.first_nan == o["first_nan"]
    if o["at_max"] >= 0:
        assert want.at_max == o["at_max"]


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.float64)], ids=str)
def test_growing_distances_and_ties(isas: tuple[str, ...], dtype: np.dtype[Any]) -> None:
    """Distances growing along the array (every chunk holds a new largest one, so each is
    looked at again), ties of the largest distance (the first one is reported), NaN
    mismatches after it, relative errors growing (the skipped divisions)."""
    u = UINT[dtype.itemsize]
    n = 5000
    a = np.linspace(1, 2, n).astype(dtype)
    bits = a.view(u).copy()
    bits += (np.arange(n) // 97).astype(u)
    bits[[3000, 4100]] = bits[2999]  # the largest distance so far, twice more (not the first)
    b = bits.view(dtype)
    b[4500] = np.nan
    a[4700] = np.nan
    name = spec_name(dtype)
    want = stats(name, a, b, "portable")
    assert want.first_nan == 4500
    for isa in isas[1:]:
        assert repr(stats(name, a, b, isa)) == repr(want), isa


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), np.dtype(np.int16)], ids=str)
@pytest.mark.parametrize("threads", [2, 3])
def test_threads(isas: tuple[str, ...], dtype: np.dtype[Any], threads: int) -> None:
    """Over 2^20 elements the kernel splits the work between threads: each instruction
    set gives the same statistics for the same thread count, the first indices included."""
    a, b = pair(dtype, 5, (1 << 20) + 37, 1)
    name = spec_name(dtype)
    want = stats(name, a, b, "portable", threads)
    for isa in isas[1:]:
        assert repr(stats(name, a, b, isa, threads)) == repr(want), isa
