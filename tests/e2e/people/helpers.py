"""What the tests of people's PR reviews share: a person's branch and PR, and the scripted
distiller, angles and reviewer."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from conveyor.forge.types import PullRequest
from conveyor.testing.world import TRUSTED, World
from tests.e2e.helpers import reply

LABEL = "review-requested"
LABELS_PY = "inventory/labels.py"
# A person's change: title case, and a plural that ignores its count (lines 9-11).
CHANGED = '''"""How item names are shown to people."""


def label(name: str) -> str:
    """The item's name as a person reads it."""
    return name.title()


def plural(name: str, count: int) -> str:
    """The name for `count` items."""
    return name + "s"
'''
GIT = ["git", "-c", "user.name=Alice", "-c", "user.email=a@a", "-c", "core.hooksPath=/dev/null"]


def push_branch(world: World, where: Path, branch: str, files: dict[str, str]) -> str:
    """A person commits `files` on `branch` (from main, or from the branch when it exists)
    and pushes; the new head."""
    clone = where / f"person-{branch.replace('/', '-')}"
    if not clone.exists():
        subprocess.run([*GIT, "clone", "-q", str(world.bare().path), str(clone)], check=True)
        subprocess.run([*GIT, "checkout", "-q", "-B", branch], cwd=clone, check=True)
    for path, text in files.items():
        target = clone / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    subprocess.run([*GIT, "add", "-A"], cwd=clone, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", f"Change on {branch}"], cwd=clone, check=True)
    subprocess.run([*GIT, "push", "-q", "-f", "origin", f"HEAD:{branch}"], cwd=clone, check=True)
    done = subprocess.run([*GIT, "rev-parse", "HEAD"], cwd=clone, check=True, capture_output=True)
    return done.stdout.decode().strip()


def person_pr(world: World, where: Path, title: str, *, author: str = TRUSTED,
              branch: str = "alice/labels") -> PullRequest:  # fmt: skip
    """A person's PR changing `inventory/labels.py`."""
    push_branch(world, where, branch, {LABELS_PY: CHANGED})
    return world.forge_as(author).create_pr(branch, "main", title, "Title-case the labels.")


def finding(
    claim: str, line: int | None, end: int | None = None, severity: str = "major"
) -> dict[str, Any]:
    """A finding on `inventory/labels.py`."""
    return {"severity": severity, "file": LABELS_PY, "line": line, "end_line": end,
            "claim": claim, "evidence": "read in the diff", "suggestion": "fix it"}  # fmt: skip


def brief(tag: str, size: str = "s") -> dict[str, Any]:
    """The distiller's entry."""
    answer = {"brief": "Title-cases labels; adds plural().", "size": size,
              "risky_paths": [LABELS_PY], "summary": "briefed"}  # fmt: skip
    return {"tag": tag, "kind": "brief", "turns": [reply(answer)]}


def angle(tag: str, name: str, *found: dict[str, Any], **match: Any) -> dict[str, Any]:
    """One angle's entry with these findings."""
    answer = {"angle": name, "findings": list(found), "summary": f"{name} looked"}
    return {"tag": tag, "kind": f"angle-{name}", **match, "turns": [reply(answer)]}


def reviewer(tag: str, summary: str, *wordings: tuple[int, str], **match: Any) -> dict[str, Any]:
    """The reviewer's entry."""
    said = [{"finding": n, "comment": text} for n, text in wordings]
    return {"tag": tag, "kind": "pr-review", **match,
            "turns": [reply({"summary": summary, "wordings": said})]}  # fmt: skip


PLURAL = finding("plural() ignores count: one item still gets an s", 11, severity="blocking")
UNTESTED = finding("plural() has no test", 9, 11)
