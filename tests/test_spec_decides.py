"""The spec decides: a changed spec field changes behaviour through generation alone.

Each test copies spec/, edits one YAML field, runs the generator into a
temporary directory and runs meancli (API and CLI) on the generated registry
and validators from there, in a fresh process; no Python file is edited.
The oracle for each behaviour is numpy (float64 means) or the rule the
edited field states.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from meancli.errors import SpecViolation
from meancli.ops.rules import attribute_values, broadcast_shapes
from meancli.ops.schema import Attribute

pytest.importorskip("jinja2")
pytest.importorskip("yaml")

from meancli.codegen.model import load_specs
from meancli.codegen.render import render_all

ROOT = Path(__file__).resolve().parents[1]
R13 = "onnx/ReduceMean-13.yaml"
R18 = "onnx/ReduceMean-18.yaml"

# Runs in a fresh interpreter: the package rendered into GEN replaces meancli.generated's
# registry and validators, then RUN (the test's code) prints one JSON value.
PRELUDE = """
import importlib.util, json, sys
import numpy as np

def _load(name, path, package=None):
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=package)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module

import meancli.generated
_load("gen", GEN + "/__init__.py", [GEN])
registry = _load("gen.registry", GEN + "/registry.py")
sys.modules["meancli.generated.registry"] = registry
meancli.generated.registry = registry
import meancli
from meancli.errors import MeancliError

def attempt(f, *args, **kwargs):
    try:
        return {"ok": np.asarray(f(*args, **kwargs)).tolist()}
    except MeancliError as exc:
        return {"error": str(exc)}
"""


def generate(tmp: Path, edits: dict[str, list[tuple[str, str]]], extra: dict[str, str] | None = None) -> Path:
    """Copy spec/ to tmp, apply ``edits`` ({file: [(old, new)]}) and ``extra`` files,
    run the generator into tmp/gen; returns that directory."""
    spec = tmp / "spec"
    shutil.copytree(ROOT / "spec", spec)
    for rel, pairs in edits.items():
        path = spec / rel
        text = path.read_text(encoding="utf-8")
        for old, new in pairs:
            assert old in text, (rel, old)
            text = text.replace(old, new, 1)
        path.write_text(text, encoding="utf-8")
    for rel, text in (extra or {}).items():
        (spec / rel).write_text(text, encoding="utf-8")
    out = tmp / "gen"
    out.mkdir()
    # the generator's own function (what `python -m meancli.codegen` writes), in this process
    for name, text in render_all(load_specs(spec, tmp), ROOT / "templates").items():
        (out / name).write_text(text, encoding="utf-8")
    # No new C: the kernels are the repository's own apart from the banner (which lists
    # the spec files), so the compiled module installed serves them (see PRELUDE).
    for name in ("kernels.c", "kernels_cdef.h"):
        assert _code(out / name) == _code(ROOT / "generated" / name), name
    return out


def _code(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split("*/", 1)[1]  # after the banner comment


def run(gen: Path, code: str) -> Any:
    """Run ``code`` after PRELUDE with ``gen`` as the generated package; its last line's JSON."""
    script = f"GEN = {str(gen)!r}\n" + PRELUDE + textwrap.dedent(code)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env, cwd=gen.parent
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def cli(gen: Path, *argv: str) -> dict[str, Any]:
    """``meancli ARGV`` on the generated package: {"status", "stdout", "stderr"}."""
    code = f"""
    import contextlib, io
    from meancli.cli.entry import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main({list(argv)!r})
    print(json.dumps({{"status": status, "stdout": out.getvalue(), "stderr": err.getvalue()}}))
    """
    result: dict[str, Any] = run(gen, code)
    return result


X = "np.arange(24, dtype=np.float64).reshape(2, 3, 4)"


# ---------------------------------------------------------------------------- axes rules


def test_negative_false_rejects_negative_axes(tmp_path: Path) -> None:
    gen = generate(tmp_path, {R18: [("  negative: true\n", "  negative: false\n")]})
    got = run(
        gen,
        f"""
        x = {X}
        print(json.dumps([
            attempt(meancli.reduce_mean, x, axes=[-1]),
            attempt(meancli.reduce_mean, x, axes=[2]),
            attempt(meancli.reduce_mean, x, axes=[-1], opset=13),
        ]))
        """,
    )
    x = np.arange(24, dtype="float64").reshape(2, 3, 4)
    assert "does not accept negative axes: axis -1 (allowed: 0..2)" in got[0]["error"]
    assert "ReduceMean-18 (onnx)" in got[0]["error"]
    assert got[1]["ok"] == x.mean(axis=2, keepdims=True).tolist()
    assert got[2]["ok"] == x.mean(axis=-1, keepdims=True).tolist()  # ReduceMean-13 unchanged
    shown = cli(gen, "spec", "show", "ReduceMean-18")["stdout"]
    assert "negative axes: rejected (range [0, r-1]" in shown
    diff = cli(gen, "spec", "diff", "ReduceMean-13", "ReduceMean-18")["stdout"]
    assert "- negative axes accepted: true -> false" in diff


