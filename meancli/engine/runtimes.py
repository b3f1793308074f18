"""Other runtimes' outputs for ``--runtime NAME`` and ``meancli check-model`` (meancli's
own check, not part of ONNX): build an ONNX model (or OpenVINO's ReduceMean-1 through
its opset1 Python API), run it on onnxruntime, OpenVINO or the onnx package's reference
evaluator, and hand back the outputs for meancli.engine.compare to judge.

Each runtime is an optional extra (``meancli[onnxruntime]``, ``meancli[openvino]``,
``meancli[onnx]``), imported only here and only when asked for. A runtime that refuses
a node (no kernel for a dtype or a version, an attribute combination it rejects)
raises Refused with its own one-line reason: the report shows it as a row, the run
goes on.

How each runs (their defaults, except where a setting and not the operator would
decide the numbers):
    onnxruntime: an InferenceSession on CPUExecutionProvider, default optimizations,
        ``threads`` intra-op threads.
    openvino: the CPU device; ONNX operators through OpenVINO's ONNX frontend (static
        shapes: the inputs' own), ReduceMean-1 through ``openvino.opset1``;
        INFERENCE_PRECISION_HINT f32 (else the CPU plugin computes float32 in
        bfloat16 on CPUs with bfloat16 units); ``threads`` inference threads.
    onnx-reference: ``onnx.reference.ReferenceEvaluator`` (numpy).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ..dtypes import as_ml_dtypes, is_bfloat16, native_dtype, onnx_enum, spec_name
from ..errors import InputFileError, UsageError, extra_hint
from ..io.messages import one_line
from ..ops.schema import OpVersion

#: The runtimes, by the name ``--runtime`` takes: (module to import, meancli's extra).
RUNTIMES: dict[str, tuple[str, str]] = {
    "onnxruntime": ("onnxruntime", "onnxruntime"),
    "openvino": ("openvino", "openvino"),
    "onnx-reference": ("onnx.reference", "onnx"),
}
#: The IR version of the models built here: old enough for every supported runtime
#: release, new enough for opset 18 (ReduceMean-18).
IR_VERSION = 8
#: The longest reason a refusal keeps (runtimes' messages can be pages long).
REASON_LIMIT = 300


class Refused(Exception):
    """A runtime refused the model or failed to run it; the message is its one-line reason."""


class RuntimeRow(NamedTuple):
    """A runtime's row that holds no comparison: it refused the node (``refused``, no
    verdict: the exit status is unchanged), or it returned an output of another shape
    or dtype than the correctly rounded result's (beyond any tolerance: exit status 4).

    Attributes:
        against: the runtime and its version (``onnxruntime 1.32.0``).
        reason: one line: the runtime's own message, or the shapes and dtypes.
        refused: True for a refusal, False for an output that cannot be compared.
        node: check-model's node name (None for --runtime).
    """

    against: str
    reason: str
    refused: bool
    node: str | None = None

    @property
    def within(self) -> bool:
        """A refusal passes no judgement (True); an output of another shape or dtype fails."""
        return self.refused


def check_runtimes(names: Sequence[str]) -> None:
    """Before any input is read: each name is a runtime, named once, and installed.

    Raises:
        UsageError: an unknown name (listing the known ones) or a repeated one.
        InputFileError: a runtime that is not installed: one line naming the extra
            that installs it (the environment decides, not the command line).
    """
    import importlib.util

    seen: set[str] = set()
    for name in names:
        if name not in RUNTIMES:
            raise UsageError(f"--runtime {name!r}: not a runtime; choose from {', '.join(RUNTIMES)}")
        if name in seen:
            raise UsageError(f"--runtime {name} is given twice")
        seen.add(name)
        module, extra = RUNTIMES[name]
        top = module.split(".")[0]
        if importlib.util.find_spec(top) is None or (
            name != "onnx-reference" and importlib.util.find_spec("onnx") is None
        ):
            missing = top if importlib.util.find_spec(top) is None else "onnx"
            raise InputFileError(f"--runtime {name} needs the {missing} package; {extra_hint(extra)}")
        for needed in dict.fromkeys([module, "onnx"]):  # installed, but does it load?
            try:
                importlib.import_module(needed)
            except ImportError as exc:  # a missing shared library, a broken install
                reason = one_line(str(exc)) or type(exc).__name__
                raise InputFileError(
                    f"--runtime {name}: {needed.split('.')[0]} is installed but cannot be imported "
                    f"({reason}); {extra_hint(extra)}"
                ) from None


def runtime_label(name: str) -> str:
    """``onnxruntime 1.32.0``, ``openvino 2026.4.1``, ``onnx-reference 1.23.2`` (the
    onnx package's version): the name and the installed version."""
    if name == "onnxruntime":
        import onnxruntime

        version = onnxruntime.__version__
    elif name == "openvino":
        import openvino

        version = str(openvino.__version__).split("-")[0]
    else:
        import onnx

        version = onnx.__version__
    return f"{name} {version}"


def refusal_reason(exc: BaseException) -> str:
    """A runtime's exception as one line: its lines that say something joined (not the
    headings ending in ``:`` such as OpenVINO's ``Exception from file:line:``,
    ``Check '...' failed at file:line:`` and ``While validating ONNX node ...:``; the
    details onnxruntime gives on the lines after its first, such as the dimension that
    does not match, kept), at most REASON_LIMIT characters."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    said = [line for line in lines if not line.endswith(":")]
    text = one_line(" ".join(said or lines or [type(exc).__name__]))
    return text if len(text) <= REASON_LIMIT else text[: REASON_LIMIT - 3] + "..."


def node_model(
    op: OpVersion,
    inputs: Sequence[np.ndarray],
    axes: Sequence[int] | None,
    keepdims: bool | None,
    attributes: dict[str, Any],
) -> bytes:
    """A serialized one-node ONNX model of ``op`` (an onnx-domain Mean or ReduceMean
    version) at opset ``op.since_version``, with static input shapes.

    Args:
        inputs: the data inputs (Mean: each; ReduceMean: one): their shapes and dtypes.
        axes: ReduceMean's axes as given (None: omitted, not set; [] an explicitly
            empty list): the attribute ``axes`` up to ReduceMean-13, the constant
            second input (an initializer, int64) from ReduceMean-18.
        keepdims: None: not set (the runtime applies the default).
        attributes: the version's other attributes (``noop_with_empty_axes``), None
            values left out; flags written as 0/1.

    Returns:
        The model's bytes; graph inputs ``x0``, ``x1``, ... and output ``y``.
    """
    from onnx import AttributeProto, TensorProto, helper

    elem = onnx_enum(spec_name(inputs[0].dtype))
    names = [f"x{i}" for i in range(len(inputs))]
    graph_inputs = [
        helper.make_tensor_value_info(n, elem, list(x.shape)) for n, x in zip(names, inputs, strict=True)
    ]
    node_inputs = list(names)
    initializers = []
    node = helper.make_node(op.name, node_inputs, ["y"])
    if op.kind == "reduce" and axes is not None:
        if op.axes is not None and op.axes.source == "input":
            initializers.append(helper.make_tensor("axes", TensorProto.INT64, [len(axes)], list(axes)))
            node.input.append("axes")
        else:
            node.attribute.append(helper.make_attribute("axes", list(axes), attr_type=AttributeProto.INTS))
    if op.keepdims is not None and keepdims is not None:
        node.attribute.append(helper.make_attribute(op.keepdims.attribute, int(keepdims)))
    for name, value in attributes.items():
        if value is not None:
            node.attribute.append(
                helper.make_attribute(name, int(value) if isinstance(value, bool) else value)
            )
    y = helper.make_tensor_value_info("y", elem, None)
    graph = helper.make_graph(
        [node], f"{op.name}_{op.since_version}", graph_inputs, [y], initializer=initializers
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", op.since_version)], ir_version=IR_VERSION
    )
    return bytes(model.SerializeToString())


def run_node(
    name: str,
    op: OpVersion,
    inputs: Sequence[np.ndarray],
    axes: Sequence[int] | None,
    keepdims: bool | None,
    attributes: dict[str, Any],
    threads: int = 1,
) -> np.ndarray:
    """Run one Mean or ReduceMean node of ``op`` on runtime ``name`` (see node_model for
    the arguments): an ONNX model, or for OpenVINO's ReduceMean-1 an ``openvino.opset1``
    model (``axes`` required).

    Returns:
        The runtime's output (bfloat16 as ml_dtypes' bfloat16).

    Raises:
        Refused: the runtime refused the node or failed to run it (its reason), or the
            node is not one the runtime takes (an OpenVINO operator on an ONNX runtime).
    """
    arrays = [fed(x) for x in inputs]
    if op.domain == "openvino":
        if name != "openvino":
            raise Refused(f"{name} runs ONNX operators; {op.label} is OpenVINO's (use --runtime openvino)")
        return _openvino_reduce_mean_1(arrays[0], list(axes or ()), bool(keepdims), threads)
    model = node_model(op, arrays, axes, keepdims, attributes)
    feeds = {f"x{i}": x for i, x in enumerate(arrays)}
    return run_model(name, model, feeds, ["y"], threads)["y"]


def fed(x: np.ndarray) -> np.ndarray:
    """``x`` as a runtime takes it: C order, native byte order (a runtime reads a
    big-endian array's bytes as its own), bfloat16 as ml_dtypes'. ``x`` itself when it
    is so already."""
    x = as_ml_dtypes(np.asarray(x))
    return np.asarray(x, dtype=native_dtype(x.dtype), order="C")


def run_model(
    name: str, model: bytes, feeds: dict[str, np.ndarray], outputs: Sequence[str], threads: int = 1
) -> dict[str, np.ndarray]:
    """Run a serialized ONNX model on runtime ``name`` and return the named graph outputs.

    Args:
        feeds: the graph inputs by name (any order and byte order: see ``fed``).
        outputs: graph outputs to return, by name.

    Raises:
        Refused: the runtime could not load or run the model (its one-line reason).
    """
    feeds = {k: fed(v) for k, v in feeds.items()}
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if name == "onnxruntime":
                got = _onnxruntime(model, feeds, outputs, threads)
            elif name == "openvino":
                got = _openvino_onnx(model, feeds, outputs, threads)
            else:
                got = _reference(model, feeds, outputs)
    except Refused:
        raise
    except Exception as exc:  # each runtime raises its own types (Fail, RuntimeError, ...)
        raise Refused(refusal_reason(exc)) from None
    return {k: np.asarray(v) for k, v in got.items()}


def _onnxruntime(
    model: bytes, feeds: dict[str, np.ndarray], outputs: Sequence[str], threads: int
) -> dict[str, Any]:
    import onnxruntime as ort

    ort.set_default_logger_severity(3)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.intra_op_num_threads = threads
    for k, x in feeds.items():
        if is_bfloat16(x.dtype):
            raise Refused(f"onnxruntime's Python API takes no bfloat16 arrays (input {k})")
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    got = session.run(list(outputs), feeds)
    return dict(zip(outputs, got, strict=True))


def _ov_config(threads: int) -> dict[str, Any]:
    return {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": threads}


def _ov_tensor(x: np.ndarray) -> Any:
    import openvino as ov

    if is_bfloat16(x.dtype):  # ml_dtypes' bfloat16 is no numpy type OpenVINO knows: wrap its words
        return ov.Tensor(x.view(np.uint16), list(x.shape), ov.Type.bf16)
    return ov.Tensor(x)


def _ov_output(tensor: Any) -> np.ndarray:
    import openvino as ov

    data = np.array(tensor.data, copy=True)
    if tensor.element_type == ov.Type.bf16:
        import ml_dtypes

        return data.view(np.uint16).view(ml_dtypes.bfloat16)
    return data


def _openvino_onnx(
    model: bytes, feeds: dict[str, np.ndarray], outputs: Sequence[str], threads: int
) -> dict[str, Any]:
    import openvino as ov

    core = ov.Core()
    converted = core.read_model(model, b"")
    compiled = core.compile_model(converted, "CPU", _ov_config(threads))
    request = compiled.create_infer_request()
    by_name = {p.get_friendly_name(): i for i, p in enumerate(converted.get_parameters())}
    request.infer({by_name[k]: _ov_tensor(x) for k, x in feeds.items()})
    found: dict[str, Any] = {}
    for i, out in enumerate(compiled.outputs):
        for tensor_name in out.get_names():
            found[tensor_name] = i
    missing = [o for o in outputs if o not in found]
    if missing:
        raise Refused(f"OpenVINO's converted model has no output {missing[0]!r}")
    return {o: _ov_output(request.get_output_tensor(found[o])) for o in outputs}


def _openvino_reduce_mean_1(x: np.ndarray, axes: list[int], keep_dims: bool, threads: int) -> np.ndarray:
    import openvino as ov
    import openvino.opset1 as opset1

    try:
        element = ov.Type.bf16 if is_bfloat16(x.dtype) else ov.Type(x.dtype)
        param = opset1.parameter(ov.PartialShape(list(x.shape)), element, name="data")
        axes_const = ov.op.Constant(ov.Type.i64, ov.Shape([len(axes)]), axes)
        model = ov.Model([opset1.reduce_mean(param, axes_const, keep_dims)], [param], "ReduceMean_1")
        compiled = ov.Core().compile_model(model, "CPU", _ov_config(threads))
        request = compiled.create_infer_request()
        request.infer({0: _ov_tensor(x)})
        return _ov_output(request.get_output_tensor(0))
    except Exception as exc:
        raise Refused(refusal_reason(exc)) from None


def _reference(model: bytes, feeds: dict[str, np.ndarray], outputs: Sequence[str]) -> dict[str, Any]:
    import onnx
    from onnx.reference import ReferenceEvaluator

    evaluator = ReferenceEvaluator(onnx.load_from_string(model))
    got = evaluator.run(list(outputs), feeds)
    return dict(zip(outputs, got, strict=True))


def comparable(expected_shape: tuple[int, ...], expected_dtype: Any, got: np.ndarray) -> str | None:
    """None when ``got`` has the result's shape and dtype; else one line saying both."""
    want = (tuple(expected_shape), spec_name(np.dtype(expected_dtype)))
    try:
        have = (tuple(got.shape), spec_name(got.dtype))
    except (KeyError, TypeError):
        have = (tuple(got.shape), str(got.dtype))
    if want == have:
        return None
    return f"returned shape {have[0]} {have[1]}; the result is {want[0]} {want[1]}"
