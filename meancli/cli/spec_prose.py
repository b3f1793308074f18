"""The spec fields in words, for ``meancli spec show`` and ``spec diff``.

Field labels come from the field names (``axes.source`` -> ``axes source``),
with FIELD_WORDS for the few that read better otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..ops.schema import Attribute, AxesRule, Input, OpVersion

UNBOUNDED_ARITY = 2**31 - 1  # what ONNX (and the specs) write for "no upper bound"

# the fixed axes rules of a spec (codegen.model.AXES_RULES), in words
AXES_RULE_WORDS = {
    "reduce_all": "reduce over all axes",
    "identity": "identity (return the input unchanged)",
    "error": "error (axes are required)",
}
# Labels that read better than the field's dotted name.
FIELD_WORDS = {
    "axes.negative": "negative axes accepted",
    "axes.duplicates": "duplicate axes",
    "axes.when_omitted": "omitted axes",
    "axes.when_empty": "empty axes",
}


def field_label(field: str) -> str:
    """``axes.when_omitted`` -> ``omitted axes``; ``keepdims.default`` -> ``keepdims default``;
    ``attributes.X.default`` -> ``attribute X default``; ``inputs.X.min_arity`` -> ``input X min arity``."""
    if field in FIELD_WORDS:
        return FIELD_WORDS[field]
    kind, _, rest = field.partition(".")
    if kind in ("attributes", "inputs", "outputs"):
        name, _, prop = rest.partition(".")
        words = [kind[:-1], name] + ([prop.replace("_", " ")] if prop else [])
        return " ".join(words)
    return field.replace(".", " ").replace("_", " ")


def axes_rule_words(rule: str) -> str:
    """An axes rule in words: reduce_all, identity, error, or a flag attribute that decides."""
    if rule in AXES_RULE_WORDS:
        return AXES_RULE_WORDS[rule]
    return f"{rule} decides (0: reduce over all axes, 1: identity, return the input unchanged)"


def axes_lines(axes: AxesRule | None) -> list[str]:
    """The axes rules of a version, one sentence each (empty for an op without axes)."""
    if axes is None:
        return []
    negative = (
        "accepted, counted from the last axis (range [-r, r-1], r = rank of data)"
        if axes.negative
        else "rejected (range [0, r-1], r = rank of data)"
    )
    duplicates = {"error": "an error", "merge": "reduced once"}.get(axes.duplicates, axes.duplicates)
    required = "required" if axes.when_omitted == "error" else "optional"
    return [
        f"axes source: {axes.source} 'axes' ({required})",
        f"negative axes: {negative}",
        f"duplicate axes: {duplicates}",
        f"omitted axes: {axes_rule_words(axes.when_omitted)}",
        f"empty axes: {axes_rule_words(axes.when_empty)}",
    ]


def arity_words(info: Input) -> str:
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


def attribute_words(attr: Attribute) -> str:
    """``int, default 1, optional`` (plus ``values [0, 1]``, ``legacy``) for one attribute."""
    default = "no default" if attr.default is None else f"default {value_words(attr.default)}"
    words = [attr.type, default, "required" if attr.required else "optional"]
    if attr.values is not None:
        words.append(f"values {value_words(attr.values)}")
    if attr.legacy:
        words.append("legacy")
    return ", ".join(words)


def keepdims_words(op: OpVersion) -> str:
    """``attribute keepdims, default 1 (keep)`` or ``none`` for an op without one."""
    if op.keepdims is None:
        return "none"
    attr = op.attribute(op.keepdims.attribute)
    shown = value_words(attr.default if attr is not None else op.keepdims.default)
    kept = "keep the reduced dimensions" if op.keepdims.default else "remove the reduced dimensions"
    return f"attribute {op.keepdims.attribute}, default {shown} ({kept})"


def opsets_words(first: int, last: int | None) -> str:
    """``18+``, ``13``, ``13-17``: the opsets that select a version."""
    return f"{first}+" if last is None else (str(first) if last == first else f"{first}-{last}")


def show_lines(op: OpVersion, ops: tuple[OpVersion, ...]) -> list[tuple[str, str]]:
    """``spec show`` as (style, text) lines: style "title", "section" or "" (plain)."""
    from ..ops.opset import op_ref, opset_range

    lines: list[tuple[str, str]] = [
        ("title", f"{op.label}  {op_ref(op)}"),
        (
            "",
            f"kind: {op.kind}; since_version {op.since_version} "
            f"({op.domain} opsets {opsets_words(*opset_range(op, ops))})",
        ),
        ("", op.summary),
        ("section", "Inputs"),
    ]
    lines += [("", f"  {i.name}: {i.type_param}, {arity_words(i)}") for i in op.inputs]
    lines.append(("section", "Outputs"))
    lines += [("", f"  {o.name}: {o.type_param}") for o in op.outputs]
    lines.append(("section", "Attributes"))
    if not op.attributes:
        lines.append(("", "  none"))
    for a in op.attributes:
        lines.append(("", f"  {a.name}: {attribute_words(a)}"))
        lines.append(("", f"      {a.description}"))
    lines.append(("section", "Type constraints"))
    lines += [("", f"  {tc.param}: {', '.join(tc.allowed)}") for tc in op.type_constraints]
    lines.append(("section", "Semantics"))
    lines.append(("", f"  broadcasting: {op.broadcasting}"))
    if op.axes is None:
        lines.append(("", "  axes: none (not a reduction over axes)"))
    else:
        lines += [("", f"  {line}") for line in axes_lines(op.axes)]
    lines.append(("", f"  keepdims: {keepdims_words(op)}"))
    lines.append(("", f"  shape inference: {'yes' if op.shape_inference else 'no'}"))
    lines.append(("", f"kernels: {', '.join(op.kernels.values())}"))
    lines.append(("", f"spec file: {op.spec_path}"))
    return lines
