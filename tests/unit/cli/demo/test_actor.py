"""The demo's person: answers only when the pipeline's last word is newer than the person's."""

from __future__ import annotations

from datetime import UTC, datetime

from conveyor.cli.demo.actor import needs_answer
from conveyor.forge.types import Comment


def test_needs_answer_when_the_accounts_last_comment_is_newer_than_the_persons() -> None:
    """Comment ids order the conversation."""

    def c(i: int, who: str) -> Comment:
        return Comment(id=i, author=who, body="", created_at=datetime.now(UTC),
                       updated_at=datetime.now(UTC), html_url="")  # fmt: skip

    assert needs_answer((c(1, "bot"),), "alice", "bot")
    assert not needs_answer((c(1, "bot"), c(2, "alice")), "alice", "bot")
    assert needs_answer((c(1, "bot"), c(2, "alice"), c(3, "bot")), "alice", "bot")
    assert not needs_answer((), "alice", "bot")
