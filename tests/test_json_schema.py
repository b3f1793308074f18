"""--json output and --json errors match the schemas kept in docs/schema/."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from conftest import Result, run_cli

ROOT = Path(__file__).resolve().parents[1]
REPORT = json.loads((ROOT / "docs/schema/report.schema.json").read_text())
ERROR = json.loads((ROOT / "docs/schema/error.schema.json").read_text())


def run(*args: str, cwd: Path) -> Result:
    return run_cli(*args, cwd=cwd)


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", np.ones(4, dtype=np.float32))
    np.save(tmp_path / "i.npy", np.arange(6, dtype=np.int64).reshape(2, 3))
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ("reduce-mean", "x.npy", "--axes", "1", "--json"),
        ("reduce-mean", "x.npy", "--axes", "1", "--json", "--repeat", "3", "-o", "out.npy"),
        ("reduce-mean", "x.npy", "--axes=", "--opset", "openvino:1", "--json"),
        ("reduce-mean", "i.npy", "--json", "--noop-with-empty-axes"),
        ("mean", "x.npy", "y.npy", "--json"),
        ("mean", "x.npy", "y.npy", "--json", "-o", "out.npy"),
        ("mean", "x.npy", "--json", "--compare", "x.npy"),  # Mean of one input: x itself, exact
    ],
)
def test_report_matches_schema(files: Path, args: tuple[str, ...]) -> None:
    proc = run(*args, cwd=files)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    jsonschema.validate(report, REPORT)
    x = np.load(files / args[1])
    assert report["inputs"][0] == {"path": args[1], "shape": list(x.shape), "dtype": x.dtype.name}
    if "-o" in args:
        out = np.load(files / "out.npy")
        assert report["output"] == {"path": "out.npy", "shape": list(out.shape), "dtype": out.dtype.name}
    else:
        assert np.asarray(report["result"]).shape == tuple(report["output"]["shape"])


def test_report_goes_to_stderr_when_data_goes_to_stdout(files: Path) -> None:
    proc = run("reduce-mean", "x.npy", "--axes", "2", "--json", "-o", "-", cwd=files)
    assert proc.returncode == 0
    jsonschema.validate(json.loads(proc.stderr), REPORT)
    assert proc.stdout_bytes.startswith(b"\x93NUMPY")


@pytest.mark.parametrize(
    ("args", "code", "kind"),
    [
        (("reduce-mean", "x.npy", "--axes", "7", "--json"), 1, "spec"),
        (("reduce-mean", "missing.npy", "--json"), 1, "input"),
        (("mean", "x.npy", "--opset", "openvino:1", "--json"), 2, "opset"),
        (("reduce-mean", "x.npy", "--noop-with-empty-axes", "--opset", "13", "--json"), 2, "usage"),
        (("reduce-mean", "x.npy", "--opset", "foo:3", "--json"), 2, "usage"),
        (("reduce-mean", "x.npy", "--bogus", "--json"), 2, "usage"),
        (("reduce-mean", "x.npy", "--axes", "x", "--json"), 2, "usage"),
    ],
)
def test_errors_match_schema(files: Path, args: tuple[str, ...], code: int, kind: str) -> None:
    proc = run(*args, cwd=files)
    assert proc.returncode == code
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    error = json.loads(lines[0])
    jsonschema.validate(error, ERROR)
    assert error["kind"] == kind


@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_json_result_reads_back_as_the_exact_result(tmp_path: Path, name: str) -> None:
    """A JSON reader parses numbers as doubles: each value must be the double that
    equals the result value (float16 65504 is not 65500.0, its own shortest form)."""
    import ml_dtypes

    dtype = np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
    top = float(ml_dtypes.finfo(dtype).max)
    x = np.array([top, 0.1, 1 / 3, -2.5e-3, 1e-5, -0.0, 6e-8, 7.0], dtype=np.float64).astype(dtype)
    np.save(tmp_path / "x.npy", x)
    for args in (["reduce-mean", "x.npy", "--axes=", "--noop-with-empty-axes"], ["mean", "x.npy", "x.npy"]):
        proc = run(*args, "--json", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout)["result"]
        assert [float(v).hex() for v in got] == [float(v).hex() for v in x.astype(np.float64)]
        assert got[0] == top  # the largest finite value, exactly (65504.0 for float16)
