"""The checkout a review of a person's PR reads: the PR's head, detached (BB-DISP-13).

The base comes from the repository's bare cache, as for every job; the head is fetched
from the forge as `refs/pull/N/head`, which GitHub keeps for every PR, one from a fork
too, so a PR whose branch is in another repository reads the same way. A head the forge
no longer has is an error naming the PR (the review reads nothing else in its place).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from pathlib import Path

from conveyor.git.checkout import create_checkout, keep_of, update_cache, write_git_config
from conveyor.git.keep import make_agent_repo
from conveyor.git.remote import fetch
from conveyor.git.runner import GitEnv, GitError, Identity, Repo, run_git
from conveyor.git.token_push import PushAuth, write_askpass
from conveyor.job.effects.push import JobPusher
from conveyor.job.layout import JobPaths
from conveyor.job.workspace import CACHE

PR_REF = "refs/conveyor/pr-head"


class HeadMissing(RuntimeError):
    """The forge does not have the PR's head to fetch (deleted, or moved past it)."""


@dataclass(frozen=True)
class PrCheckout:
    """The detached checkout of the PR's head, its git setup, and where the base is."""

    repo: Repo
    git_config: Path
    pusher: JobPusher
    base_ref: str


def prepare_pr_checkout(
    paths: JobPaths, *, url: str, number: int, head: str, base: str, identity: Identity,
    token: str | None,
) -> PrCheckout:  # fmt: skip
    """Clone the base from the cache, fetch the PR's head and check it out detached."""
    git_config = write_git_config(paths.job_dir / "gitconfig", identity)
    env = GitEnv(config_global=git_config, identity=identity)
    auth = PushAuth(write_askpass(paths.job_dir / "askpass.sh"), token, secrets.token_hex(16))
    fetch_env = GitEnv(git_config, identity, extra=auth.fetch_variables())
    cache = Repo(update_cache(paths.home / CACHE, url, fetch_env).path, env)
    keep = keep_of(paths.checkout)
    repo = create_checkout(cache, paths.checkout, url, keep=keep, branch="conveyor-pr-review",
                           base=base, env=env)  # fmt: skip
    fetching = Repo(repo.path, replace(fetch_env, git_dir=keep))
    try:
        fetch(fetching, url, [f"+refs/pull/{number}/head:{PR_REF}"], prune=False)
    except GitError as exc:
        msg = f"the forge has no head for PR #{number} to fetch: {exc}"
        raise HeadMissing(msg) from exc
    try:
        run_git(["cat-file", "-e", f"{head}^{{commit}}"], cwd=repo.path, env=repo.env)
    except GitError as exc:
        msg = f"PR #{number}'s head {head[:12]} is gone from the forge (it moved since)"
        raise HeadMissing(msg) from exc
    run_git(["checkout", "--quiet", "--detach", head], cwd=repo.path, env=repo.env)
    make_agent_repo(repo, None, url)  # the sessions' own repository, detached at the head
    return PrCheckout(repo, git_config, JobPusher(repo, auth), f"refs/remotes/origin/{base}")
