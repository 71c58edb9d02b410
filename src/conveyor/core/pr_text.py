"""What the sessions of a review of a person's PR read of it: `issue.md` for a PR.

As for an issue (TRUST-5, TRUST-6, TRUST-12): hidden markup stripped, long texts cut, and
only trusted people's words, a text counting as its author's only while its author *and*
its last editor are trusted (`Trust.text`). On GitHub anyone with write access may edit a
PR's description or anyone's comment on it, so a collaborator outside `allowed_users`
could otherwise put words in a trusted person's mouth between the label and the review.

- An untrusted author's description or comment is withheld, even when a trusted person
  edited it since: an edit vouches for what it changed, not for every word left standing.
- A trusted author's text last edited by someone untrusted (or read without its edit facts)
  is withheld whole, in its place a line saying who last edited it; the review's body names
  it too (`held`), so a person sees what the review did not read.
- A review reads the PR once, right after its claim, and its sessions read only that file:
  the text is as the claim saw it. There is no earlier trusted version to fall back on: a
  review keeps no copy across passes, and the forge's edit history cannot be checked
  against one (issue texts can: `core/taken.py`). A trusted person's own edit makes the
  text theirs again.

Conversation comments, review bodies and inline review comments count alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from conveyor.core.issue_text import BODY_LIMIT, COMMENT_LIMIT, agent_visible, for_agents, one_line
from conveyor.core.trust import Edits, Kind, TextTrust, Trust


@dataclass(frozen=True)
class PrWords:
    """One thing someone wrote on the PR: a comment, a review's body or an inline comment.

    `edits` is who last edited it (None: the read did not say, so it is not believed)."""

    id: int
    author: str
    body: str
    created_at: datetime
    updated_at: datetime
    where: str = ""  # `path:line` of an inline comment
    edits: Edits | None = None


@dataclass(frozen=True)
class PrFacts:
    """The PR as the review is told of it; `edits` is who last edited its description."""

    number: int
    title: str
    author: str
    body: str
    head_ref: str
    head_sha: str
    base: str
    head_repo: str | None = None  # another repository's `OWNER/NAME` for a PR from a fork
    edits: Edits | None = None


@dataclass(frozen=True)
class PrText:
    """The PR's `issue.md`, how many texts were withheld for their untrusted authors, and
    the trusted people's texts withheld for an edit nobody trusted (each said for a person:
    `the description, last edited by @x`)."""

    markdown: str
    withheld: int
    held: tuple[str, ...] = ()


def _edited_by(edits: Edits | None) -> str:
    """Who last edited a held text, as a person and a session are told."""
    if edits is None or edits.last is None:
        return "the forge did not say who last edited it"
    return f"last edited by @{edits.last.by}, who is not trusted"


def _description(pr: PrFacts, trust: Trust) -> tuple[str, int, str | None]:
    """The description's part of `issue.md`, 1 when its author is untrusted, and the held
    line when an edit is."""
    verdict = trust.text(pr.author, pr.edits)
    if verdict is TextTrust.UNTRUSTED_AUTHOR:
        text = "(The description is withheld: its author is not a trusted user.)"
        return text, 1 if pr.body.strip() else 0, None
    if verdict is TextTrust.TRUSTED or not pr.body.strip():
        return for_agents(pr.body, BODY_LIMIT, "PR description") or "(no description)", 0, None
    why = _edited_by(pr.edits)
    return f"(The description is withheld: {why}.)", 0, f"the description ({why})"


def render_pr(pr: PrFacts, words: Iterable[PrWords], trust: Trust) -> PrText:
    """The text of the PR's `issue.md`: its description and trusted words, oldest first."""
    description, withheld, held_body = _description(pr, trust)
    held = [held_body] if held_body else []
    fork = f" (from the fork {pr.head_repo})" if pr.head_repo else ""
    parts = [
        f"# #{pr.number}: {one_line(pr.title)}",
        f"A pull request by @{pr.author}: branch `{one_line(pr.head_ref)}`{fork} into "
        f"`{pr.base}`, head `{pr.head_sha}`.",
        description,
    ]
    for item in sorted(words, key=lambda w: (w.created_at, w.id)):
        if not item.body.strip():
            continue
        if not agent_visible(item, trust):
            withheld += 1 if trust.kind(item) is Kind.UNTRUSTED else 0
            continue
        stamp = item.created_at.strftime("%Y-%m-%d %H:%M UTC")
        place = f" on `{item.where}`" if item.where else ""
        parts.append(f"## Comment by @{item.author}{place} ({stamp})")
        if trust.text(item.author, item.edits) is TextTrust.TRUSTED:
            parts.append(for_agents(item.body, COMMENT_LIMIT, "comment") or "(empty)")
            continue
        why = _edited_by(item.edits)
        parts.append(f"(Withheld: {why}.)")
        spot = f" on {item.where}" if item.where else ""
        held.append(f"a comment by @{item.author}{spot} of {stamp} ({why})")
    noun = "text" if withheld == 1 else "texts"
    parts.append(
        f"{withheld} {noun} from users who are not trusted withheld."
        if withheld
        else "Nothing withheld."
    )
    if held:
        noun = "text" if len(held) == 1 else "texts"
        parts.append(
            f"{len(held)} {noun} by trusted users withheld for an edit Conveyor cannot trust "
            "(each is marked above)."
        )
    return PrText("\n\n".join(parts) + "\n", withheld, tuple(held))
