"""The Python API's argument checks give the same answer whatever ran before.

Validation is cached (opset.resolve, api._validate_reduce_cached), and Python
hashes True, 1 and 1.0 alike: a bad value must still be refused after an equal
good one was accepted. Results are checked against numpy's float64 mean.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import meancli
from meancli.errors import SpecViolation, UsageError

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
