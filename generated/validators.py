# GENERATED FILE -- DO NOT EDIT. Change the spec or the template, then run
# `make generate` (python -m meancli.codegen).
# Template: templates/validators.py.j2
# Specs: spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml, spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml, spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml, spec/onnx/ReduceMean-18.yaml, spec/openvino/ReduceMean-1.yaml
"""One validator per operator version: the spec's rules, checked before any kernel runs.

Each raises meancli.errors.SpecViolation with a one-line message naming the
version and what it allows.
"""

from __future__ import annotations

from collections.abc import Sequence

from meancli.errors import SpecViolation
from meancli.semantics import (
    ReduceCall,
    broadcast_shapes,
    check_dtype,
    check_same_dtype,
    equal_shapes,
    reduce_call,
    resolve_axes,
)


def validate_onnx_Mean_1(dtypes: Sequence[str], shapes: Sequence[tuple[int, ...]]) -> tuple[str, tuple[int, ...]]:
    """Mean-1 (onnx), from spec/onnx/Mean-1.yaml: returns (dtype, output shape).

    Args:
        dtypes: each input's spec type name.
        shapes: each input's shape.
    """
    label = "Mean-1 (onnx)"
    if not 1 <= len(shapes) <= 2147483647:
        raise SpecViolation(f"{label} takes 1 to 2147483647 inputs, got {len(shapes)}")
    dtype = check_same_dtype(dtypes, label)
    check_dtype(dtype, ('float16', 'float32', 'float64'), label)
    return dtype, equal_shapes(shapes, label)


def validate_onnx_Mean_6(dtypes: Sequence[str], shapes: Sequence[tuple[int, ...]]) -> tuple[str, tuple[int, ...]]:
    """Mean-6 (onnx), from spec/onnx/Mean-6.yaml: returns (dtype, output shape).

    Args:
        dtypes: each input's spec type name.
        shapes: each input's shape.
    """
    label = "Mean-6 (onnx)"
    if not 1 <= len(shapes) <= 2147483647:
        raise SpecViolation(f"{label} takes 1 to 2147483647 inputs, got {len(shapes)}")
    dtype = check_same_dtype(dtypes, label)
    check_dtype(dtype, ('float16', 'float32', 'float64'), label)
    return dtype, equal_shapes(shapes, label)


def validate_onnx_Mean_8(dtypes: Sequence[str], shapes: Sequence[tuple[int, ...]]) -> tuple[str, tuple[int, ...]]:
    """Mean-8 (onnx), from spec/onnx/Mean-8.yaml: returns (dtype, output shape).

    Args:
        dtypes: each input's spec type name.
        shapes: each input's shape.
    """
    label = "Mean-8 (onnx)"
    if not 1 <= len(shapes) <= 2147483647:
        raise SpecViolation(f"{label} takes 1 to 2147483647 inputs, got {len(shapes)}")
    dtype = check_same_dtype(dtypes, label)
    check_dtype(dtype, ('float16', 'float32', 'float64'), label)
    return dtype, broadcast_shapes(shapes, label)


def validate_onnx_Mean_13(dtypes: Sequence[str], shapes: Sequence[tuple[int, ...]]) -> tuple[str, tuple[int, ...]]:
    """Mean-13 (onnx), from spec/onnx/Mean-13.yaml: returns (dtype, output shape).

    Args:
        dtypes: each input's spec type name.
        shapes: each input's shape.
    """
    label = "Mean-13 (onnx)"
    if not 1 <= len(shapes) <= 2147483647:
        raise SpecViolation(f"{label} takes 1 to 2147483647 inputs, got {len(shapes)}")
    dtype = check_same_dtype(dtypes, label)
    check_dtype(dtype, ('float16', 'float32', 'float64', 'bfloat16'), label)
    return dtype, broadcast_shapes(shapes, label)


def validate_onnx_ReduceMean_1(
    dtype: str,
    shape: tuple[int, ...],
    axes: Sequence[int] | None,
    keepdims: bool | None,
    noop_with_empty_axes: bool,
) -> ReduceCall:
    """ReduceMean-1 (onnx), from spec/onnx/ReduceMean-1.yaml.

    Args:
        dtype: the data input's spec type name.
        shape: the data input's shape.
        axes: None when omitted, else the listed axes (may be empty).
        keepdims: None for the spec default (True).
        noop_with_empty_axes: the attribute's value (this version lacks it: True is an error).
    """
    label = "ReduceMean-1 (onnx)"
    check_dtype(dtype, ('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64'), label)
    if noop_with_empty_axes:
        raise SpecViolation(f"{label} has no attribute noop_with_empty_axes (ReduceMean-18 of onnx has it)")
    reduced = resolve_axes(
        axes,
        len(shape),
        when_omitted="reduce_all",
        when_empty="reduce_all",
        noop_with_empty_axes=noop_with_empty_axes,
        label=label,
    )
    return reduce_call(shape, reduced, True if keepdims is None else bool(keepdims))


