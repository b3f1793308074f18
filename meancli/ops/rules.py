"""Generic checks the generated validators compose, each parameterised by spec fields.

The rules themselves (which axes a version accepts, what omitted or empty axes
mean, broadcasting or equal shapes, which attributes exist) are decided in
``generated/validators.py``, rendered from each spec by
``templates/validators.py.j2``. Each check raises
:class:`~meancli.errors.SpecViolation` with a one-line message that names the
operator version (``label``) and what it allows.
"""

from __future__ import annotations

import operator
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import SpecViolation

if TYPE_CHECKING:
    from .schema import Attribute


class ReduceCall:
    """A validated ReduceMean call (read-only; a plain slotted class, cheap to import).

    Attributes:
        reduce_mask: one flag per input dim, True where the dim is reduced
            (all False for the identity).
        out_shape: the output shape, keepdims applied.
        axes: the normalized reduced axes, ascending (empty for the identity).
        keepdims: the keepdims value in force.
        count: elements averaged into each output element (1 for the identity).
        attributes: (name, value) of every attribute the version lets a caller
            set (the axes attribute aside), as given or by default, in spec order.
    """

    __slots__ = ("attributes", "axes", "count", "keepdims", "out_shape", "reduce_mask")
    reduce_mask: tuple[bool, ...]
    out_shape: tuple[int, ...]
    axes: tuple[int, ...]
    keepdims: bool
    count: int
    attributes: tuple[tuple[str, Any], ...]

    def __init__(
        self,
        reduce_mask: tuple[bool, ...],
        out_shape: tuple[int, ...],
        axes: tuple[int, ...],
        keepdims: bool,
        count: int,
        attributes: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        # read-only: validations are cached and the same object is handed out again
        set_ = object.__setattr__
        set_(self, "reduce_mask", reduce_mask)
        set_(self, "out_shape", out_shape)
        set_(self, "axes", axes)
        set_(self, "keepdims", keepdims)
        set_(self, "count", count)
        set_(self, "attributes", attributes)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("ReduceCall is read-only")

    def __repr__(self) -> str:
        return (
            f"ReduceCall(reduce_mask={self.reduce_mask}, out_shape={self.out_shape}, axes={self.axes}, "
            f"keepdims={self.keepdims}, count={self.count}, attributes={self.attributes})"
        )


def check_dtype(dtype: str, allowed: tuple[str, ...], label: str) -> None:
    """Raise SpecViolation unless ``dtype`` (a spec type name) is in ``allowed``."""
    if dtype not in allowed:
        hint = ""
        if dtype == "void16" and "bfloat16" in allowed:  # numpy's view of bfloat16 bytes
            hint = "; for bfloat16 data pass x.view(ml_dtypes.bfloat16)"
        elif dtype == "void8":  # how numpy saves ml_dtypes' float8 types
            hint = "; 1-byte raw data, as numpy saves ml_dtypes' float8 types"
        raise SpecViolation(f"{label} does not accept {dtype} (it accepts: {', '.join(allowed)}){hint}")


def normalize_axes(
    axes: Sequence[int], rank: int, *, negative: bool, duplicates: str, label: str
) -> tuple[int, ...]:
    """Map the listed axes to dimensions in [0, rank-1], ascending.

    Args:
        negative: the spec's ``axes.negative``: True accepts [-rank, rank-1]
            (-1 is the last dimension), False only [0, rank-1].
        duplicates: the spec's ``axes.duplicates``: ``error`` rejects a
            dimension named twice (also ``1`` with ``-2`` on rank 3); ``merge``
            reduces it once.

    Raises:
        SpecViolation: an axis out of range (a rank-0 input accepts none), or a repeat.
    """
    low = -rank if negative else 0
    seen: dict[int, int] = {}
    for axis in axes:
        if not low <= axis < rank:
            if rank == 0:
                raise SpecViolation(f"{label}: axis {axis} given for a rank-0 input, which has no axes")
            if -rank <= axis < 0:
                raise SpecViolation(
                    f"{label} does not accept negative axes: axis {axis} (allowed: 0..{rank - 1})"
                )
            raise SpecViolation(
                f"{label}: axis {axis} is out of range for rank {rank} (allowed: {low}..{rank - 1})"
            )
        norm = axis + rank if axis < 0 else axis
        if norm in seen and duplicates == "error":
            raise SpecViolation(f"{label}: axis {axis} repeats axis {seen[norm]} (both are dimension {norm})")
        seen.setdefault(norm, axis)
    return tuple(sorted(seen))


def axes_required(label: str) -> SpecViolation:
    """The error of a version whose spec makes omitted axes an error."""
    return SpecViolation(f"{label} requires axes (--axes A [A ...] or axes=[...]; an empty list for none)")


def attribute_values(
    given: Mapping[str, Any],
    attributes: Sequence[Attribute],
    label: str,
    spec_attributes: Sequence[Attribute] = (),
) -> dict[str, Any]:
    """The value in force of each of ``attributes`` (those a caller may set), in spec order.

    ``given`` maps attribute names to values; None means not given (the spec
    default). A flag (type bool, or int with values [0, 1]) takes True, False,
    0 or 1 and keeps its spec type (an int flag gives 0 or 1); an int takes an
    integer (one of ``values`` when the spec lists them); ints take a
    sequence of integers (returned as a tuple). ``spec_attributes`` (all the
    version's, legacy ones included) only words the refusal of one not settable.

    Raises:
        SpecViolation: a name the version has no attribute for (or a legacy one), a value of
            the wrong type, or a required attribute not given.
    """
    by_name = {a.name: a for a in attributes}
    for name, value in given.items():
        if value is not None and name not in by_name:
            has = ", ".join(by_name) or "none"
            if any(a.name == name and a.legacy for a in spec_attributes):
                raise SpecViolation(
                    f"{label}'s attribute {name} is legacy, with no effect on the result: it is not "
                    f"taken (settable attributes: {has})"
                )
            # all the version's own (axes too, given as axes), not just those set by name
            own = ", ".join(a.name for a in spec_attributes if not a.legacy) or has
            raise SpecViolation(f"{label} has no attribute {name} (its attributes: {own})")
    values: dict[str, Any] = {}
    for a in attributes:
        value = given.get(a.name)
        if value is None:
            if a.required:
                raise SpecViolation(f"{label} requires the attribute {a.name}")
            values[a.name] = tuple(a.default) if isinstance(a.default, list) else a.default
        else:
            values[a.name] = _attribute_value(a, value, label)
    return values


def _attribute_value(a: Attribute, value: Any, label: str) -> Any:
    if a.is_flag:
        if _is_bool(value) or (_is_int(value) and value in (0, 1)):
            return bool(value) if a.type == "bool" else int(value)
        raise SpecViolation(f"{label}: {a.name} must be 0, 1, True or False, got {value!r}")
    if a.type == "int":
        if not _is_int(value) or (a.values is not None and value not in a.values):
            allowed = ", ".join(map(str, a.values)) if a.values is not None else "an integer"
            raise SpecViolation(f"{label}: {a.name} must be {allowed}, got {value!r}")
        return operator.index(value)
    items = [value] if _is_int(value) else value
    if isinstance(items, (str, bytes)) or not all(_is_int(v) for v in items):
        raise SpecViolation(f"{label}: {a.name} must be a list of integers, got {value!r}")
    return tuple(operator.index(v) for v in items)


def _is_bool(value: Any) -> bool:
    """A Python bool or a numpy one (np.True_; its type is numpy.bool, numpy.bool_ before numpy 2)."""
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))


