"""Memoised git reads for hot routes: commits never change, so what git said once holds.

The emulator never garbage-collects its repositories, so a commit seen once stays.
Both caches are bounded by clearing, which only costs a re-read.
"""

from __future__ import annotations

from conveyor.git import CommitDetails, Repo, commit_details, read_ref, try_rev_parse

_LIMIT = 8192
_KNOWN: set[tuple[str, str]] = set()
_DETAILS: dict[tuple[str, str], CommitDetails] = {}


def _is_sha(text: str) -> bool:
    return len(text) == 40 and all(c in "0123456789abcdef" for c in text)


def resolve_commit_ref(bare: Repo, ref: str) -> str | None:
    """The SHA a branch, tag or full SHA names in `bare`, or None (hot path: few subprocesses)."""
    for full in (f"refs/heads/{ref}", f"refs/tags/{ref}"):
        sha = read_ref(bare, full)
        if sha is not None:
            return sha
    key = (str(bare.path), ref)
    if key in _KNOWN:
        return ref
    sha = try_rev_parse(bare, ref)
    if sha is not None and sha == ref and _is_sha(ref):
        if len(_KNOWN) > _LIMIT:
            _KNOWN.clear()
        _KNOWN.add(key)
    return sha


def details_of(bare: Repo, sha: str) -> CommitDetails:
    """`git.commit_details`, memoised per repository and SHA."""
    key = (str(bare.path), sha)
    found = _DETAILS.get(key)
    if found is None:
        found = commit_details(bare, sha)
        if len(_DETAILS) > _LIMIT:
            _DETAILS.clear()
        _DETAILS[key] = found
    return found
