"""Start-up is not the data's read time (tests/test_startup.py checks what a run loads).

- A bfloat16 ``.npy`` (``'<V2'``) is read, reduced and written by the command line as
  its 2-byte values: ``ml_dtypes`` (about a second to import) is never loaded, and
  the values are those of the exact mean rounded once to bfloat16.
- A ``.pb`` input or output needs the onnx package: its import is reported as the
  stage ``import``, apart from ``read`` and ``write``, in the time line and in
  ``--json``'s ``timings_ms`` (allowed by docs/schema/report.schema.json).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import ml_dtypes
import numpy as np
import pytest
from oracles import exact_mean, exact_reduce_mean

BF16 = np.dtype(ml_dtypes.bfloat16)
SCHEMA = json.loads((Path(__file__).resolve().parents[1] / "docs/schema/report.schema.json").read_text())

# meancli's entry point, then its exit status and whether ml_dtypes / onnx were loaded
PROBE = """
import sys
from meancli.cli.entry import main

status = main(sys.argv[1:])
print(status, "ml_dtypes" in sys.modules, "onnx" in sys.modules, file=sys.stderr)
"""


def probe(
    argv: list[str], cwd: Path, stdin: bytes | None = None, **env: str
) -> tuple[int, bool, bool, str, str]:
    """(exit status, ml_dtypes loaded, onnx loaded, stdout, stderr without the probe's line)."""
    environ = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", **env}
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=cwd,
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=300,
        env=environ,
    )
    *rest, last = proc.stderr.decode().splitlines()
    status, ml, onnx = last.split()
    return int(status), ml == "True", onnx == "True", proc.stdout.decode(), "\n".join(rest)


@pytest.fixture
def bf(tmp_path: Path) -> np.ndarray:
    """bf.npy and bg.npy: bfloat16 (3, 5) as numpy saves ml_dtypes' type ('<V2')."""
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((3, 5)) * 100).astype(BF16)
    np.save(tmp_path / "bf.npy", x)
    np.save(tmp_path / "bg.npy", (rng.standard_normal((3, 5)) * 3).astype(BF16))
    return x


def load_bf16(path: Path) -> np.ndarray:
    with open(path, "rb") as fp:
        np.lib.format.read_magic(fp)
        assert np.lib.format.read_array_header_1_0(fp)[2] == np.dtype("V2")  # written as '<V2'
    return np.load(path).view(BF16)


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["reduce-mean", "bf.npy", "--axes", "1", "-o", "out.npy", "--json"], {}),
        (
            ["reduce-mean", "bf.npy", "--axes", "0", "-o", "out.npy", "--json"],
            {"MEANCLI_STREAM_MIN_BYTES": "1"},
        ),
        (["reduce-mean", "-", "--axes", "1", "-o", "out.npy", "--json"], {}),
    ],
    ids=["memory", "streamed", "stdin"],
)
def test_bfloat16_reduce_mean_loads_no_ml_dtypes(
    tmp_path: Path, bf: np.ndarray, argv: list[str], env: dict
) -> None:
    stdin = (tmp_path / "bf.npy").read_bytes() if "-" in argv else None
    status, ml, _, stdout, stderr = probe(argv, tmp_path, stdin, **env)
    assert status == 0, stderr
    assert not ml  # used to cost 1.7 s of "read"
    report = json.loads(stdout)
    jsonschema.validate(report, SCHEMA)
    assert report["inputs"][0]["dtype"] == report["output"]["dtype"] == "bfloat16"
    axes = [int(argv[argv.index("--axes") + 1])]
    want = exact_reduce_mean(bf, axes, keepdims=True)
    assert want.dtype == BF16
    assert load_bf16(tmp_path / "out.npy").tobytes() == want.tobytes()


