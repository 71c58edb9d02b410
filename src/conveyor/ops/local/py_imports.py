"""The repository paths a Python file may import: how the commit check finds a stub's helpers."""

from __future__ import annotations

import ast
import posixpath


def _module_paths(module: str) -> tuple[str, ...]:
    stem = module.replace(".", "/")
    return tuple(f"{root}{stem}{end}" for root in ("", "src/") for end in (".py", "/__init__.py"))


def imported_paths(path: str, source: str) -> frozenset[str]:
    """Repository paths a Python file may import (relative and absolute forms)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    found: set[str] = set()
    folder = posixpath.dirname(path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.update(_module_paths(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = folder
                for _ in range(node.level - 1):
                    up = posixpath.dirname(up)
                base = posixpath.join(up, *(node.module or "").split(".")) if node.module else up
                names = [base, *(posixpath.join(base, a.name) for a in node.names)]
                found.update(f"{n}{end}" for n in names for end in (".py", "/__init__.py"))
            elif node.module:
                found.update(_module_paths(node.module))
                found.update(
                    p for a in node.names for p in _module_paths(f"{node.module}.{a.name}")
                )
    return frozenset(posixpath.normpath(p) for p in found)
