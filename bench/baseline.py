"""Benign-data speed against earlier kernels: meancli's time on the large
workloads of bench/bench.py (W1-W7b, on the same data) over the time of the
kernels at an earlier commit, built here from git, measured in the same run.

One worker process per build holds every workload's data. For each
round and workload the two workers time it back to back (old, new; the
next round new, old): 2 warm-up calls, then the best of --reps calls with
--threads threads, writing into one reused output (out=) as bench/bench.py
times meancli. Back to back, both builds meet the machine in about the same
state: this VM's memory bandwidth drifts by tens of percent within minutes,
and a comparison of separate whole runs (or each build's best over the
rounds) moved memory-bound ratios by up to 2x. The table gives the median
over the rounds of each round's ratio; the target (issue "Correctly
rounded, always") is new/old <= 1.05.

Run: python bench/baseline.py [--rev REV] [--rounds R] [--threads T] [--only W1,W5]
REV defaults to the last commit before the exact kernels.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
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


def serve(names: list[str], threads: int, reps: int, quick: bool) -> None:
    """A worker: makes the data of every workload once, says where its
    meancli lives, then answers each workload name read from stdin with the
    best ms of `reps` calls (after 2 warm-up calls), one JSON line each."""
    import meancli

    calls: dict[str, tuple[Callable[[np.ndarray | None], np.ndarray], np.ndarray]] = {}
    for w in (w for w in WORKLOADS if w.name in names):
        call = _call(w, make_data(w, w.quick_shapes if quick else w.shapes, seed=0), threads)
        calls[w.name] = (call, call(None))
    print(json.dumps({"meancli": str(Path(meancli.__file__).parent)}), flush=True)
    for line in sys.stdin:
        call, out = calls[line.strip()]
        best = float("inf")
        for i in range(2 + reps):
            t = time.perf_counter()
            call(out)
            if i >= 2:
                best = min(best, time.perf_counter() - t)
        print(json.dumps(best * 1e3), flush=True)


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
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--only", default=",".join(NAMES), help="comma-separated workloads")
    ap.add_argument(
        "--quick", action="store_true", help="small sizes (every path in seconds; timings mean nothing)"
    )
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    names = [n for n in args.only.split(",") if n]
    if args.worker:
        serve(names, args.threads, args.reps, args.quick)
        return
    rev = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", args.rev], check=True, capture_output=True, text=True
    ).stdout.strip()
    here = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    cmd = [sys.executable, __file__, "--worker", "--only", ",".join(names)]
    cmd += ["--threads", str(args.threads), "--reps", str(args.reps)] + (["--quick"] if args.quick else [])
    ms: dict[str, dict[str, list[float]]] = {b: {n: [] for n in names} for b in ("old", "new")}
    with tempfile.TemporaryDirectory(prefix="meancli-baseline-") as tmp, ExitStack() as stack:
        old_tree = build(rev, Path(tmp))
        env_new = dict(os.environ)
        env_new.pop("PYTHONPATH", None)
        workers: dict[str, subprocess.Popen[str]] = {}
        for b, env in (("old", dict(os.environ, PYTHONPATH=str(old_tree))), ("new", env_new)):
            workers[b] = stack.enter_context(
                subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            )
            stack.callback(workers[b].kill)  # also when a round fails; a no-op after a clean exit
            where = Path(json.loads(_answer(workers[b]))["meancli"])
            if (b == "old") != (where.parent == old_tree):
                raise SystemExit(f"baseline: the {b} worker imported meancli from {where}")
        for r in range(args.rounds):
            for n in names:
                for b in ("old", "new") if r % 2 == 0 else ("new", "old"):
                    w = workers[b]
                    assert w.stdin is not None
                    w.stdin.write(n + "\n")
                    w.stdin.flush()
                    ms[b][n].append(float(json.loads(_answer(w))))
        for w in workers.values():
            assert w.stdin is not None
            w.stdin.close()
    print(f"Benign speed against the kernels of {rev} on {cpu_info()[0]}: meancli at {here},")
    print(f"{args.threads} threads; per round and workload, the best of {args.reps} calls of each build,")
    print(f"back to back (order alternated); {args.rounds} rounds; medians over the rounds\n")
    print("| workload | earlier ms | now ms | now / earlier | rounds' range | within 1.05x |")
    print("|---|---:|---:|---:|---:|---|")
    for n in names:
        old, new = ms["old"][n], ms["new"][n]
        ratios = [b / a for a, b in zip(old, new, strict=True)]
        ratio = statistics.median(ratios)
        met = "yes" if ratio <= TARGET else "**no**"
        print(
            f"| {n} | {statistics.median(old):.2f} | {statistics.median(new):.2f} | {ratio:.2f} "
            f"| {min(ratios):.2f}-{max(ratios):.2f} | {met} |"
        )


def _answer(worker: subprocess.Popen[str]) -> str:
    """The worker's next line; a worker that died ends the run."""
    assert worker.stdout is not None
    line = worker.stdout.readline()
    if not line:
        raise SystemExit(f"baseline: a worker ended with status {worker.wait()}")
    return line


if __name__ == "__main__":
    main()
