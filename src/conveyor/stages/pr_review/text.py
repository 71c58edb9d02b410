"""What a review of a person's PR says on the forge: its body, its inline comments, and the
note left when it could not run. Pure text from the judged list.

Every text a session wrote is data here: hidden markup and control characters are dropped
(a model cannot hide words from the person reading, nor forge the review's own hidden
record, which is always the body's last), each is cut to `TEXT_CHARS`, at most
`MOST_INLINE` findings go on lines, and the body stays under GitHub's 65,536 characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from conveyor.core.diff_lines import FileDiff, shown_span
from conveyor.core.issue_text import strip_hidden
from conveyor.core.pr_review_record import Remembered, Status, marker, remember, resolve
from conveyor.core.review_judge import Judged
from conveyor.core.review_replies import PrReviewReply
from conveyor.stages.effects_pr_review import Placed
from conveyor.stages.pr_review.table import PrRun

TEXT_CHARS = 2_000  # one claim, evidence, suggestion, wording or the summary
MOST_INLINE = 50  # findings placed on lines; the rest are listed in the body
BODY_CHARS = 38_000  # the body before its record (at most ~20,000): GitHub takes 65,536
MARKS = {"blocking": "🛑 blocking", "major": "⚠️ major", "minor": "minor", "nit": "nit"}
STATUS = {
    "resolved": "✅ resolved by the push",
    "open": "still open",
    "unchanged": "still open (its lines did not change)",
}


def said(text: str, limit: int = TEXT_CHARS) -> str:
    """A session's text as the review shows it: no hidden markup, at most `limit` characters."""
    clean = strip_hidden(text).strip()
    return clean if len(clean) <= limit else clean[: limit - 1].rstrip() + "…"


def _where(j: Judged) -> str:
    path = said(j.file, 300).replace("`", "'")
    if j.line is None:
        return f"`{path}`"
    span = f"{j.line}-{j.end_line}" if j.end_line and j.end_line != j.line else f"{j.line}"
    return f"`{path}:{span}`"


def _words(run: PrRun, number: int) -> str | None:
    reply = run.wording
    if reply is None:
        return None
    words = next((w.comment for w in reply.wordings if w.finding == number), None)
    return said(words) if words and said(words) else None


def comment_text(run: PrRun, number: int, j: Judged) -> str:
    """One finding as its inline comment (or its entry in the body)."""
    head = f"**{MARKS.get(j.severity, j.severity)}** · {said(j.claim)}"
    parts = [head, _words(run, number) or said(j.evidence)]
    if said(j.suggestion):
        parts.append(f"Suggestion: {said(j.suggestion)}")
    parts.append(f"_Found by: {', '.join(j.angles)}_")
    return "\n\n".join(p for p in parts if p)


def place(run: PrRun) -> tuple[tuple[Placed, ...], tuple[int, ...]]:
    """The inline comments of the judged findings that sit on lines the diff shows, and the
    numbers of those that do not (they go in the body)."""
    files: tuple[FileDiff, ...] = run.inputs.files
    placed: list[Placed] = []
    off: list[int] = []
    for number, j in enumerate(run.judged, start=1):
        span = None
        if j.line is not None and len(placed) < MOST_INLINE:
            span = shown_span(files, j.file, j.line, j.end_line or j.line)
        if span is None:
            off.append(number)
            continue
        first, last = span
        start = first if first < last else None
        placed.append(Placed(j.file, last, comment_text(run, number, j), "RIGHT", start))
    return tuple(placed), tuple(off)


def event_of(run: PrRun) -> Literal["COMMENT", "REQUEST_CHANGES"]:
    """COMMENT, or REQUEST_CHANGES where configured and a finding is blocking."""
    blocking = any(j.severity == "blocking" for j in run.judged)
    return "REQUEST_CHANGES" if run.inputs.request_changes and blocking else "COMMENT"


def _summary(run: PrRun) -> str:
    reply: PrReviewReply | None = run.wording
    if reply is not None and said(reply.summary):
        return said(reply.summary)
    if not run.judged:
        return "No problems found from the angles this review looked from."
    return f"{len(run.judged)} finding(s), most severe first."


