"""``meancli mean FILE...``: ONNX Mean-1/6/8/13 (element-wise, with broadcasting from 8).

No ``from __future__ import annotations`` (see app.py).
"""

from contextlib import nullcontext
from typing import Annotated, Any

import typer

from . import options
from .progress import progress_factory
from .run import (
    about_input,
    check_input_dtypes,
    check_std_streams,
    check_version_options,
    engine_where,
    finish,
    finish_written,
    output_option,
    read_inputs,
    session,
    start,
)


def mean(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE...",
            callback=options.input_files,
            help="Input .npy or ONNX tensor .pb files ('-' reads stdin once; an .npz gives all its arrays, "
            "data.npz:NAME one), zarr arrays (STORE.zarr[:path]) or .npy shard datasets (a directory, "
            "a quoted glob, @LIST).",
        ),
    ],
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
    **attributes: Any,
) -> None:
    """Element-wise mean of the FILEs, as the selected Mean version defines it."""
    # attributes: the options the specs' attributes give (options.with_attribute_options)
    with session(json_mode=json_mode, debug=debug, quiet=quiet, data=True):
        from .. import api

        output = output_option(output)
        if output is not None:
            from .batch import check_output_format, single_output

            output = single_output(output)
            check_output_format(output, output)
        report = start("mean", "Mean", opset, threads)
        op, n_threads = report.op, report.threads
        assert op is not None
        # The command line alone decides these usage errors, before any input is read.
        where = engine_where(workers, scheduler, timeout)
        check_std_streams(files, output)
        check_version_options(op, attributes, axes_given=True)
        if output is not None:
            from .batch import check_output_target

            check_output_target(output)
        # One FILE (an .npz of several arrays too): its errors name it, as reduce-mean's do.
        with about_input(files[0]) if len(files) == 1 else nullcontext():
            items = read_inputs(
                files, report, quiet=quiet or json_mode, stream=repeat == 1, chunked=where.cluster
            )
            with report.stage("validate"):
                check_input_dtypes(op, report)
                shape = api.prepare_mean(op, items, **attributes)
        from ..engine.where import is_streamed, wanted

        progress = progress_factory(enabled=not (quiet or json_mode))
        if wanted(where, output, items):
            from ..engine import distributed

            symbol = op.kernels[api.spec_dtype_name(items[0].dtype)]
            result, report.engine = distributed.run_mean(
                shape, items, symbol, where, threads=n_threads, output=output, clock=report, progress=progress
            )
        elif any(is_streamed(x) for x in items):
            from ..engine.streamed import mean_streamed
            from ..formats.detect import output_format

            report.engine = {"name": "streamed"}
            blockwise = output if output is not None and output_format(output) == "npy" else None
            # a .pb output is written whole, once computed
            result = mean_streamed(op, shape, items, n_threads, blockwise, report, progress)
        else:
            result = report.repeat("kernel", lambda: api.execute_mean(op, shape, items, n_threads), repeat)
        if result is None:  # already written, block by block
            finish_written(report, output, shape, items[0].dtype, json_mode=json_mode, quiet=quiet)
        else:
            finish(report, result, output, json_mode=json_mode, quiet=quiet)
