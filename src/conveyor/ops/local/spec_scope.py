"""The spec writer's scope (SPEC-78, SPEC-80, SPEC-88, SPEC-91): which files it may change.

Test files, stub files of new interfaces and the added files they import, check
configuration (`ops.local.spec_own`), and type-only changes to the files of changed
interfaces, judged in their language (`ops.local.interface_types`); each new interface's
stub names it.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from conveyor.core.config import Paths
from conveyor.core.paths import matches_any
from conveyor.core.replies import Interface
from conveyor.git import plain
from conveyor.git.plain import Change
from conveyor.ops.local.interface_types import interface_types
from conveyor.ops.local.py_imports import imported_paths
from conveyor.verify.context import Context

_NAMES = re.compile(r"\s*(?:,|\band\b)\s*")


def _text(ctx: Context, sha: str, path: str) -> str:
    data = plain.blob(ctx.tree, sha, path)
    return "" if data is None else data.decode("utf-8", errors="replace")


def _stub_closure(ctx: Context, head: str, stubs: set[str], added: set[str]) -> set[str]:
    """The stubs, the added files they import (transitively), and their packages' __init__."""
    allowed = set(stubs)
    todo = [s for s in stubs if s.endswith(".py")]
    while todo:
        current = todo.pop()
        for target in imported_paths(current, _text(ctx, head, current)) & added:
            if target not in allowed:
                allowed.add(target)
                todo.append(target)
    for path in list(allowed):
        folder = posixpath.dirname(path)
        while folder:
            allowed.add(posixpath.join(folder, "__init__.py"))
            folder = posixpath.dirname(folder)
    return allowed & (added | stubs)


def scope_findings(
    ctx: Context,
    paths: Paths,
    start: str,
    head: str,
    changes: Sequence[Change],
    *,
    interfaces: Sequence[Interface],
    config: frozenset[str] = frozenset(),
    tools: bool = True,
) -> tuple[str, ...]:
    """Every changed file the spec writer may not change, with why (SPEC-78, SPEC-88, SPEC-91).

    `config` are changed files whose every difference is check configuration: the spec
    defines what is checked, so it may change them (they become the judges' version).
    Without `tools` (the in-session quick check reads git only, SPEC-92) a TypeScript
    file is judged by its lines alone, not by its emitted JavaScript.
    """
    added = {c.path for c in changes if c.status == "A"}
    stubs = {i.where for i in interfaces if i.status == "new"} & added
    helpers = _stub_closure(ctx, head, stubs, added)
    changed_files = {i.where for i in interfaces if i.status == "changed"}
    found: list[str] = []
    for change in sorted(changes, key=lambda c: c.path):
        path = change.path
        if matches_any(path, paths.tests) or path in helpers or path in config:
            continue
        if path in changed_files and change.status == "M":
            verdict = interface_types(
                ctx, path, _text(ctx, start, path), _text(ctx, head, path), tools
            )
            if verdict.ok:
                continue
            found.append(
                f"{path}: a changed interface's file may change only in types ({verdict.reason})"
            )
            continue
        found.append(f"{path}: not a test file, a new interface's stub or a helper it imports")
    return tuple(found)


def stub_findings(ctx: Context, head: str, interfaces: Sequence[Interface]) -> tuple[str, ...]:
    """Each new interface's `where` exists and names each of its names (SPEC-80)."""
    found: list[str] = []
    for interface in interfaces:
        if interface.status != "new":
            continue
        data = plain.blob(ctx.tree, head, interface.where)
        if data is None:
            found.append(
                f"{interface.where}: the stub of new interface {interface.name!r} is missing"
            )
            continue
        text = data.decode("utf-8", errors="replace")
        missing = [n for n in _NAMES.split(interface.name) if n and n.split(".")[-1] not in text]
        if missing:
            found.append(f"{interface.where}: does not contain {', '.join(missing)}")
    return tuple(found)