def _earlier(run: PrRun) -> list[str]:
    earlier = run.inputs.earlier
    if earlier is None or not earlier.findings:
        return []
    marks: Sequence[tuple[Remembered, Status]] = resolve(
        earlier.findings, run.judged, run.inputs.touched
    )
    lines = [f"**Since the review of `{earlier.head[:12]}`**"]
    for found, status in marks:
        where = said(found.file, 300).replace("`", "'")
        lines.append(f"- {STATUS[status]}: `{where}:{found.line or '-'}` {said(found.claim, 300)}")
    return ["\n".join(lines)]


def _notes(run: PrRun) -> list[str]:
    inputs, notes = run.inputs, []
    if inputs.cut_note:
        notes.append(f"This review read a cut diff. {inputs.cut_note}")
    if inputs.check_files:
        named = ", ".join(f"`{p}`" for p in inputs.check_files[:20])
        notes.append(
            f"This PR changes files that the project's checks read ({named}): its tests, "
            "linters, CI and the agents reviewing it ran by the PR's own rules, not the base's. "
            "Review those changes before trusting green checks or this review."
        )
    if run.failed_angles:
        notes.append(f"Angles that could not run: {', '.join(run.failed_angles)}.")
    if run.head_now and run.head_now != inputs.head_sha:
        notes.append(
            f"The PR moved to `{run.head_now[:12]}` while this review ran; it is of "
            f"`{inputs.head_sha[:12]}`, and the next review looks at what changed."
        )
    if inputs.rewritten:
        notes.append("The branch was rewritten since the last review: earlier findings no "
                     "angle raised again count as resolved.")  # fmt: skip
    if inputs.withheld:
        notes.append(f"{inputs.withheld} text(s) by users who are not trusted were not read.")
    if inputs.held:
        named = "; ".join(said(h, 300) for h in inputs.held[:20])
        notes.append(
            "Not read, for an edit by someone who is not trusted (a trusted person's own edit "
            f"makes a text theirs again): {named}."
        )
    return ["**Notes**\n" + "\n".join(f"- {n}" for n in notes)] if notes else []


def review_body(run: PrRun, off_diff: Sequence[int]) -> str:
    """The review's body: the summary, the list, the notes, and the hidden record."""
    size = f"size {run.size}" if run.size else "unsized"
    looked = ", ".join(run.angles) or "none"
    parts = [
        f"### Review of `{run.inputs.head_sha[:12]}` ({size}; angles: {looked})",
        _summary(run),
    ]
    if run.judged:
        lines = []
        for number, j in enumerate(run.judged, start=1):
            where = "" if number in off_diff else " (on the line)"
            lines.append(
                f"{number}. **{MARKS.get(j.severity, j.severity)}** {_where(j)}{where}: "
                f"{said(j.claim, 300)} _({', '.join(j.angles)})_"
            )
        parts.append("**Findings**\n" + "\n".join(lines))
    parts += _earlier(run) + _notes(run)
    outside = [n for n in off_diff if 0 < n <= len(run.judged)]
    if outside:
        parts.insert(
            3 if run.judged else 2, _outside(run, outside, BODY_CHARS - len("".join(parts)))
        )
    text = "\n\n".join(parts)
    if len(text) > BODY_CHARS:
        text = (
            text[: BODY_CHARS - 60].rstrip()
            + "\n\n[Cut by Conveyor: the review is longer than GitHub takes.]"
        )
    return text + "\n\n" + marker(run.inputs.head_sha, remember(run.judged))


def _outside(run: PrRun, numbers: Sequence[int], room: int) -> str:
    """The findings no line carries, each whole, as many as the room allows."""
    shown: list[str] = []
    used = 0
    for n in numbers:
        text = comment_text(run, n, run.judged[n - 1])
        if used + len(text) > room:
            shown.append(f"[{len(numbers) - len(shown)} more not shown: the review is full.]")
            break
        shown.append(f"{n}. {text}")
        used += len(text) + 7
    return "**Not on a line of the diff**\n\n" + "\n\n---\n\n".join(shown)


def failure_text(run: PrRun) -> str:
    """The note on the PR when the review could not run."""
    return (
        f"Conveyor could not review `{run.inputs.head_sha[:12]}` of this PR: {said(run.note)}. "
        "Nothing was posted as a review. Ask again (add the label) to try once more."
    )
