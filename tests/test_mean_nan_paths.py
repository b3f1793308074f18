"""The element-wise Mean on data with NaN and infinities, with and without
--skipna, on every instruction set (issues 28 and 29): the vector units
leave NaN out of their exactness bound (the plain Mean: a NaN lane's
output is NaN; a unit with an inf sums again without the infinities in its
bound) and the skipna units replace NaN by -0.0 and divide each lane by its
own count. Every result is judged bit for bit against the exact rational
oracle (tests/oracles.py), NaN included: a NaN output is the C NAN (the
oracle's NaN) whatever the payload and sign of the NaN inputs, as the exact
path always gave it. Shapes and broadcasts come from hypothesis, the bulk
values from numpy's generator seeded by it."""

from __future__ import annotations

from typing import Any

import numpy as np
import oracles
import pytest
from hypothesis import given
from hypothesis import strategies as st

import meancli
from meancli import kernels

# signalling NaN inputs make numpy's casts in the oracle warn
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

FLOATS = ("float16", "bfloat16", "float32", "float64")


def strictly_same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    """Bit-identical, NaN payloads and signs of zero included."""
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    u = oracles.UINT[got.dtype.itemsize]
    return bool((got.view(u) == want.view(u)).all())


def values(name: str, shape: tuple[int, ...], rng: np.random.Generator, mix: dict[str, float]) -> np.ndarray:
    """Values of dtype ``name``: a narrow spread (the vector path's exact sums)
    or, with mix["wide"], a wide one; a share of NaN (every payload of oracles.NAN_BITS),
    infinities, signed zeros and subnormals as ``mix`` says."""
    dt = oracles.DTYPES[name]
    size = int(np.prod(shape, dtype=np.int64))
    e = 12 if name == "float16" else 30
    spread = rng.integers(-e, e, size) if rng.random() < mix["wide"] else rng.integers(-3, 4, size)
    v = rng.standard_normal(size) * 2.0**spread
    ints = rng.random(size) < 0.2  # small integers: ties and exact cancellations
    v[ints] = rng.integers(-4, 5, int(ints.sum()))
    x = v.astype(dt)
    u = x.view(oracles.UINT[dt.itemsize])
    # the smallest subnormal: the bit pattern 1
    tiny = np.array([1], oracles.UINT[dt.itemsize]).view(dt)[0]
    pick = rng.random(size)
    lo = 0.0
    for kind, share in (("nan", mix["nan"]), ("inf", mix["inf"]), ("zero", mix["zero"]), ("sub", mix["sub"])):
        sel = (pick >= lo) & (pick < lo + share)
        lo += share
        k = int(sel.sum())
        if not k:
            continue
        if kind == "nan":
            u[sel] = rng.choice(np.array(oracles.NAN_BITS[name], dtype=oracles.UINT[dt.itemsize]), k)
        elif kind == "inf":
            x[sel] = np.where(rng.random(k) < 0.5, np.inf, -np.inf).astype(dt)
        elif kind == "zero":
            x[sel] = np.where(rng.random(k) < 0.5, 0.0, -0.0).astype(dt)
        else:
            sign = np.where(rng.random(k) < 0.5, 1.0, -1.0)
            x[sel] = (sign * rng.integers(1, 40, k) * tiny.astype(np.float64)).astype(dt)
    return x.reshape(shape)


@st.composite
def mean_cases(draw: Any) -> tuple[str, list[np.ndarray], int]:
    """A dtype, 1..6 inputs broadcast to a shape of rank 1..3 whose inner
    dim spans vectors, tails and several units, and a thread count."""
    name = draw(st.sampled_from(FLOATS))
    inner = draw(st.sampled_from([1, 7, 16, 33, 64, 100, 511, 512, 530, 1100]))
    outer = draw(st.lists(st.integers(1, 5), min_size=0, max_size=2))
    shape = (*outer, inner)
    ninputs = draw(st.integers(1, 6))
    mix = {
        "nan": draw(st.sampled_from([0.0, 0.01, 0.1, 0.5, 1.0])),
        "inf": draw(st.sampled_from([0.0, 0.0, 0.002, 0.05])),
        "zero": draw(st.sampled_from([0.0, 0.1, 0.9])),
        "sub": draw(st.sampled_from([0.0, 0.0, 0.05])),
        "wide": draw(st.sampled_from([0.0, 0.0, 0.5])),
    }
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    arrays = []
    for _ in range(ninputs):
        # full, a bias row (inner dim only), broadcast along the inner dim, or one value
        form = draw(st.sampled_from(["full", "full", "row", "column", "scalar"]))
        if form == "row":
            s: tuple[int, ...] = (inner,)
        elif form == "column":
            s = (*outer, 1)
        elif form == "scalar":
            s = ()
        else:
            s = shape
        arrays.append(values(name, s, rng, mix))
    if all(a.shape != shape for a in arrays):
        arrays[0] = values(name, shape, rng, mix)
    return name, arrays, draw(st.sampled_from([1, 2]))


