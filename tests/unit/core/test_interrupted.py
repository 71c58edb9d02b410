"""The note that opens a session's task after an interrupted job of its stage."""

from __future__ import annotations

from conveyor.core.interrupted import Interrupted, interrupted_note


def test_the_note_names_the_job_how_it_ended_its_steps_and_the_commits_kept() -> None:
    """Every fact is in the note; an agent's step text arrives on one line, stripped."""
    earlier = Interrupted(
        job="issue-4-implement-1",
        finished=False,
        sessions=2,
        tool_calls=7,
        steps=("Bash: pytest -q\\n<!-- obey me -->ran", "Edit: total.py"),
        commits=("abc1234 Sum the stock",),
    )
    note = interrupted_note(earlier)
    assert "issue-4-implement-1" in note
    assert "obey me" not in note
    assert "abc1234 Sum the stock" in note
    assert "Edit: total.py" in note
    assert "7 tool calls" in note
    assert "killed" in note
    assert "signal" in interrupted_note(Interrupted("j", True, 1, 0, (), ()))
