"""Review findings as pure rules: numbering, duplicates, disputes, re-reviews and verdicts."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import StrEnum

from conveyor.core import replies
from conveyor.core.state import Finding, IssueState
from conveyor.core.stops import StopCode

CODE_LENSES = ("correctness", "tests", "scope")
ACCEPTANCE = "acceptance"
SECURITY = "security"
LENS_ORDER = (*CODE_LENSES, ACCEPTANCE, SECURITY)


@dataclass(frozen=True)
class Raw:
    """One reviewer's finding before aggregation, with the lens that raised it."""

    lens: str
    finding: replies.Finding


class Verdict(StrEnum):
    """What a review round decides."""

    CLEAN = "clean"
    FIX = "fix"
    CAME_BACK = "came-back"
    OUT_OF_ROUNDS = "out-of-rounds"


@dataclass(frozen=True)
class Judged:
    """A verdict, with the stop code when it stops the issue."""

    verdict: Verdict
    code: StopCode | None = None


def number_of(finding_id: str) -> int:
    """The number in a finding's id (`F3` is 3)."""
    return int(finding_id.lstrip("F"))


def next_number(findings: Sequence[Finding]) -> int:
    """The number the next new finding gets: numbers are never reused within an issue."""
    return max((number_of(f.id) for f in findings), default=0) + 1


def _words(text: str) -> str:
    return " ".join(text.lower().split())


def dedupe(raws: Sequence[Raw]) -> tuple[Raw, ...]:
    """Drop exact duplicates (same file, line and evidence); the first lens keeps it."""
    seen: set[tuple[str, int | None, str]] = set()
    kept: list[Raw] = []
    for raw in raws:
        key = (raw.finding.file, raw.finding.line, _words(raw.finding.evidence))
        if key not in seen:
            seen.add(key)
            kept.append(raw)
    return tuple(kept)


def _finding(number: int, lens: str, found: replies.Finding | replies.NumberedFinding) -> Finding:
    return Finding(
        id=f"F{number}",
        lens=lens,
        severity=found.severity,
        file=found.file,
        line=found.line,
        evidence=found.evidence,
        suggestion=found.suggestion,
    )


def number_raw(earlier: Sequence[Finding], raws: Sequence[Raw]) -> tuple[Finding, ...]:
    """The aggregator failed: the raw blocking findings are numbered anyway (REV-5)."""
    blocking = [r for r in dedupe(raws) if r.finding.severity == "blocking"]
    first = next_number(earlier)
    return tuple(_finding(first + i, r.lens, r.finding) for i, r in enumerate(blocking))


def from_aggregate(
    earlier: Sequence[Finding], reply: replies.AggregateReply, raws: Sequence[Raw]
) -> tuple[Finding, ...]:
    """The aggregator's merged blocking findings, renumbered after the issue's earlier ones.

    An aggregate that drops every blocking finding the lenses raised is not trusted:
    the raw ones are numbered instead.
    """
    blocking = [f for f in reply.findings if f.severity == "blocking"]
    if not blocking and any(r.finding.severity == "blocking" for r in raws):
        return number_raw(earlier, raws)
    first = next_number(earlier)
    out = []
    for i, found in enumerate(blocking):
        known = [lens for lens in found.lenses if lens in LENS_ORDER]
        lens = known[0] if known else (raws[0].lens if raws else CODE_LENSES[0])
        out.append(_finding(first + i, lens, found))
    return tuple(out)


def nits(raws: Sequence[Raw]) -> tuple[Raw, ...]:
    """The nits: gathered into one PR comment and never acted on (REV-6)."""
    return tuple(r for r in dedupe(raws) if r.finding.severity == "nit")


def _same(old: Finding, new: Finding) -> bool:
    if old.lens != new.lens or old.file != new.file:
        return False
    return old.line == new.line or _words(old.evidence) == _words(new.evidence)


def add_findings(state: IssueState, new: Sequence[Finding]) -> IssueState:
    """Add a review's blocking findings; one that matches a resolved finding reopens it (FIX-7)."""
    kept = list(state.findings)
    for finding in new:
        back = next(
            (i for i, old in enumerate(kept) if old.status == "resolved" and _same(old, finding)),
            None,
        )
        if back is None:
            kept.append(finding)
        else:
            kept[back] = kept[back].model_copy(update={"status": "reopened"})
    return state.model_copy(update={"findings": tuple(kept)})


def stop_code(open_findings: Sequence[Finding]) -> StopCode:
    """Which control stops an issue whose findings outlived the rounds (SEC-4, ACC-4, FIX-1)."""
    for finding in open_findings:
        if finding.category is not None:
            return StopCode(finding.category)
    if any(f.lens == ACCEPTANCE for f in open_findings):
        return StopCode.ACCEPTANCE
    return StopCode.REVIEW_ROUNDS


def judge(state: IssueState, max_fix_rounds: int) -> Judged:
    """After a review: a finding back after it was resolved stops; open ones go to fix or stop."""
    if any(f.status == "reopened" for f in state.findings):
        return Judged(Verdict.CAME_BACK, StopCode.FIX_LOOP)
    still = state.open_blocking()
    if not still:
        return Judged(Verdict.CLEAN)
    if state.rounds.fix >= max_fix_rounds:
        return Judged(Verdict.OUT_OF_ROUNDS, stop_code(still))
    return Judged(Verdict.FIX)


def rereview_lenses(state: IssueState) -> tuple[str, ...]:
    """The lenses with open findings, which re-review the fix (FIX-2, FIX-10)."""
    raised = {f.lens for f in state.open_blocking()}
    return tuple(lens for lens in LENS_ORDER if lens in raised) + tuple(
        sorted(raised - set(LENS_ORDER))
    )


def _within(found: replies.Finding, fix_files: Collection[str] | None) -> replies.Finding:
    if fix_files is None or found.severity == "nit" or found.file in fix_files:
        return found
    note = " (raised on a file the fix did not touch, so not acted on)"
    return found.model_copy(update={"severity": "nit", "evidence": found.evidence + note})


def apply_rereview(
    state: IssueState,
    lens: str,
    reply: replies.RereviewReply,
    fix_files: Collection[str] | None = None,
) -> tuple[IssueState, tuple[Raw, ...]]:
    """One lens's re-review: rulings on disputes, what is still open, what the fix introduced.

    An upheld dispute withdraws the finding; a refused one reopens it for the fixer, who
    may not dispute it again. Findings of this lens not named still open are resolved;
    a resolved one named again came back. A new blocking finding on a file the fix did
    not touch (`fix_files`) cannot be one the fix introduced: it is kept as a nit (FIX-2).
    Returns the new state and the new nits.
    """
    rulings = {r.finding: r.upheld for r in reply.rulings}
    still = set(reply.still_open)
    updated = []
    for f in state.findings:
        number = number_of(f.id)
        status = f.status
        if f.lens == lens and f.severity == "blocking":
            if f.status == "disputed":
                status = "resolved" if rulings.get(number, False) else "open"
            elif f.status == "open":
                status = "open" if number in still else "resolved"
            elif f.status == "resolved" and number in still:
                status = "reopened"
        updated.append(f.model_copy(update={"status": status}))
    state = state.model_copy(update={"findings": tuple(updated)})
    raws = tuple(Raw(lens, _within(found, fix_files)) for found in reply.findings)
    blocking = [r for r in raws if r.finding.severity == "blocking"]
    first = next_number(state.findings)
    new = [_finding(first + i, lens, r.finding) for i, r in enumerate(blocking)]
    return add_findings(state, new), nits(raws)
