"""The bare cache per repository and a job's own checkout cloned from it (JB-8..10).

The cache is `git clone --bare` with remote-tracking refs (`refs/remotes/origin/*`),
fetched with prune under a file lock; the checkout's `origin` is the real remote,
its refs copied from the cache, so a job never fetches from the forge itself.
"""

from __future__ import annotations

import fcntl
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from conveyor.git.hooks import install_hooks
from conveyor.git.keep import AGAINST_WORK_TREE, keep_clone_args, make_agent_repo
from conveyor.git.refs import try_rev_parse
from conveyor.git.remote import TRACKING_REFSPEC, fetch, init_bare
from conveyor.git.runner import GitEnv, Identity, Repo, git_text, run_git
from conveyor.git.token_push import PUSH_OP_VAR


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive `fcntl` lock on `path` (created when missing) for the block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def lock_path(cache: Path) -> Path:
    """The lock file guarding a cache: `<cache>.lock`."""
    return cache.with_name(f"{cache.name}.lock")


TAGS_REFSPEC = "+refs/tags/*:refs/tags/*"
# A checkout's clone copies the cache's remote-tracking refs as they are (clone fetches with
# this refspec besides its default, which matches nothing: the cache has no branches).
CLONE_REFSPEC = "+refs/remotes/origin/*:refs/remotes/origin/*"
# In a cache once its local branches are gone: those of a cache made by a `clone --bare`
# (before this layout) were its first clone's, stale, and would clash with CLONE_REFSPEC.
NO_BRANCHES_MARK = "conveyor-no-local-branches"


def update_cache(cache: Path, url: str, env: GitEnv) -> Repo:
    """Create the bare cache of `url` at `cache`, or fetch it with prune; under its lock.

    The cache holds the remote's branches as `refs/remotes/origin/*`, its tags, and no
    branch of its own. The URL is given to the fetch, not kept in the cache's config: a
    forge that moved (a new port) is fetched from where it is now. A checkout's keep in
    `env` is dropped: git works in the cache.
    """
    env = replace(env, git_dir=None)
    with file_lock(lock_path(cache)):
        made = not (cache / "HEAD").is_file()
        repo = init_bare(cache, env) if made else Repo(cache, env)
        mark = cache / NO_BRANCHES_MARK
        if not mark.is_file():
            if not made:
                _drop_branches(repo)
            mark.touch()
        # Tags too: versioning tools (setuptools-scm) in the setup command read them.
        fetch(repo, url, (TRACKING_REFSPEC, TAGS_REFSPEC), keep_packs=True)
        return repo


def _drop_branches(repo: Repo) -> None:
    names = git_text(repo, "for-each-ref", "--format=delete %(refname)", "refs/heads/")
    if names:
        git_text(repo, "update-ref", "--stdin", input_text=names + "\n")


def write_git_config(path: Path, identity: Identity) -> Path:
    """The job-owned global git config: identity, no signing, no credential helper."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "[user]\n"
        f"\tname = {identity.name}\n"
        f"\temail = {identity.email}\n"
        "[commit]\n\tgpgsign = false\n"
        "[tag]\n\tgpgsign = false\n"
        "[init]\n\tdefaultBranch = main\n"
        "[credential]\n\thelper =\n"
        "[advice]\n\tdetachedHead = false\n"
    )
    return path


def create_checkout(
    cache: Repo,
    dest: Path,
    url: str,
    *,
    keep: Path,
    branch: str,
    base: str,
    env: GitEnv,
    start: str | None = None,
) -> Repo:
    """Clone the cache into the keep `keep` with `dest` as its work tree, on `branch`: at
    `origin/<branch>` when the remote has it, else at `start` (a stacked issue's
    prerequisite head) when given and known, else at `origin/<base>`; `origin` is the real
    remote `url`.

    The repository returned works in the keep: its config, hooks and refs are Conveyor's,
    and no box can write them (`git/keep.py`). `dest/.git` is left the clone's pointer to
    the keep until the caller gives it a repository of the agent's own (`make_agent_repo`),
    once the checkout stands where the job starts.
    """
    dest.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(lock_path(cache.path)):
        clone = [
            "clone",
            "--quiet",
            "--no-checkout",
            f"--separate-git-dir={keep}",
            *keep_clone_args(),
            "--config",
            f"remote.origin.fetch={CLONE_REFSPEC}",
        ]
        run_git([*clone, "--", str(cache.path), str(dest)], cwd=dest.parent, env=env)
    repo = Repo(dest, replace(env, git_dir=keep))
    run_git(["remote", "set-url", "origin", url], cwd=dest, env=repo.env)
    begin = (
        try_rev_parse(repo, f"refs/remotes/origin/{branch}")
        or (try_rev_parse(repo, f"{start}^{{commit}}") if start else None)
        or try_rev_parse(repo, f"refs/remotes/origin/{base}")
    )
    if begin is None:
        msg = f"the remote has neither {branch!r} nor the base branch {base!r}"
        raise ValueError(msg)
    run_git(["checkout", "--quiet", "--no-track", "-B", branch, begin], cwd=dest, env=repo.env)
    return repo


def keep_of(checkout: Path) -> Path:
    """Where a checkout's keep lies: beside it, `<checkout>.git` (`repo/` → `repo.git`)."""
    return checkout.with_name(f"{checkout.name}.git")


def agent_checkout(
    cache: Repo,
    dest: Path,
    url: str,
    *,
    branch: str,
    base: str,
    env: GitEnv,
    start: str | None = None,
) -> Repo:
    """`create_checkout` into `dest` with its keep beside it (`<dest>.git`), and the agent's
    own repository in it at once."""
    keep = keep_of(dest)
    repo = create_checkout(
        cache, dest, url, keep=keep, branch=branch, base=base, env=env, start=start
    )
    make_agent_repo(repo, branch, url)
    return repo


def pre_push_hook(nonce: str) -> str:
    """A `pre-push` hook refusing every push but the job's push op (which sets the nonce)."""
    expected = shlex.quote(nonce)
    return (
        "#!/bin/sh\n"
        "# Installed by Conveyor: only the job's push op pushes from this checkout.\n"
        f'if [ "${PUSH_OP_VAR}" != {expected} ]; then\n'
        "  echo \"conveyor: pushes from this checkout go through the job's push op;"
        ' commit and let the job push." >&2\n'
        "  exit 1\n"
        "fi\n"
    )


def install_checkout_hooks(repo: Repo, nonce: str, commit_msg: str) -> None:
    """The `pre-push` (refusing other pushes) and `commit-msg` hooks of the agent's own
    repository in a checkout `create_checkout` just made (before any box has run there).

    They serve the agent's own git, in its box: `git commit` there gets the trailer, and
    `git push` there is told to let the job push. Conveyor's own git never runs them: it works
    in the keep, whose hooks are off, and pushes from there.
    """
    install_hooks(
        repo,
        {"pre-push": pre_push_hook(nonce), "commit-msg": commit_msg},
        repo.path / ".git" / "hooks",
    )


def dirty_paths(repo: Repo) -> list[str]:
    """Paths with uncommitted changes (staged, unstaged or untracked), sorted."""
    done = run_git(
        ["status", AGAINST_WORK_TREE, "--porcelain=v1", "-z", "--untracked-files=all"],
        cwd=repo.path,
        env=repo.env,
    )
    paths: list[str] = []
    records = done.stdout.decode(errors="surrogateescape").split("\0")
    skip = False
    for record in records:
        if skip:
            skip = False
            continue
        if len(record) > 3:
            paths.append(record[3:])
            skip = record[0] in "RC"  # a rename's source path follows as its own record
    return sorted(set(paths))
