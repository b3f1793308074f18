"""Adversarial-data speed of meancli's exact float means: GB/s per core.

Data where the fast block checks fail and the exact path does the work:
float32 values with exponents spread over +-60, float64 over +-500, each
value present with its negation elsewhere (the sum cancels to the few
values left over). Beside them, float32 normal values with 0.1% of them
scaled by 1e-9 (a block with one of them fails its one-sum check and is
summed in two parts), and the same normal values without: the cost of a
few tiny values in otherwise benign data. Prints a markdown table: the
CPU, threads 1 and 2, and GB/s per core (bytes read / seconds / threads),
best of several runs.

Run: python bench/adversarial.py [--values N] [--repeats R]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from machine import cpu_info  # bench/, this script's directory

import meancli

SPREAD = {"float32": 60, "float64": 500}


def adversarial(dtype: str, n: int, seed: int = 0) -> np.ndarray:
    """n values: mantissas in [1, 2), exponents uniform in +-SPREAD, random
    signs; the second half is the first half negated, then all shuffled,
    plus a few values that do not cancel."""
    rng = np.random.default_rng(seed)
    half = n // 2
    v = np.ldexp(rng.uniform(1.0, 2.0, half), rng.integers(-SPREAD[dtype], SPREAD[dtype] + 1, half))
    v *= rng.choice([-1.0, 1.0], half)
    x = np.concatenate([v, -v, rng.standard_normal(n - 2 * half)]).astype(dtype)
    x[rng.integers(0, n, 8)] = rng.standard_normal(8).astype(dtype)
    return x[rng.permutation(n)]


def sparse_tiny(n: int, seed: int = 0) -> np.ndarray:
    """n float32 normal values, 0.1% of them (random positions) times 1e-9."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n, dtype=np.float32)
    x[rng.choice(n, n // 1000, replace=False)] *= np.float32(1e-9)
    return x


def best_seconds(fn: object, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--values", type=int, default=1 << 25, help="values per array (default 2^25)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"Adversarial exact means on {cpu_info()[0]}\n")
    print("| dtype | data | workload | threads | GB/s per core |")
    print("|---|---|---|---|---|")
    datasets = [
        ("float32", "exponents +-60", adversarial("float32", args.values)),
        ("float64", "exponents +-500", adversarial("float64", args.values)),
        ("float32", "normal, 0.1% x 1e-9", sparse_tiny(args.values)),
        ("float32", "normal", np.random.default_rng(0).standard_normal(args.values, dtype=np.float32)),
    ]
    for dtype, kind, x in datasets:
        rows = x[: x.size // 64 * 64].reshape(-1, 64)
        for label, data, axes in (("reduce all", x, None), ("(n/64, 64) axis 0", rows, [0])):
            for threads in (1, 2):
                meancli.reduce_mean(data, axes=axes, threads=threads)  # warm up
                secs = best_seconds(
                    lambda d=data, a=axes, t=threads: meancli.reduce_mean(d, axes=a, threads=t), args.repeats
                )
                gbs = data.nbytes / secs / 1e9 / threads
                print(f"| {dtype} | {kind} | {label} | {threads} | {gbs:.2f} |")


if __name__ == "__main__":
    main()
