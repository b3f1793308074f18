"""What the run time knows of one operator version (filled by the generated registry)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class AttributeInfo:
    name: str
    type: str  # int | ints | bool
    default: Any
    required: bool
    legacy: bool
    description: str


@dataclass(frozen=True)
class InputInfo:
    name: str
    type_param: str
    min_arity: int
    max_arity: int
    variadic: bool
    optional: bool


@dataclass(frozen=True)
class AxesInfo:
    source: str  # attribute | input
    required: bool
    negative: bool
    duplicates: str
    when_omitted: str  # reduce_all | identity | error | noop_with_empty_axes
    when_empty: str


@dataclass(frozen=True, eq=False)  # one object per version: identity is equality (and hashable)
class OpVersion:
    """One operator version as its spec defines it, plus its validator and kernels.

    ``types`` are spec type names (float16, bfloat16, float32, ..., uint64);
    ``kernels`` maps each to the C symbol that implements it.
    """

    domain: str
    name: str
    since_version: int
    kind: str  # reduce | elementwise_mean
    summary: str
    spec_path: str
    types: tuple[str, ...]
    type_constraints: tuple[tuple[str, tuple[str, ...]], ...]
    inputs: tuple[InputInfo, ...]
    outputs: tuple[tuple[str, str], ...]
    attributes: tuple[AttributeInfo, ...]
    broadcasting: str  # none | multidirectional
    axes: AxesInfo | None
    keepdims_attribute: str | None
    keepdims_default: bool | None
    has_noop_with_empty_axes: bool
    shape_inference: bool
    validator: Callable[..., Any]
    kernels: dict[str, str]

    @property
    def key(self) -> str:
        """``ReduceMean-18``."""
        return f"{self.name}-{self.since_version}"

    @property
    def label(self) -> str:
        """``ReduceMean-18 (onnx)``: how messages name the version."""
        return f"{self.key} ({self.domain})"
