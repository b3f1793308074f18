"""Failures and interruptions while meancli writes its output.

An output file is written to a temporary file beside the target (unnamed,
O_TMPFILE, where the file system makes them; else ``.meancli-XXXX.tmp``) and
renamed into place only when complete, so an error, SIGINT, SIGTERM or SIGKILL
mid-write, or a full disk leaves any existing file at the output path untouched
and no temporary file behind. Also: ``-o`` naming the
input itself, a reader that closes the pipe early, and the documented exit
statuses (0, 1, 2, 3, 130, and 143 for SIGTERM).

The tests that need a real process run ``python -m meancli`` in one: signals,
resource limits, closed pipes, a closed stdout, start-up, bus errors, and one
run per documented exit status. The rest run the same command line in process
(conftest.run_cli), with a patch through monkeypatch where they inject a bug.
To stop a run in the middle of its write deterministically, a few tests start
it through a wrapper that makes meancli.io.npy_write pause after its first data
chunk (and say so in a marker file); the signal then lands while the temporary
file is half written.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import Result, run_cli

from meancli.cli.run import EXIT_BROKEN_PIPE, EXIT_INTERRUPTED, EXIT_TERMINATED
from meancli.engine import memory
from meancli.io import npy_write
from meancli.ops import validate

#: What the terminal variables are for every run: a real process gets them on top of os.environ.
PLAIN = {"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"}
ENV = {**os.environ, **PLAIN}
MEANCLI = [sys.executable, "-m", "meancli"]
TIMEOUT = 120

# Run meancli's main() after a patch; the wrapper's argv are meancli's.
WRAPPER = """
import os, sys, time
PATCH
from meancli.cli.app import main
sys.exit(main(sys.argv[1:]))
"""
# .npy outputs are written in chunks: after the first one, say so and wait to be signalled.
PAUSE_MID_WRITE = """
from meancli.io import npy_write
_chunks = npy_write._data_chunks
def _paused(array, fortran):
    for i, chunk in enumerate(_chunks(array, fortran)):
        yield chunk
        if i == 0:
            open(os.environ["MARKER"], "w").close()
            time.sleep(60)
npy_write._data_chunks = _paused
"""
# A signal (SIGNUM) sent to itself just after atomic_write's function NAME returns.
SIGNAL_AFTER = """
from meancli.io import atomic_write
_original = atomic_write.NAME
def _signalled(*args, **kwargs):
    made = _original(*args, **kwargs)
    os.kill(os.getpid(), int(os.environ["SIGNUM"]))
    return made
atomic_write.NAME = _signalled
"""
# ... just as the temporary file is created, and as the whole one gets its name (before the rename)
SIGNAL_AT_CREATE = SIGNAL_AFTER.replace("NAME", "create_temporary")
SIGNAL_AT_NAMING = SIGNAL_AFTER.replace("NAME", "_name_unnamed")
# The compiled kernel module cannot be imported.
NO_KERNELS = """
sys.modules["meancli._kernels"] = None
"""


def wrapped(tmp_path: Path, patch: str) -> list[str]:
    script = tmp_path / "wrapper.py"
    script.write_text(WRAPPER.replace("PATCH", patch))
    return [sys.executable, str(script)]


def run(
    argv: list[str], cwd: Path, *, exe: list[str] | None = None, **kw: Any
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*(exe or MEANCLI), *argv],
        cwd=cwd,
        env=kw.pop("env", ENV),
        capture_output=True,
        timeout=TIMEOUT,
        **kw,
    )


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(directory: Path) -> list[str]:
    """Temporary files meancli may have left: ``.meancli-XXXX.tmp``."""
    return sorted(n for n in os.listdir(directory) if n.startswith(".") and n.endswith(".tmp"))


def temporaries_open(pid: int, directory: Path) -> list[str]:
    """The files in ``directory`` process ``pid`` holds open for writing that are not
    (yet) its outputs: a named ``.meancli-XXXX.tmp``, or an unnamed one (O_TMPFILE,
    which /proc shows as ``DIRECTORY/#INODE (deleted)``)."""
    found = []
    with contextlib.suppress(OSError):  # the process may have ended
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
                parent, name = os.path.split(target.removesuffix(" (deleted)"))
                if parent == str(directory) and (name.startswith("#") or name.startswith(".meancli-")):
                    found.append(name)
    return found


def unnamed_files_here(directory: Path) -> bool:
    """Whether the file system of ``directory`` makes unnamed files (O_TMPFILE)."""
    if not hasattr(os, "O_TMPFILE"):
        return False
    try:
        os.close(os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o600))
    except OSError:
        return False
    return True


