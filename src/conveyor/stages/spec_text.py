"""The spec's text: the end marker, its sections, Behaviour items and interface coverage."""

from __future__ import annotations

import re
from collections.abc import Sequence

from conveyor.core.replies import SPEC_END, Interface, SpecReply

SECTIONS = (
    "Behaviour",
    "Out of scope",
    "Design",
    "Test interfaces",
    "Tests",
    "Wiki updates",
    "Assumptions and risks",
    "Sources",
)
MAX_PARTS = 5
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+(.*)$")
_MARKUP = re.compile(r"[\s`*_~\[\]]")
_NO_UPDATES = re.compile(r"^[\W_]*(none|n/?a|nothing|no wiki updates?)[\W_]*$", re.IGNORECASE)


def has_end_marker(spec: str) -> bool:
    """Whether the spec's last non-empty line is the end marker (SPEC-38)."""
    lines = [line for line in spec.splitlines() if line.strip()]
    return bool(lines) and lines[-1].strip() == SPEC_END


def strip_end_marker(spec: str) -> str:
    """The spec without its end marker, as it is saved, posted and asked (SPEC-39)."""
    lines = spec.rstrip().splitlines()
    if lines and lines[-1].strip() == SPEC_END:
        lines = lines[:-1]
    return "\n".join(lines).rstrip() + "\n"


def section(spec: str, name: str) -> str | None:
    """The body of the first heading called `name` (case-insensitive), up to a peer heading."""
    lines = spec.splitlines()
    for i, line in enumerate(lines):
        found = _HEADING.match(line)
        if found is None or found[2].strip().casefold() != name.casefold():
            continue
        level = len(found[1])
        body: list[str] = []
        for rest in lines[i + 1 :]:
            other = _HEADING.match(rest)
            if other is not None and len(other[1]) <= level:
                break
            body.append(rest)
        return "\n".join(body)
    return None


def behaviour_items(spec: str) -> tuple[tuple[str, str], ...]:
    """The top-level Behaviour items in order: (the item's line, with its sub-bullets folded in)."""
    body = section(spec, "Behaviour") or ""
    items: list[list[str]] = []
    for line in body.splitlines():
        if not line.strip():
            continue
        top = _ITEM.match(line)
        if top is not None and not line[:1].isspace():
            items.append([top[1]])
        elif items:
            items[-1].append(_ITEM.sub(r"\1", line.strip()))
    return tuple((parts[0], " ".join(parts)) for parts in items)


def _plain(text: str) -> str:
    """Text without whitespace and markdown marks, for comparing items (SPEC-63)."""
    return _MARKUP.sub("", text).casefold()


def coverage_gaps(spec: str, interfaces: Sequence[Interface]) -> tuple[str, ...]:
    """Behaviour items no interface covers, each named by number and its first 60 characters.

    An item is covered when some interface's behaviour equals it, alone or with its
    sub-bullets, once whitespace and markdown marks are dropped from both (SPEC-63, SPEC-93).
    """
    covered = {_plain(b) for i in interfaces for b in i.behaviours}
    return tuple(
        f"Behaviour item {number} ({line[:60]!r}) is covered by no interface"
        for number, (line, full) in enumerate(behaviour_items(spec), 1)
        if _plain(line) not in covered and _plain(full) not in covered
    )


def spec_findings(reply: SpecReply, depth: int) -> tuple[str, ...]:
    """What is wrong with a spec reply; empty when it may go on (SPEC-41, SPEC-62, SPEC-94)."""
    if reply.status == "handoff":
        return ()
    found: list[str] = []
    if not has_end_marker(reply.spec):
        found.append(f"spec: the last line must be the end marker {SPEC_END}")
    if reply.decision == "ready" and reply.wiki_only and not reply.no_tests_reason:
        found.append("no_tests_reason: a wiki_only spec says why no test is written (SPEC-115)")
    if reply.decision == "ready":
        if not reply.interfaces and not reply.no_tests_reason:
            found.append("interfaces: a ready spec needs at least one, or no_tests_reason")
        elif not reply.no_tests_reason:
            found += coverage_gaps(reply.spec, reply.interfaces)
    elif reply.decision == "needs-info" and not reply.questions:
        found.append("questions: needs-info needs 1 to 5 questions")
    elif reply.decision == "split" and depth == 0:
        found += split_findings(reply)
    return tuple(found)


def lists_wiki_updates(spec: str) -> bool:
    """Whether the spec's Wiki updates section names updates (it is not empty or `None.`)."""
    body = (section(spec, "Wiki updates") or "").strip()
    return bool(body) and _NO_UPDATES.match(body) is None


def wiki_findings(
    *, has_wiki: bool, wiki_changed: bool, wiki_only: bool, lists_updates: bool
) -> tuple[str, ...]:
    """The spec's Wiki updates against what the spec writer committed to the wiki (SPEC-119):
    listed updates need wiki pages; a `wiki_only` reply needs a wiki (SPEC-115, SPEC-116)."""
    if wiki_only:
        return wiki_only_findings(has_wiki=has_wiki, wiki_changed=wiki_changed)
    if has_wiki and lists_updates and not wiki_changed:
        return (
            "Wiki updates: the spec lists wiki updates but no wiki page was committed; write "
            "them in the wiki checkout and commit them there",
        )
    return ()


def wiki_only_findings(*, has_wiki: bool, wiki_changed: bool) -> tuple[str, ...]:
    """What keeps a `wiki_only` reply from the wiki-only path (SPEC-115, SPEC-116)."""
    if not has_wiki:
        return (
            "wiki_only: this repository has no wiki checkout (the config's `wiki` is off, "
            "or the wiki has no page yet)",
        )
    if not wiki_changed:
        return (
            "nothing-to-build: wiki_only is set but no wiki page was committed; commit the "
            "spec's Wiki updates in the wiki checkout",
        )
    return ()


def split_findings(reply: SpecReply) -> tuple[str, ...]:
    """A split needs 2 to 5 parts, each waiting only for earlier parts (SPEC-30)."""
    found: list[str] = []
    parts = reply.sub_issues
    if not 2 <= len(parts) <= MAX_PARTS:
        found.append(f"sub_issues: a split needs 2 to {MAX_PARTS} parts, got {len(parts)}")
    for i, part in enumerate(parts):
        if any(not 0 <= a < i for a in part.after):
            found.append(f"sub_issues.{i}.after: may only name earlier parts, got {part.after}")
        if not part.title.strip():
            found.append(f"sub_issues.{i}.title: empty")
    return tuple(found)
