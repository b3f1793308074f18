"""Files from other tools: .npz archives read by the one .npy reader, numpy's member
lookup, ONNX tensor files (.pb), --axes-from, and results printed alike for every float.

The seven cases of the issue "Files from other tools" are the ``test_case_N_*`` tests.
Values are checked against numpy (np.load, float64 means) and onnx.numpy_helper.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from conftest import Result, run_cli
from onnx import TensorProto, helper, numpy_helper

from meancli.errors import InputFileError, SpecViolation, UnsupportedDtypeFile, extra_hint
from meancli.io import source as streaming
from meancli.io import thresholds
from meancli.io.messages import split_member
from meancli.io.onnx_tensor import read_tensor_file, write_tensor_file
from meancli.io.registry import Opening, open_input, read_tensor
from meancli.ops.opset import resolve
from meancli.ops.validate import axes_input

BF16 = np.dtype(ml_dtypes.bfloat16)
MEANCLI = [sys.executable, "-m", "meancli"]


def open_input_args(arg: str, **how: bool) -> list[Any]:
    """The input registry's NamedArrays of ``arg``, opened as ``how`` says (Opening's fields)."""
    return open_input(arg, Opening(**how))


def raw_npy(header: str, data: bytes = b"", version: tuple[int, int] = (1, 0)) -> bytes:
    """A .npy file with this exact header text (no padding added)."""
    text = header.encode("latin1")
    size = 2 if version == (1, 0) else 4
    return b"\x93NUMPY" + bytes(version) + len(text).to_bytes(size, "little") + text + data


def saved(a: np.ndarray, *, allow_pickle: bool = False) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=allow_pickle)
    return buf.getvalue()


def zipped(members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def error_of(arg: str, **kwargs: Any) -> str:
    with pytest.raises(InputFileError) as info:
        open_input_args(arg, **kwargs)
    text = str(info.value)
    assert "\n" not in text
    return text


def cli(*argv: str, cwd: Path, env: dict[str, str] | None = None) -> Result:
    return run_cli(*argv, cwd=cwd, env=env)


# --------------------------------------------------------------------------- the seven cases


def big_header_npy(a: np.ndarray, size: int) -> bytes:
    """``a`` as a .npy whose header is padded (with spaces, as the format allows) to ``size`` bytes."""
    text = f"{{'descr': {a.dtype.str!r}, 'fortran_order': False, 'shape': {a.shape!r}, }}"
    total = 10 + size
    text += " " * (total - 10 - len(text) - 1) + "\n"
    return raw_npy(text, a.tobytes())


def test_case_1_member_with_a_20_kb_header(tmp_path: Path) -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    data = big_header_npy(a, 20_000)
    (tmp_path / "a.npy").write_bytes(data)
    for compression in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        (tmp_path / "a.npz").write_bytes(zipped({"x.npy": data}, compression))
        (item,) = open_input_args(str(tmp_path / "a.npz"))
        assert item.name == f"{tmp_path / 'a.npz'}:x"
        np.testing.assert_array_equal(item.data, a)
    (plain,) = open_input_args(str(tmp_path / "a.npy"))
    np.testing.assert_array_equal(plain.data, a)
    r = cli("reduce-mean", "a.npz:x", "--axes", "1", "-o", "out.npy", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), a.astype(np.float64).mean(1, keepdims=True))


def test_case_2_member_names_with_colons_and_slashes(tmp_path: Path) -> None:
    kernel = np.arange(6, dtype=np.float32).reshape(2, 3)
    (tmp_path / "d:x").mkdir()  # a ':' in the directory too
    path = tmp_path / "d:x" / "data.npz"
    np.savez(path, **{"dense/kernel:0": kernel, "dense/bias:0": np.ones(3, np.float32)})
    (item,) = open_input_args(f"{path}:dense/kernel:0")
    assert item.name == f"{path}:dense/kernel:0"
    np.testing.assert_array_equal(item.data, kernel)
    assert split_member(f"{path}:dense/kernel:0") == (str(path), "dense/kernel:0")
    r = cli("reduce-mean", "d:x/data.npz:dense/kernel:0", "--axes", "0", "-o", "out.npy", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), [[1.5, 2.5, 3.5]])


def test_case_3_member_by_stored_name_or_without_npy(tmp_path: Path) -> None:
    path = tmp_path / "data.npz"
    b = np.array([1.0, 2.0], np.float32)
    np.savez(path, b=b)
    for name in ("b", "b.npy"):
        (item,) = open_input_args(f"{path}:{name}")
        np.testing.assert_array_equal(item.data, b)
        assert item.name == f"{path}:{name}"  # the name it was asked for
    # numpy's order: the name as stored first, then NAME.npy
    other = np.array([7.0], np.float32)
    (tmp_path / "two.npz").write_bytes(zipped({"b": saved(other), "b.npy": saved(b)}))
    np.testing.assert_array_equal(open_input_args(f"{tmp_path / 'two.npz'}:b")[0].data, other)
    np.testing.assert_array_equal(open_input_args(f"{tmp_path / 'two.npz'}:b.npy")[0].data, b)


@pytest.mark.parametrize("stream", [False, True])
def test_a_member_is_shown_by_the_name_asked_for_never_another_members(
    tmp_path: Path, stream: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """np.savez(**{'b.npy': x, 'b': y}) stores b.npy.npy and b.npy: 'b.npy' finds y, and
    must not be shown as 'b'; 'b.npy.npy' finds x, and must not be shown as 'b.npy'."""
    if stream:
        monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 1)
    x, y = np.arange(3.0), np.ones(2)
    path = tmp_path / "tf.npz"
    np.savez(path, **{"b.npy": x, "b": y})
    for name, value in [("b", y), ("b.npy", y), ("b.npy.npy", x)]:
        (item,) = open_input_args(f"{path}:{name}", stream=stream)
        assert item.name == f"{path}:{name}"
        data = item.data.read_all() if stream else item.data
        np.testing.assert_array_equal(data, value)
    # every member: each by a name that finds it (numpy's short name only where it does)
    assert [item.name for item in open_input_args(str(path))] == [f"{path}:b.npy.npy", f"{path}:b"]
    assert error_of(f"{path}:zz") == f"{path}: no array named 'zz' (the archive holds: b.npy.npy, b)"
    r = cli("reduce-mean", "tf.npz:b.npy.npy", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["inputs"][0]["path"] == "tf.npz:b.npy.npy"


def test_case_4_empty_archive_says_so(tmp_path: Path) -> None:
    path = tmp_path / "empty.npz"
    np.savez(path)
    assert error_of(str(path)) == f"{path}: the .npz archive holds no arrays"
    (tmp_path / "dirs.npz").write_bytes(zipped({"sub/": b""}))
    assert error_of(str(tmp_path / "dirs.npz")).endswith("the .npz archive holds no arrays")


def test_case_5_object_member_gets_meanclis_message(tmp_path: Path) -> None:
    data = saved(np.array([1, None], dtype=object), allow_pickle=True)
    (tmp_path / "o.npy").write_bytes(data)
    (tmp_path / "o.npz").write_bytes(zipped({"a.npy": data}))
    plain = error_of(str(tmp_path / "o.npy"))
    member = error_of(str(tmp_path / "o.npz"))
    assert "object arrays are not supported (they need pickle)" in plain
    assert member == plain.replace(str(tmp_path / "o.npy"), f"{tmp_path / 'o.npz'}:a")
    assert "allow_pickle" not in member


def test_case_6_huge_claim_in_a_member_is_truncated_data(tmp_path: Path) -> None:
    data = raw_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }\n", bytes(16))
    (tmp_path / "t.npy").write_bytes(data)
    for compression in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        (tmp_path / "t.npz").write_bytes(zipped({"a.npy": data}, compression))
        plain = error_of(str(tmp_path / "t.npy"))
        member = error_of(str(tmp_path / "t.npz"))
        assert "truncated data" in plain and "file holds 16" in plain
        assert member == plain.replace(str(tmp_path / "t.npy"), f"{tmp_path / 't.npz'}:a")


def test_case_7_bfloat16_results_print_as_floats(tmp_path: Path) -> None:
    np.save(tmp_path / "z.npy", np.zeros((2, 2), BF16))
    np.save(tmp_path / "h.npy", np.array([[0.5, 1.0], [0.25, 3.0]], BF16))
    np.save(tmp_path / "f.npy", np.zeros((2, 2), np.float32))
    shown = {}
    for name in ("z", "f"):
        r = cli("reduce-mean", f"{name}.npy", "--axes", "0", "--no-keep-dims", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        shown[name] = r.stdout.strip().splitlines()[-1]
    assert shown["z"] == shown["f"] == "[0., 0.]"
    r = cli("reduce-mean", "h.npy", "--axes", "0", "--no-keep-dims", cwd=tmp_path)
    assert r.stdout.strip().splitlines()[-1] == "[0.375, 2.   ]"  # as float32 [0.375, 2.] prints
    assert np.array2string(np.array([0.375, 2.0], np.float32), separator=", ") == "[0.375, 2.   ]"


# --------------------------------------------------------------------------- one reader, one message


MALFORMED = {
    "bad_magic": b"\x93NUMPX\x01\x00" + bytes(10),
    "version_9": b"\x93NUMPY\x09\x00" + bytes(10),
    "header_cut": raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n")[:20],
    "not_a_dict": raw_npy("[1, 2]\n"),
    "extra_key": raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", bytes(8)),
    "structured": raw_npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }\n", bytes(8)),
    "negative_dim": raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n"),
    "call": raw_npy("{'descr': __import__('os'), 'fortran_order': False, 'shape': (2,), }\n"),
    "truncated": raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\n", bytes(8)),
    "trailing": raw_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n", bytes(8)),
    "header_over_1_mib": raw_npy("{" + " " * (1 << 20) + "}\n", version=(2, 0)),
    "string_dtype": raw_npy("{'descr': 'T', 'fortran_order': False, 'shape': (1,), }\n", bytes(16)),
    "empty": b"",
}


@pytest.mark.parametrize(
    "compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED], ids=["stored", "deflated"]
)
@pytest.mark.parametrize("name", list(MALFORMED))
def test_member_and_file_get_the_same_message(tmp_path: Path, name: str, compression: int) -> None:
    data = MALFORMED[name]
    (tmp_path / "f.npy").write_bytes(data)
    (tmp_path / "f.npz").write_bytes(zipped({"m.npy": data}, compression))
    plain = error_of(str(tmp_path / "f.npy"))
    member = error_of(f"{tmp_path / 'f.npz'}:m")
    assert member == plain.replace(str(tmp_path / "f.npy"), f"{tmp_path / 'f.npz'}:m")


def test_stdin_gets_the_same_message(tmp_path: Path) -> None:
    data = MALFORMED["extra_key"]
    (tmp_path / "f.npy").write_bytes(data)
    r = subprocess.run(
        [*MEANCLI, "reduce-mean", "-"],
        input=data,
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert r.returncode == 1
    assert r.stderr.decode().strip() == "error: " + error_of(str(tmp_path / "f.npy")).replace(
        str(tmp_path / "f.npy"), "<stdin>"
    )


def test_missing_member_lists_the_names(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    np.savez(path, x=np.ones(2), **{"y:0": np.ones(2)})
    assert error_of(f"{path}:zz") == f"{path}: no array named 'zz' (the archive holds: x, y:0)"


def test_member_of_a_file_that_is_not_an_archive(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.ones(2))
    assert "not an .npz archive" in error_of(f"{tmp_path / 'a.npy'}:x")


def test_a_path_holding_a_colon_is_a_path(tmp_path: Path) -> None:
    path = tmp_path / "a:b.npy"
    np.save(path, np.arange(3.0))
    (tmp_path / "a").write_bytes(b"not an archive")
    np.testing.assert_array_equal(open_input_args(str(path))[0].data, np.arange(3.0))


def test_non_npy_member_is_named(tmp_path: Path) -> None:
    (tmp_path / "a.npz").write_bytes(zipped({"notes.txt": b"hello", "x.npy": saved(np.ones(2))}))
    assert error_of(str(tmp_path / "a.npz")) == (
        f"{tmp_path / 'a.npz'}:notes.txt: not a .npy file (it does not start with \\x93NUMPY)"
    )


def test_crc_damage_is_an_input_error(tmp_path: Path) -> None:
    data = bytearray(zipped({"a.npy": saved(np.ones(100, np.float32))}))
    at = data.find(b"\x00\x00\x80?")
    data[at + 3] = ord(">")
    (tmp_path / "a.npz").write_bytes(bytes(data))
    assert "CRC" in error_of(str(tmp_path / "a.npz")).upper()


def test_format_is_judged_by_content(tmp_path: Path) -> None:
    a = np.arange(4, dtype=np.int32)
    (tmp_path / "npy.pb").write_bytes(saved(a))  # .npy bytes under a .pb name
    np.savez(tmp_path / "x.npz", a=a)
    os.replace(tmp_path / "x.npz", tmp_path / "archive.npy")  # an archive under a .npy name
    np.testing.assert_array_equal(open_input_args(str(tmp_path / "npy.pb"))[0].data, a)
    np.testing.assert_array_equal(open_input_args(str(tmp_path / "archive.npy"))[0].data, a)
    (tmp_path / "t.bin").write_bytes(numpy_helper.from_array(a).SerializeToString())
    assert "not a .npy file" in error_of(str(tmp_path / "t.bin"))


# --------------------------------------------------------------------------- large members stream


@pytest.mark.parametrize(
    "compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED], ids=["stored", "deflated"]
)
def test_large_member_streams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compression: int) -> None:
    a = np.arange(1000, dtype=">f8").reshape(10, 100)
    (tmp_path / "a.npz").write_bytes(zipped({"a.npy": saved(a), "s.npy": saved(np.ones(2))}, compression))
    monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 1000)
    big, small = open_input_args(str(tmp_path / "a.npz"), stream=True)
    assert isinstance(big.data, streaming.Source) and isinstance(small.data, np.ndarray)
    assert big.name == f"{tmp_path / 'a.npz'}:a"
    try:
        np.testing.assert_array_equal(big.data.read_all(), a)
    finally:
        big.data.finish()
    ((_, source, _),) = open_input(f"{tmp_path / 'a.npz'}:a", Opening(stream=True))
    assert source is not None
    source.finish()  # closes the member and the archive without reading


def test_large_damaged_member_stream_reports_the_crc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = np.ones(1000, np.float32)
    data = bytearray(zipped({"a.npy": saved(a)}))
    at = data.rfind(b"\x00\x00\x80?")
    data[at + 3] = ord(">")
    (tmp_path / "a.npz").write_bytes(bytes(data))
    monkeypatch.setattr(thresholds, "STREAM_MIN_BYTES", 100)
    (item,) = open_input_args(str(tmp_path / "a.npz"), stream=True)
    assert isinstance(item.data, streaming.Source)
    with pytest.raises(InputFileError, match=r"a\.npz:a: read error: .*CRC"):
        try:
            item.data.read_all()
        finally:
            item.data.close()


@pytest.mark.parametrize(
    "compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED], ids=["stored", "deflated"]
)
def test_streamed_member_through_the_command(tmp_path: Path, compression: int) -> None:
    rng = np.random.default_rng(7)
    a = (rng.integers(-100, 100, (40, 30)) / 8).astype(np.float32)  # exact float64 sums
    b = (rng.integers(-100, 100, (30,)) / 8).astype(np.float32)
    (tmp_path / "a.npz").write_bytes(zipped({"a.npy": saved(a), "b.npy": saved(b)}, compression))
    env = {"MEANCLI_STREAM_MIN_BYTES": "100", "MEANCLI_SLAB_BYTES": "256"}
    r = cli("reduce-mean", "a.npz:a", "--axes", "0", "-o", "r.npy", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(
        np.load(tmp_path / "r.npy"), a.astype(np.float64).mean(0, keepdims=True).astype(np.float32)
    )
    r = cli("mean", "a.npz", "-o", "m.npy", cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(
        np.load(tmp_path / "m.npy"), ((a.astype(np.float64) + b) / 2).astype(np.float32)
    )


# --------------------------------------------------------------------------- ONNX tensor files

DTYPES = {
    "float16": np.float16,
    "bfloat16": BF16,
    "float32": np.float32,
    "float64": np.float64,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "uint8": np.uint8,
    "uint16": np.uint16,
    "uint32": np.uint32,
    "uint64": np.uint64,
}


def sample(dtype: Any) -> np.ndarray:
    dt = np.dtype(dtype)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return np.array([[info.min, 0, 1], [info.max, 7, -1 if dt.kind == "i" else 2]], dt)
    return np.array([[-1.5, 0.0, 1e-3], [2.0, np.inf, -0.0]], dtype=np.float32).astype(dt)


@pytest.mark.parametrize("name", list(DTYPES))
def test_pb_round_trip_raw_data(tmp_path: Path, name: str) -> None:
    a = sample(DTYPES[name])
    path = tmp_path / "t.pb"
    write_tensor_file(str(path), a)
    tensor = TensorProto()
    tensor.ParseFromString(path.read_bytes())
    assert tensor.HasField("raw_data")
    want = numpy_helper.to_array(tensor)
    got = read_tensor_file(str(path))
    assert got.dtype == want.dtype == np.dtype(DTYPES[name])
    np.testing.assert_array_equal(got.view(np.uint8), a.view(np.uint8))  # bit for bit


@pytest.mark.parametrize("shape", [(), (0,), (0, 3), (1,), (2, 1, 3)])
def test_pb_shapes_round_trip(tmp_path: Path, shape: tuple[int, ...]) -> None:
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    write_tensor_file(str(tmp_path / "t.pb"), a)
    got = read_tensor_file(str(tmp_path / "t.pb"))
    assert got.shape == shape
    np.testing.assert_array_equal(got, a)
    r = cli("reduce-mean", "t.pb", "--axes=", "--noop-with-empty-axes", "-o", "same.pb", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert read_tensor_file(str(tmp_path / "same.pb")).shape == shape


@pytest.mark.parametrize("name", list(DTYPES))
def test_pb_typed_fields(tmp_path: Path, name: str) -> None:
    a = sample(DTYPES[name])
    tensor = helper.make_tensor(
        "t", helper.np_dtype_to_tensor_dtype(a.dtype), a.shape, a.reshape(-1).tolist()
    )
    assert not tensor.HasField("raw_data")
    (tmp_path / "t.pb").write_bytes(tensor.SerializeToString())
    got = read_tensor_file(str(tmp_path / "t.pb"))
    want = numpy_helper.to_array(tensor)
    assert got.dtype == want.dtype and got.shape == a.shape
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))


def _pb_error(tmp_path: Path, tensor: TensorProto | bytes) -> str:
    data = tensor if isinstance(tensor, bytes) else tensor.SerializeToString()
    (tmp_path / "t.pb").write_bytes(data)
    return error_of(str(tmp_path / "t.pb"))


def test_pb_refusals(tmp_path: Path) -> None:
    ext = numpy_helper.from_array(np.ones(3, np.float32), "x")
    ext.ClearField("raw_data")
    ext.data_location = TensorProto.EXTERNAL
    ext.external_data.add(key="location", value="/etc/passwd")
    assert "external data" in _pb_error(tmp_path, ext)
    short = numpy_helper.from_array(np.ones(3, np.float32))
    short.raw_data = short.raw_data[:-1]
    assert _pb_error(tmp_path, short).endswith("raw_data holds 11 bytes; dims [3] of float32 need 12")
    few = TensorProto(data_type=TensorProto.FLOAT, dims=[4], float_data=[1.0, 2.0])
    assert "float_data holds 2 values; dims [4] need 4" in _pb_error(tmp_path, few)
    wide = helper.make_tensor("t", TensorProto.INT8, [1], [0])
    wide.int32_data[0] = 1000
    assert "out of the range [-128, 127]" in _pb_error(tmp_path, wide)
    # uint32 values live in uint64_data: wider ones are refused, not wrapped
    big = TensorProto(data_type=TensorProto.UINT32, dims=[2], uint64_data=[1, 2**40])
    assert "uint64_data holds a value out of the range [0, 4294967295] of uint32" in _pb_error(tmp_path, big)
    # values in two fields, or in the wrong one, are ambiguous: refused, not picked
    both = TensorProto(data_type=TensorProto.DOUBLE, dims=[2], raw_data=bytes(16), double_data=[1.0, 2.0])
    assert "the values are in double_data and raw_data" in _pb_error(tmp_path, both)
    wrong = TensorProto(data_type=TensorProto.DOUBLE, dims=[2], float_data=[1.0, 2.0])
    said = _pb_error(tmp_path, wrong)
    assert "the values are in float_data; a float64 tensor holds them in raw_data or double_data" in said
    (tmp_path / "b.pb").write_bytes(
        helper.make_tensor("t", TensorProto.BOOL, [1], [True]).SerializeToString()
    )
    with pytest.raises(UnsupportedDtypeFile, match=r"b\.pb: data_type 9 \(BOOL\) is not supported$"):
        read_tensor_file(str(tmp_path / "b.pb"))
    assert "no data_type set" in _pb_error(tmp_path, b"")
    assert "not an ONNX TensorProto file" in _pb_error(tmp_path, b"\xff\xff\xff\xff garbage")
    neg = TensorProto(data_type=TensorProto.FLOAT, dims=[-1])
    assert "negative dimension" in _pb_error(tmp_path, neg)


def test_pb_without_onnx_names_the_extra(tmp_path: Path) -> None:
    write_tensor_file(str(tmp_path / "x.pb"), np.ones(2, np.float32))
    hide = (  # the entry point, with the onnx package not importable
        "import sys; sys.modules['onnx'] = None\n"
        "from meancli.cli.entry import main\nsys.exit(main(sys.argv[1:]))"
    )
    for argv in (["reduce-mean", "x.pb"], ["reduce-mean", "a.npy", "-o", "out.pb"]):
        np.save(tmp_path / "a.npy", np.ones(2, np.float32))
        r = subprocess.run(
            [sys.executable, "-c", hide, *argv], capture_output=True, text=True, cwd=tmp_path, timeout=120
        )
        assert r.returncode == 1, r.stderr
        assert r.stderr.count("\n") == 1 and extra_hint("onnx") in r.stderr, r.stderr
    assert not (tmp_path / "out.pb").exists()


def test_pb_output_of_the_command(tmp_path: Path) -> None:
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    write_tensor_file(str(tmp_path / "a.pb"), a)
    (tmp_path / "out.pb").write_bytes(b"precious")
    r = cli("reduce-mean", "a.pb", "--axes", "1", "--no-keep-dims", "-o", "out.pb", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    tensor = TensorProto()
    tensor.ParseFromString((tmp_path / "out.pb").read_bytes())
    np.testing.assert_array_equal(
        numpy_helper.to_array(tensor), a.astype(np.float64).mean(1).astype(np.float32)
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pb", "out.pb"]  # no temporary file left
    r = cli("mean", "a.pb", "a.pb", "-o", "sub/out.pb", cwd=tmp_path)  # no such directory
    assert r.returncode == 1 and r.stderr.startswith("error: cannot write sub/out.pb")


def test_pb_bfloat16_output(tmp_path: Path) -> None:
    a = np.array([[1.0, 2.0], [3.0, 5.0]], BF16)
    write_tensor_file(str(tmp_path / "a.pb"), a)
    r = cli("mean", "a.pb", "a.pb", "-o", "m.pb", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["output"]["dtype"] == "bfloat16"
    got = read_tensor_file(str(tmp_path / "m.pb"))
    assert got.dtype == BF16
    np.testing.assert_array_equal(got, a)


# --------------------------------------------------------------------------- --axes-from


def test_axes_from_values(tmp_path: Path) -> None:
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "ax.npy", np.array([0, -1], np.int64))
    write_tensor_file(str(tmp_path / "ax.pb"), np.array([1], np.int64))
    for axes_file, axes in (("ax.npy", (0, 2)), ("ax.pb", (1,))):
        r = cli("reduce-mean", "a.npy", "--axes-from", axes_file, "-o", "r.npy", cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        np.testing.assert_array_equal(
            np.load(tmp_path / "r.npy"), a.astype(np.float64).mean(axes, keepdims=True)
        )


def test_axes_from_empty_tensor_is_explicitly_empty(tmp_path: Path) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "none.npy", np.zeros(0, np.int64))
    r = cli(
        "reduce-mean",
        "a.npy",
        "--axes-from",
        "none.npy",
        "--noop-with-empty-axes",
        "-o",
        "r.npy",
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "r.npy"), a)


@pytest.mark.parametrize(
    ("extra", "code", "message"),
    [
        (["--axes", "1"], 2, "--axes and --axes-from cannot be combined"),
        (["--opset", "13"], 2, "--axes-from: ReduceMean-13 (onnx) takes axes as an attribute"),
    ],
)
def test_axes_from_usage_errors(tmp_path: Path, extra: list[str], code: int, message: str) -> None:
    np.save(tmp_path / "a.npy", np.ones((2, 2), np.float32))
    np.save(tmp_path / "ax.npy", np.array([1], np.int64))
    r = cli("reduce-mean", "a.npy", "--axes-from", "ax.npy", *extra, cwd=tmp_path)
    assert r.returncode == code and r.stderr.startswith(f"error: {message}"), r.stderr


def test_axes_tensors_are_checked_for_dtype_and_rank(tmp_path: Path) -> None:
    np.save(tmp_path / "i32.npy", np.array([1], np.int32))
    np.save(tmp_path / "m.npy", np.array([[1]], np.int64))
    onnx18, openvino = resolve("ReduceMean", "onnx:18"), resolve("ReduceMean", "openvino:1")
    shown, i32 = read_tensor(str(tmp_path / "i32.npy"), "--axes-from")
    with pytest.raises(
        SpecViolation, match=r"i32\.npy: axes must be int64 for ReduceMean-18 \(onnx\), found int32"
    ):
        axes_input(onnx18, i32, shown)
    assert axes_input(openvino, i32, shown) == [1]  # openvino's T_IND
    with pytest.raises(SpecViolation, match=r"axes must be a 1-D tensor, found shape \(1, 1\)"):
        shown, m = read_tensor(str(tmp_path / "m.npy"), "--axes-from")
        axes_input(onnx18, m, shown)


def test_axes_from_openvino_takes_int32(tmp_path: Path) -> None:
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "ax.npy", np.array([1], np.int32))
    r = cli(
        "reduce-mean", "a.npy", "--axes-from", "ax.npy", "--opset", "openvino:1", "-o", "r.npy", cwd=tmp_path
    )
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "r.npy"), a.astype(np.float64).mean(1))


def test_streams_are_read_in_pieces(monkeypatch: pytest.MonkeyPatch) -> None:
    """A slab is asked of a stream in pieces of STREAM_READ_BYTES: a zip member answers each
    request with a temporary bytes object as large as the request (measured: 161 MiB peak RSS
    for a 64 MiB deflated member asked for whole 32 MiB slabs, 68 MiB in 1 MiB pieces)."""
    a = np.arange(5000, dtype=np.float64)
    data = saved(a)
    asked: list[int] = []

    class Recording(io.BytesIO):
        def readinto(self, view: Any) -> int:
            asked.append(len(view))
            return super().readinto(view)

    monkeypatch.setattr(streaming, "STREAM_READ_BYTES", 4096)
    fp = Recording(data)
    header = streaming.read_header(fp, "s")
    source = streaming.Source("s", header, fp, seekable=False)
    np.testing.assert_array_equal(source.read_all(), a)
    source.finish()
    assert max(asked) <= 4096 and sum(asked) >= a.nbytes


def test_npz_output_is_refused(tmp_path: Path) -> None:
    np.save(tmp_path / "a.npy", np.ones(3, np.float32))
    r = cli("reduce-mean", "a.npy", "-o", "out.npz", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (
        2,
        "error: -o out.npz: .npz outputs are not supported; write .npy or .pb\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npy"]


def test_member_with_an_empty_name(tmp_path: Path) -> None:
    """zipfile's ZipInfo.is_dir() raises IndexError on an empty name (found by fuzzing)."""
    with zipfile.ZipFile(tmp_path / "e.npz", "w") as z:
        z.writestr(zipfile.ZipInfo(""), saved(np.arange(2.0)))
    (item,) = open_input_args(str(tmp_path / "e.npz"))
    assert item.name == f"{tmp_path / 'e.npz'}:"
    np.testing.assert_array_equal(item.data, np.arange(2.0))


