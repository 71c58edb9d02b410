"""The implementer's guard on the spec writer's tests (IMPL-12): they stay as written."""

from __future__ import annotations

from conveyor.core.config import Paths
from conveyor.core.paths import matches_any
from conveyor.git import plain
from conveyor.git.plain import Tree


def spec_test_findings(checkout: Tree, paths: Paths, start: str, spec_sha: str) -> tuple[str, ...]:
    """The spec writer's test files (start..spec_sha) the checkout's HEAD changed or deleted.

    The implementer may not change them (IMPL-12); each finding names the file.
    """
    head = plain.head(checkout)
    found: list[str] = []
    for change in plain.changes(checkout, start, spec_sha):
        if not matches_any(change.path, paths.tests):
            continue
        now = plain.blob(checkout, head, change.path)
        if now == plain.blob(checkout, spec_sha, change.path):
            continue
        what = "deleted" if now is None else "changed"
        found.append(f"{change.path}: the spec writer's test was {what}; put it back as it was")
    return tuple(found)
