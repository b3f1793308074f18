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
