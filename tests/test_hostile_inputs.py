"""Hostile input files and arguments, through the real command line (one subprocess each).

Whatever a user points meancli at, the result is the right answer or exactly one
``error:`` line on stderr that names the file and what is wrong, with the
documented exit status (1 input or spec violation, 2 usage), no traceback, and
no output file (``-o out.npy`` is passed to every failing case, and the case's
directory must hold nothing new afterwards).

The subprocesses of all cases run concurrently in one module fixture; the tests
then inspect what each one did.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

ENV = {**os.environ, "NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200", "PYTHONFAULTHANDLER": "1"}
ENV.pop("FORCE_COLOR", None)
TIMEOUT = 120

REDUCE18 = "ReduceMean-18 (onnx)"
REDUCE18_TYPES = ("float16", "float32", "float64", "int32", "int64", "uint32", "uint64", "bfloat16")
REDUCE11_TYPES = ("float16", "float32", "float64", "int32", "int64", "uint32", "uint64")
MEAN13 = "Mean-13 (onnx)"
MEAN13_TYPES = ("float16", "float32", "float64", "bfloat16")
MEAN8_TYPES = ("float16", "float32", "float64")


# --------------------------------------------------------------------------- building files


def raw_npy(header: str | bytes, data: bytes = b"", version: tuple[int, int] = (1, 0)) -> bytes:
    """A .npy file assembled by hand: magic, version, length field, header, data."""
    text = header.encode("latin1") if isinstance(header, str) else header
    size = 2 if version == (1, 0) else 4
    return b"\x93NUMPY" + bytes(version) + len(text).to_bytes(size, "little") + text + data


def hdr(descr: Any = "'<f4'", fortran: Any = "False", shape: Any = "(2, 3)") -> str:
    """A header dict literal; each field is inserted as source text."""
    return f"{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}\n"


def saved(a: np.ndarray, *, allow_pickle: bool = False) -> bytes:
    """What np.save writes for ``a``."""
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=allow_pickle)
    return buf.getvalue()


def npz() -> bytes:
    buf = io.BytesIO()
    np.savez(buf, a=np.ones(3, np.float32))
    return buf.getvalue()


F4_6 = np.arange(6, dtype="<f4").tobytes()
GOOD = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


# --------------------------------------------------------------------------- running cases


@dataclass
class Case:
    """One command line run in its own directory.

    ``files`` are written into the directory first (bytes, or a callable that
    creates the path); ``argv`` is what follows ``python -m meancli``.
    """

    argv: list[str]
    files: dict[str, bytes | Callable[[Path], None]] = field(default_factory=dict)
    stdin: bytes = b""
    prefix: list[str] = field(default_factory=list)  # e.g. setpriv to drop root's powers
    feed_fifo: tuple[str, bytes] | None = None  # write these bytes into this FIFO


@dataclass
class Ran:
    case: Case
    returncode: int
    stdout: bytes
    stderr: str
    workdir: Path
    new_files: list[str]


def _run(case: Case, workdir: Path) -> Ran:
    workdir.mkdir(parents=True)
    np.save(workdir / "x.npy", GOOD)
    for name, content in case.files.items():
        if callable(content):
            content(workdir / name)
        else:
            (workdir / name).write_bytes(content)
    before = set(os.listdir(workdir))
    feeder = None
    if case.feed_fifo is not None:
        fifo, payload = case.feed_fifo

        def feed() -> None:
            try:
                fd = os.open(workdir / fifo, os.O_WRONLY)  # blocks until meancli opens it
                with os.fdopen(fd, "wb") as f:
                    f.write(payload)
            except OSError:
                pass

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
    proc = subprocess.run(
        [*case.prefix, sys.executable, "-m", "meancli", *case.argv],
        cwd=workdir,
        input=case.stdin,
        capture_output=True,
        env=ENV,
        timeout=TIMEOUT,
    )
    if feeder is not None:
        feeder.join(timeout=5)
    after = set(os.listdir(workdir))
    return Ran(
        case,
        proc.returncode,
        proc.stdout,
        proc.stderr.decode("utf-8", "replace"),
        workdir,
        sorted(after - before),
    )


CASES: dict[str, Case] = {}


def case(name: str, *argv: str, **kw: Any) -> None:
    assert name not in CASES, name
    CASES[name] = Case(list(argv), **kw)


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    base = tmp_path_factory.mktemp("hostile")
    with ThreadPoolExecutor(max_workers=max(2, 2 * (os.cpu_count() or 1))) as pool:
        futures = {name: pool.submit(_run, c, base / name) for name, c in CASES.items()}
        return {name: f.result() for name, f in futures.items()}


def assert_error(r: Ran, code: int, name: str | None, *needles: str, note: bool = False) -> str:
    """Exit ``code``; stderr is one ``error:`` line naming ``name`` and holding the needles;
    nothing written to stdout or to the case's directory."""
    where = f"{r.case.argv} -> {r.returncode} {r.stderr!r}"
    assert "Traceback" not in r.stderr, where
    assert r.returncode == code, where
    lines = r.stderr.splitlines()
    if note:  # the bfloat16 note may come first
        lines = [line for line in lines if not line.startswith("note: ")]
    assert len(lines) == 1, where
    line = lines[0]
    assert line.startswith("error: ") and line[len("error: ") :].strip(), where
    if name is not None:
        assert name in line, where
    for needle in needles:
        assert needle.lower() in line.lower(), f"{needle!r} not in {line!r}"
    assert r.new_files == [], f"{where}: left {r.new_files}"
    assert r.stdout == b"", where
    return line


