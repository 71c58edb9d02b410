"""The CI gate: required checks, every reported check, or ungated after two empty reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conveyor.core.ci_gate import (
    Check,
    Gate,
    Light,
    Verdict,
    base_hold,
    missing_on_base,
    newest,
    pending_on_base,
    read_gate,
    unrelated,
)
from conveyor.core.state import CiWait

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
SHA = "a" * 40


def gate(
    checks: list[Check],
    required: tuple[str, ...] | None = None,
    earlier: CiWait | None = None,
    now: datetime = NOW,
) -> Gate:
    """The gate on SHA with 30 s polls and a 30 minute timeout."""
    return read_gate(SHA, checks, required, earlier, now=now, poll_seconds=30, timeout_minutes=30)


def test_every_reported_check_counts_when_the_base_is_unprotected() -> None:
    """Unprotected: one failing check among passing ones fails the gate."""
    result = gate([Check("ci", Light.PASSED), Check("lint", Light.FAILED)])
    assert result.verdict is Verdict.FAILED
    assert result.failing == ("lint",)


def test_all_reported_checks_passing_pass_the_gate() -> None:
    """Every reported check green: passed, naming them."""
    result = gate([Check("ci", Light.PASSED), Check("lint", Light.PASSED)])
    assert result.verdict is Verdict.PASSED
    assert result.names == ("ci", "lint")


def test_only_required_checks_count_when_the_base_is_protected() -> None:
    """Protected: a failing check that is not required does not hold the merge."""
    result = gate([Check("ci", Light.PASSED), Check("extra", Light.FAILED)], ("ci",))
    assert result.verdict is Verdict.PASSED


def test_a_required_check_not_reported_yet_is_pending() -> None:
    """A required check with no run is a hold with a wait to save, not a pass."""
    result = gate([Check("extra", Light.PASSED)], ("ci",))
    assert result.verdict is Verdict.PENDING
    assert result.wait == CiWait(sha=SHA, since=NOW, empty_reads=0, last_read=NOW)


def test_the_newest_run_of_a_name_counts() -> None:
    """A re-run that passed after a failure passes; the order of the list does not matter."""
    old = Check("ci", Light.FAILED, NOW - timedelta(minutes=5))
    new = Check("ci", Light.PASSED, NOW)
    assert gate([new, old]).verdict is Verdict.PASSED
    assert gate([old, new]).verdict is Verdict.PASSED
    assert (
        newest([Check("ci", Light.FAILED, seq=2), Check("ci", Light.PASSED, seq=1)])["ci"].light
        is Light.FAILED
    )


def test_pending_keeps_the_start_of_the_wait_on_the_same_head() -> None:
    """A later read of the same head keeps `since` and moves `last_read`."""
    first = CiWait(sha=SHA, since=NOW - timedelta(minutes=5), last_read=NOW - timedelta(minutes=1))
    result = gate([Check("ci", Light.PENDING)], earlier=first)
    assert result.wait == first.model_copy(update={"last_read": NOW})


def test_a_wait_on_another_head_starts_again() -> None:
    """A new head (after a fix) gets a fresh wait."""
    other = CiWait(sha="b" * 40, since=NOW - timedelta(hours=2))
    result = gate([Check("ci", Light.PENDING)], earlier=other)
    assert result.verdict is Verdict.PENDING
    assert result.wait is not None
    assert result.wait.since == NOW


def test_pending_past_the_timeout_times_out() -> None:
    """After ci_timeout_minutes of pending the gate says timed-out (the stage stops no-ci)."""
    first = CiWait(sha=SHA, since=NOW - timedelta(minutes=31))
    assert gate([Check("ci", Light.PENDING)], earlier=first).verdict is Verdict.TIMED_OUT


def test_two_empty_reads_poll_seconds_apart_are_ungated_never_passed() -> None:
    """No check at all: the first read holds; the second, 30 s later, is ungated."""
    first = gate([])
    assert first.verdict is Verdict.PENDING
    assert first.wait is not None
    assert first.wait.empty_reads == 1
    second = gate([], earlier=first.wait, now=NOW + timedelta(seconds=30))
    assert second.verdict is Verdict.UNGATED


def test_a_second_empty_read_too_soon_does_not_count() -> None:
    """Two empty reads 5 s apart are not enough; the first read's time is kept."""
    first = gate([])
    assert first.wait is not None
    soon = gate([], earlier=first.wait, now=NOW + timedelta(seconds=5))
    assert soon.verdict is Verdict.PENDING
    assert soon.wait == first.wait
    later = gate([], earlier=soon.wait, now=NOW + timedelta(seconds=31))
    assert later.verdict is Verdict.UNGATED


