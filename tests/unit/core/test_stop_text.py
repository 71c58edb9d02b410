"""The stop comment: how to resume is a command that works on any forge, never itself."""

from __future__ import annotations

import pytest

from conveyor.core.stop_text import stop_text
from conveyor.core.stops import StopCode


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
