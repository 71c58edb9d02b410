"""The checks stage's acts: the check fixer's launch, the signed report, the ends, the table."""

from __future__ import annotations

from conveyor.core.ci_gate import Verdict
from conveyor.core.config import Role
from conveyor.core.flows import guarded_head, has_code
from conveyor.core.state import Rereview, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.checks.table import EXITS, Checks, Event, Phase
from conveyor.stages.effects import ChargeBudget, Effect, PostComment, PushBranch, SettlePr
from conveyor.stages.effects_merge import CheckWiki, GuardBranch, ReadCi, VerifyHead
from conveyor.stages.prompts import check_fix as prompt
from conveyor.stages.step import End, SavedAt, Stopped, Table, branch_changed, deferred, over_budget

# Each check fix is reviewed by these lenses before the checks run again (CHK-7).
FIX_LENSES = ("correctness", "scope")


def _launch(run: Checks) -> Effect:
    inputs = run.inputs
    text = prompt.render(
        prompt.CheckFixData(
            **launch.frame(inputs),
            practices=inputs.instructions,
            commands=launch.commands(inputs.commands),
            problems=run.problems,
            continuation=run.continuation,
            wiki_dir=run.inputs.wiki_dir,
        )
    )
    return launch.writer("check_fix", Role.CHECK_FIX, text, run)


def report(run: Checks) -> str:
    """The signed checks comment: verify's summary and what the CI gate said (CHK-16)."""
    if not has_code(run.state.flows):
        return (
            "### Checks\n\nwiki-check passed. The change lives only in the wiki, so verify "
            "and CI do not run (FLOW-5).\n"
        )
    verify = run.verified.summary if run.verified else f"verify of {run.head[:12]}: passed earlier"
    gate = run.ci.gate if run.ci else None
    ci = "CI: " + (gate.note if gate else "not read")
    if gate is not None and gate.verdict is Verdict.UNGATED:
        ci = "CI: ungated (no check is reported on this repository; nothing was gated)"
    return f"### Checks\n\n```\n{verify}\n```\n\n{ci}\n"


def _unrelated(run: Checks) -> str:
    """The checks that fail on the base too, and how they fail there."""
    if run.ci is None:
        return ""
    return run.ci.note or ", ".join(f"`{n}`" for n in run.ci.unrelated)


def _passed(run: Checks) -> End:
    state = run.state.model_copy(
        update={"head_sha": run.head, "verified_sha": run.head, "ci_wait": None}
    )
    return SavedAt(Stage.ACCEPT, state)


def _hold(run: Checks) -> End:
    assert run.ci is not None, "a CI hold needs the gate's wait"
    return SavedAt(Stage.CHECKS, run.state.model_copy(update={"ci_wait": run.ci.gate.wait}))


def _to_review(run: Checks) -> End:
    rereview = Rereview(base_sha=run.head, lenses=FIX_LENSES)
    state = run.state.model_copy(update={"rereview": rereview, "ci_wait": None})
    return SavedAt(Stage.REVIEW, state)


def _check_fixes(run: Checks) -> End:
    """Out of fixes: when every failure is the judges' (check configuration, suppressions), a
    stop of its own that a person lifts to accept exactly what it shows; else check-fixes."""
    details = "\n".join(f"- {p}" for p in run.problems) + (f"\n\n{run.note}" if run.note else "")
    verified = run.verified
    if verified is not None and verified.held and verified.head_sha == run.head:
        state = run.state.model_copy(update={"checks_shown": verified.held})
        why = "the change alters what judges it and the check fixer did not undo it"
        return Stopped(StopCode.CHECKS_CONFIG, why, state, f"{details}\n\n{verified.facts}")
    return Stopped(
        StopCode.CHECK_FIXES,
        "the checks still fail after max_check_fixes fixes",
        run.state,
        details,
    )


TABLE: Table[Phase, Event, Checks] = Table(
    name="checks",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.GUARD: lambda run: GuardBranch(guarded_head(run.state)),
        Phase.WIKI_CHECK: lambda run: CheckWiki(),
        Phase.VERIFY: lambda run: VerifyHead(),
        Phase.READ_CI: lambda run: ReadCi(run.head, run.state.ci_wait),
        Phase.REPORT: lambda run: PostComment("checks", "checks", report(run), per_issue=True),
        Phase.CHARGE: lambda run: ChargeBudget(Role.CHECK_FIX),
        Phase.LAUNCH: _launch,
        Phase.PUSH: lambda run: PushBranch(run.head),
        Phase.SETTLE: lambda run: SettlePr(run.action),
    },
    ends={
        Phase.TO_ACCEPT: _passed,
        Phase.HOLD: _hold,
        Phase.TO_REVIEW: _to_review,
        Phase.BRANCH_CHANGED: branch_changed,
        Phase.NO_CI: lambda run: Stopped(
            StopCode.NO_CI, "no CI result within ci_timeout_minutes", run.state, run.note
        ),
        Phase.UNRELATED: lambda run: Stopped(
            StopCode.CHECKS_UNRELATED,
            "a failing check fails on the base's head too",
            run.state,
            _unrelated(run),
        ),
        Phase.CHECK_FIXES: _check_fixes,
        Phase.TOO_LARGE: lambda run: Stopped(
            StopCode.TOO_LARGE,
            "the check fixer handed off more than max_continuations times",
            run.state,
        ),
        Phase.FAILED: lambda run: Stopped(
            StopCode.ERROR, "the check fixer's session failed", run.state, run.note
        ),
        Phase.OVER_BUDGET: over_budget,
        Phase.DEFERRED: deferred,
        Phase.ENVIRONMENT: lambda run: Stopped(
            StopCode.ENVIRONMENT,
            "verify could not run the tests (not charged to the agents)",
            run.state,
            run.note,
        ),
    },
)
