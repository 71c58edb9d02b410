"""The branch guard: a PR head on the forge that is not the recorded head stops the issue.

A head the pipeline pushed itself is not a change by someone else: a job killed after
its push (before it saved the pushed head) leaves the forge ahead of the state. Such a
head adds only commits the pipeline's own account committed (its rebases and its
writers' commits), and the guard takes it as the recorded head.
"""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.forge.job_view import JobForge
from conveyor.forge.protocol import Forge
from conveyor.git import Repo
from conveyor.git.committers import new_committers


@dataclass(frozen=True)
class Guarded:
    """Whether the forge still holds the recorded head; `findings` say what differs.

    `adopted` is the forge's head when it differs but is the pipeline's own push.
    """

    ok: bool
    forge_head: str | None
    findings: tuple[str, ...] = ()
    adopted: str | None = None


@dataclass(frozen=True)
class OwnPushes:
    """How to recognise the pipeline's own pushes: the job's checkout, the base's ref as
    fetched there, and the e-mail the pipeline commits with."""

    repo: Repo
    base_ref: str
    email: str

    def pushed(self, head: str, recorded: str) -> bool:
        """Whether every commit `head` adds past `recorded` and the base is the pipeline's."""
        found = new_committers(self.repo, head, (recorded, self.base_ref))
        if not found:
            return False
        return all(email.casefold() == self.email.casefold() for email in found)


def guard_branch(
    forge: Forge,
    pr: int | None,
    branch: str,
    recorded: str | None,
    own: OwnPushes | None = None,
) -> Guarded:
    """Compare the PR's head (or the branch, before a PR) with `recorded`; nothing is written.

    A person pushing to the PR branch (or force-pushing it) makes the heads differ:
    the issue stops `branch-changed` and the pipeline never overwrites that push.
    """
    head: str | None
    if pr is not None:
        # A job's start read, moments old, may answer (`JobForge.recent_head`): the job's
        # checkout was fetched then too, so it works on that head; a push after it is met
        # by the next guard, and the merge names the head it expects (the forge refuses a
        # moved one), so nothing but the verified head merges.
        recent = forge.recent_head(pr) if isinstance(forge, JobForge) else None
        head = recent or forge.get_pr(pr).head_sha
    else:
        found = forge.get_branch(branch)
        head = found.sha if found else None
    if recorded is None or head == recorded:
        return Guarded(True, head)
    if head is not None and own is not None and own.pushed(head, recorded):
        return Guarded(True, head, adopted=head)
    where = f"PR #{pr}" if pr is not None else f"branch {branch}"
    found_text = head or "no branch"
    return Guarded(
        False,
        head,
        (
            f"{where} is at {found_text} on the forge, but the pipeline recorded {recorded}; "
            "someone else changed it. Nothing was overwritten.",
        ),
    )
