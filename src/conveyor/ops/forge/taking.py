"""The issue's text for agents: trusted by author and last editor, fixed when taken (TRUST-12).

Every `issue.md` is written here (the claim, a lane's next job, the reread before a
session). The issue and its comments are read with their edit facts (GraphQL: REST has no
editor), `core/taken.py` decides which text of each agents read against the hashes the
state recorded, a held text's copy is looked up (the run folder's, else the forge's own
edit history, each checked against the hash: the forge is the record that survives a lost
machine), and a person is shown the held edits in one comment edited in place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from conveyor.core.held_note import HELD_KIND, held_note
from conveyor.core.issue_text import IssueText, agent_visible, pieces_of
from conveyor.core.signatures import parse_marker
from conveyor.core.taken import BODY, Taking, comment_key, needs_kept, take, text_hash
from conveyor.core.trust import Trust
from conveyor.forge.errors import ForgeError
from conveyor.forge.job_view import JobForge
from conveyor.forge.types import Comment, Issue
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.issue_md import read_kept, write_issue_md


@dataclass(frozen=True)
class TakenText:
    """`issue.md` as written, and the hashes to record in the state (`IssueState.taken`)."""

    path: Path
    text: IssueText
    hashes: dict[str, str]


def take_issue(
    ctx: OpContext,
    folder: Path,
    issue: Issue,
    comments: tuple[Comment, ...],
    recorded: Mapping[str, str],
    *,
    claim: str | None = None,
) -> TakenText:
    """Write `folder/issue.md` from the texts that may be taken, and show the held edits."""
    trust = ctx.trust()
    issue, comments = _with_edit_facts(ctx, issue, comments, trust)
    pieces = pieces_of(issue.author, issue.body, issue.edits, comments, trust)
    wanted = needs_kept(pieces, trust, recorded)
    kept = (
        _find_kept(ctx, folder, wanted, recorded, issue=issue, comments=comments) if wanted else {}
    )
    taking = take(pieces, trust, recorded, kept)
    path, text = write_issue_md(folder, issue, comments, trust, taking, claim=claim)
    _show_held(ctx, issue, comments, taking)
    return TakenText(path, text, dict(taking.hashes))


def _with_edit_facts(
    ctx: OpContext, issue: Issue, comments: tuple[Comment, ...], trust: Trust
) -> tuple[Issue, tuple[Comment, ...]]:
    """The issue and comments again from GraphQL when any text agents may read came without
    who last edited it (a REST read); one request."""
    unknown = issue.edits is None or any(
        c.edits is None for c in comments if agent_visible(c, trust)
    )
    if not unknown:
        return issue, comments
    if isinstance(ctx.forge, JobForge):
        ctx.forge.forget(issue.number)
    thread = ctx.forge.read_issue_thread(issue.number)
    return thread.issue, thread.comments


def _find_kept(
    ctx: OpContext,
    folder: Path,
    wanted: list[str],
    recorded: Mapping[str, str],
    *,
    issue: Issue,
    comments: tuple[Comment, ...],
) -> dict[str, str]:
    """The copy of each held text as taken: the run folder's, else the forge's edit history."""
    local, _ = read_kept(folder)
    found = {k: local[k] for k in wanted if k in local and text_hash(local[k]) == recorded[k]}
    nodes = {BODY: issue.node_id} | {comment_key(c.id): c.node_id for c in comments}
    for key in wanted:
        if key in found or not nodes.get(key):
            continue
        try:
            versions = ctx.forge.text_versions(nodes[key])
        except ForgeError:
            continue  # no copy: the text is withheld, and the note says so
        for version in versions:
            if version.text is not None and text_hash(version.text) == recorded[key]:
                found[key] = version.text
                break
    return found


def _show_held(ctx: OpContext, issue: Issue, comments: tuple[Comment, ...], taking: Taking) -> None:
    """Post the held edits (or edit the earlier note), or clear a note that listed some."""
    trust = ctx.trust()
    earlier = next((c for c in comments if trust.pipeline(c) and _kind(c) == HELD_KIND), None)
    if earlier is None and not taking.held:
        return
    links = {BODY: issue.html_url} | {comment_key(c.id): c.html_url for c in comments}
    text = held_note(taking.held, links)
    sig = ctx.signature()
    if earlier is None:
        ctx.forge.create_comment(issue.number, sig.sign(HELD_KIND, text))
    elif _said(earlier) != text.strip():
        ctx.forge.edit_comment(earlier.id, sig.sign(HELD_KIND, text), issue.number)


def _kind(comment: Comment) -> str | None:
    marker = parse_marker(comment.body)
    return marker.kind if marker is not None else None


def _said(comment: Comment) -> str:
    """A signed comment's text, after its header and marker."""
    return comment.body.split("\n", 2)[-1].strip()
