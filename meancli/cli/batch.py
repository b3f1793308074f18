"""Many files in one process: ``meancli reduce-mean a.npy b.npy ... -o 'out/{stem}.npy'``.

A pipeline over a thousand small tensors pays Python's start-up (the
interpreter, numpy, the command-line framework, the kernels) once instead of
a thousand times. This module holds what is particular to several files:

- the output names: ``-o`` is a template whose placeholders (OUTPUT_FIELDS)
  are filled from each input's path; every name is decided, and checked for
  two inputs meeting in one output, before the first file is read;
- the loop: each file runs as a run of its own (its own report, its own
  atomic output), its failure is reported naming the file, and the run stops
  at the first failure unless ``--keep-going`` is given;
- the summary: a closing line on stderr when a file failed (or, without
  --quiet/--json, on the human stream when every file succeeded), and the
  exit status: 0 when every file succeeded, else the highest status of a
  failed file (1 for an input the operator refuses, 3 for an internal error).

With ``--json`` each file's report is one JSON object on its own line of
stdout, in the order of the inputs (JSON lines: a consumer reads them as they
come); a file's error is a JSON object on stderr with the file's ``path``.

The command itself (reading, validating, the kernel, writing) stays in the
command's module: ``run_many`` only calls ``run_one(file, output)`` per file.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import typer

from ..errors import EXIT_INPUT, EXIT_INTERNAL, EXIT_USAGE, OUT_OF_MEMORY, MeancliError, UsageError

KeepGoing = Annotated[
    bool,
    typer.Option(
        "--keep-going",
        "-k",
        help="With several FILEs: after a file fails, go on with the others "
        "(default: stop at the first failure). The exit status is 1 if any failed.",
    ),
]

#: The placeholders an ``-o`` template may use, and what each holds for ``dir/a.npy``.
OUTPUT_FIELDS = {
    "stem": "the input's file name without its suffix (a; data for data.npz:NAME, era5 for era5.zarr:t2m)",
    "name": "the input's file name (a.npy; the archive's or store's for a member, the list file's "
    "for @LIST, the directory's for a shard directory or a glob dir/part-*.npy)",
    "parent": "the input's directory as given (dir; '.' when none, also for '.' and a glob in '.')",
    "member": "the member of an archive or zarr group (NAME of data.npz:NAME, t2m of era5.zarr:t2m; "
    "empty otherwise)",
    "index": "the input's position among the FILEs, from 0 (a format spec works: {index:03d})",
}
STDIN_STEM = "stdin"
KIND_OF_STATUS = {
    EXIT_INPUT: "input",
    EXIT_USAGE: "usage",
}  # the closing JSON error's kind  # what the placeholders of '-' (stdin) hold for the file name


def is_template(output: str | None) -> bool:
    """Whether ``output`` is an ``-o`` template: it holds a ``{`` or ``}``.

    A literal brace in an output name is written doubled (``{{``, ``}}``),
    as in Python's str.format.
    """
    return output is not None and ("{" in output or "}" in output)


def wants_many(files: Sequence[str], output: str | None) -> bool:
    """Whether a run takes the many-files path: several FILEs, or a templated ``-o``."""
    return len(files) != 1 or is_template(output)


def fields_of(file: str, index: int) -> dict[str, Any]:
    """The placeholder values for input ``file`` at position ``index`` (OUTPUT_FIELDS).

    Every kind of FILE names a path its placeholders come from (io.registry.input_location):
    a file itself; an archive or zarr store for a member of it (``data.npz:NAME``,
    ``g.zarr:path/in/group``: ``{member}`` is NAME or the path in the group); a
    shard directory or zarr store given with a trailing ``/`` without it; the list
    file of ``@LIST``; for a glob, the directory its matches are searched in.
    """
    if file == "-":
        return {"stem": STDIN_STEM, "name": STDIN_STEM, "parent": ".", "member": "", "index": index}
    from ..io.registry import input_location

    path, member = input_location(file)
    parent, name = os.path.split(path)
    if name in ("", ".", ".."):  # a directory given as '.', '..' or '/': its own name
        name = os.path.basename(os.path.abspath(path))
        # its directory as given: a relative path stays relative ('.', '..', a glob
        # in the current directory: '.'); 'sub/.' is 'sub', in '.'
        if os.path.isabs(path):
            parent = os.path.dirname(os.path.abspath(path))
        else:
            head, tail = os.path.split(os.path.normpath(path))
            parent = "" if tail in (".", "..") else head
    stem, _suffix = os.path.splitext(name)
    return {
        "stem": stem or name,
        "name": name,
        "parent": parent or ".",
        "member": member or "",
        "index": index,
    }


def _check_template(template: str) -> None:
    """A usage error for malformed braces or a placeholder that is not in OUTPUT_FIELDS."""
    import string  # only when there is a template

    known = ", ".join("{" + k + "}" for k in OUTPUT_FIELDS)
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise UsageError(
            f"-o {template!r}: {exc} (placeholders: {known}; write {{{{ and }}}} for a literal brace)"
        ) from None
    for _literal, field, _spec, conversion in parsed:
        if field is None:
            continue
        if conversion is not None:
            raise UsageError(
                f"-o {template!r}: {{{field}!{conversion}}}: a conversion (!{conversion}) is not "
                f"supported (placeholders: {known}; a format spec such as {{index:04d}} is)"
            )
        if field not in OUTPUT_FIELDS:
            raise UsageError(
                f"-o {template!r}: unknown placeholder {{{field}}} (placeholders: {known}; "
                "write {{ and }} for a literal brace)"
            )


_PATH_MAX = 4096  # Linux's limit on a path's length


def single_output(output: str) -> str:
    """``-o`` of a command with one result (mean): a placeholder is a usage error, as
    there are no FILEs to fill it from; ``{{`` and ``}}`` are literal braces.

    Raises:
        UsageError: a placeholder, or a lone brace.
    """
    if not is_template(output):
        return output
    import string

    try:
        parsed = list(string.Formatter().parse(output))
    except ValueError as exc:
        raise UsageError(f"-o {output!r}: {exc} (write {{{{ and }}}} for a literal brace)") from None
    for _literal, field, _spec, _conversion in parsed:
        if field is not None:
            raise UsageError(
                f"-o {output!r}: {{{field}}}: mean writes one result, so -o names one file "
                "(placeholders fill in names for reduce-mean's FILEs; write {{ and }} for a literal brace)"
            )
    return "".join(literal for literal, _field, _spec, _conversion in parsed)


def output_paths(files: Sequence[str], output: str | None) -> list[str | None]:
    """Each input's output path: None (the result is shown) when ``output`` is None.

    Raises:
        UsageError: ``-o -`` or an ``-o`` without a placeholder with several
            FILEs; a malformed template, or one whose format specs give a
            name with a NUL or longer than a path can be; an ``.npz`` output
            (meancli writes none); two inputs whose outputs are one file;
            an output that is another input (it would be replaced before it
            is read). An output may be its own input, as with one FILE.
            What is at an output path is checked per file (check_output_target).
    """
    from ..io.registry import check_output_format

    if output is None:
        return [None] * len(files)
    if output == "-" and len(files) > 1:
        raise UsageError(
            f"-o - (stdout) holds one result, and {len(files)} FILEs were given; "
            "use a template such as -o 'out/{stem}.npy'"
        )
    if not is_template(output):
        if len(files) > 1:
            raise UsageError(
                f"-o {output!r} names one file for {len(files)} FILEs; "
                "use a placeholder such as -o 'out/{stem}.npy' (see --help)"
            )
        check_output_format(output, output)
        return [output]
    _check_template(output)
    try:
        named = [output.format(**fields_of(f, i)) for i, f in enumerate(files)]
    except (ValueError, TypeError, OverflowError, MemoryError) as exc:  # a spec that does not fit: {stem:03d}
        raise UsageError(f"-o {output!r}: {str(exc) or 'the name does not fit in memory'}") from None
    for path in named:
        if "\0" in path or len(path) > _PATH_MAX:
            what = "a NUL character" if "\0" in path else f"more than {_PATH_MAX} characters"
            raise UsageError(f"-o {output!r}: a format spec gives a file name with {what}")
        check_output_format(output, path)
    seen: dict[str, int] = {}
    from ..io.messages import split_member

    inputs = {os.path.realpath(split_member(f)[0]): i for i, f in enumerate(files) if f != "-"}
    for i, path in enumerate(named):
        if path in ("", "-"):
            raise UsageError(f"-o {output!r} gives {path!r} for {files[i]}; a template names files")
        key = os.path.realpath(path)
        if key in seen:
            j = seen[key]
            raise UsageError(
                f"-o {output!r}: {files[j]} and {files[i]} would both be written to {path}; "
                "add a placeholder that tells them apart, such as {index} or {parent}"
            )
        seen[key] = i
        source = inputs.get(key)
        if source is not None and source != i:
            raise UsageError(
                f"-o {output!r}: the output of {files[i]} would replace the input {files[source]}"
            )
    paths: list[str | None] = list(named)
    return paths


def _status_of(exc: BaseException) -> int:
    from ..io.messages import explained_os_error

    exc = explained_os_error(exc) or exc
    if isinstance(exc, MeancliError):
        return int(exc.exit_code)
    if isinstance(exc, MemoryError):
        return EXIT_INPUT
    return EXIT_INTERNAL


def _message_of(exc: BaseException, file: str, debug: bool) -> str:
    """One line naming ``file`` (unless the message already begins with it), escaped
    as every error line is (io.messages.one_line)."""
    from ..io.messages import explained_os_error, naming_input, one_line
    from ..io.registry import input_location

    exc = explained_os_error(exc) or exc
    if isinstance(exc, MeancliError):
        text = str(exc)
    elif isinstance(exc, MemoryError):
        text = OUT_OF_MEMORY
    else:
        text = (
            f"internal error: {type(exc).__name__}: {exc} -- this is a bug in meancli; please report it"
            + ("" if debug else " (run with --debug for the traceback)")
        )
    return naming_input(one_line(text), file, within=None if file == "-" else input_location(file)[0])


def _emit_file_error(exc: BaseException, file: str, message: str, *, json_mode: bool) -> None:
    if json_mode:
        import json

        kind = (
            exc.kind
            if isinstance(exc, MeancliError)
            else ("input" if isinstance(exc, MemoryError) else "internal")
        )
        sys.stderr.write(json.dumps({"error": message, "kind": kind, "path": file}) + "\n")
    else:
        sys.stderr.write(f"error: {message}\n")
    sys.stderr.flush()


def run_many(
    files: Sequence[str],
    outputs: Sequence[str | None],
    run_one: Callable[[str, str | None], None],
    *,
    keep_going: bool,
    json_mode: bool,
    quiet: bool,
    debug: bool,
    storage_options: dict[str, Any] | None = None,
    noun: str = "files",
) -> int:
    """Run ``run_one(file, output_path)`` for every FILE in order; returns the exit status.
    ``storage_options``: for output URLs (--storage-option), checked as files are.
    ``noun``: what the closing line counts (``"files"``, check-onnx's ``"DIRs"``).

    ``outputs`` are output_paths(files, template), checked by the caller.
    ``run_one`` does one file's whole run (read, validate, kernel, write,
    report) and raises what a one-file run raises; the error is reported
    here, naming the file. KeyboardInterrupt and BrokenPipeError end the
    whole run (the command's session reports them); outputs already written
    stay, each complete (they are written atomically).

    An output target that may not be replaced (check_output_target) is, without
    ``keep_going``, refused before any file is read, as with one FILE; with it,
    that file fails (reported, counted) and the others run.

    Raises:
        OutputFileError: without ``keep_going``, a refused output target.
    """
    from ..io.registry import check_output_target

    if not keep_going:
        for out in outputs:
            check_output_target(out, storage_options)
    if not gc.isenabled():  # off for start-up (see entry.py): a long run collects its cycles
        gc.freeze()  # what start-up made stays; collections skip it
        gc.enable()
    failed: list[str] = []
    status = 0
    done = 0
    for i, (file, out) in enumerate(zip(files, outputs, strict=True)):
        try:
            check_output_target(
                out, storage_options
            )  # (again: it may have changed since, by an earlier file's run too)
            run_one(file, out)
        except (KeyboardInterrupt, BrokenPipeError, typer.Exit):
            raise
        except Exception as exc:  # MeancliError, MemoryError, or a bug: this file failed
            if debug and not isinstance(exc, MeancliError):
                import traceback

                traceback.print_exc()
            _emit_file_error(exc, file, _message_of(exc, file, debug), json_mode=json_mode)
            failed.append(file)
            status = max(status, _status_of(exc))
            if not keep_going:
                not_run = len(files) - i - 1
                _summary(
                    len(files), done, failed, not_run, status, json_mode=json_mode, quiet=quiet, noun=noun
                )
                return status
            continue
        done += 1
    _summary(len(files), done, failed, 0, status, json_mode=json_mode, quiet=quiet, noun=noun)
    return status


def _summary(
    total: int,
    done: int,
    failed: list[str],
    not_run: int,
    status: int,
    *,
    json_mode: bool,
    quiet: bool,
    noun: str = "files",
) -> None:
    """The closing line of several FILEs: an error line when a file failed,
    else (not quiet, not --json) the count done."""
    if total == 1:  # the file's own error line says it all
        return
    if not failed:
        if not (quiet or json_mode) and total > 1:
            sys.stdout.write(f"{done} of {total} {noun} done\n")
            sys.stdout.flush()
        return
    from ..io.messages import shown_input

    listed = ", ".join(shown_input(f) for f in failed[:10])
    if len(failed) > 10:
        listed += f", and {len(failed) - 10} more"
    text = f"{len(failed)} of {total} {noun} failed ({listed}); {done} done"
    if not_run:
        text += f", {not_run} not run (stopped at the first failure; --keep-going runs the others)"
    if json_mode:
        import json

        sys.stderr.write(
            json.dumps({"error": text, "kind": KIND_OF_STATUS.get(status, "internal"), "failed": failed})
            + "\n"
        )
    else:
        sys.stderr.write(f"error: {text}\n")
    sys.stderr.flush()
