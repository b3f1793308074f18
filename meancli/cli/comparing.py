"""``--compare FILE`` and ``--max-ulp N`` of the data commands: the checks made on the
command line alone, the stage that compares (meancli.engine.compare does the work) and
the exit status 4 of a comparison beyond its tolerance."""

from __future__ import annotations

from typing import Any

import typer

from ..errors import EXIT_MISMATCH, UsageError
from .report import Report


def check_compare_options(compare: str | None, max_ulp: int, output: str | None, *, many: bool) -> None:
    """Before any input is read: --compare with what it cannot go with.

    Raises:
        UsageError: --max-ulp without --compare; --compare with several FILEs (each its
            own result), or with a zarr output (written by the dask workers as they run,
            never held whole: compare in a second run against the store's array).
    """
    if compare is None:
        if max_ulp:
            raise UsageError("--max-ulp applies to --compare FILE; give the file to compare")
        return
    if many:
        raise UsageError("--compare FILE compares the result of one FILE; give one FILE")
    if output is not None:
        from ..io.registry import output_format

        if output_format(output) == "zarr":
            raise UsageError(
                f"-o {output}: --compare holds the result in memory, and a zarr output is written "
                "by the dask workers as they run; write .npy or .pb"
            )


def open_compared(compare: str, shape: tuple[int, ...], dtype: Any, report: Report) -> tuple[str, Any]:
    """The compared FILE, opened (engine.compare.open_compared) under the ``read`` stage."""
    from ..engine.compare import open_compared as opening

    with report.stage("read"):
        return opening(compare, tuple(shape), dtype)


def compare_result(report: Report, result: Any, against: str, got: Any, max_ulp: int) -> None:
    """Compare ``got`` with the run's ``result`` under the ``compare`` stage; the report holds it."""
    from ..engine.compare import compare

    with report.stage("compare"):
        report.comparisons.append(compare(result, got, against, max_ulp))


def exit_if_mismatched(report: Report) -> None:
    """Exit with status 4 (EXIT_MISMATCH) when a comparison found an element beyond --max-ulp."""
    if report.mismatched():
        raise typer.Exit(EXIT_MISMATCH)
