"""Calls that repeat: the API prepares a call once (meancli.api._PREPARED) and runs
the prepared kernel for every identical call after it. Each call, first or
repeated, must give the exact mean rounded once (tests/oracles.py), and a call
that differs in anything the preparation read (dtype, byte order, shape,
strides, axes, keepdims, opset, threads, skipna, argument types) must be
validated and planned as a call of its own.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import oracles
import pytest

import meancli
from meancli import api
from meancli.errors import SpecViolation, UsageError

RNG = np.random.default_rng(29)
FLOATS = [np.float16, np.float32, np.float64, ml_dtypes.bfloat16]


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    api._PREPARED.clear()


def _bits(x: np.ndarray) -> bytes:
    return np.ascontiguousarray(x).tobytes()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_repeated_reduce_mean_is_exact_for_new_data(dtype: type) -> None:
    for _ in range(4):  # new values of one shape: the prepared call must read them
        x = (RNG.standard_normal((3, 5, 4)) * 100).astype(dtype)
        got = meancli.reduce_mean(x, [1], keepdims=True)
        assert _bits(got) == _bits(oracles.exact_reduce_mean(x, [1], keepdims=True))
    assert len(api._PREPARED) == 1


def test_layouts_and_byte_orders_are_prepared_apart() -> None:
    x = RNG.standard_normal((6, 7, 5)).astype(np.float32)
    variants = [
        x,
        np.asfortranarray(x),
        x[:, ::2, :],  # strided: copied by kernel_input, never prepared
        x.astype(">f4"),  # other byte order: converted, never prepared
        x.reshape(7, 6, 5),  # same bytes, another shape
    ]
    for _ in range(2):
        for v in variants:
            for axes in ([1], [0, 2], None, -1):
                got = meancli.reduce_mean(v, axes, keepdims=False)
                assert _bits(got) == _bits(oracles.exact_reduce_mean(v.astype(np.float32), axes_of(axes, v)))


def axes_of(axes: list[int] | int | None, v: np.ndarray) -> list[int] | None:
    return [axes] if isinstance(axes, int) else axes


def test_keepdims_opset_and_threads_are_part_of_the_call() -> None:
    x = RNG.standard_normal((4, 6)).astype(np.float64)
    a = meancli.reduce_mean(x, [1], keepdims=True)
    b = meancli.reduce_mean(x, [1], keepdims=False)
    c = meancli.reduce_mean(x, [1], opset="openvino:1")  # keep_dims defaults to False there
    d = meancli.reduce_mean(x, [1], keepdims=True, threads=1)
    assert a.shape == (4, 1) and b.shape == (4,) and c.shape == (4,) and d.shape == (4, 1)
    want = oracles.exact_reduce_mean(x, [1])
    for got in (a, b, c, d):
        assert _bits(got) == _bits(want)


def test_a_refused_call_is_refused_after_an_accepted_one_of_the_same_form() -> None:
    x = RNG.standard_normal((4, 6)).astype(np.float32)
    meancli.reduce_mean(x, [1])
    with pytest.raises(SpecViolation):
        meancli.reduce_mean(x, [True])  # equal to [1] as a key, but not an integer
    with pytest.raises(SpecViolation):
        meancli.reduce_mean(x, [1], keepdims=2)  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        meancli.reduce_mean(x, [1], threads=0)
    with pytest.raises(UsageError):
        meancli.reduce_mean(x, [1], out=np.empty((4,), np.float64))  # another dtype
    with pytest.raises(UsageError):
        meancli.reduce_mean(x, [1], out=x[:, 0])  # overlaps the input


def test_repeated_reduce_mean_into_out() -> None:
    out = np.empty((5,), np.float32)
    for _ in range(3):
        x = RNG.standard_normal((5, 9)).astype(np.float32)
        assert meancli.reduce_mean(x, [1], keepdims=False, out=out) is out
        assert _bits(out) == _bits(oracles.exact_reduce_mean(x, [1]))


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("skipna", [False, True])
def test_repeated_mean_with_broadcasting(dtype: type, skipna: bool) -> None:
    for _ in range(3):
        a = (RNG.standard_normal((3, 4, 5)) * 10).astype(dtype)
        b = (RNG.standard_normal((4, 1)) * 10).astype(dtype)
        c = (RNG.standard_normal((5,)) * 10).astype(dtype)
        a.reshape(-1)[::7] = np.nan
        got = meancli.mean(a, b, c, skipna=skipna)
        assert _bits(got) == _bits(oracles.exact_mean([a, b, c], skipna=skipna))
        swapped = meancli.mean(c, b, a, skipna=skipna)  # the same shapes in another order
        assert _bits(swapped) == _bits(oracles.exact_mean([c, b, a], skipna=skipna))


def test_mean_into_one_of_its_inputs_repeatedly() -> None:
    a = RNG.standard_normal((8, 3)).astype(np.float32)
    b = RNG.standard_normal((8, 3)).astype(np.float32)
    for _ in range(3):
        want = oracles.exact_mean([a, b])
        assert meancli.mean(a, b, out=a) is a
        assert _bits(a) == _bits(want)
