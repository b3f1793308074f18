"""What a command tells its user: a rich summary, one JSON object, or nothing.

Data goes to stdout only when it is the ``.npy`` output (``-o -``); then every
human-readable line goes to stderr.
"""

from __future__ import annotations

import io
import math
import shutil
import sys
from typing import TYPE_CHECKING, Any, NamedTuple, TextIO

from .. import __version__
from ..engine import StageTimes
from ..errors import MeancliError
from ..io.messages import display, one_line

if TYPE_CHECKING:  # numpy loads only when there is a result to show
    import numpy as np

    from ..engine.check_model import ModelCheck
    from ..engine.compare import Comparison
    from ..engine.runtimes import RuntimeRow
    from ..ops.schema import OpVersion

RESULT_JSON_LIMIT = 10_000  # elements of a shown result put into --json output


# A named tuple and a plain class, not dataclasses: a dataclass generates and
# compiles its methods when its module is imported, on every run.


class TensorInfo(NamedTuple):
    """A tensor as reported: where it came from or went, shape and dtype name."""

    path: str | None  # None: the result was shown, not written
    shape: tuple[int, ...]
    dtype: str

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "shape": list(self.shape), "dtype": self.dtype}


class Report(StageTimes):
    """Everything one run reports. ``timings_ms`` keys: import (onnx, for .pb), read,
    validate, kernel, write (and compare, with --compare)."""

    def __init__(self, command: str, threads: int, op: OpVersion | None = None) -> None:
        super().__init__()
        self.command = command
        self.threads = threads
        self.op = op
        self.inputs: list[TensorInfo] = []
        self.output: TensorInfo | None = None
        self.attributes: dict[str, Any] = {}
        self.stderr_notes: list[str] = []
        # where it ran: name memory | streamed | dask; for dask also scheduler, workers, chunks
        self.engine: dict[str, Any] = {"name": "memory"}
        # the kind of vector kernel that ran, where the engine knows it (kernel_kind)
        self.kernel_kind_ran: str | None = None
        # --compare, --runtime: what comparing each other result with this one found
        # (engine.compare), and the runtimes that gave none (engine.runtimes.RuntimeRow)
        self.comparisons: list[Comparison | RuntimeRow] = []
        # --storage-option, secret values masked (io.urls.masked); None when none given
        self.storage_options: dict[str, Any] | None = None
        # --skipna (meancli's own extension): each output the exact mean of its non-NaN values
        self.skipna = False

    def kernel_dtype(self) -> str | None:
        """The dtype the kernels ran on (the first input's; None before one is read)."""
        return self.inputs[0].dtype if self.inputs else None

    def kernel_kind(self) -> str:
        """The kind of vector kernel the command ran (meancli.kernels.isa):
        ``"mean"`` (Mean, and ReduceMean of few rows or short runs) or ``"run"``."""
        if self.kernel_kind_ran is not None:
            return self.kernel_kind_ran
        return "mean" if self.command == "mean" else "run"

    def as_json(self) -> dict[str, Any]:
        shown = {
            "command": self.command,
            "op": self.op.name if self.op else None,
            "domain": self.op.domain if self.op else None,
            "version": self.op.since_version if self.op else None,
            "attributes": self.attributes,
            "inputs": [t.as_json() for t in self.inputs],
            "output": self.output.as_json() if self.output else None,
            "timings_ms": {k: round(v, 4) for k, v in self.timings_ms.items()},
            "threads": self.threads,
            "isa": kernel_isa(self.kernel_dtype(), self.kernel_kind()),
            "repeat": self.repeats,
            "engine": self.engine,
            "meancli_version": __version__,
        } | ({"comparisons": [comparison_json(c) for c in self.comparisons]} if self.comparisons else {})
        if self.storage_options is not None:  # --storage-option, secret values masked
            shown["storage_options"] = self.storage_options
        if self.skipna:
            shown |= {"skipna": True, "skipna_extension": SKIPNA_EXTENSION}
        return shown

    def title(self) -> str:
        """The report's first line, unstyled: the op version, its attributes and,
        with --skipna, that extension named as meancli's own."""
        title = self.op.label if self.op else self.command
        if self.attributes:
            title += "  " + "  ".join(f"{k}={v}" for k, v in self.attributes.items())
        if self.skipna:
            title += f"  skipna ({SKIPNA_EXTENSION})"
        return title

    def mismatched(self) -> bool:
        """Whether some comparison found an element beyond its tolerance (exit status 4)."""
        return any(not c.within for c in self.comparisons)


