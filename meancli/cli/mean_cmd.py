"""``meancli mean FILE...``: ONNX Mean-1/6/8/13 (element-wise, with broadcasting from 8).

No ``from __future__ import annotations`` (see app.py).
"""

from contextlib import nullcontext
from typing import Annotated, Any, Optional

import typer

from . import options
from .progress import progress_factory
from .run import (
    about_input,
    about_result,
    check_input_dtypes,
    check_std_streams,
    check_version_options,
    output_option,
    read_inputs,
    run_outcome,
    session,
    start,
    storage_options_of,
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
    engine_options: Optional[dict[str, Any]] = None,  # noqa: UP045 -- the engines' options (options.with_engine_options)
    storage_option: options.StorageOption = None,
    repeat: options.Repeat = 1,
    compare: options.Compare = None,
    max_ulp: options.MaxUlp = 0,
    runtime: options.Runtime = None,
    skipna: options.Skipna = False,
    quiet: options.Quiet = False,
    json_mode: options.Json = False,
    debug: options.Debug = False,
    **attributes: Any,
) -> None:
    """Element-wise mean of the FILEs, as the selected Mean version defines it."""
    # attributes: the options the specs' attributes give (options.with_attribute_options)
    with session(json_mode=json_mode, debug=debug, quiet=quiet, data=True):
        from ..engine.memory import prepare_mean
        from ..io.registry import check_output_format, check_output_target
        from .batch import single_output
        from .comparing import (
            check_compare_options,
            compare_result,
            compare_runtimes,
            exit_if_mismatched,
            in_memory,
            open_compared,
        )

        output = output_option(output)
        if output is not None:
            output = single_output(output)
            check_output_format(output, output)
        report = start("mean", "Mean", opset, threads)
        store = storage_options_of(storage_option, report)
        op, n_threads = report.op, report.threads
        report.skipna = skipna
        assert op is not None
        # The command line alone decides these usage errors, before any input is read.
        from ..engine.plan import where_of

        where = where_of(engine_options or {})
        check_std_streams([*files, compare] if compare is not None else files, output)
        check_compare_options(
            compare, max_ulp, output, many=False, runtimes=runtime, where=where, skipna=skipna
        )
        check_version_options(op, attributes, axes_given=True)
        if output is not None:
            check_output_target(output, store)
        # One FILE (an .npz of several arrays too): its errors name it, as reduce-mean's do.
        with about_input(files[0]) if len(files) == 1 else nullcontext():
            items = read_inputs(
                files,
                report,
                quiet=quiet or json_mode,
                stream=repeat == 1 and not runtime,
                chunked=where.cluster,
                storage_options=store,
            )
            if runtime:
                in_memory(items, files)
            with report.stage("validate"):
                check_input_dtypes(op, report)
                shape = prepare_mean(op, items, **attributes)
        tally = None
        if compare is not None:  # before the run: a file of another shape or dtype is refused now
            tally = open_compared(compare, shape, items[0].dtype, max_ulp, report)
        from ..engine import plan

        progress = progress_factory(enabled=not (quiet or json_mode))
        # --runtime: the result comes back to memory (written afterwards), to be compared with
        # each runtime's; --compare: an engine that writes the output itself compares each
        # block as it writes it (Job.check), the others return the result to be compared
        held = bool(runtime)
        job = plan.Job(
            engine_options or {},
            n_threads,
            None if held else output,
            report,
            progress,
            repeat,
            storage_options=store,
            skipna=skipna,
            check=tally,
        )
        with about_result(files[0] if len(files) == 1 else None):
            outcome = plan.mean(op, shape, items, job)
        if tally is not None:
            compare_result(report, outcome.result, tally)
        if runtime:
            compare_runtimes(report, outcome.result, runtime, items, None, None, attributes, max_ulp)
        run_outcome(
            report,
            outcome,
            output,
            shape,
            items[0].dtype,
            json_mode=json_mode,
            quiet=quiet,
            storage_options=store,
        )
        exit_if_mismatched(report)
