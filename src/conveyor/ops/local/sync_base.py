"""The sync-base op: refresh the base from the cache, then rebase onto it (SYNC-2)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from conveyor.git import Repo, is_ancestor, rev_parse, run_git, try_rev_parse
from conveyor.git.agent_repo import changed, copy_refs
from conveyor.git.checkout import file_lock, lock_path, update_cache
from conveyor.git.rebase import abort_rebase, rebase

COPY_REFS = "+refs/remotes/origin/*:refs/remotes/origin/*"


@dataclass(frozen=True)
class SyncOutcome:
    """The rebase: clean (HEAD moved), up to date (nothing to do), or stopped on conflicts."""

    outcome: Literal["clean", "up-to-date", "conflict"]
    head_sha: str
    conflicts: tuple[str, ...] = ()


def refresh_remote_refs(repo: Repo, cache: Path, url: str) -> None:
    """Fetch the repository's bare cache from the forge, then copy its refs into the checkout.

    The job never fetches from the forge itself: the cache does, under its lock. The refs
    go into the keep, then into the agent's repository (`copy_refs`).
    """
    update_cache(cache, url, repo.env)
    with file_lock(lock_path(cache)):
        run_git(
            ["fetch", "--quiet", "--no-tags", "--prune", str(cache), COPY_REFS],
            cwd=repo.path,
            env=repo.env,
        )
    copy_refs(repo)


def base_ref(base: str) -> str:
    """The checkout's remote-tracking ref of the base branch."""
    return f"refs/remotes/origin/{base}"


def sync_base(repo: Repo, base: str) -> SyncOutcome:
    """Rebase HEAD onto the base as last fetched; a conflicted rebase is left for the resolver."""
    onto = rev_parse(repo, base_ref(base))
    if is_ancestor(repo, onto, "HEAD"):
        return SyncOutcome("up-to-date", rev_parse(repo, "HEAD"))
    run = rebase(repo, onto)
    if run.finished:
        return SyncOutcome("clean", run.head)
    return SyncOutcome("conflict", run.head, run.conflicts)


def restore_branch(repo: Repo, branch: str) -> None:
    """Abort a stopped rebase and reset to the branch as last fetched: nothing is left to push."""
    abort_rebase(repo)
    tracking = f"refs/remotes/origin/{branch}"
    sha = try_rev_parse(repo, tracking)
    if sha is not None:
        changed(repo, "reset", "--quiet", "--hard", sha)
