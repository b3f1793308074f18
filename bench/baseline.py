"""Benign-data speed against earlier kernels: meancli's time on the large
workloads of bench/bench.py (W1-W7b, on the same data) over the time of the
kernels at an earlier commit, built here from git, measured in the same run.

Each round runs one process per build, alternated (old, new; then new, old;
...). A process times every workload: 2 warm-up calls, then the best of
--reps calls with --threads threads, writing into one reused output (out=)
as bench/bench.py times meancli. The table takes each build's best over the
rounds; the target (issue "Correctly rounded, always") is new/old <= 1.05.

Run: python bench/baseline.py [--rev REV] [--rounds R] [--threads T] [--only W1,W5]
REV defaults to the last commit before the exact kernels.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from machine import cpu_info  # bench/, this script's directory
from workloads import WORKLOADS, Workload, make_data

ROOT = Path(__file__).resolve().parents[1]
BEFORE_EXACT = "0ac6716"  # the last commit whose kernels were not always exact
NAMES = ["W1", "W1-bf16", "W2", "W3", "W4", "W5", "W6", "W6b", "W7", "W7b", "W9", "W9-f64"]
TARGET = 1.05


def build(rev: str, dest: Path) -> Path:
    """The meancli package of commit `rev` with its kernels compiled by its
    own build script, under dest (to put on PYTHONPATH)."""
    tar = dest / "src.tar"
    subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", "-o", str(tar), rev], check=True)
    with tarfile.open(tar) as t:
        t.extractall(dest, filter="data")
    pkg = dest / "meancli"
    if not (pkg / "generated").exists():  # the generated sources, where that tree's package looked for them
        (pkg / "generated").symlink_to(dest / "generated")
    code = "import _ffi_build as b; b.ffibuilder.compile(tmpdir='build', verbose=False)"
    subprocess.run([sys.executable, "-c", code], cwd=pkg, check=True, capture_output=True)
    for so in (pkg / "build" / "meancli").glob("_kernels*.so"):
        shutil.copy(so, pkg)
    return dest


def time_workloads(names: list[str], threads: int, reps: int, quick: bool) -> dict[str, object]:
    """Best ms of each workload on the meancli this process imports."""
    import meancli

    res: dict[str, object] = {"meancli": str(Path(meancli.__file__).parent)}
    for w in (w for w in WORKLOADS if w.name in names):
        xs = make_data(w, w.quick_shapes if quick else w.shapes, seed=0)
        call = _call(w, xs, threads)
        out = call(None)
        best = float("inf")
        for i in range(2 + reps):
            t = time.perf_counter()
            call(out)
            if i >= 2:
                best = min(best, time.perf_counter() - t)
        res[w.name] = best * 1e3
        del xs, out
    return res


def _call(w: Workload, xs: list[np.ndarray], threads: int) -> Callable[[np.ndarray | None], np.ndarray]:
    """One call of the workload, writing into the given output (None: a new one)."""
    import meancli

    if w.kind == "mean":
        return lambda out: meancli.mean(*xs, threads=threads, out=out)
    axes = list(w.axes) if w.axes is not None else None
    return lambda out: meancli.reduce_mean(xs[0], axes=axes, keepdims=True, threads=threads, out=out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rev", default=BEFORE_EXACT, help=f"the earlier commit (default {BEFORE_EXACT})")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--only", default=",".join(NAMES), help="comma-separated workloads")
    ap.add_argument(
        "--quick", action="store_true", help="small sizes (every path in seconds; timings mean nothing)"
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n]
    if args.worker:
        print(json.dumps(time_workloads(names, args.threads, args.reps, args.quick)))
        return
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.rev], check=True, capture_output=True, text=True
    ).stdout.strip()
    here = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="meancli-baseline-") as tmp:
        old_tree = build(rev, Path(tmp))
        envs = {"old": dict(os.environ, PYTHONPATH=str(old_tree)), "new": dict(os.environ)}
        envs["new"].pop("PYTHONPATH", None)
        cmd = [sys.executable, __file__, "--worker", "--only", ",".join(names)]
        cmd += ["--threads", str(args.threads), "--reps", str(args.reps)] + (
            ["--quick"] if args.quick else []
        )
        best: dict[str, dict[str, float]] = {"old": {}, "new": {}}
        for r in range(args.rounds):
            for build_name in ("old", "new") if r % 2 == 0 else ("new", "old"):
                out = subprocess.run(cmd, env=envs[build_name], check=True, capture_output=True, text=True)
                res = json.loads(out.stdout.strip().splitlines()[-1])
                where = Path(str(res.pop("meancli")))
                if (build_name == "old") != (where.parent == old_tree):
                    raise SystemExit(f"baseline: the {build_name} run imported meancli from {where}")
                for n, ms in res.items():
                    best[build_name][n] = min(best[build_name].get(n, float("inf")), float(ms))
    print(f"Benign speed against the kernels of {rev} on {cpu_info()[0]}: meancli at {here},")
    print(f"{args.threads} threads, best of {args.reps} calls x {args.rounds} alternated rounds\n")
    print("| workload | earlier ms | now ms | now / earlier | within 1.05x |")
    print("|---|---:|---:|---:|---|")
    for n in names:
        old, new = best["old"][n], best["new"][n]
        met = "yes" if new / old <= TARGET else "**no**"
        print(f"| {n} | {old:.2f} | {new:.2f} | {new / old:.2f} | {met} |")


if __name__ == "__main__":
    main()
