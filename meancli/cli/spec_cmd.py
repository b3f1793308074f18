"""``meancli spec``: browse the operator specs (list, show, diff).

Everything comes from the generated registry ``meancli.generated.registry.OPS``
(no YAML at run time). An operator version is named ``ReduceMean-18``,
``onnx:ReduceMean:18``, ``onnx:ReduceMean-18``, ``ReduceMean:18`` or
``openvino:ReduceMean:1``; without a domain it is the onnx one, and a bare
``ReduceMean`` is the newest onnx version. Names match case-insensitively.

Wired into the application by ``app.add_typer(spec_app, name="spec")``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import OpsetError
from . import options

if TYPE_CHECKING:
    from ..opversion import AttributeInfo, AxesInfo, InputInfo, OpVersion

DEFAULT_DOMAIN = "onnx"
UNBOUNDED_ARITY = 2**31 - 1  # what ONNX (and the specs) write for "no upper bound"

# the axes rules of a spec (codegen.model.AXES_RULES), in words
AXES_RULE_WORDS = {
    "reduce_all": "reduce over all axes",
    "identity": "identity (return the input unchanged)",
    "error": "error (axes are required)",
    "noop_with_empty_axes": "noop_with_empty_axes decides (0: reduce over all axes, "
    "1: identity, return the input unchanged)",
}

_NAME = r"[A-Za-z_][A-Za-z0-9_.]*"
_NAME_VERSION = re.compile(rf"^(?P<name>{_NAME}?)(?:-(?P<version>[0-9]{{1,9}}))?$")
_DOMAIN = re.compile(rf"^{_NAME}$")
_VERSION = re.compile(r"^[0-9]{1,9}$")

spec_app = typer.Typer(
    name="spec",
    help="Browse the operator specs every version of Mean and ReduceMean comes from.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

OpArg = Annotated[
    str,
    typer.Argument(
        metavar="OP",
        help="ReduceMean-18, onnx:ReduceMean:18, openvino:ReduceMean:1, or ReduceMean (the newest onnx "
        "version); without a domain, onnx.",
    ),
]


# --------------------------------------------------------------------------- the registry


def registry_ops() -> tuple[OpVersion, ...]:
    """Every operator version of the generated registry, in its order."""
    from ..generated.registry import OPS

    ops: tuple[OpVersion, ...] = OPS
    return ops


def op_ref(op: OpVersion) -> str:
    """``onnx:ReduceMean:18``: the name that selects ``op`` in every domain."""
    return f"{op.domain}:{op.name}:{op.since_version}"


def known_versions(ops: tuple[OpVersion, ...]) -> str:
    """``onnx: Mean-1, ..., ReduceMean-18; openvino: ReduceMean-1``: what exists, on one line."""
    by_domain: dict[str, list[str]] = {}
    for op in ops:
        by_domain.setdefault(op.domain, []).append(op.key)
    return "; ".join(f"{domain}: {', '.join(keys)}" for domain, keys in by_domain.items())


def opset_range(op: OpVersion, ops: tuple[OpVersion, ...]) -> tuple[int, int | None]:
    """The opsets of ``op``'s domain that select ``op``: (first, last), last None when open."""
    later = [o.since_version for o in ops if (o.domain, o.name) == (op.domain, op.name)]
    later = [v for v in later if v > op.since_version]
    return op.since_version, (min(later) - 1 if later else None)


def _split_ref(text: str, known: str) -> tuple[str | None, str, int | None]:
    """(domain or None, name, version or None) of an operator reference; OpsetError if malformed."""

    def bad() -> OpsetError:
        return OpsetError(
            f"{text!r} is not an operator version: expected e.g. ReduceMean-18, onnx:ReduceMean:18 "
            f"or openvino:ReduceMean:1 (known: {known})"
        )

    parts = text.strip().split(":")
    domain: str | None = None
    if len(parts) == 3:
        domain, name, version = parts
        if not (_DOMAIN.match(domain) and _DOMAIN.match(name) and _VERSION.match(version)):
            raise bad()
        return domain, name, int(version)
    if len(parts) == 2:
        if _VERSION.match(parts[1]):  # ReduceMean:18
            if not _DOMAIN.match(parts[0]):
                raise bad()
            return None, parts[0], int(parts[1])
        domain, rest = parts
        if not _DOMAIN.match(domain):
            raise bad()
    elif len(parts) == 1:
        rest = parts[0]
    else:
        raise bad()
    m = _NAME_VERSION.match(rest)
    if not m:
        raise bad()
    version_text = m.group("version")
    return domain, m.group("name"), int(version_text) if version_text is not None else None


