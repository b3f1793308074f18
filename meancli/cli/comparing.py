"""``--compare FILE``, ``--runtime NAME`` and ``--max-ulp N`` of the data commands: the
checks made on the command line alone, the stages that run the other runtimes
(meancli.engine.runtimes) and compare (meancli.engine.compare does the work), and the
exit status 4 of a comparison beyond its tolerance."""

from __future__ import annotations

from typing import Any

import typer

from ..errors import EXIT_MISMATCH, UsageError
from .report import Report


def check_compare_options(
    compare: str | None,
    max_ulp: int,
    output: str | None,
    *,
    many: bool,
    runtimes: list[str] | None = None,
    where: Any = None,
    skipna: bool = False,
) -> None:
    """Before any input is read: --compare and --runtime with what they cannot go with,
    and each --runtime installed.

    Raises:
        UsageError: --max-ulp without --compare or --runtime; either with several FILEs
            (each its own result), or with a zarr output (written by the dask workers as
            they run, never held whole: compare in a second run against the store's
            array); --runtime with --workers or --scheduler (the runtimes take the
            inputs in memory, in this process); --runtime with --skipna (a runtime
            runs the ONNX node, which never skips NaN).
        InputFileError: a --runtime that is not installed (engine.runtimes.check_runtimes).
    """
    if compare is None and not runtimes:
        if max_ulp:
            raise UsageError("--max-ulp applies to --compare FILE or --runtime NAME; give one")
        return
    option = "--compare FILE" if compare is not None else "--runtime"
    if many:
        raise UsageError(f"{option} compares the result of one FILE; give one FILE")
    if output is not None:
        from ..io.registry import output_format

        if output_format(output) == "zarr":
            raise UsageError(
                f"-o {output}: {option.split()[0]} compares the result in this process, and a zarr "
                "output is written by the dask workers as they run; write .npy or .pb"
            )
    if runtimes:
        if skipna:
            raise UsageError(
                "--skipna is meancli's own extension: a runtime runs the ONNX node, which does not "
                "skip NaN; compare it without --skipna"
            )
        if where is not None and where.cluster:
            raise UsageError(
                "--runtime runs the inputs in memory in this process; it cannot be combined with "
                "--workers or --scheduler"
            )
        from ..engine.runtimes import check_runtimes

        check_runtimes(runtimes)


def in_memory(items: list[Any], files: list[str]) -> None:
    """--runtime: every input is an array in memory (or memory-mapped).

    Raises:
        InputFileError: a zarr array or shard dataset (the runtimes take whole arrays).
    """
    from ..engine.plan import is_chunked
    from ..io.registry import not_whole

    for item, file in zip(items, files, strict=False):
        if is_chunked(item):
            raise not_whole(file, "--runtime hands whole arrays to the runtimes")


def compare_runtimes(
    report: Report,
    result: Any,
    runtimes: list[str],
    inputs: list[Any],
    axes: list[int] | None,
    keepdims: bool | None,
    attributes: dict[str, Any],
    max_ulp: int,
) -> None:
    """Run the report's operator version on each runtime with ``inputs`` (under the
    ``runtime`` stage) and compare its output with ``result`` (the ``compare`` stage):
    one entry of ``report.comparisons`` per runtime, a RuntimeRow when it refused the
    node or returned another shape or dtype.

    Args:
        axes, keepdims, attributes: as the command line gave them (None: not given), so
            each runtime applies its own defaults, as it would in a model.
    """
    from ..engine.compare import compare
    from ..engine.runtimes import Refused, RuntimeRow, comparable, run_node, runtime_label

    assert report.op is not None
    for name in runtimes:
        with report.stage("runtime"):
            label = runtime_label(name)
            try:
                got = run_node(name, report.op, inputs, axes, keepdims, attributes, report.threads)
            except Refused as exc:
                report.comparisons.append(RuntimeRow(label, str(exc), refused=True))
                continue
        problem = comparable(tuple(result.shape), result.dtype, got)
        if problem is not None:
            report.comparisons.append(RuntimeRow(label, problem, refused=False))
            continue
        with report.stage("compare"):
            report.comparisons.append(compare(result, got, label, max_ulp, report.threads))


def open_compared(compare: str, shape: tuple[int, ...], dtype: Any, max_ulp: int, report: Report) -> Any:
    """The compared FILE, opened (engine.compare.open_compared) under the ``read`` stage,
    as the comparison the run feeds (engine.compare.Tally, plan.Job's ``check``)."""
    from ..engine.compare import Tally
    from ..engine.compare import open_compared as opening

    with report.stage("read"):
        against, got = opening(compare, tuple(shape), dtype)
    return Tally(tuple(shape), dtype, got, against, max_ulp, report.threads)


def compare_result(report: Report, result: Any, tally: Any) -> None:
    """Finish the comparison ``tally`` under the ``compare`` stage: what the run did not
    compare as it wrote the result (``result``: None when the engine wrote every block to
    the output file itself, comparing each); the report holds it."""
    with report.stage("compare"):
        report.comparisons.append(tally.finish(result))


def exit_if_mismatched(report: Report) -> None:
    """Exit with status 4 (EXIT_MISMATCH) when a comparison found an element beyond --max-ulp."""
    if report.mismatched():
        raise typer.Exit(EXIT_MISMATCH)
