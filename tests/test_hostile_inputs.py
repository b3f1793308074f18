"""Hostile input files and arguments, through the real command line.

Whatever a user points meancli at, the result is the right answer or exactly one
``error:`` line on stderr that names the file and what is wrong, with the
documented exit status (1 input or spec violation, 2 usage), no traceback, and
no output file (``-o out.npy`` is passed to every failing case, and the case's
directory must hold nothing new afterwards).

Every case runs in a process of its own, in its own directory, with its own
stdin/stdout/stderr. Most are forked from a server process that has imported
meancli once and then calls ``meancli.cli.app.main(argv)`` -- exactly what
``python -m meancli`` runs -- so some 300 cases cost seconds, not minutes; the
cases marked ``real`` (and those needing another environment or a command
prefix) are plain ``python -m meancli`` subprocesses, which also shows that the
server changes nothing. Each malformed file is also read through the streaming
path (``MEANCLI_STREAM_MIN_BYTES=1``, tiny ``MEANCLI_SLAB_BYTES``).
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
import warnings
import zipfile
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


def npz(**arrays: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def zipped(members: dict[str, bytes]) -> bytes:
    """A zip archive holding these members, stored as given."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


F4_6 = np.arange(6, dtype="<f4").tobytes()
GOOD = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


# --------------------------------------------------------------------------- running cases

#: The streaming path forced on every regular file, in slabs of a few rows.
STREAMING = {"MEANCLI_STREAM_MIN_BYTES": "1", "MEANCLI_SLAB_BYTES": "100"}


@dataclass
class Case:
    """One command line run in its own directory.

    ``files`` are written into the directory first (bytes, or a callable that
    creates the path); ``argv`` is what follows ``python -m meancli``.
    """

    argv: list[str]
    files: dict[str, bytes | Callable[[Path], None]] = field(default_factory=dict)
    stdin: bytes = b""
    env: dict[str, str] = field(default_factory=dict)
    prefix: list[str] = field(default_factory=list)  # e.g. setpriv to drop root's powers
    feed_fifo: tuple[str, bytes] | None = None  # write these bytes into this FIFO
    real: bool = False  # a plain `python -m meancli` subprocess, not a fork of the server


@dataclass
class Ran:
    case: Case
    returncode: int
    stdout: bytes
    stderr: str
    workdir: Path
    new_files: list[str]


# The server: reads one JSON request per line, forks, and the child runs main(argv) in the
# request's directory with its stdin/stdout/stderr on the request's files, then exits with
# main's status (or 1 after printing the traceback, as the interpreter does).
SERVER = r"""
import json, os, sys, traceback
requests = os.fdopen(os.dup(0), "r")
replies = os.fdopen(os.dup(1), "w")
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 0)
os.dup2(null, 1)
from meancli.cli.app import main
import meancli.api, meancli.errors, meancli.io.registry, meancli.kernels, meancli.io.source
import meancli.io.detect, meancli.io.npz
import numpy, rich.console, rich.table, tempfile
try:
    meancli.kernels.load()
except meancli.errors.MeancliError:
    pass  # every case will say why (a stale build: exit 3 and the error line)
# Warm every lazy import of the command path (never a kernel: OpenMP must not start before
# a fork), so that each child does not pay for it.
warm = tempfile.mkdtemp()
numpy.save(os.path.join(warm, "a.npy"), numpy.zeros((2, 3), numpy.float32))
numpy.save(os.path.join(warm, "b.npy"), numpy.zeros((4,), numpy.float32))
saved_stderr = os.dup(2)
os.dup2(null, 2)
for argv in (["reduce-mean", "a.npy", "--axes", "5", "-o", "o.npy"], ["mean", "a.npy", "b.npy"],
             ["reduce-mean", "missing.npy"], ["mean", "--bogus"], ["reduce-mean", "-h"]):
    os.chdir(warm)
    try:
        main(argv)
    except BaseException:
        pass
sys.stdout.flush()
sys.stderr.flush()
os.dup2(saved_stderr, 2)
for line in requests:
    c = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.chdir(c["cwd"])
            write = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
            targets = ((0, c["stdin"], os.O_RDONLY), (1, c["stdout"], write), (2, c["stderr"], write))
            for fd, path, flags in targets:
                f = os.open(path, flags, 0o644)
                os.dup2(f, fd)
                os.close(f)
            try:
                code = main(c["argv"])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:
                traceback.print_exc()
                code = 1
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except BaseException:
                    pass
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    replies.write(json.dumps(os.waitstatus_to_exitcode(status)) + "\n")
    replies.flush()
"""


