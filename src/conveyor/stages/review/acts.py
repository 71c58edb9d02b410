"""The review stage's acts: the effect each phase asks for, each end, and the table."""

from __future__ import annotations

from dataclasses import replace

from conveyor.core.config import Role
from conveyor.core.review_replies import AngleReply
from conveyor.core.review_size import focus_of
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.stages import launch
from conveyor.stages.effects import ChargeBudget, Effect, LaunchSession
from conveyor.stages.effects_review import PostPrComment, PrepareReview
from conveyor.stages.prompts import aggregate, pr_review, review
from conveyor.stages.review.table import EXITS, Event, Phase, Review
from conveyor.stages.review_text import (
    angle_comment,
    findings_comment,
    lens_comment,
    nits_comment,
)
from conveyor.stages.step import End, SavedAt, Stopped, Table, deferred, over_budget


def _launch(run: Review) -> Effect:
    """The lens's session; a first review's first lens brings the later lenses alongside
    (REV-1: three independent readers of the same diff; their charges are saved already)."""
    lead = _lens_launch(run)
    if run.rereview is not None or run.index != 0 or run.attempt != 1:
        return lead
    later = tuple(
        _lens_launch(replace(run, index=i, attempt=run.attempt + i))
        for i in range(1, len(run.lenses))
    )
    return replace(lead, alongside=later)


def _sized_data(run: Review) -> pr_review.PrPromptData:
    inputs, limits = run.inputs, run.inputs.limits
    return pr_review.PrPromptData(
        inputs.issue, inputs.issue_file, run.diff_file, inputs.base, limits.context_soft,
        limits.context_hard, brief=run.brief, issue=True,
    )  # fmt: skip


def _brief(run: Review) -> Effect:
    text = pr_review.brief(_sized_data(run))
    made = launch.reader("brief", Role.REVIEW, text, run.attempt)
    return replace(made, model=run.inputs.review.brief_model)


def _angle_launch(run: Review) -> LaunchSession:
    text = pr_review.angle(_sized_data(run), run.lens, focus_of(run.lens), ())
    made = launch.reader(f"angle-{run.lens}", Role.REVIEW, text, run.attempt, model="angle")
    return replace(made, model=run.inputs.review.angle_models.get(run.lens))


def _lens_launch(run: Review) -> LaunchSession:
    if run.sized and run.rereview is None:
        return _angle_launch(run)
    inputs, limits, again = run.inputs, run.inputs.limits, run.rereview is not None
    text = review.render(
        review.ReviewData(
            issue=inputs.issue,
            lens=run.lens,
            issue_file=inputs.issue_file,
            diff_file=run.diff_file,
            base=inputs.base,
            soft=limits.context_soft,
            hard=limits.context_hard,
            practices=() if again else inputs.instructions,
            spec=run.state.spec,
            spec_file=inputs.spec_file if run.state.spec_file else None,
            findings=tuple(f for f in run.state.open_blocking() if f.lens == run.lens),
            rereview=again,
        )
    )
    kind = "rereview" if again else "review"
    budget = Role.REREVIEW if again else Role.REVIEW
    made = launch.reader(f"{kind}-{run.lens}", budget, text, run.attempt, model=kind)
    return replace(made, model=inputs.review.angle_models.get(run.lens))  # REV-3


def _aggregate(run: Review) -> Effect:
    inputs, limits = run.inputs, run.inputs.limits
    blocking = tuple(r for r in run.raw if r.finding.severity == "blocking")
    text = aggregate.render(
        aggregate.AggregateData(
            inputs.issue, inputs.base, limits.context_soft, limits.context_hard, blocking
        )
    )
    made = launch.reader("aggregate", Role.AGGREGATE, text, run.attempt)
    return replace(made, model=run.inputs.review.judge_model)


def _charge(run: Review) -> Effect:
    """The first lens's charge saves the later lenses' too, ahead (one save, not three);
    each later launch still asks, and takes its own without a save (BUD-1)."""
    role = Role.REREVIEW if run.rereview else Role.REVIEW
    first = run.index == 0 and run.attempt == 0
    return ChargeBudget(role, ahead=len(run.lenses) - 1 if first else 0)


def _post_lens(run: Review) -> Effect:
    if run.sized and run.rereview is None:
        return PostPrComment(f"angle-{run.lens}", "review", angle_comment(run.lens, run.lens_reply))
    reply = run.lens_reply
    assert reply is not None, "a lens's comment needs its reply"
    assert not isinstance(reply, AngleReply), "a sized review's angle posts its own comment"
    kind = "rereview" if run.rereview is not None else "review"
    role = "rereview" if run.rereview is not None else "review"
    return PostPrComment(f"{kind}-{run.lens}", role, lens_comment(run.lens, reply))


def _post_findings(run: Review) -> Effect:
    limit = run.inputs.limits.max_fix_rounds
    text = findings_comment(run.state.open_blocking(), run.state.rounds.fix, limit)
    # Signed by the coordinator: the list is the stage's own, aggregated or numbered raw.
    return PostPrComment("findings", "coordinator", text)


def _done(run: Review, stage: Stage) -> End:
    head = run.head_sha or run.state.head_sha
    update = {"reviewed_sha": head, "head_sha": head, "rereview": None}
    return SavedAt(stage, run.state.model_copy(update=update))


def _stop(run: Review, reason: str) -> End:
    code = run.judged.code if run.judged and run.judged.code else StopCode.REVIEW_ROUNDS
    details = "\n".join(
        f"- {f.id} ({f.lens}, {f.status}): {f.evidence.strip()}" for f in run.state.open_blocking()
    )
    return Stopped(code, reason, run.state.model_copy(update={"rereview": None}), details)


TABLE: Table[Phase, Event, Review] = Table(
    name="review",
    start=Phase.START,
    exits=EXITS,
    effects={
        Phase.PREPARE: lambda run: PrepareReview(
            "rereview.diff" if run.rereview else "review.diff",
            run.rereview.base_sha if run.rereview else None,
        ),
        Phase.CHARGE_BRIEF: lambda run: ChargeBudget(Role.REVIEW),
        Phase.LAUNCH_BRIEF: _brief,
        Phase.CHARGE: _charge,
        Phase.LAUNCH: _launch,
        Phase.POST_LENS: _post_lens,
        Phase.CHARGE_AGG: lambda run: ChargeBudget(Role.AGGREGATE),
        Phase.LAUNCH_AGG: _aggregate,
        Phase.POST_FINDINGS: _post_findings,
        Phase.POST_NITS: lambda run: PostPrComment("nits", "review", nits_comment(run.nits)),
    },
    ends={
        Phase.TO_CHECKS: lambda run: _done(run, Stage.CHECKS),
        Phase.TO_FIX: lambda run: _done(run, Stage.FIX),
        Phase.NOTHING: lambda run: Stopped(
            StopCode.NO_WORK,
            "the diff from the base is empty: there is nothing to review",
            run.state,
        ),
        Phase.FIX_LOOP: lambda run: _stop(run, "a finding came back after a fix had resolved it"),
        Phase.OUT_OF_ROUNDS: lambda run: _stop(
            run, f"blocking findings are still open after {run.state.rounds.fix} fix rounds"
        ),
        Phase.FAILED: lambda run: Stopped(
            StopCode.ERROR, f"the {run.lens} reviewer failed twice", run.state, run.note
        ),
        Phase.OVER_BUDGET: over_budget,
        Phase.DEFERRED: deferred,
    },
)
