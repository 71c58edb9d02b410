"""The scheduler: which issues start a stage job this tick, and why every other one waits."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from operator import attrgetter

from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.orchestrator.decisions import Decisions, Hold, StartJob, hold
from conveyor.orchestrator.gate import (
    RUNNABLE,
    Gate,
    admit,
    full_reason,
    launch_charge,
    lease_hold,
    open_gate,
    pauses,
)
from conveyor.orchestrator.intake import (
    LargeCap,
    dispatch_order,
    intake_hold,
    large_in_flight,
    start_reason,
)
from conveyor.orchestrator.snapshot import IssueView, Snapshot
from conveyor.orchestrator.stacking import (
    Restack,
    StackFacts,
    StackOn,
    stack_partners,
    stack_rule,
    stacked_on_open,
)

_NUMBER = attrgetter("number")
_NONE: frozenset[int] = frozenset()
_CREATED = attrgetter("created_at")


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the per-issue rules look up: open issues, closed-unmerged targets, the clock."""

    open_numbers: frozenset[int]
    closed_unmerged: frozenset[int]
    ci_poll: timedelta
    now: datetime
    stack: StackFacts
    ci_reported: frozenset[str] = frozenset()
    feedback_prs: frozenset[int] = frozenset()


def _facts(
    snapshot: Snapshot, config: Config, now: datetime, busy: frozenset[int] = frozenset()
) -> _Facts:
    """Collect the lookups once per pass; `busy` are the issues with a live job."""
    return _Facts(
        open_numbers=frozenset(issue.number for issue in snapshot.issues),
        closed_unmerged=snapshot.closed_unmerged,
        ci_poll=timedelta(seconds=config.limits.ci_poll_seconds),
        now=now,
        stack=StackFacts(
            snapshot.issue_map(), snapshot.closed_unmerged, snapshot.stack_behind, busy
        ),
        ci_reported=snapshot.ci_reported,
        feedback_prs=snapshot.feedback_prs,
    )


def _issue_rule(issue: IssueView, facts: _Facts) -> str | StackOn | Restack | None:
    """The issue's own rules, before the gate is asked: a hold reason, a stacked start, or None.

    Waiting outside the scheduler (a question, a split); the `after` mark and
    stacking (`conveyor.orchestrator.stacking`: `after:#a` while the issue it
    follows is open and not ready to be built on, …); a CI wait until
    `ci_poll_seconds` after its last read, unless the issue restacks first or a
    webhook said its CI finished or that a person gave feedback on its PR (the
    job reads that first).
    """
    if issue.waiting is not None:
        return issue.waiting
    if issue.after is not None or issue.stacked_on is not None:
        verdict = stack_rule(issue, facts.stack)
        if verdict is not None:
            return verdict
    wait = issue.ci_wait
    told = wait is not None and (wait.sha in facts.ci_reported or issue.pr in facts.feedback_prs)
    if wait is not None and not told:
        due = (wait.last_read or wait.since) + facts.ci_poll
        if facts.now < due:
            return f"ci-wait: next read due {due.isoformat()}"
    return None


def _issue_hold(issue: IssueView, facts: _Facts) -> str | None:
    """The hold reason of the issue's own rules, if they hold it."""
    rule = _issue_rule(issue, facts)
    return rule if isinstance(rule, str) else None


def _oldest_first(issues: list[IssueView]) -> list[IssueView]:
    """Oldest first, the number breaking ties (two stable sorts: cheap on numbered input)."""
    issues.sort(key=_NUMBER)
    issues.sort(key=_CREATED)
    return issues


def merge_queue(
    snapshot: Snapshot, unblocks: Counter[int], facts: _Facts, *, by_pr: bool = False
) -> tuple[int, ...]:
    """Issues at merge, first those that unblock the most waiting ones, then oldest (ORC-5).

    With the merge order on (`by_pr`), the merge op lets a PR merge only after
    every older PR past review (MRG-9), so the queue follows PR age instead:
    ranking a younger PR first would start a merge job that can only wait.
    An issue held by its own rules (an `after` mark, a question) is not ranked, nor
    one stacked on an issue still open (MRG-12).
    """
    merge = Stage.MERGE
    ranked = _oldest_first(
        [
            issue
            for issue in snapshot.issues
            if issue.stage is merge
            and issue.stopped is None
            and _issue_hold(issue, facts) is None
            and not stacked_on_open(issue, facts.stack)
        ]
    )
    if by_pr:
        ranked.sort(key=lambda issue: issue.pr if issue.pr is not None else issue.number)
    else:
        ranked.sort(key=lambda issue: -unblocks[issue.number])
    return tuple(issue.number for issue in ranked)