def test_duplicates_merge_reduces_a_repeated_axis_once(tmp_path: Path) -> None:
    gen = generate(tmp_path, {R18: [("  duplicates: error\n", "  duplicates: merge\n")]})
    got = run(
        gen,
        f"""
        x = {X}
        print(json.dumps([
            attempt(meancli.reduce_mean, x, axes=[1, -2, 1]),
            attempt(meancli.reduce_mean, x, axes=[1, 1], opset=13),
        ]))
        """,
    )
    x = np.arange(24, dtype="float64").reshape(2, 3, 4)
    assert got[0]["ok"] == x.mean(axis=1, keepdims=True).tolist()
    assert "axis 1 repeats axis 1" in got[1]["error"]  # ReduceMean-13 keeps its rule
    data = tmp_path / "x.npy"
    np.save(data, x)
    result = cli(gen, "reduce-mean", str(data), "--axes", "1", "-2", "--json")
    assert result["status"] == 0, result["stderr"]
    report = json.loads(result["stdout"])
    assert report["attributes"]["axes"] == [1]
    assert report["result"] == x.mean(axis=1, keepdims=True).tolist()


def test_when_empty_identity(tmp_path: Path) -> None:
    gen = generate(tmp_path, {R13: [("  when_empty: reduce_all\n", "  when_empty: identity\n")]})
    got = run(
        gen,
        f"""
        x = {X}
        print(json.dumps([
            attempt(meancli.reduce_mean, x, axes=[], opset=13),
            attempt(meancli.reduce_mean, x, axes=None, opset=13),
            attempt(meancli.reduce_mean, x, axes=[], opset=11),
        ]))
        """,
    )
    x = np.arange(24, dtype="float64").reshape(2, 3, 4)
    assert got[0]["ok"] == x.tolist()  # identity
    assert got[1]["ok"] == x.mean(keepdims=True).tolist()  # when_omitted still reduce_all
    assert got[2]["ok"] == x.mean(keepdims=True).tolist()  # ReduceMean-11 unchanged


def test_when_omitted_error_then_cli_requires_axes(tmp_path: Path) -> None:
    gen = generate(tmp_path, {R18: [("  when_omitted: noop_with_empty_axes\n", "  when_omitted: error\n")]})
    data = tmp_path / "x.npy"
    np.save(data, np.ones((2, 3), "float32"))
    result = cli(gen, "reduce-mean", str(data), "-q", "-o", str(tmp_path / "out.npy"))
    assert result["status"] == 2  # the command line alone decides it: a usage error
    assert "error: ReduceMean-18 (onnx) requires axes" in result["stderr"]


# ---------------------------------------------------------------------------- types


def test_a_type_list_decides_the_accepted_dtypes(tmp_path: Path) -> None:
    gen = generate(
        tmp_path,
        {
            R18: [("allowed: [uint32, uint64,", "allowed: [int8, uint32, uint64,")],
            R13: [("float32, float64, bfloat16]", "float32, bfloat16]")],
        },
    )
    got = run(
        gen,
        """
        x = np.array([[1, 2], [3, -6]], dtype=np.int8)
        f = np.ones((2, 2), dtype=np.float64)
        print(json.dumps([
            attempt(meancli.reduce_mean, x, axes=[1]),
            attempt(meancli.reduce_mean, x, axes=[1], opset=13),
            attempt(meancli.reduce_mean, f, axes=[1], opset=13),
            attempt(meancli.reduce_mean, f, axes=[1], opset=18),
        ]))
        """,
    )
    assert got[0]["ok"] == [[1], [-1]]  # int8 now accepted: exact sum / count, truncated toward zero
    assert "ReduceMean-13 (onnx) does not accept int8" in got[1]["error"]
    assert "ReduceMean-13 (onnx) does not accept float64" in got[2]["error"]
    assert got[3]["ok"] == [[1.0], [1.0]]


# ---------------------------------------------------------------------------- an attribute as data

R99 = "onnx/ReduceMean-99.yaml"
ADDED = """  - name: empty_is_identity
    type: int
    default: 0
    values: [0, 1]
    required: false
    legacy: false
    description: >-
      When set, an explicitly empty axes list returns the input unchanged.
  - name: window
    type: int
    default: 3
    required: false
    legacy: false
    description: A window size.
  - name: tags
    type: ints
    default: null
    required: false
    legacy: false
    description: Some tags.
"""


