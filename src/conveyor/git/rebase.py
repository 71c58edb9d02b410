"""Rebasing a work tree onto another commit, leaving a conflicted rebase in place to finish.

The rebase runs in the agent's own repository (in the box, hooks off), where a resolver
session finishes it with `git rebase --continue`; its HEAD then comes into the keep.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from conveyor.git.agent_repo import agent_git, agent_run, changed
from conveyor.git.keep import BETWEEN_COMMITS
from conveyor.git.refs import rev_parse
from conveyor.git.runner import Repo, git_text

# A conflict marker line as git writes it: seven of the same sign, then a space or the end.
_MARKER = re.compile(r"^\+(<{7}|>{7}|\|{7})( |$)|^\+={7}$")


@dataclass(frozen=True)
class RebaseRun:
    """A rebase: finished (`head` is the new HEAD) or stopped on `conflicts`."""

    finished: bool
    head: str
    conflicts: tuple[str, ...] = ()


# Whether a rebase is stopped, asked of the agent's repository (exit status 0: it is).
_STOPPED = (
    'd=$(git rev-parse --git-dir) && { [ -d "$d/rebase-merge" ] || [ -d "$d/rebase-apply" ]; }'
)


def rebase_in_progress(repo: Repo) -> bool:
    """Whether a rebase is stopped in the work tree (the agent's repository holds it)."""
    return agent_run(repo, ["sh", "-c", _STOPPED], ok_codes=(0, 1, 128)).returncode == 0


def conflicted_paths(repo: Repo) -> tuple[str, ...]:
    """Unmerged paths in the index of the agent's repository (a stopped rebase's)."""
    names = agent_git(repo, "diff", "--name-only", "--diff-filter=U").stdout.decode()
    return tuple(dict.fromkeys(n for n in names.splitlines() if n))


def _rebase(repo: Repo, *args: str) -> RebaseRun:
    status = changed(repo, "rebase", "--no-autostash", "--no-verify", *args, ok_codes=(0, 1))
    if status == 0 and not rebase_in_progress(repo):
        return RebaseRun(True, rev_parse(repo, "HEAD"))
    return RebaseRun(False, rev_parse(repo, "HEAD"), conflicted_paths(repo))


def rebase(repo: Repo, onto: str) -> RebaseRun:
    """Rebase the current branch onto `onto` (a revision the keep resolves); on a conflict
    the rebase is left stopped."""
    return _rebase(repo, rev_parse(repo, onto))


def rebase_onto(repo: Repo, onto: str, upstream: str) -> RebaseRun:
    """Replay the commits after `upstream` onto `onto` (`git rebase --onto`), as `rebase` does."""
    return _rebase(repo, "--onto", rev_parse(repo, onto), rev_parse(repo, upstream))


def abort_rebase(repo: Repo) -> None:
    """Abort a stopped rebase (no-op when none is in progress)."""
    if rebase_in_progress(repo):
        changed(repo, "rebase", "--abort")


def marker_lines(repo: Repo, base: str, head: str) -> tuple[str, ...]:
    """`path:line` of every conflict marker the commits `base..head` added."""
    diff = git_text(
        repo,
        *("diff", BETWEEN_COMMITS, "--text", "--unified=0", "--no-color", "--no-ext-diff"),
        f"{base}..{head}",
    )
    found: list[str] = []
    path, line = "", 0
    for text in diff.splitlines():
        if text.startswith("+++ "):
            path = text[6:] if text.startswith("+++ b/") else text[4:]
        elif text.startswith("@@"):
            match = re.search(r"\+(\d+)", text)
            line = int(match[1]) if match else 0
        elif text.startswith("+"):
            if _MARKER.match(text):
                found.append(f"{path}:{line}")
            line += 1
    return tuple(found)
