"""Decision values and their one-line log form."""

from __future__ import annotations

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.decisions import (
    Decision,
    Escalate,
    Hold,
    StartJob,
    Steer,
    StopIssue,
    Terminate,
    describe,
    hold,
)

from .factory import NOW


def test_the_fast_hold_is_the_same_value_as_a_hold() -> None:
    """The scheduler's bulk constructor gives an equal, equally frozen value."""
    fast = hold(3, Stage.FIX, "max-jobs 2/2")
    assert fast == Hold(3, Stage.FIX, "max-jobs 2/2")
    assert hash(fast) == hash(Hold(3, Stage.FIX, "max-jobs 2/2"))
    assert repr(fast) == repr(Hold(3, Stage.FIX, "max-jobs 2/2"))


def test_every_decision_has_a_log_line_naming_its_issue_and_reason() -> None:
    """Each kind of decision renders one line with the issue number and the reason."""
    decisions: list[Decision] = [
        StartJob(1, Stage.TRIAGE, "triage ready, oldest first"),
        StartJob(2, Stage.REVIEW, "job gone without finishing; resume 1 of 2", resume=True),
        Hold(3, Stage.FIX, "overlap:#1"),
        Steer(4, NOW, "text", "tool Bash failed 3 times in a row"),
        Terminate(5, 4242, NOW, "heartbeat silent"),
        StopIssue(6, StopCode.JOB, "resumes used up"),
        Escalate(7, StopCode.CONFLICT, "unexpected-stop", "stopped by conflict"),
    ]
    lines = [describe(d) for d in decisions]
    assert lines[0] == "start #1 triage: triage ready, oldest first"
    assert lines[1].startswith("resume #2 review")
    for line, decision in zip(lines, decisions, strict=True):
        assert f"#{decision.issue}" in line
        assert decision.reason in line
        assert "\n" not in line
