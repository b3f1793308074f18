"""Oracles for meancli's conformance tests and ``tools/conformance.py``.

Three independent implementations of the same operators, each run on a
one-node model built here and cached per (operator version, dtype, attributes):

- onnxruntime (CPU): a one-node ONNX model built with ``onnx.helper`` at the
  operator's own opset;
- the ONNX reference evaluator (``onnx.reference.ReferenceEvaluator``) on the
  same model;
- OpenVINO (CPU): a one-node model built with ``openvino.opset1``
  (``ReduceMean-1`` with a Constant axes input), compiled with
  ``INFERENCE_PRECISION_HINT=f32`` so the CPU plugin does not lower float32
  to bf16 on CPUs that have it.

And the truth they are all measured against: the *exact* mean, computed in
integer arithmetic (every float is an integer multiple of 2**-1074) and
rounded once to the output dtype, or for integer types the exact sum divided
by the count and truncated toward zero (docs/semantics.md).

Where a runtime deviates from the rules of docs/semantics.md, the deviation is written
down once, in ``DEVIATIONS``, with the mechanism that explains it; ``judge``
accepts a disagreement only when a documented deviation explains it.
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

import ml_dtypes
import numpy as np

BF16 = np.dtype(ml_dtypes.bfloat16)

# --------------------------------------------------------------------------- dtypes

DTYPES: dict[str, np.dtype[Any]] = {
    "float16": np.dtype(np.float16),
    "bfloat16": BF16,
    "float32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "int8": np.dtype(np.int8),
    "int16": np.dtype(np.int16),
    "int32": np.dtype(np.int32),
    "int64": np.dtype(np.int64),
    "uint8": np.dtype(np.uint8),
    "uint16": np.dtype(np.uint16),
    "uint32": np.dtype(np.uint32),
    "uint64": np.dtype(np.uint64),
}

# name: (precision p including the implicit bit, minimum normal exponent, maximum exponent)
FLOAT_FORMATS: dict[str, tuple[int, int, int]] = {
    "float16": (11, -14, 15),
    "bfloat16": (8, -126, 127),
    "float32": (24, -126, 127),
    "float64": (53, -1022, 1023),
}

#: NaN bit patterns of each float dtype: both signs, quiet and signalling, with payloads.
NAN_BITS: dict[str, list[int]] = {
    "float16": [0x7E00, 0xFE00, 0x7C01, 0x7E55, 0xFD00, 0xFC55, 0x7FFF],
    "bfloat16": [0x7FC0, 0xFFC0, 0x7F81, 0x7FD5, 0xFF90, 0xFF81, 0x7FFF],
    "float32": [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FC12345, 0xFF812345, 0xFF800123, 0x7FFFFFFF],
    "float64": [
        0x7FF8000000000000,
        0xFFF8000000000000,
        0x7FF0000000000001,
        0x7FF8000000000ABC,
        0xFFF0000000012345,
        0xFFF0000000000ABC,
        0x7FFFFFFFFFFFFFFF,
    ],
}
#: Unsigned integer types by item size: a float's bits.
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}

IMPLS = ("onnxruntime", "onnx-reference", "openvino")
SHIFT = 1074  # every finite float64 is an integer multiple of 2**-1074


def same_bits(a: Any, b: Any, nan_payloads: bool = False) -> bool:
    """Bit-identical arrays (shape, dtype, every element's bits), where any NaN matches
    any NaN unless ``nan_payloads`` (then NaN payloads and signs count too); integers
    are equal values."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind in "iub":
        return bool((a == b).all())
    u = UINT[a.dtype.itemsize]
    equal = np.ascontiguousarray(a).view(u) == np.ascontiguousarray(b).view(u)
    if not nan_payloads:
        equal |= np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return bool(equal.all())


def is_float(name: str) -> bool:
    return name in FLOAT_FORMATS


def c_order(x: np.ndarray) -> np.ndarray:
    """``x`` C-contiguous in native byte order, keeping rank 0 (np.ascontiguousarray
    would make it rank 1)."""
    x = np.asarray(x)
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    return np.array(x, order="C", copy=not x.flags.c_contiguous)


LAYOUTS = ("C", "F", "byteswapped", "strided", "permuted")


def with_layout(x: np.ndarray, layout: str, seed: int = 0) -> np.ndarray:
    """The same logical array as ``x`` in another memory layout: Fortran order,
    the other byte order, a strided view (every other element of a bigger
    array), or a permutation of the memory order of its dims. meancli sees
    the layout; the runtimes get C-order native copies."""
    if layout == "F":
        return np.array(x, order="F")  # np.asfortranarray would make rank 0 rank 1
    if layout == "byteswapped" and x.dtype != BF16 and x.dtype.itemsize > 1:
        return x.astype(x.dtype.newbyteorder("S"))
    if layout == "strided" and x.ndim:
        return np.repeat(x, 2, axis=-1)[..., ::2]
    if layout == "permuted" and x.ndim >= 2:
        perm = np.random.default_rng(seed).permutation(x.ndim)
        return np.transpose(np.ascontiguousarray(np.transpose(x, perm)), np.argsort(perm))
    return x


def spec_name(dtype: np.dtype[Any]) -> str:
    """The spec's dtype name of a numpy dtype."""
    for name, dt in DTYPES.items():
        if dt == dtype.newbyteorder("="):
            return name
    raise ValueError(f"no spec dtype for {dtype}")


def float_max(name: str) -> float:
    p, _, emax = FLOAT_FORMATS[name]
    return math.ldexp(2.0 - math.ldexp(1.0, 1 - p), emax)


def unit_roundoff(name: str) -> float:
    return math.ldexp(1.0, -FLOAT_FORMATS[name][0])


def ulp(name: str, value: float) -> float:
    """The spacing of ``name``'s values at ``value`` (finite; the largest spacing beyond the max)."""
    p, emin, emax = FLOAT_FORMATS[name]
    a = abs(value)
    e = emin if a == 0 or not math.isfinite(a) else max(math.frexp(a)[1] - 1, emin)
    return math.ldexp(1.0, min(e, emax) - p + 1)


# --------------------------------------------------------------------------- exact arithmetic


def round_rational(num: int, den: int, name: str) -> float:
    """num/den (den > 0) rounded to nearest, ties to even, in the float format ``name``
    (overflow to +-inf as IEEE 754 does). Returned as a Python float (exact)."""
    if num == 0:
        return 0.0
    p, emin, emax = FLOAT_FORMATS[name]
    neg, a = num < 0, abs(num)
    e = a.bit_length() - den.bit_length()  # 2**e <= a/den < 2**(e+2)
    if (a << max(0, -e)) < (den << max(0, e)):
        e -= 1
    e = max(e, emin)
    sh = p - 1 - e
    n, d = (a << sh, den) if sh >= 0 else (a, den << -sh)
    q, r = divmod(n, d)
    if 2 * r > d or (2 * r == d and q & 1):
        q += 1
    if q >= (1 << p):  # rounding carried into the next binade
        q >>= 1
        e += 1
    if e > emax:
        return -math.inf if neg else math.inf
    v = math.ldexp(q, e - p + 1)
    return -v if neg else v


def _exact_float_sums(x2d: np.ndarray, precision: int = 53) -> list[int]:
    """Exact row sums of a finite float64 (rows, n) array, scaled by 2**SHIFT.

    ``precision``: significant bits of the values (24 for float32 data, ...).
    Each value is m * 2**e with an integer m of ``precision`` bits; the m are
    summed per (row, e) bucket in float64, exact while a bucket holds fewer
    than 2**(53 - 27) values (float64 data: m split in two 27-bit halves)."""
    rows, n = x2d.shape
    if rows == 0:
        return []
    if n == 0:
        return [0] * rows
    m, e = np.frexp(x2d)  # x = m * 2**e, 0.5 <= |m| < 1
    nb = 2098  # e + 1073 in 0 .. 2097
    b = e.astype(np.int64) + 1073
    if rows > 1:
        b += np.arange(rows, dtype=np.int64)[:, None] * nb
    if precision <= 26:
        parts = [(m * float(1 << precision), 0)]  # exact integers below 2**26
    else:
        mi = (m * float(1 << 53)).astype(np.int64)
        parts = [((mi >> 26).astype(np.float64), 26), ((mi & ((1 << 26) - 1)).astype(np.float64), 0)]
        precision = 53
    keys, inverse = np.unique(b.ravel(), return_inverse=True)  # the (row, exponent) buckets in use
    terms = [
        (np.bincount(inverse.ravel(), weights=w.ravel(), minlength=keys.size).astype(np.int64).tolist(), k)
        for w, k in parts
    ]  # exact: every bucket sum is an integer below 2**53
    out = [0] * rows
    if len(terms) == 1:
        bucket_sums = terms[0][0]
    else:
        (high, k), (low, _) = terms
        bucket_sums = [(h << k) + lo for h, lo in zip(high, low, strict=True)]
    for key, t in zip(keys.tolist(), bucket_sums, strict=True):
        r, j = divmod(key, nb)
        sh = j + 1 - precision  # value * 2**SHIFT = t * 2**(e - precision + SHIFT)
        out[r] += t << sh if sh >= 0 else t >> -sh  # t is a multiple of 2**-sh when sh < 0
    return out


def _exact_int_sums(x2d: np.ndarray) -> list[int]:
    """Exact row sums of an integer (rows, n) array."""
    if x2d.dtype.itemsize < 8:
        return (
            [int(v) for v in x2d.astype(np.int64).sum(axis=1, dtype=np.int64)]
            if x2d.shape[1] < (1 << 31)
            else []
        )
    hi = (x2d >> 32).astype(np.int64)  # arithmetic shift for int64, logical for uint64
    lo = (x2d & np.array(0xFFFFFFFF, dtype=x2d.dtype)).astype(np.int64)
    shi = hi.sum(axis=1, dtype=np.int64)
    slo = lo.sum(axis=1, dtype=np.int64)
    return [(int(a) << 32) + int(b) for a, b in zip(shi, slo, strict=True)]


def trunc_div(s: int, n: int) -> int:
    """s / n truncated toward zero (n > 0)."""
    q = abs(s) // n
    return -q if s < 0 else q


@dataclass
class Groups:
    """The reduction groups of a call: ``x2d[i]`` are the values averaged into
    output element ``i`` (C order of ``out_shape``)."""

    x2d: np.ndarray
    out_shape: tuple[int, ...]

    @property
    def n(self) -> int:
        return int(self.x2d.shape[1])

    @property
    def nout(self) -> int:
        return int(self.x2d.shape[0])


@dataclass
class Truth:
    """The exact result of a call, and per-group facts the deviations test."""

    value: np.ndarray | None  # None: undefined (integer mean over an empty set)
    n: int
    sums: list[int] | None  # exact sums (floats: scaled by 2**SHIFT), None when not all finite
    abs_sum: np.ndarray  # float64 sum of |x| per group (an upper bound of |any partial sum|)
    pos_sum: list[int] = field(default_factory=list)  # integers: sum of positive / negative parts
    neg_sum: list[int] = field(default_factory=list)
    finite: np.ndarray | None = None  # floats: the group has only finite values


#: The latest exact truths, by their groups' bytes: a test that checks one array in several
#: layouts, thread counts or engines asks for the same truth each time (and hypothesis
#: replays an example while it shrinks). Bounded: a truth holds a few values per group.
_TRUTHS: OrderedDict[tuple[Any, ...], Truth] = OrderedDict()
_TRUTHS_KEPT = 16


def exact_truth(dtype: str, groups: Groups) -> Truth:
    """The exact result of reducing each row of ``groups.x2d`` (spec dtype ``dtype``),
    shaped ``groups.out_shape``: the exact mean rounded once (floats), the exact sum
    divided by the count, truncated (integers), with the facts ``judge`` tests."""
    x2d = groups.x2d
    key = (dtype, groups.out_shape, x2d.shape, x2d.dtype.str, hashlib.blake2b(x2d.tobytes()).digest())
    truth = _TRUTHS.get(key)
    if truth is None:
        truth = _TRUTHS[key] = _exact_truth(dtype, groups)
        while len(_TRUTHS) > _TRUTHS_KEPT:
            _TRUTHS.popitem(last=False)
    else:
        _TRUTHS.move_to_end(key)
    # a copy: callers may write into what they are given
    return replace(
        truth,
        value=None if truth.value is None else truth.value.copy(),
        sums=None if truth.sums is None else list(truth.sums),
        abs_sum=truth.abs_sum.copy(),
        pos_sum=list(truth.pos_sum),
        neg_sum=list(truth.neg_sum),
        finite=None if truth.finite is None else truth.finite.copy(),
    )


def _exact_truth(dtype: str, groups: Groups) -> Truth:
    x2d, n = groups.x2d, groups.n
    shape = groups.out_shape
    if not is_float(dtype):
        xi = x2d
        sums = _exact_int_sums(xi)
        with np.errstate(all="ignore"):
            abs_sum = np.abs(xi.astype(np.float64)).sum(axis=1) if xi.size else np.zeros(groups.nout)
        pos = _exact_int_sums(np.where(xi > 0, xi, 0).astype(xi.dtype))
        neg = _exact_int_sums(np.where(xi < 0, xi, 0).astype(xi.dtype))
        if n == 0:
            return Truth(None if groups.nout else np.zeros(shape, DTYPES[dtype]), 0, sums, abs_sum, pos, neg)
        out = np.array([trunc_div(s, n) for s in sums], dtype=object)
        value = np.array(out.tolist() if out.size else [], dtype=DTYPES[dtype]).reshape(shape)
        return Truth(value, n, sums, abs_sum, pos, neg)
    x = x2d.astype(np.float64)
    finite = np.isfinite(x).all(axis=1) if n else np.ones(groups.nout, bool)
    with np.errstate(all="ignore"):
        abs_sum = np.abs(x).sum(axis=1) if n else np.zeros(groups.nout)
    safe = np.where(np.isfinite(x), x, 0.0)
    sums = _exact_float_sums(safe, FLOAT_FORMATS[dtype][0])
    if n:
        has_nan = np.isnan(x).any(axis=1)
        pinf = np.isposinf(x).any(axis=1)
        ninf = np.isneginf(x).any(axis=1)
        all_negative_zero = ((x == 0) & np.signbit(x)).all(axis=1)
    else:
        has_nan = pinf = ninf = all_negative_zero = np.zeros(groups.nout, dtype=bool)
    res = np.empty(groups.nout, dtype=np.float64)
    for i in range(groups.nout):
        if n == 0 or has_nan[i] or (pinf[i] and ninf[i]):
            res[i] = math.nan
        elif pinf[i] or ninf[i]:
            res[i] = math.inf if pinf[i] else -math.inf
        elif sums[i] == 0:
            res[i] = -0.0 if all_negative_zero[i] else 0.0
        else:
            res[i] = round_rational(sums[i], n << SHIFT, dtype)
    value = res.astype(DTYPES[dtype]).reshape(shape)
    return Truth(value, n, sums, abs_sum, finite=finite)


def exact_truth_skipna(dtype: str, groups: Groups) -> np.ndarray:
    """The exact means of ``groups`` skipping NaN (meancli's --skipna): each the
    exact mean of its non-NaN values rounded once, divided by their count; NaN
    where none is left; infinities are values (+inf with -inf: NaN); -0.0 when
    every value kept is -0.0. Integers: exact_truth's values (they have no NaN)."""
    if not is_float(dtype):
        return exact_truth(dtype, groups).value
    x = groups.x2d.astype(np.float64)
    nan = np.isnan(x)
    kept = (~nan).sum(axis=1) if groups.n else np.zeros(groups.nout, np.int64)
    sums = _exact_float_sums(np.where(np.isfinite(x), x, 0.0), FLOAT_FORMATS[dtype][0])
    if groups.n:
        pinf = np.isposinf(x).any(axis=1)
        ninf = np.isneginf(x).any(axis=1)
        all_negative_zero = (((x == 0) & np.signbit(x)) | nan).all(axis=1)
    else:
        pinf = ninf = all_negative_zero = np.zeros(groups.nout, dtype=bool)
    res = np.empty(groups.nout, dtype=np.float64)
    for i in range(groups.nout):
        if kept[i] == 0 or (pinf[i] and ninf[i]):
            res[i] = math.nan
        elif pinf[i] or ninf[i]:
            res[i] = math.inf if pinf[i] else -math.inf
        elif sums[i] == 0:
            res[i] = -0.0 if all_negative_zero[i] else 0.0
        else:
            res[i] = round_rational(sums[i], int(kept[i]) << SHIFT, dtype)
    return res.astype(DTYPES[dtype]).reshape(groups.out_shape)


# --------------------------------------------------------------------------- exact means of arrays

# The one exact oracle of the tests: every test that needs the correctly rounded
# mean of an array asks exact_reduce_mean or exact_mean (both exact_truth).


def exact_reduce_mean(
    x: np.ndarray, axes: Sequence[int] | None = None, keepdims: bool = False, skipna: bool = False
) -> np.ndarray:
    """The exact ReduceMean of ``x`` over ``axes`` (None: all; negative axes
    wrap), rounded once to x's dtype (native byte order), shaped as ReduceMean
    shapes it.

    Floats: NaN over an empty set, per IEEE for NaN and infinities (+inf with
    -inf: NaN), -0.0 for a mean of -0.0s; integers: the exact sum divided by
    the count, truncated toward zero -- an empty set raises ZeroDivisionError.
    ``skipna``: the exact mean of each output's non-NaN values (exact_truth_skipna).
    """
    x = np.asarray(x)
    rank = x.ndim
    red = tuple(range(rank)) if axes is None else tuple(sorted({a % rank for a in axes})) if rank else ()
    kept = [d for d in range(rank) if d not in red]
    if keepdims:
        out_shape = tuple(1 if d in red else n for d, n in enumerate(x.shape))
    else:
        out_shape = tuple(x.shape[d] for d in kept)
    count = math.prod(x.shape[d] for d in red)
    rows = np.transpose(x, kept + list(red)).reshape(math.prod(x.shape[d] for d in kept), count)
    if skipna and is_float(spec_name(x.dtype)):
        return exact_truth_skipna(spec_name(x.dtype), Groups(rows, out_shape))
    truth = exact_truth(spec_name(x.dtype), Groups(rows, out_shape))
    if truth.value is None:
        raise ZeroDivisionError("integer mean over an empty set")
    return truth.value


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


def exact_mean(arrays: Sequence[np.ndarray], skipna: bool = False) -> np.ndarray:
    """The exact element-wise Mean of ``arrays`` (numpy broadcasting, up to rank 64),
    rounded once to their dtype (``skipna``: of the non-NaN values at each position)."""
    b = broadcast_all(arrays)
    stacked = np.stack([a.reshape(-1) for a in b], axis=-1)  # flat: rank 64 inputs stay legal
    return exact_reduce_mean(stacked, [1], skipna=skipna).reshape(b[0].shape)


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


# --------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One call of one operator version."""

    domain: str  # "onnx" | "openvino"
    op: str  # "ReduceMean" | "Mean"
    version: int
    dtype: str
    inputs: tuple[np.ndarray, ...]
    axes: tuple[int, ...] | None = None
    keepdims: bool | None = None
    noop: bool = False
    note: str = ""

    @property
    def opset(self) -> str:
        return f"{self.domain}:{self.version}"

    @property
    def label(self) -> str:
        return f"{self.op}-{self.version} ({self.domain})"

    def describe(self, limit: int = 160) -> str:
        parts = [f"{self.label} {self.dtype}"]
        for x in self.inputs:
            body = np.array2string(x.ravel()[:8], separator=",", max_line_width=10**6)
            more = "..." if x.size > 8 else ""
            parts.append(f"x{list(x.shape)}={body}{more}")
        if self.op == "ReduceMean":
            parts.append(f"axes={None if self.axes is None else list(self.axes)}")
            parts.append(f"keepdims={self.keepdims}")
            if self.noop:
                parts.append("noop_with_empty_axes=1")
        text = " ".join(parts)
        return text if len(text) <= limit else text[: limit - 3] + "..."


def reduced_axes(case: Case) -> tuple[int, ...]:
    """The normalized reduced axes (() for the identity), by the rules of docs/semantics.md."""
    rank = case.inputs[0].ndim
    axes = case.axes
    if axes is None or len(axes) == 0:
        if case.domain == "openvino":
            if axes is None:
                raise ValueError("openvino ReduceMean-1 requires axes")
            return ()
        if case.version >= 18 and case.noop:
            return ()
        return tuple(range(rank))
    return tuple(sorted(a % rank for a in axes))


def keepdims_of(case: Case) -> bool:
    if case.keepdims is not None:
        return case.keepdims
    return case.domain != "openvino"


def groups_of(case: Case) -> Groups:
    if case.op == "Mean":
        arrays = np.broadcast_arrays(*case.inputs)
        shape = arrays[0].shape if arrays else ()
        stacked = np.stack([c_order(a) for a in arrays])
        return Groups(stacked.reshape(len(arrays), -1).T.copy(), tuple(shape))
    x = case.inputs[0]
    axes = reduced_axes(case)
    kept = [d for d in range(x.ndim) if d not in axes]
    moved = np.transpose(x, kept + list(axes)) if x.ndim else x
    n = 1
    for d in axes:
        n *= x.shape[d]
    nout = 1
    for d in kept:
        nout *= x.shape[d]
    keep = keepdims_of(case)
    out_shape = (
        tuple((1 if d in axes else x.shape[d]) for d in range(x.ndim))
        if keep
        else tuple(x.shape[d] for d in kept)
    )
    return Groups(c_order(moved).reshape(nout, n), out_shape)


def run_meancli(case: Case, threads: int | None = 1) -> np.ndarray:
    import meancli

    if case.op == "Mean":
        return meancli.mean(*case.inputs, opset=case.opset, threads=threads)
    return meancli.reduce_mean(
        case.inputs[0],
        axes=None if case.axes is None else list(case.axes),
        keepdims=case.keepdims,
        opset=case.opset,
        threads=threads,
        # an attribute is given only to the versions that have it (ReduceMean-18)
        **({"noop_with_empty_axes": True} if case.noop else {}),
    )


# --------------------------------------------------------------------------- runtimes


class NoKernel(Exception):
    """The runtime has no implementation for this operator version and dtype."""


@lru_cache(maxsize=1)
def _onnx() -> Any:
    import onnx
    from onnx import TensorProto

    return onnx, TensorProto


def onnx_elem_type(dtype: str) -> int:
    _, tp = _onnx()
    return {
        "float16": tp.FLOAT16,
        "bfloat16": tp.BFLOAT16,
        "float32": tp.FLOAT,
        "float64": tp.DOUBLE,
        "int8": tp.INT8,
        "int16": tp.INT16,
        "int32": tp.INT32,
        "int64": tp.INT64,
        "uint8": tp.UINT8,
        "uint16": tp.UINT16,
        "uint32": tp.UINT32,
        "uint64": tp.UINT64,
    }[dtype]


@lru_cache(maxsize=4096)
def onnx_model_bytes(
    op: str,
    version: int,
    dtype: str,
    axes: tuple[int, ...] | None = None,
    keepdims: bool | None = None,
    noop: bool = False,
    n_inputs: int = 1,
) -> bytes:
    """A one-node ONNX model of ``op``-``version`` at opset ``version``.

    ReduceMean before 18: axes is an attribute (``()`` an explicitly empty list).
    ReduceMean-18: axes is the graph's second input ``axes`` (int64) when not None.
    Mean: inputs ``x0`` .. ``x{n-1}``. The data inputs are ``x`` / ``x0``... .
    """
    _, tp = _onnx()
    from onnx import AttributeProto, helper

    elem = onnx_elem_type(dtype)
    y = helper.make_tensor_value_info("y", elem, None)
    if op == "Mean":
        names = [f"x{i}" for i in range(n_inputs)]
        graph_inputs = [helper.make_tensor_value_info(nm, elem, None) for nm in names]
        node = helper.make_node("Mean", names, ["y"])
    else:
        graph_inputs = [helper.make_tensor_value_info("x", elem, None)]
        node_inputs = ["x"]
        if version >= 18 and axes is not None:
            graph_inputs.append(helper.make_tensor_value_info("axes", tp.INT64, [len(axes)]))
            node_inputs.append("axes")
        node = helper.make_node("ReduceMean", node_inputs, ["y"])
        if version < 18 and axes is not None:
            node.attribute.append(helper.make_attribute("axes", list(axes), attr_type=AttributeProto.INTS))
        if keepdims is not None:
            node.attribute.append(helper.make_attribute("keepdims", int(keepdims)))
        if version >= 18 and noop:
            node.attribute.append(helper.make_attribute("noop_with_empty_axes", 1))
    graph = helper.make_graph([node], f"{op}_{version}", graph_inputs, [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)], ir_version=8)
    return bytes(model.SerializeToString())


