"""``meancli mean FILE...``: ONNX Mean-1/6/8/13 (element-wise, with broadcasting from 8)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from . import options
from .report import Report
from .run import alloc_output, check_input_dtypes, finish, read_inputs, session, start

if TYPE_CHECKING:  # numpy and the streaming code load only when a command runs
    import numpy as np

    from ..opversion import OpVersion


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
    with session(json_mode=json_mode, debug=debug, quiet=quiet):
        from .. import api
        from ..errors import UsageError

        if files.count("-") > 1:
            raise UsageError("stdin ('-') can be read only once")
        report = start("mean", "Mean", opset, threads)
        op, n_threads = report.op, report.threads
        assert op is not None
        items = read_inputs(files, report, quiet=quiet or json_mode, stream=repeat == 1)
        with report.stage("validate"):
            check_input_dtypes(op, report)
            shape = api.prepare_mean(op, items)
        from ..streaming import Source

        if any(isinstance(x, Source) for x in items):
            result = _mean_streamed(
                op, shape, items, files, report, n_threads, show_progress=not (quiet or json_mode)
            )
        else:
            result = report.repeat("kernel", lambda: api.execute_mean(op, shape, items, n_threads), repeat)
        finish(report, result, output, json_mode=json_mode, quiet=quiet)


def _mean_streamed(
    op: OpVersion,
    shape: tuple[int, ...],
    items: list[Any],
    files: list[str],
    report: Report,
    threads: int,
    *,
    show_progress: bool,
) -> np.ndarray:
    """Mean with some inputs streamed in blocks (see meancli.streaming.mean_blocks)."""

    from .. import api, kernels
    from ..npyio import read_npy
    from ..streaming import Source, mean_blocks
    from .progress import progress_bar

    # Streams that cannot be read block by block in order are read whole.
    for k, item in enumerate(items):
        if not isinstance(item, Source):
            continue
        padded = (1,) * (len(shape) - len(item.shape)) + item.shape
        if item.header.fortran_order or (not item.seekable and padded != shape):
            with report.stage("read"):
                data = item.read_all() if not item.seekable else read_npy(item.name)[0]
                item.finish()
                items[k] = api.kernel_input(data)
    sources = [x for x in items if isinstance(x, Source)]
    dtype = items[0].dtype
    native = dtype if dtype.isnative else dtype.newbyteorder("=")
    out = alloc_output(shape, native, report)
    symbol = op.kernels[api.spec_dtype_name(native)]

    def emit(prefix: tuple[int, ...], a: int, b: int, views: list[np.ndarray]) -> None:
        index: tuple[Any, ...] = (*prefix, slice(a, b))
        block = out[index] if shape else out
        kernels.run_mean(symbol, views, block, threads)

    total = sum(s.nbytes for s in sources)
    try:
        with report.stage("kernel"), progress_bar(total, enabled=show_progress, label="mean") as advance:
            mean_blocks(shape, items, native, emit, advance)
        waited = sum(s.read_seconds for s in sources) * 1e3
        report.timings_ms["read"] += waited
        report.timings_ms["kernel"] -= waited
    finally:
        for s in sources:
            s.finish()
    return out
