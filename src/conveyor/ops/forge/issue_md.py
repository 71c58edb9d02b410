"""Writing `issue.md` into the issue's run folder at claim time (TRUST-5, TRUST-12)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from conveyor.core.issue_text import IssueText, render_issue
from conveyor.core.trust import Trust
from conveyor.forge.types import Comment, Issue

ISSUE_MD = "issue.md"
TAKEN_FOR = ".issue.md.claim"
# What was taken with issue.md, as data: stages read the withheld count and the title
# here, never back out of issue.md's text (which a trusted body could make say anything).
TAKEN_FACTS = ".issue.json"


@dataclass(frozen=True)
class TakenIssue:
    """The facts taken with `issue.md`: the issue's title and how many comments were withheld."""

    title: str
    withheld: int


def run_folder(home: Path, repo_dirname: str, number: int) -> Path:
    """`$CONVEYOR_HOME/<owner>__<repo>/runs/issue-N/` (DESIGN.md, persistent layout)."""
    return home / repo_dirname / "runs" / f"issue-{number}"


def taken_for(folder: Path) -> str | None:
    """Which claim the run folder's `issue.md` was taken for (None when not recorded)."""
    try:
        return (folder / TAKEN_FOR).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def write_issue_md(
    folder: Path,
    issue: Issue,
    comments: Iterable[Comment],
    trust: Trust,
    *,
    claim: str | None = None,
) -> tuple[Path, IssueText]:
    """Render the issue for agents and write it atomically as `folder/issue.md`.

    `claim` (the claim's lane and run) is recorded beside it afterwards, so a claim
    finished after a crash knows whether the file is its own or an earlier claim's.
    """
    text = render_issue(
        issue.number,
        title=issue.title,
        author=issue.author,
        body=issue.body,
        comments=comments,
        trust=trust,
    )
    folder.mkdir(parents=True, exist_ok=True)
    facts = {"title": issue.title, "withheld": text.withheld}
    _write_atomic(folder / TAKEN_FACTS, json.dumps(facts) + "\n")
    target = folder / ISSUE_MD
    partial = folder / f".{ISSUE_MD}.partial"
    partial.write_text(text.markdown, encoding="utf-8")
    partial.replace(target)
    if claim is not None:
        note = folder / f"{TAKEN_FOR}.partial"
        note.write_text(claim + "\n", encoding="utf-8")
        note.replace(folder / TAKEN_FOR)
    return target, text


def _write_atomic(path: Path, text: str) -> None:
    partial = path.with_name(f"{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def read_taken(folder: Path) -> TakenIssue | None:
    """The facts taken with the folder's `issue.md`; None when missing or unreadable."""
    try:
        data = json.loads((folder / TAKEN_FACTS).read_text(encoding="utf-8"))
        title, withheld = data["title"], data["withheld"]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if not isinstance(title, str) or not isinstance(withheld, int) or withheld < 0:
        return None
    return TakenIssue(title, withheld)