# --------------------------------------------------------------------------- malformed files

# name -> (file content, words the error line must hold)
MALFORMED: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "text": (b"descr,shape\n1,2\n", ("not a .npy file",)),
    "bad_magic": (b"\x93NUMPX\x01\x00" + F4_6, ("not a .npy file",)),
    "magic_lowercase": (b"\x93numpy\x01\x00" + F4_6, ("not a .npy file",)),
    "truncated_magic": (b"\x93NUM", ("truncated",)),
    "magic_only": (b"\x93NUMPY", ("truncated",)),
    "no_length_field": (b"\x93NUMPY\x01\x00", ("truncated", "length")),
    "length_field_cut_v2": (b"\x93NUMPY\x02\x00\x10\x00", ("truncated", "length")),
    "version_0_0": (raw_npy(hdr(), F4_6, (0, 0)), ("version 0.0",)),
    "version_1_1": (raw_npy(hdr(), F4_6, (1, 1)), ("version 1.1",)),
    "version_4_0": (raw_npy(hdr(), F4_6, (4, 0)), ("version 4.0",)),
    "version_255_255": (raw_npy(hdr(), F4_6, (255, 255)), ("version 255.255",)),
    "header_past_end": (b"\x93NUMPY\x01\x00\xe8\x03" + hdr().encode(), ("truncated header", "1000")),
    "header_4gib_v2": (b"\x93NUMPY\x02\x00\xff\xff\xff\xff" + hdr().encode(), ("header length", "limit")),
    "header_empty": (raw_npy(""), ("malformed header",)),
    "header_v3_bad_utf8": (raw_npy(b"{'descr': '\xff\xfe'}", b"", (3, 0)), ("malformed header", "utf8")),
    "header_not_literal": (raw_npy("descr = '<f4'\n", F4_6), ("malformed header",)),
    "header_a_list": (raw_npy("['<f4', False, (2, 3)]\n", F4_6), ("malformed header", "dict")),
    "header_a_set": (raw_npy("{'<f4', False}\n", F4_6), ("malformed header", "dict")),
    "header_missing_shape": (raw_npy("{'descr': '<f4', 'fortran_order': False}\n", F4_6), ("'shape'",)),
    "header_extra_key": (raw_npy(hdr()[:-2] + "'pickle': True}\n", F4_6), ("'pickle'",)),
    "header_code": (
        raw_npy(hdr(descr="__import__('os').system('touch PWNED')"), F4_6),
        ("malformed header", "Call expression"),
    ),
    "header_lambda": (raw_npy(hdr(shape="(lambda: 1)()"), F4_6), ("malformed header",)),
    "header_nul": (raw_npy(hdr().replace(",", ",\0", 1), F4_6), ("malformed header", "null")),
    "header_deep_nesting": (raw_npy(hdr(shape="(" * 3000 + ")" * 3000), F4_6), ("malformed header",)),
    "header_huge_int": (raw_npy(hdr(shape="(" + "9" * 5000 + ",)"), F4_6), ("malformed header", "digits")),
    "header_unhashable_key": (raw_npy("{['descr']: 1}\n"), ("malformed header",)),
    "descr_int": (raw_npy(hdr(descr="4"), F4_6), ("'descr' must be a string",)),
    "descr_bytes": (raw_npy(hdr(descr="b'<f4'"), F4_6), ("'descr' must be a string",)),
    "descr_unknown": (raw_npy(hdr(descr="'zz9'"), F4_6), ("'zz9'", "not a dtype")),
    "descr_spaces": (raw_npy(hdr(descr="' <f4 '"), F4_6), ("not a dtype",)),
    "descr_object": (raw_npy(hdr(descr="'|O'"), F4_6), ("object", "pickle")),
    "descr_subarray": (raw_npy(hdr(descr="'(2,)<f4'", shape="(3,)"), F4_6), ("subarray",)),
    "descr_structured_str": (raw_npy(hdr(descr="'<f4,<f4'", shape="(3,)"), F4_6), ("structured",)),
    "descr_zero_size": (raw_npy(hdr(descr="'|S0'")), ("zero-size",)),
    "descr_stringdtype": (raw_npy(hdr(descr="'T'", shape="(1,)"), b"\0" * 16), ("StringDType",)),
    "fortran_order_str": (raw_npy(hdr(fortran="'yes'"), F4_6), ("'fortran_order'",)),
    "fortran_order_int": (raw_npy(hdr(fortran="1"), F4_6), ("'fortran_order'",)),
    "fortran_order_none": (raw_npy(hdr(fortran="None"), F4_6), ("'fortran_order'",)),
    "shape_list": (raw_npy(hdr(shape="[2, 3]"), F4_6), ("'shape' must be a tuple",)),
    "shape_int": (raw_npy(hdr(shape="6"), F4_6), ("'shape' must be a tuple",)),
    "shape_negative": (raw_npy(hdr(shape="(-2, -3)"), F4_6), ("negative dimension",)),
    "shape_negative_zero_product": (raw_npy(hdr(shape="(0, -1)")), ("negative dimension",)),
    "shape_float": (raw_npy(hdr(shape="(2.0, 3)"), F4_6), ("non-integer", "2.0")),
    "shape_nan": (raw_npy(hdr(shape="(float('nan'),)"), F4_6), ("malformed header",)),
    "shape_bool": (raw_npy(hdr(shape="(True, 6)"), F4_6), ("non-integer", "True")),
    "shape_str": (raw_npy(hdr(shape="('6',)"), F4_6), ("non-integer",)),
    "shape_none": (raw_npy(hdr(shape="(None,)"), F4_6), ("non-integer",)),
    "shape_complex": (raw_npy(hdr(shape="(6j,)"), F4_6), ("non-integer",)),
    "shape_nested": (raw_npy(hdr(shape="((2, 3),)"), F4_6), ("non-integer",)),
    "shape_overflow": (raw_npy(hdr(shape="(4294967296, 4294967296)"), F4_6), ("too large",)),
    "shape_overflow_int64": (raw_npy(hdr(descr="'|u1'", shape="(9223372036854775807,)"), F4_6), ("too large",)),
    "shape_overflow_with_zero": (raw_npy(hdr(shape="(0, 2**70)")), ("malformed header",)),
    "shape_overflow_with_zero_literal": (raw_npy(hdr(shape=f"(0, {2**70})")), ("too large",)),
    "shape_rank65": (raw_npy(hdr(shape="(1,) * 65"), F4_6), ("malformed header",)),
    "shape_rank65_literal": (raw_npy(hdr(shape=repr((1,) * 65)), b"\0" * 4), ("65 dimensions", "64")),
    "data_truncated": (raw_npy(hdr(shape="(10,)"), F4_6), ("truncated data", "40 bytes", "24")),
    "data_missing": (raw_npy(hdr()), ("truncated data",)),
    "data_trailing": (raw_npy(hdr(), F4_6 + b"\0"), ("trailing bytes", "1 bytes after")),
    "data_trailing_size0": (raw_npy(hdr(shape="(0, 3)"), b"\0" * 4), ("trailing bytes",)),
    "data_huge_shape_small_file": (raw_npy(hdr(descr="'<f8'", shape="(1073741824, 4)"), F4_6), ("truncated data",)),
    "empty": (b"", ("empty file",)),
    "one_byte": (b"\x93", ("truncated",)),
    "npz": (npz(), (".npz",)),
    "zip_empty_archive": (b"PK\x05\x06" + b"\0" * 18, (".npz",)),
    "gzip_npy": (gzip.compress(saved(GOOD)), ("not a .npy file",)),
    "object_pickled": (saved(np.array([1, "a", None], dtype=object), allow_pickle=True), ("object", "pickle")),
    "structured": (saved(np.zeros(3, dtype=[("a", "<i4"), ("b", "<f4")])), ("structured",)),
}

