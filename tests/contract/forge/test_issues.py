"""Issues through the client against the embedded forge: list, read, open, close, sub-issues."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import NotFound, Unauthorized, Validation
from tests.contract.forge.conftest import TRUSTED, World

pytestmark = pytest.mark.contract


def test_an_issue_reads_back_as_it_was_opened(world: World) -> None:
    """Title, body, author, labels and state survive the round trip."""
    world.pipeline.ensure_labels([])
    opened = world.trusted.create_issue("Add subtraction", "Please add `sub`.", ["enhancement"])
    read = world.visitor.get_issue(opened.number)
    assert read == opened
    assert (read.title, read.body, read.author, read.state) == (
        "Add subtraction",
        "Please add `sub`.",
        TRUSTED,
        "open",
    )
    assert read.labels == ("enhancement",)
    assert read.id != read.number


def test_an_unknown_issue_is_not_found_naming_its_number(world: World) -> None:
    """Reading an issue that does not exist raises NotFound for that number."""
    with pytest.raises(NotFound) as caught:
        world.pipeline.get_issue(99_999)
    assert caught.value.number == 99_999
    assert "get issue (#99999)" in str(caught.value)


def test_the_open_list_is_newest_change_first_and_conditional(world: World) -> None:
    """The list is sorted by update; an unchanged list answers 304 at no rate-limit cost."""
    first = world.trusted.create_issue("First", "one")
    second = world.trusted.create_issue("Second", "two")
    world.pipeline.create_comment(first.number, "bump")  # a comment moves `updated_at`
    page = world.pipeline.list_open_issues()
    updated = {issue.number: issue.updated_at for issue in page.issues}
    assert list(updated.values()) == sorted(updated.values(), reverse=True)
    assert updated[first.number] >= updated[second.number]
    assert not page.not_modified
    assert page.etag
    before = world.server.stats()
    again = world.pipeline.list_open_issues(page.etag)
    after = world.server.stats()
    assert again.not_modified
    assert again.issues == ()
    assert again.etag == page.etag
    assert after["requests"] - before["requests"] == 1
    assert after["points"] - before["points"] == 0


def test_a_change_invalidates_the_list_s_etag(world: World) -> None:
    """After an issue changes, the conditional list returns the fresh list and a new ETag."""
    page = world.pipeline.list_open_issues()
    changed = world.trusted.create_issue("Third", "three")
    fresh = world.pipeline.list_open_issues(page.etag)
    assert not fresh.not_modified
    assert fresh.etag != page.etag
    assert fresh.issues[0].number == changed.number


def test_closing_with_a_reason_and_reopening(world: World) -> None:
    """Close as not planned, then reopen: state and state reason follow."""
    issue = world.trusted.create_issue("Wontfix", "no")
    closed = world.pipeline.close_issue(issue.number, "not_planned")
    assert (closed.state, closed.state_reason) == ("closed", "not_planned")
    assert issue.number not in [i.number for i in world.pipeline.list_open_issues().issues]
    reopened = world.pipeline.reopen_issue(issue.number)
    assert (reopened.state, reopened.state_reason) == ("open", "reopened")


def test_editing_the_body_replaces_it(world: World) -> None:
    """The body is replaced and the issue is otherwise the same."""
    issue = world.pipeline.create_issue("Split part", "old")
    edited = world.pipeline.edit_issue_body(issue.number, "new\n\nAfter #1 merges.")
    assert edited.body == "new\n\nAfter #1 merges."
    assert edited.number == issue.number


def test_a_body_over_github_s_limit_is_a_validation_error(world: World) -> None:
    """Bodies past 65,536 characters are refused with GitHub's error list."""
    with pytest.raises(Validation) as caught:
        world.pipeline.create_issue("Too long", "x" * 65_537)
    assert caught.value.errors


def test_a_bad_token_cannot_write(world: World) -> None:
    """A write with a token the forge does not know is Unauthorized."""
    with pytest.raises(Unauthorized):
        world.client("not-a-token").create_issue("No", "no")


def test_sub_issues_are_linked_by_id_and_listed(world: World) -> None:
    """A child is linked under its parent (the client sends its id) and listed there."""
    parent = world.pipeline.create_issue("Parent", "split")
    children = [world.pipeline.create_issue(f"Part {n}", "part") for n in (1, 2)]
    for child in children:
        world.pipeline.add_sub_issue(parent.number, child.number)
    listed = world.visitor.list_sub_issues(parent.number)
    assert [i.number for i in listed] == [c.number for c in children]


def test_sub_issue_of_an_unknown_parent_is_not_found(world: World) -> None:
    """Linking under a parent that does not exist names the parent."""
    child = world.pipeline.create_issue("Orphan", "part")
    with pytest.raises(NotFound) as caught:
        world.pipeline.add_sub_issue(88_888, child.number)
    assert caught.value.number == 88_888
