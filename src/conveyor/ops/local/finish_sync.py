"""The finish-sync op: the rebase finished on the current base with no markers, then push."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from conveyor.git import Repo, is_ancestor, rev_parse, try_rev_parse, update_ref
from conveyor.git.keep import AGAINST_WORK_TREE, BETWEEN_COMMITS
from conveyor.git.rebase import marker_lines, rebase_in_progress
from conveyor.git.runner import git_text
from conveyor.git.token_push import PushResult
from conveyor.ops.local.sync_base import base_ref


class PushFn(Protocol):
    """The job's push op (the only way to push): `src` to the full ref `dst`."""

    def __call__(
        self, src: str | None, dst: str, *, lease: str | None = None, force: bool = False
    ) -> PushResult:
        """Push one ref to the forge."""
        ...


@dataclass(frozen=True)
class SyncPushed:
    """finish-sync's verdict: pushed (or already there) at `head_sha`, or why not."""

    ok: bool
    head_sha: str
    findings: tuple[str, ...] = ()


def check_finished(repo: Repo, base: str, onto: str | None = None) -> tuple[str, ...]:
    """Why the rebase is not done yet: still stopped, not on the current base (or on `onto`, the
    commit a stacked rebase went onto), markers, edits."""
    if rebase_in_progress(repo):
        return ("the rebase is still stopped: finish it with `git rebase --continue`",)
    target = rev_parse(repo, onto or base_ref(base))
    head = rev_parse(repo, "HEAD")
    named = f"the current base {base}" if onto is None else "the prerequisite's head"
    found: list[str] = []
    if not is_ancestor(repo, target, head):
        found.append(f"HEAD {head[:12]} is not on {named} ({target[:12]})")
    onto = target
    found += [f"{where}: a conflict marker is left" for where in marker_lines(repo, onto, head)]
    edited = [
        p
        for p in git_text(repo, "diff", AGAINST_WORK_TREE, "--name-only", "HEAD").splitlines()
        if p
    ]
    found += [f"{path}: changed but not committed" for path in edited]
    return tuple(found)


def changes_code(repo: Repo, base: str, onto: str | None = None) -> bool:
    """The code flow after a sync (FLOW-1, SYNC-12): HEAD changes files against where its own
    change starts, `onto` (the commit a stacked rebase went onto) or else the base."""
    start = onto or base_ref(base)
    return bool(git_text(repo, "diff", BETWEEN_COMMITS, "--name-only", f"{start}...HEAD").strip())


def finish_sync(
    repo: Repo, push: PushFn, *, base: str, branch: str, onto: str | None = None
) -> SyncPushed:
    """Check the finished rebase, then push HEAD with lease on the branch as last fetched."""
    head = rev_parse(repo, "HEAD")
    findings = check_finished(repo, base, onto)
    if findings:
        return SyncPushed(False, head, findings)
    tracking = f"refs/remotes/origin/{branch}"
    remote = try_rev_parse(repo, tracking)
    if remote == head:
        return SyncPushed(True, head)
    done = push(head, f"refs/heads/{branch}", lease=remote or "")
    if not done.ok:
        return SyncPushed(False, head, (f"the push of {branch} was refused: {done.error}",))
    update_ref(repo, tracking, head)
    return SyncPushed(True, head)
