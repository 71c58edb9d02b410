"""Repository path globs: matching, classifying changed paths, and whether two path sets overlap.

Globs use `/` as the separator: `*` and `?` stay within one folder level, `**` as a
whole segment spans any number of folders (zero included), `[abc]` and `[!abc]`
are character classes, and a trailing `/` means everything in that folder. Paths
and globs are relative to the repository root.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from conveyor.core.config import Paths

_WILD = re.compile(r"[*?\[]")


def normalise(path: str) -> str:
    """A repository path without a leading `./` or `/` and without empty segments."""
    parts = [p for p in path.split("/") if p not in ("", ".")]
    return "/".join(parts)


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := segment.find("]", i + 2)) != -1:
            body = segment[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            escaped = re.sub(r"([\\\[])", r"\\\1", body)
            out.append(f"[{'^/' if negate else ''}{escaped}]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@lru_cache(maxsize=1024)
def _glob_regex(glob: str) -> re.Pattern[str]:
    segments = _segments(glob)
    pattern = ""
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            if index == 0:
                pattern += ".*" if last else "(?:.*/)?"
            else:
                pattern += "(?:/.*)?" if last else "(?:/.*)?/"
            continue
        if index > 0 and not pattern.endswith(("/", "(?:.*/)?")):
            pattern += "/"
        pattern += _segment_regex(segment)
    return re.compile(pattern)


def matches(path: str, glob: str) -> bool:
    """Whether the repository path `path` matches `glob`."""
    return _glob_regex(glob).fullmatch(normalise(path)) is not None


def matches_any(path: str, globs: Iterable[str]) -> bool:
    """Whether `path` matches at least one of `globs`."""
    return any(matches(path, g) for g in globs)


@dataclass(frozen=True)
class Classified:
    """Changed paths split by kind; test globs win over non-code globs."""

    tests: frozenset[str]
    non_code: frozenset[str]
    code: frozenset[str]


def classify(changed_paths: Iterable[str], paths: Paths) -> Classified:
    """Split changed paths into test, non-code and code paths."""
    tests: set[str] = set()
    non_code: set[str] = set()
    code: set[str] = set()
    for raw in changed_paths:
        path = normalise(raw)
        if matches_any(path, paths.tests):
            tests.add(path)
        elif matches_any(path, paths.non_code):
            non_code.add(path)
        else:
            code.add(path)
    return Classified(frozenset(tests), frozenset(non_code), frozenset(code))


def _literal_ends(segment: str) -> tuple[str, str]:
    """The literal text before the first wildcard and after the last one."""
    wild = [m.start() for m in _WILD.finditer(segment)]
    if not wild:
        return segment, segment
    last_wild = max(segment.rfind("*"), segment.rfind("?"), segment.rfind("]"))
    return segment[: wild[0]], segment[last_wild + 1 :]


def _segments_may_meet(a: str, b: str) -> bool:
    """Whether one name can match both segment patterns (errs towards True)."""
    a_wild, b_wild = bool(_WILD.search(a)), bool(_WILD.search(b))
    if not a_wild and not b_wild:
        return a == b
    if not a_wild:
        return re.fullmatch(_segment_regex(b), a) is not None
    if not b_wild:
        return re.fullmatch(_segment_regex(a), b) is not None
    (a_head, a_tail), (b_head, b_tail) = _literal_ends(a), _literal_ends(b)
    heads_agree = a_head.startswith(b_head) or b_head.startswith(a_head)
    tails_agree = a_tail.endswith(b_tail) or b_tail.endswith(a_tail)
    return heads_agree and tails_agree


@lru_cache(maxsize=4096)
def _globs_may_meet(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    if not a or not b:
        rest = a or b
        return all(s == "**" for s in rest)
    if a[0] == "**":
        return _globs_may_meet(a[1:], b) or _globs_may_meet(a, b[1:])
    if b[0] == "**":
        return _globs_may_meet(a, b[1:]) or _globs_may_meet(a[1:], b)
    return _segments_may_meet(a[0], b[0]) and _globs_may_meet(a[1:], b[1:])


def _segments(glob: str) -> tuple[str, ...]:
    """The glob's segments, with runs of `**` collapsed; an empty glob is `**`.

    A trailing `/` names a folder, so `docs/` is read as `docs/**`.
    """
    out: list[str] = []
    if glob.endswith("/"):
        glob += "**"
    for segment in normalise(glob).split("/"):
        if segment and not (segment == "**" and out and out[-1] == "**"):
            out.append(segment)
    return tuple(out) or ("**",)


def overlaps(globs_a: Iterable[str], globs_b: Iterable[str]) -> bool:
    """Whether some path could match a glob of each set; an empty set is the whole repository.

    Used by the scheduler to keep two writers off the same files: when unsure, True.
    """
    a, b = list(globs_a), list(globs_b)
    if not a or not b:
        return True
    return any(_globs_may_meet(_segments(x), _segments(y)) for x in a for y in b)
