"""Shared helpers for meancli's tests: the registry, realistic arrays, exact oracles,
and ``run_cli``, the one way tests run the command line.

The oracles compute the mathematically exact mean (Python integers and
fractions) and round it once to the output dtype, so they are the truth the
kernels are held to, independent of any floating-point summation order.
"""

from __future__ import annotations

import contextlib
import gc
import io
import math
import os
import signal
import subprocess as _subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np
from hypothesis import HealthCheck, settings

from meancli.opversion import OpVersion

# --------------------------------------------------------------------------- hypothesis profiles

_COMMON: dict[str, Any] = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("default", max_examples=40, **_COMMON)
settings.register_profile("ci", max_examples=100, derandomize=True, print_blob=True, **_COMMON)
settings.register_profile("fuzz-long", max_examples=2000, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# --------------------------------------------------------------------------- the command line

#: ``python -m meancli``: the command a real run starts.
MEANCLI = [sys.executable, "-m", "meancli"]
CLI_TIMEOUT = 120
#: Variables meancli reads once, at import: a call that sets one runs in a real process.
IMPORT_TIME_ENV = frozenset(
    {"MEANCLI_ISA", "MEANCLI_STREAM_MIN_BYTES", "MEANCLI_SLAB_BYTES", "MEANCLI_PIECE_BYTES"}
)


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
) -> Result:
    """Run ``meancli ARGS...`` and return its exit status, stdout and stderr.

    In process by default: ``meancli.cli.entry.main(argv)`` -- what ``python -m
    meancli`` runs -- with file descriptors 0, 1 and 2 (and sys.stdin/stdout/stderr)
    on pipes, as a subprocess has them, ``env`` added to os.environ and ``cwd``
    the working directory for the call; everything is restored afterwards. With
    ``subprocess=True`` a real ``python -m meancli`` process (for what needs one:
    signals, inherited descriptors, start-up, environment read at import such as
    MEANCLI_ISA, dask worker processes); a call whose ``env`` sets one of
    IMPORT_TIME_ENV runs as a real process whatever ``subprocess`` says.
    ``stdin``: the bytes (or text) on standard input; None is an empty stdin.
    ``timeout`` applies to a real process only.
    """
    argv = [os.fspath(a) for a in args]
    data = stdin.encode() if isinstance(stdin, str) else (stdin or b"")
    if subprocess or IMPORT_TIME_ENV.intersection(env or {}):
        proc = _subprocess.run(
            [*MEANCLI, *argv],
            input=data,
            capture_output=True,
            timeout=timeout,
            cwd=cwd,
            env={**os.environ, **(env or {})},
            check=False,
        )
        return _result(proc.returncode, proc.stdout, proc.stderr)
    return _run_in_process(argv, data, env or {}, cwd)


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


def _run_in_process(argv: list[str], data: bytes, env: dict[str, str], cwd: Any) -> Result:
    from meancli.cli.entry import main

    saved_fds = [os.dup(fd) for fd in (0, 1, 2)]
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_signals = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    saved_gc = gc.isenabled()
    (in_r, in_w), (out_r, out_w), (err_r, err_w) = os.pipe(), os.pipe(), os.pipe()
    out: list[bytes] = []
    err: list[bytes] = []
    threads = [
        threading.Thread(target=_feed, args=(in_w, data), daemon=True),
        threading.Thread(target=_drain, args=(out_r, out), daemon=True),
        threading.Thread(target=_drain, args=(err_r, err), daemon=True),
    ]
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
        os.environ.clear()
        os.environ.update(saved_env)
        for signum, handler in saved_signals.items():
            signal.signal(signum, handler)
        if saved_gc:
            gc.enable()
        for t in threads:
            t.join(timeout=10)
    return _result(int(code), b"".join(out), b"".join(err))


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


# --------------------------------------------------------------------------- exact oracles

_F64_SCALE = 1074  # 2**-1074 is the smallest float64 subnormal


def exact_sum(values: Sequence[float]) -> Fraction:
    """The exact sum of finite float64 values."""
    total = 0
    for v in values:
        num, den = v.as_integer_ratio()
        total += num << (_F64_SCALE - (den.bit_length() - 1))
    return Fraction(total, 1 << _F64_SCALE)


def round_fraction(q: Fraction, dtype: np.dtype[Any]) -> Any:
    """``q`` rounded once (to nearest, ties to even) to floating ``dtype``.

    float64: Python's correctly rounded Fraction -> float. Narrower types: round
    to odd in a format with at least two more significand bits (float64 for
    float32, float32 for the 16-bit types), then round to nearest -- which
    gives the correctly rounded result (Boldo & Melquiond).
    """
    if dtype == np.float64:
        try:
            return np.float64(float(q))
        except OverflowError:
            return np.float64(-math.inf if q < 0 else math.inf)
    wide = np.dtype(np.float64) if dtype == np.float32 else np.dtype(np.float32)
    bits = np.dtype(np.uint64) if wide == np.float64 else np.dtype(np.uint32)
    try:
        f = np.array([float(q)], dtype=np.float64)
    except OverflowError:
        return dtype.type(-np.inf if q < 0 else np.inf)
    with np.errstate(over="ignore"):
        w = f.astype(wide)
    if np.isfinite(w[0]) and Fraction(float(w[0])) != q:
        if abs(Fraction(float(w[0]))) > abs(q):
            w = np.nextafter(w, wide.type(0))
        w = (w.view(bits) | bits.type(1)).view(wide)
    with np.errstate(over="ignore"):
        return w.astype(dtype)[0]


