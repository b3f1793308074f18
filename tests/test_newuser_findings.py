"""Regression tests for defects found by trying meancli as a new user, then with
hostile files and arguments.

- ``meancli isa`` with a cache file that cannot be written (its path is a
  directory): the report said ``cached in PATH`` and every run left a
  ``.isa-XXXXXXXX`` temporary file in the cache folder.
- An ``.npz`` at an ``http://`` URL served without range requests
  (``python -m http.server``): ``not a readable .npz archive: The HTTP server
  doesn't appear to support range requests``, although ``.npy`` files from the
  same server were read.
- ``.npy`` shards (a directory, a glob) and a streamed ``.npy`` at such a URL:
  fsspec passes on the whole object for a range request the server ignores;
  ``the object changed since the dataset was opened`` and ``memoryview
  assignment: lvalue and rvalue have different structures``.
- ``check-onnx`` / ``check-model`` on a model whose opset import is 0: exit
  status 2 (usage) with ``opset 'onnx:0': ...``, naming no file.
- A float8 ``.npy`` (ml_dtypes): ``does not accept void8``, with no word of float8.
- A shard directory or zarr store given to ``--axes-from`` or check-model's ``--input``:
  read as a 0-d object array.
- A result too large for memory named its input with several FILEs, not with one; on
  the dask engine it was computed until the process was killed.
- A zarr store with both formats' metadata: zarr's warning on stderr, past ``-q``.
"""

from __future__ import annotations

import functools
import http.server
import io
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import run_cli
from oracles import exact_mean, exact_reduce_mean

import meancli
from meancli.io import remote
from meancli.kernels import isa_choice

# ----------------------------------------------------------------------------- isa cache


def test_an_isa_cache_that_cannot_be_written_is_not_reported_and_leaves_no_temporary_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MEANCLI_CACHE_DIR", str(tmp_path))
    isa_choice.cache_path().mkdir(parents=True)  # a directory where the cache file goes
    seconds = {"avx2": 1.0, "avx512": 0.5}
    choice = isa_choice.choose(["avx2", "avx512"], lambda group, level: seconds[level])
    assert choice.source == "measured"
    assert choice.levels == ("avx512",) * len(choice.levels)
    assert choice.path is None  # nothing was cached: the report must not name a file
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [isa_choice.cache_path().name, isa_choice.cache_path().with_suffix(".lock").name]
    )


def test_an_isa_cache_that_is_written_is_reported(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MEANCLI_CACHE_DIR", str(tmp_path))
    seconds = {"avx2": 0.5, "avx512": 1.0}
    choice = isa_choice.choose(["avx2", "avx512"], lambda group, level: seconds[level])
    assert choice.path == isa_choice.cache_path()
    assert choice.levels == ("avx2",) * len(choice.levels)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".isa-")]


