"""Finding the commits a leftover checkout holds that the remote lacks (STOP-10).

A job killed before its exit push leaves `repo/` behind. Before it is removed,
every commit in it that neither the issue's remote branch nor the base has is
saved as `refs/conveyor/rescue/<n>/<UTC YYYYMMDDTHHMMSSZ>` (and pushed).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from conveyor.git.agent_repo import changed, harvest
from conveyor.git.refs import is_ancestor, try_rev_parse
from conveyor.git.runner import GitError, Repo, git_text

RESCUE_PREFIX = "refs/conveyor/rescue/"
LEFTOVER_REF = "refs/conveyor/leftover"


@dataclass(frozen=True)
class Unpushed:
    """A leftover checkout's head and the commits of it the remote lacks (oldest first)."""

    head: str
    commits: tuple[str, ...]


def rescue_ref(issue: int, moment: datetime) -> str:
    """`refs/conveyor/rescue/<n>/<UTC YYYYMMDDTHHMMSSZ>`."""
    return f"{RESCUE_PREFIX}{issue}/{moment.strftime('%Y%m%dT%H%M%SZ')}"


def find_unpushed(
    checkout: Repo, leftover: Path, remote_refs: tuple[str, ...], leftover_keep: Path | None = None
) -> Unpushed | None:
    """Bring the leftover's HEAD into `checkout` and list its commits none of `remote_refs` has.

    The leftover's repository is the agent's: its HEAD comes in as `harvest` takes it, from
    an upload-pack in the box (which shows `leftover_keep`, whose objects it borrows).
    None when the leftover has no commit to read (a clone cut short) or holds
    nothing new. The head stays reachable as `LEFTOVER_REF` in `checkout`.
    """
    shown = (leftover_keep,) if leftover_keep is not None and leftover_keep.is_dir() else ()
    try:
        head = harvest(checkout, leftover, into=LEFTOVER_REF, readable=shown)
    except GitError:
        return None
    if head is None:
        return None
    known = [sha for ref in remote_refs if (sha := try_rev_parse(checkout, ref)) is not None]
    out = git_text(checkout, "rev-list", "--reverse", head, "--not", *known, "--")
    commits = tuple(line for line in out.splitlines() if line)
    return Unpushed(head, commits) if commits else None


def can_continue(checkout: Repo, head: str, branch_ref: str) -> bool:
    """Whether work can go on from `head`: the remote branch has not moved past it.

    True when the remote branch is missing or is an ancestor of `head`.
    """
    remote = try_rev_parse(checkout, branch_ref)
    return remote is None or is_ancestor(checkout, remote, head)


def move_branch(checkout: Repo, head: str) -> None:
    """Point the checked-out branch and the work tree at `head` (in the agent's repository,
    then the keep)."""
    changed(checkout, "reset", "--quiet", "--hard", head)
