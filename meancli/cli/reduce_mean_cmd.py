"""``meancli reduce-mean FILE...``: ONNX ReduceMean-1/11/13/18, OpenVINO ReduceMean-1, on each FILE.

No ``from __future__ import annotations`` (see app.py).
"""

from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from ..errors import UsageError
from . import batch, options
from .argv import parse_axes
from .progress import progress_factory
from .report import Report
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

if TYPE_CHECKING:  # numpy and the engine load only when a command runs
    from ..ops.schema import OpVersion


def reduce_mean(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE...",
            callback=options.reduce_input_files,
            help="Input .npy, .npz:NAME or ONNX tensor .pb files, zarr arrays (STORE.zarr, "
            "STORE.zarr:path/in/group, a zipped store) or .npy shards concatenated along axis 0 "
            "(a directory, a quoted glob, @LIST); each FILE is reduced on its own ('-' reads stdin). "
            "With several, -o is a template: -o 'out/{stem}.npy'.",
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
            help="Read the axes input from a 1-D tensor file (.npy, .pb, data.npz:NAME; '-' reads "
            "a .npy from stdin), as ReduceMean-18 takes it (int64). Not with --axes.",
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
    engine_options: Optional[dict[str, Any]] = None,  # noqa: UP045 -- the engines' options (options.with_engine_options)
    storage_option: options.StorageOption = None,
    repeat: options.Repeat = 1,
    compare: options.Compare = None,
    max_ulp: options.MaxUlp = 0,
    runtime: options.Runtime = None,
    skipna: options.Skipna = False,
    keep_going: batch.KeepGoing = False,
    quiet: options.Quiet = False,
    json_mode: options.Json = False,
    debug: options.Debug = False,
    **attributes: Any,
) -> None:
    """Mean of each FILE's elements over --axes, as the selected ReduceMean version defines it.

    Several FILEs run in one process, each on its own, in order; -o is then a
    template with placeholders {stem}, {name}, {parent}, {member}, {index}
    (for dir/a.npy: a, a.npy, dir; the member of data.npz:NAME or of
    STORE.zarr:PATH; the position from 0; a shard directory or glob by its
    directory, @LIST by its list file). --json prints one object per file,
    one per line. A FILE or OUT may be a URL (s3://, gs://, http(s)://), read
    and written with --storage-option.
    """
    # attributes: the options the specs' attributes give (options.with_attribute_options)
    with session(json_mode=json_mode, debug=debug, quiet=quiet, data=True):
        from ..io.registry import check_output_format, check_output_target

        try:
            axes_list = parse_axes(axes)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        output = output_option(output)
        report = start("reduce-mean", "ReduceMean", opset, threads)
        store = storage_options_of(storage_option, report)
        op, n_threads = report.op, report.threads
        assert op is not None
        # The command line alone decides these usage errors, before any input is read.
        from ..engine.plan import where_of

        where = where_of(engine_options or {})  # refuses --workers with --scheduler, a malformed address
        from .comparing import check_compare_options

        check_std_streams([*files, compare] if compare is not None else files, output, axes_from)
        if axes_from is not None:
            _check_axes_from(op, given=axes is not None)
        check_version_options(op, attributes, axes_given=axes is not None or axes_from is not None)
        many = batch.wants_many(files, output)
        check_compare_options(
            compare, max_ulp, output, many=many, runtimes=runtime, where=where, skipna=skipna
        )
        outputs = batch.output_paths(files, output) if many else [output]
        if output is not None and not many:
            check_output_format(output, output)
            check_output_target(output, store)
        if axes_from is not None:  # read once, for every FILE
            axes_list = _read_axes_from(op, axes_from, report)

        notes: list[str] = []  # said once per run, not once per file

        def run_one(file: str, out: Optional[str]) -> None:  # noqa: UP045
            one = Report("reduce-mean", n_threads, op)
            one.storage_options = report.storage_options
            one.skipna = skipna
            quiet_notes = quiet or json_mode or bool(notes)
            args = (
                axes_list,
                keep_dims,
                attributes,
                repeat,
                engine_options or {},
                compare,
                max_ulp,
                runtime or [],
            )
            _reduce_file(
                op,
                file,
                out,
                one,
                *args,
                quiet=quiet,
                json_mode=json_mode,
                quiet_notes=quiet_notes,
                store=store,
            )
            notes.extend(one.stderr_notes)

        if not many:
            run_one(files[0], output)
            return
        status = batch.run_many(
            files,
            outputs,
            run_one,
            keep_going=keep_going,
            json_mode=json_mode,
            quiet=quiet,
            debug=debug,
            storage_options=store,
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
    engine_options: dict[str, Any],
    compare: Optional[str],  # noqa: UP045
    max_ulp: int,
    runtimes: list[str],
    *,
    quiet: bool,
    json_mode: bool,
    quiet_notes: bool,
    store: Optional[dict[str, Any]] = None,  # noqa: UP045
) -> None:
    """One FILE's whole run: read, validate, run on the engine the planner picks
    (in memory, streamed, dask; ``engine_options`` by name), write ``output``
    (None: show), compare with ``compare`` and run on each of ``runtimes`` and
    compare theirs (exit status 4 beyond ``max_ulp``), report. ``store``: the
    filesystem's options for a URL FILE or ``output`` (--storage-option)."""
    from ..engine import plan
    from ..ops.validate import validate_reduce
    from .comparing import compare_result, compare_runtimes, exit_if_mismatched, in_memory, open_compared

    n_threads = report.threads
    cluster = plan.where_of(engine_options).cluster
    with about_input(file):
        (data,) = read_inputs(
            [file],
            report,
            quiet=quiet_notes,
            single=True,
            stream=repeat == 1 and not runtimes,
            chunked=cluster,
            storage_options=store,
        )
        if runtimes:
            in_memory([data], [file])
        with report.stage("validate"):
            check_input_dtypes(op, report)
            call = validate_reduce(op, data.dtype, tuple(data.shape), axes_list, keep_dims, **attributes)
    tally = None
    if compare is not None:  # before the run: a file of another shape or dtype is refused now
        tally = open_compared(compare, call.out_shape, data.dtype, max_ulp, report)
    report.attributes = {"axes": list(call.axes)}
    for name, value in call.attributes:  # as ONNX writes them: flags as 0/1, lists as lists
        report.attributes[name] = int(value) if isinstance(value, bool) else value

    progress = progress_factory(enabled=not (quiet or json_mode))
    # --runtime: the result comes back to memory (written afterwards), to be compared with
    # each runtime's; --compare: an engine that writes the output itself compares each
    # block as it writes it (Job.check), the others return the result to be compared
    held = bool(runtimes)
    job = plan.Job(
        engine_options,
        n_threads,
        None if held else output,
        report,
        progress,
        repeat,
        storage_options=store,
        skipna=report.skipna,
        check=tally,
    )
    with about_result(file):
        outcome = plan.reduce(op, call, data, job)
    if tally is not None:
        compare_result(report, outcome.result, tally)
    if runtimes:
        compare_runtimes(report, outcome.result, runtimes, [data], axes_list, keep_dims, attributes, max_ulp)
    run_outcome(
        report,
        outcome,
        output,
        call.out_shape,
        data.dtype,
        json_mode=json_mode,
        quiet=quiet,
        storage_options=store,
    )
    exit_if_mismatched(report)


def _check_axes_from(op: "OpVersion", *, given: bool) -> None:
    """Whether --axes-from may be used (before anything is read).

    Raises:
        UsageError: with --axes, or for a version whose axes are an attribute.
    """
    if given:
        raise UsageError("--axes and --axes-from cannot be combined")
    if op.axes is None or op.axes.source != "input":
        raise UsageError(f"--axes-from: {op.label} takes axes as an attribute, not a tensor; use --axes")


def _read_axes_from(op: "OpVersion", path: str, report: Report) -> list[int]:
    """The axes read from ``path`` (``-``: stdin) for a version whose axes are an input tensor.

    Raises:
        InputFileError: the file is unreadable or holds several tensors (io.registry.read_tensor).
        SpecViolation: not a 1-D tensor of a dtype the version takes for axes.
    """
    from ..io.registry import read_tensor
    from ..ops.validate import axes_input

    with report.stage("read"):
        shown, array = read_tensor(path, "--axes-from")
    return axes_input(op, array, shown)
