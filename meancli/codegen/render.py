"""Render every template from the loaded specs: a pure function of the model.

``render_all`` returns {relative output path: text}; ``main`` writes only the
files whose text changed, or with ``--check`` reports every difference and
fails, as CI's drift check.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2

from ..ops.schema import SPEC_FIELDS
from .dtypes import DTYPES, DType
from .isas import ISA_DTYPES, ISA_GROUPS, ISA_KINDS, ISA_NAMES, ISAS, isa_group
from .kernel_sources import KERNEL_SOURCES, kernel_sources_sha256
from .model import OpSpec, load_specs
from .statuses import STATUSES
from .yamlsource import SpecError

ROOT = Path(__file__).resolve().parents[2]

# How every C kernel is named: the templates (symbol()) and, through
# generated/tables.py, meancli.kernels.symbol at run time use this one format.
KERNEL_SYMBOL = "meancli_{entry}_{dtype}"


def kernel_symbol(entry: str, dtype: str) -> str:
    """The C symbol of kernel ``entry`` (``reduce``, ``mean``, ``partial_combine``, ...) for ``dtype``."""
    return KERNEL_SYMBOL.format(entry=entry, dtype=dtype)


# generated file -> template; kernels come first: the registry records their hash.
OUTPUTS = (
    ("kernels.c", "kernels.c.j2"),
    ("kernels_cdef.h", "kernels_cdef.h.j2"),
    ("validators.py", "validators.py.j2"),
    ("registry.py", "registry.py.j2"),
    ("tables.py", "tables.py.j2"),
    ("__init__.py", "init.py.j2"),
)


def _pytuple(items: Iterable[Any]) -> str:
    items = list(items)
    return "(" + ", ".join(repr(i) for i in items) + ("," if len(items) == 1 else "") + ")"


def _c_macros(text: str) -> list[str]:
    """The names a C text #defines, in order: what an ISA layer must #undef after its kernels."""
    return re.findall(r"^#define\s+(\w+)", text, flags=re.MULTILINE)


def _pyvalue(value: Any, indent: int = 0) -> str:
    """``value`` as Python source: spec records field by field, long strings wrapped
    (whole words) into implicitly concatenated lines, containers one item a line."""
    pad, inner = " " * indent, " " * (indent + 4)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a spec record (NamedTuple)
        fields = [f"{inner}{name}={_pyvalue(getattr(value, name), indent + 4)}," for name in value._fields]
        return f"{type(value).__name__}(\n" + "\n".join(fields) + f"\n{pad})"
    if isinstance(value, tuple) and value and any(isinstance(v, tuple) for v in value):
        items = [f"{inner}{_pyvalue(v, indent + 4)}," for v in value]
        return "(\n" + "\n".join(items) + f"\n{pad})"
    if isinstance(value, tuple):
        return _pytuple(value)
    if isinstance(value, str) and len(value) > 60:
        lines = _wrap_lines(value, 80)
        parts = [f"{inner}{(line + ('' if last else ' '))!r}" for line, last in _with_last(lines)]
        return "(\n" + "\n".join(parts) + f"\n{pad})"
    return repr(value)


def _with_last(items: list[str]) -> Iterable[tuple[str, bool]]:
    return ((item, i == len(items) - 1) for i, item in enumerate(items))


@dataclass(frozen=True)
class ValidatorGroup:
    """Versions whose validation rules are the same: one generated function serves them."""

    name: str
    specs: tuple[OpSpec, ...]


def _rules_key(spec: OpSpec) -> tuple[Any, ...]:
    # What templates/validators.py.j2 writes into a function; the rest (label,
    # types, attributes) the function reads from the OpVersion at run time.
    data = spec.inputs[0]
    return (spec.kind, data.min_arity, data.max_arity, spec.broadcasting, spec.axes)


def validator_groups(specs: list[OpSpec]) -> list[ValidatorGroup]:
    """The specs grouped by validation rules, in order of first appearance;
    named ``validate_reduce_1``, ``validate_mean_1``, ... per kind."""
    grouped: dict[tuple[Any, ...], list[OpSpec]] = {}
    for spec in specs:
        grouped.setdefault(_rules_key(spec), []).append(spec)
    counts: dict[str, int] = {}
    groups = []
    for members in grouped.values():
        kind = "reduce" if members[0].kind == "reduce" else "mean"
        counts[kind] = counts.get(kind, 0) + 1
        groups.append(ValidatorGroup(f"validate_{kind}_{counts[kind]}", tuple(members)))
    return groups


