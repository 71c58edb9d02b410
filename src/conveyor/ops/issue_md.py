"""Writing `issue.md` into the issue's run folder at claim time (TRUST-5, TRUST-12)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from conveyor.core.issue_text import IssueText, render_issue
from conveyor.core.trust import Trust
from conveyor.forge.types import Comment, Issue

ISSUE_MD = "issue.md"
TAKEN_FOR = ".issue.md.claim"


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
    target = folder / ISSUE_MD
    partial = folder / f".{ISSUE_MD}.partial"
    partial.write_text(text.markdown, encoding="utf-8")
    partial.replace(target)
    if claim is not None:
        note = folder / f"{TAKEN_FOR}.partial"
        note.write_text(claim + "\n", encoding="utf-8")
        note.replace(folder / TAKEN_FOR)
    return target, text
