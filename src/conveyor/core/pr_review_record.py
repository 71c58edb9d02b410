"""What a posted review of a person's PR remembers, and how a re-review reads it.

The review's body carries a hidden marker with the head it reviewed and its findings, so
the next review (after a push) knows them from the forge alone; only a review the
pipeline's account wrote is believed. A re-review marks each earlier finding: `open` when
an angle raised it again, `resolved` when the push since replaced or removed the lines it
was about and no angle raised it again, `unchanged` when the push left its lines alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

from conveyor.core.diff_lines import Span
from conveyor.core.review_judge import NEAR, Judged, same_claim

MARKER = "<!-- conveyor:pr-review "
_FOUND = re.compile(r"<!-- conveyor:pr-review (\{.*?\}) -->", re.DOTALL)
MAX_KEPT = 60  # findings the marker remembers
CLAIM_CHARS = 200
Status = Literal["open", "resolved", "unchanged"]


@dataclass(frozen=True)
class Remembered:
    """A finding as a posted review remembers it."""

    number: int
    severity: str
    file: str
    line: int | None
    end_line: int | None
    claim: str


@dataclass(frozen=True)
class Recorded:
    """A posted review: the head it reviewed and its findings."""

    head: str
    findings: tuple[Remembered, ...]


def remember(judged: Sequence[Judged]) -> tuple[Remembered, ...]:
    """The findings a review's marker keeps, numbered as the review lists them."""
    return tuple(
        Remembered(i, j.severity, j.file, j.line, j.end_line, j.claim[:CLAIM_CHARS])
        for i, j in enumerate(judged[:MAX_KEPT], start=1)
    )


def marker(head: str, findings: Sequence[Remembered]) -> str:
    """The hidden marker a review's body ends with (no `-->` can appear inside it)."""
    data = {"head": head, "findings": [asdict(f) for f in findings]}
    text = json.dumps(data, separators=(",", ":")).replace("--", "\\u002d\\u002d")
    return f"{MARKER}{text} -->"


def read_marker(body: str) -> Recorded | None:
    """The review a body's last marker records (the job appends it after every text a session
    wrote), or None (no marker, or not one we wrote)."""
    found = list(_FOUND.finditer(body))
    if not found:
        return None
    try:
        data = json.loads(found[-1].group(1))
        findings = tuple(Remembered(**item) for item in data["findings"])
        head = str(data["head"])
    except (ValueError, TypeError, KeyError):
        return None
    return Recorded(head, findings)


def _touched_near(found: Remembered, spans: Mapping[str, tuple[Span, ...]]) -> bool:
    ranges = spans.get(found.file, ())
    if found.line is None:
        return bool(ranges)
    first, last = found.line, found.end_line or found.line
    return any(low <= last + NEAR and first <= high + NEAR for low, high in ranges)


def resolve(
    earlier: Sequence[Remembered],
    new: Sequence[Judged],
    touched: Mapping[str, tuple[Span, ...]],
) -> tuple[tuple[Remembered, Status], ...]:
    """Each earlier finding's status after a push: raised again (same file and claim),
    resolved (its lines changed since and nobody raised it), or unchanged."""
    out: list[tuple[Remembered, Status]] = []
    for found in earlier:
        again = any(j.file == found.file and same_claim(j.claim, found.claim) for j in new)
        if again:
            out.append((found, "open"))
        elif _touched_near(found, touched):
            out.append((found, "resolved"))
        else:
            out.append((found, "unchanged"))
    return tuple(out)
