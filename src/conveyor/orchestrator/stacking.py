"""The orchestrator's stacking rules (STK-7..13): when an issue that follows another starts on
its prerequisite's branch, when a stacked issue is held, and when it restacks.

Pure, over the snapshot's facts: each open issue's stage, head, open findings,
stop, stacking and flows, and which prerequisites were closed without merging.
An issue's prerequisite P is the issue it is stacked on or, when it is not
stacked, the single open issue its `after` mark names. Every answer is a hold
reason, a start on P's branch, a restack, or nothing (the issue is free of both).

A wiki-only change (FLOW-5) has no code branch of its own: it is never restacked,
and nothing is stacked on it (its finish-wiki publishes no branch to build on); it
still publishes only after P merges, as its `after` mark says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from conveyor.core.state import Stage
from conveyor.orchestrator.snapshot import IssueView

# Where a waiting issue may start on P's branch, and where P must be for it (STK-8).
EARLY = frozenset({Stage.TRIAGE, Stage.SPEC, Stage.IMPLEMENT})
PREREQ_READY = frozenset({Stage.CHECKS, Stage.ACCEPT, Stage.SECURITY, Stage.MERGE})
# Where a stacked issue restacks when P moves or merges (STK-11).
LATE = frozenset({Stage.SYNC, Stage.CHECKS, Stage.ACCEPT, Stage.SECURITY, Stage.MERGE})


@dataclass(frozen=True, slots=True)
class StackOn:
    """Start the issue's job on P's branch (`--stack-on P`, its first stacked job)."""

    prereq: int
    reason: str


@dataclass(frozen=True, slots=True)
class Restack:
    """Start the stacked issue at `stage` (sync, or merge's own rebase) since P moved or merged."""

    stage: Stage
    reason: str


# A hold reason (str), a start on P's branch, a restack, or None: nothing to do with stacking.
StackVerdict = str | StackOn | Restack | None


@dataclass(frozen=True, slots=True)
class StackFacts:
    """What the rules look up: open issues by number, prerequisites closed unmerged, the
    issues whose prerequisite's branch lacks another prerequisite's merge (STK-9), and the
    issues with a live job."""

    open: Mapping[int, IssueView]
    closed_unmerged: frozenset[int]
    behind: frozenset[int] = frozenset()
    busy: frozenset[int] = frozenset()


def merged_while_open(prereq: IssueView) -> bool:
    """An open P counts as merged once its PR merged and only its close-out is left (STK-14)."""
    return prereq.stage is Stage.DONE or prereq.waiting == "merged"


def stack_rule(issue: IssueView, facts: StackFacts) -> StackVerdict:
    """The stacking verdict for one issue; None for the common issue that follows nothing."""
    if issue.stacked_on is not None:
        return _stacked(issue, issue.stacked_on, facts)
    if issue.after is None:
        return None
    return _following(issue, facts)


def _stacked(issue: IssueView, prereq: int, facts: StackFacts) -> StackVerdict:
    """A stacked issue: held while P is stopped or closed unmerged, and at merge while P is
    open; restacked from sync to merge when P's head moved or P merged (STK-10..12)."""
    found = facts.open.get(prereq)
    if found is None or merged_while_open(found):
        if found is None and prereq in facts.closed_unmerged:
            return f"after:#{prereq}:closed-unmerged"
        return _restack(issue, prereq, "merged")
    if found.stopped is not None:
        return f"after:#{prereq}:stopped"
    if issue.code_flow and found.head is not None and found.head != issue.stacked_head:
        if prereq in facts.busy and issue.stage in LATE:
            # P's job may still be moving its branch (its saved head lags its pushes):
            # restack once that job has ended, not once per tick while it runs.
            return f"stacked-on:#{prereq}"
        return _restack(issue, prereq, "moved")
    if issue.stage is Stage.MERGE:
        return f"stacked-on:#{prereq}"
    return None


def _restack(issue: IssueView, prereq: int, what: str) -> Restack | None:
    if issue.stage not in LATE or not issue.code_flow:
        # The issue's next sync puts it on P's new head (or the base); a wiki-only change
        # has no commits of its own to put there.
        return None
    stage = Stage.MERGE if issue.stage is Stage.MERGE else Stage.SYNC
    return Restack(stage, f"stacked on #{prereq}, which {what}: restack at {stage.value}")


def _following(issue: IssueView, facts: StackFacts) -> StackVerdict:
    """An issue with an `after` mark, not stacked: held `after:#P` until P is ready to be
    built on, then started on P's branch; stacks go one level deep (STK-8, STK-9, STK-12)."""
    afters = issue.afters or ((issue.after,) if issue.after is not None else ())
    opened = facts.open
    if len(afters) == 1:  # the common case, kept cheap: the scheduler asks it of every follower
        first = afters[0]
        found = opened.get(first)
        if found is None:
            return f"after:#{first}:closed-unmerged" if first in facts.closed_unmerged else None
        if found.stage is Stage.DONE or found.waiting == "merged":
            return None
        pending = [first]
    else:
        pending = [n for n in afters if n in opened and not merged_while_open(opened[n])]
        closed = [n for n in afters if n in facts.closed_unmerged and n not in opened]
        if closed:
            return f"after:#{closed[0]}:closed-unmerged"
        if not pending:
            return None
        first = pending[0]
    prereq = opened[first]
    if prereq.stopped is not None:
        return f"after:#{first}:stopped"
    ready = (
        len(pending) == 1
        and issue.stage in EARLY
        and prereq.stage in PREREQ_READY
        and prereq.open_findings == 0
        and prereq.stacked_on is None
        and prereq.head is not None
        and prereq.code_flow
    )
    if not ready:
        return f"after:#{first}"
    if issue.number in facts.behind:
        return f"stacked-on-behind:#{first}"
    why = f"stack on #{first}: at {prereq.stage.value} with no open findings"
    return StackOn(first, why)


def stack_partners(issues: Sequence[IssueView]) -> dict[int, frozenset[int]]:
    """Each stacked issue and its open prerequisite, both ways: the writers' file-overlap gate
    ignores the pair (STK-10)."""
    found: dict[int, set[int]] = {}
    stacked = [issue for issue in issues if issue.stacked_on is not None]
    if not stacked:
        return {}
    numbers = {issue.number for issue in issues}
    for issue in stacked:
        prereq = issue.stacked_on
        if prereq is not None and prereq in numbers:
            found.setdefault(issue.number, set()).add(prereq)
            found.setdefault(prereq, set()).add(issue.number)
    return {number: frozenset(partners) for number, partners in found.items()}


def stacked_on_open(issue: IssueView, facts: StackFacts) -> bool:
    """Whether the issue is stacked on a P that is still open (it then gets no merge rank)."""
    prereq = issue.stacked_on
    if prereq is None:
        return False
    found = facts.open.get(prereq)
    return found is not None and not merged_while_open(found)


@dataclass(frozen=True, slots=True)
class BehindQuestion:
    """Whether P's branch at `head` holds the merges of `merged`, the other issues the
    follower waits on (STK-9); the tick answers it from git."""

    issue: int
    prereq: int
    head: str
    merged: tuple[int, ...]


def behind_questions(issues: Sequence[IssueView], facts: StackFacts) -> list[BehindQuestion]:
    """The followers about to be stacked whose `after` mark names issues that already merged."""
    found: list[BehindQuestion] = []
    for issue in issues:
        if issue.stacked_on is not None or len(issue.afters) < 2:
            continue
        verdict = _following(issue, StackFacts(facts.open, facts.closed_unmerged))
        if not isinstance(verdict, StackOn):
            continue
        prereq = facts.open[verdict.prereq]
        merged = tuple(n for n in issue.afters if n != verdict.prereq and n not in facts.open)
        if merged and prereq.head is not None:
            found.append(BehindQuestion(issue.number, verdict.prereq, prereq.head, merged))
    return found
