"""``meancli reduce-mean FILE...``: ONNX ReduceMean-1/11/13/18, OpenVINO ReduceMean-1, on each FILE.

No ``from __future__ import annotations`` (see app.py).
"""

from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..errors import UsageError
from . import batch, options
from .argv import parse_axes
from .report import Report
from .run import alloc_output, check_input_dtypes, finish, read_inputs, session, start

if TYPE_CHECKING:  # numpy and the streaming code load only when a command runs
    import numpy as np

    from ..opversion import OpVersion
    from ..semantics import ReduceCall
    from ..streaming import Source


def reduce_mean(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE...",
            help="Input .npy, .npz:NAME or ONNX tensor .pb files, each reduced on its own ('-' reads "
            "stdin). With several, -o is a template: -o 'out/{stem}.npy'.",
        ),
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
    opset: options.Opset = None,
    output: options.Output = None,
    threads: options.Threads = None,
    repeat: options.Repeat = 1,
    keep_going: batch.KeepGoing = False,
    quiet: options.Quiet = False,
    json_mode: options.Json = False,
    debug: options.Debug = False,
    **attributes: Any,
) -> None:
    """Mean of each FILE's elements over --axes, as the selected ReduceMean version defines it.

    Several FILEs run in one process, each on its own, in order; -o is then a
    template with placeholders {stem}, {name}, {parent}, {member}, {index}
    (for dir/a.npy: a, a.npy, dir; the member of data.npz:NAME; the position
    from 0). --json prints one object per file, one per line.
    """
    # attributes: the options the specs' attributes give (options.with_attribute_options)
    with session(json_mode=json_mode, debug=debug, quiet=quiet):
        try:
            axes_list = parse_axes(axes)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        report = start("reduce-mean", "ReduceMean", opset, threads)
        op, n_threads = report.op, report.threads
        assert op is not None
        if axes_from is not None:  # read once, for every FILE
            axes_list = _axes_from(op, axes_from, given=axes is not None, report=report)

        notes: list[str] = []  # said once per run, not once per file

        def run_one(file: str, out: Optional[str]) -> None:  # noqa: UP045
            one = Report("reduce-mean", n_threads, op)
            quiet_notes = quiet or json_mode or bool(notes)
            args = (axes_list, keep_dims, attributes, repeat)
            _reduce_file(op, file, out, one, *args, quiet=quiet, json_mode=json_mode, quiet_notes=quiet_notes)
            notes.extend(one.stderr_notes)

        if not batch.wants_many(files, output):
            run_one(files[0], output)
            return
        status = batch.run_many(
            files, output, run_one, keep_going=keep_going, json_mode=json_mode, quiet=quiet, debug=debug
        )
        if status:
            raise typer.Exit(status)


def _reduce_file(
    op: "OpVersion",
    file: str,
    output: Optional[str],  # noqa: UP045
    report: Report,
    axes_list: Optional[list[int]],  # noqa: UP045
    keep_dims: Optional[bool],  # noqa: UP045
    attributes: dict[str, Any],
    repeat: int,
    *,
    quiet: bool,
    json_mode: bool,
    quiet_notes: bool,
) -> None:
    """One FILE's whole run: read, validate, kernel, write ``output`` (None: show), report."""
    from .. import api

    n_threads = report.threads
    (data,) = read_inputs([file], report, quiet=quiet_notes, single=True, stream=repeat == 1)
    with report.stage("validate"):
        check_input_dtypes(op, report)
        call = api.validate_reduce(op, data.dtype, tuple(data.shape), axes_list, keep_dims, **attributes)
    report.attributes = {"axes": list(call.axes)}
    for name, value in call.attributes:  # as ONNX writes them: flags as 0/1, lists as lists
        report.attributes[name] = int(value) if isinstance(value, bool) else value
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
    allowed = {c.param: c.allowed for c in op.type_constraints}.get(param, (param,))
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
