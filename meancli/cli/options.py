"""Options every data command shares (same names, same help), and the options
the specs' attributes give a command (built from the generated registry).

No ``from __future__ import annotations``: typer reads the annotations of the
callbacks here (``_output_path``, ``_finite``, ...) as it builds a command, in
every run, and would compile and evaluate each string annotation anew (app.py).
"""

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


def _attributes_of(op_name: str) -> list[tuple["Attribute", list[str]]]:
    """Each extra attribute of ``op_name``'s versions (the first spec's record) and their labels."""
    from ..ops.opset import registry

    found: dict[str, tuple[Attribute, list[str]]] = {}
    for op in registry():
        if op.name == op_name:
            for a in op.extra_attributes:
                found.setdefault(a.name, (a, []))[1].append(op.label)
    return list(found.values())


def _attribute_parameter(a: "Attribute", labels: list[str]) -> inspect.Parameter:
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


def _finite(value: Optional[float]) -> Optional[float]:  # noqa: UP045
    """A NaN passes click's range (every comparison with NaN is false): refuse it here."""
    if value is not None and value != value:
        raise typer.BadParameter("nan is not a number")
    return value


def _shown(value: Any) -> str:
    """A default as --help shows it: 30.0 as 30."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def engine_parameters() -> list[inspect.Parameter]:
    """One typer option per option an engine declares (meancli.engine.plan.engine_options:
    ``--workers``, ``--scheduler``, ``--timeout``); not given, the value is None and the
    engine's default applies (the help shows it)."""
    from ..engine.plan import engine_options

    parameters = []
    for o in engine_options():
        option = typer.Option(
            o.flag,
            metavar=o.metavar,
            min=o.minimum,
            max=o.maximum,
            callback=_finite if o.type is float else None,
            help=o.help + ("" if o.default is None else f" [default: {_shown(o.default)}]"),
            show_default=False,
        )
        annotation = Annotated[Optional[o.type], option]  # type: ignore[name-defined]  # noqa: UP045
        parameters.append(
            inspect.Parameter(o.name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)
        )
    return parameters


def with_engine_options(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` (which takes ``engine_options``, a dict of the engines' option values
    by name) with an option per engine option in its place: typer reads the signature."""
    base = inspect.signature(command)
    names = list(base.parameters)
    at = names.index("engine_options")
    engine = engine_parameters()
    clash = {p.name for p in engine} & set(names)
    if clash:
        raise TypeError(f"engine options named as options of {command.__name__}: {sorted(clash)}")
    fixed = list(base.parameters.values())
    kinds = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if i > at and p.kind is not p.VAR_KEYWORD else p
        for i, p in enumerate(fixed)
    ]
    parameters = kinds[:at] + engine + kinds[at + 1 :]

    @functools.wraps(command)
    def run(**kwargs: Any) -> None:
        values = {p.name: kwargs.pop(p.name) for p in engine}
        command(**kwargs, engine_options=values)

    run.__signature__ = base.replace(parameters=parameters)  # type: ignore[attr-defined]
    return run


StorageOption = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--storage-option",
        metavar="KEY=VALUE",
        help="An option of the filesystem that reads or writes URLs (s3://, gs://, http(s)://), "
        "repeatable: endpoint_url=http://127.0.0.1:9000, anon=true; VALUE is parsed as JSON when it "
        "parses. Credentials come from where the filesystem looks (AWS_* variables, config files); "
        "reports mask secret values.",
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


def _runtime_names(values: Optional[list[str]]) -> Optional[list[str]]:  # noqa: UP045
    """--runtime NAME: one of the known names (a usage error otherwise), each once."""
    known = ("onnxruntime", "openvino", "onnx-reference")  # meancli.engine.runtimes.RUNTIMES
    for i, v in enumerate(values or []):
        if v not in known:
            raise typer.BadParameter(f"{v!r} is not a runtime; choose from {', '.join(known)}")
        if v in values[:i]:  # type: ignore[index]
            raise typer.BadParameter(f"{v} is given twice")
    return values or None


Runtime = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--runtime",
        metavar="NAME",
        callback=_runtime_names,
        help="Also run the node on runtime NAME (onnxruntime, openvino, onnx-reference; repeat for "
        "several) with the same inputs and compare its output with the correctly rounded result, "
        "in ULPs, one row per runtime (meancli's own check); a runtime that refuses the node is a "
        "row saying why. Exit status 4 when an element is beyond --max-ulp.",
    ),
]
ModelRuntime = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--runtime",
        metavar="NAME",
        callback=_runtime_names,
        help="The runtime to run MODEL on: onnxruntime (the default), openvino or onnx-reference; "
        "repeat for several (one table each). A runtime that cannot run the model is a row per node "
        "saying why (an error when none can).",
    ),
]
