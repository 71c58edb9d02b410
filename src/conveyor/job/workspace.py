"""Preparing a job's checkout: cache, clone, hooks, push credentials, rescue of leftovers."""

from __future__ import annotations

import secrets
import shutil
import sys
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path

from conveyor.agents.hooks import commit_msg_hook
from conveyor.core.state import Rescue
from conveyor.git.checkout import (
    agent_checkout,
    dirty_paths,
    install_checkout_hooks,
    keep_of,
    update_cache,
    write_git_config,
)
from conveyor.git.refs import read_ref, update_ref
from conveyor.git.rescue import can_continue, find_unpushed, move_branch, rescue_ref
from conveyor.git.runner import Boxer, GitEnv, GitError, Identity, Repo
from conveyor.git.token_push import PushAuth, write_askpass
from conveyor.job.effects.push import HeadsSeen, JobPusher
from conveyor.job.layout import JobPaths, leftover_checkouts

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
    box: Boxer | None = None,
    rescue: bool = True,
    start: str | None = None,
) -> Workspace:
    """Fetch the cache, clone the checkout on `agent/issue-N`, then rescue leftover checkouts.

    A branch the remote lacks starts at `start` when given (a stacked issue's
    prerequisite head, STK-2), else at the base. Only writers rescue (`rescue`):
    they can continue from the commits and push them; a reader's or the
    merger's job leaves leftovers to the next writer. The checkout's git works in its
    keep (`repo.git` beside it); `box` runs the git that works in the agent's own repository.
    """
    git_config = write_git_config(paths.job_dir / "gitconfig", identity)
    env = GitEnv(config_global=git_config, identity=identity)
    askpass = write_askpass(paths.job_dir / "askpass.sh")
    auth = PushAuth(askpass, token, secrets.token_hex(16)).for_urls(url)
    fetch_env = replace(env, extra=auth.fetch_variables())
    cache = Repo(update_cache(paths.home / CACHE, url, fetch_env).path, env)
    branch = f"agent/issue-{issue}"
    made = agent_checkout(
        cache, paths.checkout, url, branch=branch, base=base, env=env, start=start
    )
    repo = replace(made, box=box)
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
    keep = keep_of(leftover)
    try:  # read through the leftover's keep: its own `.git` is the agent's
        dirty = (
            dirty_paths(Repo(leftover, replace(repo.env, git_dir=keep))) if keep.is_dir() else []
        )
    except GitError:
        dirty = []
    branch_ref = f"refs/remotes/origin/{branch}"
    remote_refs = (branch_ref, f"refs/remotes/origin/{base}")
    unpushed = find_unpushed(repo, leftover, remote_refs, keep)
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
