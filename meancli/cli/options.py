"""Options every data command shares (same names, same help), and the options
the specs' attributes give a command (built from the generated registry)."""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

if TYPE_CHECKING:
    from ..ops.schema import Attribute

Opset = Annotated[
    Optional[str],  # noqa: UP045 -- typer reads the annotation at run time
    typer.Option(
        "--opset",
        metavar="SPEC",
        help="N, onnx:N or openvino:N: use the highest version of the op with since_version <= N "
        "(default: the newest onnx version).",
    ),
]


def _output_path(value: Optional[str]) -> Optional[str]:  # noqa: UP045
    """-o '' is a malformed value (a usage error), not a file that cannot be written."""
    if value is not None and not value.strip():
        raise typer.BadParameter("an empty path; give a file name, or '-' for stdout")
    return value


def input_files(values: list[str]) -> list[str]:
    """A FILE given as '' is a malformed value (a usage error), not a missing file."""
    if any(not v.strip() for v in values):
        raise typer.BadParameter("an empty path; give a file name, or '-' for stdin")
    return values


def reduce_input_files(values: list[str]) -> list[str]:
    """input_files, and a FILE that is an integer and no file is an axis that
    `--axes=2 3` left behind (`--axes=` takes one value): a usage error
    before any file is read, not a result for 2 and then a missing file."""
    import os
    import re

    for v in input_files(values):
        if re.fullmatch(r"[+-]?[0-9]+", v) and not os.path.lexists(v):
            raise typer.BadParameter(
                f"{v}: no such file, and it looks like an axis: --axes=A takes one value; "
                "write --axes 2 3 or --axes=2,3"
            )
    return values


Output = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "-o",
        "--output",
        metavar="OUT",
        callback=_output_path,
        help="Write the result to OUT: .npy, an ONNX tensor if OUT ends in .pb, a zarr array if it "
        "ends in .zarr ('-': .npy to stdout).",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]
Json = Annotated[bool, typer.Option("--json", help="Print the report as one JSON object (errors too).")]
Threads = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--threads", metavar="N", min=1, max=1024, help="Kernel threads (default: the available cores)."
    ),
]
Debug = Annotated[bool, typer.Option("--debug", help="Show the traceback of an internal error.")]
Repeat = Annotated[
    int,
    typer.Option(
        "--repeat",
        metavar="N",
        min=1,
        max=1_000_000,
        help="Run the kernel N times and report its min and median time (for benchmarking).",
    ),
]


def attribute_parameters(op_name: str) -> list[inspect.Parameter]:
    """One typer option per attribute a caller sets on some version of ``op_name``
    (OpVersion.extra_attributes), in registry order: ``--noop-with-empty-axes``.

    A flag (bool, or int with values [0, 1]) is ``--name/--no-name``; an int
    takes ``N``; ints repeat (``--name 1 --name 2``). Not given, the value is
    None and the version's default applies; the help names the versions that
    have the attribute.
    """
    return [_attribute_parameter(a, labels) for a, labels in _attributes_of(op_name)]


def _attributes_of(op_name: str) -> list[tuple[Attribute, list[str]]]:
    """Each extra attribute of ``op_name``'s versions (the first spec's record) and their labels."""
    from ..ops.opset import registry

    found: dict[str, tuple[Attribute, list[str]]] = {}
    for op in registry():
        if op.name == op_name:
            for a in op.extra_attributes:
                found.setdefault(a.name, (a, []))[1].append(op.label)
    return list(found.values())


def _attribute_parameter(a: Attribute, labels: list[str]) -> inspect.Parameter:
    flag = "--" + a.name.replace("_", "-")
    help_text = f"{a.description} (attribute {a.name} of {', '.join(labels)})"
    annotation: Any
    if a.is_flag:
        option = typer.Option(f"{flag}/--no-{flag[2:]}", help=help_text, show_default=False)
        annotation = Annotated[Optional[bool], option]  # noqa: UP045
    elif a.type == "int":
        annotation = Annotated[Optional[int], typer.Option(flag, metavar="N", help=help_text)]  # noqa: UP045
    else:
        option = typer.Option(flag, metavar="N", help=help_text + "; repeat for several")
        annotation = Annotated[Optional[list[int]], option]  # noqa: UP045
    return inspect.Parameter(a.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)


