"""--compare FILE / --max-ulp N on mean and reduce-mean, the ULP distance itself
(meancli.engine.compare), and check-onnx on ONNX node test directories.

The compared files are built with KNOWN distances from the correctly rounded result:
the result is the identity of its input (OpenVINO ReduceMean-1 with empty axes, every
dtype; Mean of one input, the float dtypes), so it is the input's own values, and the
compared file is those values stepped by a known number of representable values
(np.nextafter for float16/32/64, the bits for bfloat16). The distance function is
checked against a brute-force count: every float16 and bfloat16 value ranked by value.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import ml_dtypes
import numpy as np
import pytest
import referencing
from onnx_cases import node_cases, write_test_dir

from meancli.cli.app import main
from meancli.engine.compare import BLOCK_ELEMENTS, compare, ulp_distance

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = {
    name: json.loads((ROOT / "docs/schema" / name).read_text())
    for name in ("report.schema.json", "check-onnx.schema.json")
}
REGISTRY = referencing.Registry().with_resources(
    (s["$id"], referencing.Resource.from_contents(s)) for s in SCHEMAS.values()
)
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = {
    "float16": np.dtype(np.float16),
    "bfloat16": BF16,
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
}
UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def validate(obj: dict[str, Any], schema: str = "report.schema.json") -> None:
    jsonschema.Draft202012Validator(SCHEMAS[schema], registry=REGISTRY).validate(obj)


def step(x: np.ndarray, k: int) -> np.ndarray:
    """Each element of ``x`` moved k representable values toward +inf (k >= 0)."""
    x = x.copy()
    if x.dtype == BF16:  # the bits: +1 is the next value up for a positive number
        bits = x.view(np.uint16)
        assert (bits < 0x7F80).all(), "positive finite values only"
        bits += np.uint16(k)
        return x
    for _ in range(k):
        x = np.nextafter(x, np.array(np.inf, x.dtype))
    return x


def run(args: list[str], cwd: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    old = os.getcwd()
    os.chdir(cwd)
    try:
        code = main(args)
    finally:
        os.chdir(old)
    out, err = capsys.readouterr()
    return code, out, err


def identity(name: str, compare_with: str, *extra: str) -> list[str]:
    """A run whose correctly rounded result is x.npy itself (OpenVINO's empty axes)."""
    return ["reduce-mean", "x.npy", "--opset", "openvino:1", "--axes=", "--compare", compare_with, *extra]


# --------------------------------------------------------------------------- the distance itself


def _ranks(dtype: np.dtype[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Every 16-bit pattern of ``dtype`` and its rank among the dtype's distinct values
    (NaN patterns left out; -0.0 and +0.0 one value): the brute-force oracle."""
    bits = np.arange(1 << 16, dtype=np.uint16)
    with np.errstate(invalid="ignore"):  # the NaN patterns, left out below
        values = bits.view(dtype).astype(np.float64)
    keep = ~np.isnan(values)
    bits, values = bits[keep], values[keep]
    distinct = np.unique(values)  # sorted; -0.0 == 0.0 counts once
    return bits, np.searchsorted(distinct, values)


@pytest.mark.parametrize("dtype", [np.dtype(np.float16), BF16], ids=["float16", "bfloat16"])
def test_distance_is_the_count_of_values_between(dtype: np.dtype[Any]) -> None:
    bits, rank = _ranks(dtype)
    rng = np.random.default_rng(27)
    i = rng.integers(0, bits.size, 300_000)
    j = rng.integers(0, bits.size, 300_000)
    # neighbours, and the pairs around zero, inf and the largest finite value
    special = np.flatnonzero(np.isin(rank, [0, 1, 2, rank.max() - 1, rank.max(), rank[bits == 0][0]]))
    i = np.concatenate([i, np.arange(bits.size - 1), np.repeat(special, special.size)])
    j = np.concatenate([j, np.arange(1, bits.size), np.tile(special, special.size)])
    a, b = bits[i].view(dtype), bits[j].view(dtype)
    want = np.abs(rank[i] - rank[j]).astype(np.uint64)  # values strictly between, plus one
    np.testing.assert_array_equal(ulp_distance(a, b), want)


def test_distance_float32_float64_steps() -> None:
    for dtype in (np.float32, np.float64):
        fi = np.finfo(dtype)
        x = np.array([0.0, -0.0, 1.0, -1.0, -fi.max, fi.smallest_subnormal, -fi.tiny, 3.5], dtype)
        for k in (1, 2, 7):
            np.testing.assert_array_equal(ulp_distance(x, step(x, k)), np.full(x.size, k, np.uint64))
        big = np.array([-fi.max], dtype), np.array([fi.max], dtype)
        # every finite value but one zero lies between: 2 * (number of positive finite values) apart
        positives = int(np.array(fi.max, dtype).view(UINT[x.itemsize]))
        assert int(ulp_distance(*big)[0]) == 2 * positives


def test_distance_special_values() -> None:
    for name, dtype in FLOATS.items():
        fmax = np.array(ml_dtypes.finfo(dtype).max if dtype == BF16 else np.finfo(dtype).max, dtype)
        pairs = [(0.0, -0.0, 0), (np.inf, fmax, 1), (-np.inf, -fmax, 1), (np.nan, -np.nan, 0)]
        for a, b, want in pairs:
            got = ulp_distance(np.array([a], dtype), np.array([b], dtype))
            assert int(got[0]) == want, (name, a, b)
        assert int(ulp_distance(np.array([np.nan], dtype), np.array([1.0], dtype))[0]) == 2**64 - 1


def test_integer_distance_is_exact() -> None:
    i64 = np.iinfo(np.int64)
    a = np.array([i64.min, i64.max, -1, 5], np.int64)
    b = np.array([i64.max, i64.min, 1, 5], np.int64)
    assert ulp_distance(a, b).tolist() == [2**64 - 1, 2**64 - 1, 2, 0]
    u = np.array([0, 2**64 - 1, 2**63], np.uint64)
    v = np.array([2**64 - 1, 0, 2**63 - 1], np.uint64)
    assert ulp_distance(u, v).tolist() == [2**64 - 1, 2**64 - 1, 1]


def test_blocks_and_layouts() -> None:
    """Across block boundaries, Fortran order and the other byte order, the same answer."""
    n = BLOCK_ELEMENTS + 1000
    x = np.linspace(-3, 3, n * 2, dtype=np.float32).reshape(2, n)
    y = x.copy()
    col = 2 * BLOCK_ELEMENTS - n + 7  # flat index 2 * BLOCK_ELEMENTS + 7: in the third block
    y[1, col] = step(y[1, col : col + 1], 3)[0]
    y[0, 5] = step(y[0, 5:6], 2)[0]
    for got in (y, np.asfortranarray(y), y.astype(">f4"), np.asfortranarray(y.astype(">f4"))):
        c = compare(x, got, "y")
        assert (c.max_ulp, c.inexact, c.worst.at if c.worst else None) == (3, 2, (1, col))
        assert c.histogram == {"0": 2 * n - 2, "1": 0, "2-4": 2, "5-16": 0, ">16": 0, "nan_mismatch": 0}
        assert c.mean_ulp == pytest.approx(5 / (2 * n))


@pytest.mark.parametrize("dense", [False, True], ids=["few-differ", "most-differ"])
def test_worst_is_the_first_nan_mismatch(dense: bool) -> None:
    """Both ways of examining a block (the differing elements gathered, or the whole
    block) find the same worst element, counts and positions."""
    x = np.linspace(1, 2, 100, dtype=np.float64)
    y = step(x, 1) if dense else x.copy()
    y[70] = step(x[70:71], 3)[0]
    y[40] = np.nan
    y[90] = np.nan
    c = compare(x, y, "y")
    ones = 97 if dense else 0
    assert c.worst is not None and (c.worst.at, c.worst.ulp) == ((40,), None)
    assert (c.nan_mismatch, c.max_ulp, c.inexact) == (2, 3, ones + 3)
    assert c.histogram == {"0": 97 - ones, "1": ones, "2-4": 1, "5-16": 0, ">16": 0, "nan_mismatch": 2}
    assert c.mean_ulp == pytest.approx((ones + 3) / 98)
    y[40], y[90] = x[40], x[90]  # no NaN: the worst is the 3-ulp element
    c = compare(x, y, "y")
    assert c.worst is not None and (c.worst.at, c.worst.ulp, c.nan_mismatch) == ((70,), 3, 0)


# --------------------------------------------------------------------------- --compare on the command line


@pytest.mark.parametrize("name", list(FLOATS))
def test_known_offsets(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dtype = FLOATS[name]
    x = np.array([1.0, 2.5, 0.375, 100.0, 7.0, 0.0625], dtype)
    offsets = [0, 1, 2, 4, 16, 17]
    got = np.concatenate([step(x[i : i + 1], k) for i, k in enumerate(offsets)])
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "got.npy", got)
    code, out, err = run(identity(name, "got.npy", "--json", "--max-ulp", "16"), tmp_path, capsys)
    assert code == 4, err
    report = json.loads(out)
    validate(report)
    (c,) = report["comparisons"]
    assert c["histogram"] == {"0": 1, "1": 1, "2-4": 2, "5-16": 1, ">16": 1, "nan_mismatch": 0}
    assert (c["max_ulp"], c["inexact"], c["total"], c["within"], c["tolerance"]) == (17, 5, 6, False, 16)
    assert c["mean_ulp"] == pytest.approx(sum(offsets) / 6)
    assert c["worst"] == {
        "index": [5],
        "expected": 0.0625,
        "got": float(got[5].astype(np.float64)),
        "ulp": 17,
    }
    assert c["max_rel"] == pytest.approx(float((got[5].astype(np.float64) - 0.0625) / 0.0625))
    assert c["against"] == "got.npy" and c["dtype"] == name
    # the --max-ulp boundary: N within -> 0, N - 1 -> 4
    assert run(identity(name, "got.npy", "--max-ulp", "17", "-q"), tmp_path, capsys)[0] == 0
    assert run(identity(name, "got.npy", "--max-ulp", "16", "-q"), tmp_path, capsys)[0] == 4
    if name != "bfloat16":  # Mean-13 of one input is the input too (bfloat16 via ReduceMean)
        code, out, _ = run(
            ["mean", "x.npy", "--compare", "got.npy", "--max-ulp", "17", "--json"], tmp_path, capsys
        )
        assert code == 0 and json.loads(out)["comparisons"][0]["max_ulp"] == 17


@pytest.mark.parametrize("name", list(FLOATS))
def test_zeros_infinities_nans(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dtype = FLOATS[name]
    fmax = float(ml_dtypes.finfo(dtype).max if dtype == BF16 else np.finfo(dtype).max)
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0], dtype)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "zeros.npy", np.array([-0.0, 0.0, np.inf, -np.inf, -np.nan, 1.0], dtype))
    np.save(tmp_path / "fmax.npy", np.array([0.0, -0.0, fmax, -fmax, np.nan, 1.0], dtype))
    np.save(tmp_path / "nan_for_number.npy", np.array([0.0, -0.0, np.inf, -np.inf, np.nan, np.nan], dtype))
    np.save(tmp_path / "number_for_nan.npy", np.array([0.0, -0.0, np.inf, -np.inf, 3.0, 1.0], dtype))
    # ±0 swapped and NaN for NaN (another sign): 0 apart, exact
    code, out, err = run(identity(name, "zeros.npy", "--json"), tmp_path, capsys)
    c = json.loads(out)["comparisons"][0]
    assert (code, c["max_ulp"], c["inexact"], c["within"]) == (0, 0, 0, True), err
    # the largest finite value for inf: 1 apart
    code, out, _ = run(identity(name, "fmax.npy", "--json"), tmp_path, capsys)
    c = json.loads(out)["comparisons"][0]
    assert (code, c["max_ulp"], c["inexact"], c["histogram"]["1"], c["max_abs"]) == (4, 1, 2, 2, "inf")
    assert c["worst"] == {"index": [2], "expected": "inf", "got": fmax, "ulp": 1}
    assert run(identity(name, "fmax.npy", "--max-ulp", "1", "-q"), tmp_path, capsys)[0] == 0
    # a NaN mismatch either way: beyond any tolerance
    for file, index, expected, got in (
        ("nan_for_number.npy", 5, 1.0, "nan"),
        ("number_for_nan.npy", 4, "nan", 3.0),
    ):
        code, out, _ = run(identity(name, file, "--json", "--max-ulp", str(10**12)), tmp_path, capsys)
        report = json.loads(out)
        validate(report)
        c = report["comparisons"][0]
        assert (code, c["nan_mismatch"], c["histogram"]["nan_mismatch"], c["within"]) == (4, 1, 1, False)
        assert c["worst"] == {"index": [index], "expected": expected, "got": got, "ulp": None}
        assert (c["max_ulp"], c["inexact"]) == (0, 1)


@pytest.mark.parametrize("name", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"])
def test_integers_absolute_difference(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    info = np.iinfo(name)
    x = np.array([info.min, info.max, 0, 7, 3], name)
    got = np.array([info.max, info.min, 2, 7, 4], name)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "got.npy", got)
    code, out, err = run(identity(name, "got.npy", "--json"), tmp_path, capsys)
    report = json.loads(out)
    validate(report)
    c = report["comparisons"][0]
    span = int(info.max) - int(info.min)  # exact, as Python ints
    assert code == 4, err
    assert (c["max_ulp"], c["max_abs"], c["inexact"]) == (span, span, 4)
    assert c["worst"] == {"index": [0], "expected": int(info.min), "got": int(info.max), "ulp": span}
    assert c["histogram"] == {"0": 1, "1": 1, "2-4": 1, "5-16": 0, ">16": 2, "nan_mismatch": 0}
    assert c["mean_ulp"] == pytest.approx((2 * span + 2 + 1) / 5)
    assert run(identity(name, "got.npy", "--max-ulp", str(span), "-q"), tmp_path, capsys)[0] == 0
    assert run(identity(name, "got.npy", "--max-ulp", str(span - 1), "-q"), tmp_path, capsys)[0] == 4


def test_shape_and_dtype_mismatch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = np.ones((2, 3), np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "short.npy", np.ones(2, np.float32))
    np.save(tmp_path / "f64.npy", np.ones(2, np.float64))
    code, out, err = run(
        ["reduce-mean", "x.npy", "--axes", "1", "--no-keep-dims", "--compare", "f64.npy"], tmp_path, capsys
    )
    assert (code, out) == (1, "")
    assert err == "error: f64.npy: dtype float64 does not match the result's dtype float32\n"
    code, out, err = run(["mean", "x.npy", "--compare", "short.npy", "-o", "out.npy"], tmp_path, capsys)
    assert (code, out) == (1, "")
    assert err == "error: short.npy: shape (2,) float32 does not match the result's shape (2, 3) float32\n"
    assert not (tmp_path / "out.npy").exists()  # refused before the run


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.save(tmp_path / "x.npy", np.ones(3, np.float32))
    for args in (
        ["mean", "x.npy", "--max-ulp", "2"],
        ["reduce-mean", "x.npy", "x.npy", "--compare", "x.npy"],
        ["reduce-mean", "x.npy", "--compare", "x.npy", "-o", "out.zarr"],
        ["mean", "x.npy", "--compare", "x.npy", "--max-ulp", "-1"],
    ):
        code, out, err = run(args, tmp_path, capsys)
        assert (code, out) == (2, "") and err.startswith("error: ") and err.count("\n") == 1, (args, err)


def test_output_with_compare_and_other_formats(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """-o writes the result, then it is compared; an .npz member and a .pb compare too."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    exact = x.astype(np.float64).mean(axis=1).astype(np.float32)  # 5 float32 values: exact in float64
    off = exact.copy()
    off[2] = step(off[2:3], 1)[0]
    np.savez(tmp_path / "ref.npz", exact=exact, off=off)
    (tmp_path / "off.pb").write_bytes(numpy_helper.from_array(off, "y").SerializeToString())
    base = ["reduce-mean", "x.npy", "--axes", "1", "--no-keep-dims"]
    code, out, err = run([*base, "--compare", "ref.npz:exact", "-o", "out.npy", "--json"], tmp_path, capsys)
    report = json.loads(out)
    validate(report)
    assert code == 0 and report["comparisons"][0]["inexact"] == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), exact)
    for target in ("ref.npz:off", "off.pb"):
        code, out, _ = run([*base, "--compare", target, "--json"], tmp_path, capsys)
        c = json.loads(out)["comparisons"][0]
        assert (code, c["against"], c["worst"]["index"], c["worst"]["ulp"]) == (4, target, [2], 1)
    assert onnx is not None


def test_rich_report_names_the_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    x = np.array([1.0, 2.0], np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "got.npy", step(x, 3))
    code, out, _ = run(identity("float32", "got.npy"), tmp_path, capsys)
    assert code == 4
    assert "meancli's own check, not part of ONNX" in out
    assert "2 of 2" in out and "BEYOND 0" in out
    assert "worst of got.npy: index [0]: exact 1.0, got 1.0000004 (3 ulp)" in out  # the first of the largest


def test_compare_from_stdin_and_streamed_mean(tmp_path: Path) -> None:
    """--compare - reads stdin; a streamed Mean with -o writes its result block by block,
    each block compared as it is written."""
    x = np.arange(3000, dtype=np.float32).reshape(30, 100)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", x * 2)
    want = (x * 1.5).astype(np.float32)  # (x + 2x) / 2, exact
    np.save(tmp_path / "want.npy", want)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MEANCLI_STREAM_MIN_BYTES": "1000"}
    args = [
        sys.executable,
        "-m",
        "meancli",
        "mean",
        "x.npy",
        "y.npy",
        "--compare",
        "-",
        "-o",
        "out.npy",
        "--json",
    ]
    with open(tmp_path / "want.npy", "rb") as stdin:
        proc = subprocess.run(args, cwd=tmp_path, env=env, stdin=stdin, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    validate(report)
    assert report["engine"]["name"] == "streamed"
    assert report["comparisons"][0]["against"] == "-" and report["comparisons"][0]["inexact"] == 0
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), want)


