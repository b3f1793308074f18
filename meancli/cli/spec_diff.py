"""``meancli spec diff``: what differs between two operator versions, field by field.

The comparison walks the spec fields (meancli.ops.schema.SPEC_FIELDS, plus the
derived ``types``) and their records, so a field added to the schema is
compared, and printed, without a change here.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from .spec_prose import arity_words, attribute_words, axes_lines, axes_rule_words, field_label, value_words

if TYPE_CHECKING:
    from ..ops.schema import OpVersion

# Not compared: what names a version rather than defines it.
IDENTITY_FIELDS = ("name", "domain", "since_version")
# Collections whose items are matched by a key (the rest match by position, as outputs do).
MATCH_KEYS = {"inputs": "name", "attributes": "name", "type_constraints": "param"}


def to_json(value: Any) -> Any:
    """A spec value as JSON-ready data: records as objects, tuples as lists."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: to_json(v) for k, v in value._asdict().items()}
    if isinstance(value, (tuple, list)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


@dataclasses.dataclass(frozen=True)
class Difference:
    """One field in which two versions differ; ``a`` or ``b`` is None when the item is absent there.

    ``field`` is dotted: ``types``, ``type_constraints.T``, ``inputs.axes``,
    ``inputs.axes.optional``, ``outputs.0``, ``attributes.keepdims.default``,
    ``axes.source``, ``keepdims.default``, ... ``a`` and ``b`` are JSON-ready;
    ``item`` is the record that was added or removed (not compared).
    """

    field: str
    a: Any
    b: Any
    item: Any = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def added(self) -> list[str] | None:
        """For a type list: the types only ``b`` has (None for other fields)."""
        if self._is_type_list():
            return [t for t in self.b if t not in self.a]
        return None

    @property
    def removed(self) -> list[str] | None:
        """For a type list: the types only ``a`` has (None for other fields)."""
        if self._is_type_list():
            return [t for t in self.a if t not in self.b]
        return None

    def _is_type_list(self) -> bool:
        return (
            (self.field == "types" or self.field.startswith("type_constraints."))
            and isinstance(self.a, list)
            and isinstance(self.b, list)
        )

    def as_json(self) -> dict[str, Any]:
        """``{"field", "a", "b"}``, plus ``added`` and ``removed`` for type lists."""
        obj: dict[str, Any] = {"field": self.field, "a": self.a, "b": self.b}
        if self.added is not None:
            obj["added"] = self.added
            obj["removed"] = self.removed
        return obj

    def text(self) -> str:
        """The difference in words, on one line (two more for changed prose)."""
        kind, _, rest = self.field.partition(".")
        if self.added is not None:
            what = "types" if kind == "types" else f"type constraint {rest}"
            parts = []
            if self.added:
                parts.append(f"added {', '.join(self.added)}")
            if self.removed:
                parts.append(f"removed {', '.join(self.removed)}")
            return f"{what}: {'; '.join(parts)}"
        label = field_label(self.field)
        if self.item is not None and (self.a is None or self.b is None):
            return self._added_or_removed(kind, rest, label)
        if self.field == "summary" or self.field.endswith(".description"):
            return f"{label} changed:\n  - {self.a}\n  + {self.b}"
        if self.field in ("axes.when_omitted", "axes.when_empty"):
            return f"{label}: {axes_rule_words(self.a)} -> {axes_rule_words(self.b)}"
        if kind == "outputs":
            return f"{label}: {_output_words(self.a)} -> {_output_words(self.b)}"
        return f"{label}: {value_words(self.a)} -> {value_words(self.b)}"

    def _added_or_removed(self, kind: str, rest: str, label: str) -> str:
        verb = "added" if self.a is None else "removed"
        item = self.item
        if kind == "inputs":
            return f"input {verb}: {rest}: {item.type_param}, {arity_words(item)}"
        if kind == "attributes":
            return f"attribute {verb}: {rest}: {attribute_words(item)}"
        if kind == "outputs":
            return f"output {rest} {verb}: {_output_words(to_json(item))}"
        if kind == "type_constraints":
            return f"type constraint {verb}: {rest}: {', '.join(item.allowed)}"
        if kind == "axes":
            return f"axes {verb}: " + "; ".join(axes_lines(item))
        return f"{label} {verb}: " + ", ".join(f"{k} {value_words(v)}" for k, v in item._asdict().items())


def _output_words(d: dict[str, Any] | None) -> str:
    return "none" if d is None else f"{d['name']} ({d['type_param']})"


def _compare_records(prefix: str, a: Any, b: Any) -> list[Difference]:
    """Two records (or None): the whole record when one is absent, else field by field."""
    if a is None or b is None:
        return [] if a == b else [Difference(prefix, to_json(a), to_json(b), a if b is None else b)]
    return [
        Difference(f"{prefix}.{k}", to_json(va), to_json(getattr(b, k)))
        for k, va in a._asdict().items()
        if va != getattr(b, k) and k != "name"
    ]


def _compare_keyed(name: str, key: str, a: tuple[Any, ...], b: tuple[Any, ...]) -> list[Difference]:
    """Items matched by ``key``: removed, then changed field by field, then added."""
    ka = {getattr(x, key): x for x in a}
    kb = {getattr(x, key): x for x in b}
    out = [Difference(f"{name}.{k}", to_json(x), None, x) for k, x in ka.items() if k not in kb]
    for k, x in ka.items():
        if k in kb:
            out += _compare_records(f"{name}.{k}", x, kb[k])
    out += [Difference(f"{name}.{k}", None, to_json(x), x) for k, x in kb.items() if k not in ka]
    return out


def _compare_type_constraints(a: OpVersion, b: OpVersion) -> list[Difference]:
    # a parameter whose allowed types are just the op's types on both sides is left to ``types``
    ta = {tc.param: tc for tc in a.type_constraints}
    tb = {tc.param: tc for tc in b.type_constraints}
    out = [
        Difference(f"type_constraints.{p}", list(tc.allowed), None, tc) for p, tc in ta.items() if p not in tb
    ]
    for p, tc in ta.items():
        if p in tb and set(tc.allowed) != set(tb[p].allowed):
            mirrors_types = set(tc.allowed) == set(a.types) and set(tb[p].allowed) == set(b.types)
            if not mirrors_types:
                out.append(Difference(f"type_constraints.{p}", list(tc.allowed), list(tb[p].allowed)))
    out += [
        Difference(f"type_constraints.{p}", None, list(tc.allowed), tc) for p, tc in tb.items() if p not in ta
    ]
    return out


def diff_ops(a: OpVersion, b: OpVersion) -> list[Difference]:
    """What differs from ``a`` to ``b`` in their specs, like the ONNX docs' "Differences".

    Every spec field but the identity (domain, name, since_version) is
    compared in schema order, with ``types`` (as sets) before the type
    constraints: records field by field, inputs, attributes and type
    constraints matched by name, outputs by position. Not compared: the
    spec file, the kernels and the validator. An empty list means the specs
    are identical.
    """
    from ..ops.schema import SPEC_FIELDS

    out: list[Difference] = []
    for name in SPEC_FIELDS:
        if name in IDENTITY_FIELDS:
            continue
        va, vb = getattr(a, name), getattr(b, name)
        if name == "type_constraints":
            if set(a.types) != set(b.types):
                out.append(Difference("types", list(a.types), list(b.types)))
            out += _compare_type_constraints(a, b)
        elif name in MATCH_KEYS:
            out += _compare_keyed(name, MATCH_KEYS[name], va, vb)
        elif isinstance(va, tuple) and not hasattr(va, "_fields"):  # matched by position
            for index in range(max(len(va), len(vb))):
                xa = va[index] if index < len(va) else None
                xb = vb[index] if index < len(vb) else None
                if xa != xb:
                    out.append(Difference(f"{name}.{index}", to_json(xa), to_json(xb), xa or xb))
        elif hasattr(va, "_fields") or hasattr(vb, "_fields"):
            out += _compare_records(name, va, vb)
        elif va != vb:
            out.append(Difference(name, va, vb))
    return out
