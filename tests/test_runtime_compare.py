"""--runtime NAME on reduce-mean and mean: each runtime's output compared with the
correctly rounded result, one row (and one JSON ``comparisons`` entry) per runtime.

Two kinds of test:
- the plumbing with KNOWN distances: the runtime call (meancli.engine.runtimes.run_node)
  is replaced by one returning the correctly rounded result stepped by known numbers of
  representable values (every float dtype, ±0, inf, NaN, every integer type), or
  refusing, or returning another shape; the result is the identity of the input
  (OpenVINO ReduceMean-1 with empty axes; Mean of one input), so the exact values are
  the input's own;
- the real runtimes (onnxruntime, OpenVINO, the onnx reference), each skipped with a
  reason only when its package is absent: the reported distances equal the ones the
  tests compute themselves from the runtime's output (run here through tests/oracles.py)
  and the exact oracle (tests/oracles.py).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from conftest import run_cli
from oracles import (
    Case,
    NoKernel,
    exact_mean,
    exact_reduce_mean,
    run_onnxruntime,
    run_openvino,
    run_reference,
    ulp_distance,
)
from test_compare import FLOATS, step, validate

import meancli.engine.runtimes as runtimes

INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


def installed(name: str) -> Any:
    module = runtimes.RUNTIMES[name][0].split(".")[0]
    return pytest.mark.skipif(importlib.util.find_spec(module) is None, reason=f"{module} is not installed")


def fake(monkeypatch: pytest.MonkeyPatch, outputs: dict[str, Any]) -> list[tuple[str, Any]]:
    """Replace the runtimes: ``outputs[name]`` is the array runtime ``name`` returns, or
    an exception it raises. Returns the calls made (name, op label)."""
    calls: list[tuple[str, Any]] = []

    def run_node(
        name: str, op: Any, inputs: Any, axes: Any, keepdims: Any, attributes: Any, threads: int = 1
    ) -> Any:
        calls.append((name, op.label, axes, keepdims))
        out = outputs[name]
        if isinstance(out, BaseException):
            raise out
        return out

    monkeypatch.setattr(runtimes, "run_node", run_node)
    monkeypatch.setattr(runtimes, "runtime_label", lambda name: f"{name} 9.9")
    return calls


def identity_run(tmp_path: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    r = run_cli("reduce-mean", tmp_path / "x.npy", "--opset", "openvino:1", "--axes=", "--json", *extra)
    return r.exit_code, json.loads(r.stdout) if r.stdout else {}, r.stderr


@pytest.mark.parametrize("name", list(FLOATS))
def test_known_offsets_side_by_side(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dtype = FLOATS[name]
    x = np.array([1.0, 2.5, 0.375, 100.0, 7.0, 0.0625], dtype)
    offsets = [0, 1, 2, 4, 16, 17]
    np.save(tmp_path / "x.npy", x)
    stepped = np.concatenate([step(x[i : i + 1], k) for i, k in enumerate(offsets)])
    calls = fake(monkeypatch, {"openvino": stepped, "onnxruntime": x.copy()})
    code, report, err = identity_run(
        tmp_path, "--runtime", "openvino", "--runtime", "onnxruntime", "--max-ulp", "16"
    )
    assert code == 4, err
    validate(report)
    first, second = report["comparisons"]
    assert [c[0] for c in calls] == ["openvino", "onnxruntime"]
    assert calls[0][2:] == ([], None)  # the axes and keep_dims as given: the runtime applies its defaults
    assert first["against"] == "openvino 9.9" and second["against"] == "onnxruntime 9.9"
    assert first["histogram"] == {"0": 1, "1": 1, "2-4": 2, "5-16": 1, ">16": 1, "nan_mismatch": 0}
    assert (first["max_ulp"], first["inexact"], first["total"], first["within"]) == (17, 5, 6, False)
    assert first["mean_ulp"] == pytest.approx(sum(offsets) / 6)
    assert first["worst"]["index"] == [5] and first["worst"]["ulp"] == 17
    assert (second["max_ulp"], second["inexact"], second["within"]) == (0, 0, True)
    assert "runtime" in report["timings_ms"] and "compare" in report["timings_ms"]
    # the --max-ulp boundary
    assert identity_run(tmp_path, "--runtime", "openvino", "--max-ulp", "17")[0] == 0


@pytest.mark.parametrize("name", list(FLOATS))
def test_zeros_infinities_nans(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dtype = FLOATS[name]
    fmax = float(ml_dtypes.finfo(dtype).max if name == "bfloat16" else np.finfo(dtype).max)
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0], dtype)
    np.save(tmp_path / "x.npy", x)
    fake(
        monkeypatch,
        {
            "onnxruntime": np.array([-0.0, 0.0, np.inf, -np.inf, -np.nan, 1.0], dtype),  # 0 apart
            "openvino": np.array([0.0, -0.0, fmax, -fmax, np.nan, 1.0], dtype),  # 1 apart twice
            "onnx-reference": np.array([0.0, -0.0, np.inf, -np.inf, 3.0, np.nan], dtype),  # NaN mismatches
        },
    )
    code, report, err = identity_run(
        tmp_path,
        "--runtime",
        "onnxruntime",
        "--runtime",
        "openvino",
        "--runtime",
        "onnx-reference",
        "--max-ulp",
        "1",
    )
    assert code == 4, err  # the NaN mismatches, beyond any tolerance
    validate(report)
    zeros, fmaxes, nans = report["comparisons"]
    assert (zeros["max_ulp"], zeros["inexact"], zeros["within"]) == (0, 0, True)
    assert (fmaxes["max_ulp"], fmaxes["inexact"], fmaxes["max_abs"], fmaxes["within"]) == (1, 2, "inf", True)
    assert fmaxes["worst"] == {"index": [2], "expected": "inf", "got": fmax, "ulp": 1}
    assert (nans["nan_mismatch"], nans["within"]) == (2, False)
    assert nans["worst"] == {"index": [4], "expected": "nan", "got": 3.0, "ulp": None}


@pytest.mark.parametrize("name", INTS)
def test_integers(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = np.iinfo(name)
    x = np.array([info.min, info.max, 0, 7, 3], name)
    np.save(tmp_path / "x.npy", x)
    fake(monkeypatch, {"openvino": np.array([info.max, info.min, 2, 7, 4], name)})
    code, report, _ = identity_run(tmp_path, "--runtime", "openvino")
    span = int(info.max) - int(info.min)
    (c,) = report["comparisons"]
    assert code == 4
    assert (c["max_ulp"], c["max_abs"], c["inexact"]) == (span, span, 4)
    assert c["histogram"] == {"0": 1, "1": 1, "2-4": 1, "5-16": 0, ">16": 2, "nan_mismatch": 0}


def test_refusal_and_wrong_shape_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    np.save(tmp_path / "x.npy", x)
    fake(
        monkeypatch,
        {
            "onnxruntime": runtimes.Refused("NOT_IMPLEMENTED : no kernel"),
            "openvino": x.copy(),
            "onnx-reference": x[0].copy(),
        },
    )
    # a refusal alone does not change the exit status
    code, report, err = identity_run(tmp_path, "--runtime", "onnxruntime", "--runtime", "openvino")
    assert code == 0, err
    validate(report)
    refused, ov = report["comparisons"]
    assert refused == {
        "against": "onnxruntime 9.9",
        "extension": "meancli's own check, not part of ONNX",
        "refused": True,
        "reason": "NOT_IMPLEMENTED : no kernel",
        "within": True,
    }
    assert ov["max_ulp"] == 0
    # another shape: beyond any tolerance
    code, report, _ = identity_run(tmp_path, "--runtime", "onnx-reference", "--max-ulp", "100")
    (row,) = report["comparisons"]
    assert code == 4 and row["refused"] is False and row["within"] is False
    assert row["reason"] == "returned shape (2,) float32; the result is (2, 2) float32"
    # the rich report: one row per runtime, the reason as the verdict
    r = run_cli(
        "reduce-mean",
        tmp_path / "x.npy",
        "--opset",
        "openvino:1",
        "--axes=",
        "--runtime",
        "onnxruntime",
        "--runtime",
        "openvino",
    )
    assert r.exit_code == 0
    assert "refused: NOT_IMPLEMENTED : no kernel" in r.stdout
    assert "openvino 9.9" in r.stdout and "within 0" in r.stdout


def test_with_compare_file_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    x = np.array([1.0, 2.0, 3.0], np.float64)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "got.npy", step(x, 3))
    fake(monkeypatch, {"openvino": step(x, 1)})
    got = str(tmp_path / "got.npy")
    code, report, _ = identity_run(tmp_path, "--compare", got, "--runtime", "openvino", "--max-ulp", "2")
    validate(report)
    assert code == 4
    file, rt = report["comparisons"]
    assert (file["against"], file["max_ulp"], rt["against"], rt["max_ulp"]) == (got, 3, "openvino 9.9", 1)


def test_usage_errors(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.ones(3, np.float32))
    x = tmp_path / "x.npy"
    for args, says in (
        (["--runtime", "tensorrt"], "not a runtime; choose from onnxruntime, openvino, onnx-reference"),
        (["--runtime", "openvino", "--runtime", "openvino"], "openvino is given twice"),
        (["--runtime", "openvino", "--workers", "2"], "cannot be combined with --workers or --scheduler"),
        (["--runtime", "openvino", "-o", str(tmp_path / "o.zarr")], "a zarr output"),
    ):
        r = run_cli("reduce-mean", x, *args)
        assert r.exit_code == 2 and says in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)
    r = run_cli("reduce-mean", x, x, "--runtime", "openvino", "-o", str(tmp_path / "{stem}.out.npy"))
    assert r.exit_code == 2 and "--runtime compares the result of one FILE" in r.stderr


def test_missing_runtime_names_the_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.ones(3, np.float32))
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any) -> Any:
        return None if name == "openvino" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    r = run_cli("reduce-mean", tmp_path / "x.npy", "--runtime", "openvino")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1
    assert "--runtime openvino needs the openvino package; install the openvino extra with:" in r.stderr
    assert "[openvino]" in r.stderr


# --------------------------------------------------------------------------- real runtimes


def cases() -> list[tuple[str, Case]]:
    rng = np.random.default_rng(27)
    out: list[tuple[str, Case]] = []
    x32 = (rng.standard_normal((3, 50)) * 100).astype(np.float32)
    x16 = (rng.standard_normal((3, 40)) * 10).astype(np.float16)
    x64 = rng.standard_normal((2, 30)) * 1e3
    xi = rng.integers(-100, 100, (3, 7)).astype(np.int32)
    for rt in ("onnxruntime", "onnx-reference", "openvino"):
        out += [
            (rt, Case("onnx", "ReduceMean", 18, "float32", (x32,), axes=(1,))),
            (rt, Case("onnx", "ReduceMean", 13, "float16", (x16,), axes=(-1,), keepdims=False)),
            (rt, Case("onnx", "ReduceMean", 11, "float64", (x64,))),
            (rt, Case("onnx", "ReduceMean", 18, "int32", (xi,), axes=(0,))),
            (rt, Case("onnx", "Mean", 13, "float32", (x32, x32[:1] * 3, x32 * -0.5))),
        ]
    out.append(("openvino", Case("openvino", "ReduceMean", 1, "float32", (x32,), axes=(1,), keepdims=True)))
    out.append(
        (
            "openvino",
            Case("openvino", "ReduceMean", 1, "bfloat16", (x32.astype(ml_dtypes.bfloat16),), axes=(0,)),
        )
    )
    return out


def cli_args(case: Case, tmp_path: Path) -> list[str]:
    files = []
    for i, x in enumerate(case.inputs):
        np.save(tmp_path / f"in{i}.npy", x)
        files.append(str(tmp_path / f"in{i}.npy"))
    if case.op == "Mean":
        return ["mean", *files, "--opset", case.opset]
    args = ["reduce-mean", *files, "--opset", case.opset]
    if case.axes is not None:
        args += ["--axes=" + ",".join(map(str, case.axes))]
    if case.keepdims is not None:
        args += ["--keep-dims" if case.keepdims else "--no-keep-dims"]
    return args


def run_openvino_any(case: Case) -> np.ndarray:
    """OpenVINO: its own operator through tests/oracles.py; an ONNX one through its ONNX
    frontend on tests/oracles.py's model, reshaped to the inputs' static shapes."""
    if case.domain == "openvino":
        return run_openvino(case)
    import onnx
    import openvino as ov
    from onnx import numpy_helper
    from oracles import _feeds, _model_key, onnx_model_bytes

    proto = onnx.load_from_string(onnx_model_bytes(*_model_key(case)))
    if case.op == "ReduceMean" and case.version >= 18 and case.axes is not None:
        # axes as a constant, as models hold it (and meancli builds it): OpenVINO's CPU
        # plugin picks another reduction (other bits) for axes given at run time
        (axes_input,) = [i for i in proto.graph.input if i.name == "axes"]
        proto.graph.input.remove(axes_input)
        proto.graph.initializer.append(numpy_helper.from_array(np.array(case.axes, np.int64), "axes"))
    case = Case(case.domain, case.op, case.version, case.dtype, case.inputs)  # feeds: the data only
    core = ov.Core()
    model = core.read_model(proto.SerializeToString(), b"")
    names = [p.get_friendly_name() for p in model.get_parameters()]
    feeds = _feeds(case, names)
    model.reshape({name: ov.PartialShape(list(feeds[name].shape)) for name in names})
    compiled = core.compile_model(
        model, "CPU", {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
    )
    return np.array(compiled(feeds)[0])


RUNNERS = {"onnxruntime": run_onnxruntime, "onnx-reference": run_reference, "openvino": run_openvino_any}


@pytest.mark.parametrize(
    ("runtime", "case"),
    [
        pytest.param(rt, c, id=f"{rt}-{c.op}-{c.version}-{c.domain}-{c.dtype}", marks=installed(rt))
        for rt, c in cases()
    ],
)
def test_real_runtime_distances(runtime: str, case: Case, tmp_path: Path) -> None:
    """The reported distances are the ones between the runtime's output (run here
    independently) and the exact oracle's."""
    if case.op == "Mean":
        exact = exact_mean(case.inputs)
    else:
        keep = case.keepdims if case.keepdims is not None else case.domain == "onnx"
        exact = exact_reduce_mean(case.inputs[0], case.axes, keep)
    r = run_cli(
        *cli_args(case, tmp_path), "--runtime", runtime, "--threads", "1", "--json", "--max-ulp", "1000"
    )
    assert r.exit_code in (0, 4), r.stderr
    report = json.loads(r.stdout)
    validate(report)
    (c,) = report["comparisons"]
    assert c["against"].startswith(runtime + " ")
    try:
        got = RUNNERS[runtime](case)
    except NoKernel:
        pytest.fail(f"meancli ran {runtime} where the oracle's runner has no kernel")
    if case.dtype.startswith("int"):
        want = np.abs(got.astype(np.int64) - exact.astype(np.int64))
    else:
        want = ulp_distance(np.asarray(got, exact.dtype), exact)
    assert c["max_ulp"] == int(want.max())
    assert c["inexact"] == int((want > 0).sum())
    assert c["total"] == exact.size
    assert c["within"] == (int(want.max()) <= 1000)


