"""Merging without a work tree: `git merge-tree --write-tree` (git 2.38 or later)."""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.git.runner import GitError, Repo, run_git


@dataclass(frozen=True)
class MergeTree:
    """The result of merging two commits: the merged tree, and the paths that conflict.

    When `clean` is False, `tree` holds conflict markers and must not be committed.
    """

    clean: bool
    tree: str
    conflicts: tuple[str, ...]


def merge_tree(repo: Repo, ours: str, theirs: str) -> MergeTree:
    """Merge `theirs` into `ours` in memory; report a clean tree or the conflicted paths."""
    args = ["merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", ours, theirs]
    done = run_git(args, cwd=repo.path, env=repo.env, ok_codes=(0, 1))
    fields = [f for f in done.stdout.decode(errors="surrogateescape").split("\0") if f]
    if not fields:
        raise GitError(["git", *args], done.returncode, done.stderr.decode(errors="replace"))
    tree, paths = fields[0], tuple(dict.fromkeys(fields[1:]))
    return MergeTree(clean=done.returncode == 0, tree=tree, conflicts=paths)
