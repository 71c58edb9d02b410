"""Pull requests through the client against the embedded forge: open, edit, ready, close, merge."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import Conflict, NotFound, NotMergeable, Unauthorized, Validation
from tests.contract.forge.conftest import PIPELINE, World, push_change

pytestmark = pytest.mark.contract


def test_a_draft_pr_opens_on_a_pushed_branch_and_is_found_by_its_head(world: World) -> None:
    """The draft carries the pushed head; find_pr returns it; the issue list leaves it out."""
    sha = push_change(world, "conveyor/issue-1", "src/one.py", "ONE = 1\n")
    pr = world.pipeline.create_draft_pr("conveyor/issue-1", "main", "Add one", "Closes #999")
    assert (pr.draft, pr.state, pr.merged, pr.head_sha, pr.head_ref, pr.base_ref) == (
        True,
        "open",
        False,
        sha,
        "conveyor/issue-1",
        "main",
    )
    assert pr.author == PIPELINE
    found = world.pipeline.find_pr("conveyor/issue-1")
    assert found is not None
    assert found.number == pr.number
    assert pr.number not in [i.number for i in world.pipeline.list_open_issues().issues]


def test_find_pr_of_a_branch_without_one_is_none(world: World) -> None:
    """No PR for the head branch: None, not an error."""
    assert world.pipeline.find_pr("conveyor/issue-404") is None


def test_the_open_prs_based_on_a_branch_are_listed_by_number(world: World) -> None:
    """list_prs_into names the open PRs into that base only: not a closed one, not another's."""
    push_change(world, "conveyor/issue-15", "src/fifteen.py", "FIVE = 5\n")
    push_change(world, "conveyor/issue-16", "src/sixteen.py", "SIX = 6\n")
    push_change(world, "conveyor/issue-17", "src/seventeen.py", "SEVEN = 7\n")
    onto = world.pipeline.create_draft_pr("conveyor/issue-16", "conveyor/issue-15", "Six", "x")
    closed = world.pipeline.create_draft_pr("conveyor/issue-17", "conveyor/issue-15", "Seven", "x")
    world.pipeline.close_pr(closed.number)
    world.pipeline.create_draft_pr("conveyor/issue-15", "main", "Five", "x")
    assert world.pipeline.list_prs_into("conveyor/issue-15") == (onto.number,)
    assert world.pipeline.list_prs_into("conveyor/issue-404") == ()


def test_a_pr_from_a_missing_branch_is_a_validation_error(world: World) -> None:
    """Opening a PR whose head does not exist is refused with GitHub's 422."""
    with pytest.raises(Validation):
        world.pipeline.create_draft_pr("no-such-branch", "main", "x", "y")


def test_edit_mark_ready_close_and_reopen(world: World) -> None:
    """Title and body change; ready clears draft; close and reopen flip the state."""
    push_change(world, "conveyor/issue-2", "src/two.py", "TWO = 2\n")
    pr = world.pipeline.create_draft_pr("conveyor/issue-2", "main", "Two", "body")
    edited = world.pipeline.edit_pr(pr.number, title="Add two", body="Closes #2")
    assert (edited.title, edited.body) == ("Add two", "Closes #2")
    world.pipeline.mark_pr_ready(pr.number)
    assert not world.pipeline.get_pr(pr.number).draft
    assert world.pipeline.close_pr(pr.number).state == "closed"
    assert world.pipeline.reopen_pr(pr.number).state == "open"
    found = world.pipeline.find_pr("conveyor/issue-2")
    assert found is not None
    assert (found.number, found.state, found.title) == (pr.number, "open", "Add two")


def test_ready_with_a_new_title_and_body_is_one_request(world: World) -> None:
    """The text and the ready mark go together in one GraphQL request (no REST edit); a
    visitor may do neither."""
    push_change(world, "conveyor/issue-2b", "src/two_b.py", "TWO_B = 2\n")
    pr = world.pipeline.create_draft_pr("conveyor/issue-2b", "main", "Two b", "body")
    with pytest.raises(Unauthorized):
        world.visitor.mark_pr_ready(pr.number, "Taken over", "by a visitor")
    assert world.pipeline.get_pr(pr.number).title == "Two b"
    edit = f"PATCH /repos/{world.repo}/pulls/N"
    before = world.server.stats()["by_route"]
    assert isinstance(before, dict)
    world.pipeline.mark_pr_ready(pr.number, "Add two b", "Closes #2\n")
    after = world.server.stats()["by_route"]
    assert isinstance(after, dict)
    calls = sum(after.values()) - sum(before.values())
    assert (calls, after.get(edit, 0)) == (1, before.get(edit, 0))
    ready = world.pipeline.get_pr(pr.number)
    assert (ready.title, ready.body, ready.draft) == ("Add two b", "Closes #2\n", False)


