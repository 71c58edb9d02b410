"""Whether a PR can merge, computed GitHub's way (unknown first, then from merge-tree).

`unknown` on the first read after its head or base moved, then `git merge-tree`
(clean or dirty) and the base's protection (behind, blocked) decide.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from conveyor.emulator.model.check_rows import check_passed
from conveyor.emulator.model.pull_rows import Pull, get_pull, update_pull
from conveyor.emulator.model.store import Store
from conveyor.emulator.repos.pushes import repo_git
from conveyor.emulator.repos.required import required_for
from conveyor.git import GitError, Repo, is_ancestor, merge_tree, read_ref


@dataclass(frozen=True)
class Mergeability:
    """The `mergeable` and `mergeable_state` fields of a PR."""

    mergeable: bool | None
    state: str


@dataclass(frozen=True)
class MergeCheck:
    """A fresh computation: does it conflict, is the base in the head's history, the tree."""

    conflicts: bool
    behind: bool
    tree: str | None


def base_sha_of(bare: Repo, pull: Pull) -> str:
    """The commit the PR's base is at: live for an open PR, as recorded otherwise."""
    if pull.state == "open":
        return read_ref(bare, f"refs/heads/{pull.base_ref}") or pull.base_sha
    return pull.base_sha


def check_merge(bare: Repo, base: str, head: str) -> MergeCheck:
    """Merge `head` into `base` in memory (unrelated histories count as a conflict)."""
    try:
        result = merge_tree(bare, base, head)
    except GitError:
        return MergeCheck(conflicts=True, behind=True, tree=None)
    behind = not is_ancestor(bare, base, head)
    return MergeCheck(not result.clean, behind, result.tree if result.clean else None)


def refresh(store: Store, data_dir: Path, pull: Pull) -> Pull:
    """Advance an open PR's mergeability one read: mark unknown when head or base moved,
    compute on the next read. Closed PRs are left as they are."""
    if pull.state != "open":
        return pull
    bare = repo_git(store, data_dir, pull.repo_id)
    base = base_sha_of(bare, pull)
    key = f"{pull.head_sha}:{base}"
    if pull.computed_for == key:
        return pull
    if pull.seen_for != key:
        values: dict[str, object] = {"seen_for": key, "mergeable": None, "mergeable_state": None}
    else:  # git runs outside the transaction; the key makes a late write harmless
        check = check_merge(bare, base, pull.head_sha)
        raw = "dirty" if check.conflicts else ("behind" if check.behind else "clean")
        values = {
            "computed_for": key,
            "mergeable": int(not check.conflicts),
            "mergeable_state": raw,
        }
    with store.tx() as conn:
        update_pull(conn, pull.issue_id, **values)
    fresh = get_pull(store, pull.repo_id, pull.number)
    assert fresh is not None
    return fresh


def mergeability(store: Store, pull: Pull) -> Mergeability:
    """The fields as GitHub shows them, from the last computation and the base's protection."""
    if pull.state != "open" or pull.mergeable is None or pull.mergeable_state is None:
        return Mergeability(None, "unknown")
    raw = pull.mergeable_state
    if raw == "dirty":
        return Mergeability(False, "dirty")
    if pull.draft:
        return Mergeability(True, "draft")
    protection = required_for(store, pull.repo_id, pull.base_ref)
    if protection is None:
        return Mergeability(True, "clean")
    if protection.strict and raw == "behind":
        return Mergeability(True, "behind")
    passed = [check_passed(store, pull.repo_id, pull.head_sha, c) for c in protection.contexts]
    if not all(passed):
        return Mergeability(True, "blocked")
    return Mergeability(True, "clean")
