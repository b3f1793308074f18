"""Shared helpers for meancli's tests: the registry, realistic arrays, and
``run_cli``, the one way tests run the command line.

The exact oracle (the mathematically exact mean rounded once) and the
comparisons against it are in tests/oracles.py.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import math
import os
import shutil
import signal
import subprocess as _subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from meancli import kernels
from meancli.engine import streamed
from meancli.io import shards, thresholds
from meancli.kernels import isa_choice
from meancli.ops.schema import OpVersion

# --------------------------------------------------------------------------- hypothesis profiles

_COMMON: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("default", max_examples=40, **_COMMON)
settings.register_profile("ci", max_examples=100, derandomize=True, print_blob=True, **_COMMON)
settings.register_profile("fuzz-long", max_examples=2000, **_COMMON)
# make test-fast: few examples per property (make test keeps "default")
settings.register_profile("fast", max_examples=8, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# --------------------------------------------------------------------------- the instruction-set cache

# The choice of instruction sets is cached per machine (meancli/kernels/isa_choice.py).
# A test run keeps its own out of the user's cache folder: one folder, made here
# before pytest-xdist starts its workers (they inherit it and share one measurement).
# It is measured here, once, so no test's process (a CLI run, a dask worker) pays
# for it in the middle of what the test times.
# A choice this machine already measured (the user's cache, read, never written) is
# copied in: the test run then starts without the measurement's second.
if "MEANCLI_CACHE_DIR" not in os.environ:
    _users = isa_choice.cache_path()
    os.environ["MEANCLI_CACHE_DIR"] = tempfile.mkdtemp(prefix="meancli-test-cache-")
    atexit.register(shutil.rmtree, os.environ["MEANCLI_CACHE_DIR"], True)
    if _users.is_file():
        shutil.copyfile(_users, isa_choice.cache_path())
    if not os.environ.get("MEANCLI_ISA"):
        kernels.isa_report()

# --------------------------------------------------------------------------- signals

# The signal tests send SIGINT to the processes they start. A suite started as a
# shell's background job (`make test &`) inherits SIGINT ignored, and so would every
# process it starts (an ignored signal stays ignored across exec): Ctrl-C could not
# reach them. A handler instead is reset to the default at exec.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# --------------------------------------------------------------------------- the command line

#: ``python -m meancli``: the command a real run starts.
MEANCLI = [sys.executable, "-m", "meancli"]
CLI_TIMEOUT = 120
#: Variables meancli reads once, at import, into a module's constant: an in-process
#: call sets the constant for its run (as the variable would in a new process).
IMPORT_TIME_SETTINGS = {
    "MEANCLI_STREAM_MIN_BYTES": (thresholds, "STREAM_MIN_BYTES"),
    "MEANCLI_SLAB_BYTES": (streamed, "SLAB_BYTES"),
    "MEANCLI_PIECE_BYTES": (shards, "PIECE_BYTES"),
}
#: Variables read at import that no constant holds: a call that sets one runs in a real process.
IMPORT_TIME_ENV = frozenset({"MEANCLI_ISA"})


@dataclass(frozen=True)
class Result:
    """One run of the command line: its exit status, stdout and stderr.

    ``stdout`` and ``stderr`` are decoded as UTF-8 (undecodable bytes replaced);
    ``stdout_bytes`` is stdout as written (an ``-o -`` array)."""

    exit_code: int
    stdout: str
    stderr: str
    stdout_bytes: bytes = b""

    @property
    def returncode(self) -> int:
        return self.exit_code


def run_cli(
    *args: str | os.PathLike[str],
    stdin: bytes | str | None = None,
    env: dict[str, str] | None = None,
    subprocess: bool = False,
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = CLI_TIMEOUT,
    stdout_path: str | os.PathLike[str] | None = None,
) -> Result:
    """Run ``meancli ARGS...`` and return its exit status, stdout and stderr.

    In process by default: ``meancli.cli.entry.main(argv)`` -- what ``python -m
    meancli`` runs -- with file descriptors 0, 1 and 2 (and sys.stdin/stdout/stderr)
    on pipes, as a subprocess has them, ``env`` added to os.environ and ``cwd``
    the working directory for the call; everything is restored afterwards. With
    ``subprocess=True`` a real ``python -m meancli`` process (for what needs one:
    signals, inherited descriptors, start-up, environment read at import such as
    MEANCLI_ISA, dask worker processes); a call whose ``env`` sets one of
    IMPORT_TIME_ENV runs as a real process whatever ``subprocess`` says, and one
    of IMPORT_TIME_SETTINGS sets its module constant for an in-process run.
    ``stdin``: the bytes (or text) on standard input; None is an empty stdin.
    ``timeout`` applies to a real process only. ``stdout_path``: standard output
    is this file, opened for writing (``/dev/full``, say), instead of a pipe;
    the result's stdout is then empty.
    """
    argv = [os.fspath(a) for a in args]
    data = stdin.encode() if isinstance(stdin, str) else (stdin or b"")
    if subprocess or IMPORT_TIME_ENV.intersection(env or {}):
        with contextlib.ExitStack() as stack:
            out = _subprocess.PIPE
            if stdout_path is not None:
                out = stack.enter_context(open(stdout_path, "wb"))
            proc = _subprocess.run(
                [*MEANCLI, *argv],
                input=data,
                stdout=out,
                stderr=_subprocess.PIPE,
                timeout=timeout,
                cwd=cwd,
                env={**os.environ, **(env or {})},
                check=False,
            )
        return _result(proc.returncode, proc.stdout or b"", proc.stderr)
    return _run_in_process(argv, data, env or {}, cwd, stdout_path)


def _result(code: int, out: bytes, err: bytes) -> Result:
    return Result(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), out)


def _drain(fd: int, sink: list[bytes]) -> None:
    with contextlib.suppress(OSError):
        while chunk := os.read(fd, 1 << 16):
            sink.append(chunk)
    os.close(fd)


def _feed(fd: int, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the command did not read it all (EPIPE)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    os.close(fd)


def _run_in_process(
    argv: list[str], data: bytes, env: dict[str, str], cwd: Any, stdout_path: Any = None
) -> Result:
    from meancli.cli.entry import main

    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    saved_gc = gc.isenabled()
    saved_settings = {key: getattr(*IMPORT_TIME_SETTINGS[key]) for key in env if key in IMPORT_TIME_SETTINGS}
    (in_r, in_w), (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe(), os.pipe()
    out: list[bytes] = []
    err: list[bytes] = []
    threads = [
        threading.Thread(target=_feed, args=(in_w, data), daemon=True),
        threading.Thread(target=_drain, args=(out_r, out), daemon=True),
        threading.Thread(target=_drain, args=(err_r, err), daemon=True),
    ]
    if stdout_path is not None:  # fd 1 is that file; the pipe's reader sees its end at once
        os.close(out_w)
        out_w = os.open(stdout_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    for fd, pipe_end in ((0, in_r), (1, out_w), (2, err_w)):
        os.dup2(pipe_end, fd)
        os.close(pipe_end)
    for t in threads:
        t.start()
    try:
        sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
            encoding="utf-8",
            errors="backslashreplace",
            line_buffering=True,
        )
        os.environ.update(env)
        for key in saved_settings:
            module, name = IMPORT_TIME_SETTINGS[key]
            setattr(module, name, int(env[key]))
        if cwd is not None:
            os.chdir(cwd)
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        for fd, saved in zip((0, 1, 2), saved_fds, strict=True):
            os.dup2(saved, fd)  # closes the pipes' ends: the readers see the end
            os.close(saved)
        os.chdir(saved_cwd)
        for key, value in saved_settings.items():
            module, name = IMPORT_TIME_SETTINGS[key]
            setattr(module, name, value)
        os.environ.clear()
        os.environ.update(saved_env)
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)
        if saved_gc:
            gc.enable()
        for t in threads:
            t.join(timeout=10)
    return _result(int(code), b"".join(out), b"".join(err))


# --------------------------------------------------------------------------- the order of the tests

#: Module-scoped fixtures that start dask clusters (tests/test_distributed.py). The tests
#: that use them run last in their file, so their clusters are up only while those run
#: (their idle workers cost CPU); ``place`` is that file's parameter naming a cluster.
MODULE_CLUSTERS = frozenset({"clients", "external"})
#: The files that take longest in ``make test``, longest first, started first: pytest-xdist
#: hands out whole files in collection order (``--no-loadscope-reorder``), so a long file
#: handed out last would leave the other worker idle at the end. From ``pytest --durations=0``
#: (the sum per file; test_distributed.py alone was 46% of the suite).
LONGEST_FIRST = (
    "test_distributed.py",
    "test_urls.py",
    "test_portable_build.py",
    "test_kernels_oracle.py",
    "test_exactness.py",
    "test_simd_paths.py",
    "test_fuzz.py",
    "test_bench_quick.py",
    "test_hostile_inputs.py",
    "test_onnx_node_cases.py",
    "test_faults.py",
    "test_skipna_rows.py",
    "test_correctly_rounded.py",
    "test_skipna.py",
)


def _uses_module_clusters(item: Any) -> bool:
    callspec = getattr(item, "callspec", None)
    place = callspec.params.get("place", "this process") if callspec else "this process"
    return bool(MODULE_CLUSTERS.intersection(item.fixturenames)) or place != "this process"


def pytest_collection_modifyitems(items: list[Any]) -> None:
    """The longest files first (LONGEST_FIRST, then the rest as collected); within a file,
    the tests marked ``cluster`` after the others, those using the file's clusters last.
    A stable sort: the order is otherwise the collection's, the same in every worker."""
    longest = {name: rank for rank, name in enumerate(LONGEST_FIRST)}
    files: dict[str, int] = {}
    for item in items:
        files.setdefault(item.path.name, len(files))

    def key(item: Any) -> tuple[int, int, int]:
        cluster = item.get_closest_marker("cluster") is not None
        last = 2 if cluster and _uses_module_clusters(item) else int(cluster)
        return (longest.get(item.path.name, len(longest)), files[item.path.name], last)

    items.sort(key=key)