def _model_key(case: Case) -> tuple[Any, ...]:
    if case.op == "Mean":
        return ("Mean", case.version, case.dtype, None, None, False, len(case.inputs))
    axes = case.axes
    if case.version >= 18 and axes is not None:
        # ReduceMean-18 takes axes as an input: one model per arity
        return ("ReduceMean", case.version, case.dtype, tuple(range(len(axes))), case.keepdims, case.noop, 1)
    return ("ReduceMean", case.version, case.dtype, axes, case.keepdims, case.noop, 1)


def _feeds(case: Case, names: Sequence[str]) -> dict[str, np.ndarray]:
    arrays = list(case.inputs)
    if case.op == "ReduceMean" and case.version >= 18 and case.axes is not None:
        arrays.append(np.array(case.axes, dtype=np.int64))
    return {nm: c_order(a) for nm, a in zip(names, arrays, strict=True)}


@lru_cache(maxsize=2048)
def ort_session(key: tuple[Any, ...]) -> Any:
    """An onnxruntime CPU session for a model key; raises NoKernel (cached) when
    onnxruntime cannot build one (no kernel for the type or version)."""
    import onnxruntime as ort

    ort.set_default_logger_severity(3)
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    try:
        return ort.InferenceSession(onnx_model_bytes(*key), so, providers=["CPUExecutionProvider"])
    except Exception as exc:  # NOT_IMPLEMENTED / INVALID_GRAPH: no kernel for this version and type
        msg = str(exc).splitlines()[0]
        return NoKernel(msg)


