"""meancli benchmarks: meancli against numpy, onnxruntime and OpenVINO, and
against the machine's 2-thread memory-read limit.

    .venv/bin/python bench/bench.py            # full run (make bench); writes bench/results.{md,json}
    .venv/bin/python bench/bench.py --quick    # small sizes, 1 round: every path in seconds
    MEANCLI_BENCH_QUICK=1 .venv/bin/python bench/bench.py   # the same
    .venv/bin/python bench/bench.py --only W1,W4-bf16,W8,CLI,ONEFILE,MANY

Every contender runs in its own block in this one process: a warm-up, then
--reps timed calls; the table shows the median and the minimum. Each peer
runs on its fastest documented path, and is also built anew and called as
its documentation shows in a plain loop (the "standalone" column), so a
reader sees the harness does not slow it. The run names the machine: CPU
model, the flags that matter, the kernels' instruction-set path. A contender
that has no kernel for a workload says n/a and why. The limit is
bench/readprobe.c, compiled at run time into a temporary directory: a
2-thread read of the input's bytes (for Mean: of every input, plus a 2-thread
memset of the output). See bench/README.md for what each column means.
"""

from __future__ import annotations

import os
import sys

# numpy is slowed by these two (set on some processors for old OpenBLAS builds):
# re-exec this process once without them, before numpy is imported. Only when run:
# a process that imports this module (tests/test_bench_quick.py) must stay itself.
_OPENBLAS_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
if (
    __name__ == "__main__"
    and any(k in os.environ for k in _OPENBLAS_VARS)
    and "MEANCLI_BENCH_REEXEC" not in os.environ
):
    _removed = [f"{k}={os.environ[k]}" for k in _OPENBLAS_VARS if k in os.environ]
    _env = {k: v for k, v in os.environ.items() if k not in _OPENBLAS_VARS}
    _env["MEANCLI_BENCH_REEXEC"] = " ".join(_removed)
    print(
        f"bench: re-executing without {' '.join(_removed)} (for this process only)",
        file=sys.stderr,
        flush=True,
    )
    os.execve(sys.executable, [sys.executable, *sys.argv], _env)

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import signal  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import timeit  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, TypeVar  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))


if str(HERE) in sys.path:  # run as a script: bench/ is on the path
    from machine import FLAGS_THAT_MATTER, cpu_info, machine_slug
    from workloads import BF16, F16, F32, F64, SKIPNA_WORKLOADS, WORKLOADS, Workload, make_data, make_nan_data
else:  # imported (tests/test_bench_quick.py): bench/ must not shadow the tests' modules
    sys.path.insert(0, str(HERE))
    try:
        from machine import FLAGS_THAT_MATTER, cpu_info, machine_slug
        from workloads import (
            BF16,
            F16,
            F32,
            F64,
            SKIPNA_WORKLOADS,
            WORKLOADS,
            Workload,
            make_data,
            make_nan_data,
        )
    finally:
        sys.path.remove(str(HERE))

import meancli  # noqa: E402

ENV_NOTE = (
    f"removed {os.environ['MEANCLI_BENCH_REEXEC']} for this process (re-exec)"
    if "MEANCLI_BENCH_REEXEC" in os.environ
    else "OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE not set: nothing removed"
)

THREADS = 2  # meancli's threads in the scored row, and the limit probe's
QUICK_ENV = "MEANCLI_BENCH_QUICK"  # =1: the same as --quick


T = TypeVar("T")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------
# workloads
# --------------------------------------------------------------------------


EXTRA = ["W8", "CLI", "ONEFILE", "MANY", "VERSION", "MEM"]
ALL_NAMES = [w.name for w in WORKLOADS] + EXTRA + [w.name for w in SKIPNA_WORKLOADS]


