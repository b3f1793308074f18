"""The ``meancli`` application: the commands, ``--version``, and the entry point.

``main`` rewrites ``--axes 2 3`` (see argv.py), runs click without its own
exit handling, and turns usage errors into one ``error:`` line with exit
status 2.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Optional

import typer

from .. import __version__
from .mean_cmd import mean
from .reduce_mean_cmd import reduce_mean
from .spec_cmd import spec_app

app = typer.Typer(
    name="meancli",
    help="The mean operators of ONNX (Mean, ReduceMean) and OpenVINO (ReduceMean) on .npy files.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: readable at 80 columns and in pipes
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("reduce-mean")(reduce_mean)
app.command("mean")(mean)
app.add_typer(spec_app, name="spec")


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"meancli {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],  # noqa: UP045 -- typer reads the annotation at run time
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = None,
) -> None:
    """The mean operators of ONNX (Mean, ReduceMean) and OpenVINO (ReduceMean) on .npy files."""


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 input, 2 usage, 3 internal)."""
    from .argv import expand_axes
    from .run import install_signal_handlers

    install_signal_handlers()
    args = expand_axes(list(sys.argv[1:] if argv is None else argv))
    command = typer.main.get_command(app)
    try:
        result = command.main(args=args, prog_name="meancli", standalone_mode=False)
    except typer.Exit as exc:  # pragma: no cover - click turns these into return values
        return int(exc.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except Exception as exc:
        # click's UsageError family (unknown option, bad value, missing argument)
        exit_code = getattr(exc, "exit_code", None)
        format_message = getattr(exc, "format_message", None)
        if exit_code is None or format_message is None:
            raise
        if not format_message().strip():  # no arguments: click printed the help
            return int(exit_code)
        ctx = getattr(exc, "ctx", None)
        hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
        message = " ".join(format_message().split()) + hint
        if "--json" in args[: args.index("--") if "--" in args else len(args)]:
            sys.stderr.write(json.dumps({"error": message, "kind": "usage"}) + "\n")
        else:
            sys.stderr.write(f"error: {message}\n")
        return int(exit_code)
    return int(result) if isinstance(result, int) else 0
