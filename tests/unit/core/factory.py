"""Comments and states for the core's unit tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from conveyor.forge.types import Comment

T0 = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
ACCOUNT = "conveyor-bot"


def comment(cid: int, author: str, body: str, *, minutes: float = 0) -> Comment:
    """A comment `minutes` after T0, never edited."""
    at = T0 + timedelta(minutes=minutes)
    return Comment(
        id=cid,
        author=author,
        body=body,
        created_at=at,
        updated_at=at,
        html_url=f"http://forge.test/o/r/issues/1#issuecomment-{cid}",
    )