# --------------------------------------------------------------------------- the registry

#: numpy dtype for each spec type name.
SPEC_DTYPES: dict[str, np.dtype[Any]] = {
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    **{f"int{b}": np.dtype(f"int{b}") for b in (8, 16, 32, 64)},
    **{f"uint{b}": np.dtype(f"uint{b}") for b in (8, 16, 32, 64)},
}
FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")

# make_array's float64 extremes: above 2**996 (where dd_div's Dekker split once
# overflowed to NaN) yet low enough that sums of up to 2**12 values stay finite
# (a float64 sum that overflows is inf in numpy too, so it is not held against meancli).
FLOAT64_EXTREME = 2.0**1010


def ops() -> tuple[OpVersion, ...]:
    """Every operator version the specs define (meancli.generated.registry.OPS)."""
    from meancli.generated.registry import OPS

    return OPS


def ops_of_kind(kind: str) -> list[OpVersion]:
    """The versions of one kind: ``reduce`` or ``elementwise_mean``."""
    return [op for op in ops() if op.kind == kind]


def op_id(op: OpVersion) -> str:
    """``onnx-ReduceMean-18``: a test id."""
    return f"{op.domain}-{op.name}-{op.since_version}"


def opset_of(op: OpVersion) -> str:
    """The ``opset`` argument that selects exactly ``op``."""
    return f"{op.domain}:{op.since_version}"


