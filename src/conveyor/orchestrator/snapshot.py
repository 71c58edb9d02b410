"""The snapshot the orchestrator's rules read: open issues, recorded jobs, the ledger, pauses."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Literal

from conveyor.core.agent_failure import InfraKind
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode


class JobRole(StrEnum):
    """How a job's sessions run (the stage job's own role, not its scheduling class)."""

    READER = "reader"
    WRITER = "writer"
    MERGER = "merger"


@dataclass(frozen=True, slots=True)
class Lease:
    """Which lane holds the issue, and until when."""

    lane: str
    until: datetime


@dataclass(frozen=True, slots=True)
class CiWait:
    """A checks job that saved the issue while CI was pending (CHK-15)."""

    sha: str
    since: datetime
    empty_reads: int = 0
    last_read: datetime | None = None


@dataclass(frozen=True, slots=True)
class IssueView:
    """One open issue as the scheduler sees it.

    `waiting` names why the issue rests outside the scheduler's rules (an open
    question, a split parent, a stacking hold); `stopped` is its stop label's
    control. `where` are its interfaces' globs and `changed_paths` what its
    pushes changed: together its writer paths. `after` is the first issue it
    follows that is still open (else the first it follows), `afters` all of them;
    `stacked_on` and `stacked_head` its stacking (STK-7), `head` its branch's
    recorded head and `open_findings` its blocking findings not yet resolved;
    `code_flow` is False for a wiki-only change (FLOW-5: no code branch of its own).
    `labels`, `author`, `assignees` and `milestone` are what the intake filter reads; `new`
    is True while the pipeline holds no state for the issue (it is not work in flight).
    """

    number: int
    created_at: datetime
    stage: Stage
    where: tuple[str, ...] = ()
    changed_paths: tuple[str, ...] = ()
    after: int | None = None
    ci_wait: CiWait | None = None
    lease: Lease | None = None
    stopped: StopCode | None = None
    waiting: str | None = None
    rereview_lenses: int = 0
    pr: int | None = None
    afters: tuple[int, ...] = ()
    stacked_on: int | None = None
    stacked_head: str | None = None
    head: str | None = None
    open_findings: int = 0
    code_flow: bool = True
    labels: tuple[str, ...] = ()
    author: str = ""
    assignees: tuple[str, ...] = ()
    milestone: str | None = None
    new: bool = False

    @property
    def writer_paths(self) -> tuple[str, ...]:
        """The globs a writer job for this issue may touch; empty means the whole repository."""
        return self.where + self.changed_paths


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """The last failing tool of a session and how many times in a row it failed."""

    tool: str
    error: str
    streak: int


@dataclass(frozen=True, slots=True)
class JobView:
    """The newest recorded job of an open issue (its job.json plus liveness).

    `silence_minutes` is the quiet the current step allows when an op raised
    it above the configured threshold (WD-13); `context_tokens` and
    `token_budget` are the current session's live context and its budget.
    """

    issue: int
    stage: Stage
    role: JobRole
    started_at: datetime
    pid: int
    alive: bool
    heartbeat: datetime | None = None
    finished: bool = False
    session: str | None = None
    context_tokens: int | None = None
    token_budget: int | None = None
    tool_failure: ToolFailure | None = None
    silence_minutes: float | None = None


@dataclass(frozen=True, slots=True)
class AgentEnd:
    """The newest ended session of one agent CLI: when, and the infrastructure failure, if any."""

    backend: str
    at: datetime
    infra: InfraKind | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True)
class ClosedView:
    """A closed issue still labelled working whose PR merged: its close-out did not finish.

    `lease` is the state's lease when it is not released (its lane may still be finishing).
    """

    number: int
    pr: int
    lease: Lease | None = None


PrState = Literal["open", "merged", "closed"]


@dataclass(frozen=True, slots=True)
class HandedView:
    """An issue at `approved` (its PR left for a person to merge) and its PR as the forge has it.

    `pr_state` is the PR's now: open, merged, or closed without a merge; `head` its head,
    `verified` the head Conveyor verified and handed over; `issue_open` is False once a merge
    closed the issue; `stopped` is the issue's stop (the one a closed PR or a push after the
    handover left), its label on or lifted by a person but not yet restarted; `lease` a live
    lease (a landing job's).
    """

    number: int
    pr: int
    pr_state: PrState
    head: str | None = None
    verified: str | None = None
    issue_open: bool = True
    stopped: StopCode | None = None
    lease: Lease | None = None


@dataclass(frozen=True, slots=True)
class Ledger:
    """What the ledger says about spending: the last hour's launch charges, today's money."""

    charges_last_hour: int = 0
    spent_today: float = 0.0
    unknown_cost_sessions: int = 0


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Everything one tick's rules decide from; built by the tick, never read from disk here.

    `closed_unmerged` holds the `after` targets that were closed without being
    completed; `money_paused` is whether the daily money pause was in force
    after the last pass (its hysteresis); `stack_behind` the issues whose
    prerequisite's branch lacks the merge of another issue they follow (STK-9);
    `ci_reported` the commits whose CI a webhook said finished since the last
    pass, and `feedback_prs` the PRs a webhook said people reviewed or commented
    on (their CI waits are due now); `closed_merged` the merged issues whose
    close-out did not finish; `handed` the issues at `approved`, open or closed, with their
    PRs; `cooling_reason` why nothing new starts while `cooling_down`.
    """

    lane: str
    issues: tuple[IssueView, ...] = ()
    jobs: tuple[JobView, ...] = ()
    ledger: Ledger = field(default_factory=Ledger)
    usage_limit_until: datetime | None = None
    agent_ends: tuple[AgentEnd, ...] = ()
    closed_unmerged: frozenset[int] = frozenset()
    money_paused: bool = False
    cooling_down: bool = False
    cooling_reason: str = "interrupted: start nothing new"
    stack_behind: frozenset[int] = frozenset()
    ci_reported: frozenset[str] = frozenset()
    feedback_prs: frozenset[int] = frozenset()
    closed_merged: tuple[ClosedView, ...] = ()
    handed: tuple[HandedView, ...] = ()

    def issue_map(self) -> dict[int, IssueView]:
        """The open issues by number."""
        return {issue.number: issue for issue in self.issues}

    def job_issues(self) -> dict[int, IssueView]:
        """The open issues that have a recorded job, by number."""
        numbers = {job.issue for job in self.jobs}
        return {issue.number: issue for issue in self.issues if issue.number in numbers}

    def unblocks(self) -> Counter[int]:
        """How many open issues wait (`after`) on each issue number."""
        return Counter(issue.after for issue in self.issues if issue.after is not None)


def job_needs_watch(job: JobView, issue: IssueView | None) -> bool:
    """Whether a dead job still owns its issue: gone unfinished while the issue needs it."""
    if job.alive or job.finished or issue is None:
        return False
    return issue.stopped is None and issue.stage == job.stage


def busy_issues(snapshot: Snapshot, issues: dict[int, IssueView] | None = None) -> frozenset[int]:
    """Issues no new job may start for: a live job, or a dead one the watchdog owns.

    `issues` is `snapshot.job_issues()` when the caller already has it.
    """
    issues = snapshot.job_issues() if issues is None else issues
    return frozenset(
        job.issue
        for job in snapshot.jobs
        if job.alive or job_needs_watch(job, issues.get(job.issue))
    )
