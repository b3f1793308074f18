"""ONNX's own backend node tests for Mean and ReduceMean, run through the real command.

Every case of ONNX's node tests whose model is a single Mean or ReduceMean
node (tests/onnx_cases.py: computed once per test run, not at collection of
every operator's cases) is run as ``python -m meancli ...`` on .npy files
written from the case's inputs, with the node's attributes, axes input and
opset import turned into command-line options. The output file must match the
case's expected output (dtype, shape, values).

Each case also runs at every other ONNX version of its operator that can
express it (same attributes and dtype; broadcasting only from Mean-8), since
those versions must give the same result.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import op_id, ops_of_kind, run_cli
from onnx_cases import ONNX_DOMAINS, every_collected_case, node_cases

from meancli.ops.schema import OpVersion


@dataclass(frozen=True)
class NodeCase:
    """One data set of one ONNX node test, as meancli's command line needs it."""

    name: str
    op_type: str  # Mean | ReduceMean
    opset: int
    inputs: tuple[np.ndarray, ...]  # data inputs (ReduceMean: just the data)
    expected: np.ndarray
    axes: tuple[int, ...] | None  # None: not given (attribute absent, input absent)
    keepdims: int | None  # None: attribute absent
    noop_with_empty_axes: int | None


def _attributes(node: Any) -> dict[str, Any]:
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def _node_cases(case: Any) -> list[NodeCase]:
    from onnx import numpy_helper

    graph = case.model.graph
    node = graph.node[0]
    opset = next(o.version for o in case.model.opset_import if o.domain in ONNX_DOMAINS)
    attrs = _attributes(node)
    initializers = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    graph_inputs = [i.name for i in graph.input if i.name not in initializers]
    out = []
    for k, (inputs, outputs) in enumerate(case.data_sets):
        values = dict(zip(graph_inputs, inputs, strict=True)) | initializers
        node_inputs = [values[name] if name else None for name in node.input]
        axes: tuple[int, ...] | None = None
        if node.op_type == "ReduceMean":
            if "axes" in attrs:
                axes = tuple(int(a) for a in attrs["axes"])
            elif len(node_inputs) > 1 and node_inputs[1] is not None:
                axes = tuple(int(a) for a in np.asarray(node_inputs[1]).reshape(-1))
            node_inputs = node_inputs[:1]
        out.append(
            NodeCase(
                name=case.name + (f"[{k}]" if len(case.data_sets) > 1 else ""),
                op_type=node.op_type,
                opset=int(opset),
                inputs=tuple(np.asarray(x) for x in node_inputs),
                expected=np.asarray(outputs[0]),
                axes=axes,
                keepdims=attrs.get("keepdims"),
                noop_with_empty_axes=attrs.get("noop_with_empty_axes"),
            )
        )
    return out


@lru_cache(maxsize=1)
def collect() -> tuple[NodeCase, ...]:
    """The Mean/ReduceMean node cases of the installed onnx package (tests/onnx_cases.py)."""
    return tuple(c for case in node_cases() for c in _node_cases(case))


def case_named(name: str) -> NodeCase:
    """One data set of ``collect()``, by its name."""
    (case,) = (c for c in collect() if c.name == name)
    return case


def _resolve(op_type: str, opset: int) -> OpVersion:
    versions = [op for op in ops_of_kind("reduce" if op_type == "ReduceMean" else "elementwise_mean")]
    versions = [op for op in versions if op.domain == "onnx" and op.since_version <= opset]
    return max(versions, key=lambda op: op.since_version)


def _dtype_name(a: np.ndarray) -> str:
    from meancli.dtypes import spec_name as spec_dtype_name

    return spec_dtype_name(a.dtype)


def _runs() -> list[Any]:
    """(case, opset) pairs: the case's own opset, then each other onnx version that can express it."""
    params = []
    for case in collect():
        params.append(pytest.param(case.name, case.opset, id=case.name))
        own = _resolve(case.op_type, case.opset)
        for op in ops_of_kind("reduce" if case.op_type == "ReduceMean" else "elementwise_mean"):
            if op.domain != "onnx" or op.since_version == own.since_version:
                continue
            if _dtype_name(case.inputs[0]) not in op.types:
                continue
            if case.noop_with_empty_axes and op.attribute("noop_with_empty_axes") is None:
                continue
            if op.broadcasting == "none" and len({x.shape for x in case.inputs}) > 1:
                continue
            params.append(pytest.param(case.name, op.since_version, id=f"{case.name}@{op_id(op)}"))
    return params


RUNS = _runs()


def test_cases_were_collected() -> None:
    cases = collect()
    ops_seen = {c.op_type for c in cases}
    assert len(cases) > 0, "no Mean/ReduceMean node test cases found in onnx"
    assert ops_seen == {"Mean", "ReduceMean"}, ops_seen
    assert len(RUNS) > len(cases), f"{len(cases)} cases, {len(RUNS)} runs"


def command(case: NodeCase, opset: int, tmp_path: Path) -> tuple[list[str], Path]:
    """meancli's arguments for ``case`` at ``opset`` (inputs written under ``tmp_path``), and the output."""
    files = []
    for i, x in enumerate(case.inputs):
        path = tmp_path / f"input_{i}.npy"
        np.save(path, x)
        files.append(str(path))
    out = tmp_path / "out.npy"
    argv: list[str] = []
    if case.op_type == "Mean":
        argv += ["mean", *files]
    else:
        argv += ["reduce-mean", files[0]]
        if case.axes is not None:
            argv += ["--axes", *map(str, case.axes)] if case.axes else ["--axes="]
        if case.keepdims is not None:
            argv.append("--keep-dims" if case.keepdims else "--no-keep-dims")
        if case.noop_with_empty_axes:
            argv.append("--noop-with-empty-axes")
    argv += ["--opset", f"onnx:{opset}", "-o", str(out), "--quiet"]
    return argv, out


@pytest.mark.slow
def test_the_two_modules_hold_every_mean_case() -> None:
    """onnx's full collection (every operator's cases) finds no Mean/ReduceMean case
    that the two modules tests/onnx_cases.py imports do not define."""
    every = [case.name for case in every_collected_case()]
    assert every == [case.name for case in node_cases()]


@pytest.mark.parametrize(("name", "opset"), RUNS)
def test_node_case(name: str, opset: int, tmp_path: Path) -> None:
    case = case_named(name)
    argv, out = command(case, opset, tmp_path)
    result = run_cli(*argv, cwd=tmp_path)
    assert result.exit_code == 0, f"{' '.join(argv)}\nexit {result.exit_code}\n{result.stderr}"
    assert result.stdout == "" and result.stderr == "", "--quiet printed something"
    got = np.load(out, allow_pickle=False)
    want = case.expected
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    if want.dtype.kind in "iu":
        np.testing.assert_array_equal(got, want)
    elif want.dtype == np.float64:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    elif want.dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    else:  # float16 (bfloat16 would be read back as void)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-3, atol=1e-4)