def np_dtype(name: str) -> np.dtype[Any]:
    """The numpy dtype of a spec type name."""
    return SPEC_DTYPES[name]


def is_float(name: str) -> bool:
    return name in FLOAT_NAMES


def finfo(dtype: np.dtype[Any]) -> Any:
    return ml_dtypes.finfo(dtype) if dtype == SPEC_DTYPES["bfloat16"] else np.finfo(dtype)


# --------------------------------------------------------------------------- realistic arrays


def make_array(
    dtype_name: str,
    shape: Sequence[int],
    rng: np.random.Generator,
    *,
    extremes: bool = True,
    specials: bool = False,
) -> np.ndarray:
    """Values of spec dtype ``dtype_name`` with ``shape``, drawn in one of a few regimes.

    Regimes: small integers (exact in every dtype, many ties), normal values at
    some scale, and (with ``extremes``) values near the dtype's limits --
    negative values for signed types. ``specials`` sprinkles NaN and infinities
    into floating arrays.
    """
    dtype = np_dtype(dtype_name)
    shape = tuple(int(n) for n in shape)
    size = math.prod(shape)
    regimes = ["small", "normal", "wide", "tiny"] + (["extreme"] if extremes else [])
    regime = regimes[int(rng.integers(len(regimes)))]
    if is_float(dtype_name):
        big = FLOAT64_EXTREME if dtype_name == "float64" else float(finfo(dtype).max)
        if regime == "small":
            v = rng.integers(-8, 9, size).astype(np.float64)
        elif regime == "normal":
            v = rng.standard_normal(size) * 10.0 ** float(rng.integers(-3, 4))
        elif regime == "wide":  # mixed magnitudes: cancellation and absorption
            e = min(20, int(finfo(dtype).maxexp) - 6)
            v = rng.standard_normal(size) * 2.0 ** rng.integers(-e, e, size)
        elif regime == "tiny":  # subnormal means: small multiples of the smallest subnormal
            v = rng.integers(-40, 41, size) * float(finfo(dtype).smallest_subnormal)
        else:
            v = rng.uniform(0.5, 1.0, size) * big * rng.choice([-1.0, 1.0], size)
            if rng.integers(2):
                v = np.abs(v)  # all one sign: the sum exceeds the dtype's range
        v = v.astype(dtype)
        if specials and size:
            k = int(rng.integers(1, min(size, 3) + 1))
            v[rng.integers(0, size, k)] = rng.choice(np.array([np.nan, np.inf, -np.inf]), k).astype(dtype)
        return v.reshape(shape)
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    if regime == "small":
        v = rng.integers(max(lo, -100), min(hi, 100), size, endpoint=True, dtype=dtype)
    elif regime in ("normal", "wide"):
        v = rng.integers(lo, hi, size, endpoint=True, dtype=dtype)
    else:  # near the limits (both of them for signed types)
        near_max = rng.integers(max(lo, hi - 1000), hi, size, endpoint=True, dtype=dtype)
        near_min = rng.integers(lo, min(hi, lo + 1000), size, endpoint=True, dtype=dtype)
        v = np.where(rng.integers(0, 4, size) == 0, near_min, near_max) if lo < 0 else near_max
    return np.asarray(v, dtype=dtype).reshape(shape)


# --------------------------------------------------------------------------- instruction sets


@pytest.fixture(params=["portable", "avx2", "avx512"])
def isa(request: Any) -> Any:
    """Each instruction set in turn for every kernel (skipped where the CPU lacks it);
    the process's choice restored after."""
    if request.param not in kernels.supported_isas():
        pytest.skip(f"{request.param} not on this CPU")
    saved = kernels.isas_in_use()
    kernels.use_isa(request.param)
    yield request.param
    for (kind, dtype), name in saved.items():
        kernels.use_isa(name, dtype, kind)


@pytest.fixture(scope="module")
def every_isa() -> Any:
    """The instruction sets this CPU runs, for a test that switches among them itself
    (kernels.use_isa); the process's choice restored after the module."""
    saved = kernels.isas_in_use()
    yield kernels.supported_isas()
    for (kind, dtype), name in saved.items():
        kernels.use_isa(name, dtype, kind)
