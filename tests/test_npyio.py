"""Tests of the .npy reader and writer (meancli.io.npy_*): safe reading, atomic writing."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import threading
import zipfile
from pathlib import Path
from typing import Any, Literal

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from meancli.dtypes import BFLOAT16_NOTE, is_bfloat16
from meancli.errors import InputFileError, UsageError
from meancli.io import atomic_write, npy_read
from meancli.io.mapped import is_mapped
from meancli.io.npy_format import NpyHeader, read_header
from meancli.io.npy_read import read_npy
from meancli.io.npy_write import write_npy

REPO = Path(__file__).resolve().parents[1]
BF16 = np.dtype(ml_dtypes.bfloat16)
Order = Literal["C", "F"]
ByteOrder = Literal["<", ">"]

NUMERIC = ["?", "i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8", "c16"]


# --------------------------------------------------------------------------- helpers


def raw_npy(header: str | bytes, data: bytes = b"", version: tuple[int, int] = (1, 0)) -> bytes:
    """A .npy file assembled by hand (no padding rules enforced)."""
    text = header.encode("latin1") if isinstance(header, str) else header
    size = 2 if version == (1, 0) else 4
    return b"\x93NUMPY" + bytes(version) + len(text).to_bytes(size, "little") + text + data


def write_raw(tmp_path: Path, content: bytes, name: str = "x.npy") -> Path:
    path = tmp_path / name
    path.write_bytes(content)
    return path


def sample(dtype: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Deterministic values of ``dtype`` with ``shape``, not all equal."""
    dtype = np.dtype(dtype)
    n = int(np.prod(shape, dtype=np.int64))
    base = np.arange(n, dtype=np.int64) % 100 - 40
    if dtype.kind == "b":
        vals: np.ndarray = base % 3 == 0
    elif dtype.kind == "u":
        vals = base + 40
    elif dtype.kind == "c":
        vals = base * 0.5 + 1j * (base - 3)
    elif dtype.kind in "iV":
        vals = base
    else:
        vals = base * 0.25
    return vals.astype(dtype).reshape(shape)


def assert_same(a: np.ndarray, b: np.ndarray) -> None:
    """Same shape, dtype (byte order included) and bytes."""
    assert a.shape == b.shape
    assert a.dtype == b.dtype
    assert a.dtype.str == b.dtype.str
    assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def error_of(path: Path | str, *, mmap: bool = True) -> str:
    with pytest.raises(InputFileError) as info:
        read_npy(str(path), mmap=mmap)
    msg = str(info.value)
    assert "\n" not in msg
    assert str(path) in msg
    return msg


# --------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("byteorder", ["<", ">"])
@pytest.mark.parametrize("code", NUMERIC)
def test_round_trip_numeric(
    tmp_path: Path, code: str, byteorder: ByteOrder, order: Order, mmap: bool
) -> None:
    dtype = np.dtype(code).newbyteorder(byteorder)
    a = np.asarray(sample(dtype, (3, 4, 5)), order=order)
    path = tmp_path / "a.npy"
    n = write_npy(str(path), a)
    assert n == path.stat().st_size

    ref = np.load(path, allow_pickle=False)
    assert_same(ref, a)
    assert np.array_equal(ref, a)

    b, h = read_npy(str(path), mmap=mmap)
    assert_same(b, a)
    assert np.array_equal(b, a)
    assert h.dtype == dtype
    assert h.descr == dtype.str
    assert h.shape == (3, 4, 5)
    assert h.fortran_order is (order == "F")
    assert h.nbytes == 60 * dtype.itemsize
    assert h.data_offset + h.nbytes == path.stat().st_size
    if order == "F":
        assert b.flags.f_contiguous and not b.flags.c_contiguous
    else:
        assert b.flags.c_contiguous
    if mmap:
        assert is_mapped(b)  # a map of the file (holding no descriptor: io.mapped)
        assert not b.flags.writeable


