"""A job's keep: the git directory Conveyor works in for a checkout, which no box can write.

A checkout is two repositories over one work tree. The agent's own (`<checkout>/.git`)
is what sessions and commands use; they may write every file of it. The keep
(`<job>/repo.git`, beside the checkout, hidden from every box or read-only there) is
Conveyor's: git runs with `GIT_DIR` pointing at it, so the config it reads, the hooks it
could run and the refs it believes are the ones Conveyor wrote. The agent's repository
borrows the keep's objects (an alternate, read-only in the box) and starts with its refs
and index, so `git log`, `git diff origin/main` and `git commit` work there as in any clone.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace

from conveyor.git.runner import Repo, git_text, run_git

# The keep's own settings, beside what the clone wrote (remote, core.bare = false).
# Hooks off; no garbage collection while the agent's repository borrows its objects; and
# git never steps into another repository from here: a submodule's folder in the work tree
# holds a `.git` a box can write, and `git status` would run a git there, with its config.
KEEP_SETTINGS = (
    ("core.hooksPath", os.devnull),
    ("core.fsmonitor", "false"),
    ("gc.auto", "0"),
    ("diff.ignoreSubmodules", "all"),
    ("status.submoduleSummary", "false"),
    ("submodule.recurse", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("push.recurseSubmodules", "no"),
)
# The refs the agent's repository starts with (and `copy_refs` refreshes).
AGENT_REFS = ("refs/heads/", "refs/remotes/", "refs/tags/")


def configure_keep(repo: Repo) -> None:
    """Write the keep's settings (`KEEP_SETTINGS`) into its config."""
    for key, value in KEEP_SETTINGS:
        run_git(["config", key, value], cwd=repo.path, env=repo.env)


def ref_lines(repo: Repo, prefixes: tuple[str, ...] = AGENT_REFS) -> str:
    """The keep's refs under `prefixes` as `update-ref --stdin` lines."""
    lines = git_text(repo, "for-each-ref", "--format=update %(refname) %(objectname)", *prefixes)
    return lines + "\n" if lines else ""


def make_agent_repo(repo: Repo, branch: str | None, url: str | None) -> None:
    """Give the work tree of `repo` (whose `.git` is the clone's pointer to the keep) a
    repository of its own, for the agent and the commands: empty, borrowing the keep's
    objects, with the keep's refs, HEAD on `branch` (detached at the keep's HEAD without
    one), the keep's index (the work tree is the same), its excludes (the wiki folder, what
    setup linked in) and `url` as `origin`.

    It runs before any box has: the folder is still Conveyor's alone.
    """
    assert repo.env.git_dir is not None, "an agent's repository borrows a keep"
    keep = repo.env.git_dir
    agent = repo.path / ".git"
    agent.unlink()
    plain = replace(repo.env, git_dir=None)
    head = git_text(repo, "rev-parse", "--verify", "HEAD")
    named = [f"--initial-branch={branch}"] if branch is not None else []
    run_git(["init", "--quiet", *named], cwd=repo.path, env=plain)
    (agent / "objects" / "info" / "alternates").write_text(f"{keep / 'objects'}\n")
    lines = ref_lines(repo) + ("" if branch is not None else f"update HEAD {head}\n")
    run_git(
        ["update-ref", "--no-deref", "--stdin"],
        cwd=repo.path,
        env=plain,
        input_bytes=lines.encode(),
    )
    shutil.copyfile(keep / "index", agent / "index")
    settings = [("core.excludesFile", str(keep / "info" / "exclude"))]
    settings += [("remote.origin.url", url)] if url is not None else []
    for key, value in settings:
        run_git(["config", key, value], cwd=repo.path, env=plain)