#: What a comparison report says it is, in JSON and in words.
COMPARE_EXTENSION = "meancli's own check, not part of ONNX"
#: What --skipna is, in the report's title and its JSON.
SKIPNA_EXTENSION = "meancli's own extension, not part of ONNX or OpenVINO"


def comparison_json(c: Comparison | RuntimeRow) -> dict[str, Any]:
    """One comparison as ``comparisons`` lists it (docs/schema/report.schema.json): floats
    as JSON numbers, non-finite ones as the strings "nan", "inf", "-inf"; integers exact.
    A runtime's row without a comparison: ``against``, ``refused`` (true: it refused the
    node; false: its output's shape or dtype is not the result's), ``reason``, ``within``."""
    from ..engine.runtimes import RuntimeRow

    if isinstance(c, RuntimeRow):
        return {
            "against": c.against,
            "extension": COMPARE_EXTENSION,
            "refused": c.refused,
            "reason": c.reason,
            "within": c.within,
        }
    worst = None
    if c.worst is not None:
        worst = {
            "index": list(c.worst.at),
            "expected": _json_value(c.worst.expected),
            "got": _json_value(c.worst.got),
            "ulp": c.worst.ulp,
        }
    return {
        "against": c.against,
        "extension": COMPARE_EXTENSION,
        "dtype": c.dtype,
        "max_ulp": c.max_ulp,
        "mean_ulp": c.mean_ulp,
        "inexact": c.inexact,
        "nan_mismatch": c.nan_mismatch,
        "total": c.total,
        "tolerance": c.tolerance,
        "within": c.within,
        "max_abs": _json_value(c.max_abs),
        "max_rel": _json_value(c.max_rel),
        "worst": worst,
        "histogram": dict(c.histogram),
    }


def comparison_renderables(
    comparisons: list[Comparison | RuntimeRow],
    *,
    heading: bool = True,
    names: list[str] | None = None,
    name_column: str = "against",
    worst_names: list[str] | None = None,
) -> list[Any]:
    """The rich renderables of ``comparisons``: a heading naming the check as meancli's own
    (unless ``heading`` is False), a table (one row per comparison: max and mean ULP,
    elements not exact, max absolute and relative error, the histogram, the verdict), and
    the worst element of each inexact one. A runtime that gave no comparable output
    (a RuntimeRow) is a row of dashes and its reason as the verdict. ``names``: what
    the first column (titled ``name_column``) and the worst lines call each row
    (default: its ``against``); ``worst_names`` what the worst lines call them (default:
    ``names``)."""
    from rich.markup import escape
    from rich.table import Table

    out: list[Any] = []
    if heading:
        out.append(
            f"[bold]compare[/bold]  ULP distance to the correctly rounded result ({COMPARE_EXTENSION})"
        )
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    shown = names if names is not None else [display(c.against) for c in comparisons]
    columns = [name_column, "max ulp", "mean ulp", "not exact", "max abs", "max rel"]
    from ..engine.compare import BUCKETS
    from ..engine.runtimes import RuntimeRow

    histogram = [*(label for label, _, _ in BUCKETS), "NaN mismatch"]
    for col in [*columns, *histogram, "verdict"]:
        table.add_column(col, overflow="fold", justify="left" if col in (name_column, "verdict") else "right")
    for c, name in zip(comparisons, shown, strict=True):
        if isinstance(c, RuntimeRow):
            said = escape(c.reason)
            verdict = f"refused: {said}" if c.refused else f"[bold red]BEYOND[/bold red]: {said}"
            table.add_row(escape(name), *(["-"] * (len(columns) - 1 + len(histogram))), verdict)
            continue
        verdict = f"within {c.tolerance}" if c.within else f"[bold red]BEYOND {c.tolerance}[/bold red]"
        table.add_row(
            escape(name),
            str(c.max_ulp),
            f"{c.mean_ulp:.3g}",
            f"{c.inexact} of {c.total}",
            _number(c.max_abs),
            _number(c.max_rel),
            *(str(n) for n in c.histogram.values()),
            verdict,
        )
    out.append(table)
    for c, name in zip(comparisons, worst_names or shown, strict=True):
        if not isinstance(c, RuntimeRow) and c.worst is not None and c.inexact:
            w = c.worst
            distance = "NaN mismatch" if w.ulp is None else f"{w.ulp} ulp"
            out.append(
                escape(
                    f"worst of {name}: index {list(w.at)}: "
                    f"exact {_element(w.expected, c.dtype)}, got {_element(w.got, c.dtype)} ({distance})"
                )
            )
    return out


