"""Comments and labels through the client against the embedded forge."""

from __future__ import annotations

import pytest
from githubkit_schemas.latest.models import Label

from conveyor.forge.errors import NotFound, Unauthorized
from conveyor.forge.github.base import items_of
from conveyor.forge.types import LabelSpec
from tests.contract.forge.conftest import PIPELINE, VISITOR, World

pytestmark = pytest.mark.contract

LABELS = [
    LabelSpec("agent:working", "1d76db", "Conveyor is working on it"),
    LabelSpec("agent:stopped-budget", "#b60205", "Stopped: a budget ran out"),
]


def test_comments_list_oldest_first_with_their_authors(world: World) -> None:
    """Comments come back in posting order, each with its author and body."""
    issue = world.pipeline.create_issue("Talk", "body")
    world.pipeline.create_comment(issue.number, "<!-- conveyor:state v=1 --> one")
    world.visitor.create_comment(issue.number, "two")
    page = world.pipeline.list_comments(issue.number)
    assert [(c.author, c.body) for c in page.comments] == [
        (PIPELINE, "<!-- conveyor:state v=1 --> one"),
        (VISITOR, "two"),
    ]


def test_editing_a_comment_keeps_its_id(world: World) -> None:
    """An edit replaces the body in place."""
    issue = world.pipeline.create_issue("Edit", "body")
    posted = world.pipeline.create_comment(issue.number, "draft")
    edited = world.pipeline.edit_comment(posted.id, "final", issue.number)
    assert (edited.id, edited.body) == (posted.id, "final")
    assert [c.body for c in world.pipeline.list_comments(issue.number).comments] == ["final"]


def test_the_comment_list_is_conditional(world: World) -> None:
    """An unchanged thread is a free 304; a new comment changes the ETag."""
    issue = world.pipeline.create_issue("Etag", "body")
    world.pipeline.create_comment(issue.number, "one")
    page = world.pipeline.list_comments(issue.number)
    before = world.server.stats()
    same = world.pipeline.list_comments(issue.number, page.etag)
    assert same.not_modified
    assert world.server.stats()["points"] == before["points"]
    world.pipeline.create_comment(issue.number, "two")
    fresh = world.pipeline.list_comments(issue.number, page.etag)
    assert not fresh.not_modified
    assert [c.body for c in fresh.comments] == ["one", "two"]


def test_editing_an_unknown_comment_names_the_issue(world: World) -> None:
    """A missing comment is NotFound, and the error names the issue given for context."""
    with pytest.raises(NotFound) as caught:
        world.pipeline.edit_comment(77_777, "x", 5)
    assert caught.value.number == 5
    assert "77777" in str(caught.value)


def test_commenting_on_an_unknown_issue_is_not_found(world: World) -> None:
    """A comment on a number that does not exist names that number."""
    with pytest.raises(NotFound) as caught:
        world.pipeline.create_comment(66_666, "hello")
    assert caught.value.number == 66_666


def test_ensure_labels_creates_only_what_is_missing(world: World) -> None:
    """The first call creates the labels; the second creates nothing and does not fail."""
    world.pipeline.ensure_labels(LABELS)
    answer = world.pipeline.kit.rest.issues.list_labels_for_repo(*world.repo.split("/"))
    names = {label.name for label in items_of(answer, Label)}
    assert {"agent:working", "agent:stopped-budget"} <= names
    before = world.server.stats()
    world.pipeline.ensure_labels(LABELS)
    assert world.server.stats()["by_method"].get("POST", 0) == before["by_method"].get("POST", 0)


def test_labels_are_added_and_removed(world: World) -> None:
    """Adding returns the issue's labels; removing one takes it off; an absent one is fine."""
    world.pipeline.ensure_labels(LABELS)
    issue = world.trusted.create_issue("Label me", "body")
    after = world.pipeline.add_labels(issue.number, ["agent:working", "agent:stopped-budget"])
    assert set(after) == {"agent:working", "agent:stopped-budget"}
    world.pipeline.remove_label(issue.number, "agent:working")
    world.pipeline.remove_label(issue.number, "agent:working")
    assert world.pipeline.get_issue(issue.number).labels == ("agent:stopped-budget",)


def test_labels_on_an_unknown_issue_are_not_found(world: World) -> None:
    """Labelling a number that does not exist names it."""
    with pytest.raises(NotFound) as caught:
        world.pipeline.add_labels(55_555, ["agent:working"])
    assert caught.value.number == 55_555


def test_a_visitor_cannot_label(world: World) -> None:
    """Labels need write access: a visitor's attempt is refused."""
    issue = world.visitor.create_issue("Mine", "body")
    with pytest.raises((Unauthorized, NotFound)):
        world.visitor.add_labels(issue.number, ["agent:working"])
