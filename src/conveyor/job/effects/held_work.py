"""Whether a branch holds work a reset or a forced push would discard (SPEC-128).

Two things hold a branch: a head on the forge other than the one this job last fetched or
pushed (someone pushed while its session ran: the lease is on the head the job saw, never
on the one it reads just before it writes), and commits since the stage's start that carry
no pipeline role's `Pipeline-Agent:` trailer (a person's commits the job fetched). Either
leaves the branch as it is and stops the issue `branch-changed`, naming what was found.
"""

from __future__ import annotations

from collections.abc import Sequence

from conveyor.agents.hooks import TRAILER_KEY
from conveyor.core.signatures import ROLE_NAMES
from conveyor.git.committers import untrailed_commits
from conveyor.git.refs import try_rev_parse
from conveyor.job.effects.parts import BranchHeld, JobHands, JobPlace, JobSubject

PIPELINE_ROLES = frozenset(ROLE_NAMES.values())
LISTED = 5  # commits named in the stop's reason


def last_seen(who: JobHands, where: JobPlace, what: JobSubject) -> str | None:
    """The branch's head as this job last fetched or pushed it (the checkout's remote-tracking
    ref only when the job's record does not name it)."""
    if who.seen.known(what.branch_ref):
        return who.seen.get(what.branch_ref)
    return try_rev_parse(where.git, f"refs/remotes/origin/{what.branch}")


def held_work(
    what: JobSubject, where: JobPlace, who: JobHands, remote: str, since: Sequence[str]
) -> BranchHeld | None:
    """Why the branch at `remote` must be left as it is, or None; `since` are the revisions
    whose commits are not the stage's (its start, the base)."""
    seen = last_seen(who, where, what)
    if remote != seen:
        where_seen = f"at {seen[:12]}" if seen else "absent"
        return BranchHeld(
            f"`{what.branch}` is at {remote[:12]} on the forge, but was {where_seen} when this "
            "job last fetched or pushed it: someone pushed to it while the session ran. "
            "Resetting it would discard that work, so the branch was left as it is."
        )
    foreign = untrailed_commits(where.git, remote, since, TRAILER_KEY, PIPELINE_ROLES)
    if not foreign:
        return None
    named = ", ".join(f"{sha[:12]} ({subject!r})" for sha, subject in foreign[:LISTED])
    more = f" and {len(foreign) - LISTED} more" if len(foreign) > LISTED else ""
    return BranchHeld(
        f"`{what.branch}` has commits no pipeline role made since this stage began: "
        f"{named}{more}. Resetting it would discard them, so the branch was left as it is."
    )