def _write_check_json(obj: dict[str, Any], report: Report) -> None:
    """A check's JSON object on stdout, one line, ending with what every check
    reports: whether every comparison was within --max-ulp, the stage times (ms),
    the threads and meancli's version."""
    import json

    obj |= {
        "within": not report.mismatched(),
        "timings_ms": {k: round(v, 4) for k, v in report.timings_ms.items()},
        "threads": report.threads,
        "meancli_version": __version__,
    }
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def emit_check(report: Report, test_dir: str, *, json_mode: bool, quiet: bool, first: bool = True) -> None:
    """Print what ``check-onnx`` found in one test directory, on stdout: (for the
    ``first`` one) a line naming the check as meancli's own, the node's version and
    attributes, then the comparisons (one per data set); or one JSON object
    (docs/schema/check-onnx.schema.json)."""
    if quiet:
        return
    if json_mode:
        obj = {
            "command": report.command,
            "test_dir": test_dir,
            "op": report.op.name if report.op else None,
            "domain": report.op.domain if report.op else None,
            "version": report.op.since_version if report.op else None,
            "attributes": report.attributes,
            "comparisons": [comparison_json(c) for c in report.comparisons],
        }
        _write_check_json(obj, report)
        return
    from rich.markup import escape

    buffer = io.StringIO()
    console = _buffered_console(buffer, sys.stdout)
    if first:
        console.print(
            f"[bold]check-onnx[/bold]  ULP distance to the correctly rounded outputs ({COMPARE_EXTENSION})"
        )
    title = f"[bold]{escape(display(test_dir))}[/bold]"
    if report.op:
        title += f"  {escape(report.op.label)}"
    if report.attributes:
        title += "  " + "  ".join(escape(f"{k}={v}") for k, v in report.attributes.items())
    console.print(title)
    for renderable in comparison_renderables(report.comparisons, heading=False):
        console.print(renderable)
    sys.stdout.write(buffer.getvalue())
    sys.stdout.flush()


def emit_model_check(
    report: Report, path: str, model: Any, found: ModelCheck, *, json_mode: bool, quiet: bool
) -> None:
    """Print what ``check-model`` found, on stdout: a line naming the check as meancli's
    own, the model and its opset imports, then per runtime a table of its nodes (name,
    operator version, output shape and dtype, the comparison) and the nodes not
    handled, one line each; or one JSON object (docs/schema/check-model.schema.json)."""
    if quiet:
        return
    opsets = {o.domain or "ai.onnx": int(o.version) for o in model.opset_import}
    if json_mode:
        comparisons = []
        for check in found.checks:
            node = {
                "name": check.node,
                "op": check.op.name,
                "version": check.op.since_version,
                "attributes": check.attributes,
                "shape": None if check.shape is None else list(check.shape),
                "dtype": check.dtype,
            }
            comparisons.append(comparison_json(check.comparison) | {"node": node})
        obj = {
            "command": "check-model",
            "model": path,
            "opset_import": opsets,
            "comparisons": comparisons,
            "skipped": [{"node": s.node, "op": s.op_type, "reason": s.reason} for s in found.skipped],
        }
        _write_check_json(obj, report)
        return
    from rich.markup import escape

    buffer = io.StringIO()
    console = _buffered_console(buffer, sys.stdout)
    console.print(
        f"[bold]check-model[/bold]  each Mean and ReduceMean node against the correctly rounded mean "
        f"of its inputs as the runtime computed them ({COMPARE_EXTENSION})"
    )
    imports = "  ".join(f"{k}:{v}" for k, v in opsets.items())
    console.print(f"[bold]{escape(display(path))}[/bold]  opset {escape(imports)}")
    runtimes: dict[str, list[Any]] = {}
    for check in found.checks:
        runtimes.setdefault(check.comparison.against, []).append(check)
    for label, checks in runtimes.items():
        console.print(f"[bold]{escape(label)}[/bold]")
        names = [
            f"{c.node}{' (unnamed)' if c.node.startswith('#') else ''}  {c.op.name}-{c.op.since_version}"
            + "".join(f" {k}={v}" for k, v in c.attributes.items())
            + ("" if c.shape is None else f"  {c.shape} {c.dtype}")
            for c in checks
        ]
        for renderable in comparison_renderables(
            [c.comparison for c in checks],
            heading=False,
            names=names,
            name_column="node",
            worst_names=[c.node for c in checks],
        ):
            console.print(renderable)
    if not found.checks:
        console.print("no Mean or ReduceMean node of ONNX's domain in the main graph")
    for s in found.skipped:
        console.print(escape(f"not handled: {s.node} ({s.op_type}): {s.reason}"))
    stages = "  ".join(f"{k} {v:.3f} ms" for k, v in report.timings_ms.items())
    console.print(f"[dim]time[/dim]  {stages}")
    sys.stdout.write(buffer.getvalue())
    sys.stdout.flush()