# ----------------------------------------------------------------------------- .npz over plain HTTP


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """http.server's own file handler: no range requests, as ``python -m http.server``."""

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def plain_http(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    root = tmp_path / "served"
    root.mkdir()
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _npz_arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    return {
        "a": rng.standard_normal((5, 7)).astype(np.float32),
        "b": (rng.standard_normal((5, 7)) * 1e30).astype(np.float32),
        "c": np.array([[1e30, 1, 3, -1e30, 0, 0, 0]] * 5, np.float32),
    }


@pytest.mark.parametrize("compressed", [False, True])
def test_an_npz_member_is_read_from_a_server_without_range_requests(
    plain_http: tuple[str, Path], compressed: bool
) -> None:
    url, root = plain_http
    arrays = _npz_arrays()
    (np.savez_compressed if compressed else np.savez)(root / "d.npz", **arrays)
    (named,) = remote.open_url(f"{url}/d.npz:b", None)
    assert np.array_equal(np.asarray(named.data), arrays["b"])

    r = run_cli("reduce-mean", f"{url}/d.npz:c", "--axes", "1", "-o", str(root / "c.npy"), "-q")
    assert r.exit_code == 0, r.stderr
    got = np.load(root / "c.npy")
    assert got.tolist() == [[float(np.float32(4 / 7))]] * 5  # [1e30, 1, 3, -1e30, 0, 0, 0]: exactly 4 / 7
    assert np.array_equal(got, exact_reduce_mean(arrays["c"], [1], keepdims=True))


def test_the_mean_of_every_npz_member_from_a_server_without_range_requests(
    plain_http: tuple[str, Path],
) -> None:
    url, root = plain_http
    arrays = _npz_arrays()
    np.savez(root / "d.npz", **arrays)
    r = run_cli("mean", f"{url}/d.npz", "-o", str(root / "m.npy"), "-q")
    assert r.exit_code == 0, r.stderr
    expected = exact_mean(list(arrays.values()))
    got = np.load(root / "m.npy")
    assert got.view(np.uint32).tolist() == expected.view(np.uint32).tolist()


def test_a_damaged_npz_from_a_server_without_range_requests_is_one_error(
    plain_http: tuple[str, Path],
) -> None:
    url, root = plain_http
    np.savez(root / "d.npz", **_npz_arrays())
    data = (root / "d.npz").read_bytes()
    (root / "half.npz").write_bytes(data[: len(data) // 2])
    r = run_cli("mean", f"{url}/half.npz")
    assert r.exit_code == 1
    assert r.stderr == f"error: {url}/half.npz: not a readable .npz archive: File is not a zip file\n"


def test_shards_and_a_streamed_npy_are_read_from_a_server_without_range_requests(
    plain_http: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = plain_http
    rng = np.random.default_rng(11)
    parts = [(rng.standard_normal((n, 37)) * 1e20).astype(np.float32) for n in (50, 3, 20)]
    (root / "shards").mkdir()
    for i, part in enumerate(parts):
        np.save(root / "shards" / f"part-{i}.npy", part)
    whole = np.concatenate(parts)
    expected = exact_reduce_mean(whole, [0], keepdims=True)
    settings = {
        "MEANCLI_PIECE_BYTES": "1000",
        "MEANCLI_STREAM_MIN_BYTES": "1000",
        "MEANCLI_SLAB_BYTES": "1000",
    }
    # pieces of the shards; before: "the object changed since the dataset was opened"
    r = run_cli(
        "reduce-mean", f"{url}/shards/", "--axes", "0", "-o", str(tmp_path / "d.npy"), "-q", env=settings
    )
    assert r.exit_code == 0, r.stderr
    assert np.load(tmp_path / "d.npy").view(np.uint32).tolist() == expected.view(np.uint32).tolist()
    # one streamed .npy, read in slabs; before: "memoryview assignment: lvalue and rvalue ..."
    r = run_cli(
        "reduce-mean",
        f"{url}/shards/part-0.npy",
        "--axes",
        "0",
        "-o",
        str(tmp_path / "s.npy"),
        "-q",
        env=settings,
    )
    assert r.exit_code == 0, r.stderr
    first = exact_reduce_mean(parts[0], [0], keepdims=True)
    assert np.load(tmp_path / "s.npy").view(np.uint32).tolist() == first.view(np.uint32).tolist()


# ----------------------------------------------------------------------------- opset 0 in a model


def test_a_model_importing_opset_0_is_an_input_error(tmp_path: Path) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    d = tmp_path / "test_opset0"
    (d / "test_data_set_0").mkdir(parents=True)
    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["x"], ["y"], keepdims=0)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 0)]), d / "model.onnx")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (d / "test_data_set_0" / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    y = np.array(2.5, np.float32)
    (d / "test_data_set_0" / "output_0.pb").write_bytes(numpy_helper.from_array(y, "y").SerializeToString())
    r = run_cli("check-onnx", str(d))
    assert r.exit_code == 1
    assert (
        r.stderr
        == f"error: {d / 'model.onnx'}: the model imports opset 0 of ONNX's domain (versions start at 1)\n"
    )


def test_a_float8_npy_is_named_as_such(tmp_path: Path) -> None:
    """numpy saves ml_dtypes' float8 types as 1-byte raw data ('<V1'): the error said
    only ``does not accept void8``."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    path = tmp_path / "f8.npy"
    np.save(path, np.arange(6, dtype=np.float32).astype(ml_dtypes.float8_e4m3fn))
    assert b"V1'" in path.read_bytes()[:80]  # the header's descr
    r = run_cli("reduce-mean", str(path))
    assert r.exit_code == 1
    assert r.stderr == (
        f"error: {path}: ReduceMean-18 (onnx) does not accept void8 (it accepts: uint32, uint64, int32, "
        "int64, float16, float32, float64, bfloat16); 1-byte raw data, as numpy saves ml_dtypes' "
        "float8 types\n"
    )


def test_a_dataset_where_one_whole_array_is_read_is_one_error(tmp_path: Path) -> None:
    """A shard directory (or a zarr store) given to --axes-from or check-model's --input
    became a 0-d object array: ``axes must be int64 ..., found object``, or the runtime's
    own confusion. Each use names the file and what it takes, as --runtime does."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(2):
        np.save(shards / f"part{k}.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    x = tmp_path / "x.npy"
    np.save(x, np.arange(6, dtype=np.float32).reshape(2, 3))
    graph = helper.make_graph(
        [helper.make_node("ReduceMean", ["x"], ["y"], keepdims=0)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
    )
    model = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), model)
    tail = "a zarr array or shard dataset is not one (convert it to .npy first)\n"
    (tmp_path / "list.txt").write_text("nope.npy\n")  # refused before its shards are read
    listed = f"@{tmp_path / 'list.txt'}"
    r = run_cli("reduce-mean", str(x), "--axes-from", listed)
    assert (r.exit_code, r.stderr) == (1, f"error: {listed}: --axes-from takes one whole array; {tail}")
    for argv, why in (
        (["reduce-mean", str(x), "--axes-from", str(shards)], "--axes-from takes one whole array"),
        (
            ["check-model", str(model), "-i", f"x={shards}", "--runtime", "onnx-reference"],
            "--input takes one whole array",
        ),
        (
            ["reduce-mean", str(shards), "--runtime", "onnx-reference"],
            "--runtime hands whole arrays to the runtimes",
        ),
    ):
        r = run_cli(*argv)
        assert (r.exit_code, r.stderr) == (1, f"error: {shards}: {why}; {tail}"), argv


def zero_huge_npy(path: Path) -> Path:
    """A .npy of shape (0, 2**40): no data, and a result of 2**40 elements over axis 0."""
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 1099511627776), }"
    header += " " * (117 - len(header)) + "\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
    assert np.load(path, mmap_mode="r").shape == (0, 2**40)
    return path


