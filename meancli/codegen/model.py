"""The spec format's schema and the frozen model every template renders from.

Each field is popped from the YAML mapping with its expected type; anything
left over is an unknown (usually misspelled) field. Every error names the
spec file and line. After the fields, cross-field rules are checked (the
type parameters an input names exist, an axes rule that names an attribute
names a flag attribute of the version, the file is named
``<domain>/<name>-<since_version>.yaml``, ...), so a bad spec fails here and
never in a template or the C compiler.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..ops.schema import SPEC_FIELDS, Attribute, AxesRule, Input, KeepdimsRule, Output, TypeConstraint
from .dtypes import DTYPES, DType
from .yamlsource import LocatedDict, LocatedList, SpecError, Where, load_yaml

DOMAINS = ("onnx", "openvino")
KINDS = ("reduce", "elementwise_mean")
BROADCASTING = ("none", "multidirectional")
ATTRIBUTE_TYPES = ("int", "ints", "bool")
AXES_SOURCES = ("attribute", "input")
# What an omitted or explicitly empty axes list means.
# What an omitted or explicitly empty axes list means; or the name of a flag attribute
# that picks identity (set) or reduce_all (unset), as ONNX's noop_with_empty_axes.
AXES_RULES = ("reduce_all", "identity", "error")
DUPLICATE_AXES = ("error", "merge")
MAX_ARITY = 2147483647


@dataclass(frozen=True)
class OpSpec:
    """One operator version, exactly as its YAML file states it (the fields of
    meancli.ops.schema.SPEC_FIELDS, plus the file it came from)."""

    path: str  # relative display path, e.g. spec/onnx/ReduceMean-18.yaml
    name: str
    domain: str
    since_version: int
    kind: str
    summary: str
    inputs: tuple[Input, ...]
    outputs: tuple[Output, ...]
    attributes: tuple[Attribute, ...]
    type_constraints: tuple[TypeConstraint, ...]
    broadcasting: str
    axes: AxesRule | None
    keepdims: KeepdimsRule | None
    shape_inference: bool

    @property
    def types(self) -> tuple[str, ...]:
        """The spec names of :attr:`data_types`."""
        return tuple(dt.name for dt in self.data_types)

    @property
    def key(self) -> str:
        """``ReduceMean-18``: the name users give the version."""
        return f"{self.name}-{self.since_version}"

    @property
    def ident(self) -> str:
        """A Python/C identifier unique across domains: ``onnx_ReduceMean_18``."""
        return f"{self.domain}_{self.name}_{self.since_version}"

    @property
    def data_types(self) -> tuple[DType, ...]:
        """The element types of the data input(s) (the first input's constraint)."""
        param = self.inputs[0].type_param
        for tc in self.type_constraints:
            if tc.param == param:
                return tuple(DTYPES[t] for t in tc.allowed)
        return (DTYPES[param],)

    def attribute(self, name: str) -> Attribute | None:
        return next((a for a in self.attributes if a.name == name), None)


# Every field each kind of mapping may hold: a missing one with a close
# unknown key beside it is reported as that misspelling.
_FIELDS: dict[str, tuple[str, ...]] = {
    "spec": SPEC_FIELDS,
    "input": Input._fields,
    "output": Output._fields,
    "attribute": Attribute._fields,
    "type constraint": TypeConstraint._fields,
    "axes": AxesRule._fields,
    "keepdims": KeepdimsRule._fields,
}


class _Fields:
    """Pops typed fields from one YAML mapping and reports leftovers."""

    def __init__(self, data: Any, where: Where, what: str) -> None:
        if not isinstance(data, LocatedDict):
            raise where.error(f"{what} must be a mapping")
        self.data = data
        self.what = what

    def _where(self, key: str) -> Where:
        return self.data.key_where.get(key, self.data.where)

    def take(self, key: str, kind: type | tuple[type, ...], *, choices: tuple[Any, ...] = ()) -> Any:
        if key not in self.data:
            self._missing(key)
        value = self.data.pop(key)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # bool is an int in Python; a YAML `true` must not pass for a number.
        is_bool_mismatch = isinstance(value, bool) and bool not in kinds
        if not isinstance(value, kinds) or is_bool_mismatch:
            names = " or ".join(k.__name__ for k in kinds)
            raise self._where(key).error(f"{self.what}: field '{key}' must be {names}, got {value!r}")
        if choices and value not in choices:
            raise self._where(key).error(
                f"{self.what}: field '{key}' is {value!r}; allowed: {', '.join(map(str, choices))}"
            )
        return value

    def _missing(self, key: str) -> None:
        # A misspelled field is both unknown and missing: name the misspelling, at its line.
        expected = _FIELDS.get(self.what, ())
        unknown = [k for k in self.data if k not in expected]
        close = difflib.get_close_matches(key, unknown, n=1, cutoff=0.6)
        if close:
            raise self._where(close[0]).error(
                f"{self.what}: unknown field '{close[0]}' (did you mean '{key}'?)"
            )
        raise self.data.where.error(f"{self.what}: missing field '{key}'")

    def take_optional(self, key: str) -> Any:
        return self.data.pop(key) if key in self.data else None

    def finish(self) -> None:
        for key in self.data:
            raise self._where(key).error(f"{self.what}: unknown field '{key}'")


def _items(value: Any, where: Where, what: str) -> list[tuple[Any, Where]]:
    if not isinstance(value, LocatedList):
        raise where.error(f"'{what}' must be a list")
    return list(zip(value, value.item_where, strict=True))


def _dtype_list(value: Any, where: Where, what: str) -> tuple[str, ...]:
    names = []
    for item, item_where in _items(value, where, what):
        if item not in DTYPES:
            raise item_where.error(f"{what}: unknown type {item!r}; known: {', '.join(DTYPES)}")
        if item in names:
            raise item_where.error(f"{what}: type {item!r} listed twice")
        names.append(item)
    return tuple(names)


def _int_values(value: Any, where: Where) -> tuple[int, ...] | None:
    if value is None:
        return None
    items = [item for item, _ in _items(value, where, "values")]
    if not items or any(type(v) is not int for v in items) or len(set(items)) != len(items):
        raise where.error(f"attribute values must be a list of distinct ints, got {value!r}")
    return tuple(items)


def load_spec(path: Path, root: Path) -> OpSpec:
    """Read and check one spec file.

    Args:
        path: the YAML file.
        root: the repository root, to print paths relative to it.

    Raises:
        SpecError: any schema or consistency problem, as ``FILE:LINE: message``.
    """
    display = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
    data = load_yaml(path, display)
    top = _Fields(data, Where(display, 1), "spec")
    fields_where = dict(data.key_where) if isinstance(data, LocatedDict) else {}

    def where(key: str) -> Where:
        return fields_where.get(key, Where(display, 1))

    name = top.take("name", str)
    domain = top.take("domain", str, choices=DOMAINS)
    since_version = top.take("since_version", int)
    kind = top.take("kind", str, choices=KINDS)
    summary = " ".join(top.take("summary", str).split())

    item_where: dict[str, Where] = {}  # "input NAME" / "attribute NAME" -> its line
    inputs = []
    for item, iw in _items(top.take("inputs", list), where("inputs"), "inputs"):
        f = _Fields(item, iw, "input")
        inputs.append(
            Input(
                name=f.take("name", str),
                type_param=f.take("type_param", str),
                min_arity=f.take("min_arity", int),
                max_arity=f.take("max_arity", int),
                variadic=f.take("variadic", bool),
                optional=f.take("optional", bool),
            )
        )
        f.finish()
        item_where[f"input {inputs[-1].name}"] = iw
        if not 0 <= inputs[-1].min_arity <= inputs[-1].max_arity <= MAX_ARITY:
            raise iw.error(f"input '{inputs[-1].name}': need 0 <= min_arity <= max_arity <= {MAX_ARITY}")

    outputs = []
    for item, ow in _items(top.take("outputs", list), where("outputs"), "outputs"):
        f = _Fields(item, ow, "output")
        outputs.append(Output(name=f.take("name", str), type_param=f.take("type_param", str)))
        f.finish()

    attributes = []
    for item, aw in _items(top.take("attributes", list), where("attributes"), "attributes"):
        f = _Fields(item, aw, "attribute")
        attributes.append(
            Attribute(
                name=f.take("name", str),
                type=f.take("type", str, choices=ATTRIBUTE_TYPES),
                default=f.take("default", (int, bool, list, type(None))),
                required=f.take("required", bool),
                legacy=f.take("legacy", bool),
                description=" ".join(f.take("description", str).split()),
                values=_int_values(f.take_optional("values"), f._where("values")),
            )
        )
        f.finish()
        item_where[f"attribute {attributes[-1].name}"] = aw

    constraints = []
    for item, cw in _items(top.take("type_constraints", list), where("type_constraints"), "type_constraints"):
        f = _Fields(item, cw, "type constraint")
        param = f.take("param", str)
        allowed_raw = f.take("allowed", list)
        allowed = _dtype_list(allowed_raw, f._where("allowed"), f"type constraint {param}")
        constraints.append(TypeConstraint(param=param, allowed=allowed))
        f.finish()

    broadcasting = top.take("broadcasting", str, choices=BROADCASTING)

    axes = None
    raw_axes = top.take_optional("axes")
    if raw_axes is not None:
        f = _Fields(raw_axes, where("axes"), "axes")
        axes = AxesRule(
            source=f.take("source", str, choices=AXES_SOURCES),
            negative=f.take("negative", bool),
            duplicates=f.take("duplicates", str, choices=DUPLICATE_AXES),
            when_omitted=f.take("when_omitted", str),
            when_empty=f.take("when_empty", str),
        )
        f.finish()

    keepdims = None
    raw_keepdims = top.take_optional("keepdims")
    if raw_keepdims is not None:
        f = _Fields(raw_keepdims, where("keepdims"), "keepdims")
        keepdims = KeepdimsRule(attribute=f.take("attribute", str), default=f.take("default", bool))
        f.finish()

    shape_inference = top.take("shape_inference", bool)
    top.finish()

    spec = OpSpec(
        path=display,
        name=name,
        domain=domain,
        since_version=since_version,
        kind=kind,
        summary=summary,
        inputs=tuple(inputs),
        outputs=tuple(outputs),
        attributes=tuple(attributes),
        type_constraints=tuple(constraints),
        broadcasting=broadcasting,
        axes=axes,
        keepdims=keepdims,
        shape_inference=shape_inference,
    )
    _check_consistency(spec, lambda key: item_where.get(key) or where(key))
    return spec


IDENTIFIER = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_DEFAULT_TYPES: dict[str, Any] = {
    "int": lambda v: type(v) is int,
    "bool": lambda v: type(v) is bool,
    "ints": lambda v: isinstance(v, list) and all(type(i) is int for i in v),
}


def _check_consistency(spec: OpSpec, where: Any) -> None:
    """Cross-field rules: what the templates rely on."""
    if not IDENTIFIER.match(spec.name):
        raise where("name").error(f"name {spec.name!r} must be an identifier (letters, digits, _)")
    names = [i.name for i in spec.inputs] + [o.name for o in spec.outputs] + [a.name for a in spec.attributes]
    for item_name in names:
        if not IDENTIFIER.match(item_name):
            raise where("inputs").error(f"{item_name!r} must be an identifier (letters, digits, _)")
    for a in spec.attributes:
        if a.values is not None and (
            a.type != "int" or (a.default is not None and a.default not in a.values)
        ):
            raise where(f"attribute {a.name}").error(
                f"attribute '{a.name}': values apply to an int attribute and include its default"
            )
        if a.default is not None and not _DEFAULT_TYPES[a.type](a.default):
            raise where(f"attribute {a.name}").error(
                f"attribute '{a.name}': default {a.default!r} is not of type {a.type}"
            )
        if a.required and a.default is not None:
            raise where(f"attribute {a.name}").error(
                f"attribute '{a.name}': a required attribute has no default"
            )
    for i in spec.inputs:
        if i.optional and i.min_arity != 0:
            raise where(f"input {i.name}").error(f"input '{i.name}': an optional input has min_arity 0")
        if not i.optional and not i.variadic and i.min_arity != 1:
            raise where(f"input {i.name}").error(f"input '{i.name}': a required single input has min_arity 1")
        if not i.variadic and i.max_arity != 1:
            raise where(f"input {i.name}").error(f"input '{i.name}': a single input has max_arity 1")
    expected = f"{spec.domain}/{spec.name}-{spec.since_version}.yaml"
    if not spec.path.endswith(expected):
        raise where("name").error(f"a spec for {spec.key} in domain {spec.domain} must be at .../{expected}")
    if spec.since_version < 1:
        raise where("since_version").error("since_version must be >= 1")
    if not spec.inputs or not spec.outputs:
        raise where("inputs").error("an operator needs at least one input and one output")
    params = {tc.param for tc in spec.type_constraints}
    typed: list[Input | Output] = [*spec.inputs, *spec.outputs]
    for io in typed:
        if io.type_param not in params and io.type_param not in DTYPES:
            raise where("inputs").error(
                f"'{io.name}' names type parameter '{io.type_param}', which no type constraint declares"
            )
    names = [a.name for a in spec.attributes]
    if len(set(names)) != len(names):
        raise where("attributes").error("an attribute is declared twice")
    data_in = spec.inputs[0]
    if spec.kind == "reduce":
        if spec.axes is None or spec.keepdims is None:
            raise where("kind").error("a reduce spec needs the 'axes' and 'keepdims' blocks")
        if spec.broadcasting != "none":
            raise where("broadcasting").error("a reduce has no broadcasting")
        if data_in.variadic or data_in.max_arity != 1:
            raise where("inputs").error("a reduce takes exactly one data input")
        kd = spec.attribute(spec.keepdims.attribute)
        if kd is None or not kd.is_flag:
            raise where("keepdims").error(
                f"keepdims.attribute '{spec.keepdims.attribute}' is not a flag attribute "
                "(type bool, or int with values [0, 1])"
            )
        if bool(kd.default) != spec.keepdims.default:
            raise where("keepdims").error(f"keepdims.default disagrees with attribute '{kd.name}' default")
        if spec.axes.source == "attribute" and spec.attribute("axes") is None:
            raise where("axes").error("axes.source is 'attribute' but no attribute 'axes' is declared")
        if spec.axes.source == "input" and all(i.name != "axes" for i in spec.inputs):
            raise where("axes").error("axes.source is 'input' but no input 'axes' is declared")
        for rule in (spec.axes.when_omitted, spec.axes.when_empty):
            if rule in AXES_RULES:
                continue
            flag = spec.attribute(rule)
            if flag is None or flag.legacy or not flag.is_flag:
                raise where("axes").error(
                    f"axes rule {rule!r} is none of {', '.join(AXES_RULES)} and not a flag attribute "
                    "(type bool, or int with values [0, 1]) of this version"
                )
        if spec.axes.when_empty == "error":
            raise where("axes").error(
                "when_empty: 'error' is not supported (an explicit empty list is valid)"
            )
    else:
        if spec.axes is not None or spec.keepdims is not None:
            raise where("kind").error("an elementwise_mean spec has no 'axes' or 'keepdims' block")
        if not data_in.variadic:
            raise where("inputs").error("an elementwise_mean takes one variadic input")
        if any(not t.is_float for t in spec.data_types):
            raise where("type_constraints").error("elementwise_mean kernels exist for floating types only")


def load_specs(spec_dir: Path, root: Path) -> list[OpSpec]:
    """Load every ``<domain>/<Op>-<version>.yaml`` under ``spec_dir``, sorted by
    (domain, name, since_version).

    Raises:
        SpecError: a malformed spec, or two files declaring the same version.
    """
    specs = [load_spec(p, root) for p in sorted(spec_dir.glob("*/*.yaml"))]
    seen: dict[tuple[str, str, int], str] = {}
    for s in specs:
        key = (s.domain, s.name, s.since_version)
        if key in seen:
            raise SpecError(f"{s.path}:1: {s.key} ({s.domain}) is also defined in {seen[key]}")
        seen[key] = s.path
    if not specs:
        raise SpecError(f"{spec_dir}: no spec files (expected <domain>/<Op>-<version>.yaml)")
    return sorted(specs, key=lambda s: (s.domain, s.name, s.since_version))
