"""The demo's person: answers the pipeline's latest questions comment once, nothing else."""

from __future__ import annotations

from datetime import UTC, datetime

from conveyor.cli.demo.actor import open_question
from conveyor.core.pickup import QUESTIONS
from conveyor.core.signatures import Signature
from conveyor.forge.types import Comment

ASKED = Signature("triage", "scripted", "m", "run1").sign(QUESTIONS, "1. Which level?")
CLAIM = Signature("coordinator", "scripted", "m", "run2").sign("claim", "Working on it.")


def _c(i: int, who: str, body: str = "") -> Comment:
    now = datetime.now(UTC)
    return Comment(id=i, author=who, body=body, created_at=now, updated_at=now, html_url="")


def test_a_questions_comment_newer_than_the_persons_last_reply_is_open() -> None:
    """Comment ids order the conversation; only a questions comment asks."""
    assert open_question((_c(1, "bot", ASKED),), "alice", "bot") == 1
    assert open_question((_c(1, "bot", ASKED), _c(2, "alice")), "alice", "bot") is None
    asked_again = (_c(1, "bot", ASKED), _c(2, "alice"), _c(3, "bot", ASKED))
    assert open_question(asked_again, "alice", "bot") == 3
    assert open_question((), "alice", "bot") is None


def test_the_pipelines_claim_after_an_answer_is_not_a_new_question() -> None:
    """The race: a claim comment posted while the needs-info label is still on."""
    claimed = (_c(1, "bot", ASKED), _c(2, "alice"), _c(3, "bot", CLAIM))
    assert open_question(claimed, "alice", "bot") is None
    assert open_question((_c(1, "bot", "Which level?"),), "alice", "bot") is None
