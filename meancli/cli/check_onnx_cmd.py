"""``meancli check-onnx DIR...``: ONNX backend-style test directories of one Mean or
ReduceMean node, checked against the correctly rounded outputs (meancli's own check,
not part of ONNX).

Each DIR holds ``model.onnx`` and ``test_data_set_N/input_K.pb``, ``output_K.pb``. The
node's operator version comes from the model's opset, its attributes from the node (and
ReduceMean-18's axes from its input); the exact output is computed from the inputs by
meancli.engine.onnx_node (the planner every command uses) and the expected output is
compared with it as ``--compare`` does (meancli.engine.compare): exit status 4 when an
element is beyond ``--max-ulp``.

No ``from __future__ import annotations`` (see app.py).
"""

import os
from typing import Annotated

import typer

from . import batch, options

Dirs = Annotated[
    list[str],
    typer.Argument(
        metavar="DIR...",
        callback=options.input_files,
        help="ONNX test directories: model.onnx (one Mean or ReduceMean node) and "
        "test_data_set_N/input_K.pb, output_K.pb.",
    ),
]


def check_onnx(
    dirs: Dirs,
    max_ulp: options.MaxUlp = 0,
    threads: options.Threads = None,
    keep_going: batch.KeepGoing = False,
    quiet: options.Quiet = False,
    json_mode: options.Json = False,
    debug: options.Debug = False,
) -> None:
    """Compare each DIR's expected outputs with the correctly rounded ones, in ULPs
    (meancli's own check, not part of ONNX; exit status 4 when an element is beyond
    --max-ulp). --json prints one object per DIR. A DIR that cannot be checked stops
    the run (--keep-going: goes on with the others), as a FILE of reduce-mean does."""
    from .run import session

    with session(json_mode=json_mode, debug=debug, quiet=quiet):
        from .. import kernels
        from ..engine.compare import compare, open_compared
        from ..engine.onnx_node import OPS, node_version, run_node
        from ..errors import EXIT_MISMATCH, InputFileError
        from ..io.onnx_model import data_sets, model_file, read_node_model
        from ..io.registry import open_input
        from .report import Report, emit_check

        kernels.load()
        n_threads = threads or kernels.default_threads()
        mismatched = False
        shown = 0

        def check_dir(test_dir: str, _output: object) -> None:
            nonlocal mismatched, shown
            model = read_node_model(model_file(test_dir), OPS)
            report = Report("check-onnx", n_threads, node_version(model))
            for data_set in data_sets(test_dir):
                with report.stage("read"):
                    values, sources = {}, {}
                    for k, name in enumerate(model.graph_inputs):
                        sources[name] = os.path.join(data_set, f"input_{k}.pb")
                        (item,) = open_input(sources[name])
                        values[name] = item.data
                run = run_node(model, values, report, n_threads, sources)
                report.attributes = run.attributes
                if model.outputs[0] not in model.graph_outputs:
                    raise InputFileError(f"{model.path}: the node's output is not an output of the graph")
                k = model.graph_outputs.index(model.outputs[0])
                expected = os.path.join(data_set, f"output_{k}.pb")
                with report.stage("read"):
                    against, got = open_compared(expected, run.result.shape, run.result.dtype)
                with report.stage("compare"):
                    report.comparisons.append(compare(run.result, got, against, max_ulp, n_threads))
            mismatched = mismatched or report.mismatched()
            emit_check(report, test_dir, json_mode=json_mode, quiet=quiet, first=shown == 0)
            shown += 1

        status = batch.run_many(
            dirs,
            [None] * len(dirs),
            check_dir,
            keep_going=keep_going,
            json_mode=json_mode,
            quiet=quiet,
            debug=debug,
            noun="DIRs",
        )
        if status:
            raise typer.Exit(status)
        if mismatched:
            raise typer.Exit(EXIT_MISMATCH)
