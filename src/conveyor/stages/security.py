"""The security machine: the last review, four harm categories only (SEC-*)."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.finding_loops import add_security
from conveyor.core.findings import Judged
from conveyor.core.replies import SecurityReply
from conveyor.core.session import SessionRole
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages.effects import Began, ChargeBudget, Effect, LaunchSession, Result
from conveyor.stages.effects_review import PostPrComment, PrepareReview
from conveyor.stages.judge_table import EXITS, Event, Judging, Phase
from conveyor.stages.judging import Reply, Rule, step, to_fix
from conveyor.stages.prompts import security as prompt
from conveyor.stages.step import End, Inputs, Released, SavedAt, Step, Stopped, Table


def _decide(state: IssueState, reply: Reply, rounds: int) -> tuple[IssueState, Judged]:
    assert isinstance(reply, SecurityReply), "security takes the security reply"
    return add_security(state, reply, rounds)


RULE = Rule("security reviewer", SecurityReply, _decide)


def transition(run: Judging, result: Result) -> Step[Judging]:
    """The security stage's one transition."""
    return step(run, result, RULE, TABLE)


def start(inputs: Inputs, state: IssueState) -> Step[Judging]:
    """The security stage's first step."""
    return transition(Judging(inputs, state), Began())


def _launch(run: Judging) -> Effect:
    inputs, limits = run.inputs, run.inputs.limits
    text = prompt.render(
        prompt.SecurityData(
            issue=inputs.issue,
            issue_file=inputs.issue_file,
            diff_file=run.diff_file,
            base=inputs.base,
            soft=limits.context_soft,
            hard=limits.context_hard,
        )
    )
    return LaunchSession(
        kind="security",
        role=SessionRole.READER,
        budget_role=Role.SECURITY,
        reply_model="security",
        system_prompt=text.system,
        task=text.task,
        attempt=run.attempt,
    )


def verdict_text(run: Judging) -> str:
    """The security reviewer's own PR comment: each finding with its category."""
    reply = run.reply
    assert isinstance(reply, SecurityReply), "the verdict comment needs the reviewer's reply"
    if not reply.findings:
        return f"### Security review: passed\n\n{reply.summary.strip()}"
    lines = "\n".join(
        f"- **{f.category}** `{f.file}:{f.line or ''}`: {f.evidence.strip()}"
        + (f"\n  Suggestion: {f.suggestion.strip()}" if f.suggestion.strip() else "")
        for f in reply.findings
    )
    return f"### Security review: findings\n\n{reply.summary.strip()}\n\n{lines}"


def _stop(run: Judging) -> End:
    code = run.judged.code if run.judged and run.judged.code else StopCode.USER_HARM
    reason = (
        f"a {code.value} finding is still open after {run.state.rounds.security} "
        "security reviews and their fix rounds"
    )
    return Stopped(code, reason, run.state, verdict_text(run))


TABLE: Table[Phase, Event, Judging] = Table(
    name="security",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.PREPARE: lambda run: PrepareReview("security.diff"),
        Phase.CHARGE: lambda run: ChargeBudget(Role.SECURITY),
        Phase.LAUNCH: _launch,
        Phase.POST: lambda run: PostPrComment("security", "security", verdict_text(run)),
    },
    ends={
        Phase.PASSED: lambda run: SavedAt(
            Stage.MERGE, run.state.model_copy(update={"passed_sha": run.head})
        ),
        Phase.TO_FIX: to_fix,
        Phase.OUT_OF_ROUNDS: _stop,
        Phase.FAILED: lambda run: Stopped(
            StopCode.ERROR, "the security reviewer failed twice", run.state, run.note
        ),
        Phase.OVER_BUDGET: lambda run: Stopped(StopCode.BUDGET, run.note, run.state),
        Phase.DEFERRED: lambda run: Released(run.state, run.note),
    },
)
