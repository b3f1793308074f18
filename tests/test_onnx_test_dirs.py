"""meancli run straight on ONNX node test directories.

The onnx package's Mean and ReduceMean node cases
(tests/onnx_cases.py, once per test run; the installed package ships no
``backend/test/data/node`` directories, so they are written here) are laid out as
ONNX's own test data is: ``model.onnx`` and ``test_data_set_N/input_K.pb`` /
``output_K.pb``, each ``.pb`` one serialized TensorProto. The command line then runs
on the ``.pb`` inputs, with the attributes and the opset read back from
``model.onnx`` as a user would (ReduceMean-18's axes input: ``--axes-from
input_1.pb``), writes ``-o out.pb``, and the result is compared with ``output_0.pb``.

Two oracles: ONNX's expected outputs are computed by numpy in the input's dtype
(float32 sums in pairwise order, ``(a + b + c) / 3`` with a rounding at each step),
so they are not always correctly rounded; meancli's are. The result must match the
expected output to within a few units in the last place, and match the exact
oracle (the exact mean rounded once, tests/oracles.py) bit for bit.
Where the two oracles differ, it is ONNX's rounding that is off (with onnx 1.23:
one element of test_reduce_mean_default_axes_keepdims_random, by 1 ulp: the float32
mean of 12 values, summed in float32 by numpy).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli
from onnx_cases import ONNX_DOMAINS, node_cases, write_test_dir
from oracles import assert_float_close, exact_mean, exact_reduce_mean

onnx = pytest.importorskip("onnx")
from onnx import helper, numpy_helper  # noqa: E402

#: How far ONNX's numpy-computed outputs may be from the correctly rounded mean.
EXPECTED_MAX_ULPS = 4


def load_pb(path: Path) -> np.ndarray:
    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return np.asarray(numpy_helper.to_array(tensor))


def command(test_dir: Path, data_set: Path) -> list[str]:
    """The meancli command line for one data set, from ``model.onnx`` alone."""
    model = onnx.load(test_dir / "model.onnx")
    (node,) = model.graph.node
    opset = next(o.version for o in model.opset_import if o.domain in ONNX_DOMAINS)
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    graph_inputs = [i.name for i in model.graph.input]
    files = {name: str(data_set / f"input_{k}.pb") for k, name in enumerate(graph_inputs)}
    argv: list[str] = []
    if node.op_type == "Mean":
        argv += ["mean", *(files[name] for name in node.input)]
    else:
        argv += ["reduce-mean", files[node.input[0]]]
        if "axes" in attrs:
            argv += ["--axes", *map(str, attrs["axes"])] if attrs["axes"] else ["--axes="]
        elif len(node.input) > 1 and node.input[1]:
            argv += ["--axes-from", files[node.input[1]]]
        if "keepdims" in attrs:
            argv.append("--keep-dims" if attrs["keepdims"] else "--no-keep-dims")
        if attrs.get("noop_with_empty_axes"):
            argv.append("--noop-with-empty-axes")
    return [*argv, "--opset", f"onnx:{opset}", "-o", str(data_set / "out.pb"), "--quiet"]


def exact(test_dir: Path, data_set: Path) -> np.ndarray:
    """The correctly rounded result, from the data set's inputs and the model's attributes."""
    model = onnx.load(test_dir / "model.onnx")
    (node,) = model.graph.node
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    graph_inputs = [i.name for i in model.graph.input]
    values = {name: load_pb(data_set / f"input_{k}.pb") for k, name in enumerate(graph_inputs)}
    if node.op_type == "Mean":
        return exact_mean([values[name] for name in node.input])
    x = values[node.input[0]]
    axes = attrs.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = values[node.input[1]].tolist()
    if not axes and attrs.get("noop_with_empty_axes"):
        return x
    return exact_reduce_mean(x, axes or None, bool(attrs.get("keepdims", 1)))


@pytest.fixture(scope="module")
def test_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("node")
    return {case.name: write_test_dir(case, root) for case in node_cases()}


CASE_NAMES = [case.name for case in node_cases()]


def test_both_operators_have_cases() -> None:
    ops = {case.model.graph.node[0].op_type for case in node_cases()}
    assert ops == {"Mean", "ReduceMean"}, ops


@pytest.mark.parametrize("name", CASE_NAMES)
def test_node_test_dir(test_dirs: dict[str, Path], name: str) -> None:
    test_dir = test_dirs[name]
    data_sets = sorted(test_dir.glob("test_data_set_*"))
    assert data_sets
    for data_set in data_sets:
        argv = command(test_dir, data_set)
        result = run_cli(*argv)
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", ""), " ".join(argv)
        got = load_pb(data_set / "out.pb")
        expected = load_pb(data_set / "output_0.pb")
        correct = exact(test_dir, data_set)
        assert got.dtype == expected.dtype and got.shape == expected.shape, (got.shape, expected.shape)
        if got.dtype.kind in "iu":
            np.testing.assert_array_equal(got, expected)
            np.testing.assert_array_equal(got, correct)
            continue
        assert_float_close(got, expected, max_ulps=EXPECTED_MAX_ULPS, context=f"{name} vs ONNX's output")
        assert_float_close(got, correct, max_ulps=0, context=f"{name} vs the exact mean")
