"""The Python API's argument checks give the same answer whatever ran before.

Validation is cached (opset.resolve, meancli.ops.validate._validate_reduce_cached), and Python
hashes True, 1 and 1.0 alike: a bad value must still be refused after an equal
good one was accepted. Results are checked against numpy's float64 mean.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import meancli
from meancli.cli.app import main
from meancli.errors import NotEnoughMemory, SpecViolation, UsageError

X = np.arange(24, dtype=np.float64).reshape(2, 3, 4)

# (argument, a good value, bad values equal to it, what the bad ones raise, the other arguments)
CASES: list[tuple[str, Any, list[Any], type[Exception], dict[str, Any]]] = [
    ("opset", 1, [True, 1.0, np.float64(1.0)], UsageError, {"axes": [1]}),
    ("opset", 13, [13.0], UsageError, {"axes": [1]}),
    ("keepdims", 1, [1.0, np.float32(1.0)], SpecViolation, {"axes": [1]}),
    ("keepdims", 0, [0.0], SpecViolation, {"axes": [1]}),
    ("noop_with_empty_axes", 1, [1.0], SpecViolation, {"axes": [], "opset": 18}),
]


@pytest.mark.parametrize(("name", "good", "bads", "error", "others"), CASES)
def test_a_bad_value_is_refused_after_an_equal_good_one(
    name: str, good: Any, bads: list[Any], error: type[Exception], others: dict[str, Any]
) -> None:
    def call(value: Any) -> np.ndarray:
        return meancli.reduce_mean(X, **others, **{name: value})

    want = call(good)
    for bad in bads:
        with pytest.raises(error):
            call(bad)
        # and the good value still works, with the same result, after the bad one
        np.testing.assert_array_equal(call(good), want)


def test_results_of_the_good_values_are_the_mean() -> None:
    np.testing.assert_array_equal(meancli.reduce_mean(X, axes=[1], keepdims=1), X.mean(axis=1, keepdims=True))
    np.testing.assert_array_equal(meancli.reduce_mean(X, axes=[1], keepdims=0), X.mean(axis=1))
    np.testing.assert_array_equal(meancli.reduce_mean(X, axes=[], opset=18, noop_with_empty_axes=1), X)


@pytest.mark.parametrize("axes", [1.0, "1", b"1", object(), np.array(1.5), np.array([[0.0]])])
def test_axes_that_are_not_integers_are_refused(axes: Any) -> None:
    """A float, a string, bytes or any object that is not an integer or an
    iterable of integers is a SpecViolation (a float was a raw TypeError)."""
    with pytest.raises(SpecViolation, match="axes must be"):
        meancli.reduce_mean(np.ones((2, 3), np.float32), axes=axes)


def test_a_0d_integer_array_is_an_axis() -> None:
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    assert meancli.reduce_mean(x, axes=np.array(1), keepdims=False).tolist() == [1.0, 4.0]


def test_numpy_scalars_and_0d_arrays_are_attribute_values_and_opsets() -> None:
    """A 0-d array is its scalar as an attribute (keepdims, noop_with_empty_axes:
    a raw TypeError before), and a numpy integer is an opset as an int is
    (refused before); a numpy bool is no opset, as True is not."""
    x = np.arange(6, dtype=np.float64).reshape(2, 3)
    assert meancli.reduce_mean(x, axes=[1], keepdims=np.array(False)).tolist() == [1.0, 4.0]
    assert meancli.reduce_mean(x, axes=[1], keepdims=np.array(1)).tolist() == [[1.0], [4.0]]
    identity = meancli.reduce_mean(x, axes=[], opset=18, noop_with_empty_axes=np.array(True))
    np.testing.assert_array_equal(identity, x)
    assert meancli.reduce_mean(x, axes=[0], keepdims=False, opset=np.int64(11)).tolist() == [1.5, 2.5, 3.5]
    assert meancli.mean(x, x[:1], opset=np.int32(8)).tolist() == [[0.0, 1.0, 2.0], [1.5, 2.5, 3.5]]
    with pytest.raises(SpecViolation):
        meancli.reduce_mean(x, axes=[0], keepdims=np.array(2))
    with pytest.raises(UsageError):
        meancli.reduce_mean(x, axes=[0], opset=np.True_)


def test_an_input_whose_copy_does_not_fit_in_memory_is_one_clear_error() -> None:
    """A broadcast view of 4 TiB must be copied to be contiguous: one clear
    error (a MemoryError for Python callers), not numpy's MemoryError or ValueError."""
    x = np.broadcast_to(np.float32(1), (2**20, 2**20))
    with pytest.raises(NotEnoughMemory, match="do not fit in memory") as info:
        meancli.mean(x, x)
    assert isinstance(info.value, MemoryError)
    with pytest.raises(NotEnoughMemory, match="do not fit in memory"):
        meancli.reduce_mean(x, axes=[1])


def test_a_result_too_large_for_memory_names_the_file_and_exits_1(tmp_path: Path) -> None:
    """An input error (exit 1, the file named), not a usage error (exit 2): it depends on the data."""
    np.save(tmp_path / "col.npy", np.zeros((2**20, 1), np.float32))
    np.save(tmp_path / "row.npy", np.zeros((1, 2**20), np.float32))
    status = main(["mean", str(tmp_path / "col.npy"), str(tmp_path / "row.npy"), "-q"])
    assert status == 1


def test_two_byte_void_data_is_refused_with_the_bfloat16_hint() -> None:
    """V2 is how numpy sees bfloat16 bytes read without ml_dtypes."""
    with pytest.raises(SpecViolation, match=r"x\.view\(ml_dtypes\.bfloat16\)"):
        meancli.reduce_mean(np.zeros(4, "V2"))


@pytest.mark.parametrize("path", ["x.npy", b"x.npy", Path("x.npy")], ids=["str", "bytes", "Path"])
def test_a_path_given_as_an_array_is_a_usage_error(path: object) -> None:
    """reduce_mean('x.npy') said 'does not accept str160' (numpy made a string array of it)."""
    for call in (lambda: meancli.reduce_mean(path), lambda: meancli.mean(path, path)):
        with pytest.raises(UsageError, match=r"got the path 'x\.npy': the Python API takes arrays"):
            call()
