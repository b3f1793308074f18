"""Rank-0 (scalar) tensors through every path that hands arrays on: the runtimes
(--runtime), check-model, the printed and JSON result of bfloat16, and
meancli.compare. np.ascontiguousarray made them shape (1,): the runtimes got another
shape than the node's (false BEYOND rows, OpenVINO refusing its input), a bfloat16
scalar was printed as a list. ``make lint`` bans np.ascontiguousarray in meancli."""

from __future__ import annotations

import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from conftest import run_cli

import meancli

RUNTIMES = ["onnxruntime", "openvino", "onnx-reference"]


def installed(name: str) -> bool:
    module = {"onnxruntime": "onnxruntime", "openvino": "openvino", "onnx-reference": "onnx"}[name]
    try:
        __import__(module)
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_scalar_on_each_runtime_is_within_0(runtime: str, tmp_path: Path) -> None:
    if not installed(runtime):
        pytest.skip(f"{runtime} is not installed")
    np.save(tmp_path / "r0.npy", np.float32(2.5))
    for argv in (["reduce-mean", "r0.npy"], ["mean", "r0.npy", "r0.npy"]):
        run = run_cli(*argv, "--runtime", runtime, "--json", cwd=tmp_path)
        assert run.exit_code == 0, run.stdout + run.stderr
        (row,) = json.loads(run.stdout)["comparisons"]
        assert row["total"] == 1 and row["max_ulp"] == 0 and row["worst"]["index"] == [], row


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_check_model_with_a_scalar_node(runtime: str, tmp_path: Path) -> None:
    if not installed(runtime):
        pytest.skip(f"{runtime} is not installed")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [])
    graph = helper.make_graph([helper.make_node("ReduceMean", ["x"], ["y"], name="rm")], "g", [x], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), tmp_path / "m.onnx")
    np.save(tmp_path / "r0.npy", np.float32(2.5))
    run = run_cli("check-model", "m.onnx", "-i", "x=r0.npy", "--runtime", runtime, "--json", cwd=tmp_path)
    assert run.exit_code == 0, run.stdout + run.stderr
    assert "(1,)" not in run.stdout and '"shape": []' in run.stdout.replace("\n", "").replace("  ", " ")


def test_a_bfloat16_scalar_is_shown_as_a_scalar(tmp_path: Path) -> None:
    np.save(tmp_path / "b.npy", np.array(1.5, ml_dtypes.bfloat16))
    run = run_cli("reduce-mean", "b.npy", "--json", cwd=tmp_path)
    assert run.exit_code == 0, run.stderr
    report = json.loads(run.stdout)
    assert report["output"]["shape"] == [] and report["result"] == 1.5
    run = run_cli("mean", "b.npy", "b.npy", cwd=tmp_path)
    assert run.exit_code == 0 and run.stdout.strip().splitlines()[-1] == "1.5", run.stdout


def test_compare_keeps_a_scalar_a_scalar() -> None:
    c = meancli.compare(np.float32(1), np.nextafter(np.float32(1), np.float32(2)))
    assert (c.total, c.max_ulp, c.worst.at if c.worst else None) == (1, 1, ())
