"""The stages every data command runs: read, validate, kernel, write, report.

``session`` is the command boundary: a MeancliError becomes one ``error:``
line (or a JSON error object) and its exit status; anything else is a bug,
reported as such with exit status 3 (the traceback with --debug).
"""

from __future__ import annotations

import os
import signal
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

import typer

from ..errors import EXIT_INTERNAL, MeancliError
from .report import Report, TensorInfo, emit, emit_error

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what shells report for Ctrl-C
EXIT_BROKEN_PIPE = 128 + int(getattr(signal, "SIGPIPE", 13))
EXIT_TERMINATED = 128 + int(signal.SIGTERM)


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so every cleanup (temporary output files) runs."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated()


def install_signal_handlers() -> None:
    """Make SIGTERM unwind like SIGINT instead of killing the process mid-write; an
    ignored SIGTERM (SIG_IGN from the parent) stays ignored."""
    if signal.getsignal(signal.SIGTERM) != signal.SIG_IGN:
        signal.signal(signal.SIGTERM, _on_sigterm)


@contextmanager
def session(*, json_mode: bool, debug: bool, quiet: bool = False, data: bool = False) -> Iterator[None]:
    """Turn every failure inside into a one-line report and a typer.Exit.

    ``data``: a data command (mean, reduce-mean): bfloat16 ``.npy`` data is read and
    written inside as its 2-byte values (dtypes.bfloat16_as_raw), without
    importing ml_dtypes."""
    try:
        if quiet and json_mode:
            from ..errors import UsageError

            raise UsageError("--quiet and --json cannot be combined (--json is the output)")
        if not data:
            yield
            return
        from ..dtypes import bfloat16_as_raw

        with bfloat16_as_raw():
            yield
    except MeancliError as exc:
        emit_error(exc, json_mode=json_mode)
        raise typer.Exit(exc.exit_code) from None
    except MemoryError:
        from ..errors import OUT_OF_MEMORY, InputFileError

        oom = InputFileError(OUT_OF_MEMORY)
        emit_error(oom, json_mode=json_mode)
        raise typer.Exit(oom.exit_code) from None
    except KeyboardInterrupt as exc:
        terminated = isinstance(exc, Terminated)
        emit_error(exc, json_mode=json_mode, message="terminated" if terminated else "interrupted")
        raise typer.Exit(EXIT_TERMINATED if terminated else EXIT_INTERRUPTED) from None
    except BrokenPipeError:
        # the reader went away (`meancli ... -o - | head -c 10`): stop quietly
        _silence_stdout()
        raise typer.Exit(EXIT_BROKEN_PIPE) from None
    except typer.Exit:
        raise
    except Exception as exc:
        from ..io.messages import explained_os_error

        explained = explained_os_error(exc)  # EMFILE met where no reader or writer named it
        if explained is not None:
            emit_error(explained, json_mode=json_mode)
            raise typer.Exit(explained.exit_code) from None
        if debug:
            traceback.print_exc()
        emit_error(
            exc,
            json_mode=json_mode,
            message=f"internal error: {type(exc).__name__}: {exc} -- "
            "this is a bug in meancli; please report it"
            + ("" if debug else " (run with --debug for the traceback)"),
        )
        raise typer.Exit(EXIT_INTERNAL) from None


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def start(command: str, op_name: str, opset: str | None, threads: int | None) -> Report:
    """Resolve the operator version, load the kernels (outside the timed
    stages) and open the run's report."""
    from .. import kernels

    op = resolve_op(op_name, opset)
    kernels.load()
    handle_bus_errors()
    return Report(command, threads or kernels.default_threads(), op)


def handle_bus_errors() -> None:
    """A memory-mapped input truncated by another process while it is read: one error
    line and exit 1, not a crash, with the temporary output being written removed
    (kernels.handle_bus_errors, told each name io.atomic_write gives). Calling it
    again changes nothing.

    Raises:
        KernelBuildError: the compiled kernels are missing or stale.
    """
    from .. import kernels
    from ..io import atomic_write

    if kernels.handle_bus_errors() and kernels.bus_error_removes not in atomic_write.temporary_watchers:
        atomic_write.temporary_watchers.append(kernels.bus_error_removes)