def _prepare(case: Case, workdir: Path) -> set[str]:
    workdir.mkdir(parents=True)
    np.save(workdir / "x.npy", GOOD)
    for name, content in case.files.items():
        if callable(content):
            content(workdir / name)
        else:
            (workdir / name).write_bytes(content)
    if case.feed_fifo is not None:
        fifo, payload = case.feed_fifo

        def feed() -> None:
            try:
                fd = os.open(workdir / fifo, os.O_WRONLY)  # blocks until meancli opens it
                with os.fdopen(fd, "wb") as f:
                    f.write(payload)
            except OSError:
                pass

        threading.Thread(target=feed, daemon=True).start()
    return set(os.listdir(workdir))


def _ran(case: Case, workdir: Path, before: set[str], code: int, stdout: bytes, stderr: bytes) -> Ran:
    new = sorted(set(os.listdir(workdir)) - before)
    return Ran(case, code, stdout, stderr.decode("utf-8", "replace"), workdir, new)


def _run_real(case: Case, workdir: Path) -> Ran:
    before = _prepare(case, workdir)
    proc = subprocess.run(
        [*case.prefix, sys.executable, "-m", "meancli", *case.argv],
        cwd=workdir,
        input=case.stdin,
        capture_output=True,
        env={**ENV, **case.env},
        timeout=TIMEOUT,
    )
    return _ran(case, workdir, before, proc.returncode, proc.stdout, proc.stderr)


def _run_served(cases: dict[str, Case], base: Path, env: dict[str, str]) -> dict[str, Ran]:
    io_dir = base / "io"
    io_dir.mkdir(parents=True)
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env={**ENV, **env, "OPENBLAS_NUM_THREADS": "1"},
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    out: dict[str, Ran] = {}
    try:
        for name, c in cases.items():
            workdir = base / name
            before = _prepare(c, workdir)
            files = {k: io_dir / f"{name}.{k}" for k in ("stdin", "stdout", "stderr")}
            files["stdin"].write_bytes(c.stdin)
            request = {"argv": c.argv, "cwd": str(workdir), **{k: str(v) for k, v in files.items()}}
            server.stdin.write(json.dumps(request) + "\n")
            server.stdin.flush()
            reply = server.stdout.readline()
            assert reply, f"the test server died at case {name}"
            code = json.loads(reply)
            out[name] = _ran(
                c, workdir, before, code, files["stdout"].read_bytes(), files["stderr"].read_bytes()
            )
    finally:
        server.stdin.close()
        server.wait(timeout=TIMEOUT)
    return out


CASES: dict[str, Case] = {}


