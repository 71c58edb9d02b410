"""What the review stages post on the PR, as markdown (REV-6, REV-9, FIX-8)."""

from __future__ import annotations

from collections.abc import Sequence

from conveyor.core import replies
from conveyor.core.findings import Raw
from conveyor.core.review_replies import AngleReply
from conveyor.core.state import Finding
from conveyor.stages.prompts.review import finding_lines


def _where(file: str | None, line: int | None) -> str:
    if not file:
        return "the change"
    return f"`{file}:{line}`" if line else f"`{file}`"


def raw_lines(found: Sequence[replies.Finding]) -> str:
    """A reviewer's findings, one bullet each, blocking first."""
    ordered = sorted(found, key=lambda f: f.severity != "blocking")
    return "\n".join(
        f"- **{f.severity}** {_where(f.file, f.line)}: {f.evidence.strip()}"
        + (f"\n  Suggestion: {f.suggestion.strip()}" if f.suggestion.strip() else "")
        for f in ordered
    )


def lens_comment(lens: str, reply: replies.ReviewReply | replies.RereviewReply) -> str:
    """One reviewer's own comment: its summary and its findings (or rulings)."""
    if isinstance(reply, replies.ReviewReply):
        title = f"### Review: {lens}"
        body = raw_lines(reply.findings) or "No findings: clean through this lens."
        return f"{title}\n\n{reply.summary.strip()}\n\n{body}"
    parts = [f"### Re-review: {lens}", reply.summary.strip()]
    for ruling in reply.rulings:
        verdict = "upheld (the finding goes)" if ruling.upheld else "not upheld (still to fix)"
        parts.append(f"- Dispute of F{ruling.finding}: {verdict}. {ruling.reason.strip()}")
    if reply.still_open:
        parts.append("Still open: " + ", ".join(f"F{n}" for n in reply.still_open))
    if reply.findings:
        parts.append("Introduced by the fix:\n" + raw_lines(reply.findings))
    return "\n\n".join(p for p in parts if p)


def angle_comment(angle: str, reply: object) -> str:
    """One angle's own comment in a sized review: its summary and findings, or that it failed."""
    if not isinstance(reply, AngleReply):
        return f"### Review: {angle}\n\nThis angle could not run (its session failed twice)."
    lines = "\n".join(
        f"- **{f.severity}** {_where(f.file, f.line)}: {f.claim.strip()} {f.evidence.strip()}"
        for f in reply.findings
    )
    return f"### Review: {angle}\n\n{reply.summary.strip()}\n\n{lines or 'No findings.'}"


def findings_comment(findings: Sequence[Finding], round_now: int, rounds: int) -> str:
    """The numbered blocking findings the fixer gets next."""
    return (
        f"### Blocking findings (fix round {round_now + 1} of {rounds} next)\n\n"
        + finding_lines(findings)
    )


def nits_comment(nits: Sequence[Raw]) -> str:
    """Every nit of the round in one comment; nobody has to act on them (REV-6)."""
    lines = [
        f"- ({r.lens}) {_where(r.finding.file, r.finding.line)}: {r.finding.evidence.strip()}"
        for r in nits
    ]
    return "### Nits (not acted on)\n\n" + "\n".join(lines)
