"""The signed PR comment that accounts for a read of people's feedback (BB-FB, TRUST-12).

It says whose words were taken as which findings, how many items of people who are not
trusted were withheld, and which trusted people's items were not read because someone who
is not trusted edited them last (or the forge did not say who did): each linked, with its
editor and when, and how to have it taken. The edited text itself is not quoted: no copy
of it as its author left it was ever taken.
"""

from __future__ import annotations

from conveyor.core.feedback import Item, Taken

HELD_HEAD = (
    "Not read: trusted people's words that someone who is not trusted edited last. Conveyor "
    "reads feedback as trusted people (`allowed_users` who still collaborate) left it, so "
    "its agents read none of the texts below. Each item is read once: to have one taken, a "
    "trusted person can post it again as a new comment or review."
)


def note_kind(taken: Taken) -> str:
    """The note's marker kind: its first finding's, else its first held item's."""
    if taken.findings:
        return f"feedback-{taken.findings[0].id}"
    first = taken.held[0]
    return f"feedback-held-{first.kind}-{first.id}"


def note(taken: Taken) -> str:
    """The note's text: the findings taken, the withheld count and the held items."""
    if taken.findings:
        people = " and ".join(f"@{login}" for login in taken.people)
        ids = ", ".join(f.id for f in taken.findings)
        lines = ["### Feedback taken", f"From {people}: taken as {ids}, for the next fix round."]
    else:
        lines = ["### Feedback not taken"]
    if taken.withheld:
        noun = "comment" if taken.withheld == 1 else "comments"
        lines.append(f"{taken.withheld} {noun} from users who are not trusted withheld.")
    if taken.held:
        lines += [HELD_HEAD, "\n".join(held_line(item) for item in taken.held)]
    return "\n\n".join(lines)


def held_line(item: Item) -> str:
    """One held item: what and whose it is (linked), who last edited it and when."""
    if item.kind == "review":
        what = f"A review by @{item.author}"
    elif item.kind == "review_comment":
        where = f"`{item.path}` line {item.line}" if item.line else f"`{item.path}`"
        what = f"A comment by @{item.author} on {where}"
    else:
        what = f"A comment by @{item.author} on the PR"
    named = f"[{what}]({item.url})" if item.url else what
    last = item.edits.last if item.edits is not None else None
    if last is None:
        return f"- **{named}**: the forge did not say who last edited it."
    at = last.at.strftime("%Y-%m-%d %H:%M UTC")
    return f"- **{named}** was last edited by @{last.by} on {at}, who is not trusted."
