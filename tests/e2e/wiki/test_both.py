"""Code and wiki together: wiki-check before verify, the PR merges, then the wiki publishes."""

from __future__ import annotations

from conveyor.core.state import Stage
from conveyor.git import list_refs
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import IMPL, assert_invariants, implement_done, triage
from tests.e2e.wiki.flows import PAGE, PAGE_TEXT, spec_with_page, wiki_world

__all__ = ["wiki_world"]  # the fixture, imported for pytest


def test_a_change_with_code_and_wiki_merges_its_pr_and_lists_the_published_wiki_commits(
    wiki_world: World,
) -> None:
    """FLOW-6, MRG-16: both flows; the squash lands on main and the page on the wiki's master."""
    world, tag = wiki_world, "bothflows"
    world.write_scenario(
        [triage(tag), spec_with_page(tag), implement_done(tag), *clean_back_half(tag)]
    )
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities; document it.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.DONE, done.stdout
    assert state.flows == "both"
    pr = world.pr(issue.number)
    assert pr is not None
    assert pr.merged
    assert world.base_file("inventory/total.py") == IMPL
    assert world.wiki_file(PAGE) == PAGE_TEXT
    assert list(list_refs(world.wiki())) == ["refs/heads/master"], "the wiki branch is gone"
    assert world.ref(f"refs/heads/agent/issue-{issue.number}") is None
    assert world.issue(issue.number).state == "closed"
    bodies = [c.body for c in world.comments(issue.number)]
    published = [b for b in bodies if "kind=wiki " in b]
    assert len(published) == 1
    assert "Document the stock total" in published[0]
    checks = [b for b in bodies if "kind=checks " in b]
    assert len(checks) == 1
    assert "ungated" in checks[0], "verify and the CI gate ran after wiki-check"
    assert_invariants(world, issue.number)
