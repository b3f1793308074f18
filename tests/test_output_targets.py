"""What an output may replace, and the names it may have: through conftest.run_cli, and
in real processes where the output is an inherited descriptor.

``-o OUT.zarr`` replaces OUT only when OUT is an earlier zarr array or an
empty directory (made to receive it); anything else there (a directory of
other files, a zarr group, a plain file) is refused with one ``error:`` line
and exit status 1, and left as it was.
A valid output name up to NAME_MAX bytes is written (its temporary file,
beside it, has a name of its own that fits).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import Result, run_cli

zarr = pytest.importorskip("zarr")
pytest.importorskip("dask")

MEANCLI = [sys.executable, "-m", "meancli"]
NAME_MAX = os.pathconf("/", "PC_NAME_MAX") if hasattr(os, "pathconf") else 255


def run(args: list[str], cwd: Path) -> Result:
    return run_cli(*args, cwd=cwd)


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its bytes (None for a directory)."""
    found: dict[str, bytes | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            found[os.path.relpath(os.path.join(dirpath, d), root)] = None
        for f in filenames:
            p = os.path.join(dirpath, f)
            found[os.path.relpath(p, root)] = Path(p).read_bytes()
    return found


@pytest.fixture
def work(tmp_path: Path) -> Path:
    x = np.arange(12.0).reshape(3, 4)
    np.save(tmp_path / "x.npy", x)
    z = zarr.create_array(str(tmp_path / "a.zarr"), shape=x.shape, chunks=(2, 4), dtype=x.dtype)
    z[...] = x
    return tmp_path


def _plain_directory(path: Path) -> str:
    path.mkdir()
    (path / "notes.txt").write_text("important\n")
    return "a directory that is not a zarr array"


def _zarr_group(path: Path) -> str:
    group = zarr.open_group(str(path), mode="w")
    group.create_array("t2m", shape=(3, 4), dtype="f8")[...] = 1.0
    group.create_array("u10", shape=(2,), dtype="f8")[...] = 2.0
    return "a zarr group"


def _zarr2_group(path: Path) -> str:
    group = zarr.open_group(str(path), mode="w", zarr_format=2)
    group.create_array("t2m", shape=(3, 4), dtype="f8")[...] = 1.0
    return "a zarr group"


def _plain_file(path: Path) -> str:
    path.write_text("not a store\n")
    return "a file, not a zarr array"


def _hidden_file_directory(path: Path) -> str:
    path.mkdir()
    (path / ".keep").write_text("")  # not empty: a file is a file, hidden or not
    return "a directory that is not a zarr array"


def _link_to_a_directory(path: Path) -> str:
    _plain_directory(path.parent / "elsewhere")
    path.symlink_to("elsewhere")
    return "a directory that is not a zarr array"


def _array_marker_beside_other_files(path: Path) -> str:
    path.mkdir()
    (path / "zarr.json").write_text('{"zarr_format": 3, "node_type": "array"}')
    (path / "notes.txt").write_text("important\n")  # was removed with the "earlier array"
    return "a zarr array beside files zarr does not write (notes.txt)"


def _zarr2_array_beside_other_files(path: Path) -> str:
    zarr.save_array(str(path), np.ones((2, 2)), zarr_format=2)
    (path / "results.csv").write_text("a,b\n")
    (path / "plot.png").write_bytes(b"png")
    return "a zarr array beside files zarr does not write (plot.png, results.csv)"


def _unreadable_metadata(path: Path) -> str:
    path.mkdir()
    (path / "zarr.json").write_text("{not json")  # was called a zarr group
    return "a directory whose zarr.json is not zarr metadata"


TARGETS = {
    "array marker beside other files": _array_marker_beside_other_files,
    "zarr 2 array beside other files": _zarr2_array_beside_other_files,
    "unreadable metadata": _unreadable_metadata,
    "directory": _plain_directory,
    "directory of a hidden file": _hidden_file_directory,
    "link to a directory": _link_to_a_directory,
    "zarr group": _zarr_group,
    "zarr 2 group": _zarr2_group,
    "plain file": _plain_file,
}
COMMANDS = {
    "reduce-mean zarr": ["reduce-mean", "a.zarr", "--axes", "0"],
    "reduce-mean npy": ["reduce-mean", "x.npy", "--axes", "0"],
    "mean": ["mean", "x.npy", "a.zarr"],
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("target", TARGETS)
def test_a_zarr_output_never_replaces_what_is_not_a_zarr_array(work: Path, target: str, command: str) -> None:
    what = TARGETS[target](work / "mydata.zarr")
    before = snapshot(work)
    proc = run([*COMMANDS[command], "-o", "mydata.zarr"], work)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == (
        f"error: mydata.zarr: exists and is {what}; -o replaces only an earlier zarr array "
        "(remove it or choose another name)\n"
    )
    assert proc.stdout == ""
    assert snapshot(work) == before  # nothing changed, no temporary store left


def test_a_templated_zarr_output_is_checked_before_any_file_is_read(work: Path) -> None:
    _plain_directory(work / "r1.zarr")
    before = snapshot(work)
    proc = run(["reduce-mean", "x.npy", "x.npy", "--axes", "0", "-o", "r{index}.zarr", "-q"], work)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: r1.zarr: exists and is a directory that is not a zarr array;")
    assert proc.stderr.count("\n") == 1
    assert snapshot(work) == before  # r0.zarr was not written either


@pytest.mark.parametrize(
    ("command", "output"),
    [(command, output) for command in COMMANDS for output in ["missing/out.zarr", "missing/deeper/out.zarr"]]
    + [("reduce-mean zarr", "missing/{stem}.zarr"), ("reduce-mean npy", "missing/{stem}.zarr")],
)
def test_a_zarr_output_in_a_missing_directory_is_refused_before_reading(
    work: Path, command: str, output: str
) -> None:
    """As for a file output: zarr would have made the missing directories."""
    before = snapshot(work)
    proc = run([*COMMANDS[command], "-o", output, "-q"], work)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: cannot write missing/") and proc.stderr.count("\n") == 1
    assert "No such file or directory" in proc.stderr
    assert snapshot(work) == before


def _expected(command: str) -> np.ndarray:
    x = np.arange(12.0).reshape(3, 4)
    return x.mean(axis=0, keepdims=True) if command.startswith("reduce-mean") else x


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_directory_receives_the_array(work: Path, command: str) -> None:
    (work / "out.zarr").mkdir()  # made beforehand, as for any directory of results
    proc = run([*COMMANDS[command], "-o", "out.zarr", "-q"], work)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    got = zarr.open_array(str(work / "out.zarr"), mode="r")[...]
    np.testing.assert_array_equal(got, _expected(command))
    assert sorted(os.listdir(work)) == ["a.zarr", "out.zarr", "x.npy"]  # no temporary store left


@pytest.mark.parametrize("when", ["before the last check", "after the last check"])
def test_an_empty_directory_filled_during_the_run_is_left_as_it_is(
    work: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """OUT is checked again before the rename, and the rename that replaces an empty
    directory is one step that refuses one filled after that check."""
    from meancli.errors import InputFileError
    from meancli.io import zarr_output as zarr_target

    out, tmp = work / "out.zarr", work / "tmp.zarr"
    out.mkdir()
    tmp.mkdir()
    (tmp / "zarr.json").write_text("{}")
    check = zarr_target.check_zarr_target
    calls: list[str] = []

    def check_then_fill(path: str) -> None:
        calls.append(path)
        if when == "before the last check":
            (out / "notes.txt").write_text("important\n")
        check(path)
        if when == "after the last check" and len(calls) == 1:
            (out / "notes.txt").write_text("important\n")  # between the check and the rename

    monkeypatch.setattr(zarr_target, "check_zarr_target", check_then_fill)
    with pytest.raises(InputFileError, match="exists and is a directory that is not a zarr array"):
        zarr_target.replace_store(str(tmp), str(out))
    assert os.listdir(out) == ["notes.txt"] and (out / "notes.txt").read_text() == "important\n"


@pytest.mark.parametrize("json_mode", [False, True])
def test_keep_going_reports_a_refused_target_for_its_file_and_goes_on(work: Path, json_mode: bool) -> None:
    np.save(work / "y.npy", np.ones((2, 4)))
    _plain_directory(work / "r1.zarr")
    (work / "r2.zarr").mkdir()  # empty: receives the array
    before = snapshot(work / "r1.zarr")
    files = ["x.npy", "a.zarr", "y.npy"]
    args = [
        "reduce-mean",
        *files,
        "--axes",
        "0",
        "-o",
        "r{index}.zarr",
        "-k",
        "--json" if json_mode else "-q",
    ]
    proc = run(args, work)
    assert proc.returncode == 1, proc.stderr
    refused = (
        "a.zarr: r1.zarr: exists and is a directory that is not a zarr array; -o replaces only an earlier "
        "zarr array (remove it or choose another name)"
    )
    closing = "1 of 3 files failed (a.zarr); 2 done"
    if json_mode:
        errors = [json.loads(line) for line in proc.stderr.splitlines()]
        assert errors == [
            {"error": refused, "kind": "output", "path": "a.zarr"},
            {"error": closing, "kind": "input", "failed": ["a.zarr"]},
        ]
        assert [json.loads(line)["output"]["path"] for line in proc.stdout.splitlines()] == [
            "r0.zarr",
            "r2.zarr",
        ]
    else:
        assert proc.stderr.splitlines() == [f"error: {refused}", f"error: {closing}"]
    assert snapshot(work / "r1.zarr") == before
    for out, source in (("r0.zarr", np.arange(12.0).reshape(3, 4)), ("r2.zarr", np.ones((2, 4)))):
        got = zarr.open_array(str(work / out), mode="r")[...]
        np.testing.assert_array_equal(got, source.mean(axis=0, keepdims=True))


@pytest.mark.parametrize("zarr_format", [2, 3])
def test_an_earlier_zarr_array_is_replaced(work: Path, zarr_format: int) -> None:
    old = zarr.create_array(str(work / "out.zarr"), shape=(7,), dtype="i4", zarr_format=zarr_format)
    old[...] = 7
    (work / "out.zarr").chmod(0o700)
    proc = run(["reduce-mean", "a.zarr", "--axes", "0", "-o", "out.zarr", "-q"], work)
    assert proc.returncode == 0, proc.stderr
    got = zarr.open_array(str(work / "out.zarr"), mode="r")[...]
    np.testing.assert_array_equal(got, np.arange(12.0).reshape(3, 4).mean(axis=0, keepdims=True))
    assert sorted(os.listdir(work)) == ["a.zarr", "out.zarr", "x.npy"]
    assert (work / "out.zarr").stat().st_mode & 0o777 == 0o700  # the directory's mode stays


@pytest.mark.parametrize("suffix", [".npy", ".pb", ".zarr"])
def test_an_output_name_of_name_max_bytes_is_written(work: Path, suffix: str) -> None:
    if suffix == ".pb":
        pytest.importorskip("onnx")
    for length in (NAME_MAX - 16, NAME_MAX):
        name = "r" * (length - len(suffix)) + suffix
        proc = run(["reduce-mean", "x.npy", "--axes", "0", "-o", name, "-q"], work)
        assert proc.returncode == 0, proc.stderr
        assert (work / name).exists()
        assert not [n for n in os.listdir(work) if n.startswith(".")]  # no temporary left


def test_a_name_past_name_max_is_one_error_line(work: Path) -> None:
    name = "r" * (NAME_MAX + 1 - 4) + ".npy"
    proc = run(["reduce-mean", "x.npy", "--axes", "0", "-o", name], work)
    assert proc.returncode == 1
    assert proc.stderr == f"error: cannot write {name}: File name too long\n"
    assert sorted(os.listdir(work)) == ["a.zarr", "x.npy"]


@pytest.mark.parametrize("name", ["/dev/stdout", "/proc/self/fd/1"])
def test_an_output_naming_stdout_writes_to_the_pipe(work: Path, name: str) -> None:
    """``-o /dev/stdout`` with stdout a pipe writes to the pipe (it named
    ``pipe:[N]`` through its link and failed with "No such file or directory")."""
    out = subprocess.run(
        [*MEANCLI, "reduce-mean", "x.npy", "--axes", "0", "-o", name, "--quiet"],
        cwd=work,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    want = Path(work / "want.npy")
    np.save(want, np.arange(12.0).reshape(3, 4).mean(axis=0, keepdims=True))
    assert out.stdout == want.read_bytes()


def _want_bytes(work: Path) -> bytes:
    np.save(work / "want.npy", np.arange(12.0).reshape(3, 4).mean(axis=0, keepdims=True))
    return (work / "want.npy").read_bytes()


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_an_output_naming_stdout_redirected_to_a_file_appends_to_it(work: Path, name: str) -> None:
    """``-o /dev/stdout >> log`` is ``-o - >> log``: the .npy is appended to the file
    the shell opened, the report goes to stderr. (The name was followed to the file and
    a rename replaced it: what the log held before was lost.)"""
    log = work / "log.bin"
    log.write_bytes(b"kept line\n")
    inode = log.stat().st_ino
    with open(log, "ab") as fp:
        r = subprocess.run(
            [*MEANCLI, "reduce-mean", "x.npy", "--axes", "0", "-o", name],
            cwd=work,
            stdout=fp,
            stderr=subprocess.PIPE,
            timeout=120,
            check=False,
        )
    assert r.returncode == 0, r.stderr
    assert log.stat().st_ino == inode
    assert log.read_bytes() == b"kept line\n" + _want_bytes(work)
    assert b"ReduceMean-18" in r.stderr


def test_an_output_naming_another_descriptor_is_written_through_it(work: Path) -> None:
    """``-o /dev/fd/N`` and ``-o /dev/stderr`` write through the descriptor (appending
    where it appends); a descriptor that is not open is one error line, exit 1."""
    want = _want_bytes(work)
    log = work / "three.bin"
    log.write_bytes(b"head\n")
    fd = os.open(log, os.O_WRONLY | os.O_APPEND)
    try:
        r = subprocess.run(
            [*MEANCLI, "mean", "x.npy", "-o", f"/dev/fd/{fd}", "--quiet"],
            cwd=work,
            pass_fds=(fd,),
            capture_output=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(fd)
    assert r.returncode == 0 and r.stdout == b"" and r.stderr == b"", r.stderr
    np.save(work / "x_mean.npy", np.arange(12.0).reshape(3, 4))
    assert log.read_bytes() == b"head\n" + (work / "x_mean.npy").read_bytes()
    r = subprocess.run(
        [*MEANCLI, "reduce-mean", "x.npy", "--axes", "0", "-o", "/dev/stderr", "--quiet"],
        cwd=work,
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0 and r.stderr == want and r.stdout == b""
    # a descriptor the process does not have (a real process: the test process has many)
    r2 = run_cli("reduce-mean", "x.npy", "--axes", "0", "-o", "/dev/fd/9", cwd=work, subprocess=True)
    assert r2.returncode == 1
    assert r2.stderr == "error: cannot write /dev/fd/9: Bad file descriptor\n"
    assert sorted(os.listdir(work)) == ["a.zarr", "three.bin", "want.npy", "x.npy", "x_mean.npy"]


def test_an_output_naming_a_terminal_is_refused_as_minus_is(work: Path) -> None:
    """``-o /dev/tty`` (here the terminal of a pseudo-terminal pair) is refused
    before anything is read, as ``-o -`` on a terminal is: exit 2, one line."""
    import pty

    leader, follower = pty.openpty()
    try:
        terminal = os.ttyname(follower)
        r = run(["reduce-mean", "x.npy", "--axes", "0", "-o", terminal], work)
        assert r.returncode == 2, r.stderr
        assert (
            r.stderr
            == f"error: -o {terminal}: refusing to write binary .npy data to a terminal; use -o FILE\n"
        )
    finally:
        os.close(leader)
        os.close(follower)


@pytest.mark.parametrize("output", ["missing/x.npy", "missing/x.zarr", "mydata.zarr"])
def test_an_output_error_is_of_kind_output_in_json(work: Path, output: str) -> None:
    """--json names what failed: an output (it said "input" for any file)."""
    _plain_directory(work / "mydata.zarr")
    proc = run(["reduce-mean", "x.npy", "--axes", "0", "-o", output, "--json"], work)
    assert proc.returncode == 1
    error = json.loads(proc.stderr)
    assert error["kind"] == "output" and output in error["error"], error


@pytest.mark.parametrize(
    ("output", "message"),
    [
        ("grp.zarr:t2m", "an array inside a zarr group (STORE.zarr:PATH) is not written"),
        ("o.npz:x", ".npz outputs are not supported"),
        ("o.zip:x", "zip outputs are not supported"),
    ],
)
def test_an_input_member_syntax_as_output_is_a_usage_error(output: str, message: str, tmp_path: Path) -> None:
    """-o STORE.zarr:PATH wrote a .npy named 'grp.zarr:t2m' beside the store (exit 0)."""
    np.save(tmp_path / "x.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
    run = run_cli("reduce-mean", "x.npy", "-o", output, cwd=tmp_path)
    assert run.exit_code == 2 and message in run.stderr, run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]
    run = run_cli("reduce-mean", "x.npy", "-o", "a:b.npy", "-q", cwd=tmp_path)  # a colon alone is a name
    assert run.exit_code == 0 and (tmp_path / "a:b.npy").exists()


def test_a_zarr_store_written_through_a_file_url(tmp_path: Path) -> None:
    """-o file:///.../out.zarr failed ('No such file or directory: .../zarr.json'): fsspec's
    local filesystem makes no folder by itself; the store is now written and published."""
    zarr = pytest.importorskip("zarr")
    pytest.importorskip("dask")
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    np.save(tmp_path / "x.npy", x)
    url = (tmp_path / "out.zarr").as_uri()
    run = run_cli("reduce-mean", "x.npy", "--axes", "1", "-o", url, "-q", cwd=tmp_path)
    assert run.exit_code == 0, run.stderr
    np.testing.assert_array_equal(
        zarr.open_array(str(tmp_path / "out.zarr"))[:], x.mean(axis=1, keepdims=True)
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.zarr", "x.npy"]  # no temporary left
    run = run_cli("reduce-mean", "x.npy", "-o", f"file://{tmp_path}/y.zarr:a", cwd=tmp_path)
    assert run.exit_code == 2 and "an array inside a zarr group" in run.stderr, run.stderr
