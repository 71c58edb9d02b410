"""The fix loop's rules: a fix round and its disputes, acceptance and security findings."""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.core import replies
from conveyor.core.findings import (
    ACCEPTANCE,
    SECURITY,
    Judged,
    Verdict,
    judge,
    next_number,
    number_of,
)
from conveyor.core.state import Finding, IssueState
from conveyor.core.stops import StopCode


@dataclass(frozen=True)
class FixRound:
    """A fix round applied: the new state, refused disputes (why), and whether it must stop."""

    state: IssueState
    refused: tuple[str, ...]
    stop: StopCode | None = None


def _words(text: str) -> str:
    return " ".join(text.split())


def _refusal(finding: Finding | None, dispute: replies.Dispute, spec: str | None, most: int) -> str:
    where = f"F{dispute.finding}"
    if finding is None or finding.severity != "blocking" or finding.status == "resolved":
        return f"{where}: not an open blocking finding"
    if finding.disputes >= most:
        return f"{where}: already disputed; the {finding.lens} lens ruled on it (FIX-4)"
    quote = dispute.spec_quote
    if quote is not None and spec is not None and _words(quote) not in _words(spec):
        return f"{where}: the quoted spec line is not in the spec (FIX-6)"
    return ""


def apply_fix(
    state: IssueState, reply: replies.FixReply, spec: str | None, max_disputes: int
) -> FixRound:
    """Count the round and record the fixer's disputes (FIX-1, FIX-4, FIX-5, FIX-6).

    A dispute is refused when its finding is not open, was disputed before, or quotes a
    spec line the spec lacks (unchecked when only spec.md has the whole spec); a refused
    dispute leaves the finding open. Disputing an acceptance finding stops the issue
    (acceptance) before anything is pushed.
    """
    by_number = {number_of(f.id): f for f in state.findings}
    refused: list[str] = []
    disputed: dict[int, str] = {}
    for dispute in reply.disputes:
        finding = by_number.get(dispute.finding)
        why = _refusal(finding, dispute, spec, max_disputes)
        if why:
            refused.append(why)
            continue
        if finding is not None and finding.lens == ACCEPTANCE:
            return FixRound(state, tuple(refused), StopCode.ACCEPTANCE)
        quote = f'\nThe spec says: "{dispute.spec_quote}"' if dispute.spec_quote else ""
        disputed[dispute.finding] = dispute.reason.strip() + quote
    findings = tuple(
        f.model_copy(
            update={
                "status": "disputed",
                "disputes": f.disputes + 1,
                "dispute": disputed[number_of(f.id)],
            }
        )
        if number_of(f.id) in disputed
        else f
        for f in state.findings
    )
    rounds = state.rounds.model_copy(update={"fix": state.rounds.fix + 1})
    return FixRound(
        state.model_copy(update={"findings": findings, "rounds": rounds}), tuple(refused)
    )


def acceptance_failed(reply: replies.AcceptReply) -> bool:
    """A fail verdict, or a no-tests reason that does not hold, fails acceptance (ACC-2, ACC-7)."""
    return reply.verdict == "fail" or reply.no_tests_reason_holds is False


def add_acceptance(
    state: IssueState, reply: replies.AcceptReply, max_fix_rounds: int
) -> tuple[IssueState, Judged]:
    """A failed acceptance becomes a blocking finding of the acceptance lens (ACC-3, ACC-4).

    It uses up fix rounds like any finding: with none left the issue stops (acceptance).
    """
    if not acceptance_failed(reply):
        return state, Judged(Verdict.CLEAN)
    missing = "".join(f"\n- {item}" for item in reply.missing)
    if reply.no_tests_reason_holds is False:
        missing += "\n- the spec's reason for having no tests does not hold"
    finding = Finding(
        id=f"F{next_number(state.findings)}",
        lens=ACCEPTANCE,
        severity="blocking",
        evidence=(reply.reason.strip() + (f"\nLeft out:{missing}" if missing else "")),
        suggestion="Do what the issue and every Behaviour item of the spec ask.",
    )
    # Not matched against resolved findings: a gap found again goes round the loop (ACC-4).
    state = state.model_copy(update={"findings": (*state.findings, finding)})
    return state, judge(state, max_fix_rounds)


def add_security(
    state: IssueState, reply: replies.SecurityReply, max_fix_rounds: int
) -> tuple[IssueState, Judged]:
    """Security findings join the fix loop with fresh rounds (SEC-3, SEC-4, SEC-8).

    Found again after `max_fix_rounds` security reviews, the issue stops with the first
    finding's category.
    """
    if not reply.findings:
        return state, Judged(Verdict.CLEAN)
    if state.rounds.security >= max_fix_rounds:
        return state, Judged(Verdict.OUT_OF_ROUNDS, StopCode(reply.findings[0].category))
    first = next_number(state.findings)
    new = tuple(
        Finding(
            id=f"F{first + i}",
            lens=SECURITY,
            severity="blocking",
            file=found.file,
            line=found.line,
            evidence=found.evidence,
            suggestion=found.suggestion,
            category=found.category,
        )
        for i, found in enumerate(reply.findings)
    )
    rounds = state.rounds.model_copy(update={"security": state.rounds.security + 1, "fix": 0})
    state = state.model_copy(update={"findings": (*state.findings, *new), "rounds": rounds})
    return state, Judged(Verdict.FIX)
