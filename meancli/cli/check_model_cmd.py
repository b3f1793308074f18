"""``meancli check-model MODEL --input NAME=FILE ... [--runtime NAME]``: every Mean and
ReduceMean node of a whole ONNX model, run by another runtime, against the correctly
rounded mean of the inputs that runtime gave it (meancli's own check, not part of ONNX;
meancli.engine.check_model does the work).

No ``from __future__ import annotations`` (see app.py).
"""

import sys
from typing import Annotated, Optional

import typer

from . import options

Model = Annotated[
    str,
    typer.Argument(
        metavar="MODEL",
        help="An ONNX model file (.onnx) holding Mean or ReduceMean nodes.",
    ),
]
Inputs = Annotated[
    Optional[list[str]],  # noqa: UP045 -- typer reads the annotation at run time
    typer.Option(
        "--input",
        "-i",
        metavar="NAME=FILE",
        help="The graph input NAME's value from FILE (.npy, .pb, data.npz:MEMBER); one per graph "
        "input without an initializer. Repeat for several.",
    ),
]


def _split_input(text: str) -> tuple[str, str]:
    from ..errors import UsageError

    name, sep, path = text.partition("=")
    if not sep or not name or not path:
        raise UsageError(f"--input {text!r}: give NAME=FILE (the graph input's name, then its file)")
    return name, path


def check_model(
    model: Model,
    inputs: Inputs = None,
    runtime: options.ModelRuntime = None,
    max_ulp: options.MaxUlp = 0,
    threads: options.Threads = None,
    quiet: options.Quiet = False,
    json_mode: options.Json = False,
    debug: options.Debug = False,
) -> None:
    """Run MODEL on a runtime (default onnxruntime) with every Mean and ReduceMean node's
    output exposed, and compare each with the correctly rounded mean of the inputs the
    runtime gave it, in ULPs (meancli's own check, not part of ONNX; exit status 4 when
    an element is beyond --max-ulp)."""
    from .run import session

    with session(json_mode=json_mode, debug=debug, quiet=quiet):
        from .. import kernels
        from ..engine.check_model import check_model as checking
        from ..engine.runtimes import check_runtimes
        from ..errors import EXIT_MISMATCH, UsageError
        from ..io.onnx_model import load_model
        from ..io.registry import read_tensor
        from .report import Report, emit_model_check

        runtimes = runtime or ["onnxruntime"]
        pairs = [_split_input(text) for text in inputs or []]
        names = [n for n, _ in pairs]
        twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if twice is not None:
            raise UsageError(f"--input {twice} is given twice")
        if [f for _, f in pairs].count("-") > 1:
            raise UsageError("stdin ('-') can be read only once: give it to one --input")
        check_runtimes(runtimes)
        kernels.load()
        report = Report("check-model", threads or kernels.default_threads())
        if "onnx" not in sys.modules:  # about a second: not the model's own read time
            from ..io.onnx_tensor import import_onnx

            with report.stage("import"):
                import_onnx()
        with report.stage("read"):
            onnx_model = load_model(model)
            given = {name: read_tensor(path, "--input")[1] for name, path in pairs}
        found = checking(model, onnx_model, given, runtimes, max_ulp, report, report.threads)
        report.comparisons.extend(c.comparison for c in found.checks)
        emit_model_check(report, model, onnx_model, found, json_mode=json_mode, quiet=quiet)
        if report.mismatched():
            raise typer.Exit(EXIT_MISMATCH)