def case(name: str, *argv: str, **kw: Any) -> None:
    assert name not in CASES, name
    CASES[name] = Case(list(argv), **kw)


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    base = tmp_path_factory.mktemp("hostile")
    servers = max(2, os.cpu_count() or 1)  # per environment
    served: dict[tuple[str, int], dict[str, Case]] = {}
    real: dict[str, Case] = {}
    for i, (name, c) in enumerate(CASES.items()):
        if c.real or c.prefix or c.env not in ({}, STREAMING):
            real[name] = c
        else:
            served.setdefault(("streaming" if c.env else "plain", i % servers), {})[name] = c
    with ThreadPoolExecutor(max_workers=len(served) + servers) as pool:
        jobs = [
            pool.submit(_run_served, cases, base / f"{kind}{i}", STREAMING if kind == "streaming" else {})
            for (kind, i), cases in served.items()
        ]
        singles = {name: pool.submit(_run_real, c, base / "real" / name) for name, c in real.items()}
        results: dict[str, Ran] = {}
        for job in jobs:
            results.update(job.result())
        results.update({name: f.result() for name, f in singles.items()})
    return results


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
    "shape_overflow_int64": (
        raw_npy(hdr(descr="'|u1'", shape="(9223372036854775807,)"), F4_6),
        ("too large",),
    ),
    "shape_overflow_with_zero": (raw_npy(hdr(shape="(0, 2**70)")), ("malformed header",)),
    "shape_overflow_with_zero_literal": (raw_npy(hdr(shape=f"(0, {2**70})")), ("too large",)),
    "shape_rank65": (raw_npy(hdr(shape="(1,) * 65"), F4_6), ("malformed header",)),
    "shape_rank65_literal": (raw_npy(hdr(shape=repr((1,) * 65)), b"\0" * 4), ("65 dimensions", "64")),
    "data_truncated": (raw_npy(hdr(shape="(10,)"), F4_6), ("truncated data", "40 bytes", "24")),
    "data_missing": (raw_npy(hdr()), ("truncated data",)),
    "data_trailing": (raw_npy(hdr(), F4_6 + b"\0"), ("trailing bytes", "25")),
    "data_trailing_size0": (raw_npy(hdr(shape="(0, 3)"), b"\0" * 4), ("trailing bytes",)),
    "data_huge_shape_small_file": (
        raw_npy(hdr(descr="'<f8'", shape="(1073741824, 4)"), F4_6),
        ("truncated data",),
    ),
    "empty": (b"", ("empty file",)),
    "one_byte": (b"\x93", ("truncated",)),
    "npz_two_arrays": (
        npz(a=np.ones(3, np.float32), b=np.ones(2, np.float32)),
        ("holds 2 arrays", "bad.npy:NAME"),
    ),
    "zip_empty_archive": (b"PK\x05\x06" + b"\0" * 18, (".npz",)),
    "gzip_npy": (gzip.compress(saved(GOOD)), ("not a .npy file",)),
    "object_pickled": (
        saved(np.array([1, "a", None], dtype=object), allow_pickle=True),
        ("object", "pickle"),
    ),
    "structured": (saved(np.zeros(3, dtype=[("a", "<i4"), ("b", "<f4")])), ("structured",)),
}

# These also run as plain `python -m meancli` subprocesses, to compare with the server's runs.
REAL = ("header_code", "data_truncated", "descr_object", "npz_two_arrays")
# And these as the second input of `mean`.
AS_SECOND = ("bad_magic", "version_4_0", "header_code", "descr_object", "shape_negative", "data_truncated")
AS_SECOND += ("data_trailing", "empty", "structured", "shape_overflow")

for _name, (_content, _) in MALFORMED.items():
    _argv = ("reduce-mean", "bad.npy", "--axes", "0", "-o", "out.npy")
    case(f"bad_{_name}", *_argv, files={"bad.npy": _content})
    if _name in REAL:
        case(f"real_bad_{_name}", *_argv, files={"bad.npy": _content}, real=True)
    if not _name.startswith("npz"):  # a streamed .npz: see test_large_npz_is_read_too
        case(f"stream_bad_{_name}", *_argv, files={"bad.npy": _content}, env=STREAMING)
    if _name in AS_SECOND:
        case(f"mean_bad_{_name}", "mean", "x.npy", "bad.npy", "-o", "out.npy", files={"bad.npy": _content})


@pytest.mark.parametrize(
    "case_name",
    [
        f"{how}_{name}"
        for how in ("bad", "stream_bad", "mean_bad")
        for name in MALFORMED
        if f"{how}_{name}" in CASES
    ],
)
def test_malformed_file(ran: dict[str, Ran], case_name: str) -> None:
    assert_error(ran[case_name], 1, "bad.npy", *MALFORMED[case_name.split("bad_", 1)[1]][1])


