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

The work is one pass of the compare kernel (templates/kernel_compare.c.j2, on the
available cores, on the instruction set measured for it: ``meancli isa``, kind
"compare"): chunks of 256 elements with equal bits are skipped, the others examined in
vectors, the errors in doubles only where one may raise the largest. Arrays
C-contiguous in native byte order (a memory-mapped file too) go to it whole, without a
copy; others in blocks of BLOCK_ELEMENTS, each copied. ulp_distance, the element-wise
distances, is numpy.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import kernels
from ..dtypes import (
    as_ml_dtypes,
    bfloat16_as_float32,
    is_bfloat16,
    is_float,
    itemsize,
    native_dtype,
    spec_name,
)
from ..errors import InputFileError, InternalError

#: Elements per block of an array that is not C-contiguous in native byte order: a copy
#: and a kernel call each (4 MiB of float32). C-contiguous native arrays (a memory-mapped
#: .npy included) are compared in one call.
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
_INT = {2: np.int16, 4: np.int32, 8: np.int64}


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
            finite value was given, or the reverse, and for float64 when the difference of
            two finite values exceeds the largest double), outside the NaN mismatches.
        max_rel: the largest relative error ``|got - expected| / |expected|`` (inf where
            0 is expected and something else was given, and where an infinity is expected
            or given and the other is not it; finite for float64 values whose difference
            passes the largest double: 1 + |got| / |expected|); the absolute error rounded
            to double, divided and rounded again, so for float64 values more than a factor
            of 2 apart and 64-bit integers more than 2**53 apart it may be 1 ulp from the
            exact quotient,
            outside the NaN mismatches.
        worst: the worst element (the first NaN mismatch when there is one, else the
            first with the largest distance; where every distance is 0, the first whose
            bits differ, such as -0.0 for 0.0, else the first); None when there are no
            elements.
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
        InputFileError: ``FILE: shape (2, 3) float32 does not match the result's shape (2,) float32``;
            ``FILE: dtype float64 does not match the result's dtype float32``.
    """
    want = (tuple(expected_shape), spec_name(np.dtype(expected_dtype)))
    have = (tuple(got.shape), spec_name(np.dtype(got.dtype)))
    if want[0] != have[0]:
        raise InputFileError(
            f"{against}: shape {have[0]} {have[1]} does not match the result's shape {want[0]} {want[1]}"
        )
    if want[1] != have[1]:
        raise InputFileError(f"{against}: dtype {have[1]} does not match the result's dtype {want[1]}")


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


class Tally:
    """A comparison with the correctly rounded result, fed the result block by block in C
    order as an engine produces it (plan.Job's ``check``: the streamed Mean writing
    its ``.npy`` output block by block compares each block too, and never holds the
    whole result), then finished.

    ``add(block, start)`` compares the result's elements ``start:start + block.size``
    (``block`` C-contiguous, native byte order) with the same elements of ``got``;
    blocks count only in order (one that does not start where the last ended is left
    to ``finish``). A kernel that compares the whole result as it writes it (the memory
    engine's: kernels.MeanKernel, kernels.ReduceKernel) reads ``whole_got()`` and hands
    what it found to ``add_found``. ``finish(expected)`` compares the elements not yet covered and
    returns the Comparison: with the whole result, or None when every element was
    added. The worst element's values are kept from its block as it passes.

    Raises (on construction): what ``compare`` raises for ``got``.
    """

    def __init__(
        self,
        shape: tuple[int, ...],
        dtype: Any,
        got: np.ndarray,
        against: str,
        tolerance: int = 0,
        threads: int | None = None,
    ) -> None:
        check_comparable(shape, dtype, got, against)
        self._name = spec_name(np.dtype(dtype))
        try:
            self._floating = is_float(self._name)
        except KeyError:
            raise InputFileError(f"{against}: {self._name} values are not compared") from None
        self._got, self._against, self._tolerance = got, against, tolerance
        self._threads = kernels.threads_of(threads)
        self.covered = 0  # elements [0, covered) are compared
        self._examined = self._nan_mismatch = self._ulp_sum = self._max_ulp = 0
        self._buckets = [0] * len(BUCKETS)
        self._max_abs = self._max_rel = 0.0
        self._first_nan: int | None = None
        self._at_max: int | None = None
        self._shape = tuple(shape)
        # the worst element's values, taken from its block (the result may never be whole)
        self._nan_values: tuple[float | int, float | int] | None = None
        self._max_values: tuple[float | int, float | int] | None = None
        self._first_values: tuple[float | int, float | int] | None = None  # element 0's

    def add(self, block: np.ndarray, start: int) -> None:
        """Compare ``block``, the result's elements from flat index ``start`` in C order."""
        if start != self.covered or not block.size:
            return
        got = np.asarray(_block(self._got, start, start + block.size), order="C")
        self._take(kernels.run_compare(self._name, block.reshape(-1), got, self._threads), block, got, start)

    def whole_got(self) -> np.ndarray | None:
        """The compared array as a kernel that compares the whole result as it writes it
        reads it (C-contiguous, native byte order), or None when it is not such an array,
        or when part of the result was compared already (then ``add`` or ``finish``)."""
        got = self._got
        if self.covered or not got.size or not (got.flags.c_contiguous and got.dtype.isnative):
            return None
        return got

    def add_found(self, found: kernels.CompareStats, result: np.ndarray) -> None:
        """Take what a kernel found comparing the whole ``result`` (C-contiguous) with
        ``whole_got()`` as it wrote it; nothing when part was compared already."""
        if self.covered or not result.size:
            return
        self._take(found, result.reshape(-1), self._got.reshape(-1), 0)

    def _take(self, found: kernels.CompareStats, block: np.ndarray, got: np.ndarray, start: int) -> None:
        """Count what comparing ``block`` (flat, from element ``start``) with ``got`` (flat) found."""
        stop = start + block.size
        if start == 0:
            self._first_values = _values(block, got, 0)
        self._examined += found.examined
        self._nan_mismatch += found.nan_mismatch
        self._ulp_sum += found.ulp_sum
        self._buckets = [x + y for x, y in zip(self._buckets, found.buckets, strict=True)]
        self._max_abs, self._max_rel = max(self._max_abs, found.max_abs), max(self._max_rel, found.max_rel)
        if self._first_nan is None and found.first_nan >= 0:
            self._first_nan = start + found.first_nan
            self._nan_values = _values(block, got, found.first_nan)
        if found.at_max >= 0 and (self._at_max is None or found.max_ulp > self._max_ulp):
            self._max_ulp, self._at_max = found.max_ulp, start + found.at_max
            self._max_values = _values(block, got, found.at_max)
        self.covered = stop

    def finish(self, expected: np.ndarray | None) -> Comparison:
        """Compare what ``add`` has not covered of ``expected`` (the whole result, any
        layout and byte order; None when every element was added) and return the
        Comparison.

        Raises:
            InternalError: ``expected`` is None while elements were not added.
        """
        total = math.prod(self._shape)
        if expected is None:
            if self.covered != total:
                raise InternalError(f"{self._against}: {total - self.covered} elements were never compared")
        else:
            # arrays in memory as the kernel reads them: one call over the rest (on every
            # thread); another layout or byte order: blocks, each copied
            whole = all(x.flags.c_contiguous and x.dtype.isnative for x in (expected, self._got))
            step = max(total - self.covered, 1) if whole else BLOCK_ELEMENTS
            for start in range(self.covered, total, step):
                self.add(np.asarray(_block(expected, start, min(start + step, total)), order="C"), start)
        histogram = {label: count for (label, _, _), count in zip(BUCKETS, self._buckets, strict=True)}
        histogram["0"] += total - self._examined
        histogram[NAN_MISMATCH] = self._nan_mismatch
        counted = total - self._nan_mismatch
        worst = None
        if total:
            if self._first_nan is not None and self._nan_values is not None:
                flat, (e, g), ulp = self._first_nan, self._nan_values, None
            elif self._at_max is not None and self._max_values is not None:
                flat, (e, g), ulp = self._at_max, self._max_values, self._max_ulp
            else:  # every element exact: the first is the worst
                assert self._first_values is not None  # total > 0: element 0 was added
                flat, (e, g), ulp = 0, self._first_values, 0
            index = tuple(int(i) for i in np.unravel_index(flat, self._shape)) if self._shape else ()
            worst = Worst(index, e, g, ulp)
        return Comparison(
            against=self._against,
            dtype=self._name,
            total=total,
            inexact=total - histogram["0"],
            nan_mismatch=self._nan_mismatch,
            max_ulp=self._max_ulp,
            mean_ulp=self._ulp_sum / counted if counted else 0.0,
            tolerance=self._tolerance,
            max_abs=self._max_abs if self._floating else self._max_ulp,
            max_rel=self._max_rel,
            worst=worst,
            histogram=histogram,
        )


def compare(
    expected: np.ndarray, got: np.ndarray, against: str, tolerance: int = 0, threads: int | None = None
) -> Comparison:
    """Compare ``got`` with the correctly rounded ``expected``, element by element
    (one Tally over the whole result).

    Args:
        expected: the correctly rounded result (any layout and byte order).
        got: the array to judge: the same shape and spec dtype (bfloat16, float16,
            float32, float64, or an integer type); any layout and byte order; a
            memory-mapped file is read block by block.
        against: what ``got`` is, for the report.
        tolerance: the largest distance accepted (>= 0).
        threads: the compare kernel's threads (None: the available cores).

    Returns:
        The Comparison.

    Raises:
        InputFileError: the shapes or dtypes differ (check_comparable), or the dtype is
            not one of the table's.
        KernelBuildError: the compiled kernels are missing or stale.
    """
    # bfloat16 either raw (the command line's) or ml_dtypes': the kernel reads the bits,
    # _value widens the worst element without ml_dtypes (its import is about a second)
    return Tally(expected.shape, expected.dtype, got, against, tolerance, threads).finish(expected)


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
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    a = np.asarray(np.broadcast_to(np.asarray(a, native_dtype(a.dtype)), shape), order="C").reshape(-1)
    b = np.asarray(np.broadcast_to(np.asarray(b, native_dtype(b.dtype)), shape), order="C").reshape(-1)
    if is_float(name):
        uint = _UINT[itemsize(name)]
        out, nan_a, nan_b = _float_distance(a.view(uint), b.view(uint), _inf_bits(a.dtype))
        out[nan_a & nan_b] = 0
        out[nan_a ^ nan_b] = np.iinfo(np.uint64).max
        return out.reshape(shape)
    return _int_distance(a, b).reshape(shape)


def _block(x: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Elements ``start:stop`` of ``x`` in C order, in native byte order (a view when it can be)."""
    part = x.reshape(-1)[start:stop] if x.flags.c_contiguous else np.asarray(x.flat[start:stop])
    return part if part.dtype.isnative else part.astype(native_dtype(part.dtype))


def _ordered(bits: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The float bits ``bits`` (unsigned) as int64 in the order of their values (+0.0 and
    -0.0 both 0; the magnitude negated when the sign is set), and the magnitudes."""
    signed = bits.view(_INT[bits.dtype.itemsize])
    magnitude = signed & signed.dtype.type(np.iinfo(signed.dtype).max)
    order = np.where(signed < 0, -magnitude.astype(np.int64), magnitude.astype(np.int64))
    return order, magnitude


def _float_distance(bits_a: np.ndarray, bits_b: np.ndarray, inf_bits: int) -> tuple[np.ndarray, ...]:
    """Distances (uint64) of two arrays of float bits (``inf_bits``: +inf's), and each side's NaN mask."""
    order_a, mag_a = _ordered(bits_a)
    order_b, mag_b = _ordered(bits_b)
    inf = mag_a.dtype.type(inf_bits)
    return _int_distance(order_a, order_b), mag_a > inf, mag_b > inf


def _inf_bits(dtype: np.dtype[Any]) -> int:
    """The bits of +inf in ``dtype`` (float16 0x7C00, bfloat16 0x7F80: one width, two exponents)."""
    return int(np.array(np.inf, dtype=dtype).view(_UINT[dtype.itemsize]))


def _int_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| as uint64, exact for every integer dtype (int64 extremes included)."""
    larger = a >= b
    ua, ub = a.astype(np.uint64), b.astype(np.uint64)  # two's complement: the difference wraps right
    return np.where(larger, ua - ub, ub - ua)


def _values(block: np.ndarray, got: np.ndarray, at: int) -> tuple[float | int, float | int]:
    """The exact and the compared value at index ``at`` of two flat blocks."""
    return _value(block.reshape(-1)[at : at + 1][0]), _value(got[at : at + 1][0])


def _value(x: Any) -> float | int:
    """One element as a Python float (bfloat16 widened exactly) or int."""
    if x.dtype.kind in "iu":
        return int(x)
    with np.errstate(invalid="ignore"):  # a signalling NaN widens quietly (it is reported as NaN)
        if is_bfloat16(x.dtype):
            return float(bfloat16_as_float32(np.asarray(x)).reshape(-1)[0])
        return float(np.asarray(x).astype(np.float64))
