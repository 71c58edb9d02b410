"""The finding rules: numbering, duplicates, disputes, re-reviews, rounds and their stops."""

from __future__ import annotations

from conveyor.core import replies
from conveyor.core.finding_loops import add_acceptance, add_security, apply_fix
from conveyor.core.findings import (
    Raw,
    Verdict,
    apply_rereview,
    from_aggregate,
    judge,
    nits,
    number_raw,
    rereview_lenses,
)
from conveyor.core.state import Finding, IssueState, Rounds
from conveyor.core.stops import StopCode

SPEC = "## Behaviour\n- `total()` of an empty stock is 0.\n"


def found(evidence: str = "off by one", severity: str = "blocking", **kw: object) -> Raw:
    """A raw finding of `lens` (default correctness)."""
    lens = str(kw.pop("lens", "correctness"))
    values: dict[str, object] = {
        "severity": severity,
        "file": "app.py",
        "line": 3,
        "evidence": evidence,
        "suggestion": "fix it",
    }
    values.update(kw)
    return Raw(lens, replies.Finding.model_validate(values))


def finding(number: int, lens: str = "correctness", **kw: object) -> Finding:
    """A stored blocking finding."""
    values: dict[str, object] = {
        "id": f"F{number}",
        "lens": lens,
        "severity": "blocking",
        "file": "app.py",
        "line": number,
        "evidence": f"problem {number}",
    }
    values.update(kw)
    return Finding.model_validate(values)


def rereview(**kw: object) -> replies.RereviewReply:
    """A re-review reply: nothing still open by default."""
    values: dict[str, object] = {"rulings": [], "still_open": [], "findings": [], "summary": "ok"}
    values.update(kw)
    return replies.RereviewReply.model_validate(values)


def fix_reply(disputes: list[dict[str, object]] | None = None) -> replies.FixReply:
    """A fixer's reply."""
    return replies.FixReply(
        status="done",
        summary="fixed",
        addressed=[],
        disputes=[replies.Dispute.model_validate(d) for d in disputes or []],
    )


def test_the_fallback_numbers_raw_blocking_findings_after_earlier_ones_without_nits() -> None:
    """REV-5: with the aggregator failed, blocking findings are numbered; nits are left out."""
    raws = [found("a"), found("b", lens="tests", line=9), found("c", "nit")]
    numbered = number_raw([finding(4)], raws)
    assert [(f.id, f.lens, f.evidence) for f in numbered] == [
        ("F5", "correctness", "a"),
        ("F6", "tests", "b"),
    ]


def test_exact_duplicates_from_two_lenses_are_merged_keeping_the_first_lens() -> None:
    """Same file, line and evidence (whitespace and case aside) is one finding."""
    numbered = number_raw([], [found("Off  by one"), found("off by one", lens="tests")])
    assert [(f.id, f.lens) for f in numbered] == [("F1", "correctness")]


def test_nits_are_gathered_apart_and_deduplicated() -> None:
    """REV-6: nits go to one comment."""
    assert [r.finding.evidence for r in nits([found("n", "nit"), found("n", "nit"), found()])] == [
        "n"
    ]


def test_the_aggregate_is_renumbered_and_keeps_the_first_known_lens() -> None:
    """The aggregator's merged findings get the issue's own numbers."""
    merged = replies.NumberedFinding(
        id=9,
        lenses=["tests", "correctness"],
        severity="blocking",
        file="a.py",
        line=1,
        evidence="e",
        suggestion="s",
    )
    reply = replies.AggregateReply(findings=[merged], summary="")
    out = from_aggregate([finding(1)], reply, [found(), found(lens="tests")])
    assert [(f.id, f.lens) for f in out] == [("F2", "tests")]


def test_an_aggregate_that_drops_every_blocking_finding_is_not_trusted() -> None:
    """Raw blocking findings are numbered instead of being lost."""
    out = from_aggregate([], replies.AggregateReply(findings=[], summary=""), [found("x")])
    assert [f.evidence for f in out] == ["x"]