def resolve_op(op_name: str, opset: str | None) -> Any:
    """opset.resolve, with a malformed value, or one that selects no version of
    ``op_name`` (Mean in openvino), reported as the --opset option (exit status 2)."""
    from ..errors import OpsetError, UsageError
    from ..ops import opset as opsets

    try:
        return opsets.resolve(op_name, opset)
    except UsageError as exc:
        raise UsageError(f"--{exc}") from None
    except OpsetError as exc:
        raise OpsetError(f"--opset {opset!r}: {exc}") from None


def check_version_options(op: Any, attributes: dict[str, Any], *, axes_given: bool) -> None:
    """Before any input is read: the options the selected version lacks or requires.

    The spec's own checks (semantics.attribute_values, the axes rule's
    ``when_omitted``), run on the command line alone: what they refuse there
    is a usage error, whatever the inputs hold.

    Raises:
        UsageError: ``--noop-with-empty-axes`` with a version that lacks the
            attribute (ReduceMean-13, openvino), a value it does not take, a
            required attribute not given; no axes for a version that requires
            them (openvino ReduceMean-1).
    """
    from ..errors import SpecViolation, UsageError
    from ..ops.rules import attribute_values

    settable = {a.name for a in op.settable_attributes}
    lacking = [n for n, v in attributes.items() if v is not None and n not in settable]
    try:
        attribute_values(attributes, op.settable_attributes, op.label, op.attributes)
    except SpecViolation as exc:
        # the option as typed: a flag given as false is --no-NAME
        negated = "no-" if lacking and attributes[lacking[0]] is False else ""
        option = f"--{negated}{lacking[0].replace('_', '-')}: " if lacking else ""
        raise UsageError(f"{option}{exc}") from None
    if not axes_given and op.axes is not None and op.axes.when_omitted == "error":
        raise UsageError(
            f"{op.label} requires axes: give --axes A [A ...], --axes-from FILE, or --axes= for none"
        )


def output_option(output: str | None) -> str | None:
    """``-o`` as given, a name of this process's standard output (``/dev/stdout``,
    ``/dev/fd/1``, ``/proc/self/fd/1``) taken as ``-``: the data go through the
    descriptor the shell opened (appending where it appends), the report to
    stderr, a terminal is refused, as with ``-o -``. A name of another descriptor
    (``/dev/stderr``, ``/dev/fd/N``) is written through it (atomic_write), and
    must be open for writing now, before meancli opens descriptors of its own.

    Raises:
        OutputFileError: ``cannot write /dev/fd/N: Bad file descriptor``.
    """
    from ..io import pipes

    if output is None:
        return None
    fd = pipes.descriptor_named(output)
    if fd == 1:
        return "-"
    if fd is not None:
        pipes.check_writable(fd, output)
    return output


def check_std_streams(files: list[str], output: str | None, axes_from: str | None = None) -> None:
    """Before any input is read: stdin (``-``, as a FILE or ``--axes-from -``) is read
    at most once and not from a terminal; ``-o -``, or an output that names a
    terminal (``-o /dev/tty``), does not write to a terminal.

    Raises:
        UsageError: stdin named twice; binary data from or to a terminal (the
            command line forgot a redirection).
        InputFileError: stdin or stdout is closed.
    """
    from ..errors import UsageError
    from ..io import pipes

    if files.count("-") > 1:
        raise UsageError("stdin ('-') can be read only once")
    if axes_from == "-" and "-" in files:
        raise UsageError(
            "--axes-from -: stdin ('-') is already given as a FILE or the --compare FILE and can be "
            "read only once; "
            "give the axes in a file"
        )
    if "-" in files or axes_from == "-":
        pipes.stdin_buffer()
    if output == "-":
        pipes.stdout_buffer()
    elif output is not None and pipes.is_terminal(output):
        raise UsageError(f"-o {output}: refusing to write binary .npy data to a terminal; use -o FILE")


