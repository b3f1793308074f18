"""Render every template from the loaded specs: a pure function of the model.

``render_all`` returns {relative output path: text}; ``main`` writes only the
files whose text changed, or with ``--check`` reports every difference and
fails, as CI's drift check.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import jinja2

from ..kernel_status import STATUSES
from .dtypes import DTYPES, DType
from .model import OpSpec, load_specs
from .yamlsource import SpecError

ROOT = Path(__file__).resolve().parents[2]

# generated file -> template; kernels come first: the registry records their hash.
OUTPUTS = (
    ("kernels.c", "kernels.c.j2"),
    ("kernels_cdef.h", "kernels_cdef.h.j2"),
    ("validators.py", "validators.py.j2"),
    ("registry.py", "registry.py.j2"),
    ("__init__.py", "init.py.j2"),
)
KERNEL_SOURCES = ("kernels.c", "kernels_cdef.h")


def kernel_sources_sha256(texts: Iterable[str]) -> str:
    """sha256 over the kernel source texts, in KERNEL_SOURCES order (also used by the build)."""
    h = hashlib.sha256()
    for text in texts:
        h.update(text.encode("utf-8"))
        h.update(b"\0")
    return h.hexdigest()


def _pytuple(items: Iterable[Any]) -> str:
    items = list(items)
    return "(" + ", ".join(repr(i) for i in items) + ("," if len(items) == 1 else "") + ")"


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
    env.filters["pytuple"] = _pytuple
    env.filters["wrap_lines"] = _wrap_lines
    return env


def _dtypes_of(specs: list[OpSpec], kind: str) -> list[DType]:
    wanted = {dt.name for s in specs if s.kind == kind for dt in s.data_types}
    return [dt for dt in DTYPES.values() if dt.name in wanted]


def render_all(specs: list[OpSpec], template_dir: Path) -> dict[str, str]:
    """Render every generated file. Raises SpecError naming the template line on a template bug."""
    env = make_environment(template_dir)
    reduce_dtypes = _dtypes_of(specs, "reduce")
    mean_dtypes = _dtypes_of(specs, "elementwise_mean")
    context: dict[str, Any] = {
        "specs": specs,
        "spec_paths": [s.path for s in specs],
        "reduce_dtypes": reduce_dtypes,
        "mean_dtypes": mean_dtypes,
        "all_dtypes": [dt for dt in DTYPES.values() if dt in reduce_dtypes or dt in mean_dtypes],
        "kernel_statuses": STATUSES,
    }
    out: dict[str, str] = {}
    for target, template in OUTPUTS:
        if target == "registry.py":
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
        specs = load_specs(args.spec_dir, ROOT)
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
