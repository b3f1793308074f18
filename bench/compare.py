"""What --compare (and --runtime, check-onnx, check-model) costs beside the plain run,
for inputs from memory: the workloads of bench/workloads.py whose results are large
(W7: Mean of 4 x (16,3,512,512), W9: (4194304,3) axis -1) and two with small results
(W1, W2), each compared with a copy of the correctly rounded result (identical) and
with one where 90% of the elements are 1 or 2 ulp off.

The plain run is meancli.mean / meancli.reduce_mean on arrays in memory; the
comparison is meancli.engine.compare.compare of the result with the other array (what
the command line runs after the plain run): of a result computed before the timed
rounds (out of the caches), and, last column, of the result the run just wrote, timed
with that run (the command line's order: run, then compare). Each is timed
alternately, the minimum of REPS rounds kept. The issue's target: plain + compare <=
1.3 x plain.

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

import meancli
from meancli.engine.compare import compare as compare_arrays

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
    bits = np.ascontiguousarray(y).view(uint).copy()
    moved = rng.random(y.shape) < 0.9
    bits[moved] += rng.integers(1, 3, int(moved.sum())).astype(uint)
    return bits.view(y.dtype)


def row(w: Any, xs: list[np.ndarray], reps: int, threads: int | None) -> None:
    """One workload's line of the table (``threads``: the run's and the comparison's; None: every core)."""

    def run() -> Any:
        if w.kind == "mean":
            return meancli.mean(*xs, threads=threads)
        return meancli.reduce_mean(xs[0], axes=w.axes, keepdims=True, threads=threads)

    def compare(y: np.ndarray, other: np.ndarray, against: str) -> Any:
        return compare_arrays(y, other, against, threads=threads)

    y = np.asarray(run())
    same, near = y.copy(), off_by_one_or_two(y, 27)
    plain, identical, differ, then = best(
        [
            run,
            lambda: compare(y, same, "same"),
            lambda: compare(y, near, "near"),
            lambda: compare(np.asarray(run()), near, "near"),
        ],
        reps,
    )
    print(
        f"| {w.name} | {y.size} | {plain:.1f} | {identical:.1f} | {(plain + identical) / plain:.2f} "
        f"| {differ:.1f} | {(plain + differ) / plain:.2f} | {then:.1f} | {then / plain:.2f} |"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="the workloads' quick shapes")
    ap.add_argument("--reps", type=int, default=5)
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
        "| workload | result elements | plain ms | compare identical ms | x | compare 1-2 ulp ms | x "
        "| run, then compare 1-2 ulp ms | x |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for w in WORKLOADS:
        if w.name in NAMES:
            row(w, make_data(w, w.quick_shapes if quick else w.shapes, seed=27), args.reps, args.threads)
    print()
    print(f"target: x <= {TARGET}; load average {os.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
