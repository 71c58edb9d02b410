"""The sized review's judge: what several angles found, merged into one list (BB-REV-1).

Deterministic code, not a session. Two findings are the same when they are about the same
file, their lines meet (or lie within `NEAR` lines of each other, or neither names a line)
and their claims say the same thing (word overlap of at least `SAME_CLAIM`). Sameness is
closed over chains, so the result never depends on the order the angles replied in. Each
group keeps its most severe finding (ties: the one with the most evidence, then by text)
and records every angle that found it; the list is ordered most severe first, then by file
and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from conveyor.core.review_replies import SEVERITIES, AngleFinding, AngleSeverity

NEAR = 3  # lines apart that still count as the same place
SAME_CLAIM = 0.5  # shared words over the smaller claim's words
_WORD = re.compile(r"[a-z0-9_]+")
# Words that say nothing about which problem it is.
_FILLER = frozenset({
    "a", "an", "the", "is", "are", "was", "be", "been", "to", "of", "in", "on", "at", "for",
    "and", "or", "not", "no", "it", "its", "this", "that", "with", "as", "by", "from", "when",
    "if", "than", "then", "should", "must", "can", "may", "will", "does", "do",
})  # fmt: skip


@dataclass(frozen=True)
class Spotted:
    """One finding and the angle that found it."""

    angle: str
    finding: AngleFinding


@dataclass(frozen=True)
class Judged:
    """One finding of the merged list, with every angle that found it (sorted)."""

    severity: AngleSeverity
    file: str
    line: int | None
    end_line: int | None
    claim: str
    evidence: str
    suggestion: str
    angles: tuple[str, ...]

    @property
    def lines(self) -> tuple[int, int] | None:
        """The first and last line it is about, or None for the whole file."""
        return _span(self.line, self.end_line)


def rank(severity: str) -> int:
    """0 for the most severe; an unknown severity ranks last."""
    return SEVERITIES.index(severity) if severity in SEVERITIES else len(SEVERITIES)


def _span(line: int | None, end: int | None) -> tuple[int, int] | None:
    if line is None:
        return None
    last = line if end is None else end
    return (min(line, last), max(line, last))


def _path(file: str) -> str:
    return file.strip().removeprefix("./").removeprefix("a/").removeprefix("b/")


def _words(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _FILLER)


def _near(a: AngleFinding, b: AngleFinding) -> bool:
    """Whether two findings are about the same place of the same file."""
    if _path(a.file) != _path(b.file):
        return False
    one, two = _span(a.line, a.end_line), _span(b.line, b.end_line)
    if one is None or two is None:
        return one is None and two is None
    return one[0] <= two[1] + NEAR and two[0] <= one[1] + NEAR


def _same_claim(a: frozenset[str], b: frozenset[str]) -> bool:
    smaller = min(len(a), len(b))
    if smaller == 0:
        return a == b
    return len(a & b) / smaller >= SAME_CLAIM


def same_claim(a: str, b: str) -> bool:
    """Whether two claims say the same thing (the judge's word overlap)."""
    return _same_claim(_words(a), _words(b))


def _groups(spotted: Sequence[Spotted]) -> list[list[int]]:
    """Indexes of `spotted` in groups of the same finding (closed over chains)."""
    parent = list(range(len(spotted)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    claims = [_words(s.finding.claim) for s in spotted]
    for i in range(len(spotted)):
        for j in range(i + 1, len(spotted)):
            a, b = spotted[i].finding, spotted[j].finding
            if _near(a, b) and _same_claim(claims[i], claims[j]):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(spotted)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def _preference(spot: Spotted) -> tuple[object, ...]:
    """The order that picks a group's kept finding: most severe, most evidence, then text."""
    f = spot.finding
    return (
        rank(f.severity),
        -len(f.evidence),
        f.claim,
        f.evidence,
        f.suggestion,
        spot.angle,
        f.line or 0,
        f.end_line or 0,
    )


def _order(judged: Judged) -> tuple[object, ...]:
    return (
        rank(judged.severity),
        _path(judged.file),
        judged.line or 0,
        judged.end_line or 0,
        judged.claim,
        judged.evidence,
        judged.suggestion,
        judged.angles,
    )


def judge(spotted: Iterable[Spotted]) -> tuple[Judged, ...]:
    """One list from the angles' findings: duplicates merged, the most severe kept, the
    angles that found each recorded; the same list whatever order they came in."""
    found = list(spotted)
    out: list[Judged] = []
    for group in _groups(found):
        members = [found[i] for i in group]
        kept = min(members, key=_preference).finding
        angles = tuple(sorted({m.angle for m in members}))
        out.append(
            Judged(
                kept.severity,
                _path(kept.file),
                kept.line,
                kept.end_line,
                kept.claim,
                kept.evidence,
                kept.suggestion,
                angles,
            )
        )
    return tuple(sorted(out, key=_order))
