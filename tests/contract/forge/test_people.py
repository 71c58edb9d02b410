"""Assigning people and requesting reviews through the client against the embedded forge."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import Validation
from tests.contract.forge.conftest import OWNER, PIPELINE, TRUSTED, VISITOR, World, push_change

pytestmark = pytest.mark.contract


def test_assignees_are_added_and_read_back_on_the_issue(world: World) -> None:
    """add_assignees answers the assignees after; the issue read and the list show them."""
    issue = world.pipeline.create_issue("Assign", "body")
    assert world.pipeline.add_assignees(issue.number, [TRUSTED, VISITOR]) == (TRUSTED,)
    assert world.pipeline.get_issue(issue.number).assignees == (TRUSTED,)
    listed = {i.number: i for i in world.pipeline.list_open_issues().issues}
    assert listed[issue.number].assignees == (TRUSTED,)
    assert listed[issue.number].milestone is None


def test_a_review_is_requested_from_a_collaborator_and_refused_for_the_author(
    world: World,
) -> None:
    """A collaborator other than the PR's author can be asked; the author or a visitor cannot."""
    push_change(world, "conveyor/issue-70", "src/seventy.py", "S = 70\n")
    pr = world.pipeline.create_pr("conveyor/issue-70", "main", "Seventy", "Closes #70")
    world.pipeline.request_reviewers(pr.number, [TRUSTED, OWNER])
    with pytest.raises(Validation):
        world.pipeline.request_reviewers(pr.number, [PIPELINE])
    with pytest.raises(Validation):
        world.pipeline.request_reviewers(pr.number, [VISITOR])
