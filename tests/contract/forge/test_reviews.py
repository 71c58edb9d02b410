"""PR reviews and review comments through the client against the embedded forge (BB-FB)."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import Validation
from tests.contract.forge.conftest import TRUSTED, VISITOR, World, push_change

pytestmark = pytest.mark.contract

NEW_FILE = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"


def _pr(world: World, branch: str) -> tuple[int, str]:
    """A PR opened by the pipeline that adds `src/feedback.py` (six lines); its number and head."""
    sha = push_change(world, branch, "src/feedback.py", NEW_FILE)
    pr = world.pipeline.create_draft_pr(branch, "main", "Feedback", "Closes #1")
    return pr.number, sha


def test_a_review_with_inline_comments_is_listed_with_its_comments(world: World) -> None:
    """A requested change with two inline comments reads back as one review and two comments."""
    number, sha = _pr(world, "conveyor/review-1")
    review = world.trusted.create_review(
        number,
        "Please rename these.",
        "REQUEST_CHANGES",
        [("src/feedback.py", 1, "Call it `first`."), ("src/feedback.py", 5, "And `second`.")],
    )
    assert (review.author, review.state, review.body, review.commit_id) == (
        TRUSTED,
        "CHANGES_REQUESTED",
        "Please rename these.",
        sha,
    )
    assert review.submitted_at is not None
    assert [r.id for r in world.pipeline.list_reviews(number)] == [review.id]
    comments = world.pipeline.list_review_comments(number)
    assert [(c.path, c.line, c.body, c.review_id) for c in comments] == [
        ("src/feedback.py", 1, "Call it `first`.", review.id),
        ("src/feedback.py", 5, "And `second`.", review.id),
    ]
    assert world.pipeline.get_pr(number).number == number


def test_a_lone_review_comment_gets_its_own_commented_review_and_a_reply_joins_it(
    world: World,
) -> None:
    """A comment made on its own sits in an empty COMMENTED review; a reply keeps its place."""
    number, sha = _pr(world, "conveyor/review-2")
    first = world.visitor.create_review_comment(
        number, "Why two functions?", commit_id=sha, path="src/feedback.py", line=2
    )
    reviews = world.pipeline.list_reviews(number)
    assert [(r.id, r.author, r.state, r.body) for r in reviews] == [
        (first.review_id, VISITOR, "COMMENTED", "")
    ]
    answer = world.trusted.create_review_comment(
        number, "Keep both.", commit_id=sha, path="src/feedback.py", in_reply_to=first.id
    )
    comments = world.pipeline.list_review_comments(number)
    assert [(c.id, c.in_reply_to, c.path, c.line) for c in comments] == [
        (first.id, None, "src/feedback.py", 2),
        (answer.id, first.id, "src/feedback.py", 2),
    ]


def test_a_pending_review_is_seen_only_by_its_author(world: World) -> None:
    """A review without an event stays pending: its author lists it, nobody else does."""
    number, _ = _pr(world, "conveyor/review-3")
    pending = world.trusted.create_review(number, "Draft thoughts", None)
    assert pending.state == "PENDING"
    assert pending.submitted_at is None
    assert [r.id for r in world.trusted.list_reviews(number)] == [pending.id]
    assert world.pipeline.list_reviews(number) == ()


def test_the_forge_refuses_what_github_refuses_for_reviews(world: World) -> None:
    """Own approval, a blank change request and a line outside the diff are 422s."""
    number, sha = _pr(world, "conveyor/review-4")
    with pytest.raises(Validation):
        world.pipeline.create_review(number, "", "APPROVE")
    with pytest.raises(Validation):
        world.trusted.create_review(number, "  ", "REQUEST_CHANGES")
    with pytest.raises(Validation):
        world.trusted.create_review(number, "x", "COMMENT", [("src/feedback.py", 40, "where?")])
    with pytest.raises(Validation):
        world.trusted.create_review_comment(
            number, "not in the PR", commit_id=sha, path="README.md", line=1
        )
    assert world.pipeline.list_reviews(number) == ()
    approval = world.trusted.create_review(number, "", "APPROVE")
    assert (approval.state, approval.body) == ("APPROVED", "")