def find_op(text: str, ops: tuple[OpVersion, ...] | None = None) -> OpVersion:
    """The operator version ``text`` names (see the module doc for the forms).

    Args:
        text: ``ReduceMean-18``, ``onnx:ReduceMean:18``, ``openvino:ReduceMean:1``,
            ``ReduceMean`` (newest onnx version), ...
        ops: the versions to choose from (default: the generated registry).

    Raises:
        OpsetError: a malformed name, or one no version matches; the one-line
            message lists every version that exists.
    """
    ops = registry_ops() if ops is None else ops
    known = known_versions(ops)
    domain, name, version = _split_ref(text, known)
    named = [op for op in ops if op.name.casefold() == name.casefold()]
    if not named:
        raise OpsetError(f"unknown operator {name!r} in {text!r} (known: {known})")
    name = named[0].name
    domains = sorted({op.domain for op in ops})
    has_it = sorted({op.domain for op in named})
    if domain is None:
        domain = DEFAULT_DOMAIN if DEFAULT_DOMAIN in has_it else has_it[0]
    else:
        spelled = [d for d in domains if d.casefold() == domain.casefold()]
        if not spelled:
            raise OpsetError(
                f"unknown domain {domain!r} in {text!r} (domains: {', '.join(domains)}; known: {known})"
            )
        domain = spelled[0]
        if domain not in has_it:
            raise OpsetError(
                f"{name} is not an operator of the {domain} domain (it is in: {', '.join(has_it)}; "
                f"known: {known})"
            )
    candidates = sorted((op for op in named if op.domain == domain), key=lambda op: op.since_version)
    if version is None:
        return candidates[-1]
    for op in candidates:
        if op.since_version == version:
            return op
    versions = ", ".join(str(op.since_version) for op in candidates)
    older = [op for op in candidates if op.since_version < version]
    hint = f"; {domain} opset {version} uses {older[-1].key}" if older else ""
    raise OpsetError(
        f"no version {name}-{version} in the {domain} domain ({name} versions: {versions}{hint}; "
        f"known: {known})"
    )


# --------------------------------------------------------------------------- describing one version


def op_as_dict(op: OpVersion, ops: tuple[OpVersion, ...] | None = None) -> dict[str, Any]:
    """Everything the spec of ``op`` holds, as JSON-ready values.

    The OpVersion fields (without the validator; ``kernels`` maps each type
    to its C symbol), plus ``ref``, ``key``, ``label`` and ``opsets``
    (``{"first": N, "last": M or null}``: the opsets of the domain that
    select this version).
    """
    ops = registry_ops() if ops is None else ops
    first, last = opset_range(op, ops)
    return {
        "ref": op_ref(op),
        "key": op.key,
        "label": op.label,
        "domain": op.domain,
        "name": op.name,
        "since_version": op.since_version,
        "opsets": {"first": first, "last": last},
        "kind": op.kind,
        "summary": op.summary,
        "spec_path": op.spec_path,
        "types": list(op.types),
        "type_constraints": [{"param": p, "allowed": list(allowed)} for p, allowed in op.type_constraints],
        "inputs": [i._asdict() for i in op.inputs],
        "outputs": [{"name": n, "type_param": t} for n, t in op.outputs],
        "attributes": [a._asdict() for a in op.attributes],
        "broadcasting": op.broadcasting,
        "axes": op.axes._asdict() if op.axes is not None else None,
        "keepdims_attribute": op.keepdims_attribute,
        "keepdims_default": op.keepdims_default,
        "has_noop_with_empty_axes": op.has_noop_with_empty_axes,
        "shape_inference": op.shape_inference,
        "kernels": dict(op.kernels),
    }


def axes_rule_words(rule: str) -> str:
    """An axes rule (reduce_all, identity, error, noop_with_empty_axes) in words."""
    return AXES_RULE_WORDS.get(rule, rule)