def test_open_findings_go_to_fix_until_the_rounds_are_used_then_stop_review_rounds() -> None:
    """FIX-1: at most max_fix_rounds rounds."""
    state = IssueState(findings=(finding(1),))
    assert judge(state, 2).verdict is Verdict.FIX
    used = state.model_copy(update={"rounds": Rounds(fix=2)})
    assert judge(used, 2).verdict is Verdict.OUT_OF_ROUNDS
    assert judge(used, 2).code is StopCode.REVIEW_ROUNDS
    assert judge(IssueState(), 2).verdict is Verdict.CLEAN


def test_the_rereview_resolves_what_is_not_still_open_and_adds_what_the_fix_introduced() -> None:
    """FIX-2: only the lens's own findings change; new ones are numbered after the rest."""
    state = IssueState(findings=(finding(1), finding(2), finding(3, "tests")))
    new = found("the fix broke b()", line=40).finding.model_dump()
    after, _ = apply_rereview(state, "correctness", rereview(still_open=[2], findings=[new]))
    assert [(f.id, f.status) for f in after.findings] == [
        ("F1", "resolved"),
        ("F2", "open"),
        ("F3", "open"),
        ("F4", "open"),
    ]


def test_a_resolved_finding_named_still_open_came_back_and_stops_fix_loop() -> None:
    """FIX-7."""
    state = IssueState(findings=(finding(1, status="resolved"),))
    after, _ = apply_rereview(state, "correctness", rereview(still_open=[1]))
    assert judge(after, 2) == judge(after, 9)
    assert judge(after, 2).code is StopCode.FIX_LOOP


def test_a_new_finding_matching_a_resolved_one_reopens_it() -> None:
    """FIX-7: the same problem raised again under a new number still came back."""
    state = IssueState(findings=(finding(1, status="resolved"),))
    again = found("problem 1", line=77).finding.model_dump()
    after, _ = apply_rereview(state, "correctness", rereview(findings=[again]))
    assert [f.status for f in after.findings] == ["reopened"]
    assert judge(after, 2).verdict is Verdict.CAME_BACK


def test_the_fixer_may_dispute_once_and_the_lens_rules() -> None:
    """FIX-4: an upheld dispute withdraws the finding; a refused one reopens it for good."""
    state = IssueState(findings=(finding(1), finding(2)))
    fixed = apply_fix(
        state, fix_reply([{"finding": 1, "reason": "r", "spec_quote": None}]), SPEC, 1
    )
    assert fixed.refused == ()
    assert (fixed.state.findings[0].status, fixed.state.rounds.fix) == ("disputed", 1)
    assert rereview_lenses(fixed.state) == ("correctness",)
    ruling = {"finding": 1, "upheld": False, "reason": "still wrong"}
    after, _ = apply_rereview(
        fixed.state, "correctness", rereview(rulings=[ruling], still_open=[2])
    )
    assert [f.status for f in after.findings] == ["open", "open"]
    again = apply_fix(
        after, fix_reply([{"finding": 1, "reason": "r", "spec_quote": None}]), SPEC, 1
    )
    assert again.refused == ("F1: already disputed; the correctness lens ruled on it (FIX-4)",)
    upheld = {"finding": 1, "upheld": True, "reason": "fair"}
    withdrawn, _ = apply_rereview(fixed.state, "correctness", rereview(rulings=[upheld]))
    assert [f.status for f in withdrawn.findings] == ["resolved", "resolved"]


def test_a_dispute_must_quote_a_line_the_spec_has() -> None:
    """FIX-6: a finding only breaking the spec could meet is disputed quoting the spec."""
    state = IssueState(findings=(finding(1),))
    good = {"finding": 1, "reason": "r", "spec_quote": "`total()` of an  empty stock is 0."}
    assert apply_fix(state, fix_reply([good]), SPEC, 1).refused == ()
    bad = {"finding": 1, "reason": "r", "spec_quote": "totals are negative"}
    refused = apply_fix(state, fix_reply([bad]), SPEC, 1)
    assert refused.refused == ("F1: the quoted spec line is not in the spec (FIX-6)",)
    assert refused.state.findings[0].status == "open"


def test_disputing_an_unknown_or_resolved_finding_is_refused() -> None:
    """Only open blocking findings can be disputed."""
    state = IssueState(findings=(finding(1, status="resolved"),))
    out = apply_fix(state, fix_reply([{"finding": 1, "reason": "r", "spec_quote": None}]), SPEC, 1)
    assert out.refused == ("F1: not an open blocking finding",)


