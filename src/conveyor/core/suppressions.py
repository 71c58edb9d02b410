"""New suppressions in a change, and the rules that allow one.

`found_in` reads the lines a diff adds (`added_lines` parses `git diff -U0`) with the
markers of each file's ecosystem (`core.suppression_markers`). A skip or xfail marker
counts on a test the base had (the test a mark decorates, the next definition, or a skip
call sits in, the one above), and when no test is near it (module level, in a helper or
a conftest: it applies to whatever imports it); not on a test the change adds. A focus
(`it.only`) always counts.

A suppression blocks unless a rule allows it (`allowed_by`), in this order:

1. the spec writer's own commits added it (their suppressions are kept with the spec's
   tests, `SpecTests.suppressions`): the spec's check and its readers saw it;
2. the project accepts it in any change (`[judges] allow_suppressions` names its marker);
3. the spec asked for it: the spec's text quotes its marker with the codes it names
   (`noqa: E501`), or the whole added line;
4. a person accepted it: the issue stopped `checks-config` showing it, and the person
   removed the label (its key is in the state's `checks_accepted`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from conveyor.core.diff_lines import added_lines as file_added_lines
from conveyor.core.diff_lines import parse_diff
from conveyor.core.suppression_markers import DEFINITIONS, MARKERS, Marker, ecosystem_of

_NEAR = 3
_ABOVE = 60


@dataclass(frozen=True)
class Suppression:
    """One suppression a change adds: where, its marker as shown, what it silences, the line."""

    path: str
    line: int
    marker: str
    kind: str
    text: str
    codes: str = ""

    @property
    def key(self) -> str:
        """What a person's acceptance names: the file, the marker and the line's text."""
        raw = f"suppression\0{self.path}\0{self.marker}\0{self.text.strip()}"
        return hashlib.sha256(raw.encode()).hexdigest()[:16]

    def shown(self) -> str:
        """One line for people: `path:line: marker: the line`."""
        return f"{self.path}:{self.line}: `{self.marker}`: {self.text.strip()[:160]}"


def added_lines(diff: str) -> dict[str, list[tuple[int, str]]]:
    """The lines `git diff -U0 --no-renames` adds, by file, with their line numbers at the head
    (read by `core.diff_lines`, the one reader of a diff's hunks)."""
    return {f.path: list(lines) for f in parse_diff(diff) if (lines := file_added_lines(f))}


def _shown(marker: Marker, raw: str) -> str:
    """The marker as written: `noqa: E501`, `nolint:errcheck`, `type: ignore[x]`, `@ts-ignore`."""
    if not raw:
        return marker.name
    if marker.kind in ("skip", "focus"):
        return f"{marker.name}: {raw}"
    raw = re.sub(r"\s+", " ", re.sub(r"\s+:", ":", raw)).strip()
    if raw.startswith(("[", "=", "(", ":")) or marker.name.endswith(("-", "(")):
        return f"{marker.name}{raw}"
    return f"{marker.name} {raw}"


def _same(a: str, b: str) -> bool:
    """Two markers that differ only in spaces are the same."""
    return re.sub(r"\s+", "", a) == re.sub(r"\s+", "", b)


def _marked(path: str, number: int, text: str) -> list[Suppression]:
    ecosystem = ecosystem_of(path)
    found: list[Suppression] = []
    taken: list[tuple[int, int]] = []
    for marker in MARKERS.get(ecosystem or "", ()):
        for match in marker.pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            taken.append(match.span())
            raw = (match.groupdict().get("token") or "").rstrip()
            token = raw.lstrip(":=").strip()
            found.append(Suppression(path, number, _shown(marker, raw), marker.kind, text, token))
    return found


def _test_name(lines: list[str], index: int, ecosystem: str) -> str:
    """The test a skip marker on line `index` (0-based) applies to, "" when none is near."""
    pattern = DEFINITIONS.get(ecosystem)
    if pattern is None:
        return ""
    nearby = [
        *range(index, min(len(lines), index + _NEAR + 1)),
        *range(index - 1, max(-1, index - _ABOVE), -1),
    ]
    for at in nearby:
        if found := pattern.search(lines[at]):
            return found.group("name") or found.groupdict().get("cls") or ""
    return ""


def _on_existing_test(found: Suppression, head: str, base: str | None) -> bool:
    """Whether a skip applies to a test the base had; one near no test (module level, in a
    helper or a conftest) applies to whatever imports it, and counts."""
    ecosystem = ecosystem_of(found.path) or ""
    name = _test_name(head.splitlines(), found.line - 1, ecosystem)
    pattern = DEFINITIONS.get(ecosystem)
    if not name or pattern is None:
        return True
    if base is None:
        return False
    return any(
        (m.group("name") or m.groupdict().get("cls")) == name
        for line in base.splitlines()
        if (m := pattern.search(line))
    )


def found_in(
    diff: str, head_text: Callable[[str], str | None], base_text: Callable[[str], str | None]
) -> tuple[Suppression, ...]:
    """Every suppression the diff adds; a skip only on a test the base had."""
    found: list[Suppression] = []
    for path, lines in added_lines(diff).items():
        marked = [s for number, text in lines for s in _marked(path, number, text)]
        if any(s.kind == "skip" for s in marked):
            head, base = head_text(path) or "", base_text(path)
            marked = [s for s in marked if s.kind != "skip" or _on_existing_test(s, head, base)]
        found += marked
    return tuple(found)


@dataclass(frozen=True)
class SuppressionRules:
    """What allows a suppression: the spec's own, the project's list, the spec's text, a person."""

    spec_keys: Collection[str] = ()
    project: Collection[str] = ()
    spec_text: str = ""
    accepted: Collection[str] = ()


def allowed_by(found: Suppression, rules: SuppressionRules) -> str:
    """The rule that allows `found`, "" when none does."""
    if found.key in rules.spec_keys:
        return "the spec writer's own"
    if any(_same(found.marker, allowed) for allowed in rules.project):
        return "judges.allow_suppressions"
    coded = bool(found.codes) and found.kind not in ("skip", "focus")
    quoted = coded and re.sub(r"\s+", "", found.marker) in re.sub(r"\s+", "", rules.spec_text)
    if quoted or (len(found.text.strip()) > 12 and found.text.strip() in rules.spec_text):
        return "the spec asks for it"
    if found.key in rules.accepted:
        return "a person accepted it"
    return ""


def blocking(
    found: Sequence[Suppression], rules: SuppressionRules
) -> tuple[tuple[Suppression, ...], Mapping[str, str]]:
    """The suppressions no rule allows, and each allowed one's rule (by key)."""
    allowed = {s.key: why for s in found if (why := allowed_by(s, rules))}
    return tuple(s for s in found if s.key not in allowed), allowed