def test_a_protected_base_never_reads_as_ungated() -> None:
    """Required checks with nothing reported stay pending, however many reads."""
    first = gate([], ("ci",))
    second = gate([], ("ci",), first.wait, NOW + timedelta(seconds=60))
    assert second.verdict is Verdict.PENDING


def test_a_check_failing_on_the_base_too_is_unrelated() -> None:
    """Only failing names whose newest run on the base failed are unrelated."""
    base = [Check("ci", Light.FAILED), Check("lint", Light.PASSED)]
    assert unrelated(("ci", "lint", "docs"), base) == ("ci",)


def test_a_check_failing_on_the_base_in_an_older_run_only_is_not_unrelated() -> None:
    """The base's newest run of the name decides: failed then passed is not unrelated."""
    base = [Check("ci", Light.FAILED, NOW, 1), Check("ci", Light.PASSED, NOW, 2)]
    assert unrelated(("ci",), base) == ()


def test_failing_checks_are_sorted_by_what_the_base_head_shows_of_them() -> None:
    """Failed there (unrelated), still running there (pending) or never run there (missing)."""
    base = [Check("ci", Light.FAILED), Check("lint", Light.PENDING), Check("docs", Light.PASSED)]
    failing = ("ci", "lint", "docs", "e2e")
    assert unrelated(failing, base) == ("ci",)
    assert pending_on_base(failing, base) == ("lint",)
    assert missing_on_base(failing, base) == ("e2e",)


def test_a_failing_gate_is_held_while_the_base_head_runs_the_check() -> None:
    """No paid fix round before the base's run says whose failure it is; the note says why."""
    failed = gate([Check("ci", Light.FAILED)])
    held = base_hold(failed, (SHA, "b" * 40), None, NOW, timeout_minutes=30)
    assert held.verdict is Verdict.PENDING
    assert held.failing == ("ci",)
    assert held.wait is not None
    assert held.wait.since == NOW
    assert f"waiting for the base's head {'b' * 12} to run them too" in held.note


def test_the_hold_on_the_base_ends_at_the_ci_timeout_and_the_failure_stands() -> None:
    """Measured from when the wait on this head began; then the failing gate is returned."""
    failed = gate([Check("ci", Light.FAILED)])
    first = base_hold(failed, (SHA, "b" * 40), None, NOW, timeout_minutes=30)
    later = NOW + timedelta(minutes=29)
    assert base_hold(failed, (SHA, "b" * 40), first.wait, later, 30).verdict is Verdict.PENDING
    late = NOW + timedelta(minutes=30)
    assert base_hold(failed, (SHA, "b" * 40), first.wait, late, 30) == failed


def test_a_hold_saved_for_another_head_starts_the_wait_again() -> None:
    """A new head (a fix pushed) gets its own wait for the base's run."""
    failed = gate([Check("ci", Light.FAILED)])
    old = CiWait(sha="c" * 40, since=NOW - timedelta(hours=2))
    held = base_hold(failed, (SHA, "b" * 40), old, NOW, timeout_minutes=30)
    assert held.verdict is Verdict.PENDING
    assert held.wait is not None
    assert held.wait.since == NOW