@pytest.mark.parametrize("code", [*NUMERIC, "f16", "c32", "M8[ns]", "m8[s]", "S5", "U3", "V3"])
@pytest.mark.parametrize("order", ["C", "F"])
def test_reads_what_numpy_saves(tmp_path: Path, code: str, order: Order) -> None:
    dtype = np.dtype(code)
    if dtype.kind in "SUV":
        a = np.asarray(sample("i4", (2, 3)).astype("S5").astype(dtype), order=order)
    else:
        a = np.asarray(sample(dtype, (2, 3)), order=order)
    path = tmp_path / "n.npy"
    np.save(path, a)
    for mmap in (True, False):
        b, h = read_npy(str(path), mmap=mmap)
        assert_same(b, a)
        assert h.fortran_order is (order == "F")


def test_write_matches_np_save_bytes(tmp_path: Path) -> None:
    for a in [
        sample("<f4", (3, 4)),
        np.asfortranarray(sample(">i8", (3, 4))),
        sample("u1", ()),
        sample("f8", (0, 5)),
        sample("f4", (1,) * 31 + (2,)),
        sample("f4", (3, 4)).astype(BF16),
    ]:
        ours = tmp_path / "ours.npy"
        theirs = tmp_path / "theirs.npy"
        write_npy(str(ours), a)
        np.save(theirs, a)
        assert ours.read_bytes() == theirs.read_bytes()


def test_non_contiguous_array_written_in_c_order(tmp_path: Path) -> None:
    base = np.arange(54, dtype="<i4").reshape(6, 9)
    a = base[::2, ::3]
    assert not a.flags.c_contiguous and not a.flags.f_contiguous
    path = tmp_path / "nc.npy"
    write_npy(str(path), a)
    b, h = read_npy(str(path))
    assert not h.fortran_order
    assert b.tolist() == [[0, 3, 6], [18, 21, 24], [36, 39, 42]]
    assert np.array_equal(np.load(path), a)


@pytest.mark.parametrize("mmap", [True, False])
def test_rank0(tmp_path: Path, mmap: bool) -> None:
    path = tmp_path / "s.npy"
    write_npy(str(path), np.array(2.5, dtype=">f8"))
    b, h = read_npy(str(path), mmap=mmap)
    assert b.shape == () and h.shape == ()
    assert b.dtype.str == ">f8"
    assert float(b) == 2.5
    assert h.nbytes == 8
    assert float(np.load(path)) == 2.5