# --------------------------------------------------------------------------- hostile .npz archives


def _member(header: str, data: bytes = b"") -> bytes:
    return raw_npy(header, data)


NPZ: dict[str, tuple[bytes, tuple[str, ...]]] = {
    "truncated": (npz(a=np.ones(100, np.float32))[:150], ("not a readable .npz",)),
    "bad_crc": (
        zipped({"a.npy": saved(np.ones(100, np.float32))}).replace(b"\x00\x00\x80?", b"\x00\x00\x80>", 1),
        ("crc",),
    ),
    "empty_archive": (zipped({}), (".npz",)),
    "member_malformed": (zipped({"a.npy": _member("{'descr': 1}\n")}), ("a.npz:a",)),
    "member_object": (
        zipped({"a.npy": saved(np.array([1, None], dtype=object), allow_pickle=True)}),
        ("a.npz:a", "pickle"),
    ),
    "member_negative_shape": (zipped({"a.npy": _member(hdr(shape="(-3,)"), F4_6)}), ("a.npz:a",)),
    "member_truncated": (zipped({"a.npy": _member(hdr(shape="(100,)"), F4_6)}), ("a.npz:a",)),
    "member_complex": (npz(a=np.ones(3, np.complex64)), ("complex64",)),
}
for _name, (_content, _) in NPZ.items():
    case(f"npz_{_name}", "reduce-mean", "a.npz", "-o", "out.npy", files={"a.npz": _content})
case("npz_missing_member", "reduce-mean", "a.npz:zz", "-o", "out.npy", files={"a.npz": npz(a=GOOD)})


@pytest.mark.parametrize("name", list(NPZ))
def test_hostile_npz(ran: dict[str, Ran], name: str) -> None:
    assert_error(ran[f"npz_{name}"], 1, "a.npz" if name != "member_complex" else None, *NPZ[name][1])


def test_npz_missing_member_lists_the_members(ran: dict[str, Ran]) -> None:
    assert_error(ran["npz_missing_member"], 1, "a.npz", "'zz'", "holds: a")


def _patched_zip(flags: int = 0, method: int | None = None, version: int | None = None) -> bytes:
    """A one-member archive with fields of its headers overwritten (local header, central directory)."""
    data = bytearray(zipped({"a.npy": saved(np.ones(100, np.float32))}))
    cd = data.find(b"PK\x01\x02")
    data[6] |= flags
    data[cd + 8] |= flags
    if method is not None:
        data[8:10] = data[cd + 10 : cd + 12] = method.to_bytes(2, "little")
    if version is not None:
        data[cd + 6 : cd + 8] = version.to_bytes(2, "little")
    return bytes(data)


def _bad_deflate() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("a.npy", saved(np.ones(100, np.float32)))
    data = bytearray(buf.getvalue())
    data[30 + len("a.npy")] = 0x07  # the first deflate block: BFINAL=1, BTYPE=3 (reserved)
    return bytes(data)


# Damaged, encrypted or unusual archives: each one line naming the archive or member.
NPZ_DAMAGED: dict[str, tuple[bytes, str]] = {
    "member_not_npy": (zipped({"a.txt": b"hello"}), "a.npz:a.txt: not a .npy file"),
    "directory_entry": (zipped({"sub/": b""}), "a.npz: the .npz archive holds no arrays"),
    "member_huge_shape": (
        zipped({"a.npy": _member(hdr(descr="'<f8'", shape="(1099511627776,)"), F4_6)}),
        "a.npz:a: truncated data: header says shape (1099511627776,) float64 = 8796093022208 bytes, "
        "file holds 24",
    ),
    "encrypted": (_patched_zip(flags=1), "a.npz:a: the member is encrypted"),
    "compression_99": (_patched_zip(method=99), "a.npz:a: cannot read the member: "),
    "zip_version_6_4": (_patched_zip(version=64), "a.npz: not a readable .npz archive"),
    "bad_deflate_block": (_bad_deflate(), "a.npz:a: cannot read the member: "),
}
for _name, (_content, _) in NPZ_DAMAGED.items():
    case(f"npz_{_name}", "reduce-mean", "a.npz", "-o", "out.npy", files={"a.npz": _content})