def axes_lines(axes: AxesInfo | None) -> list[str]:
    """The axes rules of a version, one sentence each (empty for an op without axes)."""
    if axes is None:
        return []
    negative = (
        "accepted, counted from the last axis (range [-r, r-1], r = rank of data)"
        if axes.negative
        else "rejected (range [0, r-1], r = rank of data)"
    )
    duplicates = "an error" if axes.duplicates == "error" else axes.duplicates
    return [
        f"axes source: {axes.source} 'axes' ({'required' if axes.required else 'optional'})",
        f"negative axes: {negative}",
        f"duplicate axes: {duplicates}",
        f"omitted axes: {axes_rule_words(axes.when_omitted)}",
        f"empty axes: {axes_rule_words(axes.when_empty)}",
    ]


def arity_words(info: InputInfo) -> str:
    """``required, arity 1``, ``optional, arity 0..1``, ``variadic, arity 1..2147483647 (1 or more)``."""
    span = str(info.min_arity) if info.min_arity == info.max_arity else f"{info.min_arity}..{info.max_arity}"
    if info.variadic:
        more = f" ({info.min_arity} or more)" if info.max_arity >= UNBOUNDED_ARITY else ""
        return f"variadic, arity {span}{more}"
    return f"{'optional' if info.optional else 'required'}, arity {span}"


