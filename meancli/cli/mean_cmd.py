"""``meancli mean FILE...``: ONNX Mean-1/6/8/13 (element-wise, with broadcasting from 8).

No ``from __future__ import annotations`` (see app.py).
"""

from typing import TYPE_CHECKING, Annotated, Any

import typer

from . import options
from .report import Report
from .run import alloc_output, check_input_dtypes, finish, finish_written, read_inputs, session, start

if TYPE_CHECKING:  # numpy and the streaming code load only when a command runs
    import numpy as np

    from ..opversion import OpVersion


def mean(
    files: Annotated[
        list[str],
        typer.Argument(
            metavar="FILE...",
            help="Input .npy or ONNX tensor .pb files ('-' reads stdin once; an .npz gives all its arrays, "
            "data.npz:NAME one).",
        ),
    ],
    opset: options.Opset = None,
    output: options.Output = None,
    threads: options.Threads = None,
    repeat: options.Repeat = 1,
    quiet: options.Quiet = False,
    json_mode: options.Json = False,
    debug: options.Debug = False,
    **attributes: Any,
) -> None:
    """Element-wise mean of the FILEs, as the selected Mean version defines it."""
    # attributes: the options the specs' attributes give (options.with_attribute_options)
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
            shape = api.prepare_mean(op, items, **attributes)
        from ..streaming import Source

        if any(isinstance(x, Source) for x in items):
            from ..formats.detect import output_format

            blockwise = output if output is not None and output_format(output) == "npy" else None
            result = _mean_streamed(  # a .pb output is written whole, once computed
                op, shape, items, files, report, n_threads, blockwise, show_progress=not (quiet or json_mode)
            )
        else:
            result = report.repeat("kernel", lambda: api.execute_mean(op, shape, items, n_threads), repeat)
        if result is None:  # already written, block by block
            finish_written(report, output, shape, items[0].dtype, json_mode=json_mode, quiet=quiet)
        else:
            finish(report, result, output, json_mode=json_mode, quiet=quiet)


def _mean_streamed(
    op: "OpVersion",
    shape: tuple[int, ...],
    items: list[Any],
    files: list[str],
    report: Report,
    threads: int,
    output: str | None,
    *,
    show_progress: bool,
) -> "np.ndarray | None":
    """Mean with some inputs streamed in blocks (see meancli.streaming.mean_blocks);
    with ``output``, the result is written block by block and None returned."""

    from .. import api, kernels
    from ..formats.dtypes import native_dtype
    from ..npyio import read_npy, write_npy_blocks
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
    native = native_dtype(dtype)
    symbol = op.kernels[api.spec_dtype_name(native)]
    total = sum(s.nbytes for s in sources)
    try:
        with report.stage("kernel"), progress_bar(total, enabled=show_progress, label="mean") as advance:
            blocks = mean_blocks(shape, items, native, advance)
            if output is None:  # shown: the whole result in memory
                out = alloc_output(shape, native, report)
                for prefix, a, b, views in blocks:
                    index: tuple[Any, ...] = (*prefix, slice(a, b))
                    kernels.run_mean(symbol, views, out[index] if shape else out, threads)
                result: np.ndarray | None = out
            else:  # written block by block as it is produced (atomically, as any output)
                write_npy_blocks(output, shape, native, _computed(blocks, shape, native, symbol, threads))
                result = None
        waited = sum(s.read_seconds for s in sources) * 1e3
        report.timings_ms["read"] += waited
        report.timings_ms["kernel"] -= waited
    finally:
        for s in sources:
            s.finish()
    return result


def _computed(blocks: Any, shape: tuple[int, ...], dtype: Any, symbol: str, threads: int) -> Any:
    """Each block's Mean, in order, in one reused buffer (consumed before the next)."""
    import numpy as np

    from .. import kernels

    scratch: np.ndarray | None = None
    for *_where, views in blocks:
        block_shape = views[0].shape  # every view has the block's shape
        size = int(np.prod(block_shape, dtype=np.int64))
        if scratch is None or scratch.size < size:
            scratch = np.empty(size, dtype=dtype)
        out = scratch[:size].reshape(block_shape)
        kernels.run_mean(symbol, views, out, threads)
        yield out