@pytest.mark.parametrize("name", list(NPZ_DAMAGED))
def test_damaged_npz_is_one_line(ran: dict[str, Ran], name: str) -> None:
    assert_error(ran[f"npz_{name}"], 1, "a.npz", NPZ_DAMAGED[name][1])


case(
    "stream_npz_one_array",
    "reduce-mean",
    "a.npz",
    "-o",
    "out.npy",
    files={"a.npz": npz(a=GOOD)},
    env=STREAMING,
)
case("npz_one_array", "reduce-mean", "a.npz", "-o", "out.npy", files={"a.npz": npz(a=GOOD)})


def test_npz_one_array(ran: dict[str, Ran]) -> None:
    r = ran["npz_one_array"]
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(np.load(r.workdir / "out.npy"), GOOD.mean(keepdims=True), rtol=1e-6)


def test_large_npz_is_read_too(ran: dict[str, Ran]) -> None:
    r = ran["stream_npz_one_array"]
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("name", REAL)
def test_the_server_runs_like_python_m_meancli(ran: dict[str, Ran], name: str) -> None:
    served, real = ran[f"bad_{name}"], ran[f"real_bad_{name}"]
    assert (served.returncode, served.stderr, served.stdout) == (real.returncode, real.stderr, real.stdout)


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
    "newline_name": ("a\nb.npy", "a\\nb.npy", ("no such file",)),
    "undecodable_name": ("\udcff.npy", "\\udcff.npy", ("truncated",)),  # the bytes ff 2e 6e 70 79
    "long_name": ("n" * 300 + ".npy", "n" * 300 + ".npy", ("name too long",)),
    "file_as_directory": ("x.npy/", "x.npy/", ("not a directory",)),
    "fifo_truncated": ("pipe.npy", "pipe.npy", ("truncated data", "the stream ends after")),
    "fifo_trailing": ("pipe.npy", "pipe.npy", ("trailing bytes",)),
}
_PATH_FILES: dict[str, dict[str, bytes | Callable[[Path], None]]] = {
    "undecodable_name": {"\udcff.npy": b"\x93NUMPY"},
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
    "stdin_truncated": (saved(GOOD)[:-1], ("<stdin>", "truncated data")),
    "stdin_trailing": (saved(GOOD) + b"\0", ("<stdin>", "trailing bytes")),
    "stdin_npz": (npz(), ("<stdin>", ".npz")),
    "stdin_text": (b"1 2 3\n", ("<stdin>", "not a .npy file")),
}
for _name, (_data, _) in STDIN_CASES.items():
    case(_name, "reduce-mean", "-", "-o", "out.npy", stdin=_data)
    case(f"stream_{_name}", "reduce-mean", "-", "-o", "out.npy", stdin=_data, env=STREAMING)


@pytest.mark.parametrize("name", list(STDIN_CASES))
@pytest.mark.parametrize("how", ["", "stream_"])
def test_bad_stdin(ran: dict[str, Ran], name: str, how: str) -> None:
    assert_error(ran[how + name], 1, None, *STDIN_CASES[name][1])


