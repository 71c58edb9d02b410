"""The stop comment: how to resume is a command that works on any forge, never itself."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conveyor.core.restart import restart_note
from conveyor.core.state import IssueState, Stage, Stopped
from conveyor.core.stop_text import stop_text
from conveyor.core.stops import StopCode

AT = datetime(2026, 11, 1, tzinfo=UTC)


@pytest.mark.parametrize("code", list(StopCode))
def test_every_stop_comment_names_the_resume_command_for_its_issue(code: StopCode) -> None:
    """The comment names `conveyor resume --issue N` for its own issue and the label it lifts."""
    text = stop_text(code, "a reason", "some details", issue=12)
    assert "`conveyor resume --issue 12`" in text
    assert f"`{code.label}`" in text


@pytest.mark.parametrize("code", list(StopCode))
def test_no_stop_comment_sends_its_reader_to_the_stop_comment(code: StopCode) -> None:
    """A person reading the stop comment is never told to read the stop comment, nor to use
    a command only GitHub's own CLI has."""
    text = stop_text(code, "a reason", issue=12).lower()
    assert "stop comment" not in text
    assert "gh issue" not in text


def test_the_stop_comment_says_where_a_restart_begins() -> None:
    """Issue 48: an issue stopped at spec restarts at triage, and its comment says so."""
    state = IssueState(
        stage=Stage.SPEC,
        stopped=Stopped(control=StopCode.SPEC_FILES, reason="r", stage=Stage.SPEC, at=AT),
    )
    text = stop_text(StopCode.SPEC_FILES, "r", issue=18, restarts=restart_note(state))
    assert (
        "restarts with fresh limits at triage (it stopped at spec): nothing is implemented yet,"
        " so triage and the spec run again." in text
    )


def test_a_reviewed_unchanged_branch_restarts_at_sync_and_says_so() -> None:
    """STOP-7's shortcut is said as it is taken."""
    state = IssueState(
        stage=Stage.CHECKS, implemented=True, head_sha="a" * 40, reviewed_sha="a" * 40,
        stopped=Stopped(control=StopCode.CHECK_FIXES, reason="r", stage=Stage.CHECKS, at=AT),
    )  # fmt: skip
    assert restart_note(state).startswith("at sync: the reviewed head is unchanged")
