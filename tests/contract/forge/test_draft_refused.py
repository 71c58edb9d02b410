"""Where a repository takes no draft PRs the forge says so with GitHub's 422; a normal PR opens."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import DraftsRefused, Validation
from tests.contract.forge.conftest import World, push_change

pytestmark = pytest.mark.contract


def test_a_draft_in_a_repository_without_drafts_is_refused_and_a_normal_pr_opens(
    world: World,
) -> None:
    """A private Free-plan repository: `DraftsRefused` (a 422), then `create_pr` opens it ready."""
    world.server.set_plan(world.repo, private=True, drafts=False)
    push_change(world, "conveyor/issue-1", "src/one.py", "ONE = 1\n")
    with pytest.raises(DraftsRefused) as caught:
        world.pipeline.create_draft_pr("conveyor/issue-1", "main", "One (#1)", "Closes #1\n")
    assert isinstance(caught.value, Validation)
    assert "not supported" in caught.value.message
    assert world.pipeline.find_pr("conveyor/issue-1") is None
    pr = world.pipeline.create_pr("conveyor/issue-1", "main", "One (#1)", "Closes #1\n")
    assert (pr.draft, pr.state, pr.head_ref) == (False, "open", "conveyor/issue-1")
    assert world.pipeline.repo_info().full_name == world.repo


def test_other_refusals_of_a_pr_stay_plain_validation_errors(world: World) -> None:
    """A PR from a branch that does not exist is a Validation error, not `DraftsRefused`."""
    with pytest.raises(Validation) as caught:
        world.pipeline.create_draft_pr("conveyor/none", "main", "None", "Closes #9\n")
    assert not isinstance(caught.value, DraftsRefused)