# A stream can only be checked against its header as it is read: a header claiming more than
# memory holds must still be one input error (exit 1), not a MemoryError. (1 PiB: more than any
# address space, so the allocation fails whatever the kernel's overcommit policy.)
PIB = f"({2**24}, {2**23})"
HUGE_STDIN = {
    "mean_fortran": (["mean", "-"], raw_npy(hdr("'<f8'", "True", PIB), b"\0" * 64)),
    "mean_c": (["mean", "-"], raw_npy(hdr("'<f8'", "False", PIB), b"\0" * 64)),
    "reduce_output": (["reduce-mean", "-", "--axes", "0"], raw_npy(hdr("'<f8'", "False", f"(2, {2**47})"))),
}
for _name, (_argv, _data) in HUGE_STDIN.items():
    case(f"huge_stdin_{_name}", *_argv, "-o", "out.npy", stdin=_data)
case(
    "huge_stdin_reduce",
    "reduce-mean",
    "-",
    "--axes",
    "0",
    "-o",
    "out.npy",
    stdin=raw_npy(hdr("'<f8'", "False", "(100000, 100000)"), b"\0" * 64),
)


def test_huge_stdin_claim_reduced_slab_by_slab(ran: dict[str, Ran]) -> None:
    assert_error(ran["huge_stdin_reduce"], 1, "<stdin>", "truncated data")


@pytest.mark.parametrize("name", list(HUGE_STDIN))
def test_huge_stdin_claim_is_an_input_error(ran: dict[str, Ran], name: str) -> None:
    assert_error(ran[f"huge_stdin_{name}"], 1, "<stdin>")


WIDE = np.arange(2000, dtype=np.float32).reshape(2, 1000)  # a row is more than 2 slabs of 100 bytes
case("stream_stdin_wide_rows", "reduce-mean", "-", "--axes", "0", "-o", "-", stdin=saved(WIDE), env=STREAMING)
case(
    "stream_file_wide_rows",
    "reduce-mean",
    "w.npy",
    "--axes",
    "0",
    "-o",
    "-",
    files={"w.npy": saved(WIDE)},
    env=STREAMING,
)


def test_wide_rows_from_a_file(ran: dict[str, Ran]) -> None:
    r = ran["stream_file_wide_rows"]
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(io.BytesIO(r.stdout)), WIDE.mean(axis=0, keepdims=True))


def test_wide_rows_from_stdin(ran: dict[str, Ran]) -> None:
    r = ran["stream_stdin_wide_rows"]
    assert r.returncode == 0, r.stderr
    np.testing.assert_array_equal(np.load(io.BytesIO(r.stdout)), WIDE.mean(axis=0, keepdims=True))


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
case(
    "dtype_mean_int32",
    "mean",
    "t.npy",
    "t.npy",
    "-o",
    "out.npy",
    files={"t.npy": saved(np.ones(3, np.int32))},
)
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


def test_unsupported_dtype_names_the_file(ran: dict[str, Ran]) -> None:
    assert_error(ran["dtype_complex64"], 1, "t.npy")


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
    _argv = ("reduce-mean", "v.npy", "--axes", "0", "-o", "out.npy")
    case(f"valid_{_name}", *_argv, files={"v.npy": _content})
    case(f"stream_valid_{_name}", *_argv, files={"v.npy": _content}, env=STREAMING)


