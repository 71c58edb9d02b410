"""Intake: which new issues the scheduler may start, and in what order (BB-DISP-1, BB-DISP-5).

Pure functions of the snapshot's issues and the `[intake]` config. The trust gate has run
before (an untrusted issue is `waiting`); the filter only narrows it, and only for new
work: an issue the pipeline already holds goes on whatever its labels say now. Work in
flight goes first, oldest first, never reordered; new work follows, `priority_label` first,
then `dispatch_order` by size, then age. Priority reorders; it lifts no cap (BB-DISP-2).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from conveyor.core.config_intake import Intake
from conveyor.core.state import Stage
from conveyor.orchestrator.snapshot import IssueView

IN_FLIGHT = frozenset(Stage) - {Stage.DONE}
CODE = "intake"


def _has(labels: Iterable[str], name: str) -> bool:
    """Labels compare without case, as on GitHub."""
    wanted = name.casefold()
    return any(label.casefold() == wanted for label in labels)


def filter_reason(issue: IssueView, intake: Intake) -> str | None:
    """Why the filter leaves a new issue alone (each set key must match), or None."""
    if not issue.new:
        return None
    missing = [name for name in intake.labels if not _has(issue.labels, name)]
    if missing:
        shown = ", ".join(f"`{name}`" for name in missing)
        return f"{CODE}: lacks the label {shown} (intake.labels)"
    wanted = intake.assignee
    if wanted is not None and not any(a.casefold() == wanted.casefold() for a in issue.assignees):
        return f"{CODE}: not assigned to {wanted} (intake.assignee)"
    if intake.milestone is not None and issue.milestone != intake.milestone:
        shown = "none" if issue.milestone is None else repr(issue.milestone)
        return f"{CODE}: milestone {shown}, not {intake.milestone!r} (intake.milestone)"
    authors = {login.casefold() for login in intake.authors}
    if authors and issue.author.casefold() not in authors:
        return f"{CODE}: opened by {issue.author}, not one of intake.authors"
    return None


def is_priority(issue: IssueView, intake: Intake) -> bool:
    """Whether the issue carries the priority label."""
    return _has(issue.labels, intake.priority_label)


def _order_key(issue: IssueView, intake: Intake) -> tuple[bool, int, object, int]:
    rank = intake.rank(intake.size_of(issue.labels))
    by_size = {"smallest": rank, "largest": -rank, "oldest": 0}[intake.dispatch_order]
    return (not is_priority(issue, intake), by_size, issue.created_at, issue.number)


def dispatch_order(issues: Iterable[IssueView], intake: Intake) -> list[IssueView]:
    """Work in flight oldest first, then new work: priority, then `dispatch_order`, then age."""
    flight = sorted((i for i in issues if not i.new), key=lambda i: (i.created_at, i.number))
    fresh = sorted((i for i in issues if i.new), key=lambda i: _order_key(i, intake))
    return [*flight, *fresh]


def is_large(issue: IssueView, intake: Intake) -> bool:
    """Whether the issue's size counts against `max_large_in_flight`."""
    return intake.is_large(intake.size_of(issue.labels))


def large_in_flight(issues: Iterable[IssueView], intake: Intake) -> int:
    """Large issues the pipeline holds and works on (not new, stopped, waiting or done)."""
    return sum(
        1
        for issue in issues
        if not issue.new
        and issue.stopped is None
        and issue.waiting is None
        and issue.stage in IN_FLIGHT
        and is_large(issue, intake)
    )


@dataclass(frozen=True, slots=True)
class LargeCap:
    """How many large issues are in flight, against the cap (0: no cap)."""

    count: int
    cap: int

    def hold(self, issue: IssueView, intake: Intake) -> str | None:
        """Why a new large issue waits (checked before a slot is taken, BB-DISP-5), or None."""
        if self.cap == 0 or not issue.new or not is_large(issue, intake):
            return None
        if self.count < self.cap:
            return None
        size = intake.size_of(issue.labels)
        return f"{CODE}: size {size} waits, {self.count} large in flight (max_large_in_flight)"

    def took(self, issue: IssueView, intake: Intake) -> LargeCap:
        """The cap after `issue` started."""
        if issue.new and is_large(issue, intake):
            return LargeCap(self.count + 1, self.cap)
        return self


def intake_hold(issue: IssueView, intake: Intake, large: LargeCap) -> str | None:
    """Why intake holds a new issue back this tick (the filter, then the large cap), or None."""
    if not issue.new:
        return None
    return filter_reason(issue, intake) or large.hold(issue, intake)


def start_reason(issue: IssueView, intake: Intake) -> str:
    """Why a new issue starts where it does in the queue."""
    parts = ["new issue"]
    if is_priority(issue, intake):
        parts.append(f"`{intake.priority_label}`")
    size = intake.size_of(issue.labels)
    if intake.dispatch_order != "oldest":
        parts.append(f"size {size}, {intake.dispatch_order} first")
    parts.append("then oldest")
    if intake.oversize(issue.labels) is not None:
        parts.append(f"above max_size {intake.max_size}: triage is told to split it")
    return ", ".join(parts)