def run_onnxruntime(case: Case) -> np.ndarray:
    sess = ort_session(_model_key(case))
    if isinstance(sess, NoKernel):
        raise sess
    names = [i.name for i in sess.get_inputs()]
    return np.asarray(sess.run(None, _feeds(case, names))[0])


@lru_cache(maxsize=2048)
def reference_evaluator(key: tuple[Any, ...]) -> Any:
    from onnx.reference import ReferenceEvaluator

    onnx, _ = _onnx()
    return ReferenceEvaluator(onnx.load_from_string(onnx_model_bytes(*key)))


def run_reference(case: Case) -> np.ndarray:
    ev = reference_evaluator(_model_key(case))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = ev.run(None, _feeds(case, list(ev.input_names)))[0]
    return np.asarray(out)


@lru_cache(maxsize=1)
def ov_core() -> Any:
    import openvino as ov

    return ov.Core()


def ov_runs_bf16_natively() -> bool:
    """True when OpenVINO's CPU plugin computes bfloat16 as bfloat16 on this CPU (its
    OPTIMIZATION_CAPABILITIES list BF16: AVX-512 BF16 or AMX); elsewhere it converts to float32."""
    return "BF16" in ov_core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")


def _ov_type(dtype: str) -> Any:
    import openvino as ov

    return ov.Type.bf16 if dtype == "bfloat16" else ov.Type(DTYPES[dtype])


