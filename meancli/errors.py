"""The one exception family meancli raises, and the exit status each maps to.

The command line catches :class:`MeancliError` at its boundary and prints
``error: <message>`` on one line with ``exit_code``; anything else that escapes
is a bug and exits with :data:`EXIT_INTERNAL`.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_INPUT = 1  # the input is not acceptable: unreadable/malformed file, spec violation, I/O failure
# The command line itself is wrong, whatever the inputs hold (what Typer/click use for an
# unknown option or a malformed value): decided before any input is read.
EXIT_USAGE = 2
EXIT_INTERNAL = 3  # a bug in meancli
# --compare / check-onnx: the run succeeded, and some element of the compared result is
# farther from the correctly rounded one than --max-ulp allows (meancli's own check).
EXIT_MISMATCH = 4


class MeancliError(Exception):
    """Base class of every error meancli reports to its user.

    Attributes:
        exit_code: the process exit status the CLI uses for this error.
        kind: a short machine-readable name (used by ``--json`` error objects).
    """

    exit_code = EXIT_INPUT
    kind = "error"


class InputFileError(MeancliError):
    """A file cannot be read or is not a valid ``.npy`` (OutputFileError: one cannot be written)."""

    kind = "input"


class OutputFileError(InputFileError):
    """An output cannot be written, or is refused before the run (its directory
    is missing, it would replace what is not an earlier result). Exit status 1,
    as an input file error."""

    kind = "output"


class NotEnoughMemory(InputFileError, MemoryError):
    """An input's copy or a result does not fit in memory: a property of the input
    (exit status 1, the file named), and a MemoryError for Python callers."""


# what the command line says of a MemoryError raised anywhere else
OUT_OF_MEMORY = "the input or its result does not fit in memory"


class UnsupportedDtypeFile(InputFileError):
    """A file holds a dtype no operator takes and that cannot even be read
    safely (object, structured, variable-size strings)."""


class SpecViolation(MeancliError, ValueError):
    """The inputs or attributes break the selected operator version's spec
    (a dtype it does not allow, an axis out of range, shapes that do not
    broadcast, an option the version does not have, ...)."""

    kind = "spec"


class OpsetError(MeancliError, ValueError):
    """No operator version matches the requested opset/domain (``--opset openvino:1``
    for Mean) or version name (``spec show Mean-99``): a usage error, exit status 2."""

    exit_code = EXIT_USAGE
    kind = "opset"


class UsageError(MeancliError, ValueError):
    """A mistake in the command line, found before any input is read (exit status 2, as
    Typer uses): a malformed option value (``--opset foo:3``), options that cannot go
    together, an option the selected version lacks or requires, ``-`` on a terminal."""

    exit_code = EXIT_USAGE
    kind = "usage"


class KernelBuildError(MeancliError):
    """The compiled kernel module is missing or was built from other sources."""

    exit_code = EXIT_INTERNAL
    kind = "build"


class InternalError(MeancliError):
    """A kernel reported a condition that validation should have excluded."""

    exit_code = EXIT_INTERNAL
    kind = "internal"


class ClusterError(MeancliError):
    """A dask cluster that cannot be started or reached, or that lost the run
    (a scheduler address that does not answer within --timeout, no workers)."""

    kind = "cluster"


def extra_hint(extra: str) -> str:
    """How to install meancli's optional ``extra`` (``dask``, ``onnx``: a name of
    pyproject.toml's ``[project.optional-dependencies]``), for the one-line error
    of a feature that needs it: ``install the dask extra with: COMMAND``.

    COMMAND installs into the Python running meancli (``sys.executable -m pip``),
    from the source tree meancli runs from or was installed from
    (``pip install -e '/path/to/meancli[dask]'``; meancli is on no package index,
    so ``pip install 'meancli[dask]'`` finds nothing), else the extra's packages
    themselves, as the installed metadata lists them.
    """
    return f"install the {extra} extra with: {install_command(extra)}"


def install_command(extra: str) -> str:
    """The shell command of :func:`extra_hint`, quoted for a POSIX shell."""
    import shlex
    import sys

    pip = f"{shlex.quote(sys.executable or 'python3')} -m pip install"
    found = _source_tree()
    if found is not None:
        path, editable = found
        return f"{pip} {'-e ' if editable else ''}{shlex.quote(f'{path}[{extra}]')}"
    requirements = _extra_requirements(extra)
    if requirements:
        return f"{pip} {' '.join(shlex.quote(r) for r in requirements)}"
    return f"pip install -e '.[{extra}]' in the meancli source tree"


def _source_tree() -> tuple[str, bool] | None:
    """The meancli source tree this code runs from (an editable install, or PYTHONPATH)
    -> (its path, True); else the one a regular install was made from -> (its path, False);
    else None."""
    running = _running_tree()
    return (running, True) if running is not None else _recorded_tree()


def _running_tree() -> str | None:
    """The source tree this package is (pyproject.toml and setup.py beside it), or None."""
    import os

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if all(os.path.isfile(os.path.join(root, name)) for name in ("pyproject.toml", "setup.py")):
        return root
    return None


def _recorded_tree() -> tuple[str, bool] | None:
    """The directory pip installed meancli from, as it recorded it (PEP 610
    ``direct_url.json``), and whether the install is editable; None when it came from a
    wheel or an index, or the directory is gone."""
    import json
    import os
    from importlib import metadata
    from urllib.parse import unquote, urlsplit

    try:
        recorded = json.loads(metadata.distribution("meancli").read_text("direct_url.json") or "null")
        url = urlsplit(recorded["url"])
        path = unquote(url.path)
        if url.scheme == "file" and "dir_info" in recorded and os.path.isdir(path):
            return path, bool(recorded["dir_info"].get("editable"))
    except (metadata.PackageNotFoundError, ValueError, TypeError, KeyError, OSError):
        pass
    return None


def _extra_requirements(extra: str, seen: frozenset[str] = frozenset()) -> list[str]:
    """The packages meancli's installed metadata lists for ``extra`` (its extras that
    name meancli's other extras expanded); [] when meancli's metadata is not found."""
    if extra in seen:
        return []
    import re
    from importlib import metadata

    try:
        listed = metadata.requires("meancli") or []
    except metadata.PackageNotFoundError:
        return []
    out: list[str] = []
    for line in listed:
        requirement, _, marker = line.partition(";")
        named = re.fullmatch(r"""\s*extra\s*==\s*["']([^"']+)["']\s*""", marker)
        if named is None or named.group(1) != extra:
            continue
        requirement = requirement.strip()
        own = re.fullmatch(r"meancli\s*\[([^\]]*)\]", requirement)
        if own is None:
            out.append(requirement)
            continue
        for other in own.group(1).split(","):
            out += [r for r in _extra_requirements(other.strip(), seen | {extra}) if r not in out]
    return out
