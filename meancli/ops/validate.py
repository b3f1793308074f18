"""Validating a call against its operator version's spec: the generated
validator (generated/validators.py) does the checking; this module turns the
caller's arguments into the validator's plain values and caches the result.

Used by every front end and engine alike (CLI, API, streamed and dask runs), so
one call is validated one way wherever it runs.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from ..dtypes import spec_name
from ..errors import SpecViolation
from .rules import ReduceCall
from .schema import OpVersion


def axes_list(axes: int | Iterable[int] | None) -> list[int] | None:
    """``axes`` as the API takes it (None, an int, or integers) as a list (None: omitted).

    Raises:
        SpecViolation: an element that is not an integer (bools included).
    """
    if axes is None:
        return None
    if isinstance(axes, bool):
        raise SpecViolation(f"axes must be integers, got {axes!r}")
    if isinstance(axes, (int, np.integer)) or (isinstance(axes, np.ndarray) and axes.ndim == 0):
        try:
            return [operator.index(axes)]
        except TypeError:
            raise SpecViolation(f"axes must be integers, got {axes!r}") from None
    if isinstance(axes, (str, bytes)) or not isinstance(axes, Iterable):
        raise SpecViolation(f"axes must be an integer or integers, got {axes!r}")
    out = []
    for a in axes:
        if isinstance(a, (bool, np.bool_)):
            raise SpecViolation(f"axes must be integers, got {a!r}")
        try:
            out.append(operator.index(a))
        except TypeError:
            raise SpecViolation(f"axes must be integers, got {a!r}") from None
    return out


def validate_reduce(
    op: OpVersion,
    dtype: np.dtype[Any],
    shape: tuple[int, ...],
    axes: int | Iterable[int] | None = None,
    keepdims: bool | None = None,
    **attributes: Any,
) -> ReduceCall:
    """Validate a ReduceMean call on an input of ``dtype`` and ``shape`` against ``op``'s spec.

    Args:
        axes: None (omitted), an int, or a sequence of ints (may be empty).
        keepdims: the version's keepdims attribute (onnx keepdims, openvino
            keep_dims); None for its default.
        attributes: any other attribute of the version, by its spec name
            (noop_with_empty_axes on ReduceMean-18); None means not given.

    Raises:
        SpecViolation: what the version's generated validator rejects (dtype,
            axes, attributes it lacks or values it does not take, an integer
            mean over an empty set).
    """
    if op.kind != "reduce" or op.keepdims is None:
        raise SpecViolation(f"{op.label} is not a reduction")
    given = axes_list(axes)
    if keepdims is not None:
        if attributes.get(op.keepdims.attribute) is not None:
            raise SpecViolation(f"{op.label}: keepdims and {op.keepdims.attribute} both given")
        attributes[op.keepdims.attribute] = keepdims
    frozen = _frozen(attributes)
    key_axes = None if given is None else tuple(given)
    try:
        return _validate_reduce_cached(op, spec_name(dtype), shape, key_axes, frozen, _types_of(frozen))
    except TypeError:  # an unhashable attribute value: the validator reports it
        call: ReduceCall = op.validator(op, spec_name(dtype), shape, key_axes, dict(frozen))
        return call


def axes_input(op: OpVersion, array: np.ndarray, shown: str) -> list[int]:
    """The axes an ``axes`` input tensor holds (ReduceMean-18's; OpenVINO's second
    input), in its order: a 1-D tensor of a dtype the version's spec allows for axes
    (int64 for ONNX; int32 or int64 for OpenVINO). An empty tensor is explicitly empty.

    Args:
        shown: how messages name the tensor (its file, an initializer's name).

    Raises:
        SpecViolation: another dtype or rank.
    """
    param = next(i.type_param for i in op.inputs if i.name == "axes")
    allowed = {c.param: c.allowed for c in op.type_constraints}.get(param, (param,))
    dtype = spec_name(array.dtype)
    if dtype not in allowed:
        raise SpecViolation(f"{shown}: axes must be {' or '.join(allowed)} for {op.label}, found {dtype}")
    if array.ndim != 1:
        raise SpecViolation(f"{shown}: axes must be a 1-D tensor, found shape {array.shape}")
    return [int(a) for a in array.tolist()]


def check_arity(op: OpVersion, count: int, shown: str) -> None:
    """Refuse a node with a number of inputs the version does not take (ONNX's
    min/max arity; an optional input left out counts as absent).

    Raises:
        SpecViolation: too few or too many inputs.
    """
    least = sum(i.min_arity for i in op.inputs)
    most = None if any(i.variadic for i in op.inputs) else sum(i.max_arity for i in op.inputs)
    if count < least or (most is not None and count > most):
        takes = f"at least {least}" if most is None else str(least) if least == most else f"{least} to {most}"
        raise SpecViolation(f"{shown}: {op.label} takes {takes} input(s), the node has {count}")


def validate_mean(op: OpVersion, inputs: Sequence[Any], **attributes: Any) -> tuple[int, ...]:
    """Validate a Mean call against ``op``'s spec; returns the output shape.

    ``inputs`` need only ``dtype`` and ``shape`` (arrays, streamed sources,
    chunked or dask arrays); ``attributes`` are the version's attributes by
    spec name (None: not given).

    Raises:
        SpecViolation: mixed or disallowed dtypes, shapes that differ (Mean-1,
            Mean-6) or do not broadcast (Mean-8, Mean-13), no inputs.
    """
    if op.kind != "elementwise_mean":
        raise SpecViolation(f"{op.label} is not an element-wise mean")
    if not inputs:
        raise SpecViolation(f"{op.label} needs at least one input")
    _, shape = op.validator(
        op, [spec_name(x.dtype) for x in inputs], [tuple(x.shape) for x in inputs], attributes
    )
    return tuple(shape)


def _frozen(attributes: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The given attributes as a hashable key (lists become tuples; None is not given)."""
    items = []
    for name, value in sorted(attributes.items()):
        if value is None:
            continue
        if isinstance(value, np.ndarray):
            value = value.tolist()  # a 0-d array is its scalar
        if isinstance(value, list):
            value = tuple(value)
        items.append((name, value))
    return tuple(items)


def _types_of(value: Any) -> Any:
    """The types within ``value`` (a tuple's element by element): True, 1 and 1.0 are
    equal keys, but not equally valid attribute values."""
    if isinstance(value, tuple):
        return tuple(_types_of(v) for v in value)
    return type(value)


@lru_cache(maxsize=512)
def _validate_reduce_cached(
    op: OpVersion,
    dtype: str,
    shape: tuple[int, ...],
    axes: tuple[int, ...] | None,
    attributes: tuple[tuple[str, Any], ...],
    types: Any,
) -> ReduceCall:
    # Validation is a pure function of these; caching it keeps small calls cheap. ``types``
    # (_types_of(attributes)) is part of the key only, so a value is never taken for an
    # equal one of another type that was validated before.
    call: ReduceCall = op.validator(op, dtype, shape, axes, dict(attributes))
    return call
