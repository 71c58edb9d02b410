"""A unified diff read as data: its files, which lines each hunk shows on each side, how many
lines it changes, and a cut to a length that always says what it left out.

Pure: the job hands in `git diff`'s text. A review comment may sit only on a line a hunk
shows (GitHub refuses others), so placing findings reads `shown`; a re-review reads which
lines of the reviewed head a later push touched (`touched`).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_NEW_PATH = re.compile(r"^\+\+\+ (.*)$")
_OLD_PATH = re.compile(r"^--- (.*)$")
# git quotes a path holding a byte outside printable ASCII, a quote, a backslash or a control
# character (`"b/t\303\253st.py"`); unquoted, a name may hold spaces.
_QUOTED = r'"(?:[^"\\]|\\.)*"'
_GIT_HEADER = re.compile(rf"^diff --git ({_QUOTED}|a/.*?) ({_QUOTED}|b/.*)$")
Span = tuple[int, int]  # first and last line, inclusive


@dataclass(frozen=True)
class FileDiff:
    """One file's part of a diff: its paths (None for a side that does not exist), the lines
    its hunks show on the new side (`right`) and the old (`left`), and its changed lines."""

    path: str
    old_path: str | None
    right: tuple[Span, ...] = ()
    left: tuple[Span, ...] = ()
    added: int = 0
    removed: int = 0
    text: str = field(default="", repr=False)


def _path(raw: str, side: str = "") -> str | None:
    """A path as a diff header writes it: unquoted, its side's `a/` or `b/` taken off."""
    raw = raw.strip()
    if raw == "/dev/null":
        return None
    if raw.startswith('"') and raw.endswith('"') and len(raw) > 1:
        raw = codecs.escape_decode(raw[1:-1].encode())[0].decode("utf-8", errors="replace")
    return raw.removeprefix(side) if side else raw


def _span(first: int, count: int) -> Span | None:
    return (first, first + count - 1) if count > 0 else None


class _Building:
    """One file's diff while it is read (only `parse_diff` uses it)."""

    def __init__(self, path: str, old_path: str | None) -> None:
        self.path, self.old_path = path, old_path
        self.right: list[Span] = []
        self.left: list[Span] = []
        self.added = self.removed = 0
        self.lines: list[str] = []
        self.in_hunks = False

    def read(self, raw: str) -> None:
        """Take one line of the file's part of the diff."""
        self.lines.append(raw)
        if not self.in_hunks and (new := _NEW_PATH.match(raw)):
            self.path = _path(new.group(1), "b/") or self.path
        elif not self.in_hunks and (old := _OLD_PATH.match(raw)):
            self.old_path = _path(old.group(1), "a/")
        elif hunk := _HUNK.match(raw):
            self.in_hunks = True
            old_first, old_n, new_first, new_n = hunk.groups()
            left = _span(int(old_first), int(old_n or "1"))
            right = _span(int(new_first), int(new_n or "1"))
            self.left += [left] if left else []
            self.right += [right] if right else []
        elif self.in_hunks and raw.startswith("+"):
            self.added += 1
        elif self.in_hunks and raw.startswith("-"):
            self.removed += 1

    def done(self) -> FileDiff:
        """The file's diff as read."""
        return FileDiff(self.path, self.old_path, tuple(self.right), tuple(self.left),
                        self.added, self.removed, "\n".join(self.lines))  # fmt: skip


def parse_diff(text: str) -> tuple[FileDiff, ...]:
    """The files of a `git diff` (with `diff --git` headers), in order."""
    files: list[_Building] = []
    for raw in text.splitlines():
        header = _GIT_HEADER.match(raw)
        if header:
            files.append(
                _Building(_path(header.group(2), "b/") or "", _path(header.group(1), "a/"))
            )
        if files:
            files[-1].read(raw)
    return tuple(f.done() for f in files)


def added_lines(entry: FileDiff) -> tuple[tuple[int, str], ...]:
    """The lines the file's diff adds, with their numbers on the new side."""
    out: list[tuple[int, str]] = []
    at = 0
    for raw in entry.text.splitlines():
        if hunk := _HUNK.match(raw):
            at = int(hunk.group(3))
        elif at and raw.startswith("+"):  # past the first hunk, "+++" is an added "++"
            out.append((at, raw[1:]))
            at += 1
        elif at and raw.startswith(" "):
            at += 1
    return tuple(out)


def changed_lines(files: tuple[FileDiff, ...]) -> int:
    """Lines added and removed over every file."""
    return sum(f.added + f.removed for f in files)


def shown_span(files: tuple[FileDiff, ...], path: str, first: int, last: int) -> Span | None:
    """The part of lines `first`..`last` of `path`'s new side that one hunk shows: the whole
    range when one hunk holds it, else the part at `last`, else at `first`; None when none."""
    for entry in files:
        if entry.path != path:
            continue
        for low, high in entry.right:
            if low <= first and last <= high:
                return (first, last)
        for low, high in entry.right:
            if low <= last <= high:
                return (max(first, low), last)
        for low, high in entry.right:
            if low <= first <= high:
                return (first, first)
    return None


@dataclass(frozen=True)
class CutDiff:
    """A diff cut to a length: the text kept, the files shown whole or in part, and the
    files left out entirely (none when nothing was cut)."""

    text: str
    kept_files: tuple[str, ...]
    left_out: tuple[str, ...]
    total_lines: int
    note: str | None = None  # the closing line of a cut diff (None: nothing was cut)

    @property
    def cut(self) -> bool:
        """Whether anything was left out."""
        return self.note is not None


def cut_diff(files: tuple[FileDiff, ...], most_lines: int) -> CutDiff:
    """The diff's files in order up to `most_lines` lines of diff text (a file that would
    pass it is cut at the limit), with a closing note naming every file left out."""
    kept: list[str] = []
    names: list[str] = []
    used = 0
    total = sum(f.text.count("\n") + 1 for f in files)
    for entry in files:
        lines = entry.text.splitlines()
        if used >= most_lines:
            break
        room = most_lines - used
        kept.extend(lines[:room])
        names.append(entry.path)
        used += min(len(lines), room)
    left_out = tuple(f.path for f in files if f.path not in names)
    note = cut_note(total, used, left_out) if used < total else None
    return CutDiff(
        "\n".join([*kept, *([note] if note else [])]), tuple(names), left_out, total, note
    )


def cut_note(total: int, used: int, left_out: tuple[str, ...]) -> str:
    """The line that ends a cut diff: how much was read and which files were not."""
    named = ", ".join(left_out[:20]) + (
        f" and {len(left_out) - 20} more" if len(left_out) > 20 else ""
    )
    files = f" Files not shown at all: {named}." if left_out else ""
    return (
        f"[Cut by Conveyor: this diff has {total:,} lines; the first {used:,} are above, the "
        f"last file shown may be incomplete.{files}]"
    )


def touched(files: tuple[FileDiff, ...]) -> dict[str, tuple[Span, ...]]:
    """For each file of the old side, the lines a change since then replaced or removed
    (a deleted or renamed-away file: the whole file, `(1, 10**9)`)."""
    found: dict[str, tuple[Span, ...]] = {}
    for entry in files:
        if entry.old_path is None:
            continue
        if entry.path != entry.old_path:
            found[entry.old_path] = ((1, 10**9),)
        else:
            found[entry.old_path] = entry.left or ((1, 10**9),)
    return found