def test_disputing_an_acceptance_finding_stops_acceptance() -> None:
    """FIX-5: only the operator rules on what the issue asks."""
    state = IssueState(findings=(finding(1, "acceptance"),))
    out = apply_fix(state, fix_reply([{"finding": 1, "reason": "r", "spec_quote": None}]), SPEC, 1)
    assert out.stop is StopCode.ACCEPTANCE


def accept(verdict: str, holds: bool | None = None) -> replies.AcceptReply:
    """An acceptance verdict."""
    return replies.AcceptReply(
        verdict=verdict,
        reason="the empty case is missing",
        missing=["`total()` of an empty stock is 0."] if verdict == "fail" else [],
        no_tests_reason_holds=holds,
        summary="",
    )


def test_a_failed_acceptance_becomes_a_blocking_acceptance_finding_sent_to_fix() -> None:
    """ACC-3: not a stop while fix rounds remain; the reason is the evidence."""
    state, judged = add_acceptance(IssueState(), accept("fail"), 2)
    assert judged.verdict is Verdict.FIX
    (made,) = state.open_blocking()
    assert made.lens == "acceptance"
    assert "empty case is missing" in made.evidence
    assert "`total()` of an empty stock is 0." in made.evidence


def test_acceptance_failing_with_no_rounds_left_stops_acceptance() -> None:
    """ACC-4, FIX-11: acceptance findings use up fix rounds."""
    used = IssueState(rounds=Rounds(fix=2))
    assert add_acceptance(used, accept("fail"), 2)[1].code is StopCode.ACCEPTANCE
    assert add_acceptance(used, accept("pass"), 2)[1].verdict is Verdict.CLEAN
    assert add_acceptance(IssueState(), accept("pass", False), 2)[1].verdict is Verdict.FIX


def security(category: str = "financial-harm") -> replies.SecurityReply:
    """A security review with one finding."""
    item = {"category": category, "file": "pay.py", "line": 2, "evidence": "e", "suggestion": "s"}
    return replies.SecurityReply(
        findings=[replies.SecurityFinding.model_validate(item)], summary=""
    )


def test_security_findings_enter_the_fix_loop_with_fresh_rounds() -> None:
    """SEC-3, SEC-8: the fix count starts again and security reviews are counted."""
    state, judged = add_security(IssueState(rounds=Rounds(fix=2)), security(), 2)
    assert judged.verdict is Verdict.FIX
    assert (state.rounds.fix, state.rounds.security) == (0, 1)
    assert state.open_blocking()[0].category == "financial-harm"
    assert rereview_lenses(state) == ("security",)


def test_a_security_finding_still_open_after_the_rounds_stops_with_its_category() -> None:
    """SEC-4: agent:stopped-<category>."""
    state, _ = add_security(IssueState(), security("abuse-risk"), 2)
    used = state.model_copy(update={"rounds": state.rounds.model_copy(update={"fix": 2})})
    assert judge(used, 2).code is StopCode.ABUSE_RISK
    assert StopCode.ABUSE_RISK.label == "agent:stopped-abuse-risk"


def test_a_security_finding_found_again_after_max_security_reviews_stops() -> None:
    """SEC-4: the third security review with findings stops instead of fixing."""
    reviewed = IssueState(rounds=Rounds(security=2))
    _, judged = add_security(reviewed, security("users-rights"), 2)
    assert (judged.verdict, judged.code) == (Verdict.OUT_OF_ROUNDS, StopCode.USERS_RIGHTS)
    assert add_security(reviewed, replies.SecurityReply(findings=[], summary=""), 2)[1] == (
        judge(IssueState(), 2)
    )


def test_a_rereview_finding_on_a_file_the_fix_did_not_touch_is_only_a_nit() -> None:
    """FIX-2: re-reviewers may raise only problems the fix introduced."""
    state = IssueState(findings=(finding(1),))
    elsewhere = found("old problem", file="other.py").finding.model_dump()
    inside = found("new problem", line=60).finding.model_dump()
    reply = rereview(findings=[elsewhere, inside])
    after, nits_left = apply_rereview(state, "correctness", reply, ("app.py",))
    assert [(f.id, f.evidence) for f in after.open_blocking()] == [("F2", "new problem")]
    assert [n.finding.file for n in nits_left] == ["other.py"]
