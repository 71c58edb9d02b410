"""The handover op: a verified, accepted, security-reviewed PR left for a person to merge.

With `handover.merge = "person"` the merge stage stops short of merging (busybees'
`auto_merge` off): the PR gets `handover.label`, is assigned to `handover.assignees` and
asks `handover.reviewers` for a review, and a signed comment on the issue and the PR says
so. Anyone the forge will not assign or ask is named in the comment instead of failing the
handover. Each step can run again after a crash (labels and assignees are sets; the comment
is posted once per PR head). `mark_approved` then labels the issue `agent:approved` and
closes the lane's claim: nothing runs for it any more.
"""

from __future__ import annotations

from datetime import datetime

from conveyor.core.labels import Status, status_label
from conveyor.core.signatures import Signature, parse_marker
from conveyor.forge.errors import Validation
from conveyor.forge.types import LabelSpec
from conveyor.ops.forge.claim_comments import close_live_claims
from conveyor.ops.forge.context import OpContext, fetch_comments
from conveyor.ops.forge.labels import set_agent_label
from conveyor.ops.forge.post import post_comment
from conveyor.stages.effects_merge import PersonMerged

ROLE = "merger"
KIND = "handover"
COLOUR = "0075ca"


def handover_text(pr: int, sha: str, people: list[str], notes: list[str]) -> str:
    """The comment: what passed, that a person merges, who was asked, who could not be."""
    lines = [
        "### Ready for a person to merge",
        "",
        f"PR #{pr} passed verify at `{sha[:12]}`, CI, acceptance and the security review."
        ' Conveyor does not merge it here (`handover.merge = "person"`): review it and merge'
        " it; the forge closes this issue when it merges.",
    ]
    if people:
        said = "; ".join(people)
        lines += ["", said[:1].upper() + said[1:] + "."]
    if notes:
        lines += ["", *(f"- {note}" for note in notes)]
    return "\n".join(lines)


def _asked(ctx: OpContext, pr: int) -> tuple[list[str], list[str]]:
    """Label, assign and ask for reviews; what was done, and what the forge refused."""
    handover = ctx.config.handover
    done: list[str] = []
    notes: list[str] = []
    ctx.forge.ensure_labels([LabelSpec(handover.label, COLOUR, "Conveyor: ready to merge")])
    ctx.forge.add_labels(pr, [handover.label])
    done.append(f"labelled `{handover.label}`")
    if handover.assignees:
        got = {login.casefold() for login in ctx.forge.add_assignees(pr, handover.assignees)}
        taken = [a for a in handover.assignees if a.casefold() in got]
        if taken:
            done.append("assigned to " + ", ".join(taken))
        notes += [f"{a} cannot be assigned here" for a in handover.assignees if a not in taken]
    asked: list[str] = []
    for reviewer in handover.reviewers:  # one at a time: the forge refuses a request whole
        try:
            ctx.forge.request_reviewers(pr, [reviewer])
            asked.append(reviewer)
        except Validation as refused:
            notes.append(f"review not requested from {reviewer}: {refused.message}")
    if asked:
        done.append("review requested from " + ", ".join(asked))
    return done, notes


def hand_over(
    ctx: OpContext, issue: int, pr: int, sha: str, signature: Signature
) -> list[str] | PersonMerged:
    """Leave PR `pr`, verified at `sha`, for a person; the notes of what could not be asked.

    A PR a person already merged is returned as that merge, changing nothing; one closed
    without a merge is reopened first (a person lifted the `pr-closed` stop to have it
    handed over again).
    """
    found = ctx.forge.get_pr(pr)
    if found.merged:
        return PersonMerged(found.merge_commit_sha or "", found.merged_by, found.head_sha)
    if found.state == "closed":
        ctx.forge.reopen_pr(pr)
    done, notes = _asked(ctx, pr)
    text = handover_text(pr, sha, done, notes)
    for number in (issue, pr):
        if not _said(ctx, number, sha):
            post_comment(ctx, number, KIND, f"{text}\n<!-- conveyor:handover-head {sha} -->",
                         signature)  # fmt: skip
    return notes


def _said(ctx: OpContext, number: int, sha: str) -> bool:
    """Whether the handover of this head is already posted there (a re-run after a crash)."""
    for comment in fetch_comments(ctx, number):
        marker = parse_marker(comment.body)
        ours = marker is not None and marker.kind == KIND and ctx.trust().pipeline(comment)
        if ours and f"<!-- conveyor:handover-head {sha} -->" in comment.body:
            return True
    return False


def mark_approved(ctx: OpContext, issue: int, pr: int | None, *, now: datetime) -> None:
    """`agent:approved` in place of `agent:working`, and the lane's claim closed."""
    labels = ctx.forge.get_issue(issue).labels
    set_agent_label(ctx, issue, labels, status_label(Status.APPROVED))
    which = f"PR #{pr}" if pr is not None else "the PR"
    close_live_claims(ctx, issue, now, f"{which} is left for a person to merge.")
