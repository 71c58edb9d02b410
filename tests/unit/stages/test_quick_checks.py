"""The check-reply handler the runner registers: schema findings, then the stage's rules."""

from __future__ import annotations

from conveyor.core.state import IssueState, Stage
from conveyor.job.effects.session import quick_checks
from tests.unit.stages.factory import parts, spec_reply, triage_reply


def test_a_reply_that_does_not_fit_the_schema_gets_findings_naming_the_field() -> None:
    """SPEC-92: the in-session check names what is wrong, field by field."""
    check = quick_checks(Stage.SPEC, IssueState())
    findings = check("spec-1", {"decision": "ready"})
    assert any(f.startswith("spec:") for f in findings)


def test_a_spec_without_its_end_marker_is_refused_in_the_session() -> None:
    """SPEC-62: the script checks the marker and coverage first in the session."""
    check = quick_checks(Stage.SPEC, IssueState())
    reply = spec_reply(spec="## Behaviour\n- x\n").model_dump()
    assert any("end marker" in f for f in check("spec-1", reply))
    assert check("spec-1", spec_reply().model_dump()) == []


def test_a_split_on_a_sub_issue_is_not_a_finding_but_one_part_is() -> None:
    """SPEC-30 is checked in the session; a sub-issue's split is the stage's stop, not a retry."""
    top = quick_checks(Stage.SPEC, IssueState())
    assert top("k", spec_reply("split", sub_issues=parts(1)).model_dump())
    sub = quick_checks(Stage.SPEC, IssueState(depth=1))
    assert sub("k", spec_reply("split", sub_issues=parts(2)).model_dump()) == []


def test_triage_needs_info_without_questions_is_refused_in_the_session() -> None:
    """The triage reply's quick check."""
    check = quick_checks(Stage.TRIAGE, IssueState())
    assert check("triage-1", triage_reply("needs-info").model_dump())
    assert check("triage-1", triage_reply("ready").model_dump()) == []
