"""The rules for what a closed issue the sweep lists gets, and which stop an approved issue
carries: pure, over plain values (the sweeps in `shell/` only read)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conveyor.core.labels import Status
from conveyor.core.state import Stage, Stopped
from conveyor.core.stops import StopCode
from conveyor.orchestrator.closeout import Outcome, closed_outcome, counted
from conveyor.orchestrator.handed import standing_stop

AT = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("stage", "merged", "outcome"),
    [
        (Stage.APPROVED, True, "landing"),
        (Stage.APPROVED, False, "settled"),
        (Stage.MERGE, True, "close-out"),
        (Stage.MERGE, False, "settled"),
        (Stage.REVIEW, True, "close-out"),
        (Stage.IMPLEMENT, False, "settled"),
    ],
)
def test_a_merged_pr_lands_an_approved_issue_and_closes_out_any_other(
    stage: Stage, merged: bool, outcome: Outcome
) -> None:
    """Merged at `approved`: the landing; merged elsewhere: the close-out; a PR closed
    without a merge leaves the issue settled, whatever its stage."""
    assert closed_outcome(stage, pr_merged=merged) == outcome


@pytest.mark.parametrize("stage", list(Stage))
def test_under_a_stop_label_only_an_approved_issue_counts(stage: Stage) -> None:
    """Listed under `pr-closed` or `branch-changed`, a mid-pipeline issue is left alone;
    listed under `agent:working` or `agent:approved`, every stage counts."""
    assert counted(stage, under_stop=True) is (stage is Stage.APPROVED)
    assert counted(stage, under_stop=False)


def _stopped(code: StopCode) -> Stopped:
    return Stopped(control=code, reason="why", stage=Stage.APPROVED, at=AT)


def test_the_stop_label_wins_over_the_stop_the_state_records() -> None:
    """A label present is the stop, whatever the state still records."""
    labels = (Status.APPROVED.value, StopCode.BRANCH_CHANGED.label)
    recorded = _stopped(StopCode.PR_CLOSED)
    assert standing_stop(labels, recorded) is StopCode.BRANCH_CHANGED
    assert standing_stop(labels, None) is StopCode.BRANCH_CHANGED


def test_a_lifted_label_keeps_the_recorded_stop_until_the_restart() -> None:
    """A person lifted the label: the state's stop stands until the restart runs; with
    neither, the issue is not stopped."""
    labels = (Status.APPROVED.value,)
    assert standing_stop(labels, _stopped(StopCode.PR_CLOSED)) is StopCode.PR_CLOSED
    assert standing_stop(labels, None) is None
    assert standing_stop((), None) is None