@pytest.mark.parametrize("name", list(ODD_VALID))
@pytest.mark.parametrize("how", ["valid", "stream_valid"])
def test_odd_but_valid_file(ran: dict[str, Ran], name: str, how: str) -> None:
    r = ran[f"{how}_{name}"]
    assert r.returncode == 0, r.stderr
    assert r.new_files == ["out.npy"]
    got = np.load(r.workdir / "out.npy")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # numpy on the Python 2 header
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
    "noop_opset13": (
        ["--noop-with-empty-axes", "--opset", "13"],
        2,
        ("ReduceMean-13", "noop_with_empty_axes"),
    ),
    "noop_openvino": (
        ["--noop-with-empty-axes", "--opset", "openvino:1", "--axes="],
        2,
        ("openvino", "noop_with_empty_axes"),
    ),
    "openvino_without_axes": (["--opset", "openvino:1"], 2, ("requires axes",)),
    "threads_zero": (["--threads", "0"], 2, ("--threads",)),
    "threads_negative": (["--threads", "-1"], 2, ("--threads",)),
    "threads_word": (["--threads", "many"], 2, ("--threads",)),
    "threads_huge": (["--threads", "99999999999999999999"], 2, ("--threads",)),
    "unknown_option": (["--bogus"], 2, ("--bogus",)),
    "output_no_value": (["-o"], 2, ("-o",)),
    "two_files": (["x.npy"], 2, ()),
}
# --opset values that are not N, onnx:N or openvino:N with N >= 1: usage errors
OPSETS: dict[str, tuple[str, tuple[str, ...]]] = {
    "opset_domain_only": ("onnx:", ("'onnx:'",)),
    "opset_unknown_domain": ("foo:3", ("'foo'",)),
    "opset_uppercase_domain": ("ONNX:13", ("'ONNX'",)),
    "opset_negative": ("-1", ("'-1'",)),
    "opset_zero": ("0", ("'0'",)),
    "opset_openvino_zero": ("openvino:0", ("'openvino:0'",)),
    "opset_float": ("1.5", ("'1.5'",)),
    "opset_empty": ("", ("''",)),
    "opset_two_colons": ("onnx:1:2", ("onnx:1:2",)),
}
for _name, (_argv, _, _) in ARGS.items():
    case(f"arg_{_name}", "reduce-mean", "x.npy", *([] if "-o" in _argv else ["-o", "out.npy"]), *_argv)
for _name, (_value, _) in OPSETS.items():
    case(f"arg_{_name}", "reduce-mean", "x.npy", "--axes", "1", "--opset", _value, "-o", "out.npy")
    case(f"arg_mean_{_name}", "mean", "x.npy", "--opset", _value, "-o", "out.npy")
MEAN_ARGS: dict[str, tuple[list[str], int, tuple[str, ...]]] = {
    "mean_axes": (["--axes", "1"], 2, ("--axes",)),
    "mean_keep_dims": (["--keep-dims"], 2, ("--keep-dims",)),
    "mean_noop": (["--noop-with-empty-axes"], 2, ("--noop-with-empty-axes",)),
    "mean_openvino": (["--opset", "openvino:1"], 2, ("--opset", "openvino", "Mean-13")),
    "mean_stdin_twice": (["-", "-"], 2, ("stdin",)),
}
for _name, (_argv, _, _) in MEAN_ARGS.items():
    case(f"arg_{_name}", "mean", "x.npy", *_argv, "-o", "out.npy")
case(
    "arg_rank0_axis",
    "reduce-mean",
    "s.npy",
    "--axes",
    "0",
    "-o",
    "out.npy",
    files={"s.npy": saved(np.float32(1))},
)
case("arg_opset_huge", "reduce-mean", "x.npy", "--axes", "1", "--opset", "99999", "--json", "-o", "out.npy")
case("arg_opset_huger", "reduce-mean", "x.npy", "--opset", "9999999999", "--json", "-o", "out.npy")
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
    assert_error(ran[f"arg_{command}{name}"], 2, None, "opset", *OPSETS[name][1])


def test_rank0_accepts_no_axis(ran: dict[str, Ran]) -> None:
    assert_error(ran["arg_rank0_axis"], 1, None, "axis 0", "rank-0")


@pytest.mark.parametrize(
    ("name", "version"), [("arg_opset_huge", 18), ("arg_opset_huger", 18), ("arg_mean_opset_huge", 13)]
)
def test_huge_opset_picks_the_newest_version(ran: dict[str, Ran], name: str, version: int) -> None:
    r = ran[name]
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["version"] == version


case("arg_axes_int64_min", "reduce-mean", "x.npy", "--axes", "-9223372036854775808", "-o", "out.npy")


def test_axes_int64_min_is_an_out_of_range_axis(ran: dict[str, Ran]) -> None:
    assert_error(ran["arg_axes_int64_min"], 1, None, "out of range", "-9223372036854775808")
