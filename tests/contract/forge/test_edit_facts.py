"""Who last edited an issue's body or a comment, and its history, as GraphQL tells (TRUST-12)."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphql import build_schema, parse, validate

from conveyor.core.trust import NEVER_EDITED
from conveyor.forge.errors import NotFound
from conveyor.forge.github.edits import TEXT_VERSIONS
from conveyor.forge.github.thread import ISSUE_THREAD_WITH_PULLS
from tests.contract.forge.conftest import OWNER, TRUSTED, World

pytestmark = pytest.mark.contract

SCHEMA = Path(__file__).parents[2] / "data" / "github-schema.graphql"


@pytest.mark.parametrize("document", [TEXT_VERSIONS, ISSUE_THREAD_WITH_PULLS])
def test_the_edit_queries_are_valid_against_github_s_schema(document: str) -> None:
    """The history and the thread's edit fields validate against GitHub's published schema."""
    schema = build_schema(SCHEMA.read_text(), assume_valid_sdl=True, assume_valid=True)
    assert validate(schema, parse(document)) == []


def test_an_edit_by_someone_else_names_them_and_rest_does_not_say(world: World) -> None:
    """The owner edits a trusted person's body and comment: the thread names the owner as the
    last editor; the author's own later edit names the author; REST says nothing."""
    issue = world.trusted.create_issue("Edited", "first body")
    comment = world.trusted.create_comment(issue.number, "first comment")
    world.admin.edit_issue_body(issue.number, "the owner's body")
    world.admin.edit_comment(comment.id, "the owner's comment", issue.number)
    thread = world.pipeline.read_issue_thread(issue.number)
    body_edit = thread.issue.edits.last if thread.issue.edits is not None else None
    assert body_edit is not None
    assert body_edit.by == OWNER
    assert thread.comments[0].edits is not None
    assert thread.comments[0].edits.last is not None
    assert thread.comments[0].edits.last.by == OWNER
    world.trusted.edit_comment(comment.id, "the author's own words", issue.number)
    again = world.pipeline.read_issue_thread(issue.number).comments[0]
    assert again.edits is not None
    assert again.edits.last is not None
    assert again.edits.last.by == TRUSTED
    assert world.pipeline.list_comments(issue.number).comments[0].edits is None
    assert world.pipeline.get_issue(issue.number).edits is None


def test_a_write_that_changes_nothing_is_no_edit(world: World) -> None:
    """Writing the same text back leaves the text never edited, with no history."""
    issue = world.trusted.create_issue("Same", "unchanged body")
    comment = world.trusted.create_comment(issue.number, "unchanged comment")
    world.admin.edit_issue_body(issue.number, "unchanged body")
    world.admin.edit_comment(comment.id, "unchanged comment", issue.number)
    thread = world.pipeline.read_issue_thread(issue.number)
    assert thread.issue.edits == NEVER_EDITED
    assert thread.comments[0].edits == NEVER_EDITED
    assert world.pipeline.text_versions(thread.comments[0].node_id) == ()


def test_the_history_holds_every_version_newest_first_with_its_editor(world: World) -> None:
    """Two edits of a comment: three versions, the text as created by its author last."""
    issue = world.trusted.create_issue("History", "body")
    comment = world.trusted.create_comment(issue.number, "v1")
    world.admin.edit_comment(comment.id, "v2", issue.number)
    world.trusted.edit_comment(comment.id, "v3", issue.number)
    node = world.pipeline.read_issue_thread(issue.number).comments[0].node_id
    versions = world.pipeline.text_versions(node)
    assert [(v.editor, v.text) for v in versions] == [
        (TRUSTED, "v3"),
        (OWNER, "v2"),
        (TRUSTED, "v1"),
    ]
    world.admin.edit_issue_body(issue.number, "body, edited")
    body = world.pipeline.text_versions(issue.node_id)
    assert [(v.editor, v.text) for v in body] == [(OWNER, "body, edited"), (TRUSTED, "body")]


def test_the_history_of_an_unknown_node_is_not_found(world: World) -> None:
    """A node id that names nothing is GitHub's NOT_FOUND, raised as `NotFound`."""
    with pytest.raises(NotFound):
        world.pipeline.text_versions("IC_bm9uZTo5OTk5OTk5")