def reference(w: Workload, xs: list[np.ndarray]) -> np.ndarray:
    """The float64 (float64 input: long double) reference, keepdims shape."""
    if w.kind == "mean":
        wide = np.longdouble if w.dtype == F64 else np.float64
        acc = np.zeros(np.broadcast_shapes(*(x.shape for x in xs)), dtype=wide)
        for x in xs:
            acc += x.astype(wide)
        acc /= len(xs)
        return acc.astype(np.float64)
    x = xs[0]
    if w.dtype == "int64":  # the values are small: the int64 sum is exact
        s = x.sum(axis=w.axes, keepdims=True, dtype=np.int64)
        return s.astype(np.float64) / (x.size // s.size)
    if w.dtype == F64:
        return x.astype(np.longdouble).mean(axis=w.axes, keepdims=True).astype(np.float64)
    return x.astype(np.float64).mean(axis=w.axes, keepdims=True)


def as_f64(y: Any, dtype: str) -> np.ndarray:
    a = np.asarray(y)
    if dtype == "bfloat16" and a.dtype != BF16:  # OpenVINO hands bf16 back as 16-bit words
        a = a.view(np.uint16).view(BF16)
    return a.astype(np.float64)


def max_rel_err(y: Any, ref: np.ndarray, dtype: str) -> float:
    a = as_f64(y, dtype).reshape(-1)
    r = ref.reshape(-1)
    if a.size != r.size:
        return float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.abs(a - r) / np.abs(r)
    return float(np.nanmax(e)) if e.size else 0.0


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------


@dataclass
class Row:
    contender: str
    times: list[float] = field(default_factory=list)  # seconds
    err: float | None = None
    na: str | None = None
    peer: bool = True  # counts for "best peer"
    note: str = ""
    foreign: float = 0.0  # share of its runnable time the block's threads waited for a CPU
    attempts: int = 1
    standalone: float | None = None  # seconds: the peer called as documented, in a plain loop
    vs_picked: float | None = None  # the other-set row: its time / the picked set's, alternated call by call

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def min(self) -> float:
        return min(self.times)


def time_block(fn: Callable[[], Any], reps: int, warmup: int) -> tuple[list[float], Any]:
    first = None
    for i in range(warmup):
        r = fn()
        if i == 0:
            first = r
    gc.collect()
    gc.disable()
    try:
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    finally:
        gc.enable()
    return times, first


_CLK_TCK = os.sysconf("SC_CLK_TCK")
_NCPU = os.cpu_count() or 1


def cpu_snapshot() -> tuple[float, float, float]:
    """(busy seconds of all CPUs, this process's CPU seconds, wall seconds)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    busy = sum(v[:3]) + sum(v[5:8])  # user nice system, irq softirq steal (not idle, iowait)
    ru = resource.getrusage(resource.RUSAGE_SELF)
    rc = resource.getrusage(resource.RUSAGE_CHILDREN)  # the CLI timings' processes, once waited for
    return busy / _CLK_TCK, ru.ru_utime + ru.ru_stime + rc.ru_utime + rc.ru_stime, time.perf_counter()


def foreign_share(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    """Share of the machine's CPU time that others (other processes, the
    hypervisor's steal) took between two snapshots; tick resolution (10 ms)."""
    wall = b[2] - a[2]
    if wall <= 0:
        return 0.0
    return max(0.0, (b[0] - a[0]) - (b[1] - a[1])) / (wall * _NCPU)


WRONG = 1e-2  # max rel err above which a peer's result counts as wrong
NOISY = 0.10  # a block whose threads waited for a CPU more than this share of their runnable time runs again
ATTEMPTS = 3


class Quiet:
    """Waits, before a timed block, until other processes leave the machine
    alone (this machine is shared), within a total budget for the run."""

    budget = 900.0  # seconds of waiting in the whole run (--wait-budget)
    attempts = ATTEMPTS  # blocks at most per contender (--quick: 1)
    per_block = 30.0  # seconds at most before one block
    waited = 0.0

    @classmethod
    def wait(cls) -> None:
        t_end = time.perf_counter() + min(cls.per_block, max(cls.budget - cls.waited, 0.0))
        t0 = time.perf_counter()
        quiet_windows = 0
        while time.perf_counter() < t_end and quiet_windows < 2:
            a = cpu_snapshot()
            time.sleep(0.25)
            quiet_windows = quiet_windows + 1 if foreign_share(a, cpu_snapshot()) <= NOISY / 2 else 0
        cls.waited += time.perf_counter() - t0


def sched_snapshot() -> dict[str, tuple[int, int]]:
    """Per thread of this process: (ns on a CPU, ns runnable but waiting for one)."""
    snap = {}
    for f in Path("/proc/self/task").glob("*/schedstat"):
        try:
            v = f.read_text().split()
            snap[f.parent.name] = (int(v[0]), int(v[1]))
        except (OSError, ValueError, IndexError):
            pass
    return snap


def wait_share(a: dict[str, tuple[int, int]], b: dict[str, tuple[int, int]]) -> float:
    """Share of this process's runnable time between two snapshots that its
    threads spent waiting for a CPU (taken by other processes): 0 on a quiet machine."""
    run = wait = 0
    for tid, (r, w) in b.items():
        r0, w0 = a.get(tid, (0, 0))
        run += r - r0
        wait += w - w0
    return wait / (run + wait) if run + wait > 0 else 0.0


def until_quiet(attempt: Callable[[], T]) -> tuple[T, float, int]:
    """``attempt()`` run again (up to ATTEMPTS in all, after Quiet.wait()) while
    this process's threads waited for a CPU more than NOISY of their runnable
    time; keeps the quietest attempt. Returns (its result, that share, attempts)."""
    best: tuple[T, float] | None = None
    n = 0
    for n in range(1, Quiet.attempts + 1):
        if n > 1:
            Quiet.wait()
        a = sched_snapshot()
        result = attempt()
        share = wait_share(a, sched_snapshot())
        if best is None or share < best[1]:
            best = (result, share)
        if share <= NOISY:
            break
    assert best is not None
    return best[0], best[1], n


def quiet_block(fn: Callable[[], Any], reps: int, warmup: int) -> tuple[list[float], float, int]:
    """time_block, run again until quiet (until_quiet). Returns (times, that share, attempts)."""
    return until_quiet(lambda: time_block(fn, reps, warmup)[0])


ROUNDS = 3  # alternated rounds of the verdict (limit, meancli, best peer)


def alternated(fns: list[Callable[[], Any]], reps: int, rounds: int = ROUNDS) -> list[list[float]]:
    """Median time of each of ``fns`` in ``rounds`` rounds, each round one
    block of every fn in turn (1 warm-up call, ``reps`` timed). Memory
    bandwidth on a shared VM drifts by 10-30% within a minute; ratios taken
    within a round, seconds apart, cancel most of that drift."""
    out: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            times, _, _ = quiet_block(fn, reps, 1)
            out[i].append(statistics.median(times))
    return out


def run_contender(
    name: str,
    setup: Callable[[], Callable[[], Any]],
    reps: int,
    warmup: int,
    ref: np.ndarray | None,
    dtype: str,
    peer: bool = True,
    note: str = "",
) -> Row:
    """setup() builds the contender (sessions, compiled models) and returns the
    call to time, or raises; building is not timed. The first warm-up call's
    result (copied: OpenVINO's is a view of its output buffer) gives the error."""
    row = Row(name, peer=peer, note=note)
    try:
        fn = setup()
        first = np.array(fn(), copy=True)
        times, row.foreign, row.attempts = quiet_block(fn, reps, max(warmup - 1, 0))
    except Exception as e:  # a contender without a kernel for this graph, or one that failed
        row.na = f"{type(e).__name__}: {first_line(e)}"
        log(f"    {name:14s} n/a: {row.na}")
        return row
    row.times = times
    if ref is not None:
        row.err = max_rel_err(first, ref, dtype)
    del first
    log(
        f"    {name:14s} median {row.median * 1e3:9.3f} ms  min {row.min * 1e3:9.3f} ms"
        + (f"  err {row.err:.2e}" if row.err is not None else "")
        + noise_note(row)
    )
    return row


def noise_note(r: Row) -> str:
    return f"  cpu-wait {r.foreign:.0%}" + (f" ({r.attempts} attempts)" if r.attempts > 1 else "")


def first_line(e: BaseException) -> str:
    s = str(e).strip().splitlines()
    s = [x for x in s if x.strip()]
    return (s[0] if s else "")[:240]


# --------------------------------------------------------------------------
# the read probe (bench/readprobe.c, compiled now)
# --------------------------------------------------------------------------


class Probe:
    def __init__(self) -> None:
        from cffi import FFI

        self.tmp = tempfile.TemporaryDirectory(prefix="meancli-bench-")
        so = Path(self.tmp.name) / "readprobe.so"
        cmd = [
            "gcc",
            "-O3",
            "-march=native",
            "-fopenmp",
            "-shared",
            "-fPIC",
            "-o",
            str(so),
            str(HERE / "readprobe.c"),
        ]
        subprocess.run(cmd, check=True)
        self.cmd = " ".join(cmd[:6]) + " bench/readprobe.c"
        self.ffi = FFI()
        self.ffi.cdef(
            """
            uint64_t probe_read_write(int ninputs, const void *const *inputs, const int64_t *nbytes,
                                      void *out, int64_t outbytes, int nthreads);
            """
        )
        self.lib = self.ffi.dlopen(str(so))

    def ptr(self, a: np.ndarray) -> Any:
        return self.ffi.cast("void *", a.ctypes.data)

    def read_write_fn(self, xs: list[np.ndarray], out: np.ndarray, fresh: bool = False) -> Callable[[], Any]:
        """A call of the probe: read every input, then write the output (a new one each call: fresh)."""
        ptrs = self.ffi.new("void *[]", [self.ptr(x) for x in xs])
        sizes = self.ffi.new("int64_t[]", [x.nbytes for x in xs])
        if not fresh:
            op = self.ptr(out)
            return lambda: self.lib.probe_read_write(len(xs), ptrs, sizes, op, out.nbytes, THREADS)

        def f() -> Any:  # a new output each call, as meancli.mean allocates one
            o = np.empty(out.shape, out.dtype)
            self.lib.probe_read_write(len(xs), ptrs, sizes, self.ptr(o), o.nbytes, THREADS)
            return o

        return f


# --------------------------------------------------------------------------
# contenders
# --------------------------------------------------------------------------


def onnx_elem(dtype: str) -> int:
    from onnx import TensorProto

    return {
        F32: TensorProto.FLOAT,
        F16: TensorProto.FLOAT16,
        F64: TensorProto.DOUBLE,
        "bfloat16": TensorProto.BFLOAT16,
        "int64": TensorProto.INT64,
    }[dtype]


def onnx_model(w: Workload, xs: list[np.ndarray]) -> bytes:
    """ReduceMean-18 (axes as an input, keepdims=1) or Mean-13."""
    from onnx import TensorProto, helper

    elem = onnx_elem(w.dtype)
    if w.kind == "reduce":
        x = xs[0]
        axes = list(w.axes) if w.axes is not None else list(range(x.ndim))
        inputs = [helper.make_tensor_value_info("x", elem, list(x.shape))]
        init = [helper.make_tensor("axes", TensorProto.INT64, [len(axes)], axes)]
        node = helper.make_node("ReduceMean", ["x", "axes"], ["y"], keepdims=1)
        opset = 18
    else:
        inputs = [helper.make_tensor_value_info(f"x{i}", elem, list(x.shape)) for i, x in enumerate(xs)]
        init = []
        node = helper.make_node("Mean", [f"x{i}" for i in range(len(xs))], ["y"])
        opset = 13
    out = helper.make_tensor_value_info("y", elem, None)
    g = helper.make_graph([node], "bench", inputs, [out], initializer=init)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def out_shape(w: Workload, xs: list[np.ndarray]) -> tuple[int, ...]:
    if w.kind == "mean":
        return tuple(np.broadcast_shapes(*(x.shape for x in xs)))
    x = xs[0]
    axes = set(range(x.ndim)) if w.axes is None else {a % x.ndim for a in w.axes}
    return tuple(1 if d in axes else n for d, n in enumerate(x.shape))


def ort_session(w: Workload, xs: list[np.ndarray], threads: int) -> Any:
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(onnx_model(w, xs), so, providers=["CPUExecutionProvider"])


def ort_setup(w: Workload, xs: list[np.ndarray], threads: int) -> Callable[[], Any]:
    """onnxruntime's fastest documented path: io_binding with the inputs and a
    preallocated output bound once, then run_with_iobinding (no copies in or out)."""
    sess = ort_session(w, xs, threads)
    out = np.empty(out_shape(w, xs), dtype=xs[0].dtype)
    binding = sess.io_binding()
    for i, x in zip(sess.get_inputs(), xs, strict=True):
        binding.bind_cpu_input(i.name, x)
    binding.bind_output("y", "cpu", 0, out.dtype, out.shape, out.ctypes.data)

    def fn() -> np.ndarray:
        sess.run_with_iobinding(binding)
        return out

    return fn


def ov_config(w: Workload, threads: int) -> dict[str, Any]:
    """OpenVINO CPU settings for a latency run on ``threads`` threads (one stream);
    float inputs stay in f32 precision (the CPU plugin may otherwise lower to bf16)."""
    cfg: dict[str, Any] = {"INFERENCE_NUM_THREADS": threads, "NUM_STREAMS": 1, "PERFORMANCE_HINT": "LATENCY"}
    if w.dtype in (F32, F16, F64, "bfloat16"):
        cfg["INFERENCE_PRECISION_HINT"] = "f32"
    return cfg


def ov_inputs(w: Workload, xs: list[np.ndarray]) -> dict[int, Any]:
    import openvino as ov

    if w.dtype == "bfloat16":  # ml_dtypes' bfloat16 is not a numpy type OpenVINO knows: wrap its words
        return {i: ov.Tensor(x.view(np.uint16), x.shape, ov.Type.bf16) for i, x in enumerate(xs)}
    return dict(enumerate(xs))


def ov_setup(w: Workload, xs: list[np.ndarray], threads: int) -> Callable[[], Any]:
    """OpenVINO's fastest documented synchronous path: a static-shape model
    compiled once, one InferRequest, infer(inputs, share_inputs=True,
    share_outputs=True) (inputs used in place, the output returned as a view
    of OpenVINO's own buffer)."""
    import openvino as ov

    core = ov.Core()
    model = core.read_model(onnx_model(w, xs))  # static shapes; the ONNX frontend: Mean becomes Add + Divide
    compiled = core.compile_model(model, "CPU", ov_config(w, threads))
    req = compiled.create_infer_request()
    inputs = ov_inputs(w, xs)

    def fn() -> Any:
        return req.infer(inputs, share_inputs=True, share_outputs=True)[0]

    return fn


def meancli_setup(
    w: Workload, xs: list[np.ndarray], threads: int, new_out: bool = False
) -> Callable[[], Any]:
    # out=: one output array reused by every call, as the peers' bound outputs
    out = None if new_out else np.zeros(out_shape(w, xs), dtype=xs[0].dtype)
    if w.kind == "reduce":
        x, axes = xs[0], (list(w.axes) if w.axes is not None else None)
        return lambda: meancli.reduce_mean(x, axes=axes, keepdims=True, threads=threads, out=out)
    return lambda: meancli.mean(*xs, threads=threads, out=out)


NUMPY_PATH = (
    "numpy: np.mean(x, axis, keepdims=True, out=out) (float16: numpy accumulates in float32 itself; "
    "bfloat16: dtype=np.float32, the float32 result kept; int64: a float64 out); Mean: np.add into one "
    "reused out, then np.multiply by 1/n"
)


def numpy_setup(w: Workload, xs: list[np.ndarray]) -> Callable[[], Any]:
    """numpy's fastest correct call (NUMPY_PATH)."""
    if w.kind == "reduce":
        x, axes = xs[0], w.axes
        if w.dtype == "bfloat16":  # a bfloat16 sum in bfloat16 is wrong: numpy users accumulate in float32
            out32 = np.empty(out_shape(w, xs), dtype=np.float32)
            return lambda: np.mean(x, axis=axes, keepdims=True, dtype=np.float32, out=out32)
        out = np.empty(out_shape(w, xs), dtype=np.float64 if w.dtype == "int64" else x.dtype)
        return lambda: np.mean(x, axis=axes, keepdims=True, out=out)
    inv = 1.0 / len(xs)
    out = np.zeros(out_shape(w, xs), dtype=xs[0].dtype)  # reused, as the others' outputs

    def fn() -> np.ndarray:  # one output, added into in place
        np.add(xs[0], xs[1], out=out)
        for x in xs[2:]:
            np.add(out, x, out=out)
        np.multiply(out, inv, out=out)
        return out

    return fn


# Each peer called as its documentation shows, in a plain loop (no harness),
# built anew: printed beside the harness's number, so a reader sees the
# harness does not slow a peer down.


def plain_loop(call: Callable[[], Any], reps: int, warmup: int) -> float:
    """Median seconds of ``reps`` calls after ``warmup`` untimed ones (as the harness's blocks)."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def standalone_numpy(w: Workload, xs: list[np.ndarray], reps: int, warmup: int) -> float:
    x = xs[0]
    if w.kind == "mean":
        out = np.empty_like(x, shape=out_shape(w, xs))

        def call() -> None:
            np.add(xs[0], xs[1], out=out)
            for y in xs[2:]:
                np.add(out, y, out=out)
            np.multiply(out, 1.0 / len(xs), out=out)

        return plain_loop(call, reps, warmup)
    if w.dtype == "bfloat16":
        return plain_loop(lambda: x.mean(axis=w.axes, keepdims=True, dtype=np.float32), reps, warmup)
    return plain_loop(lambda: x.mean(axis=w.axes, keepdims=True), reps, warmup)


def standalone_ort(w: Workload, xs: list[np.ndarray], threads: int, reps: int, warmup: int) -> float:
    sess = ort_session(w, xs, threads)
    io = sess.io_binding()
    for i, x in zip(sess.get_inputs(), xs, strict=True):
        io.bind_cpu_input(i.name, x)
    y = np.empty(out_shape(w, xs), xs[0].dtype)
    io.bind_output("y", "cpu", 0, y.dtype, y.shape, y.ctypes.data)
    return plain_loop(lambda: sess.run_with_iobinding(io), reps, warmup)


def standalone_ov(w: Workload, xs: list[np.ndarray], threads: int, reps: int, warmup: int) -> float:
    import openvino as ov

    compiled = ov.compile_model(ov.Core().read_model(onnx_model(w, xs)), "CPU", ov_config(w, threads))
    request = compiled.create_infer_request()
    inputs = ov_inputs(w, xs)
    return plain_loop(lambda: request.infer(inputs, share_inputs=True, share_outputs=True), reps, warmup)


def standalone(name: str, w: Workload, xs: list[np.ndarray], reps: int, warmup: int) -> float | None:
    """The plain-loop median of peer ``name``, or None when it has no kernel here."""
    try:
        if name == "numpy":
            return standalone_numpy(w, xs, reps, warmup)
        threads = int(name.split()[-1].rstrip("t"))
        if name.startswith("onnxruntime"):
            return standalone_ort(w, xs, threads, reps, warmup)
        if name.startswith("openvino"):
            return standalone_ov(w, xs, threads, reps, warmup)
    except Exception:
        return None
    return None


# --------------------------------------------------------------------------
# one large workload
# --------------------------------------------------------------------------


def meancli_variant_row(
    w: Workload, xs: list[np.ndarray], reps: int, warmup: int, ref: Any, label: str, note: str
) -> Row:
    """meancli 2t, information only, under a setting the caller has made (``label``)."""
    return run_contender(
        f"meancli {THREADS}t, {label}",
        lambda: meancli_setup(w, xs, THREADS),
        reps,
        warmup,
        ref,
        w.dtype,
        peer=False,
        note=f"info: {note}",
    )


def interleaved_block(
    fn: Callable[[], Any], settings: list[Callable[[], None]], reps: int, warmup: int
) -> tuple[list[list[float]], list[Any], float, int]:
    """Time ``fn`` under each of ``settings`` call by call: each repetition
    applies every setting in turn (the order reversed every other repetition)
    and times one call after it, so the settings' times are taken
    milliseconds apart and a drift of the machine's bandwidth (10-30% within
    a minute on a shared VM) falls on all of them alike. ``warmup`` calls
    under each setting first (the first one's result returned). Run again
    until quiet (until_quiet). Returns (times per setting, first results,
    that share, attempts)."""
    firsts: list[Any] = [None] * len(settings)

    def attempt() -> list[list[float]]:
        for k, apply in enumerate(settings):
            apply()
            for i in range(warmup):
                r = fn()
                if i == 0 and firsts[k] is None:
                    firsts[k] = np.array(r, copy=True)
        times: list[list[float]] = [[] for _ in settings]
        gc.collect()
        gc.disable()
        try:
            for rep in range(reps):
                order = range(len(settings)) if rep % 2 == 0 else reversed(range(len(settings)))
                for k in order:
                    settings[k]()
                    t0 = time.perf_counter()
                    fn()
                    times[k].append(time.perf_counter() - t0)
        finally:
            gc.enable()
        return times

    times, share, n = until_quiet(attempt)
    return times, firsts, share, n


def other_isa_row(w: Workload, xs: list[np.ndarray], reps: int, warmup: int, ref: Any) -> Row | None:
    """meancli on the other vector instruction set this CPU has (AVX2 where it
    picked AVX-512, AVX-512 where it picked AVX2), or None where there is
    none: the row shows whether the pick was right here. The two sets are
    timed alternately, call by call, in one block (``interleaved_block``):
    timed in blocks of their own, minutes apart, the ratio was the machine's
    bandwidth drift (W4's picked set read 52 ms, its other set 21 ms, in one
    run). The row's times are the other set's; its note gives the median of
    the calls' ratios, other set / picked set (at least 0.95: the pick was
    not more than 5% slower), which the JSON keeps as ``other_vs_picked``.
    Switching between calls is safe: each kernel call reads the level from a
    table as it dispatches and keeps nothing of it (templates/kernels.c.j2,
    meancli_use_isa)."""
    from meancli.generated.tables import ISA_NAMES

    from meancli import kernels

    # the set this workload's kernels run (a reduction of few rows or short
    # runs also runs the Mean unit kernels, whose set is named too if it differs)
    picked = kernels.isa(w.dtype, "mean" if w.kind == "mean" else "run")
    means = kernels.isa(w.dtype, "mean")
    runs = picked if means == picked else f"{picked}, its Mean unit kernels {means},"
    saved = kernels.isas_in_use()
    others = [name for name in kernels.supported_isas()[1:] if name != picked]  # vector sets
    if not others or picked == "portable":
        return None
    other = min(others, key=lambda name: abs(ISA_NAMES.index(name) - ISA_NAMES.index(picked)))

    def restore() -> None:
        for (kind, dtype), name in saved.items():
            kernels.use_isa(name, dtype, kind)

    name = f"meancli {THREADS}t, {other}"
    row = Row(name, peer=False)
    try:
        fn = meancli_setup(w, xs, THREADS)
        # 2x the repetitions: half the block's calls are the picked set's
        timed, firsts, row.foreign, row.attempts = interleaved_block(
            fn, [restore, lambda: kernels.use_isa(other)], max(reps, 10), max(warmup, 1)
        )
    except Exception as e:
        row.na = f"{type(e).__name__}: {first_line(e)}"
        log(f"    {name:14s} n/a: {row.na}")
        return row
    finally:
        restore()
    mine, row.times = timed
    row.vs_picked = statistics.median([o / p for o, p in zip(row.times, mine, strict=True)])
    if ref is not None:
        row.err = max_rel_err(firsts[1], ref, w.dtype)
    row.note = (
        f"info: the {other} kernels (meancli runs {runs} here), timed alternately with "
        f"{picked} call by call: {other} / {picked} {row.vs_picked:.2f} (median of {len(mine)} pairs; "
        f"{picked} median {statistics.median(mine) * 1e3:.2f} ms, min {min(mine) * 1e3:.2f} ms)"
    )
    log(
        f"    {name:14s} median {row.median * 1e3:9.3f} ms  min {row.min * 1e3:9.3f} ms"
        f"  vs {picked} alternated {row.vs_picked:.3f}"
        f" ({picked} median {statistics.median(mine) * 1e3:.3f} ms)" + noise_note(row)
    )
    return row


def mean_store_row(
    w: Workload, xs: list[np.ndarray], out_bytes: int, reps: int, warmup: int, ref: Any
) -> Row:
    """meancli with the Mean output written the other way: cached stores where
    this machine's threshold (its last-level cache size) streams it, streamed
    where it does not, so the table shows whether the threshold chose well."""
    from meancli import kernels

    threshold = kernels.mean_stream_bytes()
    streams = out_bytes >= threshold
    kernels.mean_stream_bytes(2**62 if streams else max(1, out_bytes))
    try:
        what = "cached stores" if streams else "non-temporal stores"
        note = (
            f"the {out_bytes / 2**20:.0f} MiB output with {what} (the threshold, "
            f"{threshold / 2**20:g} MiB, {'streams' if streams else 'caches'} it)"
        )
        return meancli_variant_row(w, xs, reps, warmup, ref, what, note)
    finally:
        kernels.mean_stream_bytes(threshold)


def run_workload(
    w: Workload, quick: bool, reps: int, warmup: int, probe: Probe, rounds: int = ROUNDS
) -> dict[str, Any]:
    shapes = w.quick_shapes if quick else w.shapes
    log(f"\n{w.name}: {w.title} {w.dtype} {shapes}")
    if w.dtype == "bfloat16" and BF16 is None:
        return {"name": w.name, "title": w.title, "skipped": "ml_dtypes is not installed"}
    xs = make_data(w, shapes, seed=sum(map(ord, w.name)))
    in_bytes = sum(x.nbytes for x in xs)
    oshape = out_shape(w, xs)
    out_bytes = int(np.prod(oshape)) * xs[0].itemsize
    moved = in_bytes + out_bytes
    ref = reference(w, xs)
    rows: list[Row] = []

    # the limit, before the contenders (and again after them: the faster one
    # counts): the inputs read and the output written once; a reduction's
    # output is most often too small to show, but W9's is a third of its input
    limit_out = np.empty(oshape, dtype=xs[0].dtype)
    limit_out.fill(0)
    limit_fn = probe.read_write_fn(xs, limit_out)
    limit_name = f"limit: {THREADS}t read + write"
    lim_a = Row(limit_name, peer=False, note="bench/readprobe.c")
    lim_a.times, lim_a.foreign, lim_a.attempts = quiet_block(limit_fn, reps, warmup)
    log(
        f"    {'limit (probe)':14s} median {lim_a.median * 1e3:9.3f} ms  min {lim_a.min * 1e3:9.3f} ms"
        + noise_note(lim_a)
    )

    setups: dict[str, Callable[[], Callable[[], Any]]] = {
        f"meancli {THREADS}t": lambda: meancli_setup(w, xs, THREADS),
        "numpy": lambda: numpy_setup(w, xs),
        **{f"onnxruntime {t}t": (lambda t=t: ort_setup(w, xs, t)) for t in (1, 2)},
        **{f"openvino {t}t": (lambda t=t: ov_setup(w, xs, t)) for t in (1, 2)},
    }
    rows.append(
        run_contender(f"meancli {THREADS}t", setups[f"meancli {THREADS}t"], reps, warmup, ref, w.dtype)
    )
    rows.append(
        run_contender(
            "meancli 1t",
            lambda: meancli_setup(w, xs, 1),
            reps,
            warmup,
            ref,
            w.dtype,
            peer=False,
            note="info: 1 thread",
        )
    )
    if w.kind == "mean":  # info: a new output array on each call (its pages fault in)
        rows.append(
            run_contender(
                f"meancli {THREADS}t, new out",
                lambda: meancli_setup(w, xs, THREADS, new_out=True),
                reps,
                warmup,
                ref,
                w.dtype,
                peer=False,
                note="info: a new output array each call (meancli.mean without out=)",
            )
        )
    if w.kind == "mean":  # info: the other side of the non-temporal store threshold
        rows.append(mean_store_row(w, xs, out_bytes, reps, warmup, ref))
    other = other_isa_row(w, xs, reps, warmup, ref)
    if other is not None:  # info: did the kernels pick the faster instruction set here?
        rows.append(other)
    for name in ("numpy", "onnxruntime 1t", "onnxruntime 2t", "openvino 1t", "openvino 2t"):
        row = run_contender(name, setups[name], reps, warmup, ref, w.dtype)
        if row.na is None:
            row.standalone = standalone(name, w, xs, reps, warmup)
            if row.standalone is not None:
                log(
                    f"    {'':14s} standalone {row.standalone * 1e3:9.3f} ms "
                    f"(harness / standalone {row.median / row.standalone:.2f})"
                )
        rows.append(row)
        gc.collect()

    lim_b = Row(limit_name, peer=False, note="bench/readprobe.c")
    lim_b.times, lim_b.foreign, lim_b.attempts = quiet_block(limit_fn, reps, warmup)
    log(
        f"    {'limit (probe)':14s} median {lim_b.median * 1e3:9.3f} ms  min {lim_b.min * 1e3:9.3f} ms"
        + noise_note(lim_b)
        + " (after)"
    )
    limit_row = min((lim_a, lim_b), key=lambda r: r.median)
    extra: list[Row] = []
    if (
        w.kind == "mean"
    ):  # info: the same probe writing a new output each call, as meancli.mean without out= does
        fresh = Row(
            "limit, new out",
            peer=False,
            note="info: the probe writing into a new np.empty output each call (as meancli 2t, new out)",
        )
        fresh.times, fresh.foreign, fresh.attempts = quiet_block(
            probe.read_write_fn(xs, limit_out, fresh=True), reps, warmup
        )
        log(f"    {'limit new out':14s} median {fresh.median * 1e3:9.3f} ms" + noise_note(fresh))
        extra.append(fresh)

    # a peer whose result is wrong (max rel err > WRONG) does not set the bar
    for r in rows:
        if r.peer and r.err is not None and not r.err <= WRONG:
            r.peer = False
            r.note = f"wrong result (max rel err > {WRONG:g}): not counted as a peer"
    peers = [r for r in rows if r.peer and r.na is None and not r.contender.startswith("meancli")]
    best = min(peers, key=lambda r: r.median) if peers else None
    best_note = ""
    if best is None:  # no peer gave a correct result: compare with the fastest one all the same
        ran = [
            r
            for r in rows
            if r.na is None and not r.contender.startswith("meancli") and r.note.startswith("wrong")
        ]
        best = min(ran, key=lambda r: r.median) if ran else None
        if best is not None:
            best_note = "no peer gave a correct result; compared with the fastest wrong one"
    me = rows[0]

    # the verdict: the limit, meancli and the best peer in alternated rounds
    per_round: dict[str, Any] = {}
    if me.na is None:
        fns = [limit_fn, setups[me.contender]()]
        if best is not None:
            fns.append(setups[best.contender]())
        t = alternated(fns, reps, rounds)
        per_round = {
            "limit_ms": [v * 1e3 for v in t[0]],
            "meancli_ms": [v * 1e3 for v in t[1]],
            "vs_limit": [m / lim for m, lim in zip(t[1], t[0], strict=True)],
        }
        if best is not None:
            per_round["best_peer_ms"] = [v * 1e3 for v in t[2]]
            per_round["vs_best_peer"] = [p / m for p, m in zip(t[2], t[1], strict=True)]
            per_round["best_peer_vs_limit"] = [p / lim for p, lim in zip(t[2], t[0], strict=True)]
        log(
            f"    alternated     vs limit {' '.join(f'{r:.2f}' for r in per_round['vs_limit'])}"
            + (
                f"  vs {best.contender} {' '.join(f'{r:.2f}' for r in per_round['vs_best_peer'])}"
                if best
                else ""
            )
        )
        del fns
    xs.clear()  # the arrays go now (the closures that held them are gone)
    del limit_fn, limit_out, setups
    gc.collect()
    out_rows = []
    for r in [limit_row, *rows, *extra]:
        d: dict[str, Any] = {
            "contender": r.contender,
            "peer": r.peer and not r.contender.startswith("meancli"),
            "note": r.note,
        }
        if r.na is not None:
            d["na"] = r.na
        else:
            d.update(
                median_ms=r.median * 1e3,
                min_ms=r.min * 1e3,
                times_ms=[t * 1e3 for t in r.times],
                gbps=moved / r.median / 1e9,
                vs_best_peer=(best.median / r.median) if best else None,
                vs_limit=r.median / limit_row.median,
                max_rel_err=r.err,
                cpu_wait_share=r.foreign,
                attempts=r.attempts,
                standalone_ms=r.standalone * 1e3 if r.standalone is not None else None,
            )
            if r.vs_picked is not None:
                d["other_vs_picked"] = r.vs_picked
        out_rows.append(d)
    verdict: dict[str, Any] = {}
    if me.na is None:
        # judged on the alternated rounds (median of the per-round ratios)
        speedup = statistics.median(per_round["vs_best_peer"]) if best else None
        peer_at_limit = statistics.median(per_round["best_peer_vs_limit"]) if best else None
        vs_limit = statistics.median(per_round["vs_limit"])
        verdict["best_peer"] = best.contender if best else None
        verdict["best_peer_note"] = best_note
        verdict["speedup_vs_best_peer"] = speedup
        verdict["best_peer_vs_limit"] = peer_at_limit
        verdict.update(peer_verdict(speedup, peer_at_limit))
        verdict["vs_limit"] = vs_limit
        verdict["limit_target"] = w.limit_factor
        verdict["limit_ok"] = bool(vs_limit <= w.limit_factor)
        verdict["rounds"] = per_round
    else:
        verdict["error"] = me.na
    return {
        "name": w.name,
        "title": w.title,
        "kind": w.kind,
        "dtype": w.dtype,
        "shapes": [list(s) for s in shapes],
        "axes": list(w.axes) if w.axes is not None else None,
        "out_shape": list(oshape),
        "bytes_in": in_bytes,
        "bytes_out": out_bytes,
        "bytes_moved": moved,
        "rows": out_rows,
        "verdict": verdict,
    }


PEER_TARGET = 1.1  # meancli at least this much faster than the best correct peer,
PEER_AT_LIMIT = 1.15  # or, where that peer runs within this factor of the read limit,
PEER_LEVEL = 1.05  # at most this much slower than it


def peer_verdict(speedup: float | None, peer_vs_limit: float | None) -> dict[str, Any]:
    """The peer target: >= PEER_TARGET faster than the best correct peer, or
    within PEER_LEVEL of it where that peer is within PEER_AT_LIMIT of the
    read limit (no kernel can then be much faster). ``speedup`` = peer time /
    meancli time; ``peer_vs_limit`` = peer time / limit time."""
    if speedup is None:
        return {"peer_ok": True, "peer_clause": "no peer"}
    if speedup >= PEER_TARGET:
        return {"peer_ok": True, "peer_clause": f">= {PEER_TARGET}x faster"}
    at_limit = peer_vs_limit is not None and peer_vs_limit <= PEER_AT_LIMIT
    if at_limit:
        ok = speedup >= 1 / PEER_LEVEL
        return {
            "peer_ok": bool(ok),
            "peer_clause": f"peer at {peer_vs_limit:.2f}x the limit: within {PEER_LEVEL}x of it",
        }
    return {"peer_ok": False, "peer_clause": f"peer at {peer_vs_limit:.2f}x the limit: needs {PEER_TARGET}x"}


# --------------------------------------------------------------------------
# --skipna (NAN-*): float32 with 1% NaN
# --------------------------------------------------------------------------

SKIPNA_TARGET = 1.3  # at most this times the same reduction without --skipna


def run_skipna(w: Workload, quick: bool, reps: int, rounds: int) -> dict[str, Any]:
    """meancli's --skipna on float32 data with 1% NaN against the same call
    without it (on the same data, and on the data with every NaN replaced by
    1.0), np.nanmean and dask.array.nanmean (threaded scheduler, 2 threads,
    chunks of about 64 MiB along axis 0): each timed in ``rounds``
    alternated rounds; a ratio is the median of the per-round ratios."""
    log(f"\n{w.name}: {w.title}")
    shapes = w.quick_shapes if quick else w.shapes
    xs = make_nan_data(w, shapes, seed=7)
    clean = [np.where(np.isnan(x), np.float32(1), x) for x in xs]
    fns: dict[str, Callable[[], Any]] = {}
    if w.kind == "reduce":
        (x,) = xs
        axes = tuple(range(x.ndim)) if w.axes is None else tuple(a % x.ndim for a in w.axes)
        out = np.empty(tuple(1 if d in axes else n for d, n in enumerate(x.shape)), np.float32)

        def me(data: np.ndarray, skipna: bool) -> Callable[[], Any]:
            return lambda: meancli.reduce_mean(
                data, list(axes), True, threads=THREADS, out=out, skipna=skipna
            )

        fns["meancli --skipna 2t"] = me(x, True)
        fns["meancli 2t, no --skipna (same data)"] = me(x, False)
        fns["meancli 2t, no --skipna (NaN replaced)"] = me(clean[0], False)
        fns["numpy nanmean"] = lambda: np.nanmean(x, axis=axes, keepdims=True)
        stacked: np.ndarray | None = None
    else:
        out = np.empty(xs[0].shape, np.float32)
        fns["meancli --skipna 2t"] = lambda: meancli.mean(*xs, threads=THREADS, out=out, skipna=True)
        fns["meancli 2t, no --skipna (same data)"] = lambda: meancli.mean(*xs, threads=THREADS, out=out)
        fns["meancli 2t, no --skipna (NaN replaced)"] = lambda: meancli.mean(*clean, threads=THREADS, out=out)
        stacked = np.stack(xs)
        fns["numpy nanmean"] = lambda: np.nanmean(stacked, axis=0)
    try:
        import dask
        import dask.array as da

        if w.kind == "reduce":
            row = max(1, int(np.prod(x.shape[1:], dtype=np.int64)) * 4)
            dx = da.from_array(x, chunks=(max(1, (64 << 20) // row), *x.shape[1:]))

            def dask_fn() -> Any:
                with dask.config.set(scheduler="threads", num_workers=THREADS):
                    return da.nanmean(dx, axis=axes, keepdims=True).compute()
        else:
            assert stacked is not None
            rows8 = max(1, stacked.shape[1] // 8)
            dstack = da.from_array(stacked, chunks=(len(xs), rows8, *stacked.shape[2:]))

            def dask_fn() -> Any:
                with dask.config.set(scheduler="threads", num_workers=THREADS):
                    return da.nanmean(dstack, axis=0).compute()

        fns["dask nanmean 2 threads"] = dask_fn
    except ImportError as e:
        log(f"    dask: n/a ({first_line(e)})")
    # the exact answer (float64 nanmean of float32 values is within 1e-12 of it here)
    if w.kind == "reduce":
        ref = np.nanmean(x.astype(np.float64), axis=axes, keepdims=True)
    else:
        assert stacked is not None
        ref = np.nanmean(stacked.astype(np.float64), axis=0)
    errs = {}
    for name, fn in fns.items():
        y = np.asarray(fn(), dtype=np.float64).reshape(ref.shape)
        with np.errstate(all="ignore"):
            rel = np.abs(y - ref) / np.maximum(np.abs(ref), 1e-30)
        errs[name] = None if "no --skipna" in name else float(np.nanmax(rel))  # other data or other semantics
    names = list(fns)
    medians = alternated([fns[n] for n in names], reps, rounds)
    mine = medians[0]
    rows = []
    for name, m in zip(names, medians, strict=True):
        ratios = [a / b for a, b in zip(m, mine, strict=True)]
        rows.append(
            {
                "contender": name,
                "median_ms": statistics.median(m) * 1e3,
                "rounds_ms": [t * 1e3 for t in m],
                "vs_skipna": statistics.median(ratios),
                "max_rel_err": errs[name],
            }
        )
        median = statistics.median(m) * 1e3
        log(f"    {name:42s} median {median:9.2f} ms  x{statistics.median(ratios):.2f} of --skipna")
    by = {r["contender"]: r for r in rows}
    over_plain = 1 / by["meancli 2t, no --skipna (same data)"]["vs_skipna"]
    over_clean = 1 / by["meancli 2t, no --skipna (NaN replaced)"]["vs_skipna"]
    peers = {n: by[n]["vs_skipna"] for n in ("numpy nanmean", "dask nanmean 2 threads") if n in by}
    return {
        "name": w.name,
        "title": w.title,
        "dtype": w.dtype,
        "rows": rows,
        "verdict": {
            "skipna_over_plain": over_plain,
            "skipna_over_plain_clean": over_clean,
            "peers_over_skipna": peers,
            "target": SKIPNA_TARGET,
            "ok": over_plain <= SKIPNA_TARGET and all(v > 1 for v in peers.values()),
        },
    }


# --------------------------------------------------------------------------
# W8, the CLI and --version
# --------------------------------------------------------------------------


def per_call(stmt: Callable[[], Any], number: int, repeat: int) -> list[float]:
    for _ in range(max(number // 10, 10)):
        stmt()
    return [t / number for t in timeit.repeat(stmt, number=number, repeat=repeat)]


def run_w8(quick: bool) -> dict[str, Any]:
    log("\nW8: tiny (3,2,2), axis 1, Python API call")
    x = (np.arange(12, dtype=np.float32).reshape(3, 2, 2) + 0.5).astype(np.float32)
    ref = x.astype(np.float64).mean(axis=1, keepdims=True)
    number, repeat = (200, 3) if quick else (20000, 15)
    rows = []

    def add(name: str, stmt: Callable[[], Any], note: str = "") -> None:
        try:
            y = stmt()
            a = sched_snapshot()
            t = per_call(stmt, number, repeat)
            share = wait_share(a, sched_snapshot())
        except Exception as e:
            rows.append({"contender": name, "na": f"{type(e).__name__}: {first_line(e)}"})
            return
        err = max_rel_err(np.asarray(y).reshape(ref.shape), ref, F32)
        rows.append(
            {
                "contender": name,
                "median_us": statistics.median(t) * 1e6,
                "min_us": min(t) * 1e6,
                "max_rel_err": err,
                "note": note,
                "cpu_wait_share": share,
            }
        )
        log(
            f"    {name:30s} median {statistics.median(t) * 1e6:8.2f} us  min {min(t) * 1e6:8.2f} us"
            f"  cpu-wait {share:.0%}"
        )

    w = Workload("W8", "", "reduce", F32, [x.shape], [x.shape], (1,))
    add("meancli reduce_mean", lambda: meancli.reduce_mean(x, axes=[1]), "default threads and keepdims")
    add("numpy np.mean", lambda: np.mean(x, axis=1))
    for t in (1, 2):
        try:
            f = ort_setup(w, [x], t)
            add(f"onnxruntime {t}t", f)
        except Exception as e:
            rows.append({"contender": f"onnxruntime {t}t", "na": first_line(e)})
    for t in (1, 2):
        try:
            f = ov_setup(w, [x], t)
            add(f"openvino {t}t", f)
        except Exception as e:
            rows.append({"contender": f"openvino {t}t", "na": first_line(e)})
    me = next(r for r in rows if r["contender"].startswith("meancli"))
    npr = next(r for r in rows if r["contender"].startswith("numpy"))
    ratio = me["median_us"] / npr["median_us"] if "median_us" in me and "median_us" in npr else None
    for r in rows:
        if "median_us" in r:
            r["vs_numpy"] = r["median_us"] / npr["median_us"]
    return {
        "name": "W8",
        "title": "tiny (3,2,2), axis 1, Python API",
        "rows": rows,
        "verdict": {"meancli_over_numpy": ratio, "target": 1.5, "ok": ratio is not None and ratio <= 1.5},
    }


def time_pair(cmds: list[list[str]], runs: int, env: dict[str, str]) -> tuple[list[list[float]], float]:
    """Wall times of `runs` runs of each command, interleaved (a b a b ...) so
    that drift in the machine's load hits both alike, after one warm-up run of
    each; and the share of the CPUs other processes took meanwhile."""
    for cmd in cmds:  # warm-up, and a check that it works
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    times: list[list[float]] = [[] for _ in cmds]
    a = cpu_snapshot()
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
            times[i].append(time.perf_counter() - t0)
    return times, foreign_share(a, cpu_snapshot())


def venv_tool(name: str) -> Path | None:
    p = Path(sys.executable).parent / name
    return p if p.exists() else None


def process_rows(
    names: list[str], shown: list[str], times: list[list[float]], others: float
) -> list[dict[str, Any]]:
    rows = []
    for name, cmd, t in zip(names, shown, times, strict=True):
        rows.append(
            {
                "contender": name,
                "cmd": cmd,
                "median_ms": statistics.median(t) * 1e3,
                "min_ms": min(t) * 1e3,
                "times_ms": [x * 1e3 for x in t],
                "others_cpu_share": others,
            }
        )
        log(f"    {name:32s} median {statistics.median(t) * 1e3:8.1f} ms  min {min(t) * 1e3:8.1f} ms")
    log(f"    (other processes took {others:.0%} of the CPUs meanwhile)")
    return rows


def run_cli(quick: bool) -> dict[str, Any]:
    log("\nCLI: whole process, reduce-mean of a float32 .npy in page cache, axes 2 3, keep dims")
    exe = venv_tool("meancli")
    if exe is None:
        return {"name": "CLI", "skipped": f"no meancli next to {sys.executable}"}
    shape = (2, 64, 56, 56) if quick else (32, 256, 56, 56)
    runs = 1 if quick else 10
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="meancli-bench-cli-") as d:
        p, o1, o2 = Path(d) / "x.npy", Path(d) / "out.npy", Path(d) / "out_numpy.npy"
        np.save(p, (np.random.default_rng(8).random(shape, dtype=np.float32) + 0.5))
        p.read_bytes()  # into the page cache
        margs = ["reduce-mean", "x.npy", "--axes", "2", "3", "--keep-dims", "-o", "out.npy", "--quiet"]
        mcmd = [str(exe), *[str(p) if a == "x.npy" else str(o1) if a == "out.npy" else a for a in margs]]
        script = "import numpy as np; x=np.load(p); np.save(o, x.mean(axis=(2,3), keepdims=True))"
        ncmd = [sys.executable, "-c", script.replace("(p)", f"({str(p)!r})").replace("(o,", f"({str(o2)!r},")]
        times, others = time_pair([mcmd, ncmd], runs, env)
        rows = process_rows(
            ["meancli reduce-mean", "python + numpy"], ["meancli " + " ".join(margs), script], times, others
        )
        ref = np.load(p).astype(np.float64).mean(axis=(2, 3), keepdims=True)
        rows[0]["max_rel_err"] = max_rel_err(np.load(o1), ref, F32)
        rows[1]["max_rel_err"] = max_rel_err(np.load(o2), ref, F32)
        # meancli's own account of where the time went (information)
        own: Any = None
        try:
            r = subprocess.run([*mcmd[:-1], "--json"], env=env, capture_output=True, text=True, check=True)
            own = json.loads(r.stdout.strip().splitlines()[-1]).get("timings_ms")
        except Exception as e:
            own = f"unavailable: {first_line(e)}"
        size = p.stat().st_size
    ratio = rows[0]["median_ms"] / rows[1]["median_ms"]
    return {
        "name": "CLI",
        "file_bytes": size,
        "shape": list(shape),
        "rows": rows,
        "meancli_json_timings_ms": own,
        "verdict": {"meancli_over_numpy": ratio, "target": 1.0, "ok": ratio <= 1.0},
    }


ONEFILE_TARGET = 1.3  # the whole process for one small file, against the numpy one-liner
MANY_TARGET = 10.0  # N files in one command against N invocations


def run_onefile(quick: bool) -> dict[str, Any]:
    """The whole process for one (1,3,224,224) float32 .npy: what start-up costs."""
    log("\nONEFILE: whole process, reduce-mean of one (1,3,224,224) float32 .npy, axes 2 3")
    exe = venv_tool("meancli")
    if exe is None:
        return {"name": "ONEFILE", "skipped": f"no meancli next to {sys.executable}"}
    shape = (1, 3, 224, 224)
    runs = 1 if quick else 15
    with tempfile.TemporaryDirectory(prefix="meancli-bench-one-") as d:
        p, o1, o2 = Path(d) / "x.npy", Path(d) / "out.npy", Path(d) / "out_numpy.npy"
        np.save(p, np.random.default_rng(11).random(shape, dtype=np.float32))
        margs = ["reduce-mean", "x.npy", "--axes", "2", "3", "--keep-dims", "-o", "out.npy", "--quiet"]
        mcmd = [str(exe), *[str(p) if a == "x.npy" else str(o1) if a == "out.npy" else a for a in margs]]
        script = "import numpy as np; np.save(out, np.load(x).mean(axis=(2,3), keepdims=True))"
        ncmd = [
            sys.executable,
            "-c",
            script.replace("(out,", f"({str(o2)!r},").replace("(x)", f"({str(p)!r})"),
        ]
        times, others = time_pair([mcmd, ncmd], runs, dict(os.environ))
        rows = process_rows(
            ["meancli reduce-mean", "python + numpy"], ["meancli " + " ".join(margs), script], times, others
        )
        ref = np.load(p).astype(np.float64).mean(axis=(2, 3), keepdims=True)
        rows[0]["max_rel_err"] = max_rel_err(np.load(o1), ref, F32)
        rows[1]["max_rel_err"] = max_rel_err(np.load(o2), ref, F32)
    ratio = rows[0]["median_ms"] / rows[1]["median_ms"]
    return {
        "name": "ONEFILE",
        "heading": f"one float32 {shape} .npy, {int(np.prod(shape)) * 4 / 1e6:.1f} MB",
        "runs": runs,
        "rows": rows,
        "verdict": {"meancli_over_numpy": ratio, "target": ONEFILE_TARGET, "ok": ratio <= ONEFILE_TARGET},
    }


def run_many(quick: bool) -> dict[str, Any]:
    """N (3,224,224) float32 files: one `meancli reduce-mean` of all of them
    against N invocations of one file each (start-up paid once against N times)."""
    n = 4 if quick else 100
    log(f"\nMANY: {n} files of (3,224,224) float32, one command against {n} invocations")
    exe = venv_tool("meancli")
    if exe is None:
        return {"name": "MANY", "skipped": f"no meancli next to {sys.executable}"}
    runs = 1 if quick else 3
    rng = np.random.default_rng(12)
    with tempfile.TemporaryDirectory(prefix="meancli-bench-many-") as d:
        root = Path(d)
        (root / "one").mkdir()
        (root / "each").mkdir()
        files = [root / f"t{i:03d}.npy" for i in range(n)]
        for f in files:
            np.save(f, rng.random((3, 224, 224), dtype=np.float32))
        opts = ["--axes", "1", "2", "--quiet"]
        one = [str(exe), "reduce-mean", *map(str, files), *opts, "-o", str(root / "one" / "{stem}.npy")]
        each = [[str(exe), "reduce-mean", str(f), *opts, "-o", str(root / "each" / f.name)] for f in files]
        times: list[list[float]] = [[], []]
        a = cpu_snapshot()
        for _ in range(runs):  # alternated: one command, then the n invocations
            t0 = time.perf_counter()
            subprocess.run(one, check=True, stdout=subprocess.DEVNULL)
            times[0].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            for cmd in each:
                subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            times[1].append(time.perf_counter() - t0)
        others = foreign_share(a, cpu_snapshot())
        rows = process_rows(
            ["one command", f"{n} invocations"],
            [f"meancli reduce-mean t000.npy ... ({n} files) --axes 1 2 -o 'one/{{stem}}.npy'",
             f"for f in t*.npy: meancli reduce-mean $f --axes 1 2 -o each/$f ({n} processes)"],
            times,
            others,
        )  # fmt: skip
        worst = 0.0
        for f in files:
            got, alone = np.load(root / "one" / f.name), np.load(root / "each" / f.name)
            if got.tobytes() != alone.tobytes():
                raise RuntimeError(f"MANY: {f.name}: one command and its own invocation differ")
            ref = np.load(f).astype(np.float64).mean(axis=(1, 2), keepdims=True)
            worst = max(worst, max_rel_err(got, ref, F32))
        rows[0]["max_rel_err"] = rows[1]["max_rel_err"] = worst
    speedup = rows[1]["median_ms"] / rows[0]["median_ms"]
    return {
        "name": "MANY",
        "heading": f"{n} float32 (3,224,224) .npy files; outputs bit-identical between the two",
        "files": n,
        "runs": runs,
        "rows": rows,
        "verdict": {"speedup": speedup, "target": MANY_TARGET, "ok": speedup >= MANY_TARGET},
    }


def run_mem(quick: bool) -> dict[str, Any]:
    """Peak resident memory of the CLI streaming a 4 GiB .npy (256 MiB with --quick)."""
    log("\nMEM: peak resident memory of meancli reduce-mean on a large float32 .npy (streamed)")
    exe = venv_tool("meancli")
    if exe is None:
        return {"name": "MEM", "skipped": f"no meancli next to {sys.executable}"}
    rows_n = 64 if quick else 1024
    shape = (rows_n, 1024, 1024)
    out_rows = []
    with tempfile.TemporaryDirectory(prefix="meancli-bench-mem-", dir=str(HERE)) as d:
        p = Path(d) / "big.npy"
        header = np.lib.format.header_data_from_array_1_0(np.empty((0,), np.float32))
        header["shape"] = shape
        row = np.random.default_rng(9).random((1024, 1024), dtype=np.float32)
        with open(p, "wb") as fp:
            np.lib.format.write_array_header_1_0(fp, header)
            for _ in range(rows_n):
                fp.write(row.tobytes())
        size = p.stat().st_size
        script = (
            "import resource, subprocess, sys, time\n"
            "t = time.perf_counter(); subprocess.run(sys.argv[1:], check=True)\n"
            "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        )
        for axes in (["0"], ["1", "2"], ["2"]):
            cmd = [str(exe), "reduce-mean", str(p), "--axes", *axes, "-o", str(Path(d) / "o.npy"), "--quiet"]
            r = subprocess.run(
                [sys.executable, "-c", script, *cmd], capture_output=True, text=True, check=True
            )
            seconds, kib = r.stdout.split()
            out_bytes = np.load(Path(d) / "o.npy").nbytes
            out_rows.append(
                {
                    "command": "meancli reduce-mean big.npy --axes " + " ".join(axes),
                    "seconds": float(seconds),
                    "peak_rss_mib": int(kib) / 1024,
                    "output_mib": out_bytes / 2**20,
                }
            )
            log(f"    --axes {' '.join(axes)}: {float(seconds):.2f} s, peak RSS {int(kib) / 1024:.0f} MiB")
    return {"name": "MEM", "file_bytes": size, "shape": list(shape), "rows": out_rows}


def run_version(quick: bool) -> dict[str, Any]:
    log("\nVERSION: meancli --version against python -c 'import numpy'")
    exe = venv_tool("meancli")
    if exe is None:
        return {"name": "VERSION", "skipped": f"no meancli next to {sys.executable}"}
    runs = 1 if quick else 10
    cmds = [[str(exe), "--version"], [sys.executable, "-c", "import numpy"], [sys.executable, "-c", "pass"]]
    times, others = time_pair(cmds, runs, dict(os.environ))
    rows = process_rows(
        ["meancli --version", "python -c 'import numpy'", "python -c 'pass' (info)"],
        ["meancli --version", "python -c 'import numpy'", "python -c 'pass'"],
        times,
        others,
    )
    ratio = rows[0]["median_ms"] / rows[1]["median_ms"]
    return {
        "name": "VERSION",
        "rows": rows,
        "verdict": {"meancli_over_import_numpy": ratio, "target": 1.3, "ok": ratio <= 1.3},
    }


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------


def fmt(v: Any, spec: str, na: str = "") -> str:
    return na if v is None else format(v, spec)


def yes(ok: Any) -> str:
    return "**yes**" if ok else "**NO**"


def markdown(results: list[dict[str, Any]], meta: dict[str, Any]) -> str:
    L = ["# meancli benchmark results", ""]
    L.append(
        f"Generated by `bench/bench.py{meta['args']}` on {meta['date']}. Machine: {meta['cpu']}, "
        f"{meta['cores']} cores, CPU flags: {meta['cpu_flags']}; meancli kernels: {meta['isa']}. "
        f"Python {meta['python']}, numpy {meta['numpy']}, "
        f"onnxruntime {meta['onnxruntime']}, "
        f"OpenVINO {meta['openvino']}; meancli {meta['meancli']} at {meta['git']} "
        f"(kernels.c sha256 {meta['kernel_sha256'][:12]}). Environment: {meta['env_note']}. "
        f"Repetitions: {meta['reps']} after {meta['warmup']} warm-up calls. The machine is shared: the run "
        f"waited {meta.get('waited_for_quiet_s', 0)} s in all for other processes to leave the CPUs alone; "
        f"{meta.get('priority', '')}."
    )
    L.append("")
    if meta.get("quick"):
        L += [
            "**A --quick run: small sizes, 2 repetitions and 1 round check that every path runs; "
            "its numbers and verdicts say nothing about speed.**",
            "",
        ]
    L.append(
        "Columns: median and min of the timed calls; GB/s = bytes moved / median (input + output bytes); "
        "*vs best peer* = best peer's median / this median (meancli's target: >= 1.1); "
        "*vs limit* = this median / the limit's median (target <= 1.25; float16/bfloat16 <= 1.5); "
        "max rel err against a float64 reference (long double for float64 inputs). Peers: numpy, onnxruntime "
        "1t/2t, OpenVINO 1t/2t, each on its fastest documented path (onnxruntime: io_binding with the "
        "inputs and a preallocated output bound once, run_with_iobinding; OpenVINO: a static-shape model "
        "compiled once, `infer(inputs, share_inputs=True, share_outputs=True)`, INFERENCE_NUM_THREADS 1/2, "
        f"one stream, LATENCY hint, f32 precision; {NUMPY_PATH}). *standalone ms*: the same peer built "
        "anew and called as its documentation shows in a plain timing loop, no harness (median after one "
        "warm-up): the harness's number should not be above it by more than the noise. "
        "meancli writes into one output array reused by every call (`out=`), as they do, and "
        "Mean workloads also show it allocating a new output each call (info). A peer whose max rel err "
        f"exceeds {WRONG:g} is shown but not counted. `meancli 1t` and the `limit` rows are information, "
        "not peers. "
        f"A block whose threads waited for a CPU (taken by other processes) more than {NOISY:.0%} of "
        f"their runnable time ran again (up to {ATTEMPTS} times; the quietest counts); notes show waits "
        "of 3% or more. CLI rows show the share of the CPUs other processes took meanwhile."
    )
    L.append("")
    L.append(
        "| workload | contender | median ms | min ms | standalone ms | GB/s | vs best peer | vs limit "
        "| max rel err | notes |"
    )
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for res in results:
        if res["name"] in EXTRA or res["name"].startswith("NAN-") or "rows" not in res:
            continue
        wl = f"**{res['name']}** {res['dtype']} {res['title']}"
        for r in res["rows"]:
            if "na" in r:
                L.append(f"| {wl} | {r['contender']} | n/a | | | | | | | {r['na']} |")
            else:
                notes = [r["note"]] if r.get("note") else []
                if r.get("cpu_wait_share", 0) >= 0.03:
                    notes.append(f"waited for a CPU {r['cpu_wait_share']:.0%} of the time")
                if r.get("attempts", 1) > 1:
                    notes.append(f"quietest of {r['attempts']} blocks")
                name = f"**{r['contender']}**" if r["contender"] == f"meancli {THREADS}t" else r["contender"]
                L.append(
                    f"| {wl} | {name} | {r['median_ms']:.2f} | {r['min_ms']:.2f} "
                    f"| {fmt(r.get('standalone_ms'), '.2f')} | {r['gbps']:.1f} "
                    f"| {fmt(r['vs_best_peer'], '.2f')} | {r['vs_limit']:.2f} "
                    f"| {fmt(r.get('max_rel_err'), '.1e')} "
                    f"| {'; '.join(notes)} |"
                )
            wl = ""
    L.append("")
    nan_results = [res for res in results if res["name"].startswith("NAN-")]
    if nan_results:
        L += [
            "## --skipna: float32 with 1% NaN",
            "",
            f"Each contender timed in {meta['rounds']} alternated rounds ({meta['reps']} calls after 1 "
            "warm-up each); *x of --skipna* is the median of the per-round ratios of its time to meancli "
            "--skipna's. `no --skipna (same data)`: the same call without --skipna on the same data (its "
            "results are NaN where a value is); `(NaN replaced)`: on the data with every NaN replaced by "
            "1.0. numpy: `np.nanmean(x, axis, keepdims=True)`; dask: `da.nanmean` on 64 MiB chunks, "
            "threaded scheduler, 2 threads. max rel err against a float64 nanmean.",
            "",
            "| workload | contender | median ms | x of --skipna | max rel err |",
            "|---|---|---:|---:|---:|",
        ]
        for res in nan_results:
            wl = f"**{res['name']}** {res['title']}"
            for r in res["rows"]:
                L.append(
                    f"| {wl} | {r['contender']} | {r['median_ms']:.2f} | {r['vs_skipna']:.2f} "
                    f"| {fmt(r.get('max_rel_err'), '.1e')} |"
                )
                wl = ""
        L.append("")
    for res in results:
        if res["name"] == "W8":
            L += [
                "## W8: tiny (3,2,2), axis 1, Python API call",
                "",
                "| contender | median us | min us | vs numpy | max rel err | waited for a CPU |",
                "|---|---:|---:|---:|---:|---:|",
            ]
            for r in res["rows"]:
                if "na" in r:
                    L.append(f"| {r['contender']} | n/a | | | {r['na']} |")
                else:
                    L.append(
                        f"| {r['contender']} | {r['median_us']:.2f} | {r['min_us']:.2f} "
                        f"| {r['vs_numpy']:.2f} "
                        f"| {r['max_rel_err']:.1e} | {r['cpu_wait_share']:.0%} |"
                    )
            L.append("")
        elif res["name"] == "MEM" and "rows" in res:
            L += [
                f"## MEM: peak resident memory streaming a {res['file_bytes'] / 2**30:.1f} GiB float32 "
                f"{tuple(res['shape'])} .npy (target: under 256 MiB plus the output)",
                "",
                "| command | seconds | peak RSS MiB | output MiB | met |",
                "|---|---:|---:|---:|---|",
            ]
            for r in res["rows"]:
                ok = r["peak_rss_mib"] < 256 + r["output_mib"]
                L.append(
                    f"| `{r['command']}` | {r['seconds']:.2f} | {r['peak_rss_mib']:.0f} "
                    f"| {r['output_mib']:.1f} | {'yes' if ok else '**NO**'} |"
                )
            L.append("")
        elif res["name"] in ("CLI", "VERSION", "ONEFILE", "MANY") and "rows" in res:
            L += [
                f"## {res['name']}: whole process, median of {res.get('runs', meta['runs'])} runs"
                + (
                    f" ({res['heading']})"
                    if "heading" in res
                    else ""
                    if res["name"] == "VERSION"
                    else f" ({res['file_bytes'] / 1e6:.0f} MB float32 {tuple(res['shape'])} .npy"
                    " in page cache)"
                ),
                "",
                "The commands run interleaved (one of each in turn).",
                "",
                "| command | median ms | min ms | others' CPU share |",
                "|---|---:|---:|---:|",
            ]
            for r in res["rows"]:
                L.append(
                    f"| `{r.get('cmd', r['contender'])}` | {r['median_ms']:.1f} | {r['min_ms']:.1f} "
                    f"| {r['others_cpu_share']:.0%} |"
                )
            if res.get("meancli_json_timings_ms") is not None:
                L += [
                    "",
                    "meancli's own `--json` timings of one run (ms): "
                    f"`{json.dumps(res['meancli_json_timings_ms'])}`",
                ]
            L.append("")
    L += [
        "## Targets",
        "",
        f"Large workloads are judged on {meta['rounds']} alternated rounds run after the table above: "
        "in each round the limit, meancli 2t and the best peer run one block each (1 warm-up, "
        f"{meta['reps']} timed calls), seconds apart; *measured* is the median of the per-round "
        "ratios (each round's in parentheses). The table's single blocks are minutes apart, and "
        "this machine's memory bandwidth drifts by 10-30% in that time.",
        "",
        "| workload | target | measured | met |",
        "|---|---|---:|---|",
    ]
    for res in results:
        v = res.get("verdict", {})
        n = res["name"]
        if n.startswith("NAN-"):
            peers = ", ".join(f"{k} {x:.2f}x slower" for k, x in v["peers_over_skipna"].items())
            L.append(
                f"| {n} | --skipna <= {v['target']}x the same call without it; ahead of np.nanmean and dask "
                f"| {v['skipna_over_plain']:.2f}x ({v['skipna_over_plain_clean']:.2f}x of it on the data "
                f"without NaN); {peers} | {yes(v['ok'])} |"
            )
        elif n in ("W8",):
            L.append(
                f"| W8 | API call <= 1.5x np.mean | {fmt(v['meancli_over_numpy'], '.2f')}x | {yes(v['ok'])} |"
            )
        elif n == "CLI":
            L.append(
                f"| CLI | whole process <= python+numpy | {v['meancli_over_numpy']:.2f}x | {yes(v['ok'])} |"
            )
        elif n == "ONEFILE":
            L.append(
                f"| ONEFILE | whole process <= {v['target']}x the numpy one-liner "
                f"| {v['meancli_over_numpy']:.2f}x | {yes(v['ok'])} |"
            )
        elif n == "MANY":
            L.append(
                f"| MANY | {res['files']} files in one command >= {v['target']}x faster than "
                f"{res['files']} invocations | {v['speedup']:.1f}x | {yes(v['ok'])} |"
            )
        elif n == "VERSION":
            L.append(
                f"| --version | <= 1.3x `python -c 'import numpy'` | {v['meancli_over_import_numpy']:.2f}x "
                f"| {yes(v['ok'])} |"
            )
        elif "error" in v:
            L.append(f"| {n} | - | meancli failed: {v['error']} | **NO** |")
        elif v:
            extra = f"; {v['best_peer_note']}" if v.get("best_peer_note") else ""
            r = v.get("rounds", {})

            def each(key: str, r: dict[str, Any] = r) -> str:
                return f" ({', '.join(f'{x:.2f}' for x in r[key])})" if key in r else ""

            L.append(
                f"| {n} | >= {PEER_TARGET}x faster than best peer ({v['best_peer']}{extra}), or within "
                f"{PEER_LEVEL}x of it where it is within {PEER_AT_LIMIT}x of the limit "
                f"| {fmt(v['speedup_vs_best_peer'], '.2f')}x{each('vs_best_peer')}; "
                f"{v.get('peer_clause', '')} | {yes(v['peer_ok'])} |"
            )
            L.append(
                f"| {n} | <= {v['limit_target']}x the {THREADS}-thread limit | {v['vs_limit']:.2f}x"
                f"{each('vs_limit')} | {yes(v['limit_ok'])} |"
            )
    L.append("")
    return "\n".join(L)


def kernel_isa() -> str:
    """The instruction set meancli's kernels run here (``meancli.kernels.isa()``),
    and the Mean output size from which they stream their stores."""
    from meancli.generated.tables import ISA_GROUPS

    from meancli import kernels
    from meancli.kernels import isa_choice

    stream = kernels.mean_stream_bytes()
    in_use = kernels.isas_in_use()
    if len(set(in_use.values())) == 1:
        sets = next(iter(in_use.values()))
    else:  # ReduceMean's run kernels, then the Mean unit kernels, per dtype
        sets = "; ".join(
            f"{label} " + ", ".join(f"{dtype} {name}" for (k, dtype), name in in_use.items() if k == kind)
            for kind, label in (("run", "reductions"), ("mean", "Mean"))
        )
    choice = kernels.isa_report()
    why = {
        "measured": "measured in this run",
        "cache": f"measured once on this machine, cached in {choice.path}",
        "MEANCLI_ISA": "named by MEANCLI_ISA",
        "cpu": "the only vector set of this CPU",
    }[choice.source]
    times = "; ".join(
        f"{kind} {dtype} "
        + " vs ".join(f"{name} {seconds[name] * 1e3:.2f}" for name in sorted(seconds))
        + f" ms: {level}"
        for (kind, dtype), level, seconds in zip(ISA_GROUPS, choice.levels, choice.seconds, strict=True)
        if seconds
    )
    return (
        f"{sets} ({why}{': ' + times if times else ''}; "
        f"the widest set unless a narrower one took less than 1/{1 + isa_choice.NARROWER_GAIN:.2f} "
        "of its time, by the median of alternated rounds' ratios); "
        f"Mean streams outputs of {stream / 2**20:g} MiB or more (last-level cache)"
    )


def machine_meta(args: argparse.Namespace) -> dict[str, Any]:
    import onnxruntime
    import openvino

    cpu, flags = cpu_info()
    try:
        git = subprocess.run(
            ["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except Exception:
        git = "?"
    argv = " ".join(sys.argv[1:])
    try:
        from meancli.generated.tables import KERNEL_SOURCE_SHA256 as kernel_sha
    except ImportError:
        kernel_sha = "?"
    return {
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "cpu": cpu,
        "cpu_flags": " ".join(flags) or "none of " + " ".join(FLAGS_THAT_MATTER),
        "isa": kernel_isa(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "onnxruntime": onnxruntime.__version__,
        "openvino": openvino.__version__.split("-")[0],
        "meancli": meancli.__version__,
        "git": git,
        "kernel_sha256": kernel_sha,
        "env_note": ENV_NOTE,
        "reps": args.reps,
        "warmup": args.warmup,
        "runs": 1 if args.quick else 10,
        "quick": args.quick,
        "args": (" " + argv) if argv else "",
    }


def raise_priority(nice: int) -> str:
    """The machine is shared: run at a higher CPU priority. Linux schedules
    sessions (autogroups) against each other before nice values count, so
    this process runs in a session of its own (run_in_own_session) and sets
    that session's nice value and its own; threads started later (OpenMP,
    onnxruntime and OpenVINO pools) and the CLI timings' processes inherit it."""
    if nice == 0:
        return "priority unchanged (--nice 0)"
    done = []
    try:
        Path("/proc/self/autogroup").write_text(f"{nice}\n")
        done.append(f"its session (autogroup) at nice {nice}")
    except OSError as e:
        done.append(f"autogroup unchanged ({e.strerror})")
    try:
        os.setpriority(os.PRIO_PROCESS, 0, nice)
        done.append(f"the process at nice {os.getpriority(os.PRIO_PROCESS, 0)}")
    except OSError as e:
        done.append(f"nice unchanged ({e.strerror})")
    return "priority: " + ", ".join(done)


