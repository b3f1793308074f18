"""``--axes 2 3``: an option with several values, which click does not parse.

Before click sees the arguments, every run of integer tokens after ``--axes``
is rewritten to ``--axes=2 --axes=3``; ``--axes=`` (explicitly empty) and
``--axes=2,3`` pass through. A token that is not an integer list ends the run,
so ``--axes 2 3 x.npy`` works; use ``--`` before a file named like a number.
A list with a stray comma (``--axes 1, 2``, ``--axes 1 ,2``) belongs to the run
too, so that parse_axes says what is wrong with it instead of ``2`` or ``,2``
being taken for a FILE.
"""

from __future__ import annotations

import re

_INTEGER = re.compile(r"[-+]?[0-9]+")  # one axis, as --axes writes it (ASCII digits only)


def _is_int_list(token: str) -> bool:
    """``2``, ``-1``, ``2,3``, `` 2 , 3 ``: comma-separated integers."""
    return all(_INTEGER.fullmatch(part.strip()) for part in token.split(","))


def _is_axes_like(token: str) -> bool:
    """An integer list, or one with a stray comma: ``1,``, ``,2``, ``,``, ``1,,2``."""
    parts = [part.strip() for part in token.split(",")]
    return all(not part or _INTEGER.fullmatch(part) for part in parts) and (len(parts) > 1 or bool(parts[0]))


def expand_axes(argv: list[str]) -> list[str]:
    """Rewrite ``--axes A B ...`` into one ``--axes=V`` per value (see module doc)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":
            out.extend(argv[i:])
            break
        if token == "--axes":
            j = i + 1
            while j < len(argv) and _is_axes_like(argv[j]):
                out.append("--axes=" + argv[j])
                j += 1
            if j == i + 1:  # no integer follows: let click report or take the value
                out.append(token)
                j = i + 1
            i = j
            continue
        out.append(token)
        i += 1
    return out


def parse_axes(values: list[str] | None) -> list[int] | None:
    """The ``--axes`` option's values as one list of ints; None when not given.

    ``--axes=`` gives []. Raises ValueError with a message for anything that
    is not a comma-separated integer list (``--axes ,`` and ``--axes=0,,2``
    included), and for ``--axes=`` beside listed axes.
    """
    if values is None or len(values) == 0:
        return None
    if values == [""]:
        return []
    if "" in values:
        raise ValueError("--axes=: an explicitly empty list cannot be combined with listed axes")
    axes: list[int] = []
    for value in values:
        if "," in value and not all(part.strip() for part in value.split(",")):
            raise ValueError(
                f"--axes: {value!r} has a comma with no axis beside it; separate axes by spaces "
                "(--axes 1 2) or by commas alone (--axes 1,2)"
            )
        for part in value.split(","):
            part = part.strip()
            if not _INTEGER.fullmatch(part):
                raise ValueError(f"--axes: {part!r} is not an integer")
            number = int(part)
            if not -(2**63) <= number <= 2**63 - 1:
                raise ValueError(f"--axes: {part} is out of the int64 range")
            axes.append(number)
    return axes
