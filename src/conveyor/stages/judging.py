"""What acceptance and security share: one table, one reading of results, each its own rule."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Generic, TypedDict, TypeVar

from conveyor.core.config import Role
from conveyor.core.findings import Judged, Verdict
from conveyor.core.replies import AcceptReply, SecurityReply
from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages.effects import (
    Began,
    ChargeBudget,
    Charged,
    Done,
    Effect,
    Refused,
    Result,
    SessionEnded,
)
from conveyor.stages.effects_review import PostPrComment, PrepareReview, ReviewPrepared
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.step import (
    End,
    Inputs,
    SavedAt,
    Stopped,
    Table,
    deferred,
    over_budget,
    with_usage,
)


class Phase(StrEnum):
    """Where the judging stage is; phases from PASSED on are ends."""

    START = "start"
    PREPARE = "prepare-review"
    CHARGE = "charge"
    LAUNCH = "launch"
    POST = "post-verdict"
    PASSED = "passed"
    TO_FIX = "to-fix"
    OUT_OF_ROUNDS = "out-of-rounds"
    FAILED = "failed"
    OVER_BUDGET = "over-budget"
    DEFERRED = "deferred"


class Event(StrEnum):
    """What a result means to a judging stage."""

    BEGIN = "begin"
    READY = "ready"
    CHARGED = "charged"
    REFUSED = "refused"
    REPLIED = "replied"
    RETRY = "retry"
    FAILED = "failed"
    DEFERRED = "deferred"
    PASSED = "passed"
    FIX = "fix"
    OUT_OF_ROUNDS = "out-of-rounds"


ENDS = (
    Phase.PASSED,
    Phase.TO_FIX,
    Phase.OUT_OF_ROUNDS,
    Phase.FAILED,
    Phase.OVER_BUDGET,
    Phase.DEFERRED,
)
EXITS: dict[Phase, dict[Event, Phase]] = {
    Phase.START: {Event.BEGIN: Phase.PREPARE},
    Phase.PREPARE: {Event.READY: Phase.CHARGE},
    Phase.CHARGE: {Event.CHARGED: Phase.LAUNCH, Event.REFUSED: Phase.OVER_BUDGET},
    Phase.LAUNCH: {
        Event.REPLIED: Phase.POST,
        Event.RETRY: Phase.CHARGE,
        Event.FAILED: Phase.FAILED,
        Event.DEFERRED: Phase.DEFERRED,
    },
    Phase.POST: {
        Event.PASSED: Phase.PASSED,
        Event.FIX: Phase.TO_FIX,
        Event.OUT_OF_ROUNDS: Phase.OUT_OF_ROUNDS,
    },
    **{end: {} for end in ENDS},
}
VERDICT_EVENTS = {
    Verdict.CLEAN: Event.PASSED,
    Verdict.FIX: Event.FIX,
    Verdict.OUT_OF_ROUNDS: Event.OUT_OF_ROUNDS,
    Verdict.CAME_BACK: Event.OUT_OF_ROUNDS,
}
READER_ATTEMPTS = 2


@dataclass(frozen=True)
class Judging:
    """A judging stage's memory: the diff read, the reply and the verdict it led to."""

    inputs: Inputs
    state: IssueState
    phase: Phase = Phase.START
    diff_file: str = ""
    head_sha: str = ""
    reply: AcceptReply | SecurityReply | None = None
    judged: Judged | None = None
    failures: int = 0
    attempt: int = 0
    note: str = ""

    @property
    def head(self) -> str:
        """The head the verdict is about."""
        return self.head_sha or self.state.head_sha or self.inputs.head_sha


R = TypeVar("R", bound=AcceptReply | SecurityReply)


@dataclass(frozen=True)
class Rule(Generic[R]):
    """A judging stage's own parts: its name and budget, who judges, the reply, what it decides."""

    name: str
    role: Role
    who: str
    reply: type[R]
    decide: Callable[[IssueState, R, int], tuple[IssueState, Judged]]


def _session(run: Judging, ended: SessionEnded, rule: Rule[Any]) -> tuple[Event, Judging]:
    if ended.deferred:
        return Event.DEFERRED, replace(run, note=ended.error or "rate limited")
    reply = ended.reply
    if ended.status is SessionStatus.REPLIED and isinstance(reply, rule.reply):
        state, judged = rule.decide(run.state, reply, run.inputs.limits.max_fix_rounds)
        return Event.REPLIED, replace(run, state=state, reply=reply, judged=judged)
    failures = run.failures + 1
    note = f"the {rule.who}'s session failed: {ended.error or 'no valid reply'}"
    run = replace(run, failures=failures, note=note)
    return (Event.RETRY if failures < READER_ATTEMPTS else Event.FAILED), run


def classify(run: Judging, result: Result, rule: Rule[Any]) -> tuple[Event, Judging]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case ReviewPrepared(diff_file=diff_file, head_sha=head):
            return Event.READY, replace(run, diff_file=diff_file, head_sha=head)
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded():
            return _session(replace(run, state=with_usage(run.state, result)), result, rule)
        case Done() if run.judged is not None:
            return VERDICT_EVENTS[run.judged.verdict], run
    raise cannot_take(f"the {rule.who} stage", result, run.phase)


def machine(
    rule: Rule[Any],
    launch: Callable[[Judging], Effect],
    verdict: Callable[[Judging], str],
    passed: Callable[[Judging], End],
    out_of_rounds: Callable[[Judging], End],
) -> Machine[Phase, Event, Judging]:
    """A judging stage's machine: the shared table and reading of results, with its own parts.

    It reads the whole diff, launches its reader, posts its verdict on the PR, and ends.
    """
    table: Table[Phase, Event, Judging] = Table(
        name=rule.name,
        start=Phase.START,
        exits=EXITS,
        effects={
            Phase.PREPARE: lambda run: PrepareReview(f"{rule.name}.diff"),
            Phase.CHARGE: lambda run: ChargeBudget(rule.role),
            Phase.LAUNCH: launch,
            Phase.POST: lambda run: PostPrComment(rule.name, rule.name, verdict(run)),
        },
        ends={
            Phase.PASSED: passed,
            Phase.TO_FIX: to_fix,
            Phase.OUT_OF_ROUNDS: out_of_rounds,
            Phase.FAILED: lambda run: Stopped(
                StopCode.ERROR, f"the {rule.who} failed twice", run.state, run.note
            ),
            Phase.OVER_BUDGET: over_budget,
            Phase.DEFERRED: deferred,
        },
    )
    return Machine(table, lambda run, result: classify(run, result, rule), Judging)


class Frame(TypedDict):
    """What every judging prompt starts with: the issue, the diff, the base and the budget."""

    issue: int
    issue_file: str
    diff_file: str
    base: str
    soft: int
    hard: int


def frame(run: Judging) -> Frame:
    """The start of a judging prompt's data, from the stage's memory."""
    inputs, limits = run.inputs, run.inputs.limits
    return Frame(
        issue=inputs.issue,
        issue_file=inputs.issue_file,
        diff_file=run.diff_file,
        base=inputs.base,
        soft=limits.context_soft,
        hard=limits.context_hard,
    )


def to_fix(run: Judging) -> SavedAt:
    """Back to fix: the fix is new code, so a merge's re-check ends here (BUD-5, SEC-7)."""
    return SavedAt(Stage.FIX, run.state.model_copy(update={"merge_rebase": False}))
