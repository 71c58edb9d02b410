"""The comment that shows a person the edits Conveyor did not take, and who made them (TRUST-12).

One comment per issue (`HELD_KIND`, edited in place): each held edit names the text (the
description or a comment, linked), who last edited it and when, and what changed as a diff
from the text agents read (cut to `DIFF_LIMIT` characters). Agents never read this comment
(`issue_text.agent_visible` leaves its kind out): it quotes the untrusted text.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence

from conveyor.core.stop_text import fence
from conveyor.core.taken import BODY, Held

HELD_KIND = "held-edits"
DIFF_LIMIT = 3_000

HEAD = (
    "### Edits Conveyor did not take\n\n"
    "Conveyor reads an issue's description and comments as trusted people wrote them "
    "(`allowed_users` who still collaborate). The edits below were made by someone else, so "
    "its agents do not read them: they keep working from the text as Conveyor first took it. "
    "To have a change taken, a trusted person can make it themselves."
)
CLEARED = (
    "### Edits Conveyor did not take\n\n"
    "None now: every edit listed here before was undone, or a trusted person has since "
    "edited the text."
)


def held_note(held: Sequence[Held], links: Mapping[str, str]) -> str:
    """The comment's text for the held edits (`links`: each key's page on the forge)."""
    if not held:
        return CLEARED
    return "\n\n".join([HEAD, *(_item(h, links.get(h.key, "")) for h in held)])


def _item(held: Held, link: str) -> str:
    what = "The description" if held.key == BODY else f"A comment by @{held.author}"
    named = f"[{what}]({link})" if link else what
    who = f"@{held.by}" if held.by else "someone the forge did not name"
    when = f" on {held.at.strftime('%Y-%m-%d %H:%M UTC')}" if held.at is not None else ""
    line = f"- **{named}** was last edited by {who}{when}."
    if held.kept is None:
        return (
            f"{line} Conveyor has no copy of the text as it took it, so its agents read none "
            "of this text until a trusted person edits it."
        )
    return f"{line} What changed:\n\n{fence(diff_of(held.kept, held.live))}"


def diff_of(before: str, after: str) -> str:
    """A unified diff of two texts, cut to `DIFF_LIMIT` characters."""
    lines = difflib.unified_diff(
        before.splitlines(), after.splitlines(), "as taken", "as edited", lineterm="", n=1
    )
    text = "\n".join(lines) or "(only whitespace changed)"
    if len(text) > DIFF_LIMIT:
        text = text[:DIFF_LIMIT].rstrip() + f"\n… (cut: the diff has {len(text):,} characters)"
    return text