def run_in_own_session() -> int:
    """Run this script again as a child in a new session (so raising the
    priority touches nothing else), pass on Ctrl-C and SIGTERM, return its status."""
    env = dict(os.environ, MEANCLI_BENCH_CHILD="1")
    child = subprocess.Popen([sys.executable, *sys.argv], env=env, start_new_session=True)

    def forward(signum: int, _frame: Any) -> None:
        child.send_signal(signum)

    signal.signal(signal.SIGTERM, forward)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:
            child.send_signal(signal.SIGINT)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--quick",
        action="store_true",
        default=os.environ.get(QUICK_ENV, "0") not in ("", "0"),
        help=f"small sizes, 2 repetitions, 1 round, no waiting, no priority change, no MEM: a smoke run "
        f"of every path in seconds (also {QUICK_ENV}=1)",
    )
    ap.add_argument("--only", default="", help=f"comma-separated workloads, of: {','.join(ALL_NAMES)}")
    ap.add_argument(
        "--reps", type=int, default=None, help="timed calls per contender (default 10; --quick 2)"
    )
    ap.add_argument(
        "--warmup", type=int, default=None, help="untimed calls before them (default 2; --quick 1)"
    )
    ap.add_argument(
        "--wait-budget",
        type=float,
        default=None,
        help="seconds the whole run may spend waiting for other processes to leave the CPUs "
        f"alone before timed blocks (default {Quiet.budget:g}, --quick 0; 0: never wait)",
    )
    ap.add_argument(
        "--nice",
        type=int,
        default=None,
        help="nice value to run at (default -20, which needs root; --quick 0; 0 leaves it alone)",
    )
    ap.add_argument(
        "--out",
        default=None,
        help="directory for results.md and results.json (default: bench/ for a full run; "
        "a --quick or --only run writes none unless this is given)",
    )
    args = ap.parse_args()
    if args.reps is None:
        args.reps = 2 if args.quick else 10
    if args.warmup is None:
        args.warmup = 1 if args.quick else 2
    if args.quick:
        Quiet.attempts = 1
    if args.nice is None:
        args.nice = 0 if args.quick else -20
    rounds = 1 if args.quick else ROUNDS
    wanted = [s.strip() for s in args.only.split(",") if s.strip()] or [
        n for n in ALL_NAMES if not (args.quick and n == "MEM")
    ]
    lower = {n.lower(): n for n in ALL_NAMES}
    bad = [s for s in wanted if s.lower() not in lower]
    if bad:
        ap.error(f"unknown workload(s) {', '.join(bad)}; known: {', '.join(ALL_NAMES)}")
    wanted = [lower[s.lower()] for s in wanted]
    if args.nice != 0 and "MEANCLI_BENCH_CHILD" not in os.environ:
        return run_in_own_session()
    nice_note = raise_priority(args.nice)
    log(f"bench: {nice_note}")
    Quiet.budget = args.wait_budget if args.wait_budget is not None else (0.0 if args.quick else Quiet.budget)
    log(f"bench: {ENV_NOTE}")
    meta = machine_meta(args)
    meta["priority"] = nice_note
    meta["rounds"] = rounds
    log(f"bench: {meta['cpu']}; CPU flags: {meta['cpu_flags']}; meancli kernels: {meta['isa']}")
    probe = Probe()
    log(f"bench: read probe compiled: {probe.cmd}")
    meta["probe"] = probe.cmd
    results: list[dict[str, Any]] = []
    for w in WORKLOADS:
        if w.name in wanted:
            results.append(run_workload(w, args.quick, args.reps, args.warmup, probe, rounds))
            gc.collect()
    for w in SKIPNA_WORKLOADS:
        if w.name in wanted:
            results.append(run_skipna(w, args.quick, args.reps, rounds))
            gc.collect()
    if "W8" in wanted:
        results.append(run_w8(args.quick))
    if "CLI" in wanted:
        results.append(run_cli(args.quick))
    if "ONEFILE" in wanted:
        results.append(run_onefile(args.quick))
    if "MANY" in wanted:
        results.append(run_many(args.quick))
    if "VERSION" in wanted:
        results.append(run_version(args.quick))
    if "MEM" in wanted:
        results.append(run_mem(args.quick))
    meta["waited_for_quiet_s"] = round(Quiet.waited, 1)
    md = markdown(results, meta)
    print(md)
    data = json.dumps({"meta": meta, "results": results}, indent=1)
    if args.out is not None:  # one run's tables, where the caller asked
        d = Path(args.out)
        d.mkdir(parents=True, exist_ok=True)
        write_tables(d / "results", md, data)
    elif not (args.quick or args.only):  # a full run: this machine's tables, beside the other machines'
        write_tables(HERE / "results" / machine_slug(), md, data)
        (HERE / "results.md").write_text(results_index(HERE / "results"), encoding="utf-8")
        log(f"bench: wrote {HERE / 'results.md'}")
    return 0