@pytest.fixture(scope="module")
def with_attribute(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A hypothetical ReduceMean-99: ReduceMean-18 with a new attribute that decides empty axes."""
    tmp = tmp_path_factory.mktemp("attr")
    text = (ROOT / "spec" / R18).read_text(encoding="utf-8")
    text = text.replace("\nsince_version: 18\n", "\nsince_version: 99\n")
    text = text.replace("type_constraints:\n", ADDED + "type_constraints:\n", 1)
    text = text.replace("  when_empty: noop_with_empty_axes\n", "  when_empty: empty_is_identity\n")
    gen = generate(tmp, {}, {R99: text})
    data = tmp / "x.npy"
    np.save(data, np.arange(6, dtype="float32").reshape(2, 3))
    return gen, data


def test_new_attribute_is_an_api_keyword_with_its_validation(with_attribute: tuple[Path, Path]) -> None:
    gen, _ = with_attribute
    got = run(
        gen,
        f"""
        x = {X}
        print(json.dumps([
            attempt(meancli.reduce_mean, x, axes=[], empty_is_identity=1),
            attempt(meancli.reduce_mean, x, axes=[], empty_is_identity=False),
            attempt(meancli.reduce_mean, x, axes=[], empty_is_identity=2),
            attempt(meancli.reduce_mean, x, axes=[], empty_is_identity=1, opset=18),
        ]))
        """,
    )
    x = np.arange(24, dtype="float64").reshape(2, 3, 4)
    assert got[0]["ok"] == x.tolist()
    assert got[1]["ok"] == x.mean(keepdims=True).tolist()
    assert "ReduceMean-99 (onnx): empty_is_identity must be 0, 1, True or False, got 2" in got[2]["error"]
    assert "ReduceMean-18 (onnx) has no attribute empty_is_identity" in got[3]["error"]


def test_new_attribute_is_a_cli_option(with_attribute: tuple[Path, Path]) -> None:
    gen, data = with_attribute
    help_text = cli(gen, "reduce-mean", "--help")["stdout"]
    assert "--empty-is-identity / --no-empty-is-identity" in help_text
    assert "When set, an explicitly empty axes list" in help_text
    assert re.search(r"attribute\s+empty_is_identity\s+of\s+ReduceMean-99\s+\(onnx\)", help_text)
    shown = cli(gen, "reduce-mean", str(data), "--axes=", "--empty-is-identity", "--json")
    assert shown["status"] == 0, shown["stderr"]
    report = json.loads(shown["stdout"])
    assert report["version"] == 99
    assert report["attributes"] == {
        "axes": [],
        "keepdims": 1,
        "noop_with_empty_axes": 0,
        "empty_is_identity": 1,
        "window": 3,
        "tags": None,
    }
    assert report["result"] == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    refused = cli(gen, "reduce-mean", str(data), "--axes=", "--empty-is-identity", "--opset", "18", "-q")
    assert refused["status"] == 2  # the command line alone decides it: a usage error
    assert "--empty-is-identity: ReduceMean-18 (onnx) has no attribute empty_is_identity" in refused["stderr"]
    assert "--window N" in help_text and "--tags N" in help_text
    given = cli(
        gen, "reduce-mean", str(data), "--axes", "0", "--window", "5", "--tags", "1", "--tags", "-2", "--json"
    )
    assert given["status"] == 0, given["stderr"]
    assert json.loads(given["stdout"])["attributes"]["window"] == 5
    assert json.loads(given["stdout"])["attributes"]["tags"] == [1, -2]
    bad = cli(gen, "reduce-mean", str(data), "--axes", "0", "--window", "x")
    assert bad["status"] == 2 and "--window" in bad["stderr"]
    mean_help = cli(gen, "mean", "--help")["stdout"]
    assert "--empty-is-identity" not in mean_help  # an attribute of ReduceMean only


def test_new_attribute_has_its_spec_diff_line(with_attribute: tuple[Path, Path]) -> None:
    gen, _ = with_attribute
    diff = cli(gen, "spec", "diff", "ReduceMean-18", "ReduceMean-99")["stdout"]
    assert "- attribute added: empty_is_identity: int, default 0, optional, values [0, 1]" in diff
    assert "- empty axes: noop_with_empty_axes decides" in diff
    assert "-> empty_is_identity decides" in diff
    shown = cli(gen, "spec", "show", "ReduceMean-99", "--json")["stdout"]
    attrs = {a["name"]: a for a in json.loads(shown)["attributes"]}
    assert attrs["empty_is_identity"]["values"] == [0, 1]


# ---------------------------------------------------------------------------- bad specs fail at generation


def _generation_error(tmp: Path, rel: str, old: str, new: str) -> str:
    spec = tmp / "spec"
    shutil.copytree(ROOT / "spec", spec)
    path = spec / rel
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "meancli.codegen", "--spec-dir", str(spec), "--out", str(tmp / "gen")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert not (tmp / "gen").exists()
    (line,) = proc.stderr.splitlines()
    return line


def test_unknown_dtype_fails_at_generation_with_file_and_line(tmp_path: Path) -> None:
    line = _generation_error(tmp_path, R18, "allowed: [uint32,", "allowed: [complex64, uint32,")
    number = next(
        n
        for n, text in enumerate((tmp_path / "spec" / R18).read_text().splitlines(), 1)
        if "complex64" in text
    )
    assert line.startswith(f"error: spec/{R18}:{number}: ")
    assert "unknown type 'complex64'" in line


def test_axes_rule_naming_no_flag_attribute_fails(tmp_path: Path) -> None:
    line = _generation_error(
        tmp_path, R13, "  when_empty: reduce_all\n", "  when_empty: noop_with_empty_axes\n"
    )
    assert re.match(rf"error: .*{re.escape(R13)}:\d+: axes rule 'noop_with_empty_axes'", line)


def test_unknown_duplicates_rule_fails(tmp_path: Path) -> None:
    line = _generation_error(tmp_path, R18, "  duplicates: error\n", "  duplicates: ignore\n")
    assert "duplicates" in line and "ignore" in line


# ---------------------------------------------------------------------------- attribute values by spec type

FLAG = Attribute("flag", "int", 0, False, False, "", (0, 1))
SWITCH = Attribute("switch", "bool", False, False, False, "")
MODE = Attribute("mode", "int", 2, False, False, "", (1, 2, 3))
COUNT = Attribute("count", "int", None, True, False, "")
SIZES = Attribute("sizes", "ints", [1, 2], False, False, "")
ALL = (FLAG, SWITCH, MODE, COUNT, SIZES)


def test_attribute_values_take_the_spec_types_and_defaults() -> None:
    got = attribute_values({"count": 7}, ALL, "Op-1")
    assert got == {"flag": 0, "switch": False, "mode": 2, "count": 7, "sizes": (1, 2)}
    given = {"flag": True, "switch": 1, "mode": np.int64(3), "count": 0, "sizes": [4, -1]}
    got = attribute_values(given, ALL, "Op-1")
    assert got == {"flag": 1, "switch": True, "mode": 3, "count": 0, "sizes": (4, -1)}
    assert type(got["flag"]) is int and type(got["switch"]) is bool


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"count": 1, "flag": 2}, "Op-1: flag must be 0, 1, True or False, got 2"),
        ({"count": 1, "mode": 4}, "Op-1: mode must be 1, 2, 3, got 4"),
        ({"count": True}, "Op-1: count must be an integer, got True"),
        ({"count": 1, "sizes": [1, "2"]}, "Op-1: sizes must be a list of integers"),
        ({"count": 1, "sizes": "12"}, "Op-1: sizes must be a list of integers"),
        ({}, "Op-1 requires the attribute count"),
        (
            {"count": 1, "other": 0},
            "Op-1 has no attribute other (its attributes: flag, switch, mode, count, sizes)",
        ),
    ],
)
def test_attribute_values_refuse_what_the_spec_does_not_allow(given: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecViolation) as info:
        attribute_values(given, ALL, "Op-1")
    assert str(info.value).startswith(message)


def test_a_legacy_attribute_is_refused_as_legacy() -> None:
    """Mean-1's consumed_inputs is in its spec but has no effect: refused, and said so."""
    import meancli

    with pytest.raises(SpecViolation, match=r"consumed_inputs is legacy, with no effect"):
        meancli.mean(np.ones(3, np.float32), consumed_inputs=[1], opset=1)
    with pytest.raises(SpecViolation, match=r"has no attribute consumed_inputs"):
        meancli.mean(np.ones(3, np.float32), consumed_inputs=[1], opset=13)


@pytest.mark.parametrize(
    ("shapes", "named"),
    [
        ([(3, 4), (2, 3)], "dimensions -2, -1"),  # numpy's rule meets -1 first: both named
        ([(3, 4), (4,), (2, 1)], "dimension -2"),
        ([(5, 1, 3), (4, 3), (5, 4, 2)], "dimension -1"),
    ],
)
def test_broadcasting_names_every_dimension_that_clashes(shapes: list[tuple[int, ...]], named: str) -> None:
    """Multidirectional broadcasting's error names each dimension whose sizes differ
    with neither 1, counted from the last (before, only the first met from the left)."""
    with pytest.raises(SpecViolation, match=rf"do not broadcast \({named}\)$"):
        broadcast_shapes(shapes, "Mean-13 (onnx)")
    assert (
        broadcast_shapes([(3, 1), (1, 4), (4,)], "Mean-13 (onnx)")
        == (3, 4)
        == np.broadcast_shapes((3, 1), (1, 4))
    )
