"""``meancli reduce-mean FILE``: ONNX ReduceMean-1/11/13/18, OpenVINO ReduceMean-1.

No ``from __future__ import annotations`` (see app.py).
"""

from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ..errors import UsageError
from . import options
from .argv import parse_axes
from .report import Report
from .run import alloc_output, check_input_dtypes, finish, read_inputs, session, start

if TYPE_CHECKING:  # numpy and the streaming code load only when a command runs
    import numpy as np

    from ..opversion import OpVersion
    from ..semantics import ReduceCall
    from ..streaming import Source


def reduce_mean(
    file: Annotated[
        str,
        typer.Argument(metavar="FILE", help="Input .npy, .npz:NAME or ONNX tensor .pb ('-' reads stdin)."),
    ],
    axes: Annotated[
        Optional[list[str]],  # noqa: UP045 -- typer reads the annotation at run time
        typer.Option(
            "--axes",
            metavar="A [A ...]",
            help="Axes to reduce: --axes 2 3, --axes 2,3, --axes -1; --axes= is an explicitly "
            "empty list. Omitted: reduce all (onnx); openvino requires it.",
        ),
    ] = None,
    axes_from: Annotated[
        Optional[str],  # noqa: UP045
        typer.Option(
            "--axes-from",
            metavar="FILE",
            help="Read the axes input from a 1-D tensor file (.npy, .pb, data.npz:NAME), as "
            "ReduceMean-18 takes it (int64). Not with --axes.",
        ),
    ] = None,
    keep_dims: Annotated[
        Optional[bool],  # noqa: UP045
        typer.Option(
            "--keep-dims/--no-keep-dims",
            help="Keep reduced dims with size 1 "
            "(default: the version's: onnx keepdims=1, openvino keep_dims=false).",
            show_default=False,
        ),
    ] = None,
    noop_with_empty_axes: Annotated[
        bool,
        typer.Option(
            "--noop-with-empty-axes",
            help="ReduceMean-18: empty or omitted axes return the input unchanged.",
        ),
    ] = False,
    opset: options.Opset = None,
    output: options.Output = None,
    threads: options.Threads = None,
    repeat: options.Repeat = 1,
    quiet: options.Quiet = False,
    json_mode: options.Json = False,
    debug: options.Debug = False,
) -> None:
    """Mean of FILE's elements over --axes, as the selected ReduceMean version defines it."""
    with session(json_mode=json_mode, debug=debug, quiet=quiet):
        try:
            axes_list = parse_axes(axes)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        from .. import api

        report = start("reduce-mean", "ReduceMean", opset, threads)
        op, n_threads = report.op, report.threads
        assert op is not None
        if axes_from is not None:
            axes_list = _axes_from(op, axes_from, given=axes is not None, report=report)
        (data,) = read_inputs([file], report, quiet=quiet or json_mode, single=True, stream=repeat == 1)
        with report.stage("validate"):
            check_input_dtypes(op, report)
            call = api.validate_reduce(
                op, data.dtype, tuple(data.shape), axes_list, keep_dims, noop_with_empty_axes
            )
        report.attributes = {
            "axes": list(call.axes),
            op.keepdims_attribute or "keepdims": int(call.keepdims),
        }
        if op.has_noop_with_empty_axes:
            report.attributes["noop_with_empty_axes"] = int(noop_with_empty_axes)
        from ..streaming import Source

        if isinstance(data, Source):
            result = _reduce_streamed(
                op, call, data, file, report, n_threads, show_progress=not (quiet or json_mode)
            )
        else:
            result = report.repeat("kernel", lambda: api.execute_reduce(op, call, data, n_threads), repeat)
        finish(report, result, output, json_mode=json_mode, quiet=quiet)


def _axes_from(op: "OpVersion", path: str, *, given: bool, report: Report) -> list[int]:
    """The axes read from ``path`` for a version whose axes are an input tensor.

    Raises:
        UsageError: with --axes, or for a version whose axes are an attribute.
        InputFileError: as inputs.read_axes.
    """
    if given:
        raise UsageError("--axes and --axes-from cannot be combined")
    if op.axes is None or op.axes.source != "input":
        raise UsageError(f"--axes-from: {op.label} takes axes as an attribute, not a tensor; use --axes")
    from ..inputs import read_axes

    param = next(i.type_param for i in op.inputs if i.name == "axes")
    allowed = dict(op.type_constraints).get(param, (param,))
    with report.stage("read"):
        return read_axes(path, tuple(allowed), op.label)


def _reduce_streamed(
    op: "OpVersion",
    call: "ReduceCall",
    source: "Source",
    file: str,
    report: Report,
    threads: int,
    *,
    show_progress: bool,
) -> "np.ndarray":
    """ReduceMean of a streamed input; reads it whole when one outermost row exceeds a slab."""

    from .. import api
    from ..formats.dtypes import native_dtype
    from ..streaming import reduce_slabs
    from .progress import progress_bar

    kept = tuple(n for n, m in zip(source.shape, call.reduce_mask, strict=True) if not m)
    native = native_dtype(source.dtype)
    out = alloc_output(kept, native, report)
    symbol = op.kernels[api.spec_dtype_name(source.dtype)]
    try:
        with (
            report.stage("kernel"),
            progress_bar(source.nbytes, enabled=show_progress, label=file) as advance,
        ):
            streamed = reduce_slabs(symbol, source, call.reduce_mask, out, threads, advance)
        report.timings_ms["read"] += source.read_seconds * 1e3
        report.timings_ms["kernel"] -= source.read_seconds * 1e3
        if not streamed:  # one outermost row is larger than a slab: read it whole
            with report.stage("read"):
                data = api.kernel_input(source.read_all())
    finally:
        source.finish()
    if streamed:
        return out.reshape(call.out_shape)
    with report.stage("kernel"):
        return api.execute_reduce(op, call, data, threads)