@pytest.mark.parametrize("mmap", [True, False])
@pytest.mark.parametrize("shape", [(0,), (3, 0, 2), (0, 0)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_size0(tmp_path: Path, shape: tuple[int, ...], mmap: bool, order: Order) -> None:
    path = tmp_path / "e.npy"
    a = np.zeros(shape, dtype="<f4", order=order)
    n = write_npy(str(path), a)
    assert n == path.stat().st_size
    b, h = read_npy(str(path), mmap=mmap)
    assert b.shape == shape and b.dtype == np.dtype("<f4") and b.size == 0
    assert h.nbytes == 0 and h.data_offset == n
    assert np.load(path).shape == shape


def test_rank32(tmp_path: Path) -> None:
    shape = (1,) * 16 + (2,) + (1,) * 14 + (3,)
    a = sample("<i2", shape)
    path = tmp_path / "r32.npy"
    write_npy(str(path), a)
    for mmap in (True, False):
        b, h = read_npy(str(path), mmap=mmap)
        assert b.ndim == 32 and h.shape == shape
        assert b.reshape(-1).tolist() == [-40, -39, -38, -37, -36, -35]
    assert np.array_equal(np.load(path), a)


@pytest.mark.parametrize("version", [(1, 0), (2, 0), (3, 0)])
@pytest.mark.parametrize("order", ["C", "F"])
def test_header_versions(tmp_path: Path, version: tuple[int, int], order: Order) -> None:
    a = np.asarray(sample(">f4", (4, 3)), order=order)
    path = tmp_path / "v.npy"
    with open(path, "wb") as fp:
        np.lib.format.write_array(fp, a, version=version)
    with open(path, "rb") as fp:
        assert np.lib.format.read_magic(fp) == version
        if version == (1, 0):
            np.lib.format.read_array_header_1_0(fp)
        else:
            np.lib.format.read_array_header_2_0(fp)
        offset = fp.tell()
    for mmap in (True, False):
        b, h = read_npy(str(path), mmap=mmap)
        assert h == NpyHeader(
            version=version,
            descr=">f4",
            dtype=np.dtype(">f4"),
            fortran_order=order == "F",
            shape=(4, 3),
            data_offset=offset,
            nbytes=48,
        )
        assert_same(b, a)


def test_version3_utf8_header_accepted(tmp_path: Path) -> None:
    # version 3.0 exists for UTF-8 headers; the text is decoded as UTF-8, not latin1
    text = "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }  # \u00e9\n"
    path = write_raw(tmp_path, raw_npy(text.encode("utf8"), b"\x01\x00\x02\x00", (3, 0)))
    b, h = read_npy(str(path))
    assert h.version == (3, 0)
    assert b.tolist() == [1, 2]


def test_python2_long_suffix_accepted(tmp_path: Path) -> None:
    header = "{'descr': '<u1', 'fortran_order': False, 'shape': (2L, 3L), }\n"
    path = write_raw(tmp_path, raw_npy(header, bytes(range(6))))
    b, h = read_npy(str(path))
    assert h.shape == (2, 3)
    assert b.tolist() == [[0, 1, 2], [3, 4, 5]]


def test_read_header_on_a_stream() -> None:
    buf = io.BytesIO()
    np.save(buf, np.arange(6, dtype="<i4").reshape(2, 3))
    buf.seek(0)
    h = read_header(buf, "mem.npy")
    assert h.version == (1, 0)
    assert h.descr == "<i4"
    assert h.shape == (2, 3)
    assert h.nbytes == 24
    assert h.data_offset == 128 == buf.tell()
    assert np.frombuffer(buf.read(), dtype="<i4").tolist() == [0, 1, 2, 3, 4, 5]


_DTYPES = st.sampled_from(NUMERIC).flatmap(
    lambda c: st.sampled_from([np.dtype(c).newbyteorder("<"), np.dtype(c).newbyteorder(">")])
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    a=_DTYPES.flatmap(
        lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
    ),
    fortran=st.booleans(),
    mmap=st.booleans(),
)
def test_round_trip_property(
    tmp_path_factory: pytest.TempPathFactory, a: np.ndarray, fortran: bool, mmap: bool
) -> None:
    if fortran:
        a = np.asfortranarray(a)
    path = tmp_path_factory.mktemp("prop") / "p.npy"
    n = write_npy(str(path), a)
    assert n == path.stat().st_size
    b, h = read_npy(str(path), mmap=mmap)
    assert_same(b, a)
    assert h.nbytes == a.nbytes
    assert_same(np.load(path, allow_pickle=False), a)


# --------------------------------------------------------------------------- bfloat16


def test_bfloat16_round_trip(tmp_path: Path) -> None:
    a = np.array([[1.0, -2.5, 3.0], [0.125, 1e30, -0.0]], dtype=BF16)
    path = tmp_path / "bf.npy"
    write_npy(str(path), a)
    with open(path, "rb") as fp:
        assert np.lib.format.read_magic(fp) == (1, 0)
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(fp)
    assert (shape, fortran, dtype.str) == ((2, 3), False, "|V2")
    assert b"'descr': '<V2'" in path.read_bytes()
    # numpy alone reads the raw 2-byte voids; their bytes are the bfloat16 bits
    assert np.load(path).tobytes() == a.tobytes()
    for mmap in (True, False):
        b, h = read_npy(str(path), mmap=mmap)
        assert b.dtype == BF16
        assert is_bfloat16(b.dtype) and is_bfloat16(h.dtype)
        assert h.descr == "<V2"
        assert b.astype(np.float32).tolist() == [
            [1.0, -2.5, 3.0],
            [0.125, float(np.float32(1e30).astype(BF16)), -0.0],
        ]
        assert b.tobytes() == a.tobytes()


def test_bfloat16_fortran_and_np_save(tmp_path: Path) -> None:
    a = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3).astype(BF16))
    path = tmp_path / "bff.npy"
    np.save(path, a)
    b, h = read_npy(str(path))
    assert h.fortran_order and b.flags.f_contiguous
    assert b.dtype == BF16
    assert b.astype(np.float32).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_pipe_v2_descr_is_bfloat16(tmp_path: Path) -> None:
    bits = np.array([1.5, -4.0], dtype=BF16).tobytes()
    header = "{'descr': '|V2', 'fortran_order': False, 'shape': (2,), }\n"
    path = write_raw(tmp_path, raw_npy(header, bits))
    b, h = read_npy(str(path))
    assert h.descr == "|V2" and b.dtype == BF16
    assert b.astype(np.float32).tolist() == [1.5, -4.0]


