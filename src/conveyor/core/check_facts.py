"""What a change does to the checks, as facts every reader gets: deterministic, from git.

The review lenses, acceptance and security read it at the top of the diff they are given,
and the checks comment ends with it: check configuration changed (with its diff),
suppressions added (and the rule that allows each, if one does), tests added and removed,
skip, xfail and focus markers added, and the spec's tests by name. The deterministic rules
may allow a change; this is what a reader needs to object to it all the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from conveyor.core.config_changes import ConfigChange
from conveyor.core.suppression_markers import DEFINITIONS, ecosystem_of
from conveyor.core.suppressions import Suppression

TITLE = "What this change does to the checks"
MAX_NAMES = 30
_TEST_NAME = re.compile(r"^(?:test|Test)")


def defined_tests(path: str, text: str | None) -> tuple[str, ...]:
    """The test definitions in a test file, by the ecosystem's definition pattern.

    Python and Go count names starting with `test`/`Test`; other ecosystems every title.
    """
    ecosystem = ecosystem_of(path) or ""
    pattern = DEFINITIONS.get(ecosystem)
    if text is None or pattern is None:
        return ()
    names = [
        m.group("name") or m.groupdict().get("cls") or ""
        for line in text.splitlines()
        if (m := pattern.search(line))
    ]
    if ecosystem in ("python", "go"):
        names = [n for n in names if _TEST_NAME.match(n)]
    return tuple(dict.fromkeys(n for n in names if n))


@dataclass(frozen=True)
class CheckFacts:
    """The facts of one change (base..head) about what judges it."""

    config: tuple[ConfigChange, ...] = ()
    accepted: frozenset[str] = frozenset()
    suppressions: tuple[Suppression, ...] = ()
    allowed: Mapping[str, str] = field(default_factory=dict)
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    spec_tests: tuple[str, ...] = ()


def _names(names: Sequence[str]) -> str:
    shown = ", ".join(names[:MAX_NAMES])
    return shown + (f" (and {len(names) - MAX_NAMES} more)" if len(names) > MAX_NAMES else "")


def _config_lines(facts: CheckFacts) -> list[str]:
    if not facts.config:
        return ["- check configuration changed: none"]
    lines = ["- check configuration changed:"]
    for change in facts.config:
        note = " — accepted by a person" if change.key in facts.accepted else ""
        lines.append(f"  - {change.what}{note}")
        lines += [f"      {line}" for line in change.diff().splitlines()]
    return lines


def _marker_lines(
    title: str, found: Sequence[Suppression], allowed: Mapping[str, str]
) -> list[str]:
    if not found:
        return [f"- {title}: none"]
    lines = [f"- {title}:"]
    for item in found:
        why = allowed.get(item.key, "")
        lines.append(f"  - {item.shown()}" + (f" (allowed: {why})" if why else ""))
    return lines


def render(facts: CheckFacts) -> str:
    """The section as plain text (it sits in a diff file and in the checks comment)."""
    skips = [s for s in facts.suppressions if s.kind in ("skip", "focus")]
    silences = [s for s in facts.suppressions if s.kind not in ("skip", "focus")]
    lines = [f"## {TITLE}", ""]
    lines += _config_lines(facts)
    lines += _marker_lines("suppressions added", silences, facts.allowed)
    lines += _marker_lines(
        "skip, xfail or focus markers added on existing tests", skips, facts.allowed
    )
    lines.append(f"- tests added: {_names(facts.added) if facts.added else 'none'}")
    lines.append(f"- tests removed: {_names(facts.removed) if facts.removed else 'none'}")
    spec = _names(facts.spec_tests) if facts.spec_tests else "none kept by name"
    lines.append(f"- the spec's tests, which must run and pass by name: {spec}")
    return "\n".join(lines) + "\n"
