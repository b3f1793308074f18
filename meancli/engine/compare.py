"""Compare another result with the correctly rounded one, element by element (meancli's own
check, not part of ONNX): the ULP distance of each element, for ``--compare FILE`` and
``check-onnx``.

The distance between two floats of one dtype is the number of representable values
of that dtype from one to the other: the sign-magnitude bits ``b`` of each become a
monotonic integer (``b`` when the sign bit is clear, ``-(b & ~signbit)`` when set), and
the distance is the difference of the two integers. So +0.0 and -0.0 are 0 apart, the
largest finite value and inf are 1 apart, the smallest subnormals of either sign are 2
apart. NaN where NaN is expected is a match (whatever the payloads); a number where NaN
is expected, or NaN where a number is expected, is a *NaN mismatch*, beyond any
tolerance. For integers the distance is the absolute difference, exact (uint64
arithmetic: an int64 or uint64 difference may exceed 2**63).

The work is pure numpy, in blocks of BLOCK_ELEMENTS elements: the compared array
(often a memory-mapped file) is read block by block, never copied whole, and only the
elements whose bits differ are examined further, so an exact result costs one
comparison of the bits.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..dtypes import as_ml_dtypes, is_float, itemsize, native_dtype, spec_name
from ..errors import InputFileError

#: Elements per block (4 MiB of float32); the temporaries of a block are a few times that.
BLOCK_ELEMENTS = 1 << 20
#: The histogram's buckets: (label, lowest distance, highest distance); then "nan_mismatch".
BUCKETS: tuple[tuple[str, int, float], ...] = (
    ("0", 0, 0),
    ("1", 1, 1),
    ("2-4", 2, 4),
    ("5-16", 5, 16),
    (">16", 17, math.inf),
)
NAN_MISMATCH = "nan_mismatch"
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
#: A block where at least 1 element in DENSE_FRACTION differs is examined whole: gathering
#: the differing elements costs more than it saves.
DENSE_FRACTION = 8
_EDGES = np.array([1, 2, 5, 17], dtype=np.uint64)  # BUCKETS' lower bounds after the first


class Worst(NamedTuple):
    """The worst element: its index ``at`` (one int per dim), the exact value, the
    compared value (Python floats or ints) and its distance (None: a NaN mismatch)."""

    at: tuple[int, ...]
    expected: float | int
    got: float | int
    ulp: int | None


class Comparison(NamedTuple):
    """What comparing one array with the correctly rounded result found.

    Attributes:
        against: what was compared (a file, a test directory's output).
        dtype: the spec name of both arrays' dtype.
        total: elements compared.
        inexact: elements that are not exact (distance > 0, or a NaN mismatch).
        nan_mismatch: elements where one is NaN and the other is not.
        max_ulp: the largest distance outside the NaN mismatches (0 when none); for
            integers the largest absolute difference.
        mean_ulp: the mean distance outside the NaN mismatches (0.0 when none).
        tolerance: the largest distance accepted (``--max-ulp``).
        max_abs: the largest absolute error (a float; inf when an inf is expected and a
            finite value was given, or the reverse), outside the NaN mismatches.
        max_rel: the largest relative error ``|got - expected| / |expected|`` (inf where
            0 is expected and something else was given), outside the NaN mismatches.
        worst: the worst element (the first NaN mismatch when there is one, else the
            first with the largest distance); None when there are no elements.
        histogram: elements per bucket (BUCKETS' labels and ``nan_mismatch``).
    """

    against: str
    dtype: str
    total: int
    inexact: int
    nan_mismatch: int
    max_ulp: int
    mean_ulp: float
    tolerance: int
    max_abs: float | int
    max_rel: float
    worst: Worst | None
    histogram: dict[str, int]

    @property
    def within(self) -> bool:
        """Whether every element is within ``tolerance`` (no NaN mismatch)."""
        return self.nan_mismatch == 0 and self.max_ulp <= self.tolerance


def check_comparable(expected_shape: tuple[int, ...], expected_dtype: Any, got: Any, against: str) -> None:
    """Refuse, in one line saying both, an array whose shape or dtype is not the result's.

    Args:
        expected_shape, expected_dtype: the correctly rounded result's (known before it is computed).
        got: the array to compare (anything with ``shape`` and ``dtype``).
        against: how messages name it.

    Raises:
        InputFileError: ``FILE: shape (2, 3) float32 does not match the result's shape (2,) float32``.
    """
    want = (tuple(expected_shape), spec_name(np.dtype(expected_dtype)))
    have = (tuple(got.shape), spec_name(np.dtype(got.dtype)))
    if want != have:
        raise InputFileError(
            f"{against}: shape {have[0]} {have[1]} does not match the result's shape {want[0]} {want[1]}"
        )


def open_compared(arg: str, shape: tuple[int, ...], dtype: Any) -> tuple[str, np.ndarray]:
    """Open the FILE argument ``arg`` to compare with a result of ``shape`` and ``dtype``,
    through the input registry like any input (a ``.npy`` file memory-mapped, not read).

    Returns:
        The name the report gives it (``path``, ``path.npz:member``, ``-``) and the array
        (file byte order and layout).

    Raises:
        InputFileError: unreadable or malformed; several arrays (an ``.npz`` without
            ``:NAME``); a zarr store or shard dataset (not compared); a shape or dtype
            other than the result's (check_comparable).
    """
    from ..io.registry import Opening, open_input

    named = open_input(arg, Opening(stream=False, lazy=False, mmap=True))
    if len(named) != 1:
        listed = ", ".join(n.name for n in named)
        raise InputFileError(f"{arg}: holds {len(named)} arrays ({listed}); name one as {arg}:NAME")
    (item,) = named
    if not isinstance(item.data, np.ndarray):
        raise InputFileError(f"{arg}: only .npy, .pb and .npz members (or stdin) are compared")
    check_comparable(shape, dtype, item.data, item.name)
    return item.name, item.data


def compare(expected: np.ndarray, got: np.ndarray, against: str, tolerance: int = 0) -> Comparison:
    """Compare ``got`` with the correctly rounded ``expected``, element by element.

    Args:
        expected: the correctly rounded result (any layout and byte order).
        got: the array to judge: the same shape and spec dtype (bfloat16, float16,
            float32, float64, or an integer type); any layout and byte order; a
            memory-mapped file is read block by block.
        against: what ``got`` is, for the report.
        tolerance: the largest distance accepted (>= 0).

    Returns:
        The Comparison.

    Raises:
        InputFileError: the shapes or dtypes differ (check_comparable), or the dtype is
            not one of the table's.
    """
    # the command line's bfloat16 is raw 2-byte data: the values need ml_dtypes' view
    expected, got = as_ml_dtypes(expected), as_ml_dtypes(got)
    check_comparable(expected.shape, expected.dtype, got, against)
    name = spec_name(expected.dtype)
    try:
        floating = is_float(name)
        width = itemsize(name)
    except KeyError:
        raise InputFileError(f"{against}: {name} values are not compared") from None
    acc = _Accumulator(floating, _inf_bits(native_dtype(expected.dtype)) if floating else 0)
    total = int(expected.size)
    for start in range(0, total, BLOCK_ELEMENTS):
        stop = min(start + BLOCK_ELEMENTS, total)
        a = _block(expected, start, stop)
        b = _block(got, start, stop)
        bits_a, bits_b = a.view(_UINT[width]), b.view(_UINT[width])
        ne = bits_a != bits_b
        n_differ = int(np.count_nonzero(ne))
        if n_differ * DENSE_FRACTION >= ne.size:  # many differ: the whole block, no gathering
            acc.add(start, a, b, bits_a, bits_b, None)
        elif n_differ:
            differ = np.flatnonzero(ne)
            acc.add(start, a[differ], b[differ], bits_a[differ], bits_b[differ], differ)
    histogram = {label: 0 for label, _, _ in BUCKETS}
    histogram.update(acc.histogram)
    histogram["0"] += total - acc.examined
    histogram[NAN_MISMATCH] = acc.nan_mismatch
    counted = total - acc.nan_mismatch
    worst = None
    if total:
        flat = acc.worst_flat if acc.worst_flat is not None else 0
        index = tuple(int(i) for i in np.unravel_index(flat, expected.shape)) if expected.ndim else ()
        e, g = _value(_block(expected, flat, flat + 1)[0]), _value(_block(got, flat, flat + 1)[0])
        worst = Worst(index, e, g, None if acc.worst_is_nan else acc.max_ulp)
    return Comparison(
        against=against,
        dtype=name,
        total=total,
        inexact=total - histogram["0"],
        nan_mismatch=acc.nan_mismatch,
        max_ulp=acc.max_ulp,
        mean_ulp=acc.ulp_sum / counted if counted else 0.0,
        tolerance=tolerance,
        max_abs=acc.max_abs if floating else acc.max_ulp,
        max_rel=acc.max_rel,
        worst=worst,
        histogram=histogram,
    )


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The element-wise distance of two arrays of one float or integer dtype, as uint64.

    Floats: the number of representable values from one to the other (the docstring
    of this module); a pair with a NaN gives 0 when both are NaN and 2**64 - 1 when
    only one is. Integers: the absolute difference, exact.

    Raises:
        KeyError: a dtype not in the table.
    """
    a, b = as_ml_dtypes(a), as_ml_dtypes(b)
    name = spec_name(a.dtype)
    a, b = np.asarray(a, native_dtype(a.dtype)), np.asarray(b, native_dtype(b.dtype))
    if is_float(name):
        uint = _UINT[itemsize(name)]
        out, nan_a, nan_b = _float_distance(a.view(uint), b.view(uint), _inf_bits(a.dtype))
        out[nan_a & nan_b] = 0
        out[nan_a ^ nan_b] = np.iinfo(np.uint64).max
        return out
    return _int_distance(a, b)


def _block(x: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Elements ``start:stop`` of ``x`` in C order, in native byte order (a view when it can be)."""
    part = x.reshape(-1)[start:stop] if x.flags.c_contiguous else np.asarray(x.flat[start:stop])
    return part if part.dtype.isnative else part.astype(native_dtype(part.dtype))


def _float_distance(bits_a: np.ndarray, bits_b: np.ndarray, inf_bits: int) -> tuple[np.ndarray, ...]:
    """Distances (uint64) of two arrays of float bits (``inf_bits``: +inf's), and each side's NaN mask."""
    sign = np.uint64(1 << (8 * bits_a.dtype.itemsize - 1))
    a, b = bits_a.astype(np.uint64), bits_b.astype(np.uint64)
    mag_a, mag_b = a & ~sign, b & ~sign
    inf = np.uint64(inf_bits)
    nan_a, nan_b = mag_a > inf, mag_b > inf
    same_sign = (a & sign) == (b & sign)
    # same sign: the magnitudes' difference; opposite signs: their sum (< 2**64: each is < 2**63)
    out = np.where(same_sign, np.maximum(mag_a, mag_b) - np.minimum(mag_a, mag_b), mag_a + mag_b)
    return out, nan_a, nan_b


def _inf_bits(dtype: np.dtype[Any]) -> int:
    """The bits of +inf in ``dtype`` (float16 0x7C00, bfloat16 0x7F80: one width, two exponents)."""
    return int(np.array(np.inf, dtype=dtype).view(_UINT[dtype.itemsize]))


def _int_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| as uint64, exact for every integer dtype (int64 extremes included)."""
    larger = a >= b
    ua, ub = a.astype(np.uint64), b.astype(np.uint64)  # two's complement: the difference wraps right
    return np.where(larger, ua - ub, ub - ua)


def _value(x: Any) -> float | int:
    """One element as a Python float (bfloat16 widened exactly) or int."""
    if x.dtype.kind in "iu":
        return int(x)
    return float(np.asarray(x).astype(np.float64))


class _Accumulator:
    """The running totals of compare() over the elements whose bits differ."""

    def __init__(self, floating: bool, inf_bits: int) -> None:
        self.floating = floating
        self.inf_bits = inf_bits
        self.examined = 0
        self.nan_mismatch = 0
        self.max_ulp = 0
        self.ulp_sum = 0.0
        self.max_abs = 0.0
        self.max_rel = 0.0
        self.worst_flat: int | None = None
        self.worst_is_nan = False
        self.histogram: dict[str, int] = {}

    def add(
        self,
        start: int,
        a: np.ndarray,
        b: np.ndarray,
        bits_a: np.ndarray,
        bits_b: np.ndarray,
        where: np.ndarray | None,
    ) -> None:
        """Add the pairs ``a``, ``b`` (their bits ``bits_a``, ``bits_b``) at the flat
        positions ``start + where`` (None: ``start + arange``: a whole block)."""
        self.examined += int(a.size)
        if self.floating:
            dist, nan_a, nan_b = _float_distance(bits_a, bits_b, self.inf_bits)
            mismatch = nan_a ^ nan_b
            both_nan = nan_a & nan_b
            dist[both_nan] = 0
            keep = ~mismatch
            n_mismatch = int(np.count_nonzero(mismatch))
            if n_mismatch and not self.worst_is_nan:
                self.worst_is_nan = True
                first = int(np.argmax(mismatch))
                self.worst_flat = start + (first if where is None else int(where[first]))
            self.nan_mismatch += n_mismatch
            if n_mismatch:
                where = np.flatnonzero(keep) if where is None else where[keep]
                dist, a, b = dist[keep], a[keep], b[keep]
        else:
            dist = _int_distance(a, b)
        self._errors(a, b)
        # the bucket of each distance: 0, 1, 2-4, 5-16, >16
        counts = np.bincount(np.searchsorted(_EDGES, dist, side="right"), minlength=len(BUCKETS))
        for (label, _, _), n in zip(BUCKETS, counts.tolist(), strict=True):
            self.histogram[label] = self.histogram.get(label, 0) + n
        if dist.size == 0:
            return
        self.ulp_sum += float(dist.sum(dtype=np.float64))
        at = int(np.argmax(dist))
        largest = int(dist[at])
        position = start + (at if where is None else int(where[at]))
        if largest > self.max_ulp:
            self.max_ulp = largest
            if not self.worst_is_nan:
                self.worst_flat = position
        elif self.worst_flat is None:
            self.worst_flat = position

    def _errors(self, a: np.ndarray, b: np.ndarray) -> None:
        """The largest absolute and relative errors of the pairs (no NaN mismatch among them).

        A NaN pair and equal infinities give a NaN difference (no error), ±0 a zero
        one; fmax leaves the NaNs out. An infinite absolute error is an infinite
        relative one (inf expected and a finite value given gives inf / inf = NaN)."""
        if a.size == 0:
            return
        x, y = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(all="ignore"):
            abs_err = np.abs(y - x)
            largest = float(np.fmax.reduce(abs_err, initial=0.0))
            rel = math.inf if math.isinf(largest) else float(np.fmax.reduce(abs_err / np.abs(x), initial=0.0))
        self.max_abs = max(self.max_abs, largest)
        self.max_rel = max(self.max_rel, rel)