def _rows(x: np.ndarray, axes: Sequence[int] | None) -> tuple[np.ndarray, tuple[int, ...], int]:
    """``x`` as (outputs, reduced) rows; returns the rows, the kept shape and the count."""
    rank = x.ndim
    red = tuple(range(rank)) if axes is None else tuple(sorted(a % rank for a in axes)) if rank else ()
    kept = [d for d in range(rank) if d not in red]
    moved = np.transpose(x, kept + list(red))
    kept_shape = tuple(x.shape[d] for d in kept)
    count = math.prod(x.shape[d] for d in red)
    return moved.reshape(math.prod(kept_shape), count), kept_shape, count


def _out_shape(shape: tuple[int, ...], axes: Sequence[int] | None, keepdims: bool) -> tuple[int, ...]:
    rank = len(shape)
    red = set(range(rank)) if axes is None else {a % rank for a in axes}
    if keepdims:
        return tuple(1 if d in red else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in red)


def _float_mean(row: np.ndarray, count: int, dtype: np.dtype[Any]) -> Any:
    if count == 0 or np.isnan(row).any():
        return dtype.type(np.nan)
    pos, neg = bool(np.isposinf(row).any()), bool(np.isneginf(row).any())
    if pos or neg:
        return dtype.type(np.nan if pos and neg else (np.inf if pos else -np.inf))
    return round_fraction(exact_sum(row.tolist()) / count, dtype)


def _int_mean(total: int, count: int) -> int:
    q = abs(total) // count
    return q if total >= 0 else -q  # truncated toward zero


def oracle_reduce_mean(x: np.ndarray, axes: Sequence[int] | None, keepdims: bool) -> np.ndarray:
    """The exact ReduceMean of ``x`` over ``axes`` (None: all), rounded once to x's dtype.

    Floats: NaN for an empty set or per IEEE (NaN, +inf with -inf); integers:
    the exact sum divided by the count, truncated toward zero (an empty set
    raises ZeroDivisionError).
    """
    x = np.asarray(x)
    dtype = x.dtype.newbyteorder("=")
    out_shape = _out_shape(x.shape, axes, keepdims)
    rows, _, count = _rows(x, axes)
    if dtype.kind in "iu":
        totals = rows.astype(object).sum(axis=1) if count else [0] * len(rows)
        if count == 0 and len(rows):
            raise ZeroDivisionError("integer mean over an empty set")
        values = [_int_mean(int(t), count) for t in totals]
        return np.array(values, dtype=object).astype(dtype).reshape(out_shape)
    wide = rows.astype(np.float64)
    values = [_float_mean(wide[i], count, dtype) for i in range(len(wide))]
    return np.array(values, dtype=dtype).reshape(out_shape)


def broadcast_all(arrays: Sequence[np.ndarray]) -> list[np.ndarray]:
    """numpy broadcasting up to rank 64 (np.broadcast_arrays stops at 32)."""
    arrays = [np.asarray(a) for a in arrays]
    rank = max(a.ndim for a in arrays)
    padded = [a.reshape((1,) * (rank - a.ndim) + a.shape) for a in arrays]
    shape = []
    for dims in zip(*(a.shape for a in padded), strict=True):
        sizes = {n for n in dims if n != 1}
        assert len(sizes) <= 1, f"shapes do not broadcast: {[a.shape for a in arrays]}"
        shape.append(sizes.pop() if sizes else 1)
    out = []
    for a in padded:
        strides = tuple(
            0 if n == 1 and m != 1 else s for n, m, s in zip(a.shape, shape, a.strides, strict=True)
        )
        out.append(np.lib.stride_tricks.as_strided(a, tuple(shape), strides, writeable=False))
    return out


def oracle_mean(arrays: Sequence[np.ndarray]) -> np.ndarray:
    """The exact element-wise Mean of ``arrays`` (numpy broadcasting), rounded once."""
    b = broadcast_all(arrays)
    stacked = np.stack([a.reshape(-1) for a in b], axis=-1)  # flat: rank 64 inputs stay legal
    return oracle_reduce_mean(stacked, [1], keepdims=False).reshape(b[0].shape)


# --------------------------------------------------------------------------- comparisons


def _ordered(a: np.ndarray) -> np.ndarray:
    """Float bits as integers ordered like the values (+0 and -0 both 0)."""
    bits = {2: np.int16, 4: np.int32, 8: np.int64}[a.dtype.itemsize]
    raw = np.ascontiguousarray(a).view(bits).astype(np.int64)
    mag = raw & np.int64((1 << (8 * a.dtype.itemsize - 1)) - 1)
    return np.where(raw < 0, -mag, mag)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Units in the last place between two finite float arrays of one dtype."""
    return np.abs(_ordered(got) - _ordered(want))


def assert_float_close(got: np.ndarray, want: np.ndarray, max_ulps: int = 1, context: str = "") -> None:
    """``got`` equals ``want`` to within ``max_ulps``; NaN where and only where
    ``want`` is NaN, the same infinities."""
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert got.shape == want.shape, (got.shape, want.shape)
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    gn, wn = np.isnan(g64), np.isnan(w64)
    assert np.array_equal(gn, wn), f"NaN mismatch {context}: got {got[gn != wn]}, want {want[gn != wn]}"
    fin = ~wn & np.isfinite(w64)
    inf = ~wn & ~fin
    assert np.array_equal(g64[inf], w64[inf]), f"infinity mismatch {context}"
    assert np.isfinite(g64[fin]).all(), f"overflow {context}: got {got[fin][~np.isfinite(g64[fin])]}"
    d = ulp_distance(got[fin], want[fin])
    if d.size and d.max() > max_ulps:
        i = int(np.argmax(d))
        raise AssertionError(
            f"{d.max()} ulps apart {context}: got {got[fin][i]!r}, want {want[fin][i]!r} "
            f"({int((d > 0).sum())} of {d.size} elements differ)"
        )