def test_a_result_too_large_for_memory_names_its_one_file(tmp_path: Path) -> None:
    """``(0, 2**40)`` reduced over axis 0 is a result of 2**40 elements: its error named
    the file with several FILEs, not with one."""
    path = zero_huge_npy(tmp_path / "zero_huge.npy")
    says = "the result, shape (1, 1099511627776) float32, does not fit in memory\n"
    r = run_cli("reduce-mean", str(path), "--axes", "0")
    assert (r.exit_code, r.stderr) == (1, f"error: {path}: {says}")
    r = run_cli("reduce-mean", str(path), str(path), "--axes", "0")
    assert r.exit_code == 1 and r.stderr.startswith(f"error: {path}: {says}")


def test_a_result_too_large_for_memory_on_dask_is_refused_before_it_runs(tmp_path: Path) -> None:
    """A zarr array of shape (0, 2**34) reduced over axis 0: the dask engine gathered the
    result's blocks until the kernel's OOM killer ended the process (no error line); a
    shard dataset or --workers said only ``the input or its result does not fit in
    memory``. The result that comes back to the process is refused first, the file named."""
    zarr = pytest.importorskip("zarr")
    pytest.importorskip("dask")
    store = tmp_path / "z.zarr"
    zarr.create_array(str(store), shape=(0, 2**34), chunks=(1, 2**20), dtype="float32")
    shards = tmp_path / "shards"
    shards.mkdir()
    npy = zero_huge_npy(shards / "a.npy")
    for argv, says in (
        ([str(store)], f"{store}: the result, shape (1, 17179869184) float32, does not fit in memory"),
        ([str(shards)], f"{shards}: the result, shape (1, 1099511627776) float32, does not fit in memory"),
        (
            [str(npy), "--workers", "1"],
            f"{npy}: the result, shape (1, 1099511627776) float32, does not fit in memory",
        ),
    ):
        r = run_cli("reduce-mean", *argv, "--axes", "0")
        assert (r.exit_code, r.stderr) == (1, f"error: {says}\n"), argv


