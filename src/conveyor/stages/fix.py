"""The fix machine: a writer resolves (or disputes) the open findings, then re-review (FIX-*)."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.finding_loops import apply_fix
from conveyor.core.findings import rereview_lenses, stop_code
from conveyor.core.flows import flows_of, pr_flow_action, pr_open
from conveyor.core.replies import FixReply
from conveyor.core.state import Rereview, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import (
    Began,
    ChargeBudget,
    Charged,
    Done,
    Effect,
    PrSettled,
    PushBranch,
    Pushed,
    Refused,
    ResetBranch,
    Result,
    SessionEnded,
    SettlePr,
)
from conveyor.stages.effects_review import PostPrComment
from conveyor.stages.fix_table import EXITS, Event, Fix, Phase
from conveyor.stages.machine import Machine, cannot_take, charge
from conveyor.stages.prompts import fix as prompt
from conveyor.stages.step import SavedAt, Stopped, Table, deferred, with_usage
from conveyor.stages.writer import WRITER_ATTEMPTS, Writer


def _begin(run: Fix) -> Event:
    if not run.state.open_blocking():
        return Event.NOTHING_OPEN
    if run.state.rounds.fix >= run.inputs.limits.max_fix_rounds:
        return Event.NO_ROUNDS
    return Event.BEGIN


def _replied(run: Fix, reply: FixReply) -> tuple[Event, Fix]:
    limits = run.inputs.limits
    done = apply_fix(run.state, reply, run.state.spec, limits.max_disputes_per_finding)
    if done.stop is not None:
        return Event.DISPUTED_ACCEPTANCE, replace(run, reply=reply, stop=done.stop)
    return Event.DONE, replace(run, state=done.state, reply=reply, refused=done.refused)


def _broken(run: Fix, ended: SessionEnded) -> tuple[Event, Fix]:
    failures = run.failures + 1
    note = f"the fixer's session failed: {ended.error or 'no valid reply'}"
    run = replace(run, failures=failures, note=note)
    return (Event.FAILED if failures < WRITER_ATTEMPTS else Event.EXHAUSTED), run


WRITER = Writer(Stage.FIX, FixReply, Event, _replied, _broken)


def classify(run: Fix, result: Result) -> tuple[Event, Fix]:
    """The event a result is in the current phase, and the memory it leaves."""
    match result:
        case Began():
            return _begin(run), run
        case Charged() | Refused():
            return charge(run, result, Event)
        case SessionEnded():
            return WRITER.ended(replace(run, state=with_usage(run.state, result)), result)
        case Pushed(head_sha=head, changed_paths=changed, wiki_ahead=ahead):
            again = Rereview(base_sha=run.reviewed_sha, lenses=rereview_lenses(run.state))
            flows = flows_of(code_changed=bool(changed), wiki_ahead=ahead)
            update = {"head_sha": head, "changed_paths": changed, "rereview": again, "flows": flows}
            run = replace(run, state=run.state.model_copy(update=update))
            action = pr_flow_action(flows, pr_open=pr_open(run.state))
            events = {"stop": Event.NOTHING_LEFT, "go": Event.PUSHED}
            return events.get(action, Event.PR_CHANGES), replace(run, action=action)
        case PrSettled(number=number, open=is_open):
            update = {"pr": number, "pr_closed": number is not None and not is_open}
            return Event.SETTLED, replace(run, state=run.state.model_copy(update=update))
        case Done():
            return (Event.RESET if run.phase is Phase.RESET else Event.POSTED), run
    raise cannot_take("the fix stage", result, run.phase)


def _launch(run: Fix) -> Effect:
    inputs, limits = run.inputs, run.inputs.limits
    text = prompt.render(
        prompt.FixData(
            **launch.frame(inputs),
            practices=inputs.paths.practices,
            commands=launch.commands(inputs.commands),
            findings=run.state.open_blocking(),
            round=run.state.rounds.fix + 1,
            rounds=limits.max_fix_rounds,
            spec=run.state.spec,
            spec_file=inputs.spec_file if run.state.spec_file else None,
            continuation=run.continuation,
            earlier=(run.note,) if run.failures else (),
            wiki_dir=run.inputs.wiki_dir,
        )
    )
    return launch.writer("fix", Role.FIX, text, run)


def fix_comment(run: Fix) -> str:
    """The fixer's own PR comment: what it addressed and what it disputed (FIX-8)."""
    assert run.reply is not None, "the fixer's comment needs its reply"
    parts = [f"### Fix round {run.state.rounds.fix}", run.reply.summary.strip()]
    if run.reply.addressed:
        parts.append("\n".join(f"- F{a.finding}: {a.how.strip()}" for a in run.reply.addressed))
    disputed = [f for f in run.state.findings if f.status == "disputed"]
    if disputed:
        parts.append("Disputed:\n" + "\n".join(f"- {f.id}: {f.dispute}" for f in disputed))
    if run.refused:
        parts.append("Disputes not accepted:\n" + "\n".join(f"- {r}" for r in run.refused))
    return "\n\n".join(p for p in parts if p)


def _stop(run: Fix, code: StopCode, reason: str) -> Stopped:
    return Stopped(code, reason, run.state, run.note)


TABLE: Table[Phase, Event, Fix] = Table(
    name="fix",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.CHARGE: lambda run: ChargeBudget(Role.FIX),
        Phase.LAUNCH: _launch,
        Phase.PUSH: lambda run: PushBranch(run.reviewed_sha),
        Phase.SETTLE: lambda run: SettlePr(run.action),
        # FIX-5: a disputed acceptance finding stops before anything is pushed.
        Phase.RESET: lambda run: ResetBranch(run.reviewed_sha),
        Phase.POST: lambda run: PostPrComment(
            f"fix-{run.state.rounds.fix}", "fix", fix_comment(run)
        ),
    },
    ends={
        Phase.TO_REVIEW: lambda run: SavedAt(Stage.REVIEW, run.state),
        Phase.NOTHING_OPEN: lambda run: SavedAt(Stage.CHECKS, run.state),
        Phase.NOT_DOABLE: lambda run: _stop(
            run, StopCode.NOT_DOABLE, "after the fix the change touches neither code nor wiki"
        ),
        Phase.OUT_OF_ROUNDS: lambda run: _stop(
            run,
            stop_code(run.state.open_blocking()),
            f"blocking findings are still open after {run.state.rounds.fix} fix rounds",
        ),
        Phase.ACCEPTANCE_DISPUTED: lambda run: _stop(
            run,
            StopCode.ACCEPTANCE,
            "the fixer disputes that the change must do what the acceptance check asks; "
            "only the operator can rule on what the issue asks",
        ),
        Phase.TOO_LARGE: lambda run: _stop(
            run,
            StopCode.TOO_LARGE,
            "the fixer handed off more than max_continuations times; split the issue",
        ),
        Phase.FAILED: lambda run: _stop(run, StopCode.ERROR, "the fixer failed twice"),
        Phase.OVER_BUDGET: lambda run: _stop(run, StopCode.BUDGET, run.note),
        Phase.DEFERRED: deferred,
    },
)


MACHINE = Machine(TABLE, classify, Fix)
transition = MACHINE.transition
start = MACHINE.start
