"""Writing `issue.md` into the issue's run folder at claim time (TRUST-5, TRUST-12).

Which version of each text it shows is decided before (`ops/forge/taking.py`); the texts
shown are kept beside it (`KEPT`), the copy a later held edit is answered from.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from conveyor.core.issue_text import IssueText, render_issue
from conveyor.core.taken import Taking
from conveyor.core.trust import Trust
from conveyor.forge.types import Comment, Issue

ISSUE_MD = "issue.md"
TAKEN_FOR = ".issue.md.claim"
# What was taken with issue.md, as data: stages read the withheld count and the title
# here, never back out of issue.md's text (which a trusted body could make say anything).
TAKEN_FACTS = ".issue.json"
# The texts issue.md shows, by key (`core/taken.py`): checked against the hashes the state
# records before any is shown again in place of a later edit.
KEPT = ".taken.json"


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
    taking: Taking,
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
        taking=taking,
    )
    folder.mkdir(parents=True, exist_ok=True)
    facts = {"title": issue.title, "withheld": text.withheld, "held": text.held}
    _write_atomic(folder / TAKEN_FACTS, json.dumps(facts) + "\n")
    kept = {"texts": dict(taking.texts), "hashes": dict(taking.hashes)}
    _write_atomic(folder / KEPT, json.dumps(kept) + "\n")
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


def read_kept(folder: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The texts the folder's last `issue.md` showed and the hashes it recorded, by key;
    empty when missing or unreadable."""
    try:
        data = json.loads((folder / KEPT).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}, {}
    if not isinstance(data, dict):
        return {}, {}
    return _strings(data.get("texts")), _strings(data.get("hashes"))


def _strings(data: object) -> dict[str, str]:
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}
