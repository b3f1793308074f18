"""``meancli reduce-mean FILE``: ONNX ReduceMean-1/11/13/18, OpenVINO ReduceMean-1.

No ``from __future__ import annotations`` (see app.py).
"""

from typing import Annotated, Optional

import typer

from ..errors import UsageError
from . import options
from .argv import parse_axes
from .progress import progress_factory
from .run import check_input_dtypes, engine_where, finish, finish_written, read_inputs, session, start


def reduce_mean(
    file: Annotated[
        str,
        typer.Argument(
            metavar="FILE",
            help="Input .npy ('-' reads stdin; data.npz:NAME picks an archive member), a zarr array "
            "(STORE.zarr, STORE.zarr:path/in/group, a zipped store) or .npy shards concatenated along "
            "axis 0 (a directory, a quoted glob, @LIST).",
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
    workers: options.Workers = None,
    scheduler: options.Scheduler = None,
    timeout: options.Timeout = 30.0,
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
        where = engine_where(workers, scheduler, timeout)
        (data,) = read_inputs(
            [file], report, quiet=quiet or json_mode, single=True, stream=repeat == 1, chunked=where.cluster
        )
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
        from ..engine import distributed
        from ..streaming import Source

        progress = progress_factory(enabled=not (quiet or json_mode))
        if distributed.wanted(where, output, [data]):
            result, report.engine = distributed.run_reduce(
                call, data, where, threads=n_threads, output=output, clock=report, progress=progress
            )
        elif isinstance(data, Source):
            from ..engine.streamed import reduce_streamed

            report.engine = {"name": "streamed"}
            result = reduce_streamed(op, call, data, n_threads, report, progress)
        else:
            result = report.repeat("kernel", lambda: api.execute_reduce(op, call, data, n_threads), repeat)
        if result is None:  # written to a zarr store by the workers
            finish_written(report, output, call.out_shape, data.dtype, json_mode=json_mode, quiet=quiet)
        else:
            finish(report, result, output, json_mode=json_mode, quiet=quiet)