def test_other_void_is_not_bfloat16(tmp_path: Path) -> None:
    path = tmp_path / "v4.npy"
    np.save(path, np.zeros(3, dtype="V4"))
    b, h = read_npy(str(path))
    assert h.dtype == np.dtype("V4") and not is_bfloat16(b.dtype)


def test_is_bfloat16() -> None:
    assert is_bfloat16(BF16)
    assert not is_bfloat16(np.dtype("<V2"))
    assert not is_bfloat16(np.dtype("f2"))
    assert not is_bfloat16(np.dtype(ml_dtypes.float8_e4m3fn))
    assert "bfloat16" in BFLOAT16_NOTE and "<V2" in BFLOAT16_NOTE and "\n" not in BFLOAT16_NOTE


def run_python(code: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_ml_dtypes_imported_only_for_bfloat16(tmp_path: Path) -> None:
    f4 = tmp_path / "f4.npy"
    bf = tmp_path / "bf.npy"
    np.save(f4, np.ones(3, dtype=np.float32))
    np.save(bf, np.ones(3, dtype=BF16))
    code = (
        "import sys\n"
        "from meancli.io.npy_read import read_npy\n"
        f"read_npy({str(f4)!r})\n"
        "print('ml_dtypes' in sys.modules)\n"
        f"a, h = read_npy({str(bf)!r})\n"
        "print('ml_dtypes' in sys.modules, a.dtype)\n"
    )
    res = run_python(code)
    assert res.returncode == 0, res.stderr.decode()
    assert res.stdout.decode().split("\n")[:2] == ["False", "True bfloat16"]


# --------------------------------------------------------------------------- malformed files

GOOD = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }\n"


def test_bad_magic(tmp_path: Path) -> None:
    path = write_raw(tmp_path, b"hello world, this is text\n")
    assert "not a .npy file" in error_of(path)


def test_truncated_magic(tmp_path: Path) -> None:
    path = write_raw(tmp_path, b"\x93NUM")
    assert "truncated header" in error_of(path)


def test_bad_version(tmp_path: Path) -> None:
    content = raw_npy(GOOD, bytes(48))
    path = write_raw(tmp_path, content[:6] + b"\x09\x09" + content[8:])
    msg = error_of(path)
    assert "unsupported .npy format version 9.9" in msg
    assert "1.0, 2.0, 3.0" in msg


def test_header_length_past_end(tmp_path: Path) -> None:
    content = b"\x93NUMPY\x01\x00" + (5000).to_bytes(2, "little") + GOOD.encode()
    path = write_raw(tmp_path, content)
    msg = error_of(path)
    assert "truncated header" in msg and "5000" in msg


def test_header_length_field_cut_off(tmp_path: Path) -> None:
    path = write_raw(tmp_path, b"\x93NUMPY\x02\x00\x10")
    assert "truncated header" in error_of(path)


