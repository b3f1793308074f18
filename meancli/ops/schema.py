"""The spec schema: what one operator version holds, at generation and at run time.

The code generator (meancli.codegen.model) builds these records from each
``spec/<domain>/<Op>-<version>.yaml``; the generated registry holds one
:class:`OpVersion` per file, built from the same records. ``meancli spec``
(show, JSON, diff) walks their fields, so a field added here and read by the
loader appears everywhere without another list of field names.

Plain named tuples and a slotted class, not dataclasses: every CLI run
imports these, and generating dataclass methods costs milliseconds.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple compiles each
# string annotation of its fields, in every run that imports this module (about
# 0.2 M instructions a class; docs/speed.md, "Start-up and quick runs").

from collections.abc import Callable
from typing import Any, NamedTuple


class Input(NamedTuple):
    """An input: its type parameter (a constraint's name or a fixed dtype) and arity."""

    name: str
    type_param: str
    min_arity: int
    max_arity: int
    variadic: bool
    optional: bool


class Output(NamedTuple):
    name: str
    type_param: str


class Attribute(NamedTuple):
    """An attribute. ``legacy`` ones have no effect and get no option or keyword;
    ``values``, when set, are the only values accepted (ONNX's 0/1 flags)."""

    name: str
    type: str  # int | ints | bool
    default: Any
    required: bool
    legacy: bool
    description: str
    values: tuple[int, ...] | None = None

    @property
    def is_flag(self) -> bool:
        """A yes/no attribute: type bool, or an int that takes only 0 and 1."""
        return self.type == "bool" or (self.type == "int" and self.values == (0, 1))


class TypeConstraint(NamedTuple):
    param: str
    allowed: tuple[str, ...]  # spec dtype names, in spec order


class AxesRule(NamedTuple):
    """How a reduce reads its axes.

    ``when_omitted``/``when_empty``: ``reduce_all``, ``identity``, ``error``,
    or the name of a flag attribute that chooses identity (set) or reduce_all.
    """

    source: str  # attribute | input
    negative: bool  # axes in [-r, -1] count from the end; False: only [0, r-1]
    duplicates: str  # error | merge (a repeated axis is reduced once)
    when_omitted: str
    when_empty: str


class KeepdimsRule(NamedTuple):
    attribute: str  # the attribute that holds keepdims (onnx keepdims, openvino keep_dims)
    default: bool


# The fields of a spec file, in the order the files write them (the records above
# are the nested ones). OpVersion holds each; the generator reads each.
SPEC_FIELDS = (
    "name",
    "domain",
    "since_version",
    "kind",
    "summary",
    "inputs",
    "outputs",
    "attributes",
    "type_constraints",
    "broadcasting",
    "axes",
    "keepdims",
    "shape_inference",
)
# What generation adds to each version: its file, the data input's dtypes, its
# validator and the C symbol of each dtype's kernel.
GENERATED_FIELDS = ("spec_path", "types", "validator", "kernels")


class OpVersion:
    """One operator version as its spec defines it, plus its validator and kernels.

    ``types`` are spec type names (float16, bfloat16, float32, ..., uint64);
    ``kernels`` maps each to the C symbol that implements it. One object per
    version (the generated registry's): identity is equality, and it is hashable.
    """

    __slots__ = SPEC_FIELDS + GENERATED_FIELDS
    name: str
    domain: str
    since_version: int
    kind: str  # reduce | elementwise_mean
    summary: str
    inputs: tuple[Input, ...]
    outputs: tuple[Output, ...]
    attributes: tuple[Attribute, ...]
    type_constraints: tuple[TypeConstraint, ...]
    broadcasting: str  # none | multidirectional
    axes: AxesRule | None
    keepdims: KeepdimsRule | None
    shape_inference: bool
    spec_path: str
    types: tuple[str, ...]
    validator: Callable[..., Any]
    kernels: dict[str, str]

    def __init__(self, **fields: Any) -> None:
        if set(fields) != set(self.__slots__):
            raise TypeError(f"OpVersion fields: {sorted(set(fields) ^ set(self.__slots__))}")
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("OpVersion is read-only")

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

    def attribute(self, name: str) -> Attribute | None:
        """The attribute called ``name``, or None when this version lacks it."""
        return next((a for a in self.attributes if a.name == name), None)

    @property
    def settable_attributes(self) -> tuple[Attribute, ...]:
        """The attributes a caller sets: all but the legacy ones and the axes
        attribute (axes are given as axes, whether the spec has them as an
        attribute or an input)."""
        axes_attribute = "axes" if self.axes is not None and self.axes.source == "attribute" else None
        return tuple(a for a in self.attributes if not a.legacy and a.name != axes_attribute)

    @property
    def extra_attributes(self) -> tuple[Attribute, ...]:
        """The settable attributes other than keepdims' (which --keep-dims and
        ``keepdims=`` set): each is a CLI option and an API keyword of its own."""
        keepdims = self.keepdims.attribute if self.keepdims is not None else None
        return tuple(a for a in self.settable_attributes if a.name != keepdims)
