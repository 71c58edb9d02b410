"""Every issue the pipeline knows locally, with its outcome and PR: `conveyor status`'s list.

Open issues come from the snapshot cache (each tick's read of the forge);
issues no longer open (merged, closed) from the view the last job left in
`runs/issue-N/view.json`, titled from the facts taken with its `issue.md`.
Local files only: what the forge changed since the last tick shows next tick.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conveyor.core.labels import Status, labelled_outcome
from conveyor.core.state import IssueState, Stage

RUNS = "runs"


@dataclass(frozen=True)
class IssueLine:
    """One issue as the list shows it."""

    number: int
    title: str
    outcome: str
    pr: int | None

    def as_json(self) -> dict[str, object]:
        """The line as a JSON object."""
        return {"issue": self.number, "title": self.title, "outcome": self.outcome, "pr": self.pr}


def outcome_of(labels: tuple[str, ...], state: IssueState | None, *, is_open: bool) -> str:
    """merged, stopped (control), waiting for an answer, split, at/working on a stage, …"""
    said = labelled_outcome(labels)
    if said is not None:
        return said
    if Status.SPLIT.value in labels:
        return "split"  # its parts are listed on their own; it closes when they all do
    if not is_open:
        return "closed"
    if state is None:
        return "not started"
    if state.stage is Stage.DONE:
        return "done"
    if state.stage is Stage.APPROVED:
        return f"approved: a person merges PR #{state.pr}"
    doing = "working on" if Status.WORKING.value in labels else "waiting for"
    return f"{doing} {state.stage.value}"


def _numbered(folder: Path) -> int | None:
    digits = folder.name.removeprefix("issue-")
    return int(digits) if folder.name.startswith("issue-") and digits.isdigit() else None


def known_issues(home: Path) -> list[IssueLine]:
    """Every issue in the snapshot cache or with a run folder, by number."""
    from conveyor.job.view_file import VIEW_FILE, IssueView
    from conveyor.ops.forge.issue_md import read_taken
    from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, load_cached_issues

    lines: dict[int, IssueLine] = {}
    for number, cached in load_cached_issues(home / CACHE_FILE).items():
        issue = cached.issue
        state = cached.state
        outcome = outcome_of(issue.labels, state, is_open=issue.state == "open")
        lines[number] = IssueLine(number, issue.title, outcome, None if state is None else state.pr)
    for folder in sorted((home / RUNS).glob("issue-*")):
        found = _numbered(folder)
        if found is None or found in lines:
            continue
        number = found
        taken = read_taken(folder)
        title = taken.title if taken is not None else "(title not recorded)"
        try:
            view = IssueView.model_validate_json((folder / VIEW_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            lines[number] = IssueLine(number, title, "no job has finished yet", None)
            continue
        facts = view.facts
        outcome = outcome_of(facts.labels, facts.state, is_open=facts.open)
        pr = None if facts.state is None else facts.state.pr
        lines[number] = IssueLine(number, title, outcome, pr)
    return [lines[n] for n in sorted(lines)]


def render_lines(lines: list[IssueLine]) -> list[str]:
    """The list as aligned text lines (a header first)."""
    if not lines:
        return ["issues: none known yet (the first tick reads them from the forge)"]
    rows = [(f"#{x.number}", x.outcome, f"#{x.pr}" if x.pr else "-", x.title) for x in lines]
    head = ("issue", "outcome", "PR", "title")
    widths = [max(len(row[i]) for row in (head, *rows)) for i in range(3)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    return ["issues:", *(fmt.format(*row) for row in (head, *rows))]