def validate_onnx_ReduceMean_11(
    dtype: str,
    shape: tuple[int, ...],
    axes: Sequence[int] | None,
    keepdims: bool | None,
    noop_with_empty_axes: bool,
) -> ReduceCall:
    """ReduceMean-11 (onnx), from spec/onnx/ReduceMean-11.yaml.

    Args:
        dtype: the data input's spec type name.
        shape: the data input's shape.
        axes: None when omitted, else the listed axes (may be empty).
        keepdims: None for the spec default (True).
        noop_with_empty_axes: the attribute's value (this version lacks it: True is an error).
    """
    label = "ReduceMean-11 (onnx)"
    check_dtype(dtype, ('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64'), label)
    if noop_with_empty_axes:
        raise SpecViolation(f"{label} has no attribute noop_with_empty_axes (ReduceMean-18 of onnx has it)")
    reduced = resolve_axes(
        axes,
        len(shape),
        when_omitted="reduce_all",
        when_empty="reduce_all",
        noop_with_empty_axes=noop_with_empty_axes,
        label=label,
    )
    return reduce_call(shape, reduced, True if keepdims is None else bool(keepdims))


def validate_onnx_ReduceMean_13(
    dtype: str,
    shape: tuple[int, ...],
    axes: Sequence[int] | None,
    keepdims: bool | None,
    noop_with_empty_axes: bool,
) -> ReduceCall:
    """ReduceMean-13 (onnx), from spec/onnx/ReduceMean-13.yaml.

    Args:
        dtype: the data input's spec type name.
        shape: the data input's shape.
        axes: None when omitted, else the listed axes (may be empty).
        keepdims: None for the spec default (True).
        noop_with_empty_axes: the attribute's value (this version lacks it: True is an error).
    """
    label = "ReduceMean-13 (onnx)"
    check_dtype(dtype, ('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64', 'bfloat16'), label)
    if noop_with_empty_axes:
        raise SpecViolation(f"{label} has no attribute noop_with_empty_axes (ReduceMean-18 of onnx has it)")
    reduced = resolve_axes(
        axes,
        len(shape),
        when_omitted="reduce_all",
        when_empty="reduce_all",
        noop_with_empty_axes=noop_with_empty_axes,
        label=label,
    )
    return reduce_call(shape, reduced, True if keepdims is None else bool(keepdims))


def validate_onnx_ReduceMean_18(
    dtype: str,
    shape: tuple[int, ...],
    axes: Sequence[int] | None,
    keepdims: bool | None,
    noop_with_empty_axes: bool,
) -> ReduceCall:
    """ReduceMean-18 (onnx), from spec/onnx/ReduceMean-18.yaml.

    Args:
        dtype: the data input's spec type name.
        shape: the data input's shape.
        axes: None when omitted, else the listed axes (may be empty).
        keepdims: None for the spec default (True).
        noop_with_empty_axes: the attribute's value.
    """
    label = "ReduceMean-18 (onnx)"
    check_dtype(dtype, ('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64', 'bfloat16'), label)
    reduced = resolve_axes(
        axes,
        len(shape),
        when_omitted="noop_with_empty_axes",
        when_empty="noop_with_empty_axes",
        noop_with_empty_axes=noop_with_empty_axes,
        label=label,
    )
    return reduce_call(shape, reduced, True if keepdims is None else bool(keepdims))


def validate_openvino_ReduceMean_1(
    dtype: str,
    shape: tuple[int, ...],
    axes: Sequence[int] | None,
    keepdims: bool | None,
    noop_with_empty_axes: bool,
) -> ReduceCall:
    """ReduceMean-1 (openvino), from spec/openvino/ReduceMean-1.yaml.

    Args:
        dtype: the data input's spec type name.
        shape: the data input's shape.
        axes: None when omitted, else the listed axes (may be empty).
        keepdims: None for the spec default (False).
        noop_with_empty_axes: the attribute's value (this version lacks it: True is an error).
    """
    label = "ReduceMean-1 (openvino)"
    check_dtype(dtype, ('float16', 'bfloat16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'), label)
    if noop_with_empty_axes:
        raise SpecViolation(f"{label} has no attribute noop_with_empty_axes (ReduceMean-18 of onnx has it)")
    reduced = resolve_axes(
        axes,
        len(shape),
        when_omitted="error",
        when_empty="identity",
        noop_with_empty_axes=noop_with_empty_axes,
        label=label,
    )
    return reduce_call(shape, reduced, False if keepdims is None else bool(keepdims))
