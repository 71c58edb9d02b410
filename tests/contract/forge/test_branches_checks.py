"""Branches, protection and checks through the client against the embedded forge."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import NotFound
from tests.contract.forge.conftest import OWNER, World, push_change

pytestmark = pytest.mark.contract


def test_a_branch_reads_with_its_head_and_a_missing_one_is_none(world: World) -> None:
    """Branch names with slashes work; a branch that does not exist is None."""
    sha = push_change(world, "conveyor/issue-7", "src/seven.py", "SEVEN = 7\n")
    branch = world.pipeline.get_branch("conveyor/issue-7")
    assert branch is not None
    assert (branch.name, branch.sha, branch.protected) == ("conveyor/issue-7", sha, False)
    assert world.pipeline.get_branch("conveyor/none") is None


def test_deleting_a_branch_twice_is_fine(world: World) -> None:
    """The branch is gone after delete; deleting it again is not an error."""
    push_change(world, "conveyor/issue-8", "src/eight.py", "EIGHT = 8\n")
    world.pipeline.delete_branch("conveyor/issue-8")
    assert world.pipeline.get_branch("conveyor/issue-8") is None
    world.pipeline.delete_branch("conveyor/issue-8")


def test_required_checks_are_none_until_the_branch_is_protected(world: World) -> None:
    """Unprotected: None. After an admin protects main: its contexts and strictness."""
    assert world.pipeline.required_checks("main") is None
    world.admin.kit.rest.repos.update_branch_protection(
        OWNER,
        world.repo.split("/")[1],
        "main",
        required_status_checks={"strict": True, "contexts": ["ci"]},
        enforce_admins=None,
        required_pull_request_reviews=None,
        restrictions=None,
    )
    required = world.pipeline.required_checks("main")
    assert required is not None
    assert (required.contexts, required.strict) == (("ci",), True)
    main = world.pipeline.get_branch("main")
    assert main is not None
    assert main.protected


def test_a_check_run_is_created_updated_and_listed(world: World) -> None:
    """A run moves from in progress to completed with a summary, and is listed on its SHA."""
    sha = push_change(world, "conveyor/issue-9", "src/nine.py", "NINE = 9\n")
    run = world.pipeline.create_check_run(sha, "conveyor/verify", "in_progress")
    assert (run.status, run.conclusion, run.head_sha) == ("in_progress", None, sha)
    done = world.pipeline.update_check_run(run.id, "completed", "success", "all green")
    assert (done.id, done.status, done.conclusion, done.summary) == (
        run.id,
        "completed",
        "success",
        "all green",
    )
    listed = [r for r in world.pipeline.list_check_runs(sha) if r.name == "conveyor/verify"]
    assert [(r.id, r.conclusion) for r in listed] == [(run.id, "success")]


def test_updating_an_unknown_check_run_is_not_found(world: World) -> None:
    """A check run id the forge does not know is NotFound."""
    with pytest.raises(NotFound):
        world.pipeline.update_check_run(123_456_789, "completed", "success")


def test_commit_statuses_are_listed(world: World) -> None:
    """A status an external CI posted is read back with its context and state."""
    sha = push_change(world, "conveyor/issue-10", "src/ten.py", "TEN = 10\n")
    world.admin.kit.rest.repos.create_commit_status(
        OWNER, world.repo.split("/")[1], sha, state="success", context="legacy-ci"
    )
    statuses = world.pipeline.list_statuses(sha)
    assert [(s.context, s.state) for s in statuses] == [("legacy-ci", "success")]


def test_a_commit_the_forge_lacks_lists_no_statuses(world: World) -> None:
    """Listing the statuses of an unknown SHA is an empty answer, not an error."""
    assert world.pipeline.list_statuses("f" * 40) == ()
