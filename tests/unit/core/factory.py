"""Comments and states for the core's unit tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conveyor.core.trust import NEVER_EDITED, Edits, LastEdit
from conveyor.forge.types import Comment

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
ACCOUNT = "conveyor-bot"


def comment(
    cid: int, author: str, body: str, *, minutes: float = 0, edited_by: str | None = None
) -> Comment:
    """A comment `minutes` after T0, never edited (or last edited by `edited_by` a minute on)."""
    at = T0 + timedelta(minutes=minutes)
    edits = NEVER_EDITED
    if edited_by is not None:
        edits = Edits(LastEdit(edited_by, at + timedelta(minutes=1)))
    return Comment(
        id=cid,
        author=author,
        body=body,
        created_at=at,
        updated_at=edits.last.at if edits.last is not None else at,
        html_url=f"http://forge.test/o/r/issues/1#issuecomment-{cid}",
        edits=edits,
    )