@lru_cache(maxsize=1024)
def ov_compiled(dtype: str, shape: tuple[int, ...], axes: tuple[int, ...], keep_dims: bool) -> Any:
    """OpenVINO CPU: opset1 Parameter -> ReduceMean-1 with a Constant axes input ->
    Result, compiled once per (dtype, shape, axes, keep_dims). ``shape`` entries
    of -1 are dynamic (the CPU plugin refuses empty axes on a dynamic shape, so
    run_openvino passes the static shape then)."""
    import openvino as ov
    import openvino.opset1 as ops

    param = ops.parameter(ov.PartialShape(list(shape)), _ov_type(dtype), name="data")
    axes_const = ov.op.Constant(ov.Type.i64, ov.Shape([len(axes)]), list(axes))
    node = ops.reduce_mean(param, axes_const, keep_dims)
    model = ov.Model([node], [param], "ReduceMean_1")
    config = {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1}
    return ov_core().compile_model(model, "CPU", config)


def run_openvino(case: Case) -> np.ndarray:
    import openvino as ov

    if case.domain != "openvino" or case.axes is None:
        raise NoKernel("not an OpenVINO operator call")
    x = c_order(case.inputs[0])
    keep = keepdims_of(case)
    shape = tuple(x.shape) if len(case.axes) == 0 else (-1,) * x.ndim
    compiled = ov_compiled(case.dtype, shape, tuple(case.axes), keep)
    request = compiled.create_infer_request()
    if case.dtype == "bfloat16":
        tensor = ov.Tensor(ov.Type.bf16, ov.Shape(list(x.shape)))
        if x.size:
            tensor.data.view(np.uint16)[...] = x.view(np.uint16)
        request.infer({0: tensor})
        out = request.get_output_tensor(0).data
        return np.array(out).view(np.uint16).view(BF16).copy()
    request.infer({0: x})
    return np.array(request.get_output_tensor(0).data).copy()


