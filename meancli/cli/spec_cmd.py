"""``meancli spec``: browse the operator specs (list, show, diff).

Everything comes from the generated registry ``meancli.generated.registry.OPS``
(no YAML at run time); versions are named as meancli.ops.opset.find_op reads them
(``ReduceMean-18``, ``onnx:ReduceMean:18``, ``openvino:ReduceMean:1``, ...).
The words are spec_prose's, the comparison spec_diff's.

Wired into the application by ``app.add_typer(spec_app, name="spec")``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from . import options

if TYPE_CHECKING:
    from ..ops.schema import OpVersion

spec_app = typer.Typer(
    name="spec",
    help="Browse the operator specs every version of Mean and ReduceMean comes from.",
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


@spec_app.callback(invoke_without_command=True)
def _group(ctx: typer.Context) -> None:
    # `meancli spec` alone: its help (see options.help_when_bare)
    from .options import help_when_bare

    help_when_bare(ctx)


OpArg = Annotated[
    str,
    typer.Argument(
        metavar="OP",
        help="ReduceMean-18, onnx:ReduceMean:18, openvino:ReduceMean:1, or ReduceMean (the newest onnx "
        "version); without a domain, onnx.",
    ),
]


# --------------------------------------------------------------------------- describing one version


def op_as_dict(op: OpVersion, ops: tuple[OpVersion, ...] | None = None) -> dict[str, Any]:
    """Everything the spec of ``op`` holds, as JSON-ready values.

    ``ref``, ``key``, ``label`` and ``opsets`` (``{"first": N, "last": M or
    null}``: the opsets of the domain that select this version), then every
    spec field (records as objects), then ``spec_path``, ``types`` and
    ``kernels`` (each type's C symbol).
    """
    from ..ops.opset import op_ref, opset_range, registry
    from ..ops.schema import GENERATED_FIELDS, SPEC_FIELDS
    from .spec_diff import to_json

    first, last = opset_range(op, registry() if ops is None else ops)
    head = {"ref": op_ref(op), "key": op.key, "label": op.label, "opsets": {"first": first, "last": last}}
    fields = [f for f in SPEC_FIELDS + GENERATED_FIELDS if f != "validator"]
    return {**head, **{f: to_json(getattr(op, f)) for f in fields}}


# --------------------------------------------------------------------------- output


def _print(*renderables: Any) -> None:
    """Print rich renderables (markup strings, tables) to stdout in one write.

    Rendered through a capture so that a closed pipe raises BrokenPipeError
    here, inside the session (rich would exit with status 1 on its own). The
    terminal's width and colours, or no wrapping and no colour when piped.
    """
    import os
    import sys

    from rich.console import Console

    stream = sys.stdout
    piped = not stream.isatty() and "COLUMNS" not in os.environ
    console = Console(file=stream, highlight=False, soft_wrap=True, width=1000 if piped else None)
    with console.capture() as capture:
        for renderable in renderables:
            console.print(renderable)
    stream.write(capture.get())
    stream.flush()


def _write_json(obj: Any) -> None:
    import json
    import sys

    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def list_rows(ops: tuple[OpVersion, ...] | None = None) -> list[dict[str, Any]]:
    """One dict per operator version, as ``spec list --json`` prints them.

    Keys: ref, domain, op, version (``ReduceMean-18``), since_version, opsets,
    types, broadcasting, axes_source (None without axes), spec_path.
    """
    from ..ops.opset import op_ref, opset_range, registry

    ops = registry() if ops is None else ops
    rows = []
    for op in ops:
        first, last = opset_range(op, ops)
        rows.append(
            {
                "ref": op_ref(op),
                "domain": op.domain,
                "op": op.name,
                "version": op.key,
                "since_version": op.since_version,
                "opsets": {"first": first, "last": last},
                "types": list(op.types),
                "broadcasting": op.broadcasting,
                "axes_source": op.axes.source if op.axes is not None else None,
                "spec_path": op.spec_path,
            }
        )
    return rows


@spec_app.command("list")
def list_cmd(json_mode: options.Json = False, debug: options.Debug = False) -> None:
    """Every operator version: domain, version, the opsets selecting it, broadcasting, axes source, types."""
    from .run import session

    with session(json_mode=json_mode, debug=debug):
        rows = list_rows()
        from .spec_prose import opsets_words

        if json_mode:
            _write_json({"ops": rows})
            return
        from rich.table import Table

        # The version names the op and its since_version (JSON has them apart). Every cell is
        # one line but the types, last, which wrap between types only: 80 columns leave them 18.
        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for column in ("domain", "version", "opsets", "broadcasting", "axes"):
            table.add_column(column, no_wrap=True)
        table.add_column("types", overflow="fold", min_width=len("bfloat16,"))
        for row in rows:
            first, last = row["opsets"]["first"], row["opsets"]["last"]
            table.add_row(
                row["domain"],
                row["version"],
                opsets_words(first, last),
                row["broadcasting"],
                row["axes_source"] or "-",
                ", ".join(row["types"]),
            )
        _print(table, f"[dim]{len(rows)} operator versions; details: meancli spec show OP[/dim]")


@spec_app.command("show")
def show_cmd(op: OpArg, json_mode: options.Json = False, debug: options.Debug = False) -> None:
    """Everything the spec of OP holds: inputs, outputs, attributes, types, axes rules, keepdims."""
    from .run import session

    with session(json_mode=json_mode, debug=debug):
        from ..ops.opset import find_op, registry
        from .spec_prose import show_lines

        ops = registry()
        version = find_op(op, ops)
        if json_mode:
            _write_json(op_as_dict(version, ops))
            return
        from rich.markup import escape

        _print(
            *(
                f"[bold]{escape(text)}[/bold]" if style else escape(text)
                for style, text in show_lines(version, ops)
            )
        )


@spec_app.command("diff")
def diff_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="The first operator version (as for show).")],
    b: Annotated[str, typer.Argument(metavar="B", help="The second operator version.")],
    json_mode: options.Json = False,
    debug: options.Debug = False,
) -> None:
    """What differs from spec A to spec B: types, inputs, attributes and defaults, broadcasting, axes."""
    from .run import session

    with session(json_mode=json_mode, debug=debug):
        from ..ops.opset import find_op, op_ref, registry
        from .spec_diff import diff_ops

        ops = registry()
        op_a, op_b = find_op(a, ops), find_op(b, ops)
        differences = diff_ops(op_a, op_b)
        if json_mode:
            _write_json(
                {
                    "a": op_ref(op_a),
                    "b": op_ref(op_b),
                    "identical": not differences,
                    "differences": [d.as_json() for d in differences],
                }
            )
            return
        from rich.markup import escape

        head = f"[bold]{escape(f'{op_a.label} -> {op_b.label}')}[/bold]"
        if not differences:
            same = " (the same version)" if op_a is op_b else ""
            _print(f"{head}: the specs are identical{same}")
            return
        count = f"{len(differences)} difference{'s' if len(differences) != 1 else ''}"
        _print(f"{head}: {count}", *(escape(f"- {d.text()}") for d in differences))
