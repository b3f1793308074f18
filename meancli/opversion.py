"""What the run time knows of one operator version (filled by the generated registry)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

# Plain named tuples and a slotted class, not dataclasses: every CLI run
# imports these, and generating dataclass methods costs milliseconds.


class AttributeInfo(NamedTuple):
    name: str
    type: str  # int | ints | bool
    default: Any
    required: bool
    legacy: bool
    description: str


class InputInfo(NamedTuple):
    name: str
    type_param: str
    min_arity: int
    max_arity: int
    variadic: bool
    optional: bool


class AxesInfo(NamedTuple):
    source: str  # attribute | input
    required: bool
    negative: bool
    duplicates: str
    when_omitted: str  # reduce_all | identity | error | noop_with_empty_axes
    when_empty: str


class OpVersion:
    """One operator version as its spec defines it, plus its validator and kernels.

    ``types`` are spec type names (float16, bfloat16, float32, ..., uint64);
    ``kernels`` maps each to the C symbol that implements it. One object per
    version (the generated registry's): identity is equality, and it is hashable.
    """

    __slots__ = (  # noqa: RUF023 (the spec's order, as the annotations below)
        "domain",
        "name",
        "since_version",
        "kind",
        "summary",
        "spec_path",
        "types",
        "type_constraints",
        "inputs",
        "outputs",
        "attributes",
        "broadcasting",
        "axes",
        "keepdims_attribute",
        "keepdims_default",
        "has_noop_with_empty_axes",
        "shape_inference",
        "validator",
        "kernels",
    )
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

    def __init__(self, **fields: Any) -> None:
        if set(fields) != set(self.__slots__):
            raise TypeError(f"OpVersion fields: {sorted(set(fields) ^ set(self.__slots__))}")
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("OpVersion is read-only")

    def replace(self, **changes: Any) -> OpVersion:
        """A copy with some fields changed (as dataclasses.replace)."""
        return OpVersion(**{**{name: getattr(self, name) for name in self.__slots__}, **changes})

    def __repr__(self) -> str:
        return f"OpVersion({self.label})"

    @property
    def key(self) -> str:
        """``ReduceMean-18``."""
        return f"{self.name}-{self.since_version}"

    @property
    def label(self) -> str:
        """``ReduceMean-18 (onnx)``: how messages name the version."""
        return f"{self.key} ({self.domain})"
