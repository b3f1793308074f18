"""The correctly rounded output of one ONNX Mean or ReduceMean node (meancli.io.onnx_model)
on given input values: the node's operator version resolved from the model's opset, its
attributes validated by the version's generated validators, and the call run by the one
planner (meancli.engine.plan), as ``meancli mean`` and ``reduce-mean`` run theirs.
For ``meancli check-onnx``."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NamedTuple

import numpy as np

from ..errors import InputFileError, OpsetError, SpecViolation
from ..io.onnx_model import NodeModel
from ..kernels.arrays import kernel_input
from ..ops import opset as opsets
from ..ops.schema import OpVersion
from ..ops.validate import axes_input, check_arity, validate_reduce
from . import Clock, plan
from .memory import prepare_mean

OPS = ("Mean", "ReduceMean")


class NodeRun(NamedTuple):
    """A node's correctly rounded output, the version that computed it and the
    attributes in force (as ONNX writes them: flags as 0/1; for ReduceMean the
    normalized axes)."""

    op: OpVersion
    attributes: dict[str, Any]
    result: np.ndarray


def node_version(model: NodeModel) -> OpVersion:
    """The operator version the model's opset selects for its node (as ONNX does:
    the highest version whose since_version is <= the opset).

    Raises:
        InputFileError: an opset older than the operator's first version, or below 1.
    """
    if model.opset < 1:  # the model's own value: not a usage error (parse_opset's)
        raise InputFileError(
            f"{model.path}: the model imports opset {model.opset} of ONNX's domain (versions start at 1)"
        )
    try:
        return opsets.resolve(model.op_type, f"onnx:{model.opset}")
    except OpsetError as exc:
        raise InputFileError(f"{model.path}: {exc}") from None


@contextmanager
def _named(model: NodeModel, axes_from: str = "") -> Iterator[None]:
    """What the version's validators refuse, said of the model (check-onnx may run many),
    and of where the axes came from, when an input gave them (with the data, not the model)."""
    try:
        yield
    except SpecViolation as exc:
        raise SpecViolation(
            f"{model.path}: {exc}" + (f" (the axes from {axes_from})" if axes_from else "")
        ) from None


def run_node(
    model: NodeModel,
    values: dict[str, Any],
    clock: Clock,
    threads: int = 1,
    sources: Mapping[str, str] | None = None,
) -> NodeRun:
    """The node's correctly rounded output on ``values`` (by name: the graph's inputs
    and initializers).

    Args:
        model: the node (read_node_model).
        values: arrays by input name; the model's initializers are added to them.
        clock: where stage times go (validate, kernel).
        threads: kernel threads.
        sources: where each of ``values`` came from (a file name), for messages.

    Returns:
        The NodeRun: the result is a new C-contiguous array of the inputs' dtype.

    Raises:
        InputFileError: an input the node names has no value.
        SpecViolation: what the version's validators refuse (a dtype, an axis, an
            attribute the version lacks).
    """
    op = node_version(model)
    # an optional input left out is an empty name; trailing ones do not count
    given = list(model.inputs)
    while given and not given[-1]:
        given.pop()
    check_arity(op, len(given), str(model.path))
    known = {**model.initializers, **values}
    missing = [n for n in given if n not in known]
    if missing:
        raise InputFileError(f"{model.path}: no value for the node's input {missing[0]!r}")
    attributes = dict(model.attributes)
    legacy = {a.name for a in op.attributes if a.legacy}
    for name in legacy:  # no effect on the result (Mean-1's consumed_inputs)
        attributes.pop(name, None)
    if "axes" in attributes and (op.axes is None or op.axes.source != "attribute"):
        raise SpecViolation(f"{model.path}: {op.label} has no attribute axes (its axes are its second input)")
    job = plan.Job(threads=threads, clock=clock)
    if model.op_type == "Mean":
        items = [kernel_input(known[n]) for n in given]
        with clock.stage("validate"), _named(model):
            shape = prepare_mean(op, items, **attributes)
        outcome = plan.mean(op, shape, items, job)
        return NodeRun(op, {}, np.asarray(outcome.result))
    data = kernel_input(known[given[0]])
    axes: Any = None
    axes_from = ""  # the input that gives the axes, if one does
    if op.axes is not None and op.axes.source == "attribute":
        axes = attributes.pop("axes", None)
    elif len(given) > 1 and given[1]:
        source = (sources or {}).get(given[1])  # the data file that holds them, if known
        axes_from = source or f"the node's input {given[1]!r}"
        # their dtype and rank are the data's, as their values are: said of that file
        axes = axes_input(
            op, np.asarray(known[given[1]]), f"{source or model.path}: the node's axes {given[1]!r}"
        )
    keepdims = attributes.pop(op.keepdims.attribute, None) if op.keepdims is not None else None
    with clock.stage("validate"), _named(model, axes_from):  # keepdims as the model gives it: 0 or 1
        call = validate_reduce(op, data.dtype, tuple(data.shape), axes, keepdims, **attributes)
    outcome = plan.reduce(op, call, data, job)
    shown: dict[str, Any] = {"axes": list(call.axes)}
    for name, value in call.attributes:
        shown[name] = int(value) if isinstance(value, bool) else value
    return NodeRun(op, shown, np.asarray(outcome.result))
