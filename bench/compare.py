"""What --compare (and --runtime, check-onnx, check-model) costs beside the plain run,
for inputs from memory: the workloads of bench/workloads.py whose results are large
(W7: Mean of 4 x (16,3,512,512), W9: (4194304,3) axis -1) and two with small results
(W1, W2), each compared with a copy of the correctly rounded result (identical) and
with one where 90% of the elements are 1 or 2 ulp off.

The plain run is the memory engine's kernel call (meancli.engine.memory's
execute_mean / execute_reduce, what meancli.mean / meancli.reduce_mean and the command
line run). *Comparing* is what --compare runs: the same call given the comparison
(engine.compare.Tally), whose kernel compares the outputs as it writes them, still in
cache (a Mean whose output is streamed past the caches stages them, compares, then
streams them out), then the report. The last columns, for information, are the run followed by a
separate compare pass over its result (engine.compare.compare: what --runtime,
check-onnx and check-model run, and --compare ran before). Each is timed alternately,
the minimum of REPS rounds kept. The issue's target: comparing <= 1.3 x plain.

    .venv/bin/python bench/compare.py            # full sizes
    .venv/bin/python bench/compare.py --quick    # the quick shapes
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import cpu_info
from workloads import WORKLOADS, make_data

from meancli.engine.compare import Tally, compare
from meancli.engine.memory import execute_mean, execute_reduce
from meancli.ops.opset import find_op
from meancli.ops.rules import reduce_call

NAMES = ("W1", "W2", "W9", "W7")
TARGET = 1.3


def best(fns: list[Callable[[], Any]], reps: int) -> list[float]:
    """The fastest of ``reps`` rounds of each of ``fns`` (ms), the functions alternated."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(reps):
        for fn, kept in zip(fns, times, strict=True):
            t = time.perf_counter()
            fn()
            kept.append(time.perf_counter() - t)
    return [min(kept) * 1e3 for kept in times]


def off_by_one_or_two(y: np.ndarray, seed: int) -> np.ndarray:
    """``y`` with 90% of its elements moved 1 or 2 representable values (positive floats)."""
    rng = np.random.default_rng(seed)
    uint = {2: np.uint16, 4: np.uint32, 8: np.uint64}[y.dtype.itemsize]
    bits = np.asarray(y, order="C").view(uint).copy()
    moved = rng.random(y.shape) < 0.9
    bits[moved] += rng.integers(1, 3, int(moved.sum())).astype(uint)
    return bits.view(y.dtype)


def row(w: Any, xs: list[np.ndarray], reps: int, threads: int | None) -> None:
    """One workload's line of the table (``threads``: the run's and the comparison's; None: every core)."""
    if w.kind == "mean":
        op, shape = find_op("onnx:Mean:13"), np.broadcast_shapes(*(x.shape for x in xs))

        def run(check: Any = None) -> np.ndarray:
            return execute_mean(op, shape, xs, threads, check=check)
    else:
        op = find_op("onnx:ReduceMean:18")
        call = reduce_call(xs[0].shape, tuple(a % xs[0].ndim for a in w.axes), True, {})

        def run(check: Any = None) -> np.ndarray:
            return execute_reduce(op, call, xs[0], threads, check=check)

    def comparing(got: np.ndarray) -> Any:
        """What --compare runs: the kernel comparing as it writes, then the report."""
        tally = Tally(y.shape, y.dtype, got, "got", threads=threads)
        return tally.finish(run(tally))

    y = run()
    same, near = y.copy(), off_by_one_or_two(y, 27)
    assert repr(comparing(near)) == repr(compare(y, near, "got", threads=threads))
    plain, *timed = best(
        [
            run,
            lambda: comparing(same),
            lambda: comparing(near),
            lambda: compare(run(), same, "got", threads=threads),
            lambda: compare(run(), near, "got", threads=threads),
        ],
        reps,
    )
    print(
        f"| {w.name} | {y.size} | {plain:.1f} | "
        + " | ".join(f"{t:.1f} | {t / plain:.2f}" for t in timed)
        + " |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the workloads' quick shapes")
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--threads", type=int, default=None, help="the run's and the comparison's (default: all)")
    args = ap.parse_args()
    quick = args.quick or os.environ.get("MEANCLI_BENCH_QUICK") == "1"
    model, _ = cpu_info()
    print(
        f"# --compare beside the plain run (inputs in memory); {model}; {os.cpu_count()} CPUs; "
        f"{'every core' if args.threads is None else f'{args.threads} thread(s)'}; "
        f"load average {os.getloadavg()[0]:.1f} at start"
    )
    print()
    print(
        "| workload | result elements | plain ms | comparing, identical ms | x | comparing, 1-2 ulp ms | x "
        "| run, then a compare pass, identical ms | x | run, then a compare pass, 1-2 ulp ms | x |"
    )
    print("|---|---|---|" + "---|---|" * 4)
    for w in WORKLOADS:
        if w.name in NAMES:
            row(w, make_data(w, w.quick_shapes if quick else w.shapes, seed=27), args.reps, args.threads)
    print()
    print(f"target: x <= {TARGET}; load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
