"""Merge order on the embedded forge: an older PR past review holds the merge, a stopped one not."""

from __future__ import annotations

from datetime import UTC, datetime

from conveyor.core.labels import Status, status_label, stop_label
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.merge_order import read_queue
from conveyor.ops.forge.state_store import save_state
from tests.contract.ops_merge.merge_world import MergeWorld


def _issue_at(world: MergeWorld, stage: Stage, pr: int, label: str = Status.WORKING.value) -> int:
    number = world.bot.create_issue(f"At {stage.value}", "x").number
    save_state(world.ctx(), number, IssueState(stage=stage, pr=pr))
    target = status_label(Status.WORKING) if label == Status.WORKING.value else None
    set_agent_label(world.ctx(), number, (), target)
    if target is None:
        set_agent_label(world.ctx(), number, (), stop_label(StopCode(label)))
    return number


def test_an_older_pr_past_review_holds_and_a_stopped_or_younger_one_does_not(
    world: MergeWorld,
) -> None:
    """MRG-9: #checks with PR 5 holds PR 7; a stopped issue, a review one and PR 9 do not."""
    holding = _issue_at(world, Stage.CHECKS, 5)
    _issue_at(world, Stage.MERGE, 3, StopCode.CONFLICT.value)
    _issue_at(world, Stage.REVIEW, 4)
    _issue_at(world, Stage.MERGE, 9)
    now = datetime.now(UTC)
    assert read_queue(world.ctx(), 1, 7, now=now) == (holding,)
    assert read_queue(world.ctx(), 1, 4, now=now) == ()