def test_header_too_long(tmp_path: Path) -> None:
    content = b"\x93NUMPY\x02\x00" + (2 << 20).to_bytes(4, "little") + b" " * 100
    path = write_raw(tmp_path, content)
    msg = error_of(path)
    assert "1 MiB" in msg and str(2 << 20) in msg


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("[1, 2, 3]\n", "expected a dict, found list"),
        ("{'descr': '<f4', 'fortran_order': False, 'shape': (3,4)\n", "not a Python literal"),
        ("__import__('os').system('true')\n", "not a Python literal"),
        ("{'descr': '<f4', 'shape': (3, 4)}\n", "missing key(s) 'fortran_order'"),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), 'extra': 1}\n",
            "unexpected key(s) 'extra'",
        ),
        ("{'descr': '<f4', 'fortran_order': False, 'shape': (3, -4)}\n", "negative dimension"),
        ("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4.0)}\n", "non-integer"),
        ("{'descr': '<f4', 'fortran_order': False, 'shape': (3, True)}\n", "non-integer"),
        ("{'descr': '<f4', 'fortran_order': False, 'shape': [3, 4]}\n", "must be a tuple"),
        ("{'descr': '<f4', 'fortran_order': 0, 'shape': (3, 4)}\n", "'fortran_order' must be"),
        ("{'descr': 4, 'fortran_order': False, 'shape': (3, 4)}\n", "'descr' must be a string"),
        ("{'descr': 'nonsense', 'fortran_order': False, 'shape': (3,)}\n", "not a dtype numpy"),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (2**40, 2**40)}\n",
            "not a Python literal",
        ),
        (
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776)}\n",
            "exceeds the 2**62-byte limit",
        ),
        (
            "{'descr': '<u1', 'fortran_order': False, 'shape': (0, 4611686018427387905)}\n",
            "exceeds the 2**62-byte limit",
        ),
        ("{'descr': '|O', 'fortran_order': False, 'shape': (3,)}\n", "object arrays"),
        (
            "{'descr': [('a', '<i4'), ('b', '<f4')], 'fortran_order': False, 'shape': (3,)}\n",
            "structured",
        ),
        ("{'descr': 'i4,f4', 'fortran_order': False, 'shape': (3,)}\n", "structured"),
        ("{'descr': '(2,2)f4', 'fortran_order': False, 'shape': (3,)}\n", "subarray"),
        ("{'descr': 'V0', 'fortran_order': False, 'shape': (3,)}\n", "zero-size dtype"),
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': " + str((1,) * 65) + "}\n",
            "at most 64",
        ),
    ],
)
def test_malformed_header(tmp_path: Path, header: str, expected: str) -> None:
    path = write_raw(tmp_path, raw_npy(header, bytes(48)))
    msg = error_of(path)
    assert expected in msg, msg


def test_invalid_utf8_v3_header(tmp_path: Path) -> None:
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\xff\n"
    path = write_raw(tmp_path, raw_npy(header, bytes(12), (3, 0)))
    assert "not valid UTF8" in error_of(path)


@pytest.mark.parametrize("mmap", [True, False])
def test_truncated_data(tmp_path: Path, mmap: bool) -> None:
    path = tmp_path / "x.npy"
    np.save(path, np.zeros((3, 4), dtype=np.float32))
    path.write_bytes(path.read_bytes()[:-8])
    msg = error_of(path, mmap=mmap)
    says = "header says shape (3, 4) float32 = 48 bytes"
    assert msg == f"{path}: truncated data: {says}, file holds 40"


@pytest.mark.parametrize("mmap", [True, False])
def test_trailing_bytes(tmp_path: Path, mmap: bool) -> None:
    path = tmp_path / "x.npy"
    np.save(path, np.zeros((3, 4), dtype=">f4"))
    path.write_bytes(path.read_bytes() + b"\0" * 5)
    msg = error_of(path, mmap=mmap)
    assert msg == (
        f"{path}: trailing bytes: header says shape (3, 4) >f4 = 48 bytes, "
        "file holds 53 (5 bytes after the data)"
    )