def write_tables(stem: Path, md: str, data: str) -> None:
    """``stem``.md and ``stem``.json, each whole or not at all."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    for suffix, text in ((".md", md), (".json", data)):
        tmp = stem.with_name(stem.name + suffix + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(stem.with_name(stem.name + suffix))
    log(f"bench: wrote {stem}.md and {stem}.json")


def results_index(folder: Path) -> str:
    """bench/results.md: every machine's latest tables (bench/results/<machine>.md), newest
    first by the date each run recorded (a clone's file times say nothing)."""

    def recorded(md: Path) -> str:
        try:
            return str(json.loads(md.with_suffix(".json").read_text(encoding="utf-8"))["meta"]["date"])
        except (OSError, ValueError, KeyError):
            return ""

    runs = sorted(folder.glob("*.md"), key=lambda p: (recorded(p), p.name), reverse=True)
    lines = [
        "# meancli benchmark results, by machine",
        "",
        "Each machine's latest full `make bench` (`bench/results/<machine>.md` and `.json`, the",
        "machine named by its CPU model with its family and model numbers, widest vector set",
        "and last-level cache), newest first. A run replaces its own machine's tables and keeps",
        "the others'. `amd-epyc-zen4-...` was recorded before the names held those numbers.",
        "",
    ]
    lines += [f"- [{p.stem}](results/{p.name})" for p in runs]
    for p in runs:
        body = p.read_text(encoding="utf-8").splitlines()
        lines += ["", f"# {p.stem}", ""] + [
            ("#" + line) if line.startswith("#") else line for line in body[1:]
        ]
    return "\n".join(lines).rstrip("\n") + "\n"


if __name__ == "__main__":
    sys.exit(main())
