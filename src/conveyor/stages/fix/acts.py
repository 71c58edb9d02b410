"""The fix stage's acts: the effect each phase asks for, each end, and the table."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.findings import stop_code
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import ChargeBudget, Effect, PushBranch, ResetBranch, SettlePr
from conveyor.stages.effects_review import PostPrComment
from conveyor.stages.fix.table import EXITS, Event, Fix, Phase
from conveyor.stages.prompts import fix as prompt
from conveyor.stages.step import SavedAt, Stopped, Table, deferred


def _launch(run: Fix) -> Effect:
    inputs, limits = run.inputs, run.inputs.limits
    text = prompt.render(
        prompt.FixData(
            **launch.frame(inputs),
            practices=inputs.instructions,
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
