"""The command line: exit status, stdout, stderr and the files left behind.

Every case below is one invocation of ``meancli``. The module-scoped ``ran``
fixture runs all of them once, each in its own empty working directory, and
the tests then look at the results: exit status, stdout, stderr and the files
left in the working directory. Values are compared with numpy.

Cases marked ``real`` run as ``python -m meancli ...`` each (and one test runs
the installed ``.venv/bin/meancli``). The large tables of cases (axes forms,
opset resolution, error messages) would cost ~0.5 s of interpreter start-up
each, so they run in this process through conftest.run_cli, which calls the
entry point ``meancli.cli.entry.main(argv)`` -- what ``python -m meancli``
calls -- with file descriptors 0/1/2 on pipes and the working directory set
per case. ``test_driver_matches_real_runs`` runs a sample of cases both ways
and requires identical results.

Exit statuses (README, "Exit status"): 0 ok, 1 input not acceptable, 2 usage, 3 internal.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from conftest import run_cli

MEANCLI = [sys.executable, "-m", "meancli"]
ENTRY_POINT = Path(sys.executable).parent / "meancli"
BF16 = np.dtype(ml_dtypes.bfloat16)
BF16_NOTE = "was read as bfloat16"
TIMEOUT = 120

# --------------------------------------------------------------------------- input files


def _inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20240611)
    x4 = rng.integers(-50, 50, (2, 3, 4, 5)).astype(np.float32) / 4  # exact sums in float64
    bf = rng.standard_normal((2, 3, 4)).astype(BF16)
    return {
        "x4": x4,  # float32 (2, 3, 4, 5)
        "x3": np.arange(24, dtype=np.float32).reshape(2, 3, 4),
        "f64": rng.standard_normal((3, 4)),
        "i32": np.array([[1, 2, 4], [-7, -8, 1]], dtype=np.int32),
        "i8": np.array([[-7, -8, 1], [5, 6, 1]], dtype=np.int8),
        "scalar": np.array(3.5, dtype=np.float32),
        "a": np.arange(6, dtype=np.float32).reshape(2, 3),
        "a2": np.full((2, 3), 10.0, dtype=np.float32),
        "b": np.array([1.0, 2.0, 3.0], dtype=np.float32),
        "c": np.ones(4, dtype=np.float32),
        "bf": bf,  # bfloat16 (2, 3, 4): written by np.save as '<V2'
        "bf2": (rng.standard_normal((2, 3, 4)) * 4).astype(BF16),
        "empty_f": np.zeros((0, 3), dtype=np.float32),
        "empty_i": np.zeros((0, 3), dtype=np.int32),
        "big_endian": np.arange(6, dtype=">f4").reshape(2, 3),
        "fortran": np.asfortranarray(np.arange(6, dtype=np.float64).reshape(2, 3) ** 2),
        "f16_big": np.full(1000, 60000, dtype=np.float16),
        "i64_big": np.array([2**62, 2**62 + 3, 2**62 + 7], dtype=np.int64),
        "tall": np.arange(6000, dtype=np.float32).reshape(3000, 2),
        "axes_0_last": np.array([0, -1], dtype=np.int64),  # an axes input (--axes-from)
    }


INPUTS = _inputs()

# --------------------------------------------------------------------------- the cases

# name -> argv after `meancli`. "{x4}" is the absolute path of input x4; "out.npy" is
# relative to the case's own (initially empty) working directory.
CASES: dict[str, list[str]] = {}
STDIN: dict[str, str] = {}  # case -> input name piped to stdin (always a real run)
REAL: set[str] = set()  # cases run as their own `python -m meancli` process


def case(name: str, *argv: str, stdin: str | None = None, real: bool = False) -> str:
    assert name not in CASES, name
    CASES[name] = list(argv)
    if stdin is not None:
        STDIN[name] = stdin
        real = True
    if real:
        REAL.add(name)
    return name


@dataclass
class Ran:
    argv: list[str]
    returncode: int
    stdout: bytes
    stderr: str
    cwd: Path

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "replace")

    def files(self) -> list[str]:
        return sorted(os.listdir(self.cwd))

    def load(self, name: str = "out.npy") -> np.ndarray:
        return np.load(self.cwd / name, allow_pickle=False)

    def json(self) -> dict[str, Any]:
        assert self.returncode == 0, self.stderr
        obj: dict[str, Any] = json.loads(self.out)
        return obj


def _env_overrides() -> dict[str, str]:
    return {"COLUMNS": "200", "NO_COLOR": "1", "TERM": "dumb", "PYTHONIOENCODING": "utf-8"}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("FORCE_COLOR", "PY_COLORS"))}
    env.update(_env_overrides())
    return env


def _run(
    argv: list[str],
    cwd: Path,
    stdin: bytes | None = None,
    exe: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> Ran:
    proc = subprocess.run(
        [*(exe or MEANCLI), *argv],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=TIMEOUT,
        env={**_env(), **(env or {})},
    )
    return Ran(argv, proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace"), cwd)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("inputs")
    paths = {}
    for name, array in INPUTS.items():
        paths[name] = d / f"{name}.npy"
        np.save(paths[name], array)
    np.savez(d / "pair.npz", a=INPUTS["a"], c=INPUTS["c"])  # shapes that do not broadcast
    paths["pair"] = d / "pair.npz"
    (d / "text.npy").write_text("not a npy file\n")
    paths["text"] = d / "text.npy"
    paths["missing"] = d / "missing.npy"
    return paths


def _drive(names: list[str], argvs: dict[str, list[str]], base: Path) -> dict[str, Ran]:
    """Run ``names`` in this process, one after another (see the module docstring)."""
    out = {}
    for name in names:
        r = run_cli(*argvs[name], cwd=base / name, env=_env_overrides())
        out[name] = Ran(argvs[name], r.exit_code, r.stdout_bytes, r.stderr, base / name)
    return out


def _case_argv(name: str, data: dict[str, Path]) -> list[str]:
    return [a.format(**{k: str(v) for k, v in data.items()}) for a in CASES[name]]


@pytest.fixture(scope="module")
def ran(data: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    base = tmp_path_factory.mktemp("runs")
    argvs = {name: _case_argv(name, data) for name in CASES}
    for name in CASES:
        (base / name).mkdir()

    def real(name: str) -> dict[str, Ran]:
        stdin = data[STDIN[name]].read_bytes() if name in STDIN else None
        return {name: _run(argvs[name], base / name, stdin)}

    driven = [n for n in CASES if n not in REAL]
    results: dict[str, Ran] = {}
    # the real processes in threads; the in-process runs (which take over fds 0-2) after them
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1)) as pool:
        for part in pool.map(real, [n for n in CASES if n in REAL]):
            results.update(part)
    results.update(_drive(driven, argvs, base))
    return results


def ok(r: Ran) -> Ran:
    assert r.returncode == 0, f"{r.argv}: exit {r.returncode}: {r.stderr}"
    assert "Traceback" not in r.stderr
    return r


def assert_error(r: Ran, code: int, *needles: str, allow_note: bool = False) -> str:
    """Exit ``code``; one ``error:`` line on stderr, no traceback; no file left behind."""
    assert r.returncode == code, f"{r.argv}: exit {r.returncode} (want {code}): {r.stderr!r}"
    assert "Traceback" not in r.stderr, r.stderr
    lines = r.stderr.splitlines()
    if allow_note:  # a bfloat16 input is announced before the error
        lines = [line for line in lines if BF16_NOTE not in line]
    assert len(lines) == 1, f"{r.argv}: stderr is not one line: {r.stderr!r}"
    assert lines[0].startswith("error: "), lines[0]
    assert r.files() == [], f"{r.argv}: left files behind: {r.files()}"
    assert r.stdout == b"", r.stdout
    for needle in needles:
        assert needle.lower() in lines[0].lower(), f"{needle!r} not in {lines[0]!r}"
    return lines[0]


# --------------------------------------------------------------------------- --axes forms

AXES_FORMS = {
    "axes_space": (["--axes", "2", "3"], (2, 3)),
    "axes_negative": (["--axes", "-1"], (3,)),
    "axes_two_negative": (["--axes", "-1", "-3"], (1, 3)),
    "axes_comma": (["--axes", "2,3"], (2, 3)),
    "axes_repeat_option": (["--axes", "2", "--axes", "3"], (2, 3)),
    "axes_equals_comma": (["--axes=2,3"], (2, 3)),
    "axes_equals_one": (["--axes=0"], (0,)),
    "axes_spaces_in_value": (["--axes", " 1 , 3 "], (1, 3)),
    "axes_unsorted": (["--axes", "3", "0"], (0, 3)),
    "axes_all_listed": (["--axes", "0", "1", "2", "3"], (0, 1, 2, 3)),
    "axes_explicitly_empty": (["--axes="], (0, 1, 2, 3)),  # onnx 18: reduce all
    "axes_omitted": ([], (0, 1, 2, 3)),
}
for _name, (_argv, _) in AXES_FORMS.items():
    case(
        _name,
        "reduce-mean",
        "{x4}",
        *_argv,
        "-o",
        "out.npy",
        real=_name == "axes_space",
    )

case("axes_before_file", "reduce-mean", "--axes", "2", "3", "{x4}", "-o", "out.npy")
case("axes_empty_noop", "reduce-mean", "{x4}", "--axes=", "--noop-with-empty-axes", "-o", "out.npy")
case("axes_omitted_noop", "reduce-mean", "{x4}", "--noop-with-empty-axes", "-o", "out.npy")
case("axes_empty_onnx13", "reduce-mean", "{x4}", "--axes=", "--opset", "13", "-o", "out.npy")
case("axes_empty_onnx1", "reduce-mean", "{x4}", "--axes=", "--opset", "1", "-o", "out.npy")
case("axes_empty_openvino", "reduce-mean", "{x4}", "--axes=", "--opset", "openvino:1", "-o", "out.npy")
case("axes_openvino", "reduce-mean", "{x4}", "--axes", "0", "2", "--opset", "openvino:1", "-o", "out.npy")
case("axes_openvino_neg", "reduce-mean", "{x4}", "--axes", "-1", "--opset", "openvino:1", "-o", "out.npy")


def _oracle(x: np.ndarray, axes: tuple[int, ...], keepdims: bool) -> np.ndarray:
    return x.astype(np.float64).mean(axis=axes, keepdims=keepdims).astype(x.dtype)


@pytest.mark.parametrize("name", list(AXES_FORMS))
def test_axes_forms(ran: dict[str, Ran], name: str) -> None:
    r = ok(ran[name])
    got = r.load()
    want = _oracle(INPUTS["x4"], AXES_FORMS[name][1], keepdims=True)
    assert got.dtype == np.float32
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    assert r.files() == ["out.npy"]


def test_axes_before_the_file(ran: dict[str, Ran]) -> None:
    np.testing.assert_array_equal(ok(ran["axes_before_file"]).load(), _oracle(INPUTS["x4"], (2, 3), True))


@pytest.mark.parametrize("name", ["axes_empty_noop", "axes_omitted_noop", "axes_empty_openvino"])
def test_empty_axes_identity(ran: dict[str, Ran], name: str) -> None:
    got = ok(ran[name]).load()
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, INPUTS["x4"])


@pytest.mark.parametrize("name", ["axes_empty_onnx13", "axes_empty_onnx1"])
def test_empty_axes_reduce_all_before_18(ran: dict[str, Ran], name: str) -> None:
    np.testing.assert_array_equal(ok(ran[name]).load(), _oracle(INPUTS["x4"], (0, 1, 2, 3), True))


def test_openvino_axes_drop_dims(ran: dict[str, Ran]) -> None:
    got = ok(ran["axes_openvino"]).load()
    assert got.shape == (3, 5)
    np.testing.assert_array_equal(got, _oracle(INPUTS["x4"], (0, 2), False))
    got = ok(ran["axes_openvino_neg"]).load()
    np.testing.assert_array_equal(got, _oracle(INPUTS["x4"], (3,), False))


# --------------------------------------------------------------------------- opset resolution

RESOLVE = {
    # name: (command, extra argv, (op, domain, version))
    "res_rm_default": ("reduce-mean", [], ("ReduceMean", "onnx", 18)),
    "res_rm_onnx12": ("reduce-mean", ["--opset", "onnx:12"], ("ReduceMean", "onnx", 11)),
    "res_rm_12": ("reduce-mean", ["--opset", "12"], ("ReduceMean", "onnx", 11)),
    "res_rm_1": ("reduce-mean", ["--opset", "1"], ("ReduceMean", "onnx", 1)),
    "res_rm_10": ("reduce-mean", ["--opset", "10"], ("ReduceMean", "onnx", 1)),
    "res_rm_11": ("reduce-mean", ["--opset", "onnx:11"], ("ReduceMean", "onnx", 11)),
    "res_rm_17": ("reduce-mean", ["--opset", "17"], ("ReduceMean", "onnx", 13)),
    "res_rm_18": ("reduce-mean", ["--opset", "onnx:18"], ("ReduceMean", "onnx", 18)),
    "res_rm_future": ("reduce-mean", ["--opset", "999"], ("ReduceMean", "onnx", 18)),
    "res_rm_ov5": ("reduce-mean", ["--opset", "openvino:5", "--axes", "1"], ("ReduceMean", "openvino", 1)),
    "res_rm_ov1": ("reduce-mean", ["--opset", "openvino:1", "--axes", "1"], ("ReduceMean", "openvino", 1)),
    "res_mean_default": ("mean", [], ("Mean", "onnx", 13)),
    "res_mean_onnx7": ("mean", ["--opset", "onnx:7"], ("Mean", "onnx", 6)),
    "res_mean_1": ("mean", ["--opset", "1"], ("Mean", "onnx", 1)),
    "res_mean_5": ("mean", ["--opset", "5"], ("Mean", "onnx", 1)),
    "res_mean_8": ("mean", ["--opset", "8"], ("Mean", "onnx", 8)),
    "res_mean_12": ("mean", ["--opset", "12"], ("Mean", "onnx", 8)),
    "res_mean_13": ("mean", ["--opset", "onnx:13"], ("Mean", "onnx", 13)),
}
for _name, (_cmd, _argv, _) in RESOLVE.items():
    _files = ["{a}", "{a2}"] if _cmd == "mean" else ["{x3}"]
    case(_name, _cmd, *_files, *_argv, "--json")


@pytest.mark.parametrize("name", list(RESOLVE))
def test_opset_resolution(ran: dict[str, Ran], name: str) -> None:
    obj = ran[name].json()
    assert (obj["op"], obj["domain"], obj["version"]) == RESOLVE[name][2]
    assert obj["command"] == RESOLVE[name][0]
    assert ran[name].stderr == ""


def test_json_report_contents(ran: dict[str, Ran], data: dict[str, Path]) -> None:
    obj = ran["res_mean_default"].json()
    assert [i["path"] for i in obj["inputs"]] == [str(data["a"]), str(data["a2"])]
    assert obj["inputs"][0]["shape"] == [2, 3] and obj["inputs"][0]["dtype"] == "float32"
    assert obj["output"]["shape"] == [2, 3] and obj["output"]["dtype"] == "float32"
    np.testing.assert_array_equal(np.array(obj["result"]), (INPUTS["a"] + INPUTS["a2"]) / 2)
    assert set(obj["timings_ms"]) >= {"read", "validate", "kernel"}
    import meancli

    assert obj["meancli_version"] == meancli.__version__


# --------------------------------------------------------------------------- keep-dims defaults

KEEPDIMS = {
    # name: (extra argv, keepdims expected)
    "kd_onnx_default": (["--axes", "1"], True),
    "kd_onnx_no": (["--axes", "1", "--no-keep-dims"], False),
    "kd_onnx_yes": (["--axes", "1", "--keep-dims"], True),
    "kd_onnx11_default": (["--axes", "1", "--opset", "11"], True),
    "kd_onnx1_no": (["--axes", "1", "--opset", "1", "--no-keep-dims"], False),
    "kd_ov_default": (["--axes", "1", "--opset", "openvino:1"], False),
    "kd_ov_yes": (["--axes", "1", "--opset", "openvino:1", "--keep-dims"], True),
    "kd_ov_no": (["--axes", "1", "--opset", "openvino:1", "--no-keep-dims"], False),
    "kd_all_no": (["--no-keep-dims"], False),
}
for _name, (_argv, _) in KEEPDIMS.items():
    case(_name, "reduce-mean", "{x3}", *_argv, "--json")


@pytest.mark.parametrize("name", list(KEEPDIMS))
def test_keep_dims(ran: dict[str, Ran], name: str) -> None:
    obj = ran[name].json()
    argv, keep = KEEPDIMS[name]
    axes = (1,) if "--axes" in argv else (0, 1, 2)
    want = _oracle(INPUTS["x3"], axes, keep)
    assert tuple(obj["output"]["shape"]) == want.shape
    np.testing.assert_array_equal(np.array(obj["result"], dtype=np.float32).reshape(want.shape), want)
    attr = "keep_dims" if obj["domain"] == "openvino" else "keepdims"
    assert obj["attributes"][attr] == int(keep)


# --------------------------------------------------------------------------- values for dtypes

case("int8_openvino", "reduce-mean", "{i8}", "--axes", "1", "--opset", "openvino:1", "-o", "out.npy")
case("int32_onnx", "reduce-mean", "{i32}", "--axes", "1", "-o", "out.npy")
case("float64_onnx", "reduce-mean", "{f64}", "--axes", "0", "-o", "out.npy")
case("scalar_all", "reduce-mean", "{scalar}", "-o", "out.npy")
case("scalar_empty", "reduce-mean", "{scalar}", "--axes=", "-o", "out.npy")
case("mean_broadcast_8", "mean", "{a}", "{b}", "--opset", "8", "-o", "out.npy")
case("mean_three", "mean", "{a}", "{a2}", "{b}", "-o", "out.npy")
case("mean_same_shape_6", "mean", "{a}", "{a2}", "--opset", "onnx:6", "-o", "out.npy")
case("mean_single", "mean", "{a}", "-o", "out.npy")
case("threads_1", "reduce-mean", "{x4}", "--axes", "1", "3", "--threads", "1", "-o", "out.npy")
case("threads_7", "reduce-mean", "{x4}", "--axes", "1", "3", "--threads", "7", "-o", "out.npy")
case("mean_threads_3", "mean", "{a}", "{a2}", "{b}", "--threads", "3", "-o", "out.npy")
case("empty_float_nan", "reduce-mean", "{empty_f}", "--axes", "0", "-o", "out.npy")
case("empty_int_kept", "reduce-mean", "{empty_i}", "--axes", "1", "-o", "out.npy")
case("big_endian", "reduce-mean", "{big_endian}", "--axes", "1", "-o", "out.npy")
case("fortran", "reduce-mean", "{fortran}", "--axes", "0", "-o", "out.npy")
case("f16_no_overflow", "reduce-mean", "{f16_big}", "-o", "out.npy")
case("i64_no_overflow", "reduce-mean", "{i64_big}", "--opset", "openvino:1", "--axes", "0", "-o", "out.npy")


def test_integer_mean_truncates_toward_zero(ran: dict[str, Ran]) -> None:
    got = ok(ran["int8_openvino"]).load()
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, np.array([-4, 4], dtype=np.int8))  # -14/3 -> -4, 12/3 -> 4
    got = ok(ran["int32_onnx"]).load()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, np.array([[2], [-4]], dtype=np.int32))  # 7/3 -> 2, -14/3 -> -4


def test_float64(ran: dict[str, Ran]) -> None:
    got = ok(ran["float64_onnx"]).load()
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, INPUTS["f64"].mean(axis=0, keepdims=True), rtol=1e-15, atol=0)


def test_rank0(ran: dict[str, Ran]) -> None:
    for name in ("scalar_all", "scalar_empty"):
        got = ok(ran[name]).load()
        assert got.shape == () and got.dtype == np.float32
        assert got.item() == 3.5


def test_mean_values(ran: dict[str, Ran]) -> None:
    a, a2, b = INPUTS["a"], INPUTS["a2"], INPUTS["b"]
    np.testing.assert_array_equal(ok(ran["mean_broadcast_8"]).load(), ((a + b) / 2).astype(np.float32))
    got = ok(ran["mean_three"]).load()
    want = ((a.astype(np.float64) + a2 + b) / 3).astype(np.float32)
    assert got.shape == (2, 3) and got.dtype == np.float32
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ok(ran["mean_same_shape_6"]).load(), (a + a2) / 2)
    np.testing.assert_array_equal(ok(ran["mean_single"]).load(), a)


def test_threads_do_not_change_the_result(ran: dict[str, Ran]) -> None:
    one = (ok(ran["threads_1"]).cwd / "out.npy").read_bytes()
    assert (ok(ran["threads_7"]).cwd / "out.npy").read_bytes() == one
    np.testing.assert_array_equal(ran["threads_1"].load(), _oracle(INPUTS["x4"], (1, 3), True))
    a = (ok(ran["mean_three"]).cwd / "out.npy").read_bytes()
    assert (ok(ran["mean_threads_3"]).cwd / "out.npy").read_bytes() == a


def test_output_onto_its_own_input(data: dict[str, Path], tmp_path: Path) -> None:
    """The input may be memory-mapped while the output replaces it."""
    target = tmp_path / "x.npy"
    target.write_bytes(data["x3"].read_bytes())
    r = ok(_run(["reduce-mean", "x.npy", "--axes", "1", "-o", "x.npy", "-q"], tmp_path))
    assert r.stderr == ""
    np.testing.assert_array_equal(np.load(target), _oracle(INPUTS["x3"], (1,), True))
    assert sorted(os.listdir(tmp_path)) == ["x.npy"]


def test_size0(ran: dict[str, Ran]) -> None:
    got = ok(ran["empty_float_nan"]).load()
    assert got.shape == (1, 3) and got.dtype == np.float32 and np.isnan(got).all()
    got = ok(ran["empty_int_kept"]).load()
    assert got.shape == (0, 1) and got.dtype == np.int32


def test_byte_order_and_memory_order(ran: dict[str, Ran]) -> None:
    got = ok(ran["big_endian"]).load()
    assert got.dtype == np.float32  # same type; written in native byte order
    np.testing.assert_array_equal(got, [[1.0], [4.0]])
    got = ok(ran["fortran"]).load()
    np.testing.assert_array_equal(got, INPUTS["fortran"].mean(axis=0, keepdims=True))


def test_wide_accumulation(ran: dict[str, Ran]) -> None:
    got = ok(ran["f16_no_overflow"]).load()
    assert got.dtype == np.float16 and got.shape == (1,)
    assert got[0] == 60000  # float16 accumulates wider: not inf
    got = ok(ran["i64_no_overflow"]).load()
    assert got.dtype == np.int64 and got.shape == ()  # openvino: keep_dims false
    assert int(got) == (3 * 2**62 + 10) // 3  # no int64 overflow in the sum


# --------------------------------------------------------------------------- errors (exit 1)

ERRORS_1 = {
    # name: (argv, words the error line contains)
    "err_mean_int32": (["mean", "{i32}", "{i32}"], ["int32", "Mean-13"]),
    "err_bf16_rm11": (["reduce-mean", "{bf}", "--opset", "11"], ["bfloat16", "ReduceMean-11"]),
    "err_bf16_mean8": (["mean", "{bf}", "{bf2}", "--opset", "8"], ["bfloat16", "Mean-8"]),
    "err_int8_onnx": (["reduce-mean", "{i8}", "--axes", "1"], ["int8", "ReduceMean-18"]),
    "err_mixed_dtypes": (["mean", "{a}", "{f64}"], ["float32", "float64"]),
    "err_mean_broadcast_7": (["mean", "{a}", "{b}", "--opset", "7"], ["Mean-6", "(2, 3)", "(3,)"]),
    "err_mean_broadcast_1": (["mean", "{a}", "{b}", "--opset", "1"], ["Mean-1"]),
    "err_no_broadcast": (["mean", "{a}", "{c}"], ["broadcast"]),
    "err_axis_range": (["reduce-mean", "{x3}", "--axes", "3"], ["axis 3", "rank 3"]),
    "err_axis_range_neg": (["reduce-mean", "{x3}", "--axes", "-4"], ["axis -4"]),
    "err_axis_range_ov": (["reduce-mean", "{x3}", "--axes", "5", "--opset", "openvino:1"], ["axis 5"]),
    "err_axis_huge": (["reduce-mean", "{x3}", "--axes", "9223372036854775807"], ["out of range"]),
    "err_axis_repeat": (["reduce-mean", "{x3}", "--axes", "1", "-2"], ["-2", "1"]),
    "err_axis_repeat_same": (["reduce-mean", "{x3}", "--axes", "1,1"], ["repeat"]),
    "err_axis_repeat_ov": (["reduce-mean", "{x3}", "--axes", "0", "-3", "--opset", "openvino:1"], ["-3"]),
    "err_axis_rank0": (["reduce-mean", "{scalar}", "--axes", "0"], ["rank-0"]),
    "err_axis_rank0_neg": (["reduce-mean", "{scalar}", "--axes", "-1"], ["rank-0"]),
    "err_missing_file": (["reduce-mean", "{missing}"], ["missing.npy"]),
    "err_missing_second": (["mean", "{a}", "{missing}"], ["missing.npy"]),
    "err_not_npy": (["reduce-mean", "{text}"], ["text.npy"]),
    "err_output_is_a_directory": (["reduce-mean", "{x3}", "-o", "."], ["directory"]),
    "err_empty_int_mean": (["reduce-mean", "{empty_i}", "--axes", "0"], ["empty", "int32"]),
    "err_unwritable": (["reduce-mean", "{x3}", "-o", "no/such/dir/out.npy"], ["out.npy"]),
}
for _name, (_argv, _) in ERRORS_1.items():
    case(
        _name,
        *_argv,
        *([] if "-o" in _argv else ["-o", "out.npy"]),
        real=_name == "err_mean_int32",
    )


@pytest.mark.parametrize("name", list(ERRORS_1))
def test_input_errors(ran: dict[str, Ran], name: str) -> None:
    assert_error(ran[name], 1, *ERRORS_1[name][1], allow_note="{bf}" in CASES[name])


# An error about the one FILE's content names it first, as each file's error does with several.
NAMES_ITS_FILE = {
    "err_bf16_rm11": "bf",
    "err_int8_onnx": "i8",
    "err_axis_range": "x3",
    "err_axis_range_neg": "x3",
    "err_axis_range_ov": "x3",
    "err_axis_huge": "x3",
    "err_axis_repeat": "x3",
    "err_axis_repeat_same": "x3",
    "err_axis_repeat_ov": "x3",
    "err_axis_rank0": "scalar",
    "err_axis_rank0_neg": "scalar",
    "err_empty_int_mean": "empty_i",
    "err_not_npy": "text",
    "err_missing_file": "missing",
}


@pytest.mark.parametrize("name", list(NAMES_ITS_FILE))
def test_an_input_error_names_its_one_file(ran: dict[str, Ran], data: dict[str, Path], name: str) -> None:
    line = assert_error(ran[name], 1, allow_note="{bf}" in CASES[name])
    path = str(data[NAMES_ITS_FILE[name]])
    assert line.startswith(f"error: {path}: ") and line.count(path) == 1, line


case("err_mean_one_npz_shapes", "mean", "{pair}", "-o", "out.npy")


def test_mean_of_one_file_names_it(ran: dict[str, Ran], data: dict[str, Path]) -> None:
    line = assert_error(ran["err_mean_one_npz_shapes"], 1, "do not broadcast")
    assert line.startswith(f"error: {data['pair']}: Mean-13 (onnx): shapes (2, 3) (4,)"), line


# --------------------------------------------------------------------------- usage errors (exit 2)

ERRORS_2 = {
    "use_mean_axes": (["mean", "{a}", "--axes", "1"], ["--axes"]),
    "use_mean_axes_eq": (["mean", "{a}", "--axes="], ["--axes"]),
    "use_mean_keepdims": (["mean", "{a}", "--keep-dims"], ["--keep-dims"]),
    "use_mean_no_keepdims": (["mean", "{a}", "--no-keep-dims"], ["--no-keep-dims"]),
    "use_mean_noop": (["mean", "{a}", "--noop-with-empty-axes"], ["--noop-with-empty-axes"]),
    "use_axes_x": (["reduce-mean", "{x3}", "--axes", "x"], ["x"]),
    "use_axes_float": (["reduce-mean", "{x3}", "--axes", "1.5"], ["1.5"]),
    "use_axes_eq_x": (["reduce-mean", "{x3}", "--axes=1,x"], ["x"]),
    "use_axes_no_value": (["reduce-mean", "{x3}", "-o", "out.npy", "--axes"], ["--axes"]),
    "use_axes_int64": (["reduce-mean", "{x3}", "--axes", "99999999999999999999"], ["99999999999999999999"]),
    "use_unknown_option": (["reduce-mean", "{x3}", "--bogus"], ["--bogus"]),
    "use_unknown_command": (["median", "{x3}"], ["median"]),
    "use_threads_zero": (["reduce-mean", "{x3}", "--threads", "0"], ["--threads"]),
    "use_two_files": (["reduce-mean", "{x3}", "{x3}"], []),
    "use_stdin_twice": (["mean", "-", "-"], ["stdin"]),
    "use_axes_empty_and_listed": (["reduce-mean", "{x3}", "--axes", "0", "--axes="], ["--axes="]),
    "use_output_empty": (["reduce-mean", "{x3}", "-o", ""], ["--output", "an empty path"]),
    # --axes= takes one value: the 2 of `--axes=0 2` is no file but an axis left behind
    "use_axes_equals_then_axis": (["reduce-mean", "{x3}", "--axes=0", "2"], ["2: no such file", "an axis"]),
    # a stray comma: no "--axes=A takes one value" (no = was written), nor ",2" taken for a FILE
    "use_axes_comma_space": (["reduce-mean", "{x3}", "--axes", "1,", "2"], ["'1,' has a comma", "by spaces"]),
    "use_axes_space_comma": (["reduce-mean", "{x3}", "--axes", "1", ",2"], ["',2' has a comma", "by spaces"]),
    "use_axes_lone_comma": (["reduce-mean", "{x3}", "--axes", "0", ",", "2"], ["',' has a comma"]),
    "use_axes_double_comma": (["reduce-mean", "{x3}", "--axes=0,,2"], ["'0,,2' has a comma"]),
    # What the selected version lacks or requires: the command line alone decides it.
    "use_ov_no_axes": (
        ["reduce-mean", "{x3}", "--opset", "openvino:1"],
        ["ReduceMean-1 (openvino) requires axes", "--axes-from"],
    ),
    "use_mean_openvino": (
        ["mean", "{a}", "{a2}", "--opset", "openvino:1"],
        [
            "--opset 'openvino:1'",
            "Mean is not an operator of the openvino domain",
            "Mean-1, Mean-6, Mean-8, Mean-13",
        ],
    ),
    "use_noop_13": (
        ["reduce-mean", "{x3}", "--noop-with-empty-axes", "--opset", "13"],
        ["--noop-with-empty-axes: ReduceMean-13 (onnx) has no attribute noop_with_empty_axes"],
    ),
    "use_no_noop_13": (
        ["reduce-mean", "{x3}", "--no-noop-with-empty-axes", "--opset", "13"],
        [
            "--no-noop-with-empty-axes: ReduceMean-13 (onnx) has no attribute noop_with_empty_axes "
            "(its attributes: axes, keepdims)"
        ],
    ),
    "use_noop_1": (
        ["reduce-mean", "{x3}", "--noop-with-empty-axes", "--opset", "1", "--axes", "0"],
        ["ReduceMean-1 (onnx)"],
    ),
    "use_noop_ov": (
        ["reduce-mean", "{x3}", "--noop-with-empty-axes", "--opset", "openvino:1", "--axes="],
        ["noop_with_empty_axes", "openvino"],
    ),
    # decided before any file is read: a missing FILE is not what is reported
    "use_noop_13_missing_file": (
        ["reduce-mean", "{missing}", "--noop-with-empty-axes", "--opset", "13"],
        ["--noop-with-empty-axes"],
    ),
    "use_mean_openvino_missing_file": (["mean", "{missing}", "--opset", "openvino:1"], ["--opset"]),
    "use_noop_13_two_files": (
        ["reduce-mean", "{x3}", "{a}", "--noop-with-empty-axes", "--opset", "13", "-o", "{{stem}}.npy"],
        ["--noop-with-empty-axes"],
    ),
    "use_axes_from_stdin_twice": (["reduce-mean", "-", "--axes-from", "-"], ["--axes-from -", "stdin"]),
}
for _name, (_argv, _) in ERRORS_2.items():
    case(
        _name,
        *_argv,
        *([] if "-o" in _argv else ["-o", "out.npy"]),
        real=_name == "use_axes_x",
    )


@pytest.mark.parametrize("name", list(ERRORS_2))
def test_usage_errors(ran: dict[str, Ran], name: str) -> None:
    assert_error(ran[name], 2, *ERRORS_2[name][1])


# Malformed --opset values: exit status 2, a usage error (README, "Exit status").
MALFORMED_OPSETS = [
    "onnx:",
    "foo:3",
    "-1",
    "1.5",
    "0",
    "onnx:0",
    "",
    "openvino:",
    "onnx:x",
    "onnx:1:2",
]
for _i, _value in enumerate(MALFORMED_OPSETS):
    case(f"opset_bad_rm_{_i}", "reduce-mean", "{x3}", "--axes", "1", "--opset", _value, "-o", "out.npy")
    case(f"opset_bad_mean_{_i}", "mean", "{a}", "--opset", _value, "-o", "out.npy")
_OPSET_IDS = [repr(v) for v in MALFORMED_OPSETS]


@pytest.mark.parametrize("command", ["rm", "mean"])
@pytest.mark.parametrize("index", range(len(MALFORMED_OPSETS)), ids=_OPSET_IDS)
def test_malformed_opset_message(ran: dict[str, Ran], command: str, index: int) -> None:
    r = ran[f"opset_bad_{command}_{index}"]
    assert r.returncode in (1, 2)  # the exact status is checked below
    assert_error(r, r.returncode, "--opset", repr(MALFORMED_OPSETS[index]))


def test_malformed_opset_is_a_usage_error(ran: dict[str, Ran]) -> None:
    codes = {
        (command, value): ran[f"opset_bad_{command}_{i}"].returncode
        for i, value in enumerate(MALFORMED_OPSETS)
        for command in ("rm", "mean")
    }
    assert codes == dict.fromkeys(codes, 2)


# Malformed --axes values (each was once accepted).
case("axes_lone_comma", "reduce-mean", "{x3}", "--axes", ",", "--opset", "openvino:1", "-o", "out.npy")
case("axes_blank", "reduce-mean", "{x3}", "--axes", " ", "--opset", "openvino:1", "-o", "out.npy")
case("axes_double_comma", "reduce-mean", "{x3}", "--axes=0,,2", "-o", "out.npy")
case("axes_unicode_digits", "reduce-mean", "{x3}", "--axes", "\u0661", "-o", "out.npy")  # Arabic-Indic 1


@pytest.mark.parametrize(
    "name", ["axes_lone_comma", "axes_blank", "axes_double_comma", "axes_unicode_digits"]
)
def test_malformed_axes_lists_are_usage_errors(ran: dict[str, Ran], name: str) -> None:
    assert_error(ran[name], 2, "--axes")


def test_opset_zero_message(ran: dict[str, Ran]) -> None:
    line = ran[f"opset_bad_rm_{MALFORMED_OPSETS.index('0')}"].stderr
    assert "start at 1" in line or "positive" in line


# --------------------------------------------------------------------------- no output left behind


def test_failed_run_leaves_an_existing_output_untouched(data: dict[str, Path], tmp_path: Path) -> None:
    np.save(tmp_path / "existing.npy", INPUTS["a"])
    before = (tmp_path / "existing.npy").read_bytes()
    r = _run(["reduce-mean", str(data["x3"]), "--axes", "7", "-o", "existing.npy"], tmp_path)
    assert r.returncode == 1 and r.stderr.startswith("error:")
    assert (tmp_path / "existing.npy").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["existing.npy"]


# --------------------------------------------------------------------------- help, version, entry points

case("version", "--version", real=True)
case("help_root", "--help")
case("help_mean", "mean", "--help")
case("help_rm", "reduce-mean", "--help", real=True)
case("help_rm_short", "reduce-mean", "-h")
case("no_args_rm", "reduce-mean")
case("no_args_root")
case("no_args_mean", "mean")


def test_version(ran: dict[str, Ran]) -> None:
    import meancli

    r = ok(ran["version"])
    assert r.out == f"meancli {meancli.__version__}\n"
    assert r.stderr == ""


def test_help_root(ran: dict[str, Ran]) -> None:
    out = ok(ran["help_root"]).out
    assert "Usage" in out
    assert "mean" in out and "reduce-mean" in out and "--version" in out


def test_help_mean(ran: dict[str, Ran]) -> None:
    out = ok(ran["help_mean"]).out
    assert "Usage" in out and "FILE..." in out
    for option in ("--opset", "--output", "--quiet", "--json"):
        assert option in out
    for option in ("--axes", "--keep-dims", "--noop-with-empty"):
        assert option not in out


@pytest.mark.parametrize("name", ["help_rm", "help_rm_short"])
def test_help_reduce_mean(ran: dict[str, Ran], name: str) -> None:
    out = ok(ran[name]).out
    assert "Usage" in out
    for option in (
        "--axes",
        "--keep-dims",
        "--no-keep-dims",
        "--noop-with-empty",
        "--opset",
        "--output",
        "--quiet",
    ):
        assert option in out


def test_no_arguments_at_all_shows_help(ran: dict[str, Ran], tmp_path: Path) -> None:
    """A bare group prints its help as --help does (lines, on stdout), exit 2."""
    r = ran["no_args_root"]
    assert r.returncode == 2
    assert r.stderr == ""
    lines = r.out.splitlines()
    assert lines[0].startswith("Usage: meancli")
    for command in ("reduce-mean", "mean", "spec"):
        assert any(line.split()[:1] == [command] for line in lines), r.out
    spec = _run(["spec"], tmp_path)
    assert spec.returncode == 2 and spec.out.startswith("Usage: meancli spec") and spec.stderr == ""
    assert any(line.split()[:1] == ["diff"] for line in spec.out.splitlines()), spec.out


@pytest.mark.parametrize("name", ["no_args_rm", "no_args_mean"])
def test_a_command_without_its_file_is_a_one_line_usage_error(ran: dict[str, Ran], name: str) -> None:
    r = ran[name]
    assert r.returncode == 2
    assert r.out == ""
    assert r.stderr.splitlines() == [r.stderr.strip()]
    assert r.stderr.startswith("error: Missing argument"), r.stderr


def test_quiet_and_json_exclude_each_other(data: dict[str, Path], tmp_path: Path) -> None:
    r = _run(["reduce-mean", str(data["x3"]), "--quiet", "--json"], tmp_path)
    assert r.returncode == 2
    assert json.loads(r.stderr)["kind"] == "usage"


def test_entry_point(data: dict[str, Path], tmp_path: Path) -> None:
    assert ENTRY_POINT.exists(), f"{ENTRY_POINT}: the console script is not installed"
    r = ok(
        _run(
            ["reduce-mean", str(data["x3"]), "--axes", "1", "-o", "out.npy", "-q"],
            tmp_path,
            exe=[str(ENTRY_POINT)],
        )
    )
    np.testing.assert_array_equal(r.load(), _oracle(INPUTS["x3"], (1,), True))
    assert r.out == "" and r.stderr == ""


# --------------------------------------------------------------------------- output modes

case("quiet", "reduce-mean", "{x3}", "--axes", "1", "-o", "out.npy", "--quiet")
case("quiet_short", "mean", "{a}", "{a2}", "-o", "out.npy", "-q")
case("quiet_no_o", "reduce-mean", "{x3}", "--axes", "1", "-q")
case("shown", "reduce-mean", "{x3}", "--axes", "0", "1", real=True)
case("shown_truncated", "reduce-mean", "{tall}", "--axes", "1")
case("shown_scalar", "reduce-mean", "{x3}", "--axes", "0", "1", "2", "--no-keep-dims")
case("report_with_o", "reduce-mean", "{x3}", "--axes", "1", "-o", "out.npy")
case("stdout_npy", "reduce-mean", "{x3}", "--axes", "1", "-o", "-", real=True)
case("stdout_npy_mean", "mean", "{a}", "{b}", "-o", "-")
case("stdin_npy", "reduce-mean", "-", "--axes", "2", "-o", "out.npy", stdin="x3")
case("stdin_to_stdout", "reduce-mean", "-", "--axes", "0", "-o", "-", "-q", stdin="x3")


def test_quiet_prints_nothing(ran: dict[str, Ran]) -> None:
    for name in ("quiet", "quiet_short"):
        r = ok(ran[name])
        assert r.stdout == b"" and r.stderr == ""
        assert r.files() == ["out.npy"]
    np.testing.assert_array_equal(ran["quiet"].load(), _oracle(INPUTS["x3"], (1,), True))


def test_quiet_without_output_prints_nothing(ran: dict[str, Ran]) -> None:
    r = ok(ran["quiet_no_o"])
    assert r.stdout == b"" and r.stderr == ""


def test_result_shown_without_output(ran: dict[str, Ran]) -> None:
    r = ok(ran["shown"])
    want = _oracle(INPUTS["x3"], (0, 1), True).ravel()  # [10., 11., 12., 13.]
    numbers = [float(v) for v in re.findall(r"-?\d+\.\d*", r.out.split("\n", 3)[-1])]
    for value in want:
        assert float(value) in numbers, (value, r.out)
    assert "ReduceMean-18 (onnx)" in r.out
    assert "(2, 3, 4)" in r.out and "(1, 1, 4)" in r.out and "float32" in r.out
    assert r.files() == []
    scalar = ok(ran["shown_scalar"])
    assert scalar.out.rstrip().splitlines()[-1].strip() == "11.5"


def test_large_result_shown_truncated(ran: dict[str, Ran]) -> None:
    r = ok(ran["shown_truncated"])
    assert "..." in r.out
    assert len(r.out.splitlines()) < 30
    numbers = {float(v) for v in re.findall(r"-?\d+\.\d*(?:e[-+]?\d+)?", r.out.split(" kernels)", 1)[1])}
    assert {0.5, 2.5, 5996.5, 5998.5} <= numbers  # the first and the last values


def test_report_shows_long_paths_in_full(data: dict[str, Path], tmp_path: Path) -> None:
    deep = tmp_path / "a_rather_long_directory_name_for_testing" / "another_long_subdirectory_level"
    deep.mkdir(parents=True)
    path = deep / "input_tensor_with_a_long_name.npy"
    path.write_bytes(data["x3"].read_bytes())
    r = ok(_run(["reduce-mean", str(path), "--axes", "1"], tmp_path, env={"COLUMNS": "80"}))
    assert "…" not in r.out
    assert str(path) in r.out


def test_report_names_version_input_output_and_stages(ran: dict[str, Ran], data: dict[str, Path]) -> None:
    out = ok(ran["report_with_o"]).out
    assert "ReduceMean-18 (onnx)" in out
    assert str(data["x3"]) in out and "out.npy" in out
    assert "(2, 3, 4)" in out and "(2, 1, 4)" in out
    for stage in ("read", "validate", "kernel", "write"):
        assert stage in out


def test_stdout_npy(ran: dict[str, Ran]) -> None:
    r = ok(ran["stdout_npy"])
    got = np.load(io.BytesIO(r.stdout), allow_pickle=False)
    np.testing.assert_array_equal(got, _oracle(INPUTS["x3"], (1,), True))
    assert "ReduceMean-18 (onnx)" in r.stderr  # the human report moved to stderr
    assert r.files() == []
    r = ok(ran["stdout_npy_mean"])
    got = np.load(io.BytesIO(r.stdout), allow_pickle=False)
    np.testing.assert_array_equal(got, (INPUTS["a"] + INPUTS["b"]) / 2)
    assert "Mean-13 (onnx)" in r.stderr


# Binary data to or from a terminal: the command line forgot a redirection, a
# usage error (exit 2) decided before any input is read (a missing FILE is not
# what is reported).
TERMINAL_RUNS = {
    "-o - to a terminal": (["reduce-mean", "{x3}", "--axes", "1", "-o", "-"], "stdout"),
    "mean -o - to a terminal": (["mean", "{missing}", "{a}", "-o", "-"], "stdout"),
    "- from a terminal": (["reduce-mean", "-", "--axes", "1", "-o", "out.npy"], "stdin"),
    "mean - from a terminal": (["mean", "{missing}", "-", "-o", "out.npy"], "stdin"),
    "--axes-from - from a terminal": (
        ["reduce-mean", "{missing}", "--axes-from", "-", "-o", "out.npy"],
        "stdin",
    ),
}


@pytest.mark.parametrize("name", list(TERMINAL_RUNS))
def test_binary_is_never_written_to_or_read_from_a_terminal(
    data: dict[str, Path], tmp_path: Path, name: str
) -> None:
    pytest.importorskip("pty")
    argv, stream = TERMINAL_RUNS[name]
    argv = [a.format(**{k: str(v) for k, v in data.items()}) for a in argv]
    controller, terminal = os.openpty()
    try:
        proc = subprocess.run(
            [*MEANCLI, *argv],
            cwd=tmp_path,
            stdin=terminal if stream == "stdin" else subprocess.DEVNULL,
            stdout=terminal if stream == "stdout" else subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
            env=_env(),
        )
    finally:
        os.close(terminal)
        os.close(controller)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1, lines
    want = (
        "error: -o -: refusing to write binary .npy data to a terminal"
        if stream == "stdout"
        else "error: <stdin>: refusing to read binary .npy data from a terminal"
    )
    assert lines[0].startswith(want), lines
    assert os.listdir(tmp_path) == []


case("axes_from_stdin", "reduce-mean", "{x3}", "--axes-from", "-", "-o", "out.npy", stdin="axes_0_last")


def test_axes_from_stdin(ran: dict[str, Ran]) -> None:
    np.testing.assert_array_equal(ok(ran["axes_from_stdin"]).load(), _oracle(INPUTS["x3"], (0, 2), True))


def test_stdin(ran: dict[str, Ran]) -> None:
    np.testing.assert_array_equal(ok(ran["stdin_npy"]).load(), _oracle(INPUTS["x3"], (2,), True))
    r = ok(ran["stdin_to_stdout"])
    assert r.stderr == ""
    got = np.load(io.BytesIO(r.stdout), allow_pickle=False)
    np.testing.assert_array_equal(got, _oracle(INPUTS["x3"], (0,), True))


# --------------------------------------------------------------------------- bfloat16 (<V2)

case("bf16_rm", "reduce-mean", "{bf}", "--axes", "2", "-o", "out.npy")
case("bf16_rm_ov", "reduce-mean", "{bf}", "--axes", "-1", "--opset", "openvino:1", "-o", "out.npy")
case("bf16_mean", "mean", "{bf}", "{bf2}", "-o", "out.npy", real=True)
case("bf16_stdout", "reduce-mean", "{bf}", "--axes", "2", "-o", "-")
case("bf16_quiet", "mean", "{bf}", "{bf2}", "-o", "out.npy", "-q")


def _bf16_bits(a: np.ndarray) -> np.ndarray:
    assert a.dtype.itemsize == 2
    return np.ascontiguousarray(a).view(np.uint16)


def _bf16_oracle_reduce(axis: int, keepdims: bool) -> np.ndarray:
    # the reduced axis has 4 elements: the float64 mean of bfloat16 values is exact in float32,
    # so converting it to bfloat16 is the one correctly rounded result.
    x = INPUTS["bf"].astype(np.float64)
    return x.mean(axis=axis, keepdims=keepdims).astype(np.float32).astype(BF16)


def _read_header_descr(raw: bytes) -> str:
    """The descr of a .npy header, as written (np.load would not show '<V2' vs '|V2')."""
    assert raw[:6] == b"\x93NUMPY", raw[:10]
    size = 2 if raw[6] == 1 else 4
    length = int.from_bytes(raw[8 : 8 + size], "little")
    text = raw[8 + size : 8 + size + length].decode("latin1")
    m = re.search(r"'descr':\s*'([^']*)'", text)
    assert m, text
    return m.group(1)


@pytest.mark.parametrize(("name", "keepdims"), [("bf16_rm", True), ("bf16_rm_ov", False)])
def test_bfloat16_reduce(ran: dict[str, Ran], name: str, keepdims: bool) -> None:
    r = ok(ran[name])
    raw = (r.cwd / "out.npy").read_bytes()
    assert _read_header_descr(raw) in ("<V2", "|V2")
    got = r.load()
    assert got.dtype.kind == "V" and got.dtype.itemsize == 2  # numpy reads <V2 as raw 2-byte voids
    want = _bf16_oracle_reduce(2, keepdims)
    assert got.shape == want.shape
    np.testing.assert_array_equal(_bf16_bits(got), _bf16_bits(want))
    assert r.stderr.count(BF16_NOTE) == 1, r.stderr


def test_bfloat16_mean_notes_once_for_two_files(ran: dict[str, Ran]) -> None:
    r = ok(ran["bf16_mean"])
    got = r.load()
    sums = INPUTS["bf"].astype(np.float64) + INPUTS["bf2"].astype(np.float64)
    want = (sums / 2).astype(np.float32).astype(BF16)  # exact in float32: one rounding
    np.testing.assert_array_equal(_bf16_bits(got), _bf16_bits(want))
    assert r.stderr.count(BF16_NOTE) == 1, r.stderr
    assert ran["bf16_quiet"].stderr == ""  # --quiet: not even the note


def test_bfloat16_to_stdout(ran: dict[str, Ran]) -> None:
    r = ok(ran["bf16_stdout"])
    assert _read_header_descr(r.stdout) in ("<V2", "|V2")
    got = np.load(io.BytesIO(r.stdout), allow_pickle=False)
    np.testing.assert_array_equal(_bf16_bits(got), _bf16_bits(_bf16_oracle_reduce(2, True)))
    assert r.stderr.count(BF16_NOTE) == 1, r.stderr


# --------------------------------------------------------------------------- the driver is faithful

PARITY = [
    "axes_repeat_option",
    "res_rm_onnx12",
    "err_bf16_mean8",
    "opset_bad_rm_0",
    "report_with_o",
    "help_rm_short",
]


def _normalized(text: str) -> str:
    """Without the timings, which differ from run to run, and the instruction
    set, which each process measures for itself as it loads the kernels."""
    text = re.sub(r'"timings_ms": \{[^}]*\}', '"timings_ms": {}', text)
    text = re.sub(r'"isa": "\w+"', '"isa": "ISA"', text)
    text = re.sub(r"\w+ kernels\)", "ISA kernels)", text)
    return re.sub(r"\d+\.\d+ ms", "T ms", text)


@pytest.mark.parametrize("name", PARITY)
def test_driver_matches_real_runs(
    ran: dict[str, Ran], data: dict[str, Path], tmp_path: Path, name: str
) -> None:
    driven = ran[name]
    assert name not in REAL
    real = _run(_case_argv(name, data), tmp_path)
    assert real.returncode == driven.returncode
    assert _normalized(real.stderr) == _normalized(driven.stderr)
    assert _normalized(real.out) == _normalized(driven.out)
    assert sorted(os.listdir(tmp_path)) == driven.files()
    for f in driven.files():
        assert (tmp_path / f).read_bytes() == (driven.cwd / f).read_bytes()


# --------------------------------------------------------------------------- the batch itself


def test_every_case_was_checked() -> None:
    """A case nobody looks at is a typo; keep the table honest."""
    source = Path(__file__).read_text(encoding="utf-8")
    table_driven = set(AXES_FORMS) | set(RESOLVE) | set(KEEPDIMS) | set(ERRORS_1) | set(ERRORS_2)
    assert set(PARITY) <= set(CASES)
    for name in CASES:
        if name in table_driven or name.startswith("opset_bad_"):
            continue
        assert source.count(f'"{name}"') >= 2, f"case {name} is run but never checked"


def test_report_shows_text_that_looks_like_markup(tmp_path: Path) -> None:
    """The rich report prints paths and results as they are: a result that
    starts with nan or inf, or a path in brackets, is not read as a style tag."""
    np.save(tmp_path / "a.npy", np.array([np.nan, np.inf, 1], np.float32))
    np.save(tmp_path / "b.npy", np.array([np.nan, -np.inf, 1], np.float32))
    ran = _run(["mean", "a.npy", "b.npy"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.decode().splitlines()[-1] == "[nan, nan,  1.]"
    np.save(tmp_path / "[bold]x.npy", np.ones((2, 3), np.float32))
    ran = _run(["reduce-mean", "[bold]x.npy", "--axes", "1", "-o", "[out].npy"], tmp_path)
    assert ran.returncode == 0, ran.stderr
    text = ran.stdout.decode()
    assert "[bold]x.npy" in text and "[out].npy" in text
    np.testing.assert_array_equal(np.load(tmp_path / "[out].npy"), [[1.0], [1.0]])
