# GENERATED FILE -- DO NOT EDIT. Change the spec or the template, then run
# `make generate` (python -m meancli.codegen).
# Template: templates/validators.py.j2
# Specs: spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml, spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml, spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml, spec/onnx/ReduceMean-18.yaml, spec/openvino/ReduceMean-1.yaml
"""The spec rules of every operator version, checked before any kernel runs.

Versions whose rules are the same share one function (the registry names it
as each version's ``validator``); each reads the rest of its spec (label,
types, attributes) from the OpVersion it is given. Every check raises
meancli.errors.SpecViolation with a one-line message naming the version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from meancli.ops.rules import (
    ReduceCall,
    attribute_values,
    axes_required,
    broadcast_shapes,
    check_arity,
    check_dtype,
    check_same_dtype,
    empty_integer_mean,
    equal_shapes,
    normalize_axes,
    reduce_call,
)

if TYPE_CHECKING:
    from meancli.ops.schema import OpVersion

# The integer types: a mean over an empty set of them is undefined.
INTEGER_TYPES = frozenset(('int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'))


def validate_mean_1(
    op: OpVersion,
    dtypes: Sequence[str],
    shapes: Sequence[tuple[int, ...]],
    attributes: Mapping[str, Any],
) -> tuple[str, tuple[int, ...]]:
    """Element-wise Mean with the rules of spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml:
    1 to 2147483647 inputs of one dtype, broadcasting: none.

    Args:
        op: the version (its label, types and attributes).
        dtypes: each input's spec type name.
        shapes: each input's shape.
        attributes: values by attribute name; a missing or None value takes the spec default.

    Returns:
        (the inputs' dtype, the output shape).
    """
    label = op.label
    check_arity(len(shapes), 1, 2147483647, label)
    dtype = check_same_dtype(dtypes, label)
    check_dtype(dtype, op.types, label)
    attribute_values(attributes, op.settable_attributes, label, op.attributes)
    return dtype, equal_shapes(shapes, label)


def validate_mean_2(
    op: OpVersion,
    dtypes: Sequence[str],
    shapes: Sequence[tuple[int, ...]],
    attributes: Mapping[str, Any],
) -> tuple[str, tuple[int, ...]]:
    """Element-wise Mean with the rules of spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml:
    1 to 2147483647 inputs of one dtype, broadcasting: multidirectional.

    Args:
        op: the version (its label, types and attributes).
        dtypes: each input's spec type name.
        shapes: each input's shape.
        attributes: values by attribute name; a missing or None value takes the spec default.

    Returns:
        (the inputs' dtype, the output shape).
    """
    label = op.label
    check_arity(len(shapes), 1, 2147483647, label)
    dtype = check_same_dtype(dtypes, label)
    check_dtype(dtype, op.types, label)
    attribute_values(attributes, op.settable_attributes, label, op.attributes)
    return dtype, broadcast_shapes(shapes, label)


def validate_reduce_1(
    op: OpVersion,
    dtype: str,
    shape: tuple[int, ...],
    axes: Sequence[int] | None,
    attributes: Mapping[str, Any],
) -> ReduceCall:
    """ReduceMean with the axes rules of spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml.

    negative axes: accepted; repeated axes: error;
    omitted axes: reduce_all; empty axes: reduce_all.

    Args:
        op: the version (its label, types and attributes).
        dtype: the data input's spec type name.
        shape: the data input's shape.
        axes: None when omitted, else the listed axes (may be empty).
        attributes: values by attribute name (keepdims under the spec's
            name); a missing or None value takes the spec default.
    """
    label = op.label
    check_dtype(dtype, op.types, label)
    values = attribute_values(attributes, op.settable_attributes, label, op.attributes)
    rank = len(shape)
    reduced: tuple[int, ...]
    if axes is None:
        reduced = tuple(range(rank))
    elif not axes:
        reduced = tuple(range(rank))
    else:
        reduced = normalize_axes(
            axes, rank, negative=True, duplicates='error', label=label
        )
    call = reduce_call(shape, reduced, bool(values[op.keepdims.attribute]), values)  # type: ignore[union-attr]
    if call.count == 0 and dtype in INTEGER_TYPES and 0 not in call.out_shape:
        raise empty_integer_mean(label, dtype)
    return call


def validate_reduce_2(
    op: OpVersion,
    dtype: str,
    shape: tuple[int, ...],
    axes: Sequence[int] | None,
    attributes: Mapping[str, Any],
) -> ReduceCall:
    """ReduceMean with the axes rules of spec/onnx/ReduceMean-18.yaml.

    negative axes: accepted; repeated axes: error;
    omitted axes: noop_with_empty_axes decides; empty axes: noop_with_empty_axes decides.

    Args:
        op: the version (its label, types and attributes).
        dtype: the data input's spec type name.
        shape: the data input's shape.
        axes: None when omitted, else the listed axes (may be empty).
        attributes: values by attribute name (keepdims under the spec's
            name); a missing or None value takes the spec default.
    """
    label = op.label
    check_dtype(dtype, op.types, label)
    values = attribute_values(attributes, op.settable_attributes, label, op.attributes)
    rank = len(shape)
    reduced: tuple[int, ...]
    if axes is None:
        reduced = () if values['noop_with_empty_axes'] else tuple(range(rank))
    elif not axes:
        reduced = () if values['noop_with_empty_axes'] else tuple(range(rank))
    else:
        reduced = normalize_axes(
            axes, rank, negative=True, duplicates='error', label=label
        )
    call = reduce_call(shape, reduced, bool(values[op.keepdims.attribute]), values)  # type: ignore[union-attr]
    if call.count == 0 and dtype in INTEGER_TYPES and 0 not in call.out_shape:
        raise empty_integer_mean(label, dtype)
    return call


def validate_reduce_3(
    op: OpVersion,
    dtype: str,
    shape: tuple[int, ...],
    axes: Sequence[int] | None,
    attributes: Mapping[str, Any],
) -> ReduceCall:
    """ReduceMean with the axes rules of spec/openvino/ReduceMean-1.yaml.

    negative axes: accepted; repeated axes: error;
    omitted axes: error; empty axes: identity.

    Args:
        op: the version (its label, types and attributes).
        dtype: the data input's spec type name.
        shape: the data input's shape.
        axes: None when omitted, else the listed axes (may be empty).
        attributes: values by attribute name (keepdims under the spec's
            name); a missing or None value takes the spec default.
    """
    label = op.label
    check_dtype(dtype, op.types, label)
    values = attribute_values(attributes, op.settable_attributes, label, op.attributes)
    rank = len(shape)
    reduced: tuple[int, ...]
    if axes is None:
        raise axes_required(label)
    elif not axes:
        reduced = ()
    else:
        reduced = normalize_axes(
            axes, rank, negative=True, duplicates='error', label=label
        )
    call = reduce_call(shape, reduced, bool(values[op.keepdims.attribute]), values)  # type: ignore[union-attr]
    if call.count == 0 and dtype in INTEGER_TYPES and 0 not in call.out_shape:
        raise empty_integer_mean(label, dtype)
    return call