def test_an_unknown_pr_is_not_found_naming_its_number(world: World) -> None:
    """Reading or readying a PR that does not exist names the number."""
    with pytest.raises(NotFound) as caught:
        world.pipeline.get_pr(77_777)
    assert caught.value.number == 77_777
    with pytest.raises(NotFound):
        world.pipeline.mark_pr_ready(77_777)


def test_a_merge_with_a_stale_head_is_a_conflict(world: World) -> None:
    """The expected head SHA must be the PR's head: otherwise 409, nothing merged."""
    push_change(world, "conveyor/issue-3", "src/three.py", "THREE = 3\n")
    pr = world.pipeline.create_draft_pr("conveyor/issue-3", "main", "Three", "")
    world.pipeline.mark_pr_ready(pr.number)
    with pytest.raises(Conflict) as caught:
        world.pipeline.merge_pr(pr.number, "0" * 40, "Three", "")
    assert caught.value.number == pr.number
    assert not world.pipeline.get_pr(pr.number).merged


def test_a_squash_merge_lands_on_the_base_and_closes_the_named_issue(world: World) -> None:
    """Merging with the head SHA makes one commit on main and closes "Closes #N"."""
    issue = world.trusted.create_issue("Four", "add four")
    sha = push_change(world, "conveyor/issue-4", "src/four.py", "FOUR = 4\n")
    pr = world.pipeline.create_draft_pr(
        "conveyor/issue-4", "main", "Four", f"Closes #{issue.number}"
    )
    world.pipeline.mark_pr_ready(pr.number)
    result = world.pipeline.merge_pr(pr.number, sha, f"Four (#{pr.number})", "Adds four.")
    main = world.pipeline.get_branch("main")
    assert main is not None
    assert main.sha == result.sha
    merged = world.pipeline.get_pr(pr.number)
    assert (merged.merged, merged.state, merged.merge_commit_sha) == (True, "closed", result.sha)
    assert world.pipeline.get_issue(issue.number).state == "closed"


def test_a_conflicting_merge_is_not_mergeable(world: World) -> None:
    """Two branches change the same line; after the first merges the second is refused (405)."""
    first = push_change(
        world, "conveyor/issue-5", "src/calc.py", "def add(a, b):\n    return b + a\n"
    )
    second = push_change(
        world, "conveyor/issue-6", "src/calc.py", "def add(a, b):\n    return a - -b\n"
    )
    pr5 = world.pipeline.create_draft_pr("conveyor/issue-5", "main", "Five", "")
    pr6 = world.pipeline.create_draft_pr("conveyor/issue-6", "main", "Six", "")
    world.pipeline.mark_pr_ready(pr5.number)
    world.pipeline.mark_pr_ready(pr6.number)
    world.pipeline.merge_pr(pr5.number, first, "Five", "")
    with pytest.raises(NotMergeable) as caught:
        world.pipeline.merge_pr(pr6.number, second, "Six", "")
    assert caught.value.number == pr6.number


def test_readying_a_pr_the_client_opened_costs_only_the_graphql_call(world: World) -> None:
    """The PR's GraphQL id is kept from its opening: no read of the PR before the mutation."""
    push_change(world, "conveyor/issue-61", "src/sixty_one.py", "SIX = 6\n")
    pr = world.pipeline.create_draft_pr("conveyor/issue-61", "main", "Six", "body")
    by_route = world.server.stats()["by_route"]
    reads = by_route.get(f"GET /repos/{world.repo}/pulls/N", 0)
    world.pipeline.mark_pr_ready(pr.number)
    by_route = world.server.stats()["by_route"]
    assert by_route.get(f"GET /repos/{world.repo}/pulls/N", 0) == reads
    assert not world.pipeline.get_pr(pr.number).draft
