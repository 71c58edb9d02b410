"""The branch guard: a PR head on the forge that is not the recorded head stops the issue.

So does a checkout whose branch, as the job fetched it, is not at the recorded head: a
forge moves a PR's head after the push lands (GitHub within seconds, the embedded forge
when it next reads its push log), so a read of the PR moments before the fetch may still
show the old head while the checkout, and everything the job would verify and merge,
already holds the push.

A head the pipeline pushed itself is not a change by someone else: a job killed after
its push (before it saved the pushed head) leaves the forge ahead of the state. Such a
head adds only commits the pipeline's own account committed (its rebases and its
writers' commits), and the guard takes it as the recorded head.
"""

from __future__ import annotations

from dataclasses import dataclass

from conveyor.forge.job_view import JobForge
from conveyor.forge.protocol import Forge
from conveyor.git import Repo, rev_parse
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

    def checked_out(self) -> str:
        """The checkout's head: the branch as the job fetched it."""
        return rev_parse(self.repo, "HEAD")

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
    """Compare the PR's head (or the branch, before a PR), and the checkout's head when `own`
    names the checkout, with `recorded`; nothing is written.

    A person pushing to the PR branch (or force-pushing it) makes the heads differ:
    the issue stops `branch-changed` and the pipeline never overwrites that push.
    """
    head: str | None
    if pr is not None:
        # A job's start read, moments old, may answer (`JobForge.recent_head`): the job's
        # checkout was fetched then too, and its head is compared below (the read may not
        # show a push the fetch got yet); a push after the fetch is met by the next guard,
        # and the merge names the head it expects (the forge refuses a moved one), so
        # nothing but the verified head merges.
        recent = forge.recent_head(pr) if isinstance(forge, JobForge) else None
        head = recent or forge.get_pr(pr).head_sha
    else:
        found = forge.get_branch(branch)
        head = found.sha if found else None
    if recorded is None:
        return Guarded(True, head)
    where = f"PR #{pr}" if pr is not None else f"branch {branch}"
    heads = [(head, f"{where} is at {head or 'no branch'} on the forge", True)]
    if own is not None and (local := own.checked_out()) != head:
        heads.append((local, f"branch {branch} is at {local} as this job fetched it", False))
    adopted = None
    for sha, said, on_forge in heads:
        if sha == recorded:
            continue
        if sha is not None and own is not None and own.pushed(sha, recorded):
            adopted = sha if on_forge else adopted  # only a pushed head is recorded
            continue
        because = f"{said}, but the pipeline recorded {recorded}; someone else changed it."
        return Guarded(False, head, (f"{because} Nothing was overwritten.",))
    return Guarded(True, head, adopted=adopted)
