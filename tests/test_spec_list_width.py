"""``meancli spec list`` on a terminal of 80 and of 200 columns: every cell whole (no word
split across lines), every line within the width."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from meancli.cli.spec_prose import opsets_words
from meancli.ops.opset import opset_range, registry

OPS = registry()  # every operator version, in registry order


@pytest.mark.parametrize("columns", [80, 200])
def test_spec_list_cells_are_whole(columns: int) -> None:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "meancli", "spec", "list"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert all(len(line) <= columns for line in lines), lines
    assert lines[0].split() == ["domain", "version", "opsets", "broadcasting", "axes", "types"]
    # a row: its first line (starting with the domain), then lines of more types
    rows: list[list[str]] = []
    for line in lines[1:-1]:
        if line[:1].strip():
            rows.append(line.split())
        else:
            rows[-1] += line.split()
    assert lines[-1].startswith(f"{len(OPS)} operator versions")
    assert len(rows) == len(OPS)
    for words, op in zip(rows, OPS, strict=True):
        fixed = [
            op.domain,
            op.key,
            opsets_words(*opset_range(op, OPS)),
            op.broadcasting,
            op.axes.source if op.axes else "-",
        ]
        assert words[:5] == fixed, words
        assert " ".join(words[5:]) == ", ".join(op.types), words  # each type whole, in order
    if columns >= 200:  # room for every row on one line
        assert len(lines) == len(OPS) + 2