def test_empty_file(tmp_path: Path) -> None:
    path = write_raw(tmp_path, b"")
    assert "empty file" in error_of(path)


def test_directory(tmp_path: Path) -> None:
    assert "is a directory" in error_of(tmp_path)


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in error_of(tmp_path / "nope.npy")


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads anything")
def test_permission_denied(tmp_path: Path) -> None:
    path = tmp_path / "x.npy"
    np.save(path, np.zeros(3))
    path.chmod(0)
    try:
        assert "permission denied" in error_of(path)
    finally:
        path.chmod(0o644)


def test_permission_denied_simulated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "x.npy"
    np.save(path, np.zeros(3))

    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(npy_read, "open", denied, raising=False)
    assert error_of(path) == f"{path}: permission denied"


def test_npz_archive(tmp_path: Path) -> None:
    path = tmp_path / "a.npz"
    np.savez(path, x=np.zeros(3))
    assert ".npz archive" in error_of(path)
    empty_zip = tmp_path / "empty.npy"
    with zipfile.ZipFile(empty_zip, "w"):
        pass
    assert ".npz archive" in error_of(empty_zip)


def test_object_array_saved_by_numpy(tmp_path: Path) -> None:
    path = tmp_path / "o.npy"
    np.save(path, np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
    msg = error_of(path)
    assert "object arrays are not supported (they need pickle)" in msg


def test_structured_array_saved_by_numpy(tmp_path: Path) -> None:
    path = tmp_path / "s.npy"
    np.save(path, np.zeros(3, dtype=[("a", "<i4"), ("b", "<f8")]))
    assert "structured dtypes" in error_of(path)


def test_unprintable_name_stays_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "bad\nname.npy"
    path.write_bytes(b"")
    with pytest.raises(InputFileError) as info:
        read_npy(str(path))
    msg = str(info.value)
    assert "\n" not in msg and "bad\\nname.npy" in msg


def test_fifo_is_read_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "f.npy"
    os.mkfifo(fifo)
    buf = io.BytesIO()
    np.save(buf, np.arange(5, dtype="<i8"))
    payload = buf.getvalue()

    def feed(extra: bytes) -> None:
        with open(fifo, "wb") as fp:
            fp.write(payload + extra)

    t = threading.Thread(target=feed, args=(b"",))
    t.start()
    b, _ = read_npy(str(fifo))
    t.join()
    assert b.tolist() == [0, 1, 2, 3, 4] and not is_mapped(b)

    t = threading.Thread(target=feed, args=(b"junk",))
    t.start()
    msg = error_of(fifo)
    t.join()
    assert "trailing bytes" in msg


# --------------------------------------------------------------------------- stdin


class Trickle(io.RawIOBase):
    """A stream that hands out at most ``step`` bytes per call."""

    def __init__(self, data: bytes, step: int) -> None:
        self._data = data
        self._pos = 0
        self._step = step

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        chunk = self._data[self._pos : self._pos + min(self._step, len(b))]
        b[: len(chunk)] = chunk
        self._pos += len(chunk)
        return len(chunk)


class FakeStd:
    def __init__(self, buffer: Any) -> None:
        self.buffer = buffer


def npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def test_stdin_in_process_short_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    a = np.asfortranarray(sample(">i4", (3, 5)))
    monkeypatch.setattr(sys, "stdin", FakeStd(Trickle(npy_bytes(a), 3)))
    b, h = read_npy("-")
    assert_same(b, a)
    assert h.fortran_order and b.flags.f_contiguous


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d[:-3], "<stdin>: truncated data: header says shape (4,) int32 = 16 bytes"),
        (lambda d: d + b"x", "<stdin>: trailing bytes"),
        (lambda d: b"", "<stdin>: empty file"),
    ],
)
def test_stdin_errors(monkeypatch: pytest.MonkeyPatch, mutate: Any, expected: str) -> None:
    data = mutate(npy_bytes(np.arange(4, dtype="<i4")))
    monkeypatch.setattr(sys, "stdin", FakeStd(Trickle(data, 5)))
    with pytest.raises(InputFileError) as info:
        read_npy("-")
    assert str(info.value).startswith(expected)