def test_a_store_with_both_zarr_formats_prints_no_warning(tmp_path: Path) -> None:
    """zarr's ZarrUserWarning (format 3 read where format 2 metadata is also there) was
    printed on stderr past -q, with the warnings module's source line."""
    zarr = pytest.importorskip("zarr")
    v3 = zarr.create_array(str(tmp_path / "both.zarr"), shape=(4, 3), dtype="float32")
    v3[:] = np.arange(12, dtype=np.float32).reshape(4, 3)
    zarr.create_array(str(tmp_path / "v2.zarr"), shape=(4, 3), dtype="float32", zarr_format=2)
    (tmp_path / "both.zarr" / ".zarray").write_bytes((tmp_path / "v2.zarr" / ".zarray").read_bytes())
    out = tmp_path / "m.npy"
    argv = ["reduce-mean", str(tmp_path / "both.zarr"), "--axes", "0", "-o", str(out), "-q"]
    # a process of its own: pytest would catch the warning before it reached stderr
    r = subprocess.run([sys.executable, "-m", "meancli", *argv], capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stderr) == (0, "")
    assert np.load(out).tolist() == [[4.5, 5.5, 6.5]]  # keepdims 1


# ----------------------------------------------------------------------------- a Ctrl-C as the run ends


def test_a_ctrl_c_as_the_run_ends_is_one_line_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A SIGINT that lands after the command finished (its output written) but before
    _exit_as_decided restored the default actions raised KeyboardInterrupt out of
    main(): a traceback (seen once in ~100 runs of ``timeout -s INT``)."""
    import os
    import signal

    from meancli.cli import entry

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    real_getsignal = signal.getsignal
    calls = []

    def getsignal(signum: int) -> object:
        calls.append(signum)
        if len(calls) == 1:
            raise KeyboardInterrupt  # the signal arriving as the handlers are reset
        return real_getsignal(signum)

    def exit_now(status: int) -> None:
        raise SystemExit(status)

    monkeypatch.setattr(signal, "getsignal", getsignal)
    monkeypatch.setattr(os, "_exit", exit_now)
    monkeypatch.setattr(entry.sys, "argv", ["meancli", "--version"])
    monkeypatch.setattr(entry.sys, "stdout", entry.sys.stdout)  # main() wraps it: put back afterwards
    try:
        with pytest.raises(SystemExit) as ended:
            entry.main()
    finally:
        for signum, handler in saved.items():
            signal.signal(signum, handler)
    assert ended.value.code == 130
    out = capsys.readouterr()
    assert out.out == f"meancli {meancli.__version__}\n"
    assert out.err == "error: interrupted\n"


# ----------------------------------------------------------------------------- check-model and stdin


def test_check_model_refuses_stdin_for_two_inputs(tmp_path: Path) -> None:
    """Before: the second ``-`` read an exhausted stdin, ``error: <stdin>: empty file
    (0 bytes), not a .npy file`` (exit status 1), as if the data were at fault."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Mean", ["x", "x2"], ["y"])],
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("x", "x2")],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), model)
    buf = io.BytesIO()
    np.save(buf, np.array([1.0, 2.0], np.float32))
    r = run_cli("check-model", str(model), "--input", "x=-", "--input", "x2=-", stdin=buf.getvalue())
    assert r.exit_code == 2
    assert r.stderr == "error: stdin ('-') can be read only once: give it to one --input\n"


# ----------------------------------------------------------------------------- --storage-option


def test_an_http_storage_option_the_client_refuses_is_named_as_one(plain_http: tuple[str, Path]) -> None:
    """Before: ``error: URL: ClientSession._request() got an unexpected keyword argument
    'a'``, not saying that --storage-option was at fault (aiohttp meets it only as it asks)."""
    url, root = plain_http
    np.save(root / "x.npy", np.arange(4, dtype=np.float32))
    r = run_cli("reduce-mean", f"{url}/x.npy", "--storage-option", "a=1")
    assert r.exit_code == 1
    assert r.stderr == (
        f"error: {url}/x.npy: a --storage-option the filesystem refuses: "
        "ClientSession._request() got an unexpected keyword argument 'a'\n"
    )
    r = run_cli("reduce-mean", f"{url}/x.npy", "--json")
    assert r.exit_code == 0, r.stderr
    assert '"result": [1.5]' in r.stdout


# --------------------------------------------------------------------------- check-onnx refuses
# what the spec forbids (each of these was an internal error or a passing verdict)


