"""The ``meancli`` application: the commands, ``--version``, and the entry point.

``main`` rewrites ``--axes 2 3`` (see argv.py), runs click without its own
exit handling, and turns usage errors into one ``error:`` line with exit
status 2.

The application is built for each run with only what the run needs: when the
first argument names a command, only that command's module is imported and
only it is registered (a command's parsing, help and errors do not depend on
its siblings); anything else (no arguments, ``--help``, an unknown or
misspelled command, shell completion) gets every command.

No ``from __future__ import annotations`` in the modules that define
commands: typer reads their annotations at run time, and would evaluate
string annotations anew each time.
"""

import os
import sys
from collections.abc import Callable
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperCommand

from .. import __version__
from ..errors import UsageError

HELP = "The mean operators of ONNX (Mean, ReduceMean) and OpenVINO (ReduceMean) on tensor files."
#: Options whose second use would silently replace the first (click keeps the last
#: value of an option that takes one): an output written to one of two names, or one
#: of two FILEs compared. Given twice, they are a usage error. Other options keep
#: the command-line convention that a later one overrides (``--keep-dims`` after an
#: alias's ``--no-keep-dims``).
ONCE = frozenset({"output", "compare"})


class OnceCommand(TyperCommand):
    """A command whose ONCE options, given more than once, are a usage error."""

    def make_parser(self, ctx: Any) -> Any:
        parser = super().make_parser(ctx)
        parse = parser.parse_args

        def parse_args(args: list[str]) -> Any:
            opts, rest, order = parse(args)  # order: each parameter once per use
            for name in sorted(ONCE):
                uses = [p for p in order if p.name == name]
                if len(uses) > 1:
                    raise UsageError(f"{uses[0].opts[-1]} is given {len(uses)} times; give it once")
            return opts, rest, order

        parser.parse_args = parse_args  # type: ignore[method-assign]
        return parser


def _add_reduce_mean(app: typer.Typer) -> None:
    from .options import with_attribute_options, with_engine_options
    from .reduce_mean_cmd import reduce_mean

    app.command("reduce-mean", cls=OnceCommand)(
        with_attribute_options(with_engine_options(reduce_mean), "ReduceMean")
    )


def _add_mean(app: typer.Typer) -> None:
    from .mean_cmd import mean
    from .options import with_attribute_options, with_engine_options

    app.command("mean", cls=OnceCommand)(with_attribute_options(with_engine_options(mean), "Mean"))


def _add_check_onnx(app: typer.Typer) -> None:
    from .check_onnx_cmd import check_onnx

    app.command("check-onnx", cls=OnceCommand)(check_onnx)


def _add_check_model(app: typer.Typer) -> None:
    from .check_model_cmd import check_model

    app.command("check-model", cls=OnceCommand)(check_model)


def _add_isa(app: typer.Typer) -> None:
    from .isa_cmd import isa

    app.command("isa", cls=OnceCommand)(isa)


def _add_spec(app: typer.Typer) -> None:
    from .spec_cmd import spec_app

    app.add_typer(spec_app, name="spec")


# Each command's name -> what imports and registers it, in the order --help lists them.
COMMANDS: dict[str, Callable[[typer.Typer], None]] = {
    "reduce-mean": _add_reduce_mean,
    "mean": _add_mean,
    "check-onnx": _add_check_onnx,
    "check-model": _add_check_model,
    "isa": _add_isa,
    "spec": _add_spec,
}
COMPLETE_VAR = "_MEANCLI_COMPLETE"  # set by the shell when it asks click for completions


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"meancli {__version__}\n")
        raise typer.Exit(0)


def _root(
    ctx: typer.Context,
    version: Annotated[
        Optional[bool],  # noqa: UP045 -- typer reads the annotation at run time
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit."),
    ] = None,
) -> None:
    """The mean operators of ONNX (Mean, ReduceMean) and OpenVINO (ReduceMean) on tensor files."""
    from .options import help_when_bare

    help_when_bare(ctx)


def build_app(commands: list[str] | None = None) -> typer.Typer:
    """The application with ``commands`` (default: every command) registered.

    ``--install-completion`` and ``--show-completion`` come only with every
    command: they are options of ``meancli`` itself, given before any command
    name, so a run that starts with one (``commands_needed``) never parses them
    and does not build them."""
    app = typer.Typer(
        name="meancli",
        help=HELP,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # plain help: readable at 80 columns and in pipes
        context_settings={"help_option_names": ["-h", "--help"]},
        add_completion=commands is None,
    )
    for name in COMMANDS if commands is None else commands:
        COMMANDS[name](app)
    app.callback(invoke_without_command=True)(_root)
    return app


def commands_needed(args: list[str]) -> list[str] | None:
    """The commands a run of ``args`` needs: the one its first argument names, or None (all)."""
    if args and args[0] in COMMANDS and COMPLETE_VAR not in os.environ:
        return [args[0]]
    return None


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 input, 2 usage, 3 internal)."""
    from .argv import expand_axes
    from .run import install_signal_handlers

    install_signal_handlers()
    args = expand_axes(list(sys.argv[1:] if argv is None else argv))
    command = typer.main.get_command(build_app(commands_needed(args)))
    try:
        result = command.main(args=args, prog_name="meancli", standalone_mode=False)
    except typer.Exit as exc:  # pragma: no cover - click turns these into return values
        return int(exc.exit_code)
    except KeyboardInterrupt:
        sys.stderr.write("error: interrupted\n")
        return 130
    except Exception as exc:
        from ..errors import MeancliError
        from ..io.messages import one_line

        exit_code: Any
        if isinstance(exc, MeancliError):  # raised while the arguments are parsed (OnceCommand)
            exit_code, message = exc.exit_code, one_line(str(exc))
        else:  # click's UsageError family (unknown option, bad value, missing argument)
            exit_code = getattr(exc, "exit_code", None)
            format_message = getattr(exc, "format_message", None)
            if exit_code is None or format_message is None:
                raise
            ctx = getattr(exc, "ctx", None)
            hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
            message = one_line(format_message() + hint)
        if "--json" in args[: args.index("--") if "--" in args else len(args)]:
            import json

            sys.stderr.write(json.dumps({"error": message, "kind": "usage"}) + "\n")
        else:
            sys.stderr.write(f"error: {message}\n")
        return int(exit_code)
    return int(result) if isinstance(result, int) else 0
