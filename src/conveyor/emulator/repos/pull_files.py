"""A PR's changed files as `GET .../pulls/{n}/files` lists them (GitHub's `diff-entry`).

Measured from where the head left the base (the merge base), renames found as GitHub
finds them; each file's `patch` is its hunks without the file header, left out for a
binary file and for one whose hunks run past `PATCH_LINES` lines, as GitHub leaves out
the patch of a file too large to show. GitHub lists at most `MAX_FILES` files.
"""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.git import GitError, Repo, merge_base, run_git

MAX_FILES = 3000
PATCH_LINES = 3000
_STATUS = {
    "A": "added",
    "D": "removed",
    "M": "modified",
    "R": "renamed",
    "C": "copied",
    "T": "changed",
}


@dataclass(frozen=True)
class FileChange:
    """One changed file: its path (and the old one for a rename), its status, blob, line
    counts and patch (None where GitHub sends none)."""

    filename: str
    status: str
    sha: str | None
    additions: int
    deletions: int
    patch: str | None
    previous_filename: str | None = None


def _git(bare: Repo, *args: str) -> bytes:
    return run_git(args, cwd=bare.path, env=bare.env).stdout


def _raw(bare: Repo, fork: str, head: str) -> list[tuple[str, str, str, str | None]]:
    """(status letter, new blob, path, old path) for each changed file, in git's order."""
    fields = _git(bare, "diff", "--raw", "-z", "-M", "--no-abbrev", fork, head).split(b"\0")
    found: list[tuple[str, str, str, str | None]] = []
    index = 0
    while index < len(fields) and fields[index].startswith(b":"):
        meta = fields[index].decode().split()
        letter, blob = meta[4][:1], meta[3]
        if letter in {"R", "C"}:
            old, new = fields[index + 1].decode(), fields[index + 2].decode()
            found.append((letter, blob, new, old))
            index += 3
        else:
            found.append((letter, blob, fields[index + 1].decode(), None))
            index += 2
    return found


def _numstat(bare: Repo, fork: str, head: str) -> list[tuple[int, int]]:
    """(additions, deletions) per changed file in git's order; a binary file counts 0, 0."""
    out = _git(bare, "diff", "--numstat", "-z", "-M", fork, head).split(b"\0")
    counts: list[tuple[int, int]] = []
    index = 0
    while index < len(out) and out[index]:
        added, removed, path = out[index].decode().split("\t", 2)
        counts.append((int(added) if added != "-" else 0, int(removed) if removed != "-" else 0))
        index += 1 if path else 3  # a rename's two paths follow as their own fields
    return counts


def _patches(bare: Repo, fork: str, head: str) -> list[str | None]:
    """Each changed file's hunks in git's order (None for a binary or too large a patch)."""
    text = _git(bare, "diff", "-M", "--no-color", "-U3", fork, head).decode(errors="replace")
    found: list[str | None] = []
    for section in text.split("\ndiff --git "):
        if not section.strip():
            continue
        lines = section.splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("@@")), None)
        if start is None or len(lines) - start > PATCH_LINES:
            found.append(None)
        else:
            found.append("\n".join(lines[start:]))
    return found


def pull_files(bare: Repo, base_sha: str, head_sha: str) -> list[FileChange]:
    """The files a PR from `head_sha` into `base_sha` changes, at most `MAX_FILES`."""
    fork = merge_base(bare, base_sha, head_sha) or base_sha
    try:
        raw = _raw(bare, fork, head_sha)
        counts = _numstat(bare, fork, head_sha)
        patches = _patches(bare, fork, head_sha)
    except GitError:
        return []
    changes: list[FileChange] = []
    for index, (letter, blob, path, old) in enumerate(raw[:MAX_FILES]):
        added, removed = counts[index] if index < len(counts) else (0, 0)
        patch = patches[index] if index < len(patches) else None
        status = _STATUS.get(letter, "modified")
        sha = None if status == "removed" else blob
        changes.append(FileChange(path, status, sha, added, removed, patch, old))
    return changes