def storage_options_of(values: list[str] | None, report: Report) -> dict[str, Any] | None:
    """--storage-option KEY=VALUE values as a dict (io.urls.parse_storage_options), recorded
    in the report with secret values masked; None when none is given.

    Raises:
        UsageError: a value that is not KEY=VALUE.
    """
    if not values:
        return None
    from ..io.urls import masked, parse_storage_options

    options = parse_storage_options(values)
    report.storage_options = masked(options)
    return options


@contextmanager
def about_input(file: str) -> Iterator[None]:
    """An input or spec error raised inside (a malformed file, a dtype, rank or axis
    the version refuses) names ``file`` first, as each file's error does with
    several FILEs (io.messages.naming_input); the exit status is the same."""
    from ..errors import InputFileError, SpecViolation
    from ..io.messages import naming_input
    from ..io.registry import input_location

    try:
        yield
    except (InputFileError, SpecViolation) as exc:
        text = str(exc)
        named = naming_input(text, file, within=None if file == "-" else input_location(file)[0])
        if named == text:
            raise
        raise type(exc)(named) from None


@contextmanager
def about_result(file: str | None) -> Iterator[None]:
    """A result that does not fit in memory (NotEnoughMemory as the run allocates it, or
    a MemoryError on any engine) names the one input ``file`` first, as with several
    FILEs (None: several inputs, none named)."""
    from ..errors import OUT_OF_MEMORY, NotEnoughMemory
    from ..io.messages import naming_input

    try:
        yield
    except MemoryError as exc:
        if file is None:
            raise
        text = str(exc) if isinstance(exc, NotEnoughMemory) else OUT_OF_MEMORY
        raise NotEnoughMemory(naming_input(text, file)) from None


def check_input_dtypes(op: Any, report: Report) -> None:
    """Name the file whose dtype ``op`` does not allow (the validator names only the dtype).

    Raises:
        SpecViolation: ``FILE: <Op-version> does not accept <dtype> (it accepts: ...)``.
    """
    from ..io.messages import shown_input
    from ..ops.rules import check_dtype

    for tensor in report.inputs:
        check_dtype(tensor.dtype, op.types, f"{shown_input(tensor.path)}: {op.label}")


def human_stream(output: str | None) -> TextIO:
    """Where human-readable output goes: stderr when the data itself goes to stdout."""
    return sys.stderr if output == "-" else sys.stdout


def read_inputs(
    paths: list[str],
    report: Report,
    *,
    quiet: bool,
    single: bool = False,
    stream: bool = False,
    chunked: bool = False,
    storage_options: dict[str, Any] | None = None,
) -> list[Any]:
    """Read every FILE argument through the input registry (meancli.io.registry) under
    the ``read`` stage, recording each tensor's name, shape and dtype.

    Args:
        single: the command takes exactly one tensor (an archive must then
            hold one array or be given as ``path.npz:name``).
        stream: return a Source instead of an array for stdin, .npy files and
            .npz members of at least io.thresholds.STREAM_MIN_BYTES (stdin holding
            less is read whole).
        chunked: the run goes to dask: a ``.npy`` file becomes a one-shard
            dataset, so the workers read it themselves.
        storage_options: the filesystem's options for URL arguments (--storage-option).

    Returns:
        Kernel-ready arrays (native byte order, C or Fortran order), Sources,
        or ChunkedArrays (zarr arrays and shard datasets, whose headers alone are read).

    Raises:
        InputFileError: an unreadable input, or several tensors where one is wanted.
    """
    from ..dtypes import BFLOAT16_NOTE, is_bfloat16, spec_name
    from ..engine.plan import is_chunked, is_source
    from ..errors import InputFileError
    from ..io.registry import Opening, open_input
    from ..kernels.arrays import kernel_input

    items: list[Any] = []
    noted = False
    how = Opening(stream=stream, lazy=chunked, storage_options=storage_options)
    import_stage(report, paths)
    with report.stage("read"), _listing_accepted_types(report):
        for path in paths:
            named = open_input(path, how)
            if single and len(named) != 1:
                listed = ", ".join(n.name for n in named)
                raise InputFileError(f"{path}: holds {len(named)} arrays ({listed}); name one as {path}:NAME")
            for item in named:
                report.inputs.append(
                    TensorInfo(item.name, tuple(item.data.shape), spec_name(item.data.dtype))
                )
                if is_bfloat16(item.data.dtype) and item.from_void_descr and not noted:
                    noted = True
                    if not quiet:
                        report.stderr_notes.append(BFLOAT16_NOTE)
                keep = is_source(item.data) or is_chunked(item.data)
                items.append(item.data if keep else kernel_input(item.data))
    return items


