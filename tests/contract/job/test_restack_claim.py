"""A sync job claims a stacked issue saved past sync and moves it back to sync (STK-11)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from conveyor.cli.config_load import load_config
from conveyor.core.state import IssueState, StackedOn, Stage
from conveyor.job.claiming import Claimed, NotClaimable, claim_for_job
from conveyor.ops.forge.context import OpContext
from conveyor.testing.world import ACCOUNT, World
from tests.contract.job.helpers import seed_state

HEAD = "c" * 40


def _claim(world: World, number: int, tmp_path: Path) -> Claimed | NotClaimable:
    ops = OpContext(world.forge_as(ACCOUNT), load_config(world.config_path), run_id="job-1")
    return claim_for_job(
        ops,
        number,
        stage=Stage.SYNC,
        lane="lane-a",
        now=datetime.now(UTC),
        run_dir=tmp_path / "run",
        wait=lambda _seconds: None,
        unit=0.5,
    )


@pytest.mark.parametrize("saved", [Stage.CHECKS, Stage.ACCEPT, Stage.SECURITY])
def test_a_stacked_issue_saved_past_sync_is_claimed_by_a_sync_job_and_moved_back_to_sync(
    world: World, tmp_path: Path, saved: Stage
) -> None:
    """The claimed state is at sync, with what passed at the old head forgotten."""
    issue = world.open_issue("Use the prices", "Multiply.")
    stacked = StackedOn(issue=99, head_sha="a" * 40)
    state = IssueState(
        stage=saved, head_sha=HEAD, verified_sha=HEAD, passed_sha=HEAD, stacked_on=stacked
    )
    seed_state(world, issue.number, state)
    claimed = _claim(world, issue.number, tmp_path)
    assert isinstance(claimed, Claimed), claimed
    assert claimed.state.stage is Stage.SYNC
    assert claimed.state.verified_sha is None
    assert claimed.state.stacked_on == stacked


def test_an_unstacked_issue_saved_at_checks_is_still_the_wrong_stage_for_sync(
    world: World, tmp_path: Path
) -> None:
    """Only stacking moves an issue back: any other mismatch is not claimable."""
    issue = world.open_issue("Use the prices", "Multiply.")
    seed_state(world, issue.number, IssueState(stage=Stage.CHECKS, head_sha=HEAD))
    refused = _claim(world, issue.number, tmp_path)
    assert isinstance(refused, NotClaimable)
    assert refused.reason.startswith("wrong-stage")