def _held_when_full(
    rest: list[IssueView], facts: _Facts, gate: Gate, full: str, *, large: LargeCap, config: Config
) -> list[Hold]:
    """Holds once nothing more can start: the gate's answer is known without asking it.

    One comprehension, because at 10,000 issues nearly every issue ends here.
    """
    intake = config.intake
    return [
        hold(
            issue.number,
            issue.stage,
            (
                None
                if issue.waiting is None
                and issue.after is None
                and issue.ci_wait is None
                and issue.stacked_on is None
                else _issue_hold(issue, facts)
            )
            or (intake_hold(issue, intake, large) if issue.new else None)
            or (full if issue.lease is None else lease_hold(gate, issue) or full),
        )
        for issue in rest
    ]


def _start_reason(
    issue: IssueView, rank: dict[int, int], unblocks: Counter[int], config: Config
) -> str:
    """Why this issue starts now."""
    if issue.number in rank:
        waiting = unblocks[issue.number]
        return f"merge queue {rank[issue.number] + 1}/{len(rank)}, unblocks {waiting}"
    if issue.ci_wait is not None:
        return f"ci-wait due for {issue.ci_wait.sha[:12]}"
    if issue.new:
        return start_reason(issue, config.intake)
    return f"{issue.stage.value} ready, in flight, oldest first"


def _start(
    gate: Gate,
    config: Config,
    issue: IssueView,
    rule: StackOn | Restack,
    *,
    partners: frozenset[int],
) -> tuple[Gate, StartJob] | str:
    """Ask the gate for a stacking start: the stage a restack names, or a start on P's branch,
    which names P. The stacking pair's writers do not hold each other (STK-10)."""
    stage = rule.stage if isinstance(rule, Restack) else issue.stage
    stack_on = rule.prereq if isinstance(rule, StackOn) else None
    if stack_on is not None:
        partners |= {stack_on}
    admitted = admit(gate, config, issue, stage, partners=partners)
    if isinstance(admitted, str):
        return admitted
    charge = launch_charge(issue, stage, config.budgets)
    return admitted, StartJob(issue.number, stage, rule.reason, charge=charge, stack_on=stack_on)


def schedule(
    snapshot: Snapshot, config: Config, now: datetime, gate: Gate | None = None
) -> Decisions:
    """Starts and holds for one tick, in a deterministic order: merges by rank, then work in
    flight oldest first, then new work as intake orders it (`orchestrator/intake.py`).

    `gate` is the watchdog's gate when it ran first (its resumes already counted).
    Stopped and done issues, and issues with a live job, get no decision.
    """
    current = open_gate(snapshot, config, now) if gate is None else gate
    facts = _facts(snapshot, config, now, current.busy)
    unblocks = snapshot.unblocks()
    queue = merge_queue(snapshot, unblocks, facts, by_pr=config.limits.merge_order)
    rank = {number: index for index, number in enumerate(queue)}
    partners = stack_partners(snapshot.issues)
    busy = current.busy
    merges: list[IssueView] = []
    others: list[IssueView] = []
    for issue in snapshot.issues:
        if issue.stopped is None and issue.stage in RUNNABLE and issue.number not in busy:
            (merges if issue.number in rank else others).append(issue)
    merges.sort(key=lambda issue: rank[issue.number])
    ordered = [*merges, *dispatch_order(others, config.intake)]
    starts: list[StartJob] = []
    holds: list[Hold] = []
    full = full_reason(current, config)
    large = LargeCap(
        large_in_flight(snapshot.issues, config.intake), config.intake.max_large_in_flight
    )
    index = 0
    while full is None and index < len(ordered):
        issue = ordered[index]
        index += 1
        rule = _issue_rule(issue, facts)
        if rule is None and issue.new:
            rule = intake_hold(issue, config.intake, large)
        if isinstance(rule, str):
            holds.append(hold(issue.number, issue.stage, rule))
            continue
        pair = partners.get(issue.number, _NONE)
        if rule is None:  # the common start, on the scheduler's hot path
            admitted = admit(current, config, issue, issue.stage, partners=pair)
            if isinstance(admitted, str):
                holds.append(hold(issue.number, issue.stage, admitted))
                continue
            current, full = admitted, full_reason(admitted, config)
            large = large.took(issue, config.intake)
            charge = launch_charge(issue, issue.stage, config.budgets)
            why = _start_reason(issue, rank, unblocks, config)
            starts.append(StartJob(issue.number, issue.stage, why, charge=charge))
            continue
        start = _start(current, config, issue, rule, partners=pair)
        if isinstance(start, str):
            holds.append(hold(issue.number, issue.stage, start))
            continue
        current, job = start
        full = full_reason(current, config)
        starts.append(job)
    if full is not None:
        holds.extend(
            _held_when_full(ordered[index:], facts, current, full, large=large, config=config)
        )
    found = pauses(snapshot, config, now)
    return Decisions(
        starts=tuple(starts),
        holds=tuple(holds),
        pauses=found,
        merge_queue=queue,
        money_paused=any(pause.kind == "money" for pause in found),
    )
