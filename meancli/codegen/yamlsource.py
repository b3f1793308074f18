"""Strict YAML reading that remembers where every value came from.

A spec error must name the file and line (``spec/onnx/Mean-8.yaml:12: ...``),
so the YAML is composed into nodes and converted by hand: duplicate keys are
rejected (pyyaml silently keeps the last one) and every mapping remembers the
line of each of its keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml


class SpecError(Exception):
    """A spec file is malformed; the message starts with ``FILE:LINE:``."""


@dataclass(frozen=True)
class Where:
    """A position in a spec file, printed as ``path:line``."""

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"

    def error(self, message: str) -> SpecError:
        return SpecError(f"{self}: {message}")


class LocatedDict(dict[str, Any]):
    """A YAML mapping whose ``where`` holds its own position and ``key_where`` each key's."""

    where: Where
    key_where: dict[str, Where]


class LocatedList(list[Any]):
    """A YAML sequence with the position of the sequence and of each item."""

    where: Where
    item_where: list[Where]


def load_yaml(path: Path, display: str) -> Any:
    """Parse one YAML file into plain values (dict, list, str, int, float, bool, None)
    whose mappings and sequences carry their source lines.

    Raises:
        SpecError: a YAML syntax error or a duplicate key, naming file and line.
    """
    text = path.read_text(encoding="utf-8")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise Where(display, line).error(f"YAML syntax: {getattr(exc, 'problem', exc)}") from None
    if node is None:
        raise Where(display, 1).error("the file is empty")
    return _convert(node, display)


def _convert(node: yaml.Node, display: str) -> Any:
    where = Where(display, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        out = LocatedDict()
        out.where = where
        out.key_where = {}
        for key_node, value_node in node.value:
            key = _convert(key_node, display)
            key_where = Where(display, key_node.start_mark.line + 1)
            if not isinstance(key, str):
                raise key_where.error(f"mapping key {key!r} is not a string")
            if key in out:
                raise key_where.error(f"duplicate key '{key}' (first at line {out.key_where[key].line})")
            out[key] = _convert(value_node, display)
            out.key_where[key] = key_where
        return out
    if isinstance(node, yaml.SequenceNode):
        seq = LocatedList()
        seq.where = where
        seq.item_where = []
        for item in node.value:
            seq.append(_convert(item, display))
            seq.item_where.append(Where(display, item.start_mark.line + 1))
        return seq
    # Scalars: let the safe constructor resolve the tag (int, bool, null, str, ...).
    return _SCALARS.construct_object(node)


_SCALARS = yaml.SafeLoader("")
