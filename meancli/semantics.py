"""The rules every operator version shares, parameterised by its spec.

The generated validators (``meancli.generated.validators``, one function per
operator version) call these with the constants of their spec. Each check
raises :class:`~meancli.errors.SpecViolation` with a one-line message that
names the operator version and what it allows.
"""

from __future__ import annotations

from collections.abc import Sequence

from .errors import SpecViolation


class ReduceCall:
    """A validated ReduceMean call (read-only; a plain slotted class, cheap to import).

    Attributes:
        reduce_mask: one flag per input dim, True where the dim is reduced
            (all False for the identity).
        out_shape: the output shape, keepdims applied.
        axes: the normalized reduced axes, ascending (empty for the identity).
        keepdims: the keepdims value in force.
        count: elements averaged into each output element (1 for the identity).
    """

    __slots__ = ("axes", "count", "keepdims", "out_shape", "reduce_mask")
    reduce_mask: tuple[bool, ...]
    out_shape: tuple[int, ...]
    axes: tuple[int, ...]
    keepdims: bool
    count: int

    def __init__(
        self,
        reduce_mask: tuple[bool, ...],
        out_shape: tuple[int, ...],
        axes: tuple[int, ...],
        keepdims: bool,
        count: int,
    ) -> None:
        # read-only: validations are cached and the same object is handed out again
        set_ = object.__setattr__
        set_(self, "reduce_mask", reduce_mask)
        set_(self, "out_shape", out_shape)
        set_(self, "axes", axes)
        set_(self, "keepdims", keepdims)
        set_(self, "count", count)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ReduceCall is read-only")

    def __repr__(self) -> str:
        return (
            f"ReduceCall(reduce_mask={self.reduce_mask}, out_shape={self.out_shape}, axes={self.axes}, "
            f"keepdims={self.keepdims}, count={self.count})"
        )


def check_dtype(dtype: str, allowed: tuple[str, ...], label: str) -> None:
    """Raise SpecViolation unless ``dtype`` (a spec type name) is in ``allowed``."""
    if dtype not in allowed:
        raise SpecViolation(f"{label} does not accept {dtype} (it accepts: {', '.join(allowed)})")


def normalize_axes(axes: Sequence[int], rank: int, label: str) -> tuple[int, ...]:
    """Map axes in [-rank, rank-1] to [0, rank-1], ascending.

    Raises:
        SpecViolation: an axis out of range (a rank-0 input accepts none), or
            an axis named twice (also ``1`` with ``-2`` on rank 3).
    """
    seen: dict[int, int] = {}
    for axis in axes:
        if not -rank <= axis < rank:
            if rank == 0:
                raise SpecViolation(f"{label}: axis {axis} given for a rank-0 input, which has no axes")
            raise SpecViolation(
                f"{label}: axis {axis} is out of range for rank {rank} (allowed: {-rank}..{rank - 1})"
            )
        norm = axis + rank if axis < 0 else axis
        if norm in seen:
            raise SpecViolation(f"{label}: axis {axis} repeats axis {seen[norm]} (both are dimension {norm})")
        seen[norm] = axis
    return tuple(sorted(seen))


def resolve_axes(
    axes: Sequence[int] | None,
    rank: int,
    *,
    when_omitted: str,
    when_empty: str,
    noop_with_empty_axes: bool,
    label: str,
) -> tuple[int, ...]:
    """The axes to reduce, after the spec's rules for omitted and empty axes.

    ``when_omitted``/``when_empty`` are the spec's axes rules: ``reduce_all``,
    ``identity``, ``error`` or ``noop_with_empty_axes`` (identity when that
    attribute is set, reduce_all otherwise). The identity is returned as ().

    Raises:
        SpecViolation: axes required but omitted, or see :func:`normalize_axes`.
    """
    if axes is None or len(axes) == 0:
        rule = when_omitted if axes is None else when_empty
        if rule == "noop_with_empty_axes":
            rule = "identity" if noop_with_empty_axes else "reduce_all"
        if rule == "error":
            raise SpecViolation(
                f"{label} requires axes (--axes A [A ...] or axes=[...]; an empty list for none)"
            )
        return () if rule == "identity" else tuple(range(rank))
    return normalize_axes(axes, rank, label)


def reduce_call(shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool) -> ReduceCall:
    """Build the ReduceCall for normalized ``axes`` over ``shape``."""
    reduced = set(axes)
    mask = tuple(d in reduced for d in range(len(shape)))
    if keepdims:
        out_shape = tuple(1 if m else n for n, m in zip(shape, mask, strict=True))
    else:
        out_shape = tuple(n for n, m in zip(shape, mask, strict=True) if not m)
    count = 1
    for n, m in zip(shape, mask, strict=True):
        if m:
            count *= n
    return ReduceCall(mask, out_shape, axes, keepdims, count)


def broadcast_shapes(shapes: Sequence[tuple[int, ...]], label: str) -> tuple[int, ...]:
    """Multidirectional (numpy-style) broadcasting of ``shapes``.

    Raises:
        SpecViolation: two dims that differ and neither is 1.
    """
    rank = max(len(s) for s in shapes)
    out = [1] * rank
    for shape in shapes:
        for i, n in enumerate(shape):
            j = rank - len(shape) + i
            if n != out[j] and n != 1:
                if out[j] != 1:
                    listed = " ".join(str(tuple(s)) for s in shapes)
                    raise SpecViolation(f"{label}: shapes {listed} do not broadcast (dimension {j - rank})")
                out[j] = n
    # a 0 beats 1, but 0 against any other size was rejected above
    return tuple(out)


def equal_shapes(shapes: Sequence[tuple[int, ...]], label: str) -> tuple[int, ...]:
    """The common shape of ``shapes``.

    Raises:
        SpecViolation: the shapes differ (this version has no broadcasting).
    """
    first = tuple(shapes[0])
    for shape in shapes[1:]:
        if tuple(shape) != first:
            listed = " ".join(str(tuple(s)) for s in shapes)
            raise SpecViolation(
                f"{label} needs inputs of one shape (no broadcasting before Mean-8); got {listed}"
            )
    return first


def check_same_dtype(dtypes: Sequence[str], label: str) -> str:
    """The one dtype all inputs share (no silent promotion).

    Raises:
        SpecViolation: the inputs' dtypes differ.
    """
    if any(d != dtypes[0] for d in dtypes):
        raise SpecViolation(
            f"{label}: all inputs must share one dtype (no promotion); got {', '.join(dtypes)}"
        )
    return dtypes[0]