def with_attribute_options(command: Callable[..., None], op_name: str) -> Callable[..., None]:
    """``command`` (which takes ``**attributes``) with an option per attribute of
    ``op_name``'s versions, placed before --opset: typer reads the signature."""
    base = inspect.signature(command)
    fixed = [p for p in base.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    at = next(i for i, p in enumerate(fixed) if p.name == "opset")
    attributes = attribute_parameters(op_name)
    clash = {p.name for p in attributes} & {p.name for p in fixed}
    if clash:
        raise TypeError(f"attributes of {op_name} named as options of its command: {sorted(clash)}")
    fixed = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if i >= at else p for i, p in enumerate(fixed)]
    parameters = fixed[:at] + attributes + fixed[at:]

    repeated = {a.name for a, _ in _attributes_of(op_name) if a.type == "ints"}

    @functools.wraps(command)
    def run(**kwargs: Any) -> None:
        for name in repeated:  # a repeated option not given: not given, as any other
            if not kwargs[name]:
                kwargs[name] = None
        command(**kwargs)

    run.__signature__ = base.replace(parameters=parameters)  # type: ignore[attr-defined]
    return run


Workers = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--workers",
        metavar="N",
        min=1,
        max=1024,
        help="Run on a dask LocalCluster of N worker processes on 127.0.0.1, shut down after the run.",
    ),
]
Scheduler = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="Run on the existing dask cluster whose scheduler is at ADDRESS (tcp://HOST:PORT).",
    ),
]
MAX_TIMEOUT = 7 * 86_400.0  # seconds: a week; past it a wait is a mistake, and an infinite one hangs


def _timeout_seconds(value: float) -> float:
    """--timeout nan passes click's range (every comparison with NaN is false): refuse it here."""
    if value != value:
        raise typer.BadParameter(f"nan is not a number of seconds (give one from 0.1 to {MAX_TIMEOUT:g})")
    return value


Timeout = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        min=0.1,
        max=MAX_TIMEOUT,
        callback=_timeout_seconds,
        help="Give up when the scheduler does not answer, or no worker joins it, within SECONDS.",
    ),
]


def help_when_bare(ctx: typer.Context) -> None:
    """A group run without a command prints its help, as --help does, on stdout and
    exits with status 2 (a usage error)."""
    if ctx.invoked_subcommand is None and not ctx.resilient_parsing:
        sys.stdout.write(ctx.get_help().rstrip("\n") + "\n")
        raise typer.Exit(2)


def _compare_path(value: Optional[str]) -> Optional[str]:  # noqa: UP045
    """--compare '' is a malformed value (a usage error), not a missing file."""
    if value is not None and not value.strip():
        raise typer.BadParameter("an empty path; give a file name, or '-' for stdin")
    return value


Skipna = Annotated[
    bool,
    typer.Option(
        "--skipna",
        help="Skip NaN: each output is the exact mean of its non-NaN values, rounded once "
        "(NaN where none is left; infinities are values). meancli's own extension, not part "
        "of ONNX or OpenVINO; no change for integer types.",
    ),
]
Compare = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--compare",
        metavar="FILE",
        callback=_compare_path,
        help="Compare FILE (.npy, .pb, data.npz:NAME, '-' for stdin) with the correctly rounded "
        "result, element by element, in ULPs (meancli's own check, not part of ONNX); "
        "exit status 4 when an element is beyond --max-ulp.",
    ),
]
MaxUlp = Annotated[
    int,
    typer.Option(
        "--max-ulp",
        metavar="N",
        min=0,
        help="The largest distance from the correctly rounded result accepted, in units in the last "
        "place (integers: the absolute difference); 0: correctly rounded. A NaN mismatch is beyond "
        "any N. Beyond it: exit status 4.",
    ),
]
