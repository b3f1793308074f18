"""``meancli check-model``: every Mean and ReduceMean node of a whole ONNX model, run by
another runtime, against the correctly rounded mean of the inputs that runtime gave the
node (meancli's own check, not part of ONNX).

The model is run once per runtime with each checked node's output, and each of its
inputs that is computed in the graph, added as graph outputs; each node's exact output
is then computed from those inputs (meancli.engine.onnx_node, the one planner) and the
runtime's output is compared with it (meancli.engine.compare).

Checked: the nodes of the main graph whose operator is Mean or ReduceMean in ONNX's
default domain (``""`` or ``ai.onnx``), at the version the model's opset import for that
domain selects. Shapes come from the runtime's actual tensors (dynamic dims are
whatever the run gave). Named as not handled (a Skipped each): a Mean or ReduceMean of
another domain, and one inside a subgraph (an If, Loop or Scan body) or a model-local
function: the values inside those are not graph outputs a runtime can return.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..dtypes import spec_name
from ..errors import InputFileError, SpecViolation
from ..io.messages import display
from ..io.onnx_model import ONNX_DOMAINS, NodeModel, default_opset, node_attributes
from ..io.onnx_tensor import tensor_to_array
from ..ops.schema import OpVersion
from . import Clock
from .compare import Comparison, compare
from .onnx_node import OPS, node_version, run_node
from .runtimes import Refused, RuntimeRow, comparable, run_model, runtime_label


class Skipped(NamedTuple):
    """A Mean or ReduceMean node not checked, and why (one line)."""

    node: str
    op_type: str
    reason: str


class NodeCheck(NamedTuple):
    """One node's check on one runtime.

    Attributes:
        node: the node's name (``#K`` for an unnamed node, K its index in the graph).
        op: the operator version the model's opset selects.
        attributes: the attributes in force (onnx_node.NodeRun's), {} when not computed.
        shape, dtype: the runtime's output's (None when it gave none).
        comparison: the Comparison, or a RuntimeRow (refused; or an output that is not
            the exact result's shape and dtype).
    """

    node: str
    op: OpVersion
    attributes: dict[str, Any]
    shape: tuple[int, ...] | None
    dtype: str | None
    comparison: Comparison | RuntimeRow


class ModelCheck(NamedTuple):
    """What check_model found: the nodes checked (per runtime, in graph order) and skipped."""

    checks: list[NodeCheck]
    skipped: list[Skipped]


def node_name(node: Any, index: int) -> str:
    """A node's name, or ``#index`` when it has none."""
    return str(node.name) if node.name else f"#{index}"


def find_nodes(model: Any) -> tuple[list[tuple[int, Any]], list[Skipped]]:
    """The main graph's Mean and ReduceMean nodes of ONNX's domain (index, NodeProto),
    and the ones not handled (another domain, inside a subgraph or a local function)."""
    handled: list[tuple[int, Any]] = []
    skipped: list[Skipped] = []
    for index, node in enumerate(model.graph.node):
        if node.op_type in OPS:
            if node.domain in ONNX_DOMAINS:
                handled.append((index, node))
            else:
                skipped.append(
                    Skipped(
                        node_name(node, index),
                        node.op_type,
                        f"domain {node.domain!r}: only ONNX's own Mean and ReduceMean are checked",
                    )
                )
        for where, inner in _subgraph_nodes(node, index):
            if inner.op_type in OPS:
                skipped.append(
                    Skipped(
                        inner.name or "(unnamed)", inner.op_type, f"inside {where}: subgraphs are not handled"
                    )
                )
    for function in model.functions:
        for inner in function.node:
            if inner.op_type in OPS:
                skipped.append(
                    Skipped(
                        inner.name or "(unnamed)",
                        inner.op_type,
                        f"inside the model-local function {function.name!r}: functions are not handled",
                    )
                )
    return handled, skipped


def _subgraph_nodes(node: Any, index: int) -> Iterator[tuple[str, Any]]:
    """Every node inside ``node``'s graph attributes, at any depth, with where it is
    (``If 'cond' (then_branch)``)."""
    from onnx import AttributeProto

    for attribute in node.attribute:
        graphs = (
            [attribute.g]
            if attribute.type == AttributeProto.GRAPH
            else list(attribute.graphs)
            if attribute.type == AttributeProto.GRAPHS
            else []
        )
        for graph in graphs:
            where = f"{node.op_type} {node_name(node, index)!r} ({attribute.name})"
            for k, inner in enumerate(graph.node):
                yield where, inner
                yield from _subgraph_nodes(inner, k)


def check_feeds(path: str, model: Any, given: dict[str, np.ndarray]) -> None:
    """Every graph input without an initializer is given, and nothing else.

    Raises:
        InputFileError: ``model.onnx: no --input for the graph input 'x' (the graph's
            inputs: x, b)``; ``--input z: the graph has no input z (...)``.
    """
    initialized = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input]
    required = [n for n in names if n not in initialized]
    listed = ", ".join(required) or "none"
    for name in given:
        if name not in names:
            raise InputFileError(
                f"{display(path)}: --input {name}: the graph has no input {name} (its inputs: {listed})"
            )
    missing = [n for n in required if n not in given]
    if missing:
        raise InputFileError(
            f"{display(path)}: no --input for the graph input {missing[0]!r} "
            f"(give each as --input NAME=FILE; its inputs: {listed})"
        )


def exposed_model(model: Any, names: Sequence[str]) -> bytes:
    """``model`` serialized with ``names`` added as graph outputs (those not outputs yet),
    untyped: the runtimes infer their types."""
    import onnx

    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    present = {o.name for o in copy.graph.output}
    for name in names:
        if name not in present:
            copy.graph.output.append(onnx.ValueInfoProto(name=name))
            present.add(name)
    return bytes(copy.SerializeToString())


def check_model(
    path: str,
    model: Any,
    given: dict[str, np.ndarray],
    runtimes: Sequence[str],
    tolerance: int,
    clock: Clock,
    threads: int = 1,
) -> ModelCheck:
    """Check every Mean and ReduceMean node of ``model`` on each of ``runtimes``.

    Args:
        path: the model file (for messages).
        model: the ``onnx.ModelProto`` (io.onnx_model.load_model).
        given: the graph inputs by name (check_feeds' rules).
        runtimes: names of engine.runtimes.RUNTIMES.
        tolerance: ``--max-ulp``.
        clock: stage times (runtime, validate, kernel, compare).

    Returns:
        The ModelCheck: per runtime, per node a NodeCheck.

    Raises:
        InputFileError: missing or extra inputs; no runtime could run the model (each
            one's reason; when some could, the others' nodes are refusal rows); no opset
            import for ONNX's domain while the graph has a Mean or ReduceMean; an
            initializer a node reads that cannot be read (external data); an opset
            older than the operator.
        SpecViolation: a node meancli itself refuses (a dtype, an axis the version
            does not take), named.
    """
    check_feeds(path, model, given)
    handled, skipped = find_nodes(model)
    opset = default_opset(model)
    if handled and opset is None:
        raise InputFileError(
            f"{display(path)}: the model imports no opset of ONNX's domain for its Mean/ReduceMean nodes"
        )
    graph_inputs = {i.name for i in model.graph.input}
    initializers = {t.name: t for t in model.graph.initializer}
    wanted: list[str] = []
    for _, node in handled:
        for name in [*node.input, node.output[0]]:
            if name and name not in wanted and name not in initializers and name not in graph_inputs:
                wanted.append(name)
    read: dict[str, np.ndarray] = {}
    for _, node in handled:
        for name in node.input:
            if name in initializers and name not in given and name not in read:
                read[name] = tensor_to_array(initializers[name], f"{display(path)}: initializer {name}")
    model_bytes = exposed_model(model, wanted) if handled else b""
    checks: list[NodeCheck] = []
    refusals: list[str] = []
    for runtime in runtimes:
        label = runtime_label(runtime)
        values: dict[str, np.ndarray] = {}
        refusal = None
        if handled:
            with clock.stage("runtime"):
                try:
                    values = run_model(runtime, model_bytes, given, wanted, threads)
                except Refused as exc:
                    refusal = str(exc)
                    refusals.append(f"{label}: {refusal}")
        for index, node in handled:
            name = node_name(node, index)
            one = NodeModel(
                path=path,
                op_type=node.op_type,
                domain=node.domain,
                opset=int(opset or 0),
                attributes=node_attributes(node),
                inputs=tuple(node.input),
                outputs=tuple(node.output),
                graph_inputs=(),
                graph_outputs=(),
                initializers={},
            )
            op = node_version(one)
            if refusal is not None:
                checks.append(NodeCheck(name, op, {}, None, None, RuntimeRow(label, refusal, True, name)))
                continue
            known = {**read, **given, **values}
            got = values[node.output[0]]
            shape, dtype = tuple(got.shape), spec_name(got.dtype)
            try:
                exact = run_node(one, {k: known[k] for k in node.input if k}, clock, threads)
            except SpecViolation as exc:  # the inputs the runtime gave break the operator's spec
                row = RuntimeRow(
                    label, f"not computed: meancli refuses the node's inputs: {exc}", False, name
                )
                checks.append(NodeCheck(name, op, {}, shape, dtype, row))
                continue
            problem = comparable(tuple(exact.result.shape), exact.result.dtype, got)
            if problem is not None:
                row = RuntimeRow(label, problem, False, name)
                checks.append(NodeCheck(name, op, exact.attributes, shape, dtype, row))
                continue
            with clock.stage("compare"):
                found = compare(exact.result, got, label, tolerance, threads)
            checks.append(NodeCheck(name, op, exact.attributes, shape, dtype, found))
    if handled and len(refusals) == len(runtimes):
        raise InputFileError(f"{display(path)}: the model did not run: {'; '.join(refusals)}")
    return ModelCheck(checks, skipped)