RUNNERS: dict[str, Callable[[Case], np.ndarray]] = {
    "onnxruntime": run_onnxruntime,
    "onnx-reference": run_reference,
    "openvino": run_openvino,
}


def impls_for(case: Case) -> tuple[str, ...]:
    return ("openvino",) if case.domain == "openvino" else ("onnxruntime", "onnx-reference")


# --------------------------------------------------------------------------- agreement


def tolerance(dtype: str, n: int, abs_sum: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """The agreement tolerance for float ``dtype`` (per output element):
    one ulp of the exact result plus the error bound of recursive summation in
    ``dtype`` itself, u * sum(|x|) with u = 2**-p (p: the dtype's precision).
    An implementation that accumulates in ``dtype`` or anything wider and
    divides once stays within it."""
    u = unit_roundoff(dtype)
    t = np.asarray(truth, dtype=np.float64).ravel()
    ulps = np.array([ulp(dtype, v) for v in t.tolist()], dtype=np.float64)
    with np.errstate(all="ignore"):
        return ulps + u * np.asarray(abs_sum, dtype=np.float64).ravel() * (1.0 if n else 0.0)


def close(a: np.ndarray, b: np.ndarray, tol: np.ndarray | None) -> np.ndarray:
    """Elementwise agreement of two results: NaN with NaN, equal infinities,
    integers exactly, floats within ``tol``."""
    a = np.asarray(a).ravel()
    b = np.asarray(b).ravel()
    if tol is None:
        return a == b
    fa = a.astype(np.float64)
    fb = b.astype(np.float64)
    both_nan = np.isnan(fa) & np.isnan(fb)
    with np.errstate(all="ignore"):
        diff = np.abs(fa - fb)
        ok = (fa == fb) | both_nan | (np.isfinite(diff) & (diff <= tol))
    return ok


def meancli_accurate(case: Case, truth: Truth, got: np.ndarray) -> np.ndarray:
    """Per element: meancli's result is the truth, to the bit (docs/semantics.md:
    integers the truncated exact mean, floats the exact mean rounded once,
    signed zeros included; any NaN matches NaN)."""
    assert truth.value is not None
    want = truth.value.ravel()
    g = np.asarray(got).ravel()
    if not is_float(case.dtype):
        return g == want
    gf = g.astype(np.float64)
    wf = want.astype(np.float64)
    same = (gf == wf) & (np.signbit(gf) == np.signbit(wf))
    return same | (np.isnan(gf) & np.isnan(wf))


# --------------------------------------------------------------------------- documented deviations


@dataclass(frozen=True)
class Context:
    """What a deviation's explanation may look at."""

    case: Case
    groups: Groups
    truth: Truth
    got: np.ndarray  # the runtime's result, flat (empty when it raised)
    agree: np.ndarray  # per output element: the runtime agrees with meancli (within tolerance)
    error: str | None = None  # the runtime raised this instead of returning a result


# An explanation returns True (it accounts for the whole call: an error, or a
# bug that touches every element), False, or a per-output-element mask of the
# elements whose disagreement its mechanism accounts for.
Explanation = bool | np.ndarray


@dataclass(frozen=True)
class Deviation:
    key: str
    impl: str
    dtypes: tuple[str, ...]
    ops: tuple[str, ...]
    summary: str  # one line for the report: what differs and why
    explains: Callable[[Context], Explanation]


INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOATS = ("float16", "bfloat16", "float32", "float64")


def _result(ctx: Context) -> bool:
    return ctx.error is None and ctx.got.size == ctx.groups.nout


def _ref_mean_broadcast_error(ctx: Context) -> Explanation:
    """onnx.reference's Mean adds in place into a copy of the first input
    (``res = args[0].copy(); res += m``): numpy refuses once a later input
    broadcasts that copy to a bigger shape."""
    first = tuple(ctx.case.inputs[0].shape)
    return ctx.error is not None and "broadcast" in ctx.error and first != tuple(ctx.groups.out_shape)


def _ov_empty_axes_refused(ctx: Context) -> Explanation:
    case = ctx.case
    return (
        ctx.error is not None
        and "incorrect number of input/output dimensions" in ctx.error
        and case.axes == ()
        and not keepdims_of(case)
        and case.inputs[0].ndim > 0
    )


def _ov_identity_rank6(ctx: Context) -> Explanation:
    """Empty axes (the identity) on an input of rank >= 6 returns wrong values."""
    return _result(ctx) and ctx.case.axes == () and ctx.case.inputs[0].ndim >= 6


def _ov_int_rank6_rounds(ctx: Context) -> Explanation:
    """Integer ReduceMean on rank >= 6 inputs: some axes sets (e.g. (0, 2) of
    shape [3,1,1,1,1,3]) round the mean to nearest instead of truncating.
    The elements within half a unit of the exact mean."""
    if not _result(ctx) or ctx.truth.sums is None or ctx.truth.n == 0 or ctx.case.inputs[0].ndim < 6:
        return False
    n = ctx.truth.n
    return np.array(
        [2 * abs(int(g) * n - s) <= n for g, s in zip(ctx.got.tolist(), ctx.truth.sums, strict=True)]
    )


def _empty_groups_give(value: float) -> Callable[[Context], Explanation]:
    def explains(ctx: Context) -> Explanation:
        if not _result(ctx) or ctx.truth.n != 0:
            return False
        return np.asarray(ctx.got).astype(np.float64) == value

    return explains


def _empty_int_any(ctx: Context) -> Explanation:
    return _result(ctx) and ctx.truth.n == 0 and ctx.groups.nout > 0


def _sum_overflows(acc: str | None) -> Callable[[Context], Explanation]:
    """The sum accumulates in ``acc`` (None: the input dtype) and may overflow
    where sum(|x|) (a bound on every partial sum) exceeds acc's max."""

    def explains(ctx: Context) -> Explanation:
        if not _result(ctx):
            return False
        return ctx.truth.abs_sum > float_max(acc or ctx.case.dtype)

    return explains


def _ref_int_simulated(ctx: Context) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """onnx.reference's integer ReduceMean, exactly: np.mean(x, dtype=T) sums in T
    (modulo 2**bits) and true_divides in float64, then casts (truncates) to T.
    Returns (got == simulation, the sum wrapped, |wrapped sum| > 2**53)."""
    dt = DTYPES[ctx.case.dtype]
    bits = dt.itemsize * 8
    n = ctx.truth.n
    same, wrapped, inexact = (np.zeros(ctx.groups.nout, dtype=bool) for _ in range(3))
    if not _result(ctx) or ctx.truth.sums is None or n == 0:
        return same, wrapped, inexact
    got = ctx.got
    for i, s in enumerate(ctx.truth.sums):
        w = s % (1 << bits)
        if dt.kind == "i" and w >= 1 << (bits - 1):
            w -= 1 << bits
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = np.array(float(w) / float(n)).astype(dt)  # numpy's float -> T cast, as the reference does
        same[i] = int(sim) == int(got[i])
        wrapped[i] = w != s
        inexact[i] = abs(w) > 2**53
    return same, wrapped, inexact


def _ref_int_wraps(ctx: Context) -> Explanation:
    same, wrapped, _ = _ref_int_simulated(ctx)
    return same & wrapped


def _ref_int_double(ctx: Context) -> Explanation:
    same, wrapped, inexact = _ref_int_simulated(ctx)
    return same & inexact & ~wrapped


def _ort_int64_double(ctx: Context) -> Explanation:
    """onnxruntime's integer ReduceMean sums in double and casts back: int64 means
    whose sum(|x|) exceeds 2**53 lose bits (and a sum beyond int64 saturates)."""
    if not _result(ctx):
        return False
    # >=: abs_sum is itself a double, so any |x| just above 2**53 arrives as 2**53
    return ctx.truth.abs_sum >= 2.0**53


def _ov_f64_as_f32(ctx: Context) -> Explanation:
    """The CPU plugin runs float64 in float32: agreement at float32's tolerance, or
    inputs outside float32's range (saturated to +-FLT_MAX, float64 subnormals flushed)."""
    if not _result(ctx) or ctx.truth.value is None:
        return False
    x = ctx.groups.x2d.astype(np.float64)
    fmax, tiny = float_max("float32"), math.ldexp(1.0, -149)
    got = ctx.got.astype(np.float64)
    want = ctx.truth.value.astype(np.float64).ravel()
    tol32 = tolerance("float32", ctx.truth.n, ctx.truth.abs_sum, want)
    out = np.zeros(ctx.groups.nout, dtype=bool)
    for i in range(ctx.groups.nout):
        a = np.abs(x[i][np.isfinite(x[i])])
        if np.any(a > fmax) or np.any((a > 0) & (a < tiny)) or ctx.truth.abs_sum[i] > fmax:
            out[i] = True
            continue
        with np.errstate(all="ignore"):
            d = abs(got[i] - want[i])
        out[i] = bool(d <= tol32[i] or (math.isnan(got[i]) and math.isnan(want[i])))
    return out


def _ov_small_int_saturates(ctx: Context) -> Explanation:
    """int8/uint8: partial sums saturate at the type's range (in an order that
    depends on the kernel path): the groups where some partial sum can leave
    the range, sum of the positive parts > max or of the negative parts < min."""
    if not _result(ctx):
        return False
    info = np.iinfo(DTYPES[ctx.case.dtype])
    return np.array(
        [p > info.max or q < info.min for p, q in zip(ctx.truth.pos_sum, ctx.truth.neg_sum, strict=True)],
        dtype=bool,
    )


def _ov_int32_path(ctx: Context) -> Explanation:
    """int32 (and int64/uint64/uint32, which the CPU plugin runs as int32): the sum
    wraps modulo 2**32 and the division goes through float32, exact only while
    |sum| <= 2**24; int64/uint64 values are truncated to 32 bits and uint32
    values >= 2**31 read as negative. The groups with sum(|x|) > 2**24 or a
    value outside int32."""
    if not _result(ctx):
        return False
    x = ctx.groups.x2d.astype(np.float64)
    big = ((x > 2.0**31 - 1) | (x < -(2.0**31))).any(axis=1) if x.size else np.zeros(ctx.groups.nout, bool)
    return (ctx.truth.abs_sum > 2.0**24) | big


def _ov_bf16_subnormals_flushed(ctx: Context) -> Explanation:
    """bfloat16 subnormals (nonzero, below 2**-126) read or come out as 0: the
    groups holding such an input, or whose exact mean is one."""
    if not _result(ctx) or ctx.truth.value is None:
        return False
    tiny = math.ldexp(1.0, -126)
    x = np.abs(ctx.groups.x2d.astype(np.float64))
    sub_in = ((x > 0) & (x < tiny)).any(axis=1) if x.size else np.zeros(ctx.groups.nout, dtype=bool)
    want = np.abs(ctx.truth.value.astype(np.float64)).ravel()
    return sub_in | ((want > 0) & (want < tiny))


DEVIATIONS: tuple[Deviation, ...] = (
    # ---- onnxruntime
    Deviation(
        "ort-empty-float",
        "onnxruntime",
        FLOATS,
        ("ReduceMean",),
        "a float mean over a size-0 axis is 0 in onnxruntime; the README, numpy and the ONNX reference "
        "give NaN",
        _empty_groups_give(0.0),
    ),
    Deviation(
        "ort-empty-int",
        "onnxruntime",
        INT_DTYPES,
        ("ReduceMean",),
        "an integer mean over a size-0 axis is 0 in onnxruntime; meancli rejects it (undefined)",
        _empty_int_any,
    ),
    Deviation(
        "ort-int64-double",
        "onnxruntime",
        ("int64",),
        ("ReduceMean",),
        "onnxruntime's integer ReduceMean sums in double: int64 means with sum(|x|) > 2**53 lose low bits "
        "(and saturate instead of being exact)",
        _ort_int64_double,
    ),
    Deviation(
        "ort-f32-overflow",
        "onnxruntime",
        ("float32",),
        ("ReduceMean", "Mean"),
        "onnxruntime accumulates float32 in float32: a sum beyond FLT_MAX gives +-inf/NaN where the mean "
        "is finite",
        _sum_overflows("float32"),
    ),
    # ---- ONNX reference
    Deviation(
        "ref-empty-int",
        "onnx-reference",
        INT_DTYPES,
        ("ReduceMean",),
        "an integer mean over a size-0 axis is NaN cast to the integer type (INT_MIN, 0...) in the "
        "ONNX reference; meancli rejects it",
        _empty_int_any,
    ),
    Deviation(
        "ref-float-overflow",
        "onnx-reference",
        FLOATS,
        ("ReduceMean", "Mean"),
        "the ONNX reference sums in the input type (np.mean(dtype=T); Mean: res += x): a float16 sum "
        "beyond 65504 (bfloat16/float32/float64: beyond its max) gives +-inf/NaN",
        _sum_overflows(None),
    ),
    Deviation(
        "ref-mean-broadcast",
        "onnx-reference",
        FLOATS,
        ("Mean",),
        "the ONNX reference's Mean adds in place into a copy of the first input: it raises "
        "(ValueError: non-broadcastable output operand) when a later input broadcasts the first to a "
        "bigger shape",
        _ref_mean_broadcast_error,
    ),
    Deviation(
        "ref-int-wrap",
        "onnx-reference",
        ("int32", "int64", "uint32", "uint64"),
        ("ReduceMean",),
        "the ONNX reference sums integers in the input type (np.mean(dtype=T)), wrapping modulo 2**bits: "
        "a group whose exact sum is outside T's range comes out wrong",
        _ref_int_wraps,
    ),
    Deviation(
        "ref-int64-double",
        "onnx-reference",
        ("int64", "uint64"),
        ("ReduceMean",),
        "the ONNX reference divides with numpy's true_divide in float64: int64/uint64 sums beyond 2**53 "
        "lose low bits before the truncation",
        _ref_int_double,
    ),
    # ---- OpenVINO
    Deviation(
        "ov-empty-float",
        "openvino",
        FLOATS,
        ("ReduceMean",),
        "a float mean over a size-0 axis is 0 in OpenVINO's CPU plugin; meancli gives NaN",
        _empty_groups_give(0.0),
    ),
    Deviation(
        "ov-empty-int",
        "openvino",
        INT_DTYPES,
        ("ReduceMean",),
        "an integer mean over a size-0 axis is 0 in OpenVINO's CPU plugin; meancli rejects it",
        _empty_int_any,
    ),
    Deviation(
        "ov-empty-axes-keep-false",
        "openvino",
        FLOATS + INT_DTYPES,
        ("ReduceMean",),
        "OpenVINO's CPU plugin refuses to compile ReduceMean-1 with empty axes and keep_dims=false "
        '("incorrect number of input/output dimensions"); the spec makes it the identity '
        "(keep_dims=true works)",
        _ov_empty_axes_refused,
    ),
    Deviation(
        "ov-identity-rank6",
        "openvino",
        FLOATS + INT_DTYPES,
        ("ReduceMean",),
        "OpenVINO's CPU plugin returns wrong values for ReduceMean-1 with empty axes (the identity) "
        "on inputs of rank >= 6 (e.g. shape [1,1,1,1,1,2] [0,1] -> [0,0])",
        _ov_identity_rank6,
    ),
    Deviation(
        "ov-int-rank6-rounds",
        "openvino",
        INT_DTYPES,
        ("ReduceMean",),
        "OpenVINO's CPU plugin rounds integer means to nearest instead of truncating for some axes sets "
        "on rank-6 inputs (shape [3,1,1,1,1,3] axes (0, 2): [0, 3] -> 2, not 1)",
        _ov_int_rank6_rounds,
    ),
    Deviation(
        "ov-f64-as-f32",
        "openvino",
        ("float64",),
        ("ReduceMean",),
        "OpenVINO's CPU plugin runs float64 in float32: results agree to float32's tolerance only; "
        "inputs beyond FLT_MAX saturate and float64 subnormals flush to 0",
        _ov_f64_as_f32,
    ),
    Deviation(
        "ov-f32-overflow",
        "openvino",
        ("bfloat16", "float32"),
        ("ReduceMean",),
        "OpenVINO accumulates in float32: a sum beyond FLT_MAX gives +-inf/NaN (bfloat16 inputs too, "
        "e.g. a mean of values around 3e38)",
        _sum_overflows("float32"),
    ),
    Deviation(
        "ov-bf16-subnormal-flush",
        "openvino",
        ("bfloat16",),
        ("ReduceMean",),
        "OpenVINO's CPU plugin flushes bfloat16 subnormals to 0, on input and output, also for the "
        "identity (empty axes): [1.47e-39] gives 0 (float32 subnormals are kept); only on CPUs where it "
        "runs bfloat16 natively (its OPTIMIZATION_CAPABILITIES list BF16: AVX-512 BF16 or AMX), "
        "elsewhere it agrees",
        _ov_bf16_subnormals_flushed,
    ),
    Deviation(
        "ov-int8-saturate",
        "openvino",
        ("int8", "uint8"),
        ("ReduceMean",),
        "OpenVINO's CPU plugin saturates int8/uint8 partial sums at the type's range, on some kernel paths "
        "(mean of [127, 127] is 63; of [[0,0,0],[0,0,0],[28,100,-2]] over all axes 13, not 14)",
        _ov_small_int_saturates,
    ),
    Deviation(
        "ov-int32-path",
        "openvino",
        ("int32", "uint32", "int64", "uint64"),
        ("ReduceMean",),
        "OpenVINO's CPU plugin computes int32/uint32/int64/uint64 as int32 with a float32 division: "
        "sums wrap modulo 2**32, |sum| > 2**24 rounds, int64 values are cut to 32 bits, uint32 >= 2**31 "
        "reads as negative",
        _ov_int32_path,
    ),
)

# --------------------------------------------------------------------------- judging


@dataclass
class Verdict:
    impl: str
    status: str  # "agree" | "deviation" | "no-kernel" | "mismatch"
    key: str = ""  # the deviation's key, or the no-kernel message
    got: np.ndarray | None = None


@dataclass
class CaseResult:
    case: Case
    truth: Truth
    meancli: np.ndarray | None
    meancli_error: str | None
    meancli_ok: bool
    verdicts: dict[str, Verdict]

    def failures(self) -> list[str]:
        out = []
        if not self.meancli_ok:
            got = self.meancli if self.meancli is not None else self.meancli_error
            out.append(f"meancli: got {got!r}, want {self.truth.value!r} for {self.case.describe()}")
        for v in self.verdicts.values():
            if v.status == "mismatch":
                out.append(
                    f"{v.impl}: undocumented disagreement: got {v.got!r} {v.key}, meancli {self.meancli!r}, "
                    f"truth {self.truth.value!r} for {self.case.describe()}"
                )
        return out


def judge(case: Case, impl: str, groups: Groups, truth: Truth, basis: np.ndarray | None) -> Verdict:
    """Run ``impl`` on ``case`` and classify its result against ``basis``
    (meancli's result where meancli is right, the truth where it is not)."""
    got: np.ndarray | None = None
    error: str | None = None
    try:
        got = np.asarray(RUNNERS[impl](case))
    except NoKernel as exc:
        return Verdict(impl, "no-kernel", str(exc))
    except Exception as exc:
        error = f"{type(exc).__name__}: {' '.join(str(exc).split())[:400]}"
        if truth.value is None:  # undefined (integer mean over an empty set): refusing agrees with meancli
            return Verdict(impl, "agree", f"rejects: {error}")
    if got is not None and truth.value is not None and basis is not None:
        if got.shape != tuple(truth.value.shape) or got.dtype != truth.value.dtype:
            return Verdict(impl, "mismatch", f"shape/dtype {got.shape} {got.dtype}", got)
        tol = tolerance(case.dtype, truth.n, truth.abs_sum, truth.value) if is_float(case.dtype) else None
        agree = close(got, basis, tol)
        if agree.all():
            return Verdict(impl, "agree", "", got)
    else:
        agree = np.zeros(groups.nout, dtype=bool)
    flat = got.ravel() if got is not None else np.zeros(0)
    ctx = Context(case, groups, truth, flat, agree.ravel(), error)
    remaining = ~ctx.agree if error is None else np.ones(1, dtype=bool)
    used: list[str] = []
    for dev in DEVIATIONS:
        if dev.impl != impl or case.dtype not in dev.dtypes or case.op not in dev.ops:
            continue
        explained = dev.explains(ctx)
        if isinstance(explained, np.ndarray):
            if error is not None or not (remaining & explained).any():
                continue
            remaining = remaining & ~explained
        elif explained:
            remaining = np.zeros_like(remaining)
        else:
            continue
        used.append(dev.key)
        if not remaining.any():
            return Verdict(impl, "deviation", "+".join(used), got)
    return Verdict(impl, "mismatch", error or "", got)


def evaluate(case: Case, impls: Sequence[str] | None = None, threads: int | None = 1) -> CaseResult:
    """meancli against the exact truth, then every runtime against meancli."""
    from meancli.errors import SpecViolation

    groups = groups_of(case)
    truth = exact_truth(case.dtype, groups)
    mine: np.ndarray | None = None
    error: str | None = None
    basis: np.ndarray | None = None
    try:
        mine = run_meancli(case, threads=threads)
    except SpecViolation as exc:
        error = str(exc)
    if truth.value is None:
        ok = mine is None and error is not None and "empty" in error
    elif mine is None or mine.shape != truth.value.shape or mine.dtype != truth.value.dtype:
        ok = False
        basis = truth.value
    else:
        good = meancli_accurate(case, truth, mine)
        ok = bool(np.all(good))
        basis = np.where(good.reshape(mine.shape), mine, truth.value)
    chosen = impls_for(case) if impls is None else impls
    verdicts = {impl: judge(case, impl, groups, truth, basis) for impl in chosen}
    return CaseResult(case, truth, mine, error, ok, verdicts)


def axes_patterns(rank: int, domain: str) -> list[str]:
    """The axes patterns the conformance issue names that are valid for ``rank``
    (openvino has no omitted axes: its axes input is required)."""
    patterns = ["empty"] + (["omitted"] if domain == "onnx" else [])
    if rank >= 1:
        patterns += ["single", "all", "negative", "subset"]
    if rank >= 3:
        patterns.append("non-adjacent")
    return patterns