def _number(x: float | int) -> str:
    return str(x) if isinstance(x, int) else f"{x:.3g}"


def _element(x: float | int, dtype: str) -> str:
    """One value in its dtype's shortest digits (float32 0.1 as 0.1); integers exact;
    bfloat16 in float32's, which hold it exactly (its numpy type is ml_dtypes', or raw
    bytes on the command line)."""
    if isinstance(x, int):
        return str(x)
    import numpy as np

    from ..dtypes import numpy_dtype

    return str(np.float32(x) if dtype == "bfloat16" else numpy_dtype(dtype).type(x))


def kernel_isa(dtype: str | None = None, kind: str = "run") -> str | None:
    """The instruction set this process's ``kind`` kernels run for ``dtype``
    (a dtype name; None: float32), or None before they could load."""
    from .. import kernels
    from ..errors import MeancliError

    try:
        return kernels.isa(dtype, kind)
    except MeancliError:
        return None


def _json_value(x: Any) -> Any:
    if isinstance(x, list):
        return [_json_value(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")
    return x


def shown_values(result: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``result`` in a dtype numpy formats as a float: bfloat16 (which numpy prints
    as it would an integer, ``[0, 0]``) as float32, which holds it exactly; every
    other dtype as it is."""
    from ..dtypes import bfloat16_as_float32, is_bfloat16

    return bfloat16_as_float32(result) if is_bfloat16(result.dtype) else result


def result_json(result: np.ndarray[Any, Any]) -> Any:
    """The result as nested lists: ints as ints; floats as the double that holds
    each value exactly, in the shortest form that reads back as that double
    (float16 65504 as 65504.0, not its own shortest form 65500.0, which a JSON
    reader takes for another number; float32 0.1 as 0.10000000149011612);
    non-finite values as the strings "nan", "inf", "-inf"."""
    if result.dtype.kind in "iu":
        return result.tolist()
    import numpy as np

    return _json_value(shown_values(result).astype(np.float64).tolist())


def emit(report: Report, result: np.ndarray | None, *, json_mode: bool, quiet: bool, stream: TextIO) -> None:
    """Print the report (and the result when there is no output file) to ``stream``.

    ``result`` is shown truncated like numpy's repr; in JSON it is a nested
    list when it has at most RESULT_JSON_LIMIT elements (non-finite values as
    the strings "nan", "inf", "-inf"), else omitted with ``result_omitted``.
    """
    if quiet:
        return
    if json_mode:
        import json

        obj = report.as_json()
        if result is not None:
            if result.size <= RESULT_JSON_LIMIT:
                obj["result"] = result_json(result)
            else:
                obj["result_omitted"] = f"{result.size} elements; use -o FILE"
        stream.write(json.dumps(obj) + "\n")
        stream.flush()
        return
    if result is None and not stream.isatty() and not report.comparisons:
        lines = plain_report(report)
        if lines is not None:  # what rich would print here, without importing it
            stream.write("".join(line + "\n" for line in lines))
            stream.flush()
            return
    from rich.markup import escape  # paths and values are shown as they are, never read as markup
    from rich.table import Table

    # Rendered into a buffer and written here, so a closed pipe raises
    # BrokenPipeError for the command boundary (rich itself would exit 1).
    # Not a terminal: no width to fit, so nothing (a long path) is cut.
    buffer = io.StringIO()
    console = _buffered_console(buffer, stream)
    title = f"[bold]{report.op.label}[/bold]" if report.op else report.command
    if report.attributes:
        title += "  " + "  ".join(escape(f"{k}={v}") for k, v in report.attributes.items())
    if report.skipna:
        title += escape(f"  skipna ({SKIPNA_EXTENSION})")
    console.print(title)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for col in ("", "path", "shape", "dtype"):
        table.add_column(col, overflow="fold")  # a long path wraps, never loses characters
    for t in report.inputs:
        path = None if t.path is None else escape(display(t.path))  # a name's control characters escaped
        table.add_row("input", path, str(t.shape), escape(t.dtype))
    if report.output:
        shown = report.output.path if report.output.path is not None else "(shown)"
        table.add_row("output", escape(display(shown)), str(report.output.shape), escape(report.output.dtype))
    console.print(table)
    stages = "  ".join(f"{k} {v:.3f} ms" for k, v in report.timings_ms.items())
    if report.engine["name"] == "dask":
        console.print(f"[dim]engine[/dim]  {escape(engine_text(report.engine))}")
    where = _where(report)
    console.print(f"[dim]time[/dim]  {stages}" + (f"  [dim]({where})[/dim]" if where else ""))
    if result is not None:
        import numpy as np

        # numpy's digits, 0-d included; every float type alike
        console.print(np.array2string(shown_values(result), separator=", "), markup=False)
    if report.comparisons:
        for renderable in comparison_renderables(report.comparisons):
            console.print(renderable)
    stream.write(buffer.getvalue())
    stream.flush()


def _where(report: Report) -> str:
    """``2 threads, avx2 kernels``, ``1 thread, streamed, avx512 kernels``; for dask
    (its own line says where) the kernels of this process (workers pick their own)."""
    isa = kernel_isa(report.kernel_dtype(), report.kernel_kind())
    kernels = f"{isa} kernels" if isa else ""
    if report.engine["name"] == "dask":
        return f"{kernels} here" if kernels else ""
    streamed = ", streamed" if report.engine["name"] == "streamed" else ""
    return f"{report.threads} thread{'s' if report.threads != 1 else ''}{streamed}" + (
        f", {kernels}" if kernels else ""
    )


def _is_plain(text: str) -> bool:
    """Text rich prints as it is off a terminal: printable ASCII (no tab, no control
    character, no wide character) without ``:`` (rich reads ``:name:`` as an emoji)."""
    return text.isascii() and text.isprintable() and ":" not in text


def plain_report(report: Report) -> list[str] | None:
    """The lines of ``emit``'s report of a written output (no result shown) exactly as
    rich renders them off a terminal (no styles, no width to fit): the title, the
    table (columns left-aligned to their widest cell, two spaces apart, no edge
    padding) and the engine and time lines. None when some text is not plain
    (``_is_plain``): rich then renders it.

    Loading rich costs a one-file run about a fifth of its time; output to a pipe
    or a file does not need it.
    """
    title = report.title()
    if any(t.path is None for t in report.inputs):
        return None  # (not made by any command; rich shows an empty cell)
    rows = [("", "path", "shape", "dtype")]
    rows += [("input", str(t.path), str(t.shape), t.dtype) for t in report.inputs]
    if report.output:
        out = report.output
        rows.append(("output", out.path if out.path is not None else "(shown)", str(out.shape), out.dtype))
    engine = f"engine  {engine_text(report.engine)}" if report.engine["name"] == "dask" else None
    stages = "  ".join(f"{k} {v:.3f} ms" for k, v in report.timings_ms.items())
    where = _where(report)
    timing = f"time  {stages}" + (f"  ({where})" if where else "")
    if not all(_is_plain(text) for text in [title, engine or "", timing, *(c for row in rows for c in row)]):
        return None
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    table = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    return [title, *table, *([engine] if engine else []), timing]


def engine_text(engine: dict[str, Any]) -> str:
    """``dask on local-cluster, 2 workers; chunks (1000, 500) x grid (8, 2)`` (one part per input)."""
    grids = "; ".join(
        f"chunks {tuple(c['chunk_shape'])} x grid {tuple(c['grid'])}" for c in engine.get("chunks", [])
    )
    workers = engine.get("workers", 0)
    on = engine.get("scheduler", "synchronous")
    text = f"dask on {on}" + (
        f", {workers} worker{'s' if workers != 1 else ''}" if workers else " (this process)"
    )
    return f"{text}; {grids}" if grids else text


def emit_error(exc: BaseException, *, json_mode: bool, message: str | None = None) -> None:
    """One line on stderr: ``error: ...``, or ``{"error": ..., "kind": ...}`` with --json."""
    text = message if message is not None else str(exc)
    text = one_line(text)  # one line, no control character, whatever the message held
    if isinstance(exc, MeancliError):
        kind = exc.kind
    else:
        kind = "interrupted" if isinstance(exc, KeyboardInterrupt) else "internal"
    if json_mode:
        import json

        sys.stderr.write(json.dumps({"error": text, "kind": kind}) + "\n")
    else:
        sys.stderr.write(f"error: {text}\n")
    sys.stderr.flush()


def _buffered_console(buffer: io.StringIO, stream: TextIO) -> Any:
    """A rich Console writing into ``buffer``, styled as ``stream`` can show it: a
    terminal's width and colours; not a terminal, no width to fit (nothing is cut)."""
    from rich.console import Console

    tty = stream.isatty()
    return Console(
        file=buffer,
        highlight=False,
        soft_wrap=True,
        force_terminal=tty,
        width=shutil.get_terminal_size().columns if tty else 100_000,
    )
