"""What the orchestrator's rules decide: effects the tick carries out, each with its reason."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import assert_never

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode


@dataclass(frozen=True, slots=True)
class StartJob:
    """Start `conveyor job --issue N --stage S` (with `--resume` when the watchdog revives one,
    and `--stack-on P` for an issue's first job on its prerequisite's branch, STK-8)."""

    issue: int
    stage: Stage
    reason: str
    charge: int = 0
    resume: bool = False
    stack_on: int | None = None


@dataclass(frozen=True, slots=True)
class Hold:
    """Start nothing for this issue this tick, and say why."""

    issue: int
    stage: Stage
    reason: str


_new = object.__new__
_slot = Hold.__dict__
_set_issue, _set_stage = _slot["issue"].__set__, _slot["stage"].__set__
_set_reason = _slot["reason"].__set__


def hold(issue: int, stage: Stage, reason: str) -> Hold:
    """The same value as `Hold(issue, stage, reason)`, built without the frozen `__init__`'s
    per-field calls: the scheduler makes one per waiting issue, 10,000 in a pass.
    """
    made: Hold = _new(Hold)
    _set_issue(made, issue)
    _set_stage(made, stage)
    _set_reason(made, reason)
    return made


@dataclass(frozen=True, slots=True)
class Steer:
    """Send one steering message to the job's running session."""

    issue: int
    job_started_at: datetime
    text: str
    reason: str


@dataclass(frozen=True, slots=True)
class Terminate:
    """Send SIGTERM to a job; the stop follows once it has exited."""

    issue: int
    pid: int
    job_started_at: datetime
    reason: str


@dataclass(frozen=True, slots=True)
class StopIssue:
    """Stop the issue with a control (the stop op, its label and comment)."""

    issue: int
    control: StopCode
    reason: str


@dataclass(frozen=True, slots=True)
class Escalate:
    """Tell the operator about a stop the pipeline did not expect (log line, optional command)."""

    issue: int
    control: StopCode
    kind: str
    reason: str


@dataclass(frozen=True, slots=True)
class FinishCloseOut:
    """Finish the close-out of a closed issue whose PR merged (labels, claims, branch, state)."""

    issue: int
    pr: int
    reason: str


@dataclass(frozen=True, slots=True)
class Pause:
    """A pause in force: no new start this tick (money, tokens per hour, usage limit, cool-down)."""

    kind: str
    reason: str


Decision = StartJob | Hold | Steer | Terminate | StopIssue | Escalate | FinishCloseOut


@dataclass(frozen=True, slots=True)
class Decisions:
    """One scheduling pass's outcome.

    Starts and holds in a deterministic order, the pauses in force, the merge
    queue to pass to ops (`--merge-queue`), and the money pause to remember.
    """

    starts: tuple[StartJob, ...] = ()
    holds: tuple[Hold, ...] = ()
    pauses: tuple[Pause, ...] = ()
    merge_queue: tuple[int, ...] = ()
    money_paused: bool = False


def describe(decision: Decision) -> str:
    """One line for `orchestrator.log`: what was decided, for which issue, and why."""
    match decision:
        case StartJob(issue=n, stage=stage, reason=reason, resume=resume):
            verb = "resume" if resume else "start"
            return f"{verb} #{n} {stage.value}: {reason}"
        case Hold(issue=n, stage=stage, reason=reason):
            return f"hold #{n} {stage.value}: {reason}"
        case Steer(issue=n, reason=reason):
            return f"steer #{n}: {reason}"
        case Terminate(issue=n, pid=pid, reason=reason):
            return f"sigterm #{n} pid {pid}: {reason}"
        case StopIssue(issue=n, control=control, reason=reason):
            return f"stop #{n} {control.value}: {reason}"
        case Escalate(issue=n, control=control, kind=kind, reason=reason):
            return f"escalate #{n} {kind} {control.value}: {reason}"
        case FinishCloseOut(issue=n, pr=pr, reason=reason):
            return f"close-out #{n} PR #{pr}: {reason}"
        case _:
            assert_never(decision)
