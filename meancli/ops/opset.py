"""Naming operator versions: opsets (``--opset N``, ``onnx:N``, ``openvino:N``)
and versions themselves (``ReduceMean-18``, ``onnx:ReduceMean:18``), one grammar.

An opset resolves as ONNX resolves an opset import: the highest version of the
operator whose since_version is <= N (onnx:12 -> ReduceMean-11, onnx:7 ->
Mean-6). Without an opset, the newest version of the operator in the onnx
domain. A version name is ``[DOMAIN:]OP[-N | :N]``: without a domain the onnx
one, without N the newest; names match case-insensitively.
"""

from __future__ import annotations

import operator
import re

from ..errors import OpsetError, UsageError
from .schema import OpVersion

DEFAULT_DOMAIN = "onnx"
# Patterns, compiled (and cached by re) on first use: a run without --opset never needs them.
_NAME = r"^[A-Za-z_][A-Za-z0-9_.]*$"
_NUMBER = r"^[0-9]{1,18}$"
_NAME_VERSION = r"^(?P<name>[A-Za-z_][A-Za-z0-9_.]*)(?:-(?P<version>[0-9]{1,18}))?$"


def split_name(text: str, *, op: bool) -> tuple[str | None, str | None, int | None] | None:
    """(domain, operator name, version) of ``text``, each None when absent; None if malformed.

    With ``op`` False, ``text`` names an opset: ``N`` or ``DOMAIN:N`` (no
    operator). With ``op`` True, a version: ``OP``, ``OP-N``, ``OP:N``,
    ``DOMAIN:OP``, ``DOMAIN:OP-N`` or ``DOMAIN:OP:N``.
    """
    parts = text.strip().split(":")
    if not op:
        if len(parts) > 2 or not re.match(_NUMBER, parts[-1]):
            return None
        if len(parts) == 2 and not re.match(_NAME, parts[0]):
            return None
        return (parts[0] if len(parts) == 2 else None), None, int(parts[-1])
    if len(parts) == 3:
        if re.match(_NAME, parts[0]) and re.match(_NAME, parts[1]) and re.match(_NUMBER, parts[2]):
            return parts[0], parts[1], int(parts[2])
        return None
    domain: str | None = None
    if len(parts) == 2:
        if re.match(_NUMBER, parts[1]):  # ReduceMean:18
            return (None, parts[0], int(parts[1])) if re.match(_NAME, parts[0]) else None
        if not re.match(_NAME, parts[0]):
            return None
        domain = parts[0]
    elif len(parts) != 1:
        return None
    m = re.match(_NAME_VERSION, parts[-1])
    if not m:
        return None
    version = m.group("version")
    return domain, m.group("name"), int(version) if version is not None else None


def parse_opset(text: str) -> tuple[str, int]:
    """Parse ``N``, ``onnx:N`` or ``openvino:N`` into (domain, N).

    Raises:
        UsageError: any other form (``onnx:``, ``foo:3``, ``-1``, ``1.5``, ``0``):
            a malformed value, exit status 2.
    """
    parts = split_name(text, op=False)
    if parts is None:
        raise UsageError(
            f"opset {text!r}: expected N, onnx:N or openvino:N with N a positive integer of at most 18 digits"
        )
    domain = parts[0] or DEFAULT_DOMAIN
    version = parts[2]
    assert version is not None
    domains = sorted({op.domain for op in registry()})
    if domain not in domains:
        raise UsageError(f"opset {text!r}: unknown domain {domain!r} (known: {', '.join(domains)})")
    if version < 1:
        raise UsageError(f"opset {text!r}: opset versions start at 1")
    return domain, version


_RESOLVED: dict[tuple[str, type, str | int | None], OpVersion] = {}


def resolve(op_name: str, opset: str | int | None = None) -> OpVersion:
    """Cached :func:`resolve_uncached` (the registry never changes at run time). The
    key holds the type of ``opset``: 13, 13.0 and True == 1 are equal, but only
    ints and strings are opsets."""
    key = (op_name, type(opset), opset)
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
    elif isinstance(opset, str):
        domain, version = parse_opset(opset)
    else:
        try:  # an int, numpy's included; not a bool
            if isinstance(opset, bool) or type(opset).__name__ in ("bool", "bool_"):
                raise TypeError
            number = operator.index(opset)
        except TypeError:
            raise UsageError(f"opset must be an int or a string like 'onnx:18', got {opset!r}") from None
        domain, version = parse_opset(str(number))
    candidates = sorted(
        (op for op in registry() if op.name == op_name and op.domain == domain),
        key=lambda op: op.since_version,
    )
    if not candidates:
        versions = known_versions(tuple(op for op in registry() if op.name == op_name))
        raise OpsetError(f"{op_name} is not an operator of the {domain} domain (its versions: {versions})")
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
    ops = registry() if ops is None else ops
    known = known_versions(ops)
    parts = split_name(text, op=True)
    if parts is None:
        raise OpsetError(
            f"{text!r} is not an operator version: expected e.g. ReduceMean-18, onnx:ReduceMean:18 "
            f"or openvino:ReduceMean:1 (known: {known})"
        )
    domain, name, version = parts
    assert name is not None
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