for _name, (_content, _) in MALFORMED.items():
    case(f"bad_{_name}", "reduce-mean", "bad.npy", "--axes", "0", "-o", "out.npy", files={"bad.npy": _content})


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_file(ran: dict[str, Ran], name: str) -> None:
    assert_error(ran[f"bad_{name}"], 1, "bad.npy", *MALFORMED[name][1])


def test_header_code_is_never_run(ran: dict[str, Ran]) -> None:
    assert not (ran["bad_header_code"].workdir / "PWNED").exists()


def test_second_file_named_in_mean(ran: dict[str, Ran]) -> None:
    line = assert_error(ran["mean_second_bad"], 1, "second.npy", "truncated data")
    assert "first.npy" not in line


case(
    "mean_second_bad",
    "mean",
    "first.npy",
    "second.npy",
    "-o",
    "out.npy",
    files={"first.npy": saved(np.ones((2, 3), np.float32)), "second.npy": raw_npy(hdr(shape="(2, 4)"), F4_6)},
)


# --------------------------------------------------------------------------- paths that are not files


def _directory(p: Path) -> None:
    p.mkdir()


def _symlink_loop(p: Path) -> None:
    os.symlink(p.with_name("loop2.npy"), p)
    os.symlink(p, p.with_name("loop2.npy"))