def import_stage(report: Report, paths: list[str], output: str | None = None) -> None:
    """Import the onnx package as the stage ``import`` when an input (or ``output``) is an
    ONNX tensor file (``.pb``): its import, about a second, is not the data's read or
    write time. Nothing for other formats; a missing package is reported by the reader."""
    from ..io.registry import input_format_name, output_format

    wanted = any(p != "-" and input_format_name(p) == "pb" for p in paths) or (
        output is not None and output_format(output) == "pb"
    )
    if wanted and "onnx.numpy_helper" not in sys.modules:
        from ..io.onnx_tensor import import_onnx

        with report.stage("import"):
            import_onnx()


@contextmanager
def _listing_accepted_types(report: Report) -> Iterator[None]:
    """A file the reader refuses for its dtype: say what the operator version takes."""
    from ..errors import UnsupportedDtypeFile

    try:
        yield
    except UnsupportedDtypeFile as exc:
        if report.op is None:
            raise
        accepted = ", ".join(report.op.types)
        raise UnsupportedDtypeFile(f"{exc} ({report.op.label} accepts: {accepted})") from None


def finish_written(
    report: Report, output: str | None, shape: tuple[int, ...], dtype: Any, *, json_mode: bool, quiet: bool
) -> None:
    """Print the report of a result already written to ``output`` as it was produced."""
    from ..dtypes import spec_name

    for note in report.stderr_notes:
        sys.stderr.write(note + "\n")
    report.output = TensorInfo(output, tuple(shape), spec_name(dtype))
    emit(report, None, json_mode=json_mode, quiet=quiet, stream=human_stream(output))


def finish(
    report: Report,
    result: Any,
    output: str | None,
    *,
    json_mode: bool,
    quiet: bool,
    storage_options: dict[str, Any] | None = None,
) -> None:
    """Write the result to ``output`` (atomically; ``-`` = stdout; a URL with the
    filesystem's ``storage_options``) and print the report."""
    from ..dtypes import spec_name
    from ..io.registry import write_output

    for note in report.stderr_notes:  # said only once the run has succeeded
        sys.stderr.write(note + "\n")
    if output is not None:
        import_stage(report, [], output)
        with report.stage("write"):
            write_output(output, result, storage_options)
        report.output = TensorInfo(output, tuple(result.shape), spec_name(result.dtype))
        emit(report, None, json_mode=json_mode, quiet=quiet, stream=human_stream(output))
    else:
        report.output = TensorInfo(None, tuple(result.shape), spec_name(result.dtype))
        emit(report, result, json_mode=json_mode, quiet=quiet, stream=sys.stdout)


def run_outcome(
    report: Report,
    outcome: Any,
    output: str | None,
    shape: tuple[int, ...],
    dtype: Any,
    *,
    json_mode: bool,
    quiet: bool,
    storage_options: dict[str, Any] | None = None,
) -> None:
    """Report an engine's Outcome (meancli.engine.plan): write and show its result,
    or, when the engine wrote ``output`` itself as it ran, report that."""
    report.engine = outcome.engine
    report.kernel_kind_ran = outcome.kind()
    if outcome.result is None:
        finish_written(report, output, shape, dtype, json_mode=json_mode, quiet=quiet)
    else:
        finish(
            report, outcome.result, output, json_mode=json_mode, quiet=quiet, storage_options=storage_options
        )
