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

from conveyor.git.refs import read_branch_commit
from conveyor.git.runner import Repo, git_text

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
# What every diff and status Conveyor reads says of submodules, on its command line, so that
# no `.gitmodules` (the agent's, a person's) is read: its `submodule.<name>.ignore = none`
# would override `diff.ignoreSubmodules` above, and `git status` would then run a git in the
# submodule's folder, whose `.git` a box writes; its `update = !command` makes every diff die.
# Between two commits every gitlink change shows (a moved submodule is a change like any
# other); against the work tree no submodule's folder is entered.
BETWEEN_COMMITS = "--ignore-submodules=none"
AGAINST_WORK_TREE = "--ignore-submodules=all"
# The refs the agent's repository starts with (and `copy_refs` refreshes).
AGENT_REFS = ("refs/heads/", "refs/remotes/", "refs/tags/")
# The agent's repository is written as `git init --template=` would make it, without a
# process: its config (the core section as init writes it on Linux), its packed refs.
AGENT_CONFIG = (
    "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
    "\tlogallrefupdates = true\n"
)
PACKED_REFS = "# pack-refs with: sorted \n"


def keep_clone_args() -> list[str]:
    """What a `git clone` into a keep is given: no template (no sample hooks to copy), and
    the keep's settings (`KEEP_SETTINGS`) written by the clone itself."""
    args = ["--template="]
    for key, value in KEEP_SETTINGS:
        args += ["--config", f"{key}={value}"]
    return args


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
    head = read_branch_commit(repo, "HEAD") or git_text(repo, "rev-parse", "--verify", "HEAD")
    refs = git_text(repo, "for-each-ref", "--format=%(objectname) %(refname)", *AGENT_REFS)
    agent.unlink()
    for folder in ("objects/info", "objects/pack", "refs/heads", "refs/tags"):
        (agent / folder).mkdir(parents=True)
    (agent / "HEAD").write_text(f"ref: refs/heads/{branch}\n" if branch else f"{head}\n")
    (agent / "packed-refs").write_text(f"{PACKED_REFS}{refs}\n" if refs else PACKED_REFS)
    (agent / "objects" / "info" / "alternates").write_text(f"{keep / 'objects'}\n")
    shutil.copyfile(keep / "index", agent / "index")
    (keep / "info").mkdir(exist_ok=True)
    (keep / "info" / "exclude").touch()
    text = AGENT_CONFIG + f"\texcludesFile = {_quoted(str(keep / 'info' / 'exclude'))}\n"
    if url is not None:
        text += f'[remote "origin"]\n\turl = {_quoted(url)}\n'
    (agent / "config").write_text(text, encoding="utf-8")


def _quoted(value: str) -> str:
    """`value` as a git config value: in double quotes, backslash and quote escaped."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
