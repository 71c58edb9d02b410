"""The agent's own repository (the checkout's `.git`): git there runs in the job's box, and
what it made reaches the keep only as objects a fetch verified.

The checkout's `.git` is the agent's: a session and every boxed command can write its
config, hooks, refs and objects. So Conveyor's git never runs there outside a box. What
must change the agent's branch, index or work tree (the commit tool, a rebase, a reset)
runs boxed in it, with hooks off, as the agent's own git would; Conveyor then takes the
agent's HEAD into the keep with `harvest` (an upload-pack in the box, a fetch in the
keep that checks every object) and reads and pushes only from the keep.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from conveyor.git.keep import ref_lines
from conveyor.git.refs import rev_parse, try_rev_parse
from conveyor.git.runner import GitError, Repo, run_git

# On every git Conveyor runs in the agent's repository: the repository's own hooks (a
# project's husky or pre-commit hooks as much as a planted one) never run for Conveyor's
# commits and rebases, and never refuse them; a signing key the repository asks for is not
# there. Its other settings stay its own: that git runs in the box.
AGENT_FLAGS = (
    *("-c", f"core.hooksPath={os.devnull}"),
    *("-c", "commit.gpgsign=false"),
    *("-c", "core.fsmonitor=false"),
)
HARVEST_REF = "refs/conveyor/agent-head"
HARVEST_TIMEOUT_S = 300.0


def _readable(repo: Repo) -> tuple[Path, ...]:
    """What boxed git reads besides the checkout: the keep (the agent's objects' alternate)
    and the job's global config."""
    paths = [p for p in (repo.env.git_dir, repo.env.config_global) if p is not None]
    return tuple(paths)


def boxed(
    repo: Repo, argv: list[str], cwd: Path | None = None, readable: tuple[Path, ...] = ()
) -> list[str]:
    """`argv` as it runs in the agent's repository: in the box (cwd writable), or bare."""
    if repo.box is None:
        return argv
    return repo.box(argv, cwd=cwd or repo.path, readable=(*_readable(repo), *readable))


def agent_run(
    repo: Repo,
    argv: Sequence[str],
    *,
    input_bytes: bytes | None = None,
    ok_codes: Sequence[int] = (0,),
) -> subprocess.CompletedProcess[bytes]:
    """Run `argv` in the checkout with the agent's repository as git's (no `GIT_DIR`),
    boxed; GitError unless its exit status is in `ok_codes`."""
    full = boxed(repo, list(argv))
    variables = replace(repo.env, git_dir=None).variables()
    try:
        done = subprocess.run(
            full, cwd=repo.path, env=variables, input=input_bytes, capture_output=True, check=False
        )
    except (OSError, ValueError) as exc:
        raise GitError(list(argv), -1, str(exc)) from exc
    if done.returncode not in ok_codes:
        raise GitError(list(argv), done.returncode, done.stderr.decode(errors="replace"))
    return done


def agent_git(
    repo: Repo, *args: str, input_bytes: bytes | None = None, ok_codes: Sequence[int] = (0,)
) -> subprocess.CompletedProcess[bytes]:
    """`git ARGS` in the agent's repository (`AGENT_FLAGS`), boxed."""
    return agent_run(repo, ["git", *AGENT_FLAGS, *args], input_bytes=input_bytes, ok_codes=ok_codes)


def changed(repo: Repo, *args: str, ok_codes: Sequence[int] = (0,)) -> int:
    """Run `git ARGS` in the agent's repository, then take its HEAD into the keep; the exit
    status (for a rebase that stops on a conflict)."""
    done = agent_git(repo, *args, ok_codes=ok_codes)
    harvest(repo)
    return done.returncode


def harvest(
    repo: Repo,
    source: Path | None = None,
    *,
    into: str = HARVEST_REF,
    readable: tuple[Path, ...] = (),
) -> str | None:
    """Fetch the HEAD of the agent's repository at `source` (the checkout by default) into
    the keep as `into`; the commit, or None when that HEAD names no commit, or when `repo`
    has no keep and no `source` is named (the checkout is its own repository: nothing to
    take). `readable` is what the box must also show (a leftover checkout's own keep).

    The other end is an upload-pack in the box; the fetch checks every object it receives
    (`fetch.fsckObjects`), as from any remote. Taking the checkout's HEAD also puts the
    keep's HEAD (its branch) and index there, so what Conveyor reads is what the agent made.
    """
    if source is None and repo.env.git_dir is None:
        return None
    where = source or repo.path
    upload = shlex.join(boxed(repo, ["git", *AGENT_FLAGS, "upload-pack"], where, readable))
    fetch = ["-c", "fetch.fsckObjects=true", "fetch", "--quiet", "--no-tags"]
    fetch += ["--no-write-fetch-head", f"--upload-pack={upload}", "--", str(where)]
    try:
        run_git([*fetch, f"+HEAD:{into}"], cwd=repo.path, env=repo.env, timeout=HARVEST_TIMEOUT_S)
    except GitError as exc:
        if "couldn't find remote ref" in exc.stderr:
            return None
        raise
    sha = rev_parse(repo, into)
    if source is None and try_rev_parse(repo, "HEAD") != sha:
        run_git(["reset", "--quiet", sha], cwd=repo.path, env=repo.env)
    return sha


def copy_refs(repo: Repo, prefixes: tuple[str, ...] = ("refs/remotes/", "refs/tags/")) -> None:
    """Give the agent's repository the keep's refs under `prefixes` (what the cache last
    fetched), so `origin/main` there is where Conveyor's is; nothing without a keep."""
    lines = ref_lines(repo, prefixes) if repo.env.git_dir is not None else ""
    if lines:
        agent_git(repo, "update-ref", "--stdin", input_bytes=lines.encode())
