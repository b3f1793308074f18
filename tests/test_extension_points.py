"""A new input format is one module and one registry line; a new engine one module
and one planner entry: both added here from the test directory, touching no other
meancli module, and used by the command line and the Python API alike."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from toy import csv_format, recording_engine

import meancli
from meancli.cli.app import main
from meancli.engine import plan
from meancli.io import registry


@pytest.fixture
def toy_format(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "INPUTS", (csv_format.FORMAT, *registry.INPUTS))


@pytest.fixture
def toy_engine(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.setattr(plan, "ENGINES", [recording_engine.ENGINE, *plan.ENGINES])
    recording_engine.CALLS.clear()
    return recording_engine.CALLS


def _exact_mean(values: list[float]) -> float:
    return float(sum(Fraction(v) for v in values) / len(values))


def test_a_toy_format_is_read_by_the_cli(
    toy_format: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [[0.1, 0.2, 0.7], [1e16, 1.0, -1e16]]
    path = tmp_path / "t.csv"
    path.write_text("\n".join(",".join(repr(v) for v in r) for r in rows) + "\n")
    assert main(["reduce-mean", str(path), "--axes", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["inputs"] == [{"path": str(path), "shape": [2, 3], "dtype": "float64"}]
    assert report["result"] == [[_exact_mean(rows[0])], [_exact_mean(rows[1])]]


def test_a_toy_engine_runs_cli_and_api_calls(
    toy_engine: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = np.array([[1.0, 2.0], [4.0, 8.0]], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    assert main(["reduce-mean", str(tmp_path / "x.npy"), "--axes", "0", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["engine"] == {"name": "recording"}
    assert report["result"] == [[2.5, 5.0]]  # keepdims: ReduceMean-18's default
    np.testing.assert_array_equal(meancli.mean(x, x[::-1]), np.array([[2.5, 5.0], [2.5, 5.0]], np.float32))
    assert toy_engine == ["reduce ReduceMean-18 (onnx)", "mean Mean-13 (onnx)"]


def test_a_toy_engines_option_is_a_flag_of_the_cli(
    toy_engine: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = np.array([[1.0, 2.0], [4.0, 8.0]], dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    for command in (["reduce-mean", "--axes", "0"], ["mean"]):
        assert main([*command, str(tmp_path / "x.npy"), "--record-as", "toy", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["engine"] == {"name": "toy"}
    assert main(["mean", str(tmp_path / "x.npy"), "--json"]) == 0  # not given: the engine's default
    assert json.loads(capsys.readouterr().out)["engine"] == {"name": "recording"}
    assert main(["mean", str(tmp_path / "x.npy"), "--help"]) == 0
    assert "The name the toy engine reports." in capsys.readouterr().out