def test_stdin_terminal_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.BytesIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", FakeStd(Tty()))
    with pytest.raises(UsageError, match="terminal"):  # the command line forgot a redirection
        read_npy("-")


STDIN_CHILD = """
import json, sys
from meancli.errors import InputFileError
from meancli.io.npy_read import read_npy
try:
    a, h = read_npy("-")
except InputFileError as e:
    print("ERR:" + str(e))
    sys.exit(1)
print(json.dumps({"shape": list(a.shape), "dtype": str(a.dtype), "f": h.fortran_order,
                  "values": a.astype("float64").ravel(order="K").tolist()}))
"""


def pipe_in_pieces(data: bytes, step: int = 7) -> tuple[int, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen(
        [sys.executable, "-c", STDIN_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        bufsize=0,
    )
    assert proc.stdin is not None
    try:
        for i in range(0, len(data), step):
            proc.stdin.write(data[i : i + step])
            proc.stdin.flush()
    except BrokenPipeError:
        pass
    out, err = proc.communicate(timeout=60)  # closes stdin
    assert not err.strip() or proc.returncode == 1, err.decode()
    return proc.returncode, out.decode().strip()


def test_stdin_subprocess_small_pieces() -> None:
    a = np.arange(24, dtype="<f4").reshape(2, 3, 4) / 4
    rc, out = pipe_in_pieces(npy_bytes(a))
    assert rc == 0
    got = json.loads(out)
    assert got == {
        "shape": [2, 3, 4],
        "dtype": "float32",
        "f": False,
        "values": [i / 4 for i in range(24)],
    }


def test_stdin_subprocess_bfloat16_fortran() -> None:
    a = np.asfortranarray(np.array([[1.0, 2.0], [3.0, 4.0]], dtype=BF16))
    rc, out = pipe_in_pieces(npy_bytes(a))
    assert rc == 0
    got = json.loads(out)
    assert got == {"shape": [2, 2], "dtype": "bfloat16", "f": True, "values": [1, 3, 2, 4]}


def test_stdin_subprocess_truncated_and_trailing() -> None:
    data = npy_bytes(np.arange(10, dtype="<i2"))
    rc, out = pipe_in_pieces(data[:-1])
    assert rc == 1
    says = "header says shape (10,) int16 = 20 bytes"
    assert out == f"ERR:<stdin>: truncated data: {says}, the stream ends after 19"
    rc, out = pipe_in_pieces(data + b"\0")
    assert rc == 1 and out.startswith("ERR:<stdin>: trailing bytes")


# --------------------------------------------------------------------------- writing


def listing(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_failed_write_keeps_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "out.npy"
    path.write_bytes(b"precious")

    real = atomic_write.write_all

    def no_space(fp: Any, parts: Any) -> int:
        real(fp, [b"partial"])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic_write, "write_all", no_space)
    with pytest.raises(InputFileError) as info:
        write_npy(str(path), np.ones((100, 100)))
    assert str(info.value) == f"cannot write {path}: No space left on device"
    assert path.read_bytes() == b"precious"
    assert listing(tmp_path) == ["out.npy"]


def test_interrupt_during_write_cleans_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "out.npy"
    path.write_bytes(b"precious")
    real = atomic_write.write_all

    def interrupted(fp: Any, parts: Any) -> int:
        parts = iter(parts)
        real(fp, [next(parts), next(parts)[:8]])  # the header and some data, then Ctrl-C
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic_write, "write_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_npy(str(path), np.ones(1000))
    assert path.read_bytes() == b"precious"
    assert listing(tmp_path) == ["out.npy"]


def test_new_file_mode_follows_umask(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        path = tmp_path / "new.npy"
        write_npy(str(path), np.zeros(2))
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_existing_file_mode_kept(tmp_path: Path) -> None:
    path = tmp_path / "old.npy"
    path.write_bytes(b"x")
    path.chmod(0o604)
    write_npy(str(path), np.zeros(2))
    assert stat.S_IMODE(path.stat().st_mode) == 0o604
    assert np.load(path).tolist() == [0.0, 0.0]


def test_overwrite_memory_mapped_input(tmp_path: Path) -> None:
    path = tmp_path / "io.npy"
    np.save(path, np.arange(6, dtype="<f8"))
    a, _ = read_npy(str(path), mmap=True)
    assert is_mapped(a)
    write_npy(str(path), a * 2)
    assert a.tolist() == [0, 1, 2, 3, 4, 5]  # the old mapping still sees the old data
    assert np.load(path).tolist() == [0, 2, 4, 6, 8, 10]
    assert listing(tmp_path) == ["io.npy"]


def test_write_through_symlink_keeps_link(tmp_path: Path) -> None:
    target = tmp_path / "real.npy"
    target.write_bytes(b"old")
    link = tmp_path / "link.npy"
    link.symlink_to(target.name)
    write_npy(str(link), np.arange(3, dtype="<i1"))
    assert link.is_symlink()
    assert np.load(target).tolist() == [0, 1, 2]


def test_write_to_dev_null() -> None:
    n = write_npy(os.devnull, np.zeros(10, dtype="<f4"))
    assert n == 128 + 40
    assert Path(os.devnull).is_char_device()


def test_write_errors(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"cannot write .*missing/out\.npy: No such file"):
        write_npy(str(tmp_path / "missing" / "out.npy"), np.zeros(2))
    with pytest.raises(InputFileError, match="is a directory"):
        write_npy(str(tmp_path), np.zeros(2))
    with pytest.raises(InputFileError, match="object arrays are not supported"):
        write_npy(str(tmp_path / "o.npy"), np.array([None, 1], dtype=object))
    with pytest.raises(InputFileError, match="structured"):
        write_npy(str(tmp_path / "s.npy"), np.zeros(2, dtype=[("a", "i4")]))
    assert listing(tmp_path) == []


class FakeOut(io.BytesIO):
    def __init__(self, tty: bool = False) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_write_stdout(monkeypatch: pytest.MonkeyPatch) -> None:
    out = FakeOut()
    monkeypatch.setattr(sys, "stdout", FakeStd(out))
    a = sample(">u2", (2, 2))
    n = write_npy("-", a)
    assert out.getvalue() == npy_bytes(a)
    assert n == len(out.getvalue())


def test_write_stdout_terminal_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    out = FakeOut(tty=True)
    monkeypatch.setattr(sys, "stdout", FakeStd(out))
    with pytest.raises(UsageError) as info:  # the command line forgot a redirection: exit status 2
        write_npy("-", np.zeros(2))
    assert str(info.value) == (
        "-o -: refusing to write binary .npy data to a terminal; redirect stdout or use -o FILE"
    )
    assert out.getvalue() == b""


def test_write_stdout_broken_pipe_propagates(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(FakeOut):
        def write(self, b: Any) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", FakeStd(Broken()))
    with pytest.raises(BrokenPipeError):
        write_npy("-", np.zeros(2))


def test_write_stdout_other_error(monkeypatch: pytest.MonkeyPatch) -> None:
    class Full(FakeOut):
        def write(self, b: Any) -> int:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys, "stdout", FakeStd(Full()))
    with pytest.raises(InputFileError, match=r"cannot write <stdout>: No space left on device"):
        write_npy("-", np.zeros(2))


def test_write_stdout_real_pipe() -> None:
    code = "import numpy as np\nfrom meancli.io.npy_write import write_npy\n"
    code += "write_npy('-', np.arange(5, dtype='<i2'))\n"
    res = run_python(code)
    assert res.returncode == 0, res.stderr.decode()
    assert np.load(io.BytesIO(res.stdout)).tolist() == [0, 1, 2, 3, 4]
