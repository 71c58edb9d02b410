"""A CI wait is due at once when a webhook reported that its commit's CI finished, or
that a person gave feedback on its issue's PR."""

from __future__ import annotations

from datetime import timedelta

from conveyor.core.state import Stage
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import CiWait

from .factory import NOW, config, issue, snapshot

SHA = "c0ffee" * 6 + "c0ff"
# Read 5 s ago with a 30 s poll: not due by the clock.
WAIT = CiWait(SHA, since=NOW - timedelta(minutes=1), last_read=NOW - timedelta(seconds=5))


def _started(reported: frozenset[str]) -> list[int]:
    snap = snapshot(issue(1, Stage.CHECKS, ci_wait=WAIT), ci_reported=reported)
    return [start.issue for start in schedule(snap, config(ci_poll_seconds=30), NOW).starts]


def test_a_ci_wait_whose_commits_ci_was_reported_is_started_now() -> None:
    """The wait's own commit reported: its checks job starts before the poll is due."""
    assert _started(frozenset({SHA})) == [1]


def test_another_commits_report_leaves_the_wait_to_its_poll() -> None:
    """A report about some other commit changes nothing: still held until due."""
    assert _started(frozenset({"f" * 40})) == []
    assert _started(frozenset()) == []


def _started_on_feedback(feedback: frozenset[int]) -> list[int]:
    snap = snapshot(issue(1, Stage.CHECKS, ci_wait=WAIT, pr=7), feedback_prs=feedback)
    return [start.issue for start in schedule(snap, config(ci_poll_seconds=30), NOW).starts]


def test_a_ci_wait_whose_pr_got_feedback_is_started_now() -> None:
    """A review on the issue's own PR makes its waiting checks job due before the poll."""
    assert _started_on_feedback(frozenset({7})) == [1]


def test_feedback_on_another_pr_leaves_the_wait_to_its_poll() -> None:
    """Feedback on some other PR changes nothing: still held until due."""
    assert _started_on_feedback(frozenset({8})) == []