def _dangling(p: Path) -> None:
    os.symlink(p.with_name("nowhere.npy"), p)


def _unreadable(p: Path) -> None:
    p.write_bytes(saved(GOOD))
    p.chmod(0)


def _fifo(p: Path) -> None:
    os.mkfifo(p)


def _drop_root() -> list[str]:
    """A command prefix that takes away root's power to read any file (or nothing)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search"] if setpriv else []


PATHS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # case -> (argument, name in the error, words)
    "missing": ("missing.npy", "missing.npy", ("no such file",)),
    "directory": ("dir.npy", "dir.npy", ("directory",)),
    "symlink_loop": ("loop.npy", "loop.npy", ("symbolic links",)),
    "dangling_symlink": ("dangling.npy", "dangling.npy", ("no such file",)),
    "unreadable": ("secret.npy", "secret.npy", ("permission denied",)),
    "eio": ("/proc/self/mem", "/proc/self/mem", ("read error",)),
    "dev_null": ("/dev/null", "/dev/null", ("empty",)),
    "dev_zero": ("/dev/zero", "/dev/zero", ("not a .npy file",)),
    "empty_name": ("", "error: :", ("no such file",)),
    "newline_name": ("a\nb.npy", "a\\nb.npy", ("no such file",)),
    "fifo_truncated": ("pipe.npy", "pipe.npy", ("truncated data", "the stream ends after")),
    "fifo_trailing": ("pipe.npy", "pipe.npy", ("trailing bytes",)),
}
_PATH_FILES: dict[str, dict[str, bytes | Callable[[Path], None]]] = {
    "directory": {"dir.npy": _directory},
    "symlink_loop": {"loop.npy": _symlink_loop},
    "dangling_symlink": {"dangling.npy": _dangling},
    "unreadable": {"secret.npy": _unreadable},
    "fifo_truncated": {"pipe.npy": _fifo},
    "fifo_trailing": {"pipe.npy": _fifo},
}
for _name, (_arg, _, _) in PATHS.items():
    case(
        f"path_{_name}",
        "reduce-mean",
        _arg,
        "-o",
        "out.npy",
        files=_PATH_FILES.get(_name, {}),
        prefix=_drop_root() if _name == "unreadable" else [],
        feed_fifo={
            "fifo_truncated": ("pipe.npy", saved(GOOD)[:-5]),
            "fifo_trailing": ("pipe.npy", saved(GOOD) + b"junk"),
        }.get(_name),
    )


@pytest.mark.parametrize("name", list(PATHS))
def test_not_a_readable_file(ran: dict[str, Ran], name: str) -> None:
    if name == "unreadable" and os.geteuid() == 0 and not _drop_root():
        pytest.skip("running as root without setpriv: every file is readable")
    _, shown, words = PATHS[name]
    assert_error(ran[f"path_{name}"], 1, shown, *words)


STDIN_CASES = {
    "stdin_empty": (b"", ("<stdin>", "empty")),
    "stdin_truncated": (saved(GOOD)[:-1], ("<stdin>", "truncated data", "the stream ends after")),
    "stdin_trailing": (saved(GOOD) + b"\0", ("<stdin>", "trailing bytes")),
    "stdin_npz": (npz(), ("<stdin>", ".npz")),
    "stdin_text": (b"1 2 3\n", ("<stdin>", "not a .npy file")),
}
for _name, (_data, _) in STDIN_CASES.items():
    case(_name, "reduce-mean", "-", "-o", "out.npy", stdin=_data)


@pytest.mark.parametrize("name", list(STDIN_CASES))
def test_bad_stdin(ran: dict[str, Ran], name: str) -> None:
    assert_error(ran[name], 1, None, *STDIN_CASES[name][1])


# --------------------------------------------------------------------------- unsupported dtypes

UNSUPPORTED: dict[str, tuple[np.ndarray, str]] = {
    # case -> (array, the dtype name the error must use)
    "complex64": (np.ones(3, np.complex64), "complex64"),
    "complex128": (np.ones(3, np.complex128), "complex128"),
    "bool": (np.ones(3, bool), "bool"),
    "unicode": (np.array(["ab", "c"]), "str"),
    "bytes": (np.array([b"ab", b"c"]), "bytes"),
    "datetime64": (np.array(["2020-01-01"], dtype="datetime64[D]"), "datetime64"),
    "timedelta64": (np.array([1, 2], dtype="timedelta64[s]"), "timedelta64"),
    "float128": (np.ones(3, np.longdouble), "float128"),
    "int8": (np.ones(3, np.int8), "int8"),
    "uint16": (np.ones(3, np.uint16), "uint16"),
    "void3": (np.zeros(3, "V3"), "void"),
}
for _name, (_array, _) in UNSUPPORTED.items():
    case(f"dtype_{_name}", "reduce-mean", "t.npy", "-o", "out.npy", files={"t.npy": saved(_array)})
case("dtype_mean_int32", "mean", "t.npy", "t.npy", "-o", "out.npy", files={"t.npy": saved(np.ones(3, np.int32))})
_BF16 = saved(np.ones((2, 3), ml_dtypes.bfloat16))
case("dtype_bf16_opset11", "reduce-mean", "t.npy", "--opset", "11", "-o", "out.npy", files={"t.npy": _BF16})
case("dtype_bf16_mean8", "mean", "t.npy", "--opset", "8", "-o", "out.npy", files={"t.npy": _BF16})
case(
    "dtype_mixed",
    "mean",
    "a.npy",
    "b.npy",
    "-o",
    "out.npy",
    files={"a.npy": saved(np.ones(3, np.float32)), "b.npy": saved(np.ones(3, np.float64))},
)


@pytest.mark.parametrize("name", list(UNSUPPORTED))
def test_unsupported_dtype(ran: dict[str, Ran], name: str) -> None:
    line = assert_error(ran[f"dtype_{name}"], 1, None, REDUCE18, UNSUPPORTED[name][1])
    for t in REDUCE18_TYPES:
        assert t in line


def test_unsupported_dtype_of_mean(ran: dict[str, Ran]) -> None:
    line = assert_error(ran["dtype_mean_int32"], 1, None, MEAN13, "int32")
    assert all(t in line for t in MEAN13_TYPES)


def test_bfloat16_before_version_13(ran: dict[str, Ran]) -> None:
    line = assert_error(ran["dtype_bf16_opset11"], 1, None, "ReduceMean-11", "bfloat16", note=True)
    assert all(t in line for t in REDUCE11_TYPES)
    line = assert_error(ran["dtype_bf16_mean8"], 1, None, "Mean-8", "bfloat16", note=True)
    assert all(t in line for t in MEAN8_TYPES)


def test_mixed_dtypes(ran: dict[str, Ran]) -> None:
    assert_error(ran["dtype_mixed"], 1, None, "float32", "float64")


@pytest.mark.xfail(
    strict=True,
    reason="BUG (meancli/cli, api): a dtype error comes from the validator and never names the file; "
    "with several inputs the user cannot tell which one is wrong",
)
def test_unsupported_dtype_names_the_file(ran: dict[str, Ran]) -> None:
    assert_error(ran["dtype_complex64"], 1, "t.npy")


@pytest.mark.xfail(
    strict=True,
    reason="BUG (meancli/cli): object and structured .npy files are refused by the reader, before "
    "an operator version is consulted, so the error does not list the types the version allows",
)
@pytest.mark.parametrize("name", ["object_pickled", "structured"])
def test_object_and_structured_list_the_allowed_types(ran: dict[str, Ran], name: str) -> None:
    line = assert_error(ran[f"bad_{name}"], 1, "bad.npy")
    assert all(t in line for t in REDUCE18_TYPES)


# --------------------------------------------------------------------------- odd but valid files


def _unpadded(a: np.ndarray) -> bytes:
    """A valid .npy whose header is not padded, so the data offset is odd."""
    text = f"{{'descr': {a.dtype.str!r}, 'fortran_order': False, 'shape': {a.shape!r}}}\n"
    if (11 + len(text)) % 2 == 0:
        text = text[:-1] + " \n"
    return raw_npy(text, a.tobytes())


ODD_VALID: dict[str, tuple[bytes, np.ndarray]] = {
    "big_endian_f4": (saved(GOOD.astype(">f4")), GOOD),
    "big_endian_i8": (saved(np.arange(24, dtype=">i8").reshape(2, 3, 4)), np.arange(24).reshape(2, 3, 4)),
    "fortran": (saved(np.asfortranarray(GOOD)), GOOD),
    "version_2_0": (raw_npy(hdr(shape="(2, 3, 4)"), GOOD.tobytes(), (2, 0)), GOOD),
    "version_3_0": (raw_npy(hdr(shape="(2, 3, 4)").replace("'", '"'), GOOD.tobytes(), (3, 0)), GOOD),
    "python2_long": (raw_npy(hdr(shape="(2L, 3L, 4L)"), GOOD.tobytes()), GOOD),
    "unpadded_f8": (_unpadded(GOOD.astype(np.float64)), GOOD),
    "unpadded_f4": (_unpadded(GOOD), GOOD),
    "no_newline": (raw_npy(hdr(shape="(2, 3, 4)").rstrip(), GOOD.tobytes()), GOOD),
    "rank64": (saved(np.arange(4, dtype=np.float32).reshape((2,) + (1,) * 62 + (2,))), None),
}
for _name, (_content, _) in ODD_VALID.items():
    case(f"valid_{_name}", "reduce-mean", "v.npy", "--axes", "0", "-o", "out.npy", files={"v.npy": _content})


@pytest.mark.parametrize("name", list(ODD_VALID))
def test_odd_but_valid_file(ran: dict[str, Ran], name: str) -> None:
    r = ran[f"valid_{name}"]
    assert r.returncode == 0, r.stderr
    assert r.new_files == ["out.npy"]
    got = np.load(r.workdir / "out.npy")
    x = np.load(r.workdir / "v.npy")
    want = x.astype(np.float64).mean(axis=0, keepdims=True)
    assert got.shape == want.shape
    assert got.dtype == x.dtype.newbyteorder("=")
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-6)
    if ODD_VALID[name][1] is not None:
        np.testing.assert_array_equal(x, ODD_VALID[name][1])


case("valid_dash_name", "reduce-mean", "--", "-x.npy", files={"-x.npy": saved(GOOD)})
case("valid_stdin", "reduce-mean", "-", "--axes", "1", "-o", "-", stdin=saved(GOOD))
case(
    "valid_fifo",
    "reduce-mean",
    "pipe.npy",
    "--axes",
    "1",
    "-o",
    "-",
    files={"pipe.npy": _fifo},
    feed_fifo=("pipe.npy", saved(GOOD)),
)


def test_file_named_like_an_option(ran: dict[str, Ran]) -> None:
    assert ran["valid_dash_name"].returncode == 0, ran["valid_dash_name"].stderr


@pytest.mark.parametrize("name", ["valid_stdin", "valid_fifo"])
def test_streams(ran: dict[str, Ran], name: str) -> None:
    r = ran[name]
    assert r.returncode == 0, r.stderr
    got = np.load(io.BytesIO(r.stdout))
    np.testing.assert_allclose(got, GOOD.mean(axis=1, keepdims=True), rtol=1e-6)


# --------------------------------------------------------------------------- arguments

# case -> (argv after the command's file, exit status, words of the error)
ARGS: dict[str, tuple[list[str], int, tuple[str, ...]]] = {
    "axes_word": (["--axes", "x"], 2, ("'x'", "integer")),
    "axes_float": (["--axes", "1.5"], 2, ("1.5",)),
    "axes_list_word": (["--axes=1,x"], 2, ("'x'",)),
    "axes_hex": (["--axes=0x1"], 2, ("0x1",)),
    "axes_huge": (["--axes", "99999999999999999999"], 2, ("99999999999999999999",)),
    "axes_huge_negative": (["--axes=-99999999999999999999"], 2, ("-99999999999999999999",)),
    "axes_int64_max": (["--axes", "9223372036854775807"], 1, ("out of range", "9223372036854775807")),
    "axes_out_of_range": (["--axes", "3"], 1, ("axis 3", "out of range", "-3..2")),
    "axes_out_of_range_negative": (["--axes", "-4"], 1, ("axis -4", "out of range")),
    "axes_repeated": (["--axes", "1", "1"], 1, ("repeats",)),
    "axes_repeated_negative": (["--axes", "1", "-2"], 1, ("repeats",)),
    "axes_repeated_options": (["--axes", "2", "--axes", "2"], 1, ("repeats",)),
    "axes_no_value": (["--axes"], 2, ("--axes",)),
    "noop_opset13": (["--noop-with-empty-axes", "--opset", "13"], 1, ("ReduceMean-13", "noop_with_empty_axes")),
    "noop_openvino": (
        ["--noop-with-empty-axes", "--opset", "openvino:1", "--axes="],
        1,
        ("openvino", "noop_with_empty_axes"),
    ),
    "openvino_without_axes": (["--opset", "openvino:1"], 1, ("requires axes",)),
    "threads_zero": (["--threads", "0"], 2, ("--threads",)),
    "threads_negative": (["--threads", "-1"], 2, ("--threads",)),
    "threads_word": (["--threads", "many"], 2, ("--threads",)),
    "threads_huge": (["--threads", "99999999999999999999"], 2, ("--threads",)),
    "unknown_option": (["--bogus"], 2, ("--bogus",)),
    "output_no_value": (["-o"], 2, ("-o",)),
    "two_files": (["x.npy"], 2, ()),
}
# --opset forms; malformed ones should be usage errors (2): that they exit 1 is a known bug,
# pinned by tests/test_cli.py::test_malformed_opset_is_a_usage_error, so either is accepted here.
OPSETS: dict[str, tuple[str, tuple[int, ...], tuple[str, ...]]] = {
    "opset_domain_only": ("onnx:", (1, 2), ("'onnx:'",)),
    "opset_unknown_domain": ("foo:3", (1, 2), ("'foo'",)),
    "opset_negative": ("-1", (1, 2), ("'-1'",)),
    "opset_zero": ("0", (1, 2), ("'0'",)),
    "opset_float": ("1.5", (1, 2), ("'1.5'",)),
    "opset_empty": ("", (1, 2), ("--opset",)),
    "opset_too_many_digits": ("9999999999", (1, 2), ("9999999999",)),
    "opset_two_colons": ("onnx:1:2", (1, 2), ("onnx:1:2",)),
}
for _name, (_argv, _, _) in ARGS.items():
    case(f"arg_{_name}", "reduce-mean", "x.npy", *([] if "-o" in _argv else ["-o", "out.npy"]), *_argv)
for _name, (_value, _, _) in OPSETS.items():
    case(f"arg_{_name}", "reduce-mean", "x.npy", "--axes", "1", "--opset", _value, "-o", "out.npy")
    case(f"arg_mean_{_name}", "mean", "x.npy", "--opset", _value, "-o", "out.npy")
MEAN_ARGS: dict[str, tuple[list[str], int, tuple[str, ...]]] = {
    "mean_axes": (["--axes", "1"], 2, ("--axes",)),
    "mean_keep_dims": (["--keep-dims"], 2, ("--keep-dims",)),
    "mean_noop": (["--noop-with-empty-axes"], 2, ("--noop-with-empty-axes",)),
    "mean_openvino": (["--opset", "openvino:1"], 1, ("openvino",)),
    "mean_stdin_twice": (["-", "-"], 2, ("stdin",)),
}
for _name, (_argv, _, _) in MEAN_ARGS.items():
    case(f"arg_{_name}", "mean", "x.npy", *_argv, "-o", "out.npy")
case("arg_rank0_axis", "reduce-mean", "s.npy", "--axes", "0", "-o", "out.npy", files={"s.npy": saved(np.float32(1))})
case("arg_opset_huge", "reduce-mean", "x.npy", "--axes", "1", "--opset", "99999", "--json", "-o", "out.npy")
case("arg_mean_opset_huge", "mean", "x.npy", "--opset", "onnx:99999", "--json", "-o", "out.npy")


@pytest.mark.parametrize("name", list(ARGS))
def test_bad_arguments(ran: dict[str, Ran], name: str) -> None:
    _, code, words = ARGS[name]
    assert_error(ran[f"arg_{name}"], code, None, *words)


@pytest.mark.parametrize("name", list(MEAN_ARGS))
def test_bad_arguments_of_mean(ran: dict[str, Ran], name: str) -> None:
    _, code, words = MEAN_ARGS[name]
    assert_error(ran[f"arg_{name}"], code, None, *words)


@pytest.mark.parametrize("command", ["", "mean_"])
@pytest.mark.parametrize("name", list(OPSETS))
def test_bad_opset(ran: dict[str, Ran], name: str, command: str) -> None:
    r = ran[f"arg_{command}{name}"]
    _, codes, words = OPSETS[name]
    assert r.returncode in codes, r.stderr
    assert_error(r, r.returncode, None, "--opset", *words)


def test_rank0_accepts_no_axis(ran: dict[str, Ran]) -> None:
    assert_error(ran["arg_rank0_axis"], 1, None, "axis 0", "out of range")


@pytest.mark.parametrize(("name", "version"), [("arg_opset_huge", 18), ("arg_mean_opset_huge", 13)])
def test_huge_opset_picks_the_newest_version(ran: dict[str, Ran], name: str, version: int) -> None:
    r = ran[name]
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["version"] == version


case("arg_axes_int64_min", "reduce-mean", "x.npy", "--axes", "-9223372036854775808", "-o", "out.npy")


@pytest.mark.xfail(
    strict=True,
    reason="BUG (meancli/cli/argv.py parse_axes): -9223372036854775808 (-2**63) is refused as "
    "'out of the int64 range' with exit 2, but it is the smallest int64",
)
def test_axes_int64_min_is_an_out_of_range_axis(ran: dict[str, Ran]) -> None:
    assert_error(ran["arg_axes_int64_min"], 1, None, "out of range", "-9223372036854775808")
