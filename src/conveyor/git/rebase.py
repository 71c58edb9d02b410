"""Rebasing a work tree onto another commit, leaving a conflicted rebase in place to finish."""

from __future__ import annotations

import re
from dataclasses import dataclass

from conveyor.git.refs import rev_parse
from conveyor.git.runner import Repo, git_text, run_git

# A conflict marker line as git writes it: seven of the same sign, then a space or the end.
_MARKER = re.compile(r"^\+(<{7}|>{7}|\|{7})( |$)|^\+={7}$")


@dataclass(frozen=True)
class RebaseRun:
    """A rebase: finished (`head` is the new HEAD) or stopped on `conflicts`."""

    finished: bool
    head: str
    conflicts: tuple[str, ...] = ()


def rebase_in_progress(repo: Repo) -> bool:
    """Whether a rebase is stopped in the work tree."""
    git_dir = repo.path / git_text(repo, "rev-parse", "--git-dir")
    return (git_dir / "rebase-merge").exists() or (git_dir / "rebase-apply").exists()


def conflicted_paths(repo: Repo) -> tuple[str, ...]:
    """Unmerged paths in the index."""
    names = git_text(repo, "diff", "--name-only", "--diff-filter=U")
    return tuple(dict.fromkeys(n for n in names.splitlines() if n))


def rebase(repo: Repo, onto: str) -> RebaseRun:
    """Rebase the current branch onto `onto`; on a conflict the rebase is left stopped."""
    done = run_git(
        ["rebase", "--no-autostash", "--no-verify", onto],
        cwd=repo.path,
        env=repo.env,
        ok_codes=(0, 1),
    )
    if done.returncode == 0 and not rebase_in_progress(repo):
        return RebaseRun(True, rev_parse(repo, "HEAD"))
    return RebaseRun(False, rev_parse(repo, "HEAD"), conflicted_paths(repo))


def rebase_onto(repo: Repo, onto: str, upstream: str) -> RebaseRun:
    """Replay the commits after `upstream` onto `onto` (`git rebase --onto`), as `rebase` does."""
    done = run_git(
        ["rebase", "--no-autostash", "--no-verify", "--onto", onto, upstream],
        cwd=repo.path,
        env=repo.env,
        ok_codes=(0, 1),
    )
    if done.returncode == 0 and not rebase_in_progress(repo):
        return RebaseRun(True, rev_parse(repo, "HEAD"))
    return RebaseRun(False, rev_parse(repo, "HEAD"), conflicted_paths(repo))


def abort_rebase(repo: Repo) -> None:
    """Abort a stopped rebase (no-op when none is in progress)."""
    if rebase_in_progress(repo):
        run_git(["rebase", "--abort"], cwd=repo.path, env=repo.env)


def marker_lines(repo: Repo, base: str, head: str) -> tuple[str, ...]:
    """`path:line` of every conflict marker the commits `base..head` added."""
    diff = git_text(repo, "diff", "--unified=0", "--no-color", "--no-ext-diff", f"{base}..{head}")
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