@given(mean_cases())
def test_mean_with_nan_and_inf_is_the_exact_mean_bit_for_bit(
    every_isa: tuple[str, ...], case: tuple[str, list[np.ndarray], int]
) -> None:
    name, arrays, threads = case
    want = oracles.exact_mean(arrays)
    for isa in every_isa:
        kernels.use_isa(isa)
        got = meancli.mean(*arrays, threads=threads)
        assert strictly_same_bits(got, want), (isa, name, [a.shape for a in arrays], threads)


@given(mean_cases())
def test_mean_skipna_is_the_exact_mean_of_the_kept_values_bit_for_bit(
    every_isa: tuple[str, ...], case: tuple[str, list[np.ndarray], int]
) -> None:
    name, arrays, threads = case
    want = oracles.exact_mean(arrays, skipna=True)
    for isa in every_isa:
        kernels.use_isa(isa)
        got = meancli.mean(*arrays, threads=threads, skipna=True)
        assert strictly_same_bits(got, want), (isa, name, [a.shape for a in arrays], threads)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("skipna", [False, True])
def test_mean_in_place_with_nan(every_isa: tuple[str, ...], name: str, skipna: bool) -> None:
    """out= one of the inputs: the units that cannot run in one pass."""
    rng = np.random.default_rng(5)
    mix = {"nan": 0.05, "inf": 0.002, "zero": 0.1, "sub": 0.02, "wide": 0.0}
    base = [values(name, (3, 700), rng, mix) for _ in range(3)]
    want = oracles.exact_mean(base, skipna=skipna)
    for isa in every_isa:
        kernels.use_isa(isa)
        arrays = [a.copy() for a in base]
        got = meancli.mean(*arrays, out=arrays[1], threads=2, skipna=skipna)
        assert got is arrays[1]
        assert strictly_same_bits(got, want), (isa, name, skipna)


@pytest.mark.parametrize("name", FLOATS)
def test_mean_signed_zeros_and_all_nan_lanes(every_isa: tuple[str, ...], name: str) -> None:
    """Lanes of -0.0 only (-0.0), -0.0 with +0.0 (+0.0), -0.0 with NaN
    (skipna: -0.0), NaN only (NaN), +inf with -inf (NaN), and a NaN beside
    an inf (NaN), every lane of a vector and its tail."""
    dt = oracles.DTYPES[name]
    n = 40
    nz, pz, nan, inf = np.array([-0.0, 0.0, np.nan, np.inf], np.float64).astype(dt)
    rows = [
        [nz, nz, nz],
        [nz, pz, nz],
        [nz, nan, nz],
        [nan, nan, nan],
        [inf, -inf, nz],
        [nan, inf, pz],
        [nan, nan, nz],
    ]
    arrays = [np.array([r[i] for r in rows for _ in range(n)], dt) for i in range(3)]
    for isa in every_isa:
        kernels.use_isa(isa)
        for skipna in (False, True):
            got = meancli.mean(*arrays, threads=1, skipna=skipna)
            want = oracles.exact_mean(arrays, skipna=skipna)
            assert strictly_same_bits(got, want), (isa, name, skipna)


@pytest.mark.parametrize("name", FLOATS)
def test_mean_with_nan_outside_the_vector_units(every_isa: tuple[str, ...], name: str) -> None:
    """More inputs than the skipna vector units take (17 > 15), and inputs
    read with a stride along the inner dim: output by output, the same bits."""
    rng = np.random.default_rng(9)
    mix = {"nan": 0.1, "inf": 0.01, "zero": 0.1, "sub": 0.02, "wide": 0.0}
    many = [values(name, (2, 300), rng, mix) for _ in range(17)]
    strided = [values(name, (4, 600), rng, mix)[:, ::2] for _ in range(3)]
    for isa in every_isa:
        kernels.use_isa(isa)
        for arrays in (many, strided):
            for skipna in (False, True):
                got = meancli.mean(*arrays, threads=2, skipna=skipna)
                want = oracles.exact_mean(arrays, skipna=skipna)
                assert strictly_same_bits(got, want), (isa, name, len(arrays), skipna)
