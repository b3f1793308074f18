"""Run meancli's C kernels under AddressSanitizer and UndefinedBehaviorSanitizer.

Usage (from the source tree, after ``make install``)::

    make sanitize                                  # the same as the next line
    .venv/bin/python tools/sanitize.py             # build, canary, exercise, fuzz tests
    .venv/bin/python tools/sanitize.py --keep      # keep the sanitized build (path printed)
    .venv/bin/python tools/sanitize.py --so PATH   # reuse that build (skips the ~1 min compile)
    .venv/bin/python tools/sanitize.py --skip pytest     # skip a stage (kernels, streaming, ...)
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
3. The checks, each in its own child (a sanitizer stops the first report's process):

   - canary: a kernel is handed an output buffer that is too small; ASan must
     report it.  This proves that the build is instrumented and the runtime is
     preloaded (a clean run would otherwise prove nothing).
   - kernels: every kernel symbol (every dtype of ReduceMean and Mean), rank 0,
     rank 64, size-0 dims, broadcasting (size-0 broadcasts too), C and Fortran
     order, non-contiguous and negative-stride views, random shapes and axes,
     inputs large enough for the parallel paths, threads 1 and 2; every result
     is checked against numpy in float64 (exactly for integers).
   - streaming: the slab kernels (``meancli_reduce_begin/step/end``) and the
     streamed Mean, through the command line in-process on files cut into many
     slabs (byte-swapped and Fortran-order ones too): bit-identical to the
     in-memory result.
   - misaligned: arrays at an odd address (``np.frombuffer`` at an offset) through
     the API; UBSan reports a misaligned load if they reach the kernels as they are.
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
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
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


class OutOfStep(Exception):
    """generated/kernels.c (with its headers) and generated/tables.py do not describe the same sources."""


def tables_sha256() -> str:
    """The kernel sources' sha256 that generated/tables.py expects (read, not imported)."""
    text = (ROOT / "generated" / "tables.py").read_text(encoding="utf-8")
    found = re.search(r'^KERNEL_SOURCE_SHA256 = "([0-9a-f]{64})"', text, re.MULTILINE)
    return found.group(1) if found else "(none)"


def build(workdir: Path, *, verbose: bool) -> Path:
    """Compile the kernels with the sanitizers into ``workdir``; return the module's path.

    Raises:
        OutOfStep: the sources do not match generated/tables.py (before or after the build: another
            `make generate` may be running).
    """
    extra = os.environ.get("MEANCLI_EXTRA_CFLAGS", "")
    os.environ["MEANCLI_EXTRA_CFLAGS"] = f"{extra} {SANITIZE_CFLAGS}".strip()
    try:
        spec = importlib.util.spec_from_file_location("_meancli_ffi_build_sanitized", BUILD_SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)  # reads the cdef and MEANCLI_EXTRA_CFLAGS now
    finally:
        os.environ["MEANCLI_EXTRA_CFLAGS"] = extra
    sources = module._sources_sha256()  # the value it defines MEANCLI_SOURCE_SHA256 as
    if sources != tables_sha256():
        raise OutOfStep("generated/kernels.c is not what generated/tables.py describes")
    path = _compile(module, workdir, verbose=verbose)
    if module._sources_sha256() != sources or tables_sha256() != sources:
        raise OutOfStep("generated/ changed during the build")
    return path


