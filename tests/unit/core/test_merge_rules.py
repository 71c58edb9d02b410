"""Merge rules: behind detection three ways, the tests-only path, max_syncs and merge order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conveyor.core.merge_rules import (
    Behind,
    Next,
    Queued,
    after_behind,
    ahead,
    behind,
    count_sync,
    refused_as_behind,
)
from conveyor.core.state import IssueState, Lease, Rounds, Stage

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
HEAD = "h" * 40
PASSED = IssueState(stage=Stage.MERGE, head_sha=HEAD, verified_sha=HEAD, passed_sha=HEAD)


def test_the_forge_saying_behind_counts_as_behind() -> None:
    """mergeable_state behind (a strict, protected base) is behind."""
    assert behind(mergeable_state="behind", has_base=True) is Behind.FORGE


def test_a_clean_forge_answer_with_a_stale_verified_commit_is_behind() -> None:
    """An unprotected base reads clean, but the local check sees the base missing."""
    assert behind(mergeable_state="clean", has_base=False) is Behind.LOCAL


def test_a_clean_answer_on_the_current_base_is_not_behind() -> None:
    """Clean and containing the base: merge."""
    assert behind(mergeable_state="clean", has_base=True) is None


def test_a_refusal_because_the_base_moved_reads_as_behind() -> None:
    """GitHub's "Base branch was modified" is behind; a conflict is not."""
    assert refused_as_behind("Base branch was modified. Review and try the merge again.")
    assert not refused_as_behind("Pull Request is not mergeable")


def test_a_branch_that_passed_everything_is_rebased_and_tested_here() -> None:
    """MRG-5, MRG-7: verified and passed at the head, first rebase: tests only."""
    assert after_behind(PASSED, HEAD, rebased_here=False, max_syncs=3) is Next.TESTS_ONLY


def test_a_second_behind_in_the_same_job_goes_back_to_sync() -> None:
    """Rebased once here already: the next behind goes to sync."""
    assert after_behind(PASSED, HEAD, rebased_here=True, max_syncs=3) is Next.SYNC


def test_a_branch_not_passed_at_its_head_goes_to_sync() -> None:
    """Security passed at an older head: a full re-check."""
    state = PASSED.model_copy(update={"passed_sha": "o" * 40})
    assert after_behind(state, HEAD, rebased_here=False, max_syncs=3) is Next.SYNC


def test_max_syncs_rebases_stop_the_issue() -> None:
    """After max_syncs rebases, behind stops sync-limit."""
    state = PASSED.model_copy(update={"rounds": Rounds(syncs=3)})
    assert after_behind(state, HEAD, rebased_here=False, max_syncs=3) is Next.SYNC_LIMIT


def test_counting_a_sync_marks_the_recheck_for_the_rebase_pool() -> None:
    """SYNC-9: a merge-asked rebase counts and charges re-checks to the rebase pool."""
    state = count_sync(PASSED)
    assert state.rounds.syncs == 1
    assert state.merge_rebase


def test_an_older_pr_past_review_holds_the_merge() -> None:
    """MRG-9: an open issue at checks with an older PR is ahead; younger or earlier ones not."""
    others = [
        Queued(1, 5, Stage.CHECKS, stopped=False, lease=None),
        Queued(2, 9, Stage.MERGE, stopped=False, lease=None),
        Queued(3, 4, Stage.REVIEW, stopped=False, lease=None),
    ]
    assert ahead(7, others, now=NOW, lease_hours=3) == (1,)


def test_stopped_and_expired_issues_do_not_hold_the_merge() -> None:
    """MRG-9: stopped issues and leases held past lease_hours do not count."""
    old = Lease(lane="x", job_id="j", at=NOW - timedelta(hours=4))
    fresh = Lease(lane="x", job_id="j", at=NOW - timedelta(hours=1))
    others = [
        Queued(1, 2, Stage.CHECKS, stopped=True, lease=None),
        Queued(2, 3, Stage.MERGE, stopped=False, lease=old),
        Queued(3, 4, Stage.ACCEPT, stopped=False, lease=fresh),
    ]
    assert ahead(7, others, now=NOW, lease_hours=3) == (3,)
