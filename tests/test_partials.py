"""Exact partial states (meancli.kernels.reduce_partial / combine_partials /
finalize_partials): for any split of the reduced elements, finalizing the
combined partials gives the exact mean rounded once (tests/oracles.py), and
the same bits as meancli.reduce_mean of the whole array."""

from __future__ import annotations

from typing import Any

import adversarial
import numpy as np
import oracles
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import same_bits

from meancli import kernels
from meancli.errors import SpecViolation

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "uint8", "int32", "int64", "uint64")


def truth(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """The exact ReduceMean of x over axes, keepdims form."""
    return oracles.exact_reduce_mean(x, axes, keepdims=True)


@st.composite
def float_case(draw: Any) -> tuple[np.ndarray, tuple[int, ...]]:
    dtype = draw(st.sampled_from(FLOATS))
    kind = draw(st.sampled_from(adversarial.KINDS))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    shape = tuple(draw(st.lists(st.integers(1, 9), min_size=1, max_size=3)))
    n = int(np.prod(shape))
    x = adversarial.values(rng, dtype, max(n, 2), kind)
    x = np.resize(x, n).reshape(shape)
    axes = tuple(sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1))))
    return x, axes


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(float_case(), st.integers(0, 2**32 - 1))
def test_partials_of_any_split_finalize_to_the_exact_mean(
    case: tuple[np.ndarray, tuple[int, ...]], seed: int
) -> None:
    x, axes = case
    name = oracles.spec_name(x.dtype)
    want = truth(x, axes)
    whole = kernels.finalize_partials(kernels.reduce_partial(x, axes, threads=1), name)
    assert same_bits(whole, want), (x, axes, whole, want)
    # split the first reduced axis at random points, reduce each part, combine
    rng = np.random.default_rng(seed)
    ax = axes[0]
    cuts = sorted(rng.integers(0, x.shape[ax] + 1, rng.integers(0, 4)).tolist())
    parts = np.split(x, cuts, axis=ax)
    states = np.concatenate([kernels.reduce_partial(p, axes, threads=2) for p in parts], axis=ax)
    combined = kernels.combine_partials(states, (ax,), name)
    assert same_bits(kernels.finalize_partials(combined, name), want)


@pytest.mark.parametrize(
    ("dtype", "values", "mean"),
    [
        ("float32", [1e30, 1, 3, -1e30], 1.0),
        ("float32", [1, 1e20, -1e20], 0.33333334),
        ("bfloat16", [1e30, 1, 3, -1e30], 1.0),
        ("float64", [1e308, 1e308, -1e308], 3.3333333333333333e307),
        ("float64", [2.0**53 + 2, 1, -(2.0**-60), 0], 2251799813685248.5),
    ],
)
def test_issue_table(dtype: str, values: list[float], mean: float) -> None:
    x = np.array(values, dtype=oracles.DTYPES[dtype])
    got = kernels.finalize_partials(kernels.reduce_partial(x, (0,)), dtype)
    assert same_bits(got, np.array([mean], dtype=oracles.DTYPES[dtype]))
    assert same_bits(got, truth(x, (0,)))


@pytest.mark.parametrize("dtype", INTS)
def test_integer_partials(dtype: str) -> None:
    info = np.iinfo(oracles.DTYPES[dtype])
    rng = np.random.default_rng(3)
    x = rng.integers(info.min, info.max, (6, 50), dtype=oracles.DTYPES[dtype], endpoint=True)
    states = np.concatenate(
        [kernels.reduce_partial(p, (1,)) for p in np.split(x, [7, 7, 30], axis=1)], axis=1
    )
    got = kernels.finalize_partials(kernels.combine_partials(states, (1,), dtype), dtype)
    assert same_bits(got, truth(x, (1,)))
    empty = kernels.reduce_partial(x[:, :0], (1,))
    with pytest.raises(SpecViolation):
        kernels.finalize_partials(empty, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_empty_and_signed_zero_states(dtype: str) -> None:
    dt = oracles.DTYPES[dtype]
    empty = kernels.reduce_partial(np.zeros((3, 0), dt), (1,))
    assert np.isnan(kernels.finalize_partials(empty, dtype).astype(np.float64)).all()
    neg = kernels.reduce_partial(np.full((1, 4), -0.0, dt), (1,))
    zero = kernels.reduce_partial(np.array([[1.0, -1.0]], dt), (1,))
    with_empty = kernels.combine_partials(np.concatenate([neg, empty[:1]], axis=1), (1,), dtype)
    assert same_bits(kernels.finalize_partials(with_empty, dtype), np.full((1, 1), -0.0, dt))
    both = kernels.combine_partials(np.concatenate([neg, zero], axis=1), (1,), dtype)
    assert same_bits(kernels.finalize_partials(both, dtype), np.zeros((1, 1), dt))


def test_state_layout_is_fixed() -> None:
    assert kernels.partial_dtype("float32").itemsize == 8 * (2 + 6)
    assert kernels.partial_dtype("float64").itemsize == 8 * (2 + 34)
    assert kernels.partial_dtype("int8").itemsize == 32
    s = kernels.reduce_partial(np.array([1.5, -0.0, 2.0], np.float32), (0,))
    words = np.frombuffer(s.tobytes(), "<u8")
    assert words[0] == 3 and words[1] == 8  # count; flags: a value other than -0.0
    assert int.from_bytes(s.tobytes()[16:], "little") == int(3.5 * 2**149)
