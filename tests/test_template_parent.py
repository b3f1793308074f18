"""``{parent}`` in an ``-o`` template is the input's directory as given, ``.`` when the
name has none (README, "Many files in one process"): never an absolute path made up
for a relative input (``.``, a glob in the current directory, ``sub/.``).

The command runs in subprocesses in a directory of its own, as a user runs it; each
case checks where the output file lands and that it holds the exact mean.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from oracles import assert_float_close, exact_reduce_mean

from meancli.cli.batch import fields_of

MEANCLI = [sys.executable, "-m", "meancli"]


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"}
    return subprocess.run(
        [*MEANCLI, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """tmp/work/{a,b,x}.npy and tmp/work/sub/x.npy (float32, 2 x 3 each); runs start in tmp/work."""
    rng = np.random.default_rng(6)
    (tmp_path / "work" / "sub").mkdir(parents=True)
    for name in ("a.npy", "b.npy", "x.npy", "sub/x.npy"):
        np.save(tmp_path / "work" / name, rng.standard_normal((2, 3)).astype(np.float32))
    return tmp_path / "work"


@pytest.mark.parametrize(
    ("file", "written"),
    [
        ("x.npy", "x_m.npy"),
        ("./x.npy", "x_m.npy"),
        ("sub/x.npy", "sub/x_m.npy"),
        ("./sub/x.npy", "sub/x_m.npy"),
    ],
)
def test_parent_of_a_file_is_its_directory_as_given(work: Path, file: str, written: str) -> None:
    before = files_under(work.parent)
    ran = run(["reduce-mean", file, "--axes", "0", "-o", "{parent}/{stem}_m.npy", "-q"], work)
    assert ran.returncode == 0, ran.stderr
    assert files_under(work.parent) - before == {f"work/{written}"}
    want = exact_reduce_mean(np.load(work / file), [0], keepdims=True)
    assert_float_close(np.load(work / written), want, context=file)


@pytest.mark.slow  # real processes: ~2 s each
@pytest.mark.parametrize(("file", "name"), [("*.npy", "work"), (".", "work"), ("sub/.", "sub")])
def test_parent_of_a_directory_or_glob_here_is_dot(work: Path, file: str, name: str) -> None:
    """A shard dataset named by a glob in the current directory, or by '.': the result
    lands in the current directory (it used to go to the absolute parent of it)."""
    pytest.importorskip("dask")
    (work / "sub" / "x.npy").unlink()  # sub/. holds two shards of the same trailing shape
    np.save(work / "sub" / "p0.npy", np.load(work / "a.npy"))
    np.save(work / "sub" / "p1.npy", np.load(work / "b.npy"))
    shards = sorted((work / ("sub" if file == "sub/." else "")).glob("*.npy"))
    whole = np.concatenate([np.load(p) for p in shards])
    before = files_under(work.parent)
    ran = run(["reduce-mean", file, "-o", "{parent}/{stem}_m.npy", "-q"], work)
    assert ran.returncode == 0, ran.stderr
    assert files_under(work.parent) - before == {f"work/{name}_m.npy"}
    want = exact_reduce_mean(whole, None, keepdims=True)
    assert_float_close(np.load(work / f"{name}_m.npy"), want, context=file)


def test_fields_of_relative_and_absolute_directories(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(work)
    for file in (".", "..", "*.npy", "./*.npy", "sub/..", "../work"):
        parent = fields_of(file, 0)["parent"]
        assert not os.path.isabs(parent), (file, parent)
    assert fields_of(".", 0)["parent"] == "."
    assert fields_of("*.npy", 0)["stem"] == "work"
    assert fields_of("sub/.", 0)["parent"] == "."
    assert fields_of("sub/.", 0)["stem"] == "sub"
    assert fields_of("../work", 0)["parent"] == ".."
    assert fields_of(str(work) + "/.", 0)["parent"] == str(work.parent)  # absolute stays absolute
    assert fields_of(str(work) + "/.", 0)["name"] == "work"