@installed("onnxruntime")
def test_onnxruntime_refuses_bfloat16_and_uint64(tmp_path: Path) -> None:
    np.save(tmp_path / "b.npy", np.ones((2, 3), ml_dtypes.bfloat16))
    r = run_cli("reduce-mean", tmp_path / "b.npy", "--axes", "1", "--runtime", "onnxruntime", "--json")
    assert r.exit_code == 0, r.stderr
    (row,) = json.loads(r.stdout)["comparisons"]
    assert row["refused"] is True and "bfloat16" in row["reason"]
    np.save(tmp_path / "i.npy", np.ones((2, 3), np.uint64))
    r = run_cli("reduce-mean", tmp_path / "i.npy", "--axes", "1", "--runtime", "onnxruntime", "--json")
    (row,) = json.loads(r.stdout)["comparisons"]
    assert r.exit_code == 0 and row["refused"] is True and "NOT_IMPLEMENTED" in row["reason"]


@installed("onnxruntime")
@installed("openvino")
def test_openvino_operator_on_onnx_runtimes_and_empty_axes(tmp_path: Path) -> None:
    """OpenVINO's ReduceMean-1 is no ONNX operator: onnxruntime's row says so. OpenVINO's
    CPU plugin refuses empty axes with keep_dims false (the identity): its row says why."""
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    r = run_cli(
        "reduce-mean", tmp_path / "x.npy", "--opset", "openvino:1", "--axes=",
        "--runtime", "onnxruntime", "--runtime", "openvino", "--json",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    ort_row, ov_row = json.loads(r.stdout)["comparisons"]
    assert ort_row["refused"] and "ReduceMean-1 (openvino) is OpenVINO's" in ort_row["reason"]
    assert ov_row["refused"] and "\n" not in ov_row["reason"] and ov_row["reason"]


# --------------------------------------------------------------------------- the compare kernel


@pytest.mark.parametrize("name", [*FLOATS, *INTS])
@pytest.mark.parametrize("density", [1.0, 0.05])
def test_compare_kernel_matches_a_brute_force_count(name: str, density: float) -> None:
    """The compare kernel (chunks where most elements differ, and chunks of equal bits
    skipped; every width; both signs; values near the extremes) against distances
    counted here in Python ints: floats by tests/oracles.py's ordered bits, integers by
    subtraction. Also a Fortran-order copy (compared in blocks) and one thread."""
    from meancli.engine.compare import compare

    rng = np.random.default_rng(27)
    n = 7 * 42_859  # many of the kernel's chunks of 256, the last one partial
    dtype = FLOATS[name] if name in FLOATS else np.dtype(name)
    width = dtype.itemsize
    uint = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[width]
    bits = rng.integers(0, np.iinfo(uint).max, n, dtype=uint, endpoint=True)
    a = bits.view(dtype).copy()
    moved = rng.random(n) < density
    delta = rng.integers(-20, 21, n).astype(np.int64) * moved
    if name in FLOATS:
        with np.errstate(invalid="ignore"):  # the NaN patterns' casts
            finite = np.isfinite(a.astype(np.float64))
        a[~finite] = dtype.type(1.5)  # NaN and inf patterns: replaced by a plain value
        b = (a.view(uint).astype(np.int64) + delta).astype(uint).view(dtype)
        with np.errstate(invalid="ignore"):
            special = ~np.isfinite(b.astype(np.float64))
        b[special] = a[special]
        want = ulp_distance(b, a)
    else:
        b = (a.astype(object) + delta.astype(object)).clip(int(np.iinfo(name).min), int(np.iinfo(name).max))
        b = b.astype(name)
        want = np.array(
            [abs(int(x) - int(y)) for x, y in zip(a.tolist(), b.tolist(), strict=True)], dtype=object
        )
    c = compare(a, b, "b")
    assert compare(a, b, "b", threads=1) == c
    f = compare(np.asfortranarray(a.reshape(7, -1)), np.asfortranarray(b.reshape(7, -1)), "b")
    assert (f.total, f.inexact, f.max_ulp, f.histogram, f.max_abs) == (
        c.total,
        c.inexact,
        c.max_ulp,
        c.histogram,
        c.max_abs,
    )
    assert c.max_ulp == int(want.max())
    assert c.inexact == int((want > 0).sum())
    assert c.mean_ulp == pytest.approx(float(sum(int(v) for v in want.tolist())) / n)
    counts = [int(((want >= lo) & (want <= hi)).sum()) for lo, hi in ((0, 0), (1, 1), (2, 4), (5, 16))]
    assert [c.histogram[k] for k in ("0", "1", "2-4", "5-16")] == counts
    assert c.worst is not None and c.worst.ulp == c.max_ulp