def _node_dir(tmp_path: Path, name: str, node: object, opset: int, init: list[object]) -> Path:
    """A check-onnx directory of one node over x (3, 4) float32, with y's expected value
    the mean over every axis (what a node that ignored its wrong parts would give)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    d = tmp_path / name
    (d / "test_data_set_0").mkdir(parents=True)
    graph = helper.make_graph(
        [node],
        name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=init,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]), d / "model.onnx")
    (d / "test_data_set_0" / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    y = exact_reduce_mean(x, None, keepdims=True)
    (d / "test_data_set_0" / "output_0.pb").write_bytes(numpy_helper.from_array(y, "y").SerializeToString())
    return d


def _cases(tmp_path: Path) -> list[tuple[Path, str]]:
    pytest.importorskip("onnx")
    from onnx import helper, numpy_helper

    def axes(name: str, values: object, dtype: object) -> object:
        return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)

    rm = "ReduceMean"
    return [
        (
            _node_dir(tmp_path, "attr18", helper.make_node(rm, ["x"], ["y"], axes=[1]), 18, []),
            "ReduceMean-18 (onnx) has no attribute axes",
        ),
        (
            _node_dir(tmp_path, "keep2", helper.make_node(rm, ["x"], ["y"], keepdims=2), 18, []),
            "keepdims must be",
        ),
        (
            _node_dir(
                tmp_path, "ax32", helper.make_node(rm, ["x", "a"], ["y"]), 18, [axes("a", [1], np.int32)]
            ),
            "axes must be int64 for ReduceMean-18 (onnx), found int32",
        ),
        (
            _node_dir(
                tmp_path, "ax2d", helper.make_node(rm, ["x", "a"], ["y"]), 18, [axes("a", [[1]], np.int64)]
            ),
            "axes must be a 1-D tensor",
        ),
        (
            _node_dir(
                tmp_path,
                "three",
                helper.make_node(rm, ["x", "a", "z"], ["y"]),
                18,
                [axes("a", [1], np.int64), axes("z", [1], np.int64)],
            ),
            "ReduceMean-18 (onnx) takes 1 to 2 input(s), the node has 3",
        ),
        (
            _node_dir(
                tmp_path, "two13", helper.make_node(rm, ["x", "a"], ["y"]), 13, [axes("a", [1], np.int64)]
            ),
            "ReduceMean-13 (onnx) takes 1 input(s), the node has 2",
        ),
        (
            _node_dir(tmp_path, "foo13", helper.make_node(rm, ["x"], ["y"], foo=1), 13, []),
            "ReduceMean-13 (onnx) has no attribute foo",
        ),
    ]


def test_check_onnx_refuses_a_node_its_version_forbids_and_names_the_model(tmp_path: Path) -> None:
    for d, says in _cases(tmp_path):
        r = run_cli("check-onnx", str(d))
        assert r.exit_code == 1, (d.name, r.stderr)
        assert r.stderr.startswith(f"error: {d / 'model.onnx'}: "), r.stderr
        assert says in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_a_runtime_installed_but_broken_is_one_line_exit_1(tmp_path: Path) -> None:
    """A runtime package that is there but fails to import (a missing shared library)."""
    fake = tmp_path / "fake" / "onnxruntime"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text(
        'raise ImportError("libonnxruntime.so.1: cannot open shared object file")\n'
    )
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    env = {"PYTHONPATH": str(tmp_path / "fake")}
    r = run_cli(
        "reduce-mean",
        "x.npy",
        "--axes",
        "0",
        "--runtime",
        "onnxruntime",
        cwd=tmp_path,
        subprocess=True,
        env=env,
    )
    assert r.exit_code == 1, r.stderr
    (line,) = r.stderr.splitlines()
    assert line.startswith("error: --runtime onnxruntime: onnxruntime is installed but cannot be imported")
    assert "cannot open shared object file" in line and "install the onnxruntime extra" in line


# ------------------------------------------------------------- --compare, bfloat16 and --runtime


def test_a_bfloat16_comparison_with_an_inexact_element_reports_it(tmp_path: Path) -> None:
    """The text report's worst element of a bfloat16 --compare was an internal error
    (exit 3: the command line's raw bfloat16 type made from a float)."""
    import ml_dtypes

    x = np.random.default_rng(5).standard_normal((50, 3)).astype(ml_dtypes.bfloat16)
    np.save(tmp_path / "a.npy", x)
    exact = exact_reduce_mean(x, (1,), keepdims=True)
    bits = exact.view(np.uint16).copy()
    bits[7, 0] += 3  # 3 ulp further from zero
    np.save(tmp_path / "got.npy", bits.view(exact.dtype))
    r = run_cli("reduce-mean", str(tmp_path / "a.npy"), "--axes", "1", "--compare", str(tmp_path / "got.npy"))
    assert r.exit_code == 4, r.stderr
    want, got = (str(np.float32(v)) for v in (exact[7, 0], bits.view(exact.dtype)[7, 0]))
    assert f"worst of {tmp_path / 'got.npy'}: index [7, 0]: exact {want}, got {got} (3 ulp)" in r.stdout


def test_skipna_with_a_runtime_is_a_usage_error(tmp_path: Path) -> None:
    """--skipna with --runtime compared the runtime's plain ONNX output with the NaN-skipping
    mean: every output with a NaN was a mismatch."""
    np.save(tmp_path / "x.npy", np.array([[1.0, np.nan], [2.0, 3.0]], np.float32))
    for command in (
        ["reduce-mean", str(tmp_path / "x.npy"), "--axes", "0"],
        ["mean", str(tmp_path / "x.npy")],
    ):
        r = run_cli(*command, "--skipna", "--runtime", "onnx-reference")
        assert r.exit_code == 2, r.stderr
        assert r.stderr.splitlines() == [
            "error: --skipna is meancli's own extension: a runtime runs the ONNX node, which does "
            "not skip NaN; compare it without --skipna"
        ]


@pytest.mark.parametrize(
    ("command", "option"),
    [
        (["reduce-mean", "{x}", "--axes", "0", "-o", "a.npy", "-o", "b.npy"], "--output"),
        (["mean", "{x}", "{x}", "--output", "a.npy", "-o", "b.npy"], "--output"),
        (["reduce-mean", "{x}", "--axes", "0", "--compare", "{r}", "--compare", "{x}"], "--compare"),
        (["mean", "{x}", "--compare", "{r}", "--compare", "{r}"], "--compare"),
    ],
)
def test_an_output_or_a_compared_file_given_twice_is_a_usage_error(
    tmp_path: Path, command: list[str], option: str
) -> None:
    """click keeps the last value of an option that takes one: ``-o a -o b`` wrote only b,
    and ``--compare A --compare B`` compared only B (exit 0 however wrong A was)."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "r.npy", exact_reduce_mean(x, (0,), keepdims=True))
    argv = [a.format(x=tmp_path / "x.npy", r=tmp_path / "r.npy") for a in command]
    r = run_cli(*argv, cwd=tmp_path)
    assert r.exit_code == 2, r.stderr
    assert r.stderr.splitlines()[0].startswith(f"error: {option} is given 2 times; give it once")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.npy", "x.npy"]


def test_the_masked_array_check_while_numpy_ma_is_still_being_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A dask worker's task met numpy.ma partly imported by another thread (after a worker
    restart): ``partially initialized module 'numpy.ma' has no attribute 'MaskedArray'``."""
    import types

    from meancli.kernels.arrays import refuse_masked

    monkeypatch.setitem(sys.modules, "numpy.ma", types.ModuleType("numpy.ma"))  # no MaskedArray yet
    refuse_masked(np.zeros(3))  # a plain array passes
    monkeypatch.undo()
    with pytest.raises(meancli.errors.UsageError, match="masked arrays are not supported"):
        refuse_masked(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))


def test_an_opset_too_long_and_stdin_taken_by_compare_are_said_as_they_are(tmp_path: Path) -> None:
    """A 30-digit opset is a positive integer: the message says the limit; stdin taken by
    --compare is not 'a data FILE'."""
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    run = run_cli("reduce-mean", "x.npy", "--opset", "9" * 30, cwd=tmp_path)
    assert run.exit_code == 2 and "a positive integer of at most 18 digits" in run.stderr, run.stderr
    run = run_cli("reduce-mean", "x.npy", "--axes-from", "-", "--compare", "-", cwd=tmp_path, stdin=b"")
    assert run.exit_code == 2 and "already given as a FILE or the --compare FILE" in run.stderr, run.stderr