def test_bfloat16_mean_and_shown_result_load_no_ml_dtypes(tmp_path: Path, bf: np.ndarray) -> None:
    status, ml, _, _, stderr = probe(["mean", "bf.npy", "bg.npy", "-o", "m.npy", "-q"], tmp_path)
    assert (status, ml) == (0, False), stderr
    want = exact_mean([bf, np.load(tmp_path / "bg.npy").view(BF16)])
    assert load_bf16(tmp_path / "m.npy").tobytes() == want.tobytes()
    # without -o the result is shown (--json: as numbers), still without ml_dtypes
    status, ml, _, stdout, stderr = probe(["reduce-mean", "bf.npy", "--axes", "1", "--json"], tmp_path)
    assert (status, ml) == (0, False), stderr
    shown = json.loads(stdout)["result"]
    assert shown == exact_reduce_mean(bf, [1], keepdims=True).astype(np.float64).tolist()


def test_bfloat16_to_pb_and_the_api_still_use_ml_dtypes(tmp_path: Path, bf: np.ndarray) -> None:
    """Where numpy must know the values (an ONNX tensor) or a Python caller gets the
    array, bfloat16 is ml_dtypes' type, also in a process that ran the command line."""
    onnx = pytest.importorskip("onnx")
    from onnx import numpy_helper

    import meancli
    from meancli.cli.entry import main
    from meancli.io.npy_read import read_npy

    assert (
        main(["reduce-mean", str(tmp_path / "bf.npy"), "--axes", "1", "-o", str(tmp_path / "o.pb"), "-q"])
        == 0
    )
    tensor = onnx.TensorProto()
    tensor.ParseFromString((tmp_path / "o.pb").read_bytes())
    assert tensor.data_type == onnx.TensorProto.BFLOAT16
    got = numpy_helper.to_array(tensor)
    assert got.view(np.uint16).tobytes() == exact_reduce_mean(bf, [1], keepdims=True).tobytes()
    array, _ = read_npy(str(tmp_path / "bf.npy"))
    assert array.dtype == BF16
    result = meancli.reduce_mean(array, axes=[1])
    assert result.dtype == BF16
    assert result.tobytes() == exact_reduce_mean(bf, [1], keepdims=True).tobytes()


@pytest.mark.slow  # a real process importing onnx: ~5 s
def test_onnx_import_is_a_stage_of_its_own(tmp_path: Path) -> None:
    """A .pb input: ``import`` in the JSON timings and the time line, before ``read``."""
    pytest.importorskip("onnx")
    from onnx import numpy_helper

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (tmp_path / "x.pb").write_bytes(numpy_helper.from_array(x).SerializeToString())
    status, _, loaded, stdout, stderr = probe(["reduce-mean", "x.pb", "--axes", "1", "--json"], tmp_path)
    assert (status, loaded) == (0, True), stderr
    report = json.loads(stdout)
    jsonschema.validate(report, SCHEMA)
    timings = report["timings_ms"]
    assert list(timings)[:2] == ["import", "read"]
    assert timings["import"] > timings["read"]  # what the onnx package costs is not the file's
    assert report["result"] == (x.astype(np.float64).mean(axis=1, keepdims=True)).tolist()
    status, _, _, stdout, stderr = probe(["reduce-mean", "x.pb", "--axes", "1", "-o", "y.pb"], tmp_path)
    assert status == 0, stderr
    (line,) = [t for t in stdout.splitlines() if t.startswith("time")]
    assert line.startswith("time  import ") and "  read " in line and "  write " in line
    # a .npy input with a .pb output: the import comes before the write
    np.save(tmp_path / "x.npy", x)
    status, _, _, stdout, stderr = probe(
        ["reduce-mean", "x.npy", "--axes", "1", "-o", "y.pb", "--json"], tmp_path
    )
    assert status == 0, stderr
    assert list(json.loads(stdout)["timings_ms"])[-2:] == ["import", "write"]


def test_npy_runs_have_no_import_stage(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    status, ml, onnx, stdout, stderr = probe(["reduce-mean", "x.npy", "--json", "-o", "y.npy"], tmp_path)
    assert (status, ml, onnx) == (0, False, False), stderr
    assert "import" not in json.loads(stdout)["timings_ms"]