def in_process(*argv: str, cwd: Path, env: dict[str, str] | None = None, **kw: Any) -> Result:
    """``meancli ARGV...`` in this process (conftest.run_cli) with the terminal variables of ENV."""
    return run_cli(*argv, cwd=cwd, env={**PLAIN, **(env or {})}, **kw)


def error_line(proc: subprocess.CompletedProcess[bytes] | Result, code: int) -> str:
    """The single ``error:`` line of a run that exited with ``code``."""
    err = proc.stderr if isinstance(proc.stderr, str) else proc.stderr.decode(errors="replace")
    assert "Traceback" not in err, err
    assert proc.returncode == code, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A directory with in.npy (4 MiB of float32) and existing.npy (an older result)."""
    rng = np.random.default_rng(0)
    np.save(tmp_path / "in.npy", rng.standard_normal((1024, 1024)).astype(np.float32))
    np.save(tmp_path / "existing.npy", np.arange(5, dtype=np.int64))
    return tmp_path


def assert_untouched(work: Path, before: str) -> None:
    assert digest(work / "existing.npy") == before
    np.testing.assert_array_equal(np.load(work / "existing.npy"), np.arange(5))
    assert leftovers(work) == []


# --------------------------------------------------------------------------- errors while writing


def _fsize_limit(limit: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


@pytest.mark.parametrize("command", [["mean", "in.npy", "in.npy"], ["reduce-mean", "in.npy", "--axes", "1"]])
def test_file_size_limit_keeps_the_existing_file(work: Path, command: list[str]) -> None:
    # RLIMIT_FSIZE makes write() fail with EFBIG past 1 MiB (Python ignores SIGXFSZ)
    before = digest(work / "existing.npy")
    limit = 1 << 20 if command[0] == "mean" else 1000
    proc = run([*command, "-o", "existing.npy"], work, preexec_fn=_fsize_limit(limit))
    line = error_line(proc, 1)
    assert "existing.npy" in line and "File too large" in line
    assert_untouched(work, before)


def test_file_size_limit_creates_no_new_file(work: Path) -> None:
    proc = run(["mean", "in.npy", "-o", "new.npy"], work, preexec_fn=_fsize_limit(1 << 20))
    assert "new.npy" in error_line(proc, 1)
    assert not (work / "new.npy").exists()
    assert leftovers(work) == []


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Any:
    """A 512 KiB tmpfs (root only); skipped where mounting is not allowed."""
    mount = tmp_path / "full"
    mount.mkdir()
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("mounting a tmpfs needs root")
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True)
    if ok.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {ok.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_full_disk_keeps_the_existing_file(work: Path, small_tmpfs: Path) -> None:
    shutil.copy(work / "existing.npy", small_tmpfs / "existing.npy")
    before = digest(small_tmpfs / "existing.npy")
    proc = in_process("mean", str(work / "in.npy"), "-o", "existing.npy", cwd=small_tmpfs)
    line = error_line(proc, 1)
    assert "existing.npy" in line and "No space left on device" in line
    assert digest(small_tmpfs / "existing.npy") == before
    assert leftovers(small_tmpfs) == []
    assert sorted(os.listdir(small_tmpfs)) == ["existing.npy"]


def test_dev_full(work: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    line = error_line(in_process("mean", "in.npy", "-o", "/dev/full", cwd=work), 1)
    assert "/dev/full" in line and "No space left on device" in line


@pytest.mark.parametrize(
    ("target", "words"),
    [("missing/out.npy", "No such file"), ("sub", "directory"), ("in.npy/out.npy", "Not a directory")],
)
def test_unwritable_targets(work: Path, target: str, words: str) -> None:
    (work / "sub").mkdir()
    line = error_line(in_process("mean", "in.npy", "-o", target, cwd=work), 1)
    assert target in line and words in line
    assert leftovers(work) == [] and leftovers(work / "sub") == []


@pytest.mark.parametrize("target", ["missing/out.npy", "sub", "in.npy/out.npy"])
def test_unwritable_targets_are_refused_before_any_input_is_read(work: Path, target: str) -> None:
    """Such a target is found before the input is read, not after a long run: here
    the input is an empty stdin, which would be an error of its own once read."""
    (work / "sub").mkdir()
    proc = in_process("reduce-mean", "-", "--axes", "0", "-o", target, cwd=work, stdin=b"")
    assert error_line(proc, 1).startswith(f"error: cannot write {target}: ")


def test_read_only_directory(work: Path) -> None:
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if not setpriv:
            pytest.skip("root without setpriv can write anywhere")
        prefix = [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]
    (work / "ro").mkdir()
    shutil.copy(work / "existing.npy", work / "ro" / "existing.npy")
    before = digest(work / "ro" / "existing.npy")
    (work / "ro").chmod(0o555)
    try:
        proc = run(["mean", "in.npy", "-o", "ro/existing.npy"], work, exe=[*prefix, *MEANCLI])
        line = error_line(proc, 1)
        assert "ro/existing.npy" in line and "Permission denied" in line
        assert digest(work / "ro" / "existing.npy") == before
        assert os.listdir(work / "ro") == ["existing.npy"]
    finally:
        (work / "ro").chmod(0o755)


def _failing_chunks(chunks: Any) -> Any:
    """npy_write._data_chunks that raises a bug (not an OSError) after the first chunk."""

    def failing(array: Any, fortran: bool) -> Any:
        for chunk in chunks(array, fortran):
            yield chunk
            raise RuntimeError("injected failure after the first chunk")

    return failing


def test_internal_error_mid_write_keeps_the_existing_file(
    work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = digest(work / "existing.npy")
    monkeypatch.setattr(npy_write, "_data_chunks", _failing_chunks(npy_write._data_chunks))
    proc = in_process("mean", "in.npy", "-o", "existing.npy", cwd=work)
    line = error_line(proc, 3)
    assert "internal error" in line and "RuntimeError" in line
    assert_untouched(work, before)


# --------------------------------------------------------------------------- signals


def _wait_for(path: Path, proc: subprocess.Popen[bytes], timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"meancli ended first: {proc.returncode} {proc.stderr.read()!r}")  # type: ignore[union-attr]
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"{path.name} never appeared")
        time.sleep(0.005)


SIGNALS = [
    pytest.param(signal.SIGTERM, EXIT_TERMINATED, "terminated", id="SIGTERM"),
    pytest.param(signal.SIGINT, EXIT_INTERRUPTED, "interrupted", id="SIGINT"),
]


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
@pytest.mark.parametrize("target", ["existing.npy", "in.npy"])
def test_signal_mid_write(work: Path, signum: int, code: int, word: str, target: str) -> None:
    before = digest(work / target)
    marker = work / "paused"
    proc = subprocess.Popen(
        [*wrapped(work, PAUSE_MID_WRITE), "mean", "in.npy", "in.npy", "-o", target],
        cwd=work,
        env={**ENV, "MARKER": str(marker)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _wait_for(marker, proc)
    assert len(temporaries_open(proc.pid, work)) == 1  # the half-written file
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=TIMEOUT)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert error_line(done, code) == f"error: {word}"
    assert digest(work / target) == before
    assert leftovers(work) == []


def test_sigkill_mid_write_leaves_nothing_behind(work: Path) -> None:
    """SIGKILL (the OOM killer's) cannot be caught: the temporary file is unnamed
    (O_TMPFILE) until it is whole, so nothing is left behind, and the target is
    untouched."""
    if not unnamed_files_here(work):
        pytest.skip("this file system makes no unnamed files (O_TMPFILE)")
    before = digest(work / "existing.npy")
    marker = work / "paused"
    proc = subprocess.Popen(
        [*wrapped(work, PAUSE_MID_WRITE), "mean", "in.npy", "in.npy", "-o", "existing.npy"],
        cwd=work,
        env={**ENV, "MARKER": str(marker)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _wait_for(marker, proc)
    held = temporaries_open(proc.pid, work)
    assert len(held) == 1 and held[0].startswith("#"), held  # written, and nameless
    proc.kill()
    proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == -signal.SIGKILL
    assert_untouched(work, before)
    assert sorted(os.listdir(work)) == ["existing.npy", "in.npy", "paused", "wrapper.py"]


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
def test_signal_as_the_whole_temporary_file_gets_its_name(
    work: Path, signum: int, code: int, word: str
) -> None:
    """A signal between naming the whole unnamed file and renaming it waits for the
    rename: the output is replaced, the run ends with the signal's status and line,
    and no temporary file is left (the name once leaked: the signal's exception
    came before the name was kept for the cleanup)."""
    if not unnamed_files_here(work):
        pytest.skip("this file system makes no unnamed files (O_TMPFILE)")
    exe = wrapped(work, SIGNAL_AT_NAMING)
    proc = run(
        ["mean", "in.npy", "-o", "existing.npy"], work, exe=exe, env={**ENV, "SIGNUM": str(int(signum))}
    )
    assert error_line(proc, code) == f"error: {word}"
    assert digest(work / "existing.npy") == digest(work / "in.npy")  # Mean of one input: itself
    assert leftovers(work) == []


def test_an_unnamed_temporary_the_system_will_not_link_is_copied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where linking the unnamed file through /proc is refused, its bytes go to a
    named temporary file that is renamed into place: the output is whole, keeps the
    existing file's mode, and nothing is left behind."""
    from meancli.io import atomic_write

    if not unnamed_files_here(tmp_path):
        pytest.skip("this file system makes no unnamed files (O_TMPFILE)")

    def refused(fd: int, directory: str) -> str:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(atomic_write, "_link_unnamed", refused)
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    target.chmod(0o640)
    data = [bytes(range(256)) * 4096, b"tail"]
    assert atomic_write.write_atomically(str(target), "out.bin", iter(data)) == sum(map(len, data))
    assert target.read_bytes() == b"".join(data)
    assert target.stat().st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["out.bin"]


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
def test_signal_as_the_temporary_file_is_created(work: Path, signum: int, code: int, word: str) -> None:
    # Regression: test_sigterm_racing_a_large_write once left its temporary file behind,
    # the signal having landed between the temporary file's open() and the cleanup's try.
    before = digest(work / "existing.npy")
    exe = wrapped(work, SIGNAL_AT_CREATE)
    proc = run(
        ["mean", "in.npy", "-o", "existing.npy"], work, exe=exe, env={**ENV, "SIGNUM": str(int(signum))}
    )
    assert error_line(proc, code) == f"error: {word}"
    assert_untouched(work, before)


def test_sigterm_racing_a_large_write(tmp_path: Path) -> None:
    # No patch: SIGTERM as soon as the temporary file appears, while 100 MiB are written.
    # Whenever it lands, the target is the old file or the complete new one, never a part.
    x = np.lib.format.open_memmap(tmp_path / "big.npy", mode="w+", dtype=np.float32, shape=(25, 1 << 20))
    x[:] = 1.5
    x[-1] = 2.5
    del x
    np.save(tmp_path / "existing.npy", np.arange(5, dtype=np.int64))
    before = digest(tmp_path / "existing.npy")
    proc = subprocess.Popen(
        [*MEANCLI, "mean", "big.npy", "big.npy", "-o", "existing.npy", "-q"],
        cwd=tmp_path,
        env=ENV,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + TIMEOUT
    while not temporaries_open(proc.pid, tmp_path) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)
    proc.send_signal(signal.SIGTERM)
    err = proc.communicate(timeout=TIMEOUT)[1].decode()
    assert "Traceback" not in err
    assert leftovers(tmp_path) == []
    assert proc.returncode in (0, EXIT_TERMINATED), err
    assert err == ("error: terminated\n" if proc.returncode else "")
    # replaced (a signal just after the rename is still reported): then by the whole result
    if digest(tmp_path / "existing.npy") != before:
        out = np.load(tmp_path / "existing.npy", mmap_mode="r")
        assert out.shape == (25, 1 << 20) and out[0, 0] == 1.5 and out[-1, -1] == 2.5
    else:
        assert proc.returncode == EXIT_TERMINATED, "a run that succeeded left the old file"


def _wait_blocked_on_fifo(proc: subprocess.Popen[bytes]) -> None:
    """Wait until ``proc`` sleeps in open() of a FIFO without a writer (Linux's wchan)."""
    wchan = Path(f"/proc/{proc.pid}/wchan")
    if not wchan.exists():
        time.sleep(3)
        return
    deadline = time.monotonic() + TIMEOUT
    while wchan.read_text() != "wait_for_partner":
        assert proc.poll() is None, proc.stderr.read()  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "meancli never opened the FIFO"
        time.sleep(0.01)


@pytest.mark.parametrize(("signum", "code", "word"), SIGNALS)
def test_signal_while_reading(tmp_path: Path, signum: int, code: int, word: str) -> None:
    # the input is a FIFO nobody writes to: meancli waits in open() until signalled
    os.mkfifo(tmp_path / "pipe.npy")
    np.save(tmp_path / "existing.npy", np.arange(5, dtype=np.int64))
    before = digest(tmp_path / "existing.npy")
    proc = subprocess.Popen(
        [*MEANCLI, "reduce-mean", "pipe.npy", "-o", "existing.npy"],
        cwd=tmp_path,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    _wait_blocked_on_fifo(proc)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=TIMEOUT)
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert error_line(done, code) == f"error: {word}"
    assert digest(tmp_path / "existing.npy") == before
    assert leftovers(tmp_path) == []


# --------------------------------------------------------------------------- -o naming the input


STREAMING = {"MEANCLI_STREAM_MIN_BYTES": "1", "MEANCLI_SLAB_BYTES": "4096"}


@pytest.mark.parametrize("env", [{}, STREAMING], ids=["in-memory", "streamed"])
def test_output_is_the_input(work: Path, env: dict[str, str]) -> None:
    x = np.load(work / "in.npy")
    proc = in_process("reduce-mean", "in.npy", "--axes", "0", "-o", "in.npy", "-q", cwd=work, env=env)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(
        np.load(work / "in.npy"), x.astype(np.float64).mean(0, keepdims=True), atol=1e-6
    )
    proc = in_process("mean", "in.npy", "in.npy", "in.npy", "-o", "in.npy", "-q", cwd=work, env=env)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(
        np.load(work / "in.npy"), x.astype(np.float64).mean(0, keepdims=True), atol=1e-6
    )
    assert leftovers(work) == []


@pytest.mark.parametrize(
    "inputs", [["-"], ["-", "in.npy"], ["in.npy", "-"]], ids=["stdin", "stdin-first", "stdin-second"]
)
def test_streamed_mean_with_trailing_bytes_on_stdin_keeps_the_output(work: Path, inputs: list[str]) -> None:
    """A streamed Mean finds trailing bytes on stdin only after its last block: the
    output must still be left untouched (the check comes before the rename)."""
    before = digest(work / "existing.npy")
    data = (work / "in.npy").read_bytes() + b"xx"
    proc = in_process("mean", *inputs, "-o", "existing.npy", "-q", cwd=work, env=STREAMING, stdin=data)
    assert "trailing bytes" in error_line(proc, 1)
    assert_untouched(work, before)


def test_output_through_a_symlink_to_the_input(work: Path) -> None:
    os.symlink("in.npy", work / "link.npy")
    x = np.load(work / "in.npy")
    proc = in_process("mean", "link.npy", "in.npy", "-o", "link.npy", "-q", cwd=work)
    assert proc.returncode == 0, proc.stderr
    assert (work / "link.npy").is_symlink()
    np.testing.assert_array_equal(np.load(work / "in.npy"), x)
    assert leftovers(work) == []


# --------------------------------------------------------------------------- closed pipes


def _pipeline(command: list[str], cwd: Path, reader: str = "head -c 10 >/dev/null") -> tuple[int, int, str]:
    """Run ``meancli COMMAND | READER`` in bash; (meancli's status, the pipeline's, stderr).

    ``true`` as the reader closes the pipe before meancli writes anything (meancli takes
    far longer to start), so the first write fails whatever the output's size."""
    quoted = " ".join(f"'{a}'" for a in [*MEANCLI, *command])
    script = f"{quoted} 2>err.txt | {reader}; echo ${{PIPESTATUS[0]}} $?"
    proc = subprocess.run(["bash", "-c", script], cwd=cwd, env=ENV, capture_output=True, timeout=TIMEOUT)
    own, pipeline = proc.stdout.decode().split()
    return int(own), int(pipeline), (cwd / "err.txt").read_text()


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """A directory with big.npy: 64 MiB of float32, more than any pipe buffer."""
    np.save(tmp_path / "big.npy", np.ones((16, 1 << 20), np.float32))
    return tmp_path


@pytest.mark.parametrize("extra", [[], ["-q"], ["--json"]])
def test_closed_pipe_on_npy_output(big: Path, extra: list[str]) -> None:
    own, pipeline, err = _pipeline(["mean", "big.npy", "big.npy", "-o", "-", *extra], big)
    assert pipeline == 0
    assert own == EXIT_BROKEN_PIPE
    assert err == ""


def test_closed_pipe_on_a_json_result(tmp_path: Path) -> None:
    np.save(tmp_path / "r.npy", np.random.default_rng(0).random((100, 100)))
    own, pipeline, err = _pipeline(["mean", "r.npy", "--json"], tmp_path, "true")
    assert pipeline == 0
    assert own in (0, EXIT_BROKEN_PIPE)
    assert err == ""


def test_closed_pipe_on_a_shown_result_is_quiet(tmp_path: Path) -> None:
    np.save(tmp_path / "r.npy", np.random.default_rng(0).random((4000, 30)))
    own, pipeline, err = _pipeline(
        ["reduce-mean", "r.npy", "--axes", "1", "--no-keep-dims"], tmp_path, "true"
    )
    assert pipeline == 0
    assert "Traceback" not in err and "error" not in err
    assert own in (1, EXIT_BROKEN_PIPE)


def test_closed_pipe_on_a_shown_result_exits_like_sigpipe(tmp_path: Path) -> None:
    np.save(tmp_path / "r.npy", np.random.default_rng(0).random((4000, 30)))
    own, _, _ = _pipeline(["reduce-mean", "r.npy", "--axes", "1", "--no-keep-dims"], tmp_path, "true")
    assert own == EXIT_BROKEN_PIPE


# --------------------------------------------------------------------------- exit statuses


def test_exit_0(work: Path) -> None:
    proc = run(["reduce-mean", "in.npy", "--axes", "1", "-o", "out.npy", "-q"], work)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")
    assert np.load(work / "out.npy").shape == (1024, 1)


def test_exit_1_input(work: Path) -> None:
    assert "nothing.npy" in error_line(run(["mean", "nothing.npy", "-o", "out.npy"], work), 1)
    assert not (work / "out.npy").exists()


def test_exit_1_spec_violation(work: Path) -> None:
    assert "out of range" in error_line(
        in_process("reduce-mean", "in.npy", "--axes", "2", "-o", "out.npy", cwd=work), 1
    )
    assert not (work / "out.npy").exists()


def test_exit_2_usage(work: Path) -> None:
    assert "--frobnicate" in error_line(run(["mean", "in.npy", "--frobnicate", "-o", "out.npy"], work), 2)
    assert not (work / "out.npy").exists()


def _broken(*args: Any, **kwargs: Any) -> Any:
    raise ZeroDivisionError("injected bug")


@pytest.mark.parametrize("command", [["reduce-mean", "in.npy", "--axes", "1"], ["mean", "in.npy"]])
def test_exit_3_internal_error(work: Path, command: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # a bug in validation (engine.memory holds its own name of validate_mean)
    for module, name in (
        (validate, "validate_reduce"),
        (validate, "validate_mean"),
        (memory, "validate_mean"),
    ):
        monkeypatch.setattr(module, name, _broken)
    line = error_line(in_process(*command, "-o", "out.npy", cwd=work), 3)
    assert "internal error: ZeroDivisionError: injected bug" in line and "--debug" in line
    assert not (work / "out.npy").exists()
    debug = in_process(*command, "-o", "out.npy", "--debug", cwd=work)
    assert debug.returncode == 3
    err = debug.stderr
    assert "Traceback" in err and err.splitlines()[-1].startswith("error: internal error")
    assert not (work / "out.npy").exists()


def test_exit_3_missing_kernels(work: Path) -> None:
    line = error_line(run(["mean", "in.npy", "-o", "out.npy"], work, exe=wrapped(work, NO_KERNELS)), 3)
    assert "meancli._kernels" in line and "make install" in line
    assert not (work / "out.npy").exists()


def _slow_reader(fd: int) -> bytes:
    """Everything from ``fd``, read in small pieces with pauses (a reader slower than the writer)."""
    chunks = []
    time.sleep(0.3)
    while chunk := os.read(fd, 4096):
        chunks.append(chunk)
        time.sleep(0.0002)
    os.close(fd)
    return b"".join(chunks)


def test_non_blocking_stdout_pipe_gets_every_byte(work: Path) -> None:
    """A pipe opened non-blocking refuses writes (EAGAIN) and takes partial
    ones while its reader lags: every byte must still arrive, or the run fail."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    proc = subprocess.Popen([*MEANCLI, "mean", "in.npy", "-o", "-", "--quiet"], cwd=work, stdout=w, env=ENV)
    os.close(w)
    got = _slow_reader(r)
    assert proc.wait(timeout=TIMEOUT) == 0
    assert got == (work / "in.npy").read_bytes()  # Mean of one input: the same file


@pytest.mark.parametrize(
    "argv",
    [["reduce-mean", "-", "--axes", "0"], ["mean", "-", "in.npy"]],
    ids=["reduce-mean (streamed)", "mean (read whole)"],
)
def test_non_blocking_stdin_pipe_waits_for_data(work: Path, argv: list[str]) -> None:
    """A non-blocking stdin with no data yet is not the end of the data."""
    data = (work / "in.npy").read_bytes()
    r, w = os.pipe()
    os.set_blocking(r, False)
    proc = subprocess.Popen(
        [*MEANCLI, *argv, "-o", "out.npy", "--quiet"], cwd=work, stdin=r, stderr=subprocess.PIPE, env=ENV
    )
    os.close(r)
    for i in range(0, len(data), 65536):
        os.write(w, data[i : i + 65536])
        time.sleep(0.002)
    os.close(w)
    _, err = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 0, err.decode()
    x = np.load(work / "in.npy")
    want = (
        x.astype(np.float64).mean(axis=0, keepdims=True).astype(np.float32) if argv[0] == "reduce-mean" else x
    )
    np.testing.assert_array_equal(np.load(work / "out.npy"), want)


@pytest.mark.parametrize("stdout", ["full", "closed"])
@pytest.mark.parametrize(
    "argv",
    [
        ["reduce-mean", "x.npy"],
        ["reduce-mean", "x.npy", "--json"],
        ["reduce-mean", "x.npy", "-o", "written.npy"],
        ["mean", "x.npy", "x.npy"],
        ["reduce-mean", "x.npy", "x.npy", "-o", "many/{index}.npy"],
        ["--version"],
        ["--help"],
        ["spec", "list"],
    ],
)
def test_stdout_that_cannot_be_written_is_one_error_line(
    tmp_path: Path, argv: list[str], stdout: str
) -> None:
    """A full disk behind stdout, or stdout closed before the run: exit 1 and
    `cannot write <stdout>: ...` on stderr (JSON with --json), no traceback.
    A full stdout runs in process; a closed one (Python starts with sys.stdout
    None) in a real process."""
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(3, 4))
    (tmp_path / "many").mkdir()
    proc: subprocess.CompletedProcess[bytes] | Result
    if stdout == "full":
        proc = in_process(*argv, cwd=tmp_path, stdout_path="/dev/full")
    else:
        proc = subprocess.run(
            [*MEANCLI, *argv],
            cwd=tmp_path,
            env=ENV,
            stdout=None,
            stderr=subprocess.PIPE,
            timeout=TIMEOUT,
            preexec_fn=lambda: os.close(1),
        )
    err = proc.stderr if isinstance(proc.stderr, str) else proc.stderr.decode()
    assert proc.returncode == 1, err
    assert "Traceback" not in err
    assert "cannot write <stdout>" in err.splitlines()[0]
    if "written.npy" in argv:  # the output itself is whole: only the report was lost
        assert np.array_equal(np.load(tmp_path / "written.npy"), np.full((1, 1), 5.5, np.float32))


def test_control_characters_in_names_are_escaped(tmp_path: Path) -> None:
    """A file name holding an escape sequence or a newline reaches the terminal
    escaped, in the report and in error lines: it cannot recolour or split them."""
    name = "esc\x1b]0;x\x07\nred.npy"
    np.save(tmp_path / name, np.ones((2, 2), np.float32))
    proc = in_process("reduce-mean", name, cwd=tmp_path)
    out = proc.stdout
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in out and "\x07" not in out
    assert "esc\\x1b]0;x\\x07\\nred.npy" in out
    proc = in_process("reduce-mean", "missing\x1b[2J.npy", cwd=tmp_path)
    err = proc.stderr
    assert proc.returncode == 1 and "\x1b" not in err and len(err.splitlines()) == 1, err


@pytest.mark.parametrize("argv", [["reduce-mean", ""], ["mean", "x.npy", " "]])
def test_an_empty_file_argument_is_a_usage_error(tmp_path: Path, argv: list[str]) -> None:
    np.save(tmp_path / "x.npy", np.ones(3, np.float32))
    proc = in_process(*argv, cwd=tmp_path)
    assert proc.returncode == 2 and "an empty path" in proc.stderr


# A Ctrl-C that lands while start-up imports MODULE (before any command runs):
# the import raises KeyboardInterrupt, as the signal's default handler would there.
INTERRUPT_AT_IMPORT = """
import os, sys
class _Interrupting:
    def find_spec(self, name, path=None, target=None):
        if name == os.environ["MODULE"]:
            raise KeyboardInterrupt
        return None
sys.meta_path.insert(0, _Interrupting())
from meancli.cli.entry import main
sys.exit(main())
"""


@pytest.mark.parametrize("module", ["typer", "typer.main", "meancli.cli.app", "meancli.cli.argv", "numpy"])
def test_ctrl_c_during_start_up_is_one_line(work: Path, module: str) -> None:
    before = digest(work / "existing.npy")
    exe = [sys.executable, "-c", INTERRUPT_AT_IMPORT]
    proc = run(["mean", "in.npy", "-o", "existing.npy"], work, exe=exe, env={**ENV, "MODULE": module})
    assert error_line(proc, EXIT_INTERRUPTED) == "error: interrupted"
    assert_untouched(work, before)


def test_meancli_code_before_main_imports_nothing_but_builtins() -> None:
    # What the console script runs before main(): the narrower, the fewer Ctrl-Cs
    # land where only Python's own traceback can answer them.
    probe = (
        "import sys; before = set(sys.modules); import meancli.cli.entry; "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    added = set(proc.stdout.split())
    assert added <= {"meancli", "meancli.cli", "meancli.cli.entry", "gc"}, added


# Run the command line in-process with read_npy patched: each memory-mapped
# input is truncated by "another process" just after it is mapped, before the
# kernel reads it; the kernel's read then raises SIGBUS.
_TRUNCATING = """
import os, sys
import meancli.io.npy_read as npy_read
from meancli.cli.entry import main

real = npy_read.read_npy

def truncating(path, *, mmap=True):
    array, header = real(path, mmap=mmap)
    os.truncate(path, 200)
    return array, header

npy_read.read_npy = truncating
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.parametrize(
    "args",
    [
        ["reduce-mean", "t.npy", "--axes", "0", "-o", "out.npy"],
        ["mean", "t.npy", "u.npy", "-o", "out.npy"],
    ],
)
def test_a_mapped_input_truncated_meanwhile_is_one_error_line(tmp_path: Path, args: list[str]) -> None:
    """A memory-mapped input that another process truncates while meancli
    reads it raises a bus error in the kernel: one error line and exit 1,
    not a crash; no output file, no temporary file."""
    for name in ("t.npy", "u.npy"):
        np.save(tmp_path / name, np.random.default_rng(0).random((2000, 1000)))
    out = subprocess.run(
        [sys.executable, "-c", _TRUNCATING, *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 1, out.stderr
    assert (
        out.stderr == "error: an input file was truncated while it was read (a bus error on its memory map)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npy", "u.npy"]


def test_a_bus_error_removes_the_temporary_output_being_written(tmp_path: Path) -> None:
    """The temporary output file atomic_write is writing when a bus error
    strikes is removed by the handler; one registered and then finished is not."""
    code = """
import os, signal, sys
from meancli.cli.run import handle_bus_errors
from meancli.io import atomic_write
handle_bus_errors()
handle_bus_errors()  # again: still one watcher
assert len(atomic_write.temporary_watchers) == 1
(watch,) = atomic_write.temporary_watchers
open("done.tmp", "w").close()
watch("done.tmp")
watch(None)
open(".meancli-x.tmp", "w").close()
watch(".meancli-x.tmp")
os.kill(os.getpid(), signal.SIGBUS)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 1, out.stderr
    assert (
        out.stderr == "error: an input file was truncated while it was read (a bus error on its memory map)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["done.tmp"]
