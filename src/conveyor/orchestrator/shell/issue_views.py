"""The scheduler's views: `IssueView` from the cached forge issue, `JobView` from job.json.

Pure: the tick passes the cached issues, the trust rule, the job records and `now`. Which
issues wait for work is C's pickup rule (ORC-9: the orchestrator calls the
sweep's rule rather than repeating it); an issue pickup skips is kept with
its reason as `waiting`, so status can say why it rests (GOAL-16).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from datetime import datetime, timedelta

from conveyor.core.claims import live_claims, parse_claims
from conveyor.core.flows import has_code
from conveyor.core.labels import stop_code_of
from conveyor.core.pickup import IssueFacts, answered, pickup
from conveyor.core.restart import restart_stage
from conveyor.core.state import FINAL, IssueState, Stage
from conveyor.core.trust import Trust, same_login
from conveyor.job.jobfile import RUNNING
from conveyor.orchestrator.shell.executor import RecordedJob
from conveyor.orchestrator.shell.snapshot_store import CachedIssue
from conveyor.orchestrator.snapshot import IssueView, JobRole, JobView, Lease, ToolFailure

_AFTER = re.compile(r"^After #(\d+) merges\.\s*$", re.MULTILINE)
WAITING = frozenset({
    "waiting-for-answer", "split", "merged", "approved", "untrusted", "state-too-new",
    "state-undecodable",
})  # fmt: skip


def after_numbers(entry: CachedIssue, account: str) -> tuple[int, ...]:
    """The issues this one follows: the state's `after`, and "After #a merges." lines in a body
    the pipeline's own account wrote (a person's body cannot order the queue)."""
    found = set(entry.state.after if entry.state else ())
    if same_login(entry.issue.author, account):
        found.update(int(n) for n in _AFTER.findall(entry.issue.body))
    return tuple(sorted(found))


def interface_paths(state: IssueState | None) -> tuple[str, ...]:
    """The `where` of each interface the spec named (the state keeps them as JSON text)."""
    if state is None or not state.interfaces:
        return ()
    try:
        items = json.loads(state.interfaces)
    except ValueError:
        return ()
    if not isinstance(items, list):
        return ()
    wheres = (item.get("where") for item in items if isinstance(item, dict))
    return tuple(w for w in wheres if isinstance(w, str) and w)


def issue_view(
    entry: CachedIssue,
    trust: Trust,
    now: datetime,
    lease_hours: float,
    open_numbers: Collection[int] = (),
) -> IssueView:
    """The scheduler's view of one open issue; `open_numbers` picks which `after` still holds."""
    issue, state = entry.issue, entry.state
    facts = IssueFacts(
        number=issue.number,
        author=issue.author,
        open=issue.state == "open",
        labels=issue.labels,
        state=state,
        state_problem=entry.state_problem,
        answered=answered(entry.comments, trust),
    )
    decided = pickup(facts, trust, now, lease_hours)
    stage = state.stage if state is not None else Stage.TRIAGE
    if decided.action == "restart" and state is not None:
        stage = restart_stage(state)
    lease = None
    if decided.reason == "leased" and state is not None and state.lease is not None:
        lease = Lease(state.lease.lane, state.lease.at + timedelta(hours=lease_hours))
    elif decided.action == "take":
        # A released or expired lease is not enough: while a lane's claim comment is live,
        # that lane holds the issue and another lane's job would only lose the claim
        # (CLAIM-12, CLAIM-14).
        claims = live_claims(parse_claims(entry.comments, trust.account), now, lease_hours)
        if claims:
            held = claims[0]
            lease = Lease(held.lane, held.updated_at + timedelta(hours=lease_hours))
    waiting: str | None = decided.reason if decided.reason in WAITING else None
    stopped = stop_code_of(issue.labels) if decided.reason == "stopped" else None
    if decided.reason == "stopped" and stopped is None:
        waiting = "stopped (a stop label this version does not know)"
    if waiting is None and stage in FINAL:
        waiting = stage.value
    afters = after_numbers(entry, trust.account)
    pending = [n for n in afters if n in open_numbers]
    stacked = state.stacked_on if state is not None else None
    return IssueView(
        number=issue.number,
        created_at=issue.created_at,
        stage=stage,
        where=interface_paths(state),
        changed_paths=state.changed_paths if state is not None else (),
        after=(pending or afters or (None,))[0],
        lease=lease,
        stopped=stopped,
        waiting=waiting,
        pr=state.pr if state is not None else None,
        afters=afters,
        stacked_on=stacked.issue if stacked is not None else None,
        stacked_head=stacked.head_sha if stacked is not None else None,
        head=state.head_sha if state is not None else None,
        open_findings=len(state.open_blocking()) if state is not None else 0,
        code_flow=has_code(state.flows) if state is not None else True,
        labels=issue.labels,
        author=issue.author,
        assignees=issue.assignees,
        milestone=issue.milestone,
        new=state is None and entry.state_problem is None,
    )


def newest_jobs(jobs: Sequence[RecordedJob]) -> list[RecordedJob]:
    """Each issue's newest recorded job (the one the watchdog judges), by issue number."""
    newest: dict[int, RecordedJob] = {}
    for job in jobs:
        kept = newest.get(job.record.issue)
        if kept is None or job.record.started_at >= kept.record.started_at:
            newest[job.record.issue] = job
    return [newest[n] for n in sorted(newest)]


def job_view(job: RecordedJob) -> JobView:
    """A job as the watchdog and scheduler see it.

    Only a session job.json shows as `running` gives the live context, its
    budget and its failing tool: an ended session's figures are never judged
    as if it were still running.
    """
    record = job.record
    last = record.sessions[-1] if record.sessions else None
    running = last if last is not None and last.status == RUNNING else None
    failure = running.tool_failure if running is not None else None
    return JobView(
        issue=record.issue,
        stage=Stage(record.stage),
        role=JobRole(record.role),
        started_at=record.started_at,
        pid=record.pid,
        alive=job.alive,
        heartbeat=record.heartbeat,
        finished=record.finished is not None,
        session=None if last is None else last.key,
        context_tokens=None if running is None else running.last_context,
        token_budget=None if running is None else running.budget,
        tool_failure=(
            None if failure is None else ToolFailure(failure.tool, failure.error, failure.streak)
        ),
    )
