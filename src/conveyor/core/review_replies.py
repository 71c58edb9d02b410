"""Reply models of the sized review's sessions: the distiller's brief and size, one angle's
findings, and the reviewer's wording of the judged list (registered with the others)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from conveyor.core.replies import Reply, register

# Most severe first: the order the judge keeps and a review lists findings in.
AngleSeverity = Literal["blocking", "major", "minor", "nit"]
SEVERITIES: tuple[AngleSeverity, ...] = ("blocking", "major", "minor", "nit")
Size = Literal["xs", "s", "m", "l", "xl"]
SIZES: tuple[Size, ...] = ("xs", "s", "m", "l", "xl")


@register("brief")
class BriefReply(Reply):
    """The distiller's reply: what the change does and means to do, and its size."""

    brief: str
    size: Size
    risky_paths: list[str]
    summary: str


class AngleFinding(Reply):
    """One problem an angle found: its file and lines (`end_line` for a range), the claim in
    one sentence, the evidence for it and what to do."""

    severity: AngleSeverity
    file: str
    line: Annotated[int, Field(ge=1)] | None
    end_line: Annotated[int, Field(ge=1)] | None
    claim: str
    evidence: str
    suggestion: str


@register("angle")
class AngleReply(Reply):
    """One angle's findings; an empty list means it found nothing from its angle."""

    angle: str
    findings: list[AngleFinding]
    summary: str


class Wording(Reply):
    """How the reviewer words finding `finding` (its number in the judged list) on the PR."""

    finding: Annotated[int, Field(ge=1)]
    comment: str


@register("pr_review")
class PrReviewReply(Reply):
    """The reviewer's review: a summary for the review's body and each finding's wording
    (a finding it leaves out is still posted, in the judge's words)."""

    summary: str
    wordings: list[Wording]
