"""Run meancli's C kernels under AddressSanitizer and UndefinedBehaviorSanitizer.

Usage (from the source tree, after ``make install``)::

    make sanitize                                  # the same as the next line
    .venv/bin/python tools/sanitize.py             # build, canary, exercise, fuzz tests
    .venv/bin/python tools/sanitize.py --keep      # keep the sanitized build (path printed)
    .venv/bin/python tools/sanitize.py --so PATH   # reuse that build (skips the ~1 min compile)
    .venv/bin/python tools/sanitize.py -- -x -k reduce   # arguments after -- go to pytest

What it does:

1. Builds ``generated/kernels.c`` with cffi into a temporary directory, with the
   exact cdef, sources and ``MEANCLI_SOURCE_SHA256`` define of
   ``meancli/_ffi_build.py`` (it loads that script with ``MEANCLI_EXTRA_CFLAGS``
   set to ``-fsanitize=address,undefined -fno-omit-frame-pointer -g``), so
   ``meancli.kernels`` accepts the sanitized module as its own.  The installed
   ``meancli/_kernels*.so`` is not touched.
2. Runs each check in a child Python with ``LD_PRELOAD=$(gcc -print-file-name=libasan.so)``,
   ``ASAN_OPTIONS=detect_leaks=0:...`` (the interpreter itself leaks) and
   ``UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1``.  The child puts the
   sanitized build in ``sys.modules['meancli._kernels']`` before meancli loads it
   and checks that meancli really uses it.
3. The checks:

   - canary: a kernel is handed an output buffer that is too small; ASan must
     report it.  This proves that the build is instrumented and the runtime is
     preloaded (a clean run would otherwise prove nothing).
   - exercise: every kernel symbol (every dtype of ReduceMean and Mean), rank 0,
     rank 64, size-0 dims, broadcasting (size-0 broadcasts too), C and Fortran
     order, non-contiguous and negative-stride views, misaligned data, random
     shapes and axes, inputs large enough for the parallel paths, threads 1 and
     2; every result is checked against numpy in float64 (exactly for integers).
   - pytest: ``tests/test_fuzz.py -k api`` (hypothesis: random shapes, strides,
     axes against numpy), plus any arguments given after ``--``.

The run fails (exit status 1) on any sanitizer report (``ERROR: AddressSanitizer``,
``runtime error:``), on a failing check or test, or when the canary goes
unreported; exit status 2 means the sanitized build could not be made (no C
compiler, no libasan).  OpenMP works under ASan with gcc.  ``--seed N`` fixes
the exercise's random cases (default 0).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BUILD_SCRIPT = ROOT / "meancli" / "_ffi_build.py"
SANITIZE_CFLAGS = "-fsanitize=address,undefined -fno-omit-frame-pointer -g -fno-sanitize-recover=undefined"
REPORT_MARKERS = (
    "ERROR: AddressSanitizer",
    "ERROR: LeakSanitizer",
    "runtime error:",
    "UndefinedBehaviorSanitizer",
)
ENV_SO = "MEANCLI_SANITIZED_SO"
PLUGIN_NAME = "meancli_sanitized_plugin"


# --------------------------------------------------------------------------- parent side


def build(workdir: Path, *, verbose: bool) -> Path:
    """Compile the kernels with the sanitizers into ``workdir``; return the module's path."""
    extra = os.environ.get("MEANCLI_EXTRA_CFLAGS", "")
    os.environ["MEANCLI_EXTRA_CFLAGS"] = f"{extra} {SANITIZE_CFLAGS}".strip()
    try:
        spec = importlib.util.spec_from_file_location("_meancli_ffi_build_sanitized", BUILD_SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # reads the cdef and MEANCLI_EXTRA_CFLAGS now
    finally:
        os.environ["MEANCLI_EXTRA_CFLAGS"] = extra
    if verbose:
        return Path(module.ffibuilder.compile(tmpdir=str(workdir), verbose=True))
    # setuptools prints every command; keep it unless the build fails
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / "build.log"
    saved = os.dup(1), os.dup(2)
    with open(log, "w") as out:
        os.dup2(out.fileno(), 1)
        os.dup2(out.fileno(), 2)
        try:
            return Path(module.ffibuilder.compile(tmpdir=str(workdir), verbose=False))
        except BaseException:
            sys.stdout.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            sys.stderr.write(log.read_text(errors="replace")[-6000:])
            raise
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def libasan() -> str:
    """The ASan runtime to preload (the compiler's own, so the versions match)."""
    cc = os.environ.get("CC", "gcc").split()[0]
    try:
        out = subprocess.run(
            [cc, "-print-file-name=libasan.so"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"error: cannot ask {cc} where libasan.so is: {exc}") from None
    if not os.path.isabs(out) or not os.path.exists(out):
        raise SystemExit(f"error: {cc} knows no libasan.so (got {out!r}); install libasan")
    return os.path.realpath(out)


def child_env(so_path: Path, plugin_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "LD_PRELOAD": libasan(),
            "ASAN_OPTIONS": "detect_leaks=0:allocator_may_return_null=1:halt_on_error=1"
            ":abort_on_error=0:print_summary=1",
            "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
            ENV_SO: str(so_path),
            "PYTHONPATH": os.pathsep.join(filter(None, [str(plugin_dir), env.get("PYTHONPATH")])),
            "PYTHONFAULTHANDLER": "1",
        }
    )
    env.pop("MEANCLI_EXTRA_CFLAGS", None)
    return env


def run_child(title: str, argv: list[str], env: dict[str, str], *, expect_report: bool = False) -> bool:
    """Run ``argv``, echoing its output; True if it passed (see ``expect_report``)."""
    print(f"== {title}", flush=True)
    start = time.monotonic()
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    assert proc.stdout is not None
    reports: list[str] = []
    for line in proc.stdout:
        if not expect_report:
            sys.stdout.write(line)
        if any(marker in line for marker in REPORT_MARKERS):
            reports.append(line.rstrip())
    rc = proc.wait()
    elapsed = time.monotonic() - start
    if expect_report:
        ok = rc != 0 and any("AddressSanitizer" in r for r in reports)
        verdict = "reported as it must be" if ok else "NOT reported: the build is not instrumented"
        print(f"   canary {verdict} (exit status {rc}, {elapsed:.1f} s)", flush=True)
        return ok
    ok = rc == 0 and not reports
    if ok:
        print(f"   ok ({elapsed:.1f} s)", flush=True)
    else:
        print(f"   FAILED: exit status {rc}, {len(reports)} sanitizer report line(s)", flush=True)
        for line in reports[:5]:
            print(f"     {line}", flush=True)
    return ok


def has_ubsan(so_path: Path) -> bool:
    """True if the module calls UBSan's handlers (the -fsanitize=undefined instrumentation)."""
    return b"__ubsan_handle_" in so_path.read_bytes()


PLUGIN_SOURCE = f'''"""pytest plugin written by tools/sanitize.py: use the sanitized kernels."""
import os, sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
import sanitize
sanitize.install(os.environ[{ENV_SO!r}])
'''


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keep", action="store_true", help="keep the sanitized build directory")
    parser.add_argument("--verbose", action="store_true", help="show the compiler commands")
    parser.add_argument("--seed", type=int, default=0, help="seed of the exercise's random cases")
    parser.add_argument("--no-pytest", action="store_true", help="skip the pytest stage")
    parser.add_argument("--so", type=Path, help="reuse a sanitized module kept by an earlier --keep")
    parser.add_argument("--child", choices=("canary", "exercise"), help=argparse.SUPPRESS)
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    if args.child:
        install(os.environ[ENV_SO])
        return canary() if args.child == "canary" else exercise(args.seed)

    workdir = Path(tempfile.mkdtemp(prefix="meancli-sanitize-"))
    try:
        if args.so:
            so_path = args.so.resolve()
            print(f"== reusing {so_path}", flush=True)
        else:
            print(f"== building the kernels with {SANITIZE_CFLAGS} in {workdir}", flush=True)
            start = time.monotonic()
            try:
                so_path = build(workdir / "build", verbose=args.verbose)
            except Exception as exc:
                print(f"error: the sanitized build failed: {exc}", file=sys.stderr)
                return 2
            print(f"   built {so_path} ({time.monotonic() - start:.1f} s)", flush=True)
        if not has_ubsan(so_path):
            print("error: the module has no UBSan instrumentation", file=sys.stderr)
            return 2
        # not the build directory: its meancli/ would shadow the real package on sys.path
        plugin_dir = workdir / "plugin"
        plugin_dir.mkdir()
        (plugin_dir / f"{PLUGIN_NAME}.py").write_text(PLUGIN_SOURCE)
        env = child_env(so_path, plugin_dir)
        me = [sys.executable, str(Path(__file__).resolve())]
        results = [
            run_child("canary: a deliberate overflow", [*me, "--child", "canary"], env, expect_report=True),
            run_child("exercise: every kernel", [*me, "--child", "exercise", "--seed", str(args.seed)], env),
        ]
        if not args.no_pytest:
            pytest_argv = [sys.executable, "-m", "pytest", "-q", "-p", PLUGIN_NAME, "-p", "no:cacheprovider"]
            pytest_argv += ["tests/test_fuzz.py", "-k", "api", *args.pytest_args]
            results.append(run_child("pytest " + " ".join(pytest_argv[3:]), pytest_argv, env))
        if all(results):
            print("sanitize: no sanitizer reports; every check passed")
            return 0
        print("sanitize: FAILED (see above)", file=sys.stderr)
        return 1
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


# --------------------------------------------------------------------------- child side


def install(so_path: str) -> None:
    """Make ``meancli._kernels`` the sanitized build at ``so_path`` and check meancli uses it."""
    spec = importlib.util.spec_from_file_location("meancli._kernels", so_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import meancli

    sys.modules["meancli._kernels"] = module
    meancli._kernels = module  # type: ignore[attr-defined]
    from meancli import kernels

    kernels._module.cache_clear()
    loaded = kernels._module()
    if os.path.realpath(loaded.__file__) != os.path.realpath(so_path):
        raise SystemExit(f"error: meancli loaded {loaded.__file__}, not the sanitized {so_path}")


def canary() -> int:
    """Hand a kernel an output buffer half the size it needs: ASan must stop the process."""
    import numpy as np

    mod = sys.modules["meancli._kernels"]
    data = np.ones((4096, 2), dtype=np.float32)
    out = np.empty(2048, dtype=np.float32)  # needs 4096; malloc'd (> numpy's small-block cache)
    status = mod.lib.meancli_reduce_float32(
        mod.ffi.from_buffer(data), mod.ffi.from_buffer(out), 2, [4096, 2], [8, 4], [0, 1], 1
    )
    print(f"canary: the kernel returned {status} without a sanitizer report")
    return 0


def _truth(x: Any, axes: tuple[int, ...], keepdims: bool) -> Any:
    """The mean of ``x`` over ``axes``: float64 for floats, truncated exact integers otherwise."""
    import numpy as np

    if x.dtype.kind in "iu":
        total = x.astype(object).sum(axis=axes, keepdims=keepdims)
        count = 1
        for a in axes:
            count *= x.shape[a]
        return np.vectorize(lambda s: (abs(s) // count) * (1 if s >= 0 else -1), otypes=[object])(total)
    return x.astype(np.float64).mean(axis=axes, keepdims=keepdims)


def _close(got: Any, want: Any, x: Any) -> bool:
    import numpy as np

    if got.shape != np.shape(want):
        return False
    if got.dtype.kind in "iu":
        return bool(np.array_equal(got.astype(object), want))
    g = got.astype(np.float64)
    eps = 2.0 ** -7 if got.dtype.itemsize == 2 else float(np.finfo(got.dtype).eps)
    scale = float(np.max(np.abs(x.astype(np.float64)))) if x.size else 1.0
    return bool(np.allclose(g, want, rtol=4 * eps, atol=4 * eps * max(scale, 1e-300), equal_nan=True))


def exercise(seed: int) -> int:
    """Every kernel on the cases that stress the C side; returns the failure count."""
    import ml_dtypes
    import numpy as np

    import meancli
    from meancli.errors import SpecViolation

    np.seterr(all="ignore")
    warnings.simplefilter("ignore", RuntimeWarning)  # numpy's mean of an empty slice
    rng = np.random.default_rng(seed)
    reduce_types = ["float16", "float32", "float64", "int8", "int16", "int32", "int64"]
    reduce_types += ["uint8", "uint16", "uint32", "uint64"]
    dtypes = {name: np.dtype(name) for name in reduce_types}
    dtypes["bfloat16"] = np.dtype(ml_dtypes.bfloat16)
    failures: list[str] = []
    cases = 0

    def values(shape: tuple[int, ...], dtype: Any) -> Any:
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        return (rng.standard_normal(shape) * 100).astype(dtype)

    def check_reduce(x: Any, axes: tuple[int, ...], threads: int, what: str) -> None:
        nonlocal cases
        cases += 1
        keepdims = bool(rng.integers(2))
        try:
            got = meancli.reduce_mean(x, axes=list(axes), keepdims=keepdims, opset="openvino:1", threads=threads)
        except SpecViolation as exc:
            count = int(np.prod([x.shape[a] for a in axes]))
            kept = int(np.prod([n for d, n in enumerate(x.shape) if d not in axes]))
            if not (x.dtype.kind in "iu" and count == 0 and kept > 0):
                failures.append(f"reduce {what} {x.dtype} {x.shape} axes={axes}: {exc}")
            return
        want = x if not axes else _truth(x, axes, keepdims)
        if not axes:
            ok = got.shape == x.shape and bool(np.array_equal(got, x, equal_nan=x.dtype.kind == "f"))
        else:
            ok = _close(got, want, x)
        if not ok:
            failures.append(f"reduce {what} {x.dtype} {x.shape} axes={axes} threads={threads}: wrong result")

    def check_mean(xs: list[Any], threads: int, what: str) -> None:
        nonlocal cases
        cases += 1
        got = meancli.mean(*xs, opset=13, threads=threads)
        stacked = np.stack(np.broadcast_arrays(*[x.astype(np.float64) for x in xs]))
        want = stacked.mean(axis=0)
        scale = max(float(np.max(np.abs(s))) if s.size else 0.0 for s in stacked) if stacked.size else 0.0
        ref = np.broadcast_to(np.zeros(1), want.shape) + scale
        if not _close(got, want, ref):
            failures.append(f"mean {what} {xs[0].dtype} {[x.shape for x in xs]} threads={threads}: wrong")

    for name, dtype in dtypes.items():
        for threads in (1, 2):
            # rank 0, size-0 dims, rank 64, Fortran order, views, misaligned data
            check_reduce(values((), dtype), (), threads, "rank0")
            for shape, axes in [((0,), (0,)), ((3, 0, 2), (1,)), ((3, 0, 2), (0, 2)), ((0, 4), (1,))]:
                check_reduce(values(shape, dtype), axes, threads, "size0")
            shape64 = tuple(2 if d in (0, 7, 63) else 1 for d in range(64))
            check_reduce(values(shape64, dtype), (0, 63), threads, "rank64")
            check_reduce(values(shape64, dtype), tuple(range(64)), threads, "rank64-all")
            x = np.asfortranarray(values((5, 7, 3), dtype))
            for axes in [(0,), (1,), (2,), (0, 2), (0, 1, 2)]:
                check_reduce(x, axes, threads, "fortran")
            check_reduce(values((9, 8, 7), dtype)[::-2, 1::3, ::-1], (0, 2), threads, "view")
            raw = np.zeros(dtype.itemsize * 60 + 1, dtype=np.uint8)
            mis = raw[1:].view(dtype).reshape(6, 10)
            mis[...] = values((6, 10), dtype)
            check_reduce(mis, (1,), threads, "misaligned")
            # large enough for the parallel paths (PARALLEL_MIN_ELEMENTS = 262144)
            big = values((520, 600), dtype)
            for axes in [(1,), (0,), (0, 1)]:
                check_reduce(big, axes, threads, "parallel")
            check_reduce(np.asfortranarray(big), (0,), threads, "parallel-fortran")
            # random shapes and axes
            for _ in range(12):
                rank = int(rng.integers(1, 6))
                shape = tuple(int(n) for n in rng.integers(0, 6, size=rank))
                k = int(rng.integers(0, rank + 1))
                axes = tuple(sorted(int(a) for a in rng.choice(rank, size=k, replace=False)))
                check_reduce(values(shape, dtype), axes, threads, "random")

    for name in ("float16", "bfloat16", "float32", "float64"):
        dtype = dtypes[name]
        for threads in (1, 2):
            check_mean([values((), dtype)], threads, "rank0")
            check_mean([values((3, 1, 4), dtype), values((1, 5, 1), dtype), values((4,), dtype)], threads, "bcast")
            check_mean([values((2, 0, 3), dtype), values((1, 3), dtype)], threads, "size0-bcast")
            check_mean([values((0,), dtype), values((1,), dtype)], threads, "size0")
            shape64 = tuple(2 if d in (0, 63) else 1 for d in range(64))
            check_mean([values(shape64, dtype), values((2,), dtype)], threads, "rank64")
            f = np.asfortranarray(values((6, 7), dtype))
            check_mean([f, values((6, 14), dtype)[::-1, ::2]], threads, "fortran")
            check_mean([values((8, 14), dtype)[:, ::2], values((7,), dtype)[::-1]], threads, "views")
            raw = np.zeros(dtype.itemsize * 12 + 1, dtype=np.uint8)
            mis = raw[1:].view(dtype).reshape(3, 4)
            mis[...] = values((3, 4), dtype)
            check_mean([mis, values((3, 4), dtype)], threads, "misaligned")
            check_mean([values((600, 500), dtype), values((500,), dtype), values((600, 1), dtype)], threads, "big")
            for _ in range(8):
                rank = int(rng.integers(0, 5))
                shape = tuple(int(n) for n in rng.integers(0, 5, size=rank))
                xs = [values(tuple(1 if rng.integers(3) == 0 else n for n in shape), dtype)]
                xs += [values(shape[int(rng.integers(0, rank + 1)) :], dtype) for _ in range(int(rng.integers(0, 3)))]
                check_mean(xs, threads, "random")

    for line in failures:
        print(f"FAIL {line}")
    print(f"exercise: {cases} cases, {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
