"""``meancli mean FILE...``: ONNX Mean-1/6/8/13 (element-wise, with broadcasting from 8)."""

from __future__ import annotations

from typing import Annotated

import typer

from . import options
from .report import Report
from .run import finish, read_inputs, session


def mean(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE...",
            help="Input .npy files ('-' reads stdin once; an .npz gives all its arrays, data.npz:NAME one).",
        ),
    ],
    opset: options.Opset = None,
    output: options.Output = None,
    threads: options.Threads = None,
    repeat: options.Repeat = 1,
    quiet: options.Quiet = False,
    json_mode: options.Json = False,
    debug: options.Debug = False,
) -> None:
    """Element-wise mean of the FILEs, as the selected Mean version defines it."""
    from .. import kernels

    with session(json_mode=json_mode, debug=debug):
        from .. import api
        from .. import opset as opsets
        from ..errors import UsageError

        if files.count("-") > 1:
            raise UsageError("stdin ('-') can be read only once")
        op = opsets.resolve("Mean", opset)
        kernels.load()
        n_threads = threads or kernels.default_threads()
        report = Report("mean", n_threads, op)
        arrays = read_inputs(files, report, quiet=quiet or json_mode)
        with report.stage("validate"):
            shape = api.prepare_mean(op, arrays)
        result = report.repeat("kernel", lambda: api.execute_mean(op, shape, arrays, n_threads), repeat)
        finish(report, result, output, json_mode=json_mode, quiet=quiet)
