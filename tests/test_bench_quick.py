"""``bench/bench.py --quick`` runs every workload's code path (small sizes, one
round) and writes its tables, and ``bench/baseline.py --quick`` builds the
earlier kernels and times both builds, so the benchmarks cannot rot unnoticed
between the runs of ``make bench``. Their timings mean nothing and are not
checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench" / "bench.py"

# the relative size of one unit in the last place, for means in [0.5, 1.5)
ULP = {"float16": 2**-10, "bfloat16": 2**-7, "float32": 2**-23, "float64": 2**-52, "int64": 2e-6}

pytest.importorskip("onnxruntime")
pytest.importorskip("openvino")

pytestmark = pytest.mark.slow  # bench/bench.py --quick, bench/baseline.py --quick


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, object]]:
    out = tmp_path_factory.mktemp("bench")
    env = {**os.environ, "MEANCLI_BENCH_QUICK": "1"}  # the environment variable, as CI would set it
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=out,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return (out / "results.md").read_text(), json.loads((out / "results.json").read_text())


def test_every_workload_ran(quick_run: tuple[str, dict[str, object]]) -> None:
    _md, data = quick_run
    results = {r["name"]: r for r in data["results"]}  # type: ignore[attr-defined]
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_module", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # (its dataclasses look their module up)
    spec.loader.exec_module(bench)
    expected = [n for n in bench.ALL_NAMES if n != "MEM"]  # MEM writes 256 MiB: not in a quick run
    assert sorted(results) == sorted(expected)
    for w in bench.WORKLOADS:
        res = results[w.name]
        assert "skipped" not in res, res
        verdict = res["verdict"]
        assert "error" not in verdict, verdict
        assert {"peer_ok", "peer_clause", "limit_ok", "speedup_vs_best_peer", "vs_limit"} <= set(verdict)
        rows = {r["contender"]: r for r in res["rows"]}
        # meancli is within one unit in the last place of the reference (int64: truncation of a
        # mean near 1e6); every peer that ran has its standalone timing
        assert rows["meancli 2t"]["max_rel_err"] <= ULP[w.dtype], w.name
        for name in ("numpy", "onnxruntime 1t", "onnxruntime 2t", "openvino 1t", "openvino 2t"):
            if "na" not in rows[name]:
                assert rows[name]["standalone_ms"] is not None, (w.name, name)
    assert results["MANY"]["rows"][0]["max_rel_err"] < 1e-6
    assert results["ONEFILE"]["rows"][0]["max_rel_err"] < 1e-6


def test_importing_the_bench_leaves_the_process_itself() -> None:
    # bench.py runs itself again without OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE; done on
    # import, it replaced the test worker that loads it (test_every_workload_ran), and
    # the test run hung where the machine sets them
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('bench_module', {str(BENCH)!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules[spec.name] = module\n"
        "spec.loader.exec_module(module)\n"
        "print('still here', flush=True)\n"
    )
    env = {**os.environ, "OPENBLAS_CORETYPE": "Haswell", "OPENBLAS_L2_SIZE": "512"}
    env.pop("MEANCLI_BENCH_REEXEC", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert proc.returncode == 0 and proc.stdout == "still here\n", proc.stderr[-2000:]


def test_tables_name_the_machine_and_every_target(quick_run: tuple[str, dict[str, object]]) -> None:
    md, data = quick_run
    meta = data["meta"]  # type: ignore[index]
    assert meta["quick"] is True and meta["rounds"] == 1
    assert meta["cpu"] and meta["isa"]
    assert f"Machine: {meta['cpu']}" in md and f"meancli kernels: {meta['isa']}" in md
    assert "A --quick run" in md
    targets = md.split("## Targets", 1)[1]
    for name in ("W1", "W4-i64", "W7b", "W8", "CLI", "ONEFILE", "MANY", "--version"):
        lines = [line for line in targets.splitlines() if line.startswith(f"| {name} |")]
        assert lines and all(line.endswith(("| **yes** |", "| **NO** |")) for line in lines), name


@pytest.mark.build
def test_baseline_builds_the_earlier_kernels_and_times_both() -> None:
    """bench/baseline.py --quick: the earlier commit's kernels built from git and
    both builds timed on small data (the timings mean nothing; the run proves
    each side imported its own build)."""
    if subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", "0ac6716^{commit}"]).returncode:
        pytest.skip("no git history here (an archive, not a clone)")
    out = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "baseline.py"),
            "--quick",
            "--rounds",
            "1",
            "--reps",
            "1",
            "--only",
            "W1,W7b",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith(("| W1 ", "| W7b "))]
    assert len(rows) == 2, out.stdout
