"""The README and docs/: short README, links that resolve, every command and
option documented, and the README's shell examples run as written."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main

from meancli.cli.app import build_app

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
CLI_DOC = ROOT / "docs" / "cli.md"

LINK = re.compile(r"\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```[a-z]*\n(.*?)^```", re.M | re.S)


def slug(heading: str) -> str:
    """GitHub's anchor for a markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def test_readme_is_at_most_300_lines() -> None:
    assert len(README.read_text().splitlines()) <= 300


def test_readme_gives_the_test_commands() -> None:
    """CI (.ci/run) calls the README's test command: `make test` runs every test."""
    lines = README.read_text().splitlines()
    assert any(line.startswith("make test ") and "every test" in line for line in lines)
    assert any(line.startswith("make test-fast ") and "fast tier" in line for line in lines)


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    """Every relative link names a file or directory that exists, and its #anchor a heading there."""
    text = FENCE.sub("", page.read_text())
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: {target}: no such file"
        if anchor:
            assert anchor in anchors(dest), f"{page.name}: {target}: no such heading"


def _commands(cmd: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    subcommands = getattr(cmd, "commands", None)
    if subcommands:
        for name, sub in subcommands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield path, cmd


COMMANDS = list(_commands(typer.main.get_command(build_app())))


def test_the_commands_are_found() -> None:
    names = {" ".join(path) for path, _ in COMMANDS}
    assert {"reduce-mean", "mean", "spec list", "spec show", "spec diff"} <= names


@pytest.mark.parametrize("path,cmd", COMMANDS, ids=[" ".join(path) for path, _ in COMMANDS])
def test_every_command_has_help_and_is_documented(path: tuple[str, ...], cmd: Any) -> None:
    """Each command has help text, appears in an example in docs/cli.md, and
    every long option it takes is named there."""
    assert (cmd.help or "").strip(), f"{' '.join(path)} has no help"
    doc = CLI_DOC.read_text()
    examples = "\n".join(FENCE.findall(doc))
    assert re.search(rf"meancli {re.escape(' '.join(path))}\b", examples), " ".join(path)
    for param in cmd.params:
        for opt in [*param.opts, *param.secondary_opts]:
            if opt.startswith("--") and opt != "--help":
                assert f"`{opt}" in doc or f" {opt}" in doc, f"{' '.join(path)} {opt} is not in docs/cli.md"


def _readme_shell_examples() -> list[str]:
    """The README's `meancli ...` lines that need only the files of examples/."""
    lines = []
    for block in FENCE.findall(README.read_text()):
        for line in block.splitlines():
            if line.startswith("meancli ") and not re.search(r"tensors/|era5|train/|\.zarr", line):
                lines.append(line)
    return lines


@pytest.mark.parametrize("line", _readme_shell_examples())
def test_readme_shell_examples_run(line: str, tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    command = shlex.quote(sys.executable) + " -m meancli" + line[len("meancli") :]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_the_onnx_node_directories_snippet_runs(tmp_path: Path) -> None:
    """docs/cli.md's snippet writes the 11 Mean and ReduceMean node test directories, and
    check-onnx finds them as the text says: one 1 ulp off (exit status 4), all within 1."""
    pytest.importorskip("onnx")
    from conftest import run_cli

    text = CLI_DOC.read_text(encoding="utf-8")
    (code,) = re.findall(r"```python\n(import importlib, pathlib\n.*?)```", text, re.S)
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True, capture_output=True, timeout=120)
    dirs = sorted((tmp_path / "node").iterdir())
    assert len(dirs) == 11 and all((d / "model.onnx").is_file() for d in dirs)
    r = run_cli("check-onnx", *dirs, "--json")
    reports = [json.loads(line) for line in r.stdout.splitlines()]
    off = [report["test_dir"] for report in reports if not report["within"]]
    assert r.exit_code == 4, r.stderr
    assert [Path(d).name for d in off] == ["test_reduce_mean_default_axes_keepdims_random"]
    assert run_cli("check-onnx", *dirs, "--max-ulp", "1", "-q").exit_code == 0
