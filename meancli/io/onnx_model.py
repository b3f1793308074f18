"""ONNX backend-style test directories: ``model.onnx`` holding one node, and
``test_data_set_N/input_K.pb`` / ``output_K.pb`` (each one serialized TensorProto), the
layout of ONNX's own node tests (``onnx/backend/test/data/node/test_*``).

This module reads what such a directory holds (the node's operator, domain, opset and
attributes; the data sets' files); meancli.engine.onnx_node computes the node, and
``meancli check-onnx`` compares. Reading needs the onnx package (meancli's ``onnx``
extra), imported only here and only when a model is read.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Any, NamedTuple

import numpy as np

from ..errors import InputFileError, extra_hint
from .messages import display, reason
from .onnx_tensor import PROTOBUF_LIMIT, tensor_to_array

MODEL_FILE = "model.onnx"
#: The names ONNX gives its own default domain.
ONNX_DOMAINS = ("", "ai.onnx")
_DATA_SET = re.compile(r"test_data_set_([0-9]+)")


class NodeModel(NamedTuple):
    """The one node of a model, as check-onnx needs it.

    Attributes:
        path: the model file.
        op_type: the node's operator (``Mean``, ``ReduceMean``).
        domain: the node's domain as the model writes it (``""``, ``ai.onnx``, ...).
        opset: the model's opset import for that domain.
        attributes: the node's attributes (ints, lists of ints, floats, strings as bytes).
        inputs: the node's input names, in order ("" for an omitted optional input).
        outputs: the node's output names.
        graph_inputs: the graph's inputs that are not initializers, in order: the data
            sets' ``input_K.pb`` files.
        graph_outputs: the graph's outputs, in order: ``output_K.pb``.
        initializers: the graph's initializers by name (ReduceMean-18's axes may be one).
    """

    path: str
    op_type: str
    domain: str
    opset: int
    attributes: dict[str, Any]
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    graph_inputs: tuple[str, ...]
    graph_outputs: tuple[str, ...]
    initializers: dict[str, np.ndarray[Any, Any]]


def load_model(path: str) -> Any:
    """The ONNX model in file ``path`` (an ``onnx.ModelProto``), read whole.

    Raises:
        InputFileError: one line naming the file: the onnx package is missing; the file
            cannot be read, is larger than 2 GiB or is not an ONNX model (no graph).
    """
    where = display(path)
    try:
        import onnx
    except ImportError:
        raise InputFileError(
            f"{where}: reading ONNX models needs the onnx package; {extra_hint('onnx')}"
        ) from None
    try:
        with open(path, "rb") as fp:
            data = fp.read(PROTOBUF_LIMIT + 1)
    except OSError as exc:
        raise InputFileError(f"{where}: {reason(exc)}") from None
    if len(data) > PROTOBUF_LIMIT:
        raise InputFileError(f"{where}: more than protobuf's 2 GiB limit for a model file")
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as exc:  # protobuf's DecodeError and the C++ backend's errors vary by version
        raise InputFileError(f"{where}: not an ONNX model ({reason(exc)})") from None
    if not model.HasField("graph"):
        raise InputFileError(f"{where}: not an ONNX model (no graph)")
    return model


def default_opset(model: Any) -> int | None:
    """The model's opset import for ONNX's default domain (``""`` or ``ai.onnx``); None without one."""
    found = next((o.version for o in model.opset_import if o.domain in ONNX_DOMAINS), None)
    return None if found is None else int(found)


def node_attributes(node: Any) -> dict[str, Any]:
    """A NodeProto's attributes by name (ints, lists of ints, floats, strings as bytes, graphs)."""
    from onnx import helper

    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def read_node_model(path: str, ops: tuple[str, ...]) -> NodeModel:
    """The one node of the model file ``path``, which must be one of ``ops``.

    Raises:
        InputFileError: one line naming the file: the onnx package is missing; the file
            cannot be read, is larger than 2 GiB or is not an ONNX model; the graph holds
            no node or several (named), or a node of another operator, or one in a
            domain other than ONNX's; no opset import for the node's domain.
    """
    where = display(path)
    model = load_model(path)
    graph = model.graph
    wanted = " or ".join(ops)
    if len(graph.node) != 1:
        held = ", ".join(n.op_type for n in graph.node[:8]) + (", ..." if len(graph.node) > 8 else "")
        raise InputFileError(
            f"{where}: the model holds {len(graph.node)} nodes ({held or 'none'}); "
            f"check-onnx checks a model of one {wanted} node"
        )
    (node,) = graph.node
    if node.op_type not in ops or node.domain not in ONNX_DOMAINS:
        domain = f" of domain {node.domain!r}" if node.domain not in ONNX_DOMAINS else ""
        raise InputFileError(
            f"{where}: the model's node is {node.op_type}{domain}; "
            f"check-onnx checks one {wanted} node of ONNX"
        )
    opset = default_opset(model)
    if opset is None:
        raise InputFileError(
            f"{where}: the model imports no opset of the ONNX domain for its {node.op_type} node"
        )
    initializers = {t.name: tensor_to_array(t, f"{where}: initializer {t.name}") for t in graph.initializer}
    return NodeModel(
        path=path,
        op_type=node.op_type,
        domain=node.domain,
        opset=int(opset),
        attributes=node_attributes(node),
        inputs=tuple(node.input),
        outputs=tuple(node.output),
        graph_inputs=tuple(i.name for i in graph.input if i.name not in initializers),
        graph_outputs=tuple(o.name for o in graph.output),
        initializers=initializers,
    )


def model_file(test_dir: str) -> str:
    """The ``model.onnx`` of an ONNX test directory (its path).

    Raises:
        InputFileError: ``test_dir`` is missing or no directory, or holds no ``model.onnx``.
    """
    try:
        is_dir = stat.S_ISDIR(os.stat(test_dir).st_mode)
    except OSError as exc:
        raise InputFileError(f"{display(test_dir)}: {reason(exc)}") from None
    if not is_dir:
        raise InputFileError(
            f"{display(test_dir)}: not a directory (a test directory holds {MODEL_FILE} and test_data_set_N/)"
        )
    path = os.path.join(test_dir, MODEL_FILE)
    if not os.path.lexists(path):
        raise InputFileError(f"{display(test_dir)}: no {MODEL_FILE} in this directory")
    return path


def data_sets(test_dir: str) -> list[str]:
    """The ``test_data_set_N`` directories of ``test_dir``, by N.

    Raises:
        InputFileError: ``test_dir`` cannot be listed, or holds no data set.
    """
    try:
        names = os.listdir(test_dir)
    except OSError as exc:
        raise InputFileError(f"{display(test_dir)}: {reason(exc)}") from None
    found = sorted(
        (int(m.group(1)), n)
        for n in names
        if (m := _DATA_SET.fullmatch(n)) and os.path.isdir(os.path.join(test_dir, n))
    )
    if not found:
        raise InputFileError(f"{display(test_dir)}: no test_data_set_N directory")
    return [os.path.join(test_dir, n) for _, n in found]
