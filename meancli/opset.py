"""Choosing an operator version: ``--opset N``, ``onnx:N`` or ``openvino:N``.

As ONNX resolves an opset import: the highest version of the operator whose
since_version is <= N (onnx:12 -> ReduceMean-11, onnx:7 -> Mean-6). Without
an opset, the newest version of the operator in the onnx domain.
"""

from __future__ import annotations

import re

from .errors import OpsetError, UsageError
from .opversion import OpVersion

DEFAULT_DOMAIN = "onnx"
_SPEC = re.compile(r"^(?:(?P<domain>[A-Za-z_][A-Za-z0-9_.]*):)?(?P<version>[0-9]{1,18})$")


def parse_opset(text: str) -> tuple[str, int]:
    """Parse ``N``, ``onnx:N`` or ``openvino:N`` into (domain, N).

    Raises:
        UsageError: any other form (``onnx:``, ``foo:3``, ``-1``, ``1.5``, ``0``):
            a malformed value, exit status 2.
    """
    m = _SPEC.match(text.strip())
    if not m:
        raise UsageError(f"opset {text!r}: expected N, onnx:N or openvino:N with N a positive integer")
    domain = m.group("domain") or DEFAULT_DOMAIN
    version = int(m.group("version"))
    domains = sorted({op.domain for op in registry()})
    if domain not in domains:
        raise UsageError(f"opset {text!r}: unknown domain {domain!r} (known: {', '.join(domains)})")
    if version < 1:
        raise UsageError(f"opset {text!r}: opset versions start at 1")
    return domain, version


_RESOLVED: dict[tuple[str, str | int | None], OpVersion] = {}


def resolve(op_name: str, opset: str | int | None = None) -> OpVersion:
    """Cached :func:`resolve_uncached` (the registry never changes at run time)."""
    key = (op_name, opset)
    op = _RESOLVED.get(key)
    if op is None:
        op = _RESOLVED[key] = resolve_uncached(op_name, opset)
    return op


def resolve_uncached(op_name: str, opset: str | int | None = None) -> OpVersion:
    """The operator version that ``opset`` selects for ``op_name`` (Mean or ReduceMean).

    Args:
        op_name: the operator's name as in the specs.
        opset: None (newest onnx version), an int N (onnx:N), or a string
            ``N`` / ``onnx:N`` / ``openvino:N``.

    Raises:
        UsageError: a malformed opset (see parse_opset).
        OpsetError: a domain without the operator, or an opset older than
            the operator's first version.
    """
    if opset is None:
        domain, version = DEFAULT_DOMAIN, None
    elif isinstance(opset, bool) or not isinstance(opset, (int, str)):
        raise UsageError(f"opset must be an int or a string like 'onnx:18', got {opset!r}")
    elif isinstance(opset, int):
        domain, version = parse_opset(str(opset))
    else:
        domain, version = parse_opset(opset)
    candidates = sorted(
        (op for op in registry() if op.name == op_name and op.domain == domain), key=lambda op: op.since_version
    )
    if not candidates:
        have = sorted({op.domain for op in registry() if op.name == op_name})
        raise OpsetError(f"{op_name} is not an operator of the {domain} domain (it is in: {', '.join(have)})")
    if version is None:
        return candidates[-1]
    chosen = [op for op in candidates if op.since_version <= version]
    if not chosen:
        listed = ", ".join(op.key for op in candidates)
        raise OpsetError(
            f"{domain} opset {version} has no {op_name}: its first version is "
            f"{candidates[0].key} (versions: {listed})"
        )
    return chosen[-1]


def registry() -> tuple[OpVersion, ...]:
    """Every operator version of the generated registry, in its order."""
    from .generated.registry import OPS

    ops: tuple[OpVersion, ...] = OPS
    return ops