@pytest.mark.parametrize("member", ["?", "*", "[a]", "a*b"])
def test_a_member_named_with_glob_characters_is_a_member_not_a_pattern(tmp_path: Path, member: str) -> None:
    """``data.npz:?`` names the member ``?`` of an existing archive (as numpy names it),
    not a glob of shards: the CLI read it as a pattern that matched no files."""
    x = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    with zipfile.ZipFile(tmp_path / "a.npz", "w") as archive:
        archive.writestr(f"{member}.npy", saved(x))
    (item,) = open_input_args(f"{tmp_path / 'a.npz'}:{member}")
    np.testing.assert_array_equal(item.data, x)
    result = run_cli("reduce-mean", f"{tmp_path / 'a.npz'}:{member}", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["result"] == [float(np.float32(7 / 3))]


@pytest.mark.parametrize(
    "args", [["reduce-mean", "dup.npz", "--axes", "0"], ["reduce-mean", "dup.npz:a"], ["mean", "dup.npz"]]
)
def test_an_npz_with_a_member_name_twice_is_refused(tmp_path: Path, args: list[str]) -> None:
    """Two members stored as a.npy: no name selected the first, the listing offered both
    names as if each found its own, and mean used both (a new user found it)."""
    with zipfile.ZipFile(tmp_path / "dup.npz", "w") as archive:
        for value in (1.0, 0.0):
            buf = io.BytesIO()
            np.save(buf, np.full(3, value))
            archive.writestr("a.npy", buf.getvalue())
    run = run_cli(*args, cwd=tmp_path)
    assert run.exit_code == 1
    assert run.stderr == "error: dup.npz: holds two members named a.npy; rename one\n"