# --------------------------------------------------------------------------- check-onnx


def load_pb(path: Path) -> np.ndarray:
    import onnx
    from onnx import numpy_helper

    tensor = onnx.TensorProto()
    tensor.ParseFromString(path.read_bytes())
    return np.array(numpy_helper.to_array(tensor))


def exact_output(test_dir: Path, data_set: Path) -> np.ndarray:
    """The correctly rounded output from the exact oracle (tests/conftest.py), from the
    data set's inputs and the node's attributes."""
    import onnx
    from onnx import helper
    from oracles import exact_mean, exact_reduce_mean

    model = onnx.load(test_dir / "model.onnx")
    (node,) = model.graph.node
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    values = {i.name: load_pb(data_set / f"input_{k}.pb") for k, i in enumerate(model.graph.input)}
    if node.op_type == "Mean":
        return exact_mean([values[name] for name in node.input])
    axes = attrs.get("axes")
    if axes is None and len(node.input) > 1 and node.input[1]:
        axes = values[node.input[1]].tolist()
    return exact_reduce_mean(values[node.input[0]], axes or None, bool(attrs.get("keepdims", 1)))


@pytest.fixture(scope="module")
def node_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    pytest.importorskip("onnx")
    root = tmp_path_factory.mktemp("node")
    return {case.name: write_test_dir(case, root) for case in node_cases()}