def _compile(module: Any, workdir: Path, *, verbose: bool) -> Path:
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
    tail: list[str] = []
    called = False
    for line in proc.stdout:
        called = called or line.startswith("canary: calling")
        tail = [*tail[-4:], line.rstrip()]
        if not expect_report:
            sys.stdout.write(line)
        if any(marker in line for marker in REPORT_MARKERS):
            reports.append(line.rstrip())
    rc = proc.wait()
    elapsed = time.monotonic() - start
    if expect_report:
        ok = rc != 0 and any("AddressSanitizer" in r for r in reports)
        if ok:
            verdict = "reported as it must be"
        elif not called:
            verdict = "did not run: " + (tail[-1] if tail else "no output")
        else:
            verdict = "NOT reported: the build is not instrumented"
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
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--keep", action="store_true", help="keep the sanitized build directory")
    parser.add_argument("--verbose", action="store_true", help="show the compiler commands")
    parser.add_argument("--seed", type=int, default=0, help="seed of the exercise's random cases")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=("kernels", "streaming", "misaligned", "pytest"),
        help="skip a stage (repeatable)",
    )
    parser.add_argument("--so", type=Path, help="reuse a sanitized module kept by an earlier --keep")
    parser.add_argument("--child", choices=("canary", *CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = parser.parse_args(argv)
    if args.child:
        install(os.environ[ENV_SO])
        return canary() if args.child == "canary" else CHILDREN[args.child][1](args.seed)

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
            except OutOfStep as exc:
                print(
                    f"error: {exc}: run `make generate` (or wait for one to finish) and retry",
                    file=sys.stderr,
                )
                return 2
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
        results = {
            "canary": run_child(
                "canary: a deliberate overflow", [*me, "--child", "canary"], env, expect_report=True
            )
        }
        for name, (title, _) in CHILDREN.items():
            if name not in args.skip:
                argv = [*me, "--child", name, "--seed", str(args.seed)]
                results[name] = run_child(f"{name}: {title}", argv, env)
        if "pytest" not in args.skip:
            pytest_argv = [sys.executable, "-m", "pytest", "-q", "-p", PLUGIN_NAME, "-p", "no:cacheprovider"]
            pytest_argv += ["tests/test_fuzz.py", "-k", "api", *args.pytest_args]
            results["pytest"] = run_child("pytest " + " ".join(pytest_argv[3:]), pytest_argv, env)
        failed = [name for name, ok in results.items() if not ok]
        if not failed:
            print(f"sanitize: no sanitizer reports; every check passed ({', '.join(results)})")
            return 0
        print(f"sanitize: FAILED: {', '.join(failed)} (see above)", file=sys.stderr)
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
    from meancli.errors import KernelBuildError

    kernels._loaded.cache_clear()  # load (and choose instruction sets) anew, from the sanitized build
    kernels._choice = None
    try:
        loaded = kernels._module()
    except KernelBuildError as exc:  # generated/ changed since the build
        raise SystemExit(f"error: {exc}") from None
    if os.path.realpath(loaded.__file__) != os.path.realpath(so_path):
        raise SystemExit(f"error: meancli loaded {loaded.__file__}, not the sanitized {so_path}")


def canary() -> int:
    """Hand a kernel an output buffer half the size it needs: ASan must stop the process."""
    import numpy as np

    mod = sys.modules["meancli._kernels"]
    data = np.ones((4096, 2), dtype=np.float32)
    out = np.empty(2048, dtype=np.float32)  # needs 4096; malloc'd (> numpy's small-block cache)
    print("canary: calling the kernel", flush=True)
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
    eps = 2.0**-7 if got.dtype.itemsize == 2 else float(np.finfo(got.dtype).eps)
    scale = float(np.max(np.abs(x.astype(np.float64)))) if x.size else 1.0
    return bool(np.allclose(g, want, rtol=4 * eps, atol=4 * eps * max(scale, 1e-300), equal_nan=True))


class Checker:
    """Runs cases through the public API and records the ones that go wrong."""

    def __init__(self, seed: int) -> None:
        import ml_dtypes
        import numpy as np

        np.seterr(all="ignore")
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's mean of an empty slice
        self.np = np
        self.rng = np.random.default_rng(seed)
        names = ["float16", "float32", "float64", "int8", "int16", "int32", "int64"]
        names += ["uint8", "uint16", "uint32", "uint64"]
        self.dtypes = {name: np.dtype(name) for name in names}
        self.dtypes["bfloat16"] = np.dtype(ml_dtypes.bfloat16)
        self.failures: list[str] = []
        self.cases = 0

    def values(self, shape: tuple[int, ...], dtype: Any) -> Any:
        np, rng = self.np, self.rng
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        return (rng.standard_normal(shape) * 100).astype(dtype)

    def reduce(self, x: Any, axes: tuple[int, ...], threads: int, what: str) -> None:
        import meancli
        from meancli.errors import SpecViolation

        np = self.np
        self.cases += 1
        keepdims = bool(self.rng.integers(2))
        try:
            got = meancli.reduce_mean(
                x, axes=list(axes), keepdims=keepdims, opset="openvino:1", threads=threads
            )
        except SpecViolation as exc:
            count = int(np.prod([x.shape[a] for a in axes]))
            kept = int(np.prod([n for d, n in enumerate(x.shape) if d not in axes]))
            if not (x.dtype.kind in "iu" and count == 0 and kept > 0):
                self.failures.append(f"reduce {what} {x.dtype} {x.shape} axes={axes}: {exc}")
            return
        if not axes:  # openvino: the identity
            ok = got.shape == x.shape and bool(np.array_equal(got, x, equal_nan=x.dtype.kind == "f"))
        else:
            ok = _close(got, _truth(x, axes, keepdims), x)
        if not ok:
            self.failures.append(
                f"reduce {what} {x.dtype} {x.shape} axes={axes} threads={threads}: wrong result"
            )

    def mean(self, xs: list[Any], threads: int, what: str) -> None:
        import meancli

        np = self.np
        self.cases += 1
        got = meancli.mean(*xs, opset=13, threads=threads)
        # (not np.stack/np.broadcast_arrays: they stop at 64 and 32 dimensions)
        wide = [np.broadcast_to(x.astype(np.float64), got.shape) for x in xs]
        want = sum(wide, np.zeros(got.shape)) / len(xs)
        scale = max((float(np.max(np.abs(w))) for w in wide if w.size), default=0.0)
        if not _close(got, want, np.broadcast_to(np.float64(scale), want.shape)):
            self.failures.append(
                f"mean {what} {xs[0].dtype} {[x.shape for x in xs]} threads={threads}: wrong"
            )

    def report(self, title: str) -> int:
        for line in self.failures:
            print(f"FAIL {line}")
        print(f"{title}: {self.cases} cases, {len(self.failures)} failure(s)")
        return 1 if self.failures else 0


def exercise_kernels(seed: int) -> int:
    """Every kernel symbol through the API, on the cases that stress the C side."""
    c = Checker(seed)
    np, rng, values = c.np, c.rng, c.values
    for dtype in c.dtypes.values():
        for threads in (1, 2):
            c.reduce(values((), dtype), (), threads, "rank0")
            for shape, axes in [((0,), (0,)), ((3, 0, 2), (1,)), ((3, 0, 2), (0, 2)), ((0, 4), (1,))]:
                c.reduce(values(shape, dtype), axes, threads, "size0")
            shape64 = tuple(2 if d in (0, 7, 63) else 1 for d in range(64))
            c.reduce(values(shape64, dtype), (0, 63), threads, "rank64")
            c.reduce(values(shape64, dtype), tuple(range(64)), threads, "rank64-all")
            x = np.asfortranarray(values((5, 7, 3), dtype))
            for axes in [(0,), (1,), (2,), (0, 2), (0, 1, 2)]:
                c.reduce(x, axes, threads, "fortran")
            c.reduce(values((9, 8, 7), dtype)[::-2, 1::3, ::-1], (0, 2), threads, "view")
            # large enough for the parallel paths (PARALLEL_MIN_ELEMENTS = 262144)
            big = values((520, 600), dtype)
            for axes in [(1,), (0,), (0, 1)]:
                c.reduce(big, axes, threads, "parallel")
            c.reduce(np.asfortranarray(big), (0,), threads, "parallel-fortran")
            for _ in range(12):
                rank = int(rng.integers(1, 6))
                shape = tuple(int(n) for n in rng.integers(0, 6, size=rank))
                k = int(rng.integers(0, rank + 1))
                axes = tuple(sorted(int(a) for a in rng.choice(rank, size=k, replace=False)))
                c.reduce(values(shape, dtype), axes, threads, "random")
    for name in ("float16", "bfloat16", "float32", "float64"):
        dtype = c.dtypes[name]
        for threads in (1, 2):
            c.mean([values((), dtype)], threads, "rank0")
            c.mean(
                [values((3, 1, 4), dtype), values((1, 5, 1), dtype), values((4,), dtype)], threads, "bcast"
            )
            c.mean([values((2, 0, 3), dtype), values((1, 3), dtype)], threads, "size0-bcast")
            c.mean([values((0,), dtype), values((1,), dtype)], threads, "size0")
            shape64 = tuple(2 if d in (0, 63) else 1 for d in range(64))
            c.mean([values(shape64, dtype), values((2,), dtype)], threads, "rank64")
            c.mean(
                [np.asfortranarray(values((6, 7), dtype)), values((6, 14), dtype)[::-1, ::2]],
                threads,
                "fortran",
            )
            c.mean([values((8, 14), dtype)[:, ::2], values((7,), dtype)[::-1]], threads, "views")
            c.mean(
                [values((600, 500), dtype), values((500,), dtype), values((600, 1), dtype)], threads, "big"
            )
            for _ in range(8):
                rank = int(rng.integers(0, 5))
                shape = tuple(int(n) for n in rng.integers(0, 5, size=rank))
                xs = [values(tuple(1 if rng.integers(3) == 0 else n for n in shape), dtype)]
                xs += [
                    values(shape[int(rng.integers(0, rank + 1)) :], dtype)
                    for _ in range(int(rng.integers(0, 3)))
                ]
                c.mean(xs, threads, "random")
    return c.report("kernels")


def exercise_misaligned(seed: int) -> int:
    """Arrays at an odd address through the API (np.frombuffer at an offset does that)."""
    c = Checker(seed)
    for dtype in c.dtypes.values():
        for threads in (1, 2):
            raw = c.np.zeros(dtype.itemsize * 600 + 1, dtype=c.np.uint8)
            x = raw[1:].view(dtype).reshape(20, 30)
            x[...] = c.values((20, 30), dtype)
            c.reduce(x, (1,), threads, "misaligned")
            c.reduce(x, (0,), threads, "misaligned")
            if dtype.kind == "f" or dtype.name == "bfloat16":
                c.mean([x, c.values((30,), dtype)], threads, "misaligned")
    return c.report("misaligned")


def exercise_streaming(seed: int) -> int:
    """The slab kernels (meancli_reduce_begin/step/end) and streamed Mean, through the command
    line in-process, on files cut into many slabs: bit-identical to the in-memory result."""
    import contextlib
    import io

    import meancli
    from meancli.cli.app import main
    from meancli.engine import streamed
    from meancli.io import thresholds

    c = Checker(seed)
    np, rng = c.np, c.rng
    thresholds.STREAM_MIN_BYTES = 1
    work = Path(tempfile.mkdtemp(prefix="meancli-sanitize-stream-"))
    shapes = [((300, 257), "C"), ((7, 50, 33), "C"), ((7, 50, 33), "F"), ((4000,), "C"), ((3, 1, 2000), "C")]
    names = ["float16", "bfloat16", "float32", "float64", "int8", "uint16", "int32", "int64", "uint64"]

    def run(argv: list[str]) -> int:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            code = main(argv)
        if code:
            c.failures.append(f"{argv}: exit {code}: {err.getvalue().strip()}")
        return code

    try:
        for name in names:
            dtype = c.dtypes[name]
            for shape, order in shapes:
                x = np.asarray(c.values(shape, dtype), order=order)
                if name == "float32" and order == "C":
                    x = x.astype(">f4")  # byte-swapped slabs
                np.save(work / "x.npy", x)
                rank = len(shape)
                for _ in range(2):
                    k = int(rng.integers(1, rank + 1))
                    axes = sorted(int(a) for a in rng.choice(rank, size=k, replace=False))
                    threads = int(rng.integers(1, 3))
                    streamed.SLAB_BYTES = int(rng.choice([1000, 4096 + 3, 65536]))
                    c.cases += 1
                    argv = [
                        "reduce-mean",
                        str(work / "x.npy"),
                        "--axes",
                        *map(str, axes),
                        "--opset",
                        "openvino:1",
                    ]
                    if run(
                        [*argv, "--keep-dims", "--threads", str(threads), "-o", str(work / "s.npy"), "-q"]
                    ):
                        continue
                    want = meancli.reduce_mean(
                        x, axes=axes, keepdims=True, opset="openvino:1", threads=threads
                    )
                    got = np.load(work / "s.npy")
                    if got.tobytes() != want.tobytes():
                        c.failures.append(f"streamed reduce {name} {shape} {order} axes={axes}: differs")
            if dtype.kind == "f" or name == "bfloat16":
                a, b = c.values((40, 300), dtype), c.values((300,), dtype)
                np.save(work / "a.npy", a)
                np.save(work / "b.npy", b)
                for threads in (1, 2):
                    streamed.SLAB_BYTES = 1000
                    c.cases += 1
                    argv = ["mean", str(work / "a.npy"), str(work / "b.npy"), "--threads", str(threads)]
                    if run([*argv, "-o", str(work / "m.npy"), "-q"]):
                        continue
                    want = meancli.mean(a, b, threads=threads)
                    if np.load(work / "m.npy").tobytes() != want.tobytes():
                        c.failures.append(f"streamed mean {name}: differs")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return c.report("streaming")


# stage -> (title, function): run in this order
CHILDREN: dict[str, tuple[str, Callable[[int], int]]] = {
    "kernels": ("every kernel symbol on the cases that stress the C side", exercise_kernels),
    "streaming": ("the slab kernels and streamed Mean, through the CLI", exercise_streaming),
    "misaligned": ("arrays at an odd address through the API", exercise_misaligned),
}


if __name__ == "__main__":
    sys.exit(main())