def _wrap_lines(text: str, width: int) -> list[str]:
    # Whole words only: joined back with spaces, the lines give the text unchanged.
    return textwrap.wrap(text, width, break_on_hyphens=False, break_long_words=False) or [""]


def make_environment(template_dir: Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters["pyrepr"] = repr
    env.globals["symbol"] = kernel_symbol
    env.filters["pytuple"] = _pytuple
    env.filters["wrap_lines"] = _wrap_lines
    env.filters["pyvalue"] = _pyvalue
    env.filters["c_macros"] = _c_macros
    return env


def _dtypes_of(specs: list[OpSpec], kind: str) -> list[DType]:
    wanted = {dt.name for s in specs if s.kind == kind for dt in s.data_types}
    return [dt for dt in DTYPES.values() if dt.name in wanted]


def render_all(specs: list[OpSpec], template_dir: Path, only: Iterable[str] | None = None) -> dict[str, str]:
    """Render the generated files: {target: text}, for every target of OUTPUTS, or for the
    targets in ``only`` (tables.py brings the kernel sources it hashes; the C kernels are
    most of the time, and a test of the registry needs none of them).

    Raises SpecError naming the template line on a template bug; ValueError for a
    target that is not one of OUTPUTS.
    """
    targets = {target for target, _ in OUTPUTS}
    wanted = targets if only is None else set(only)
    if wanted - targets:
        raise ValueError(f"not a generated file: {', '.join(sorted(wanted - targets))}")
    if "tables.py" in wanted:
        wanted.update(KERNEL_SOURCES)
    env = make_environment(template_dir)
    reduce_dtypes = _dtypes_of(specs, "reduce")
    mean_dtypes = _dtypes_of(specs, "elementwise_mean")
    groups = validator_groups(specs)
    context: dict[str, Any] = {
        "specs": specs,
        "spec_fields": SPEC_FIELDS,
        "validator_groups": groups,
        "validator_of": {s.ident: g.name for g in groups for s in g.specs},
        "integer_types": [dt.name for dt in DTYPES.values() if not dt.is_float],
        "spec_paths": [s.path for s in specs],
        "reduce_dtypes": reduce_dtypes,
        "mean_dtypes": mean_dtypes,
        "all_dtypes": [dt for dt in DTYPES.values() if dt in reduce_dtypes or dt in mean_dtypes],
        "kernel_statuses": STATUSES,
        "dtype_table": list(DTYPES.values()),
        "kernel_symbol_format": KERNEL_SYMBOL,
        "isas": ISAS,
        "isa_names": ISA_NAMES,
        "isa_groups": ISA_GROUPS,
        "isa_dtypes": ISA_DTYPES,
        "isa_kinds": ISA_KINDS,
        "isa_group": isa_group,
    }
    out: dict[str, str] = {}
    for target, template in OUTPUTS:
        if target not in wanted:
            continue
        if target == "tables.py":
            context["source_sha256"] = kernel_sources_sha256(out[k] for k in KERNEL_SOURCES)
        try:
            out[target] = env.get_template(template).render(template=template, **context)
        except jinja2.TemplateError as exc:
            line = getattr(exc, "lineno", None)
            where = f"templates/{getattr(exc, 'name', None) or template}:{line or '?'}"
            raise SpecError(f"{where}: {exc}") from None
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m meancli.codegen", description=__doc__)
    parser.add_argument("--spec-dir", type=Path, default=ROOT / "spec")
    parser.add_argument("--template-dir", type=Path, default=ROOT / "templates")
    parser.add_argument("--out", type=Path, default=ROOT / "generated")
    parser.add_argument("--check", action="store_true", help="write nothing; fail if --out differs")
    args = parser.parse_args(argv)
    try:
        # paths as spec/<domain>/<file>, wherever the directory is: the output is the same
        specs = load_specs(args.spec_dir, args.spec_dir.resolve().parent)
        files = render_all(specs, args.template_dir)
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    stale = []
    for name, text in files.items():
        path = args.out / name
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current == text:
            continue
        stale.append(name)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    extra = (
        sorted(p.name for p in args.out.glob("*") if p.is_file() and p.name not in files)
        if args.out.exists()
        else []
    )
    if args.check:
        for name in stale:
            print(
                f"error: {args.out / name} differs from a fresh generation; run `make generate`",
                file=sys.stderr,
            )
        for name in extra:
            print(f"error: {args.out / name} is not generated by any template; delete it", file=sys.stderr)
        return 1 if stale or extra else 0
    for name in stale:
        print(f"wrote {args.out / name}")
    return 0
