"""Fail when meancli's modules import each other in a cycle (`make lint`).

The import contract in pyproject.toml (lint-imports) checks that layers import
downward only; a cycle inside one layer (two io modules importing each other,
even from inside a function) is found here, on the same import graph (grimp,
import-linter's own, which reads imports inside functions too).
"""

from __future__ import annotations

import sys

import grimp


def cycles(package: str) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), sorted."""
    graph = grimp.build_graph(package)
    modules = sorted(graph.modules)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:  # recursive: the graph has a few hundred modules
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.find_modules_directly_imported_by(v)):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in modules:
        if module not in index:
            visit(module)
    return sorted(found)


def main() -> int:
    found = cycles("meancli")
    for component in found:
        print(f"import cycle: {' <-> '.join(component)}", file=sys.stderr)
    if found:
        print(f"{len(found)} import cycle(s) in meancli", file=sys.stderr)
        return 1
    print("no import cycles in meancli")
    return 0


if __name__ == "__main__":
    sys.exit(main())
