"""meancli.compare: another runtime's output judged against the correctly rounded
result from Python, as --compare judges a file. The distances are checked against
tests/oracles.ulp_distance (integers ordered like the values), the result against the
exact oracle, and onnxruntime's own output is judged where it is installed."""

from __future__ import annotations

import math
import re
import warnings
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import meancli
from meancli.errors import UsageError
from tests.oracles import exact_reduce_mean, same_bits, ulp_distance


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16, np.float32, np.float64], ids=str)
def test_distances_as_the_oracle_counts_them(dtype: Any) -> None:
    rng = np.random.default_rng(3)
    x = rng.standard_normal((40, 17)).astype(dtype)
    y = meancli.reduce_mean(x, axes=[1])
    assert same_bits(y, exact_reduce_mean(x, [1], keepdims=True))
    bits = y.copy().view({2: np.uint16, 4: np.uint32, 8: np.uint64}[y.dtype.itemsize])
    bits[::3] += rng.integers(0, 6, bits[::3].shape).astype(bits.dtype)  # up to 5 values further from zero
    got = bits.view(y.dtype)
    d = ulp_distance(got, y)
    c = meancli.compare(y, got)
    assert (c.max_ulp, c.inexact, c.total, c.nan_mismatch) == (int(d.max()), int((d > 0).sum()), y.size, 0)
    assert c.mean_ulp == pytest.approx(float(d.mean()))
    assert c.worst is not None and c.worst.at == tuple(
        int(i) for i in np.unravel_index(np.argmax(d), y.shape)
    )
    assert c.within == bool(d.max() == 0)
    assert meancli.compare(y, got, max_ulp=int(d.max())).within
    assert not meancli.compare(y, got, max_ulp=int(d.max()) - 1).within


def test_nan_where_a_number_is_expected_is_never_within() -> None:
    y = meancli.mean(np.ones(4, np.float32), np.full(4, 3, np.float32))
    got = y.copy()
    got[2] = np.nan
    c = meancli.compare(y, got, max_ulp=10**6)
    assert (c.nan_mismatch, c.within, c.worst.at if c.worst else None) == (1, False, (2,))


def test_onnxruntime_output_judged() -> None:
    """A real peer's ReduceMean output: every element within the distance the oracle counts."""
    ort = pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    x = np.random.default_rng(4).standard_normal((64, 300)).astype(np.float32)
    node = helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=1)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("axes", TensorProto.INT64, [1], [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (theirs,) = session.run(None, {"x": x})
    ours = meancli.reduce_mean(x, axes=[1])
    c = meancli.compare(ours, theirs)
    d = ulp_distance(theirs, ours)
    assert (c.max_ulp, c.inexact) == (int(d.max()), int((d > 0).sum()))


@pytest.mark.parametrize(
    ("expected", "got", "max_ulp", "message"),
    [
        (np.zeros(3, np.float32), np.zeros(4, np.float32), 0, "shape (4,) float32 does not match"),
        (np.zeros(3, np.float32), np.zeros(3, np.float64), 0, "float64 does not match"),
        (np.zeros(3, np.float32), np.zeros(3, np.float32), -1, "max_ulp must be an integer >= 0"),
        (np.zeros(3, np.float32), np.zeros(3, np.float32), True, "max_ulp must be an integer >= 0"),
        (np.zeros(3, np.float32), [0.0, 0.0, 0.0], 0, "got must be an array, got a list"),
        (np.zeros(3, bool), np.zeros(3, bool), 0, "expected: bool values are not compared"),
        (np.array(["a"]), np.array(["a"]), 0, "expected: str32 values are not compared"),
        (
            np.zeros(3, np.float32),
            np.zeros(3, bool),
            0,
            "got: dtype bool does not match the result's dtype float32",
        ),
    ],
)
def test_bad_arguments(expected: Any, got: Any, max_ulp: Any, message: str) -> None:
    with pytest.raises(UsageError, match=re.escape(message)):
        meancli.compare(expected, got, max_ulp=max_ulp)


def test_a_signalling_nan_is_reported_without_a_warning() -> None:
    """A signalling NaN as the worst element widened to a Python float with numpy's
    'invalid value encountered in cast' warning (a hostile pass found it)."""
    expected = np.ones(3, np.float32)
    got = expected.copy()
    got.view(np.uint32)[1] = 0x7F800005  # a signalling NaN
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = meancli.compare(expected, got)
    assert c.worst is not None and c.worst.at == (1,) and math.isnan(c.worst.got) and c.nan_mismatch == 1
