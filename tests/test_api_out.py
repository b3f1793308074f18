"""``out=`` in the Python API: the result is written into the caller's array.

Values are checked against float64 numpy rounded once to the dtype, and
against the same call without ``out=`` bit for bit.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import oracles
import pytest

import meancli
from meancli.errors import SpecViolation, UsageError

RNG = np.random.default_rng(11)
FLOATS = [np.float16, np.float32, np.float64, ml_dtypes.bfloat16]


def exact_mean(groups: np.ndarray, out_shape: tuple[int, ...]) -> np.ndarray:
    """The exact mean of each row of ``groups`` (rows, n), rounded once to its dtype."""
    return oracles.exact_reduce_mean(groups, [1]).reshape(out_shape)


def assert_oracle(got: np.ndarray, want: np.ndarray) -> None:
    """Equal to the exact mean rounded once, to the bit."""
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("threads", [1, 2])
def test_reduce_mean_writes_into_out(dtype: type, threads: int) -> None:
    x = (RNG.standard_normal((64, 33, 70)) * 10).astype(dtype)
    out = np.full((64, 1, 70), 7, dtype=dtype)
    got = meancli.reduce_mean(x, axes=[1], keepdims=True, threads=threads, out=out)
    assert got is out
    assert_oracle(out, exact_mean(np.moveaxis(x, 1, -1).reshape(-1, 33), out.shape))
    assert meancli.reduce_mean(x, axes=[1], keepdims=True).tobytes() == out.tobytes()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("threads", [1, 2])
def test_mean_writes_into_out(dtype: type, threads: int) -> None:
    a = (RNG.standard_normal((40, 3, 300)) * 10).astype(dtype)
    b = (RNG.standard_normal((3, 1)) * 10).astype(dtype)
    c = (RNG.standard_normal((300,)) * 10).astype(dtype)
    out = np.zeros((40, 3, 300), dtype=dtype)
    got = meancli.mean(a, b, c, threads=threads, out=out)
    assert got is out
    groups = np.stack([np.broadcast_to(v, out.shape).ravel() for v in (a, b, c)], axis=1)
    assert_oracle(out, exact_mean(groups, out.shape))
    assert meancli.mean(a, b, c).tobytes() == out.tobytes()


def test_mean_may_write_into_an_input_of_its_own_layout() -> None:
    a = (RNG.standard_normal((500, 700)) * 10).astype(np.float32)
    b = (RNG.standard_normal((700,)) * 10).astype(np.float32)
    want = ((b.astype(np.float64) + a.astype(np.float64)) / 2).astype(np.float32)
    got = meancli.mean(b, a, out=a, threads=2)  # a is read, then written, element by element
    assert got is a
    np.testing.assert_array_equal(a, want)


def test_integer_reduce_into_out() -> None:
    x = RNG.integers(-(2**62), 2**62, size=(100, 1000), dtype=np.int64)
    out = np.empty((100,), dtype=np.int64)
    meancli.reduce_mean(x, axes=[1], keepdims=False, out=out)
    sums = [sum(int(v) for v in row) for row in x]
    # the exact sum divided by the count, truncated toward zero
    assert [int(o) for o in out] == [s // 1000 if s >= 0 else -(-s // 1000) for s in sums]


@pytest.mark.parametrize(
    ("out", "message"),
    [
        (np.empty((4,), np.float32), "must have shape (4, 1)"),
        (np.empty((4, 1), np.float64), "dtype float32, got shape (4, 1) and dtype float64"),
        (np.empty((4, 2), np.float32)[:, :1], "C-contiguous"),
        (np.empty((4, 1), np.float32).astype(">f4"), "native byte order"),
        ([[0.0]] * 4, "must be a numpy array, got list"),
    ],
    ids=["shape", "dtype", "strided", "byteswapped", "list"],
)
def test_reduce_mean_rejects_a_bad_out(out: object, message: str) -> None:
    x = np.ones((4, 5), np.float32)
    with pytest.raises(UsageError) as e:
        meancli.reduce_mean(x, axes=[1], keepdims=True, out=out)  # type: ignore[arg-type]
    assert message in str(e.value)


def test_read_only_out_is_refused() -> None:
    out = np.empty((4, 1), np.float32)
    out.flags.writeable = False
    with pytest.raises(UsageError, match="writeable"):
        meancli.reduce_mean(np.ones((4, 5), np.float32), axes=[1], keepdims=True, out=out)


def test_out_overlapping_the_input_is_refused() -> None:
    x = np.ones((4, 5), np.float32)
    with pytest.raises(UsageError, match="overlaps an input"):
        meancli.reduce_mean(x, axes=[1], keepdims=False, out=x[0, :4])
    a = np.ones((6, 5), np.float32)
    b = np.ones((5,), np.float32)
    with pytest.raises(UsageError, match="overlaps an input"):
        meancli.mean(a[1:], b, out=a[:5])  # shifted by a row: would read what it wrote
    with pytest.raises(UsageError, match="must have shape"):
        meancli.mean(a, b, out=b)  # a broadcast input is never the output


def test_out_is_left_alone_when_validation_fails() -> None:
    out = np.full((4, 1), 3.0, np.float32)
    with pytest.raises(SpecViolation):
        meancli.reduce_mean(np.ones((4, 5), np.float32), axes=[7], keepdims=True, out=out)
    np.testing.assert_array_equal(out, 3.0)


def test_mean_into_its_own_input_ignores_strides_of_size_one_dims() -> None:
    big = np.arange(20, dtype=np.float32).reshape(5, 4)
    got = meancli.mean(big[2][None], np.ones((1, 4), np.float32), out=big[2:3])  # strides (0, 4) vs (16, 4)
    np.testing.assert_array_equal(got, [[4.5, 5.0, 5.5, 6.0]])
    np.testing.assert_array_equal(big[3], [12, 13, 14, 15])


def test_masked_arrays_are_refused() -> None:
    x = np.ma.masked_array([1.0, 2.0, 1000.0], mask=[0, 0, 1])
    with pytest.raises(UsageError, match="masked arrays are not supported"):
        meancli.reduce_mean(x)
    with pytest.raises(UsageError, match="masked arrays are not supported"):
        meancli.mean(x, x)


def test_numpy_scalars_as_attribute_values() -> None:
    """keepdims as numpy's bools and ints, axes as a numpy array: taken as their Python values."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = x.astype(np.float64).mean(axis=1)
    for flag, shape in [(np.False_, (2,)), (np.True_, (2, 1)), (np.int64(0), (2,)), (np.uint8(1), (2, 1))]:
        got = meancli.reduce_mean(x, axes=np.array([1]), keepdims=flag)
        assert got.shape == shape
        assert np.array_equal(got.reshape(-1), want.astype(np.float32))
