"""How acceptance and security read results: the same events, each with its own rule."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from conveyor.core.findings import Judged
from conveyor.core.replies import AcceptReply, SecurityReply
from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.stages.effects import Began, Charged, Done, Refused, Result, SessionEnded
from conveyor.stages.effects_review import ReviewPrepared
from conveyor.stages.judge_table import (
    EXITS,
    READER_ATTEMPTS,
    VERDICT_EVENTS,
    Event,
    Judging,
    Phase,
)
from conveyor.stages.step import IllegalMove, SavedAt, Step, Table, advance

Reply = AcceptReply | SecurityReply


@dataclass(frozen=True)
class Rule:
    """A judging stage's own parts: who judges, the reply it takes, and what it decides."""

    who: str
    reply: type[AcceptReply] | type[SecurityReply]
    decide: Callable[[IssueState, Reply, int], tuple[IssueState, Judged]]


def _session(run: Judging, ended: SessionEnded, rule: Rule) -> tuple[Event, Judging]:
    if ended.status is SessionStatus.RATE_LIMITED:
        return Event.DEFERRED, replace(run, note=ended.error or "rate limited")
    reply = ended.reply
    if ended.status is SessionStatus.REPLIED and isinstance(reply, rule.reply):
        state, judged = rule.decide(run.state, reply, run.inputs.limits.max_fix_rounds)
        return Event.REPLIED, replace(run, state=state, reply=reply, judged=judged)
    failures = run.failures + 1
    note = f"the {rule.who}'s session failed: {ended.error or 'no valid reply'}"
    run = replace(run, failures=failures, note=note)
    return (Event.RETRY if failures < READER_ATTEMPTS else Event.FAILED), run


def classify(run: Judging, result: Result, rule: Rule) -> tuple[Event, Judging]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return Event.BEGIN, run
        case ReviewPrepared(diff_file=diff_file, head_sha=head):
            return Event.READY, replace(run, diff_file=diff_file, head_sha=head)
        case Charged(state=state):
            return Event.CHARGED, replace(run, state=state, attempt=run.attempt + 1)
        case Refused(reason=reason):
            return Event.REFUSED, replace(run, note=reason)
        case SessionEnded():
            return _session(run, result, rule)
        case Done() if run.judged is not None:
            return VERDICT_EVENTS[run.judged.verdict], run
    msg = f"the {rule.who} stage cannot take {type(result).__name__} in {run.phase.value!r}"
    raise IllegalMove(msg)


def step(
    run: Judging, result: Result, rule: Rule, table: Table[Phase, Event, Judging]
) -> Step[Judging]:
    """One transition of a judging stage: look the event up, then act on the new phase."""
    event, run = classify(run, result, rule)
    run = replace(run, phase=advance(EXITS, run.phase, event))
    return Step(run, table.act(run.phase, run))


def to_fix(run: Judging) -> SavedAt:
    """Back to fix: the fix is new code, so a merge's re-check ends here (BUD-5, SEC-7)."""
    return SavedAt(Stage.FIX, run.state.model_copy(update={"merge_rebase": False}))
