"""Where a review comment may go: a file the PR changes, a line inside one of its diff hunks.

GitHub refuses a comment on a file the PR does not change, and a line comment on a
line outside the diff; a comment's `diff_hunk` is its hunk up to the commented line
and its `position` the line's index in the file's diff (webhooks carry it).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from conveyor.git import GitError, Repo, merge_base, run_git, try_rev_parse

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
# The lines a side does not show: the new side skips removed lines, the old side added ones.
_SKIPS = {"RIGHT": "-", "LEFT": "+"}


@dataclass(frozen=True)
class Hunk:
    """One hunk of a file's diff: its text lines and the lines it covers on each side."""

    lines: tuple[str, ...]
    first: int
    count: int
    old_first: int = 0
    old_count: int = 0

    def covers(self, line: int, side: str = "RIGHT") -> bool:
        """Whether `line` of `side` (RIGHT: the new file, LEFT: the old) is shown here."""
        if side == "LEFT":
            return self.old_first <= line < self.old_first + self.old_count
        return self.first <= line < self.first + self.count

    def up_to(self, line: int, side: str = "RIGHT") -> str:
        """The hunk's text from its header through `line` of `side`."""
        skip = _SKIPS.get(side, "-")
        out, at = [self.lines[0]], self.old_first if side == "LEFT" else self.first
        for text in self.lines[1:]:
            out.append(text)
            if not text.startswith((skip, "\\")):
                if at == line:
                    break
                at += 1
        return "\n".join(out)


def hunks(text: str) -> tuple[Hunk, ...]:
    """The hunks of one file's unified diff."""
    found: list[Hunk] = []
    current: list[str] = []
    sizes = (0, 0, 0, 0)
    for raw in text.splitlines():
        match = _HUNK.match(raw)
        if match:
            if current:
                found.append(Hunk(tuple(current), sizes[2], sizes[3], sizes[0], sizes[1]))
            current = [raw]
            old, old_n, new, new_n = match.groups()
            sizes = (int(old), int(old_n or "1"), int(new), int(new_n or "1"))
        elif current and raw[:1] in {" ", "+", "-", "\\"}:
            current.append(raw)
    if current:
        found.append(Hunk(tuple(current), sizes[2], sizes[3], sizes[0], sizes[1]))
    return tuple(found)


def file_diff(bare: Repo, base_sha: str, commit: str, path: str) -> str | None:
    """The PR's diff of `path` at `commit` (from the fork point), or None when it is unchanged."""
    fork = merge_base(bare, base_sha, commit) or base_sha
    try:
        done = run_git(
            ["diff", "--no-color", "--no-renames", "-U3", fork, commit, "--", path],
            cwd=bare.path,
            env=bare.env,
        )
    except GitError:
        return None
    text = done.stdout.decode(errors="replace")
    return text or None


def known_commit(bare: Repo, sha: str) -> str | None:
    """The full SHA of commit `sha` in the repository, or None."""
    return try_rev_parse(bare, f"{sha}^{{commit}}") if sha else None


def place(
    bare: Repo, base_sha: str, commit: str, path: str, line: int | None, *, side: str = "RIGHT"
) -> str | None:
    """The comment's diff hunk, or None when `path` (or `line` of `side`) is not part of the
    PR's diff.

    A file-level comment (`line` None) gets the file's first hunk.
    """
    diff = file_diff(bare, base_sha, commit, path)
    if diff is None:
        return None
    found = hunks(diff)
    if not found:  # a binary or mode-only change: only a file-level comment fits
        return "" if line is None else None
    if line is None:
        return "\n".join(found[0].lines)
    hunk = next((h for h in found if h.covers(line, side)), None)
    return None if hunk is None else hunk.up_to(line, side)


def position(bare: Repo, base_sha: str, commit: str, path: str, line: int | None) -> int | None:
    """The index of new-side `line` in the PR's diff of `path` at `commit`, as GitHub counts:
    the line below the first `@@` header is 1, and later headers count too (None: not shown).
    """
    diff = file_diff(bare, base_sha, commit, path) if line is not None else None
    found = hunks(diff) if diff is not None else ()
    index = 0
    for number, hunk in enumerate(found):
        index += number > 0  # a later hunk's header is a line of the diff
        at = hunk.first
        for text in hunk.lines[1:]:
            index += 1
            if text.startswith("-") or text.startswith("\\"):
                continue
            if at == line:
                return index
            at += 1
    return None