#: The onnx package's expected outputs that are not correctly rounded, by their distance:
#: numpy computes test_reduce_mean_default_axes_keepdims_random's mean of 12 float32
#: values in float32 (sum, then divide), one rounding too many, and lands 1 ulp off
#: (onnx 1.23; tests/test_onnx_test_dirs.py says the same). The others are exact.
ONNX_OFF_BY = {"test_reduce_mean_default_axes_keepdims_random": 1}


def test_onnx_node_tests(node_dirs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert len(node_dirs) == 11, sorted(node_dirs)
    for name, d in sorted(node_dirs.items()):
        off = ONNX_OFF_BY.get(name, 0)
        code, out, err = run(["check-onnx", str(d), "--json"], d.parent, capsys)
        report = json.loads(out)
        validate(report, "check-onnx.schema.json")
        assert code == (4 if off else 0), (name, err)
        (c,) = report["comparisons"]
        assert c["against"] == str(d / "test_data_set_0" / "output_0.pb")
        assert c["max_ulp"] == off, name
        # the same distance from the exact oracle of tests/conftest.py
        data_set = d / "test_data_set_0"
        oracle = exact_output(d, data_set)
        assert int(ulp_distance(oracle, load_pb(data_set / "output_0.pb")).max()) == off, name
        assert run(["check-onnx", str(d), "--max-ulp", str(off), "-q"], d.parent, capsys)[0] == 0


def test_onnx_node_tests_all_at_once(node_dirs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    dirs = [str(d) for _, d in sorted(node_dirs.items())]
    code, out, err = run(["check-onnx", *dirs, "--max-ulp", "1"], Path.cwd(), capsys)
    assert (code, err) == (0, "")
    assert out.count("within 1") == 11 and "meancli's own check, not part of ONNX" in out


def test_a_dir_that_cannot_be_checked_stops_the_run_and_says_what_was_not_run(
    node_dirs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As reduce-mean's FILEs: the first failure ends the run with a closing line naming
    what was done and not run; --keep-going checks the others (before, the run stopped
    at the broken DIR with its error line alone and the last DIR was never checked)."""
    import shutil

    good = node_dirs["test_mean_example"]
    broken = tmp_path / "broken"
    shutil.copytree(good, broken)
    (broken / "test_data_set_0" / "output_0.pb").unlink()
    last = node_dirs["test_mean_two_inputs"]
    code, out, err = run(["check-onnx", str(good), str(broken), str(last)], tmp_path, capsys)
    assert code == 1 and out.count("within 0") == 1, out
    lines = err.strip().splitlines()
    assert len(lines) == 2 and "output_0.pb" in lines[0], err
    stopped = "1 not run (stopped at the first failure; --keep-going runs the others)"
    assert lines[1] == f"error: 1 of 3 DIRs failed ({broken}); 1 done, {stopped}"
    code, out, err = run(["check-onnx", str(good), str(broken), str(last), "--keep-going"], tmp_path, capsys)
    assert code == 1 and out.count("within 0") == 2, out
    assert err.strip().splitlines()[-1] == f"error: 1 of 3 DIRs failed ({broken}); 2 done"


def test_check_onnx_names_what_is_wrong_with_a_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A DIR that is missing, a file, or a directory without model.onnx: its own one-line
    error (before, each was reported as DIR/model.onnx missing or not a directory)."""
    (tmp_path / "empty").mkdir()
    np.save(tmp_path / "x.npy", np.zeros(2, np.float32))
    for name, said in [
        ("missing", "missing: No such file or directory"),
        ("empty", "empty: no model.onnx in this directory"),
        ("x.npy", "x.npy: not a directory (a test directory holds model.onnx and test_data_set_N/)"),
    ]:
        code, out, err = run(["check-onnx", name], tmp_path, capsys)
        assert (code, out, err) == (1, "", f"error: {said}\n"), (name, err)


def test_onnx_perturbed_by_one_ulp(
    node_dirs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    from onnx import numpy_helper

    d = tmp_path / "perturbed"
    shutil.copytree(node_dirs["test_reduce_mean_keepdims_random"], d)
    pb = d / "test_data_set_0" / "output_0.pb"
    y = load_pb(pb)
    index = (2, 0, 1)
    y[index] = np.nextafter(y[index], np.float32(-np.inf))
    pb.write_bytes(numpy_helper.from_array(y, "reduced").SerializeToString())
    code, out, err = run(["check-onnx", str(d), "--json"], tmp_path, capsys)
    c = json.loads(out)["comparisons"][0]
    assert code == 4, err
    assert (c["max_ulp"], c["inexact"], c["worst"]["index"], c["worst"]["ulp"]) == (1, 1, list(index), 1)
    assert c["worst"]["got"] == float(y[index])
    assert run(["check-onnx", str(d), "--max-ulp", "1", "-q"], tmp_path, capsys)[0] == 0


def test_onnx_models_not_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    def save(name: str, nodes: list[Any]) -> Path:
        d = tmp_path / name
        (d / "test_data_set_0").mkdir(parents=True)
        x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
        graph = helper.make_graph(nodes, name, [x], [y])
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), d / "model.onnx")
        return d

    relu = save("relu", [helper.make_node("Relu", ["x"], ["y"])])
    two = save("two", [helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Mean", ["t"], ["y"])])
    for d, says in ((relu, "the model's node is Relu"), (two, "the model holds 2 nodes (Relu, Mean)")):
        code, out, err = run(["check-onnx", str(d)], tmp_path, capsys)
        assert (code, out) == (1, "")
        assert err.startswith(f"error: {d / 'model.onnx'}: {says}") and err.count("\n") == 1, err


def test_onnx_models_of_other_versions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """ReduceMean-13 (axes an attribute), ReduceMean-18 with its axes an initializer, and
    Mean-8 with broadcasting: the version from the opset import, the attributes from the
    node; the expected outputs from the exact oracle, so each is within 0 ulp."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper
    from oracles import exact_mean, exact_reduce_mean

    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 4, 5)).astype(np.float16)
    v = rng.standard_normal(5).astype(np.float16)

    def info(name: str, a: np.ndarray) -> Any:
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)

    def save(
        name: str, node: Any, opset: int, inputs: dict[str, np.ndarray], y: np.ndarray, init: Any = ()
    ) -> Path:
        d = tmp_path / name
        (d / "test_data_set_0").mkdir(parents=True)
        graph = helper.make_graph(
            [node], name, [info(k, a) for k, a in inputs.items()], [info("y", y)], initializer=list(init)
        )
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), d / "model.onnx")
        for k, (n, a) in enumerate(inputs.items()):
            (d / "test_data_set_0" / f"input_{k}.pb").write_bytes(
                numpy_helper.from_array(a, n).SerializeToString()
            )
        out = numpy_helper.from_array(np.asarray(y), "y").SerializeToString()
        (d / "test_data_set_0" / "output_0.pb").write_bytes(out)
        return d

    cases = [
        (
            save(
                "rm13",
                helper.make_node("ReduceMean", ["x"], ["y"], axes=[0, -1], keepdims=0),
                13,
                {"x": x},
                exact_reduce_mean(x, [0, 2], False),
            ),
            "ReduceMean",
            13,
            {"axes": [0, 2], "keepdims": 0},
        ),
        (
            save(
                "rm18_init",
                helper.make_node("ReduceMean", ["x", "axes"], ["y"]),
                18,
                {"x": x},
                exact_reduce_mean(x, [1], True),
                [numpy_helper.from_array(np.array([-2], np.int64), "axes")],
            ),
            "ReduceMean",
            18,
            {"axes": [1], "keepdims": 1, "noop_with_empty_axes": 0},
        ),
        (
            save(
                "mean8", helper.make_node("Mean", ["x", "v"], ["y"]), 8, {"x": x, "v": v}, exact_mean([x, v])
            ),
            "Mean",
            8,
            {},
        ),
    ]
    for d, op, version, attributes in cases:
        code, out, err = run(["check-onnx", str(d), "--json"], tmp_path, capsys)
        report = json.loads(out)
        validate(report, "check-onnx.schema.json")
        assert code == 0, err
        assert (report["op"], report["version"], report["attributes"]) == (op, version, attributes)
        assert report["comparisons"][0]["inexact"] == 0 and report["within"]


def test_onnx_axes_out_of_range_name_the_data_file(
    node_dirs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ReduceMean-18's axes come with the data: an axis out of range names the data file
    that gave it (before, the error named only model.onnx, which holds no axes)."""
    import shutil

    from onnx import numpy_helper

    d = tmp_path / "axes5"
    shutil.copytree(node_dirs["test_reduce_mean_keepdims_random"], d)
    pb = d / "test_data_set_0" / "input_1.pb"
    pb.write_bytes(numpy_helper.from_array(np.array([5], np.int64), "axes").SerializeToString())
    code, out, err = run(["check-onnx", str(d)], tmp_path, capsys)
    assert code == 1 and out == "", out
    (line,) = err.strip().splitlines()
    assert line.startswith(f"error: {d / 'model.onnx'}: ReduceMean-18 (onnx): axis 5 is out of range"), line
    assert line.endswith(f"(the axes from {pb})"), line
    # the axes' dtype is the data's too
    pb.write_bytes(numpy_helper.from_array(np.array([1], np.int32), "axes").SerializeToString())
    code, out, err = run(["check-onnx", str(d)], tmp_path, capsys)
    assert code == 1 and err.startswith(f"error: {pb}: the node's axes 'axes': axes must be int64"), err
