"""Repositories and remotes: init --bare, fetch, push, temporary checkouts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from conveyor.git.runner import GitEnv, Repo, run_git

# The remote's branches as remote-tracking refs in a bare cache, which has no branch of its own.
TRACKING_REFSPEC = "+refs/heads/*:refs/remotes/origin/*"


def init_bare(path: Path, env: GitEnv, default_branch: str = "main") -> Repo:
    """Create an empty bare repository at `path` whose HEAD names `default_branch`."""
    path = path.absolute()
    path.parent.mkdir(parents=True, exist_ok=True)
    run_git(
        ["init", "--quiet", "--bare", f"--initial-branch={default_branch}", str(path)],
        cwd=path.parent,
        env=env,
    )
    return Repo(path, env)


# Every fetched pack kept as it came (git explodes one of under 100 objects into loose files).
# A local clone hardlinks each object file of its source, one fan-out folder each: a cache of
# loose objects, as a busy repository's fills up between `gc --auto` runs (6,700 of them),
# made every job's clone slower with each fetch; packs are a few files each, and
# `gc --auto` joins them past 50 (`gc.autoPackLimit`).
KEEP_PACKS = ("-c", "fetch.unpackLimit=1")


def fetch(
    repo: Repo,
    remote: str = "origin",
    refspecs: Sequence[str] = (),
    *,
    prune: bool = True,
    keep_packs: bool = False,
) -> None:
    """Fetch `refspecs` (default: the remote's configured ones) from `remote`, pruning;
    `keep_packs` keeps each fetched pack whole (`KEEP_PACKS`)."""
    args = [*(KEEP_PACKS if keep_packs else ()), "fetch", "--quiet", "--no-tags"]
    if prune:
        args.append("--prune")
    run_git([*args, remote, *refspecs], cwd=repo.path, env=repo.env)


def push(repo: Repo, remote: str, refspecs: Sequence[str], *, force: bool = False) -> None:
    """Push `refspecs` (e.g. `abc123:refs/heads/b`, `:refs/heads/gone`) to `remote`."""
    args = ["push", "--quiet", "--porcelain"]
    if force:
        args.append("--force")
    run_git([*args, remote, *refspecs], cwd=repo.path, env=repo.env)


def checkout_detached(repo: Repo, rev: str, dest: Path) -> Repo:
    """A fresh work tree of `rev` at `dest` (a local clone of `repo`, HEAD detached)."""
    dest = dest.absolute()
    dest.parent.mkdir(parents=True, exist_ok=True)
    run_git(
        ["clone", "--quiet", "--no-checkout", "--", str(repo.path.absolute()), str(dest)],
        cwd=dest.parent,
        env=repo.env,
    )
    run_git(["checkout", "--quiet", "--detach", rev], cwd=dest, env=repo.env)
    return Repo(dest, repo.env)
