"""The acceptance machine: a fresh reader judges the result against the issue (ACC-*)."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.finding_loops import add_acceptance
from conveyor.core.findings import Judged, Verdict
from conveyor.core.replies import AcceptReply
from conveyor.core.session import SessionRole
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages.effects import Began, ChargeBudget, Effect, LaunchSession, Result
from conveyor.stages.effects_review import PostPrComment, PrepareReview
from conveyor.stages.judge_table import EXITS, Event, Judging, Phase
from conveyor.stages.judging import Reply, Rule, step, to_fix
from conveyor.stages.prompts import accept as prompt
from conveyor.stages.step import Inputs, Released, SavedAt, Step, Stopped, Table


def _decide(state: IssueState, reply: Reply, rounds: int) -> tuple[IssueState, Judged]:
    assert isinstance(reply, AcceptReply), "acceptance takes the accept reply"
    return add_acceptance(state, reply, rounds)


RULE = Rule("acceptance verifier", AcceptReply, _decide)


def transition(run: Judging, result: Result) -> Step[Judging]:
    """The acceptance stage's one transition."""
    return step(run, result, RULE, TABLE)


def start(inputs: Inputs, state: IssueState) -> Step[Judging]:
    """The acceptance stage's first step."""
    return transition(Judging(inputs, state), Began())


def _launch(run: Judging) -> Effect:
    inputs, limits = run.inputs, run.inputs.limits
    text = prompt.render(
        prompt.AcceptData(
            issue=inputs.issue,
            issue_file=inputs.issue_file,
            diff_file=run.diff_file,
            base=inputs.base,
            soft=limits.context_soft,
            hard=limits.context_hard,
            spec=run.state.spec,
            spec_file=inputs.spec_file if run.state.spec_file else None,
        )
    )
    return LaunchSession(
        kind="accept",
        role=SessionRole.READER,
        budget_role=Role.ACCEPT,
        reply_model="accept",
        system_prompt=text.system,
        task=text.task,
        attempt=run.attempt,
    )


def verdict_text(run: Judging) -> str:
    """The verifier's own PR comment: its verdict, its reason, what the change leaves out."""
    reply = run.reply
    assert isinstance(reply, AcceptReply), "the verdict comment needs the verifier's reply"
    failed = run.judged is not None and run.judged.verdict is not Verdict.CLEAN
    head = "### Acceptance: " + ("failed" if failed else "passed")
    missing = "".join(f"\n- {item}" for item in reply.missing)
    left = f"\n\nLeft out:{missing}" if missing else ""
    return f"{head}\n\n{reply.reason.strip()}{left}"


TABLE: Table[Phase, Event, Judging] = Table(
    name="accept",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.PREPARE: lambda run: PrepareReview("accept.diff"),
        Phase.CHARGE: lambda run: ChargeBudget(Role.ACCEPT),
        Phase.LAUNCH: _launch,
        Phase.POST: lambda run: PostPrComment("accept", "accept", verdict_text(run)),
    },
    ends={
        Phase.PASSED: lambda run: SavedAt(Stage.SECURITY, run.state),
        Phase.TO_FIX: to_fix,
        Phase.OUT_OF_ROUNDS: lambda run: Stopped(
            StopCode.ACCEPTANCE,
            "the change still does not do what the issue asks and the fix rounds are used up",
            run.state,
            verdict_text(run),
        ),
        Phase.FAILED: lambda run: Stopped(
            StopCode.ERROR, "the acceptance verifier failed twice", run.state, run.note
        ),
        Phase.OVER_BUDGET: lambda run: Stopped(StopCode.BUDGET, run.note, run.state),
        Phase.DEFERRED: lambda run: Released(run.state, run.note),
    },
)
