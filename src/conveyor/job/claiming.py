"""The job's claim: take the issue for its lane unless the lane already holds it (CLAIM-*)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from conveyor.core.claims import Keep, before_posting, parse_claims
from conveyor.core.pickup import Pickup
from conveyor.core.restart import restart
from conveyor.core.stacking import can_restack_to_sync, restack_to_sync
from conveyor.core.state import IssueState, Lease, Stage
from conveyor.core.state_codec import find_state
from conveyor.forge.types import Comment, Issue
from conveyor.ops.forge.claim import Lost, Skipped, Won, claim, decide
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.taking import take_issue
from conveyor.stages.registry import FIRST


@dataclass(frozen=True)
class Claimed:
    """The lane holds the issue at the job's stage; `fresh` when this job claimed it."""

    state: IssueState
    issue_md: Path
    fresh: bool


@dataclass(frozen=True)
class NotClaimable:
    """Nothing was changed: why the job may not run (exit code 3)."""

    reason: str


def expected_stage(state: IssueState | None, *, restarting: bool) -> Stage:
    """The stage the issue's next job runs: its saved stage, or where a restart begins."""
    if state is None:
        return FIRST
    if restarting and state.stopped is not None:
        return restart(state).stage
    return state.stage


def _landing(ctx: OpContext, state: IssueState | None, stage: Stage) -> bool | NotClaimable:
    """Whether a merge job lands an approved issue (its PR merged by a person). An approved
    issue whose PR is not merged is not claimable (a person merges it), unless it records a
    stop: then the pickup rule decides (a lifted `pr-closed` stop restarts at merge)."""
    if stage is not Stage.MERGE or state is None or state.stage is not Stage.APPROVED:
        return False
    if state.pr is None:
        return NotClaimable("approved: the issue has no PR to close out")
    if ctx.forge.get_pr(state.pr).merged:
        return True
    if state.stopped is not None:
        return False
    return NotClaimable(f"approved: PR #{state.pr} is not merged yet; a person merges it")


def _lane_continues(
    ctx: OpContext, comments: tuple[Comment, ...], state: IssueState, lane: str, now: datetime
) -> bool:
    """Whether `lane` released the issue itself and still holds the live claim."""
    lease = state.lease
    if lease is None or lease.lane != lane or not lease.released:
        return False
    before = before_posting(
        parse_claims(comments, ctx.account), lane, now, ctx.config.limits.lease_hours
    )
    return isinstance(before, Keep)


def claim_for_job(
    ctx: OpContext,
    number: int,
    *,
    stage: Stage,
    lane: str,
    now: datetime,
    run_dir: Path,
    take_stopped: bool = False,
    wait: Callable[[float], None],
    unit: float,
) -> Claimed | NotClaimable:
    """Check the issue waits for this stage, then claim it (or keep the lane's own lease).

    A merge job for an approved issue is a landing: the PR a person merged after its
    handover is closed out as the pipeline's own merge is (`_landing`).
    """
    issue = ctx.forge.get_issue(number)
    comments = fetch_comments(ctx, number)
    state = find_state(comments, ctx.account).state
    landing = _landing(ctx, state, stage)
    if isinstance(landing, NotClaimable):
        return landing
    decision = decide(
        ctx, issue, comments, now, by_number=True, take_stopped=take_stopped, landing=landing
    )
    lease = state.lease if state is not None else None
    own = lease is not None and lease.lane == lane and not lease.released
    if decision.action == "skip" and not (decision.reason == "leased" and own):
        return NotClaimable(decision.reason)
    expected = expected_stage(state, restarting=decision.action == "restart")
    restack = state is not None and state.stopped is None and can_restack_to_sync(state, stage)
    if expected is not stage and not restack and not landing:
        return NotClaimable(f"wrong-stage: the issue waits for {expected.value}, not {stage.value}")
    claimed = _claimed(
        ctx, issue, state, decision, comments, own=own, lane=lane, now=now, run_dir=run_dir,
        take_stopped=take_stopped, wait=wait, unit=unit, landing=landing,
    )  # fmt: skip
    if isinstance(claimed, Claimed) and landing:
        # The merge ends the issue whatever stop a closed PR left before it was reopened.
        return replace(claimed, state=claimed.state.model_copy(update={"stopped": None}))
    if isinstance(claimed, Claimed) and restack:
        # A stacked issue whose prerequisite moved or merged goes back to sync (STK-11).
        return replace(claimed, state=restack_to_sync(claimed.state))
    return claimed


def _claimed(
    ctx: OpContext,
    issue: Issue,
    state: IssueState | None,
    decision: Pickup,
    comments: tuple[Comment, ...],
    *,
    own: bool,
    lane: str,
    now: datetime,
    run_dir: Path,
    take_stopped: bool,
    wait: Callable[[float], None],
    unit: float,
    landing: bool = False,
) -> Claimed | NotClaimable:
    """Keep the lane's own lease, take a released issue back, or claim it afresh."""
    number = issue.number
    if own and state is not None and decision.reason == "leased":
        taken = take_issue(ctx, run_dir, issue, comments, state.taken)
        return Claimed(state.model_copy(update={"taken": taken.hashes}), taken.path, fresh=False)
    released = decision.action == "take" and decision.reason == "released"
    if released and state is not None and _lane_continues(ctx, comments, state, lane, now):
        # The lane's last job released the issue at this stage and its claim is still the
        # live one (CLAIM-14): take it back without posting or saving; the renewed lease is
        # saved with the job's first change to the state.
        renewed = Lease(lane=lane, job_id=ctx.run_id, at=now)
        taken = take_issue(ctx, run_dir, issue, comments, state.taken)
        update = {"lease": renewed, "taken": taken.hashes}
        return Claimed(state.model_copy(update=update), taken.path, fresh=False)
    outcome = claim(
        ctx,
        number,
        lane=lane,
        now=now,
        folder=run_dir,
        wait=wait,
        unit=unit,
        by_number=True,
        take_stopped=take_stopped,
        landing=landing,
    )
    if isinstance(outcome, Won):
        return Claimed(outcome.state, outcome.issue_md, fresh=True)
    if isinstance(outcome, Lost):
        return NotClaimable(f"lost the claim to lane {outcome.holder}")
    assert isinstance(outcome, Skipped)
    return NotClaimable(outcome.reason)