def _is_int(value: Any) -> bool:
    if _is_bool(value):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def check_arity(count: int, low: int, high: int, label: str) -> None:
    """Raise SpecViolation unless ``low <= count <= high`` (the spec's input arity)."""
    if not low <= count <= high:
        raise SpecViolation(f"{label} takes {low} to {high} inputs, got {count}")


def empty_integer_mean(label: str, dtype: str) -> SpecViolation:
    """The error of an integer mean over an empty set (undefined; floats give NaN)."""
    return SpecViolation(
        f"{label}: the mean of an empty set is undefined for {dtype} "
        f"(a reduced dimension has size 0; floating types give NaN)"
    )


def reduce_call(
    shape: tuple[int, ...], axes: tuple[int, ...], keepdims: bool, attributes: Mapping[str, Any]
) -> ReduceCall:
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
    return ReduceCall(mask, out_shape, axes, keepdims, count, tuple(attributes.items()))


def broadcast_shapes(shapes: Sequence[tuple[int, ...]], label: str) -> tuple[int, ...]:
    """Multidirectional (numpy-style) broadcasting of ``shapes``.

    Raises:
        SpecViolation: two dims that differ and neither is 1 (every such dimension named,
            counted from the last, -1).
    """
    rank = max(len(s) for s in shapes)
    out = [1] * rank
    clash: set[int] = set()
    for shape in shapes:
        for i, n in enumerate(shape):
            j = rank - len(shape) + i
            if n != out[j] and n != 1:
                if out[j] != 1:
                    clash.add(j - rank)
                out[j] = n
    if clash:
        listed = " ".join(str(tuple(s)) for s in shapes)
        dims = ", ".join(str(j) for j in sorted(clash))
        raise SpecViolation(
            f"{label}: shapes {listed} do not broadcast (dimension{'s' if len(clash) > 1 else ''} {dims})"
        )
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
            raise SpecViolation(f"{label} needs inputs of one shape (it does not broadcast); got {listed}")
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