def value_words(value: Any) -> str:
    """A spec value as the specs write it: true/false, none, lists joined by ', '."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_words(v) for v in value) + "]"
    return str(value)


def attribute_words(attr: AttributeInfo) -> str:
    """``int, default 1, optional`` (plus ``legacy``) for one attribute."""
    default = "no default" if attr.default is None else f"default {value_words(attr.default)}"
    words = [attr.type, default, "required" if attr.required else "optional"]
    if attr.legacy:
        words.append("legacy")
    return ", ".join(words)


def keepdims_words(op: OpVersion) -> str:
    """``attribute keepdims, default 1 (keep)`` or ``none`` for an op without one."""
    if op.keepdims_attribute is None:
        return "none"
    attr = next((a for a in op.attributes if a.name == op.keepdims_attribute), None)
    shown = value_words(attr.default if attr is not None else op.keepdims_default)
    kept = "keep the reduced dimensions" if op.keepdims_default else "remove the reduced dimensions"
    return f"attribute {op.keepdims_attribute}, default {shown} ({kept})"


def show_lines(op: OpVersion, ops: tuple[OpVersion, ...] | None = None) -> list[tuple[str, str]]:
    """``spec show`` as (style, text) lines: style "title", "section" or "" (plain)."""
    ops = registry_ops() if ops is None else ops
    first, last = opset_range(op, ops)
    opsets = f"{first}+" if last is None else (str(first) if last == first else f"{first}-{last}")
    lines: list[tuple[str, str]] = [
        ("title", f"{op.label}  {op_ref(op)}"),
        ("", f"kind: {op.kind}; since_version {op.since_version} ({op.domain} opsets {opsets})"),
        ("", op.summary),
        ("section", "Inputs"),
    ]
    lines += [("", f"  {i.name}: {i.type_param}, {arity_words(i)}") for i in op.inputs]
    lines.append(("section", "Outputs"))
    lines += [("", f"  {name}: {type_param}") for name, type_param in op.outputs]
    lines.append(("section", "Attributes"))
    if not op.attributes:
        lines.append(("", "  none"))
    for a in op.attributes:
        lines.append(("", f"  {a.name}: {attribute_words(a)}"))
        lines.append(("", f"      {a.description}"))
    lines.append(("section", "Type constraints"))
    lines += [("", f"  {param}: {', '.join(allowed)}") for param, allowed in op.type_constraints]
    lines.append(("section", "Semantics"))
    lines.append(("", f"  broadcasting: {op.broadcasting}"))
    if op.axes is None:
        lines.append(("", "  axes: none (not a reduction over axes)"))
    else:
        lines += [("", f"  {line}") for line in axes_lines(op.axes)]
    lines.append(("", f"  keepdims: {keepdims_words(op)}"))
    lines.append(("", f"  noop_with_empty_axes: {'yes' if op.has_noop_with_empty_axes else 'no'}"))
    lines.append(("", f"  shape inference: {'yes' if op.shape_inference else 'no'}"))
    lines.append(("", f"kernels: {', '.join(op.kernels.values())}"))
    lines.append(("", f"spec file: {op.spec_path}"))
    return lines


# --------------------------------------------------------------------------- differences


@dataclass(frozen=True)
class Difference:
    """One field in which two versions differ; ``a`` or ``b`` is None when the item is absent there.

    ``field`` is dotted: ``types``, ``type_constraints.T``, ``inputs.axes``,
    ``inputs.axes.optional``, ``outputs.0``, ``attributes.keepdims.default``,
    ``axes.source``, ``keepdims_default``, ...
    """

    field: str
    a: Any
    b: Any

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

    def _is_whole_item(self) -> bool:
        """An input, output, attribute, type constraint or the axes rules as a whole."""
        kind, _, rest = self.field.partition(".")
        whole = self.field == "axes" or (
            kind in ("inputs", "attributes", "outputs", "type_constraints") and rest and "." not in rest
        )
        return bool(whole) and (self.a is None or self.b is None)

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
        if self._is_whole_item():
            return self._added_or_removed(kind, rest)
        label = _FIELD_LABELS.get(self.field)
        if label is None and kind == "attributes":
            name, _, prop = rest.partition(".")
            label = f"attribute {name} {prop}"
        elif label is None and kind == "inputs":
            name, _, prop = rest.partition(".")
            label = f"input {name} {prop.replace('_', ' ')}"
        elif label is None and kind == "outputs":
            label = f"output {rest}"
        label = label or self.field.replace("_", " ")
        if self.field == "summary" or self.field.endswith(".description"):
            return f"{label} changed:\n  - {self.a}\n  + {self.b}"
        if self.field in ("axes.when_omitted", "axes.when_empty"):
            return f"{label}: {axes_rule_words(self.a)} -> {axes_rule_words(self.b)}"
        if kind == "outputs":
            return f"{label}: {_output_words(self.a)} -> {_output_words(self.b)}"
        return f"{label}: {value_words(self.a)} -> {value_words(self.b)}"

    def _added_or_removed(self, kind: str, rest: str) -> str:
        present = self.b if self.a is None else self.a
        verb = "added" if self.a is None else "removed"
        if kind == "inputs":
            return f"input {verb}: {rest}: {present['type_param']}, {arity_words(_input(present))}"
        if kind == "attributes":
            return f"attribute {verb}: {rest}: {attribute_words(_attribute(present))}"
        if kind == "outputs":
            return f"output {rest} {verb}: {_output_words(present)}"
        if kind == "type_constraints":
            return f"type constraint {verb}: {rest}: {', '.join(present)}"
        return f"axes {verb}: " + "; ".join(axes_lines(_axes(present)))


_FIELD_LABELS = {
    "kind": "kind",
    "summary": "summary",
    "broadcasting": "broadcasting",
    "axes.source": "axes source",
    "axes.required": "axes required",
    "axes.negative": "negative axes accepted",
    "axes.duplicates": "duplicate axes",
    "axes.when_omitted": "omitted axes",
    "axes.when_empty": "empty axes",
    "keepdims_attribute": "keepdims attribute",
    "keepdims_default": "keepdims default",
    "shape_inference": "shape inference",
}


def _input(d: dict[str, Any]) -> InputInfo:
    from ..opversion import InputInfo

    return InputInfo(**d)


def _attribute(d: dict[str, Any]) -> AttributeInfo:
    from ..opversion import AttributeInfo

    return AttributeInfo(**d)


def _axes(d: dict[str, Any]) -> AxesInfo:
    from ..opversion import AxesInfo

    return AxesInfo(**d)


def _output_words(d: dict[str, Any] | None) -> str:
    return "none" if d is None else f"{d['name']} ({d['type_param']})"


def _compare_named(
    field: str, a: dict[str, dict[str, Any]], b: dict[str, dict[str, Any]]
) -> list[Difference]:
    """Items matched by name: removed, then changed property by property, then added."""
    out = [Difference(f"{field}.{name}", a[name], None) for name in a if name not in b]
    for name in a:
        if name in b:
            out += [
                Difference(f"{field}.{name}.{prop}", a[name][prop], b[name][prop])
                for prop in a[name]
                if prop != "name" and a[name][prop] != b[name][prop]
            ]
    out += [Difference(f"{field}.{name}", None, b[name]) for name in b if name not in a]
    return out


def diff_ops(a: OpVersion, b: OpVersion) -> list[Difference]:
    """What differs from ``a`` to ``b`` in their specs, like the ONNX docs' "Differences".

    Compared: kind, summary, types (as sets), type constraints (a parameter
    whose allowed types are just the op's types on both sides is left to
    ``types``), inputs and attributes (by name: added, removed, each property),
    outputs (by position), broadcasting, the axes rules, keepdims attribute
    and default, shape inference. Not compared: the identity (domain, name,
    since_version, spec_path), the kernels and validator, and
    has_noop_with_empty_axes (it follows the attribute). An empty list means
    the specs are identical.
    """
    out: list[Difference] = []
    if a.kind != b.kind:
        out.append(Difference("kind", a.kind, b.kind))
    if a.summary != b.summary:
        out.append(Difference("summary", a.summary, b.summary))
    if set(a.types) != set(b.types):
        out.append(Difference("types", list(a.types), list(b.types)))

    ta, tb = dict(a.type_constraints), dict(b.type_constraints)
    for param in ta:
        if param not in tb:
            out.append(Difference(f"type_constraints.{param}", list(ta[param]), None))
        elif set(ta[param]) != set(tb[param]):
            mirrors_types = set(ta[param]) == set(a.types) and set(tb[param]) == set(b.types)
            if not mirrors_types:
                out.append(Difference(f"type_constraints.{param}", list(ta[param]), list(tb[param])))
    out += [Difference(f"type_constraints.{p}", None, list(tb[p])) for p in tb if p not in ta]

    out += _compare_named(
        "inputs", {i.name: i._asdict() for i in a.inputs}, {i.name: i._asdict() for i in b.inputs}
    )
    for index in range(max(len(a.outputs), len(b.outputs))):
        oa = a.outputs[index] if index < len(a.outputs) else None
        ob = b.outputs[index] if index < len(b.outputs) else None
        if oa != ob:
            out.append(
                Difference(
                    f"outputs.{index}",
                    None if oa is None else {"name": oa[0], "type_param": oa[1]},
                    None if ob is None else {"name": ob[0], "type_param": ob[1]},
                )
            )
    out += _compare_named(
        "attributes", {x.name: x._asdict() for x in a.attributes}, {x.name: x._asdict() for x in b.attributes}
    )

    if a.broadcasting != b.broadcasting:
        out.append(Difference("broadcasting", a.broadcasting, b.broadcasting))
    if a.axes is None or b.axes is None:
        if a.axes != b.axes:
            out.append(
                Difference(
                    "axes",
                    None if a.axes is None else a.axes._asdict(),
                    None if b.axes is None else b.axes._asdict(),
                )
            )
    else:
        xa, xb = a.axes._asdict(), b.axes._asdict()
        out += [Difference(f"axes.{k}", xa[k], xb[k]) for k in xa if xa[k] != xb[k]]
    for name in ("keepdims_attribute", "keepdims_default", "shape_inference"):
        va, vb = getattr(a, name), getattr(b, name)
        if va != vb:
            out.append(Difference(name, va, vb))
    return out


# --------------------------------------------------------------------------- output


def _print(*renderables: Any) -> None:
    """Print rich renderables (markup strings, tables) to stdout in one write.

    Rendered through a capture so that a closed pipe raises BrokenPipeError
    here, inside the session (rich would exit with status 1 on its own). The
    terminal's width and colours, or no wrapping and no colour when piped.
    """
    import os
    import sys

    from rich.console import Console

    stream = sys.stdout
    piped = not stream.isatty() and "COLUMNS" not in os.environ
    console = Console(file=stream, highlight=False, soft_wrap=True, width=1000 if piped else None)
    with console.capture() as capture:
        for renderable in renderables:
            console.print(renderable)
    stream.write(capture.get())
    stream.flush()


def _write_json(obj: Any) -> None:
    import json
    import sys

    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def list_rows(ops: tuple[OpVersion, ...] | None = None) -> list[dict[str, Any]]:
    """One dict per operator version, as ``spec list --json`` prints them.

    Keys: ref, domain, op, version (``ReduceMean-18``), since_version, opsets,
    types, broadcasting, axes_source (None without axes), spec_path.
    """
    ops = registry_ops() if ops is None else ops
    rows = []
    for op in ops:
        first, last = opset_range(op, ops)
        rows.append(
            {
                "ref": op_ref(op),
                "domain": op.domain,
                "op": op.name,
                "version": op.key,
                "since_version": op.since_version,
                "opsets": {"first": first, "last": last},
                "types": list(op.types),
                "broadcasting": op.broadcasting,
                "axes_source": op.axes.source if op.axes is not None else None,
                "spec_path": op.spec_path,
            }
        )
    return rows


_LIST_KEYS = {"domain": "domain", "op": "op", "version": "version"}


@spec_app.command("list")
def list_cmd(json_mode: options.Json = False, debug: options.Debug = False) -> None:
    """Every operator version: domain, op, version, since_version, types, broadcasting, axes source."""
    from .run import session

    with session(json_mode=json_mode, debug=debug):
        rows = list_rows()
        if json_mode:
            _write_json({"ops": rows})
            return
        from rich.table import Table

        table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
        for column in (
            "domain",
            "op",
            "version",
            "since_version",
            "opsets",
            "types",
            "broadcasting",
            "axes source",
        ):
            # the names never shrink (the types wrap first, then the rest folds)
            keep = max(len(str(row[key])) for row in rows) if (key := _LIST_KEYS.get(column)) else None
            table.add_column(column, overflow="fold", min_width=keep, no_wrap=keep is not None)
        for row in rows:
            first, last = row["opsets"]["first"], row["opsets"]["last"]
            table.add_row(
                row["domain"],
                row["op"],
                row["version"],
                str(row["since_version"]),
                f"{first}+" if last is None else (str(first) if first == last else f"{first}-{last}"),
                ", ".join(row["types"]),
                row["broadcasting"],
                row["axes_source"] or "-",
            )
        _print(table, f"[dim]{len(rows)} operator versions; details: meancli spec show OP[/dim]")


@spec_app.command("show")
def show_cmd(op: OpArg, json_mode: options.Json = False, debug: options.Debug = False) -> None:
    """Everything the spec of OP holds: inputs, outputs, attributes, types, axes rules, keepdims."""
    from .run import session

    with session(json_mode=json_mode, debug=debug):
        ops = registry_ops()
        version = find_op(op, ops)
        if json_mode:
            _write_json(op_as_dict(version, ops))
            return
        from rich.markup import escape

        _print(
            *(
                f"[bold]{escape(text)}[/bold]" if style else escape(text)
                for style, text in show_lines(version, ops)
            )
        )


@spec_app.command("diff")
def diff_cmd(
    a: Annotated[str, typer.Argument(metavar="A", help="The first operator version (as for show).")],
    b: Annotated[str, typer.Argument(metavar="B", help="The second operator version.")],
    json_mode: options.Json = False,
    debug: options.Debug = False,
) -> None:
    """What differs from spec A to spec B: types, inputs, attributes and defaults, broadcasting, axes."""
    from .run import session

    with session(json_mode=json_mode, debug=debug):
        ops = registry_ops()
        op_a, op_b = find_op(a, ops), find_op(b, ops)
        differences = diff_ops(op_a, op_b)
        if json_mode:
            _write_json(
                {
                    "a": op_ref(op_a),
                    "b": op_ref(op_b),
                    "identical": not differences,
                    "differences": [d.as_json() for d in differences],
                }
            )
            return
        from rich.markup import escape

        head = f"[bold]{escape(f'{op_a.label} -> {op_b.label}')}[/bold]"
        if not differences:
            same = " (the same version)" if op_a is op_b else ""
            _print(f"{head}: the specs are identical{same}")
            return
        count = f"{len(differences)} difference{'s' if len(differences) != 1 else ''}"
        _print(f"{head}: {count}", *(escape(f"- {d.text()}") for d in differences))
