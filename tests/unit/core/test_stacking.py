"""The ops side's stacking rules: the merged rule, a sync's target, the restack to sync."""

from __future__ import annotations

import pytest

from conveyor.core.stacking import (
    StackMove,
    can_restack_to_sync,
    prereq_merged,
    restack_plan,
    restack_to_sync,
    stack_base,
)
from conveyor.core.state import CiWait, IssueState, StackedOn, Stage
from tests.unit.stages.factory_merge import NOW

OLD, NEW, BASE = "1" * 40, "2" * 40, "3" * 40
STACKED = StackedOn(issue=4, head_sha=OLD)


@pytest.mark.parametrize(
    ("state", "reason", "pr_merged", "merged"),
    [
        ("open", None, False, False),
        ("open", None, True, True),
        ("closed", "completed", False, True),
        ("closed", None, False, True),
        ("closed", "not_planned", False, False),
        ("closed", "not_planned", True, True),
    ],
)
def test_the_one_merged_rule(state: str, reason: str | None, pr_merged: bool, merged: bool) -> None:
    """STK-5, STK-14: P's PR merged, or P's issue closed as completed, counts as merged."""
    assert prereq_merged(issue_state=state, state_reason=reason, pr_merged=pr_merged) is merged


def test_an_open_prerequisites_head_is_the_target_of_a_stacked_sync() -> None:
    """STK-2, STK-4: the issue's own commits (after the saved head) go onto P's new head."""
    move = restack_plan(STACKED, merged=False, prereq_head=NEW, base_head=BASE, base="main")
    assert move == StackMove(NEW, OLD, StackedOn(issue=4, head_sha=NEW), "agent/issue-4")


def test_a_merged_prerequisite_sends_the_branch_onto_the_base_and_unstacks_it() -> None:
    """STK-2, STK-5: onto the base, PR back on the base, `stacked_on` cleared."""
    move = restack_plan(STACKED, merged=True, prereq_head=NEW, base_head=BASE, base="main")
    assert move == StackMove(BASE, OLD, None, "main")


def test_a_prerequisite_without_a_branch_that_did_not_merge_leaves_the_branch_alone() -> None:
    """Nothing to rebase onto: the branch stays on the saved head and stays stacked."""
    move = restack_plan(STACKED, merged=False, prereq_head=None, base_head=BASE, base="main")
    assert move == StackMove(OLD, OLD, STACKED, None)


def test_a_stacked_issue_measures_its_change_from_the_prerequisite_head() -> None:
    """STK-15: the spec's, review's and verify's base is `stacked_on.head_sha`."""
    assert stack_base(IssueState(stacked_on=STACKED)) == OLD
    assert stack_base(IssueState()) is None


@pytest.mark.parametrize(
    ("stage", "allowed"),
    [
        (Stage.CHECKS, True),
        (Stage.ACCEPT, True),
        (Stage.SECURITY, True),
        (Stage.MERGE, False),
        (Stage.REVIEW, False),
    ],
)
def test_only_a_stacked_issue_at_checks_accept_or_security_restacks_to_sync(
    stage: Stage, allowed: bool
) -> None:
    """STK-11: any other stage mismatch is still wrong-stage."""
    state = IssueState(stage=stage, stacked_on=STACKED)
    assert can_restack_to_sync(state, Stage.SYNC) is allowed
    assert not can_restack_to_sync(IssueState(stage=stage), Stage.SYNC)


def test_a_restack_to_sync_forgets_what_passed_at_the_old_head() -> None:
    """The rebased head goes through verify, CI, acceptance and security again (STK-11)."""
    state = IssueState(
        stage=Stage.SECURITY,
        stacked_on=STACKED,
        verified_sha=OLD,
        passed_sha=OLD,
        ci_wait=CiWait(sha=OLD, since=NOW),
    )
    moved = restack_to_sync(state)
    assert (moved.stage, moved.verified_sha, moved.passed_sha, moved.ci_wait) == (
        Stage.SYNC,
        None,
        None,
        None,
    )
    assert moved.stacked_on == STACKED
