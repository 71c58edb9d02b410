"""Preparing a job's checkout: cache, clone, hooks, push credentials, rescue of leftovers."""

from __future__ import annotations

import secrets
import shutil
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from conveyor.agents.hooks import commit_msg_hook
from conveyor.core.state import Rescue
from conveyor.git.checkout import (
    create_checkout,
    dirty_paths,
    install_checkout_hooks,
    update_cache,
    write_git_config,
)
from conveyor.git.refs import read_ref, update_ref
from conveyor.git.rescue import can_continue, find_unpushed, move_branch, rescue_ref
from conveyor.git.runner import GitEnv, GitError, Identity, Repo
from conveyor.git.token_push import PushAuth, write_askpass
from conveyor.job.layout import JobPaths, leftover_checkouts
from conveyor.ops.local.job_push import HeadsSeen, JobPusher

CACHE = "cache.git"


@dataclass(frozen=True)
class Workspace:
    """The prepared checkout, its git setup, and what the rescue of leftovers found."""

    repo: Repo
    git_config: Path
    pusher: JobPusher
    rescues: tuple[Rescue, ...]
    lost_changes: tuple[str, ...]


def prepare_workspace(
    paths: JobPaths,
    *,
    url: str,
    issue: int,
    base: str,
    identity: Identity,
    token: str | None,
    trailer_role: str,
    now: datetime,
    rescue: bool = True,
    start: str | None = None,
) -> Workspace:
    """Fetch the cache, clone the checkout on `agent/issue-N`, then rescue leftover checkouts.

    A branch the remote lacks starts at `start` when given (a stacked issue's
    prerequisite head, STK-2), else at the base. Only writers rescue (`rescue`):
    they can continue from the commits and push them; a reader's or the
    merger's job leaves leftovers to the next writer.
    """
    git_config = write_git_config(paths.job_dir / "gitconfig", identity)
    env = GitEnv(config_global=git_config, identity=identity)
    auth = PushAuth(write_askpass(paths.job_dir / "askpass.sh"), token, secrets.token_hex(16))
    fetch_env = GitEnv(git_config, identity, extra=auth.fetch_variables())
    cache = Repo(update_cache(paths.home / CACHE, url, fetch_env).path, env)
    branch = f"agent/issue-{issue}"
    repo = create_checkout(
        cache, paths.checkout, url, branch=branch, base=base, env=env, start=start
    )
    install_checkout_hooks(repo, auth.nonce, commit_msg_hook(trailer_role))
    # The branch as fetched, before any session could touch the checkout's refs (SPEC-128).
    seen = HeadsSeen({f"refs/heads/{branch}": read_ref(repo, f"refs/remotes/origin/{branch}")})
    pusher = JobPusher(repo, auth, seen=seen)
    rescues: list[Rescue] = []
    lost: list[str] = []
    leftovers = leftover_checkouts(paths.home, issue, paths.job_dir) if rescue else []
    for leftover in leftovers:
        moment = now + timedelta(seconds=len(rescues))
        found, dirty, saved = rescue_leftover(
            repo, pusher, leftover, issue=issue, branch=branch, base=base, moment=moment
        )
        lost += [f"{leftover.parent.name}: {p}" for p in dirty]
        if found is not None:
            rescues.append(found)
        if saved:
            shutil.rmtree(leftover, ignore_errors=True)
    return Workspace(repo, git_config, pusher, tuple(rescues), tuple(lost))


def rescue_leftover(
    repo: Repo,
    pusher: JobPusher,
    leftover: Path,
    *,
    issue: int,
    branch: str,
    base: str,
    moment: datetime,
) -> tuple[Rescue | None, list[str], bool]:
    """Save a leftover's unpushed commits as a pushed rescue ref (STOP-10).

    Returns the rescue (None when there was nothing to save), the leftover's
    uncommitted paths, and whether the leftover may now be removed. Work goes on
    from the rescued head when the remote branch has not moved since.
    """
    try:
        dirty = dirty_paths(Repo(leftover, repo.env))
    except GitError:
        dirty = []
    branch_ref = f"refs/remotes/origin/{branch}"
    unpushed = find_unpushed(repo, leftover, (branch_ref, f"refs/remotes/origin/{base}"))
    if unpushed is None:
        return None, dirty, True
    ref = rescue_ref(issue, moment)
    if read_ref(repo, ref) is None:
        update_ref(repo, ref, unpushed.head)
    pushed = pusher(unpushed.head, ref, force=True)
    if not pushed.ok:
        print(  # noqa: T201 - the job's stderr is its log
            f"conveyor job: could not push rescue ref {ref}: {pushed.error}; keeping {leftover}",
            file=sys.stderr,
        )
    kept = can_continue(repo, unpushed.head, branch_ref)
    if kept:
        move_branch(repo, unpushed.head)
    return Rescue(ref=ref, sha=unpushed.head, kept=kept, at=moment), dirty, pushed.ok
