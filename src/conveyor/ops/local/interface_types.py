"""The type-only rule for a changed interface's file, in its language (SPEC-88, SPEC-89).

Python's is read with Python's parser (`core.typeonly`); Go's, Rust's, C's and C++'s,
Java's and TypeScript's line by line (`core.typeonly_rules`), TypeScript's then by its
emitted JavaScript with the worktree's own TypeScript (`ops.local.ts_emit`). JavaScript
and other files have no types to change: their change is refused.
"""

from __future__ import annotations

from conveyor.core.ecosystems import of_path
from conveyor.core.typeonly import Verdict, type_only
from conveyor.core.typeonly_rules import declarations_only
from conveyor.ops.local.ts_emit import ts_type_only
from conveyor.verify.context import Context


def interface_types(ctx: Context, path: str, old: str, new: str, tools: bool) -> Verdict:
    """Whether `old` → `new` changes only types, by the rule of `path`'s language.

    Without `tools`, TypeScript is judged by its lines alone (no command runs).
    """
    ecosystem = of_path(path)
    if ecosystem is None or ecosystem.declarations == "none":
        what = ecosystem.name if ecosystem is not None else "this kind of"
        return Verdict(False, f"Conveyor reads no types in {what} files")
    if ecosystem.declarations == "python":
        return type_only(old, new)
    lines = declarations_only(old, new, ecosystem.declarations, ecosystem.comments, path)
    if not lines.ok or ecosystem.declarations != "typescript" or path.endswith(".d.ts"):
        return lines
    return ts_type_only(ctx, path, old, new) if tools else lines
