"""A wiki-only change end to end: no PR, only wiki-check, finish-wiki publishes (FLOW-5)."""

from __future__ import annotations

from conveyor.core.state import Stage
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import assert_invariants, triage
from tests.e2e.wiki.flows import HOME, PAGE, PAGE_TEXT, wiki_only_spec, wiki_world

__all__ = ["wiki_world"]  # the fixture, imported for pytest


def test_a_wiki_only_issue_publishes_its_pages_and_closes_as_merged_without_a_pr(
    wiki_world: World,
) -> None:
    """Spec writes a page → review → wiki-check only → finish-wiki: master has it, issue merged."""
    world, tag = wiki_world, "wikionly"
    world.write_scenario([triage(tag), wiki_only_spec(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Document stock levels [{tag}]", "Explain low stock in the wiki.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "implement job" not in done.stdout
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.DONE, done.stdout
    assert (state.flows, state.wiki_only, state.pr) == ("wiki", True, None)
    assert world.wiki_file(PAGE) == PAGE_TEXT
    assert world.wiki_file("Home.md") == HOME
    assert world.pr(issue.number) is None
    assert world.ref(f"refs/heads/agent/issue-{issue.number}") is None
    assert world.issue(issue.number).state == "closed"
    assert "agent:merged" in world.labels(issue.number)
    bodies = [c.body for c in world.comments(issue.number)]
    closing = [b for b in bodies if "kind=merged " in b]
    assert len(closing) == 1
    assert "Add the Stock levels page" in closing[0]
    assert any("kind=review-scope " in b for b in bodies), "reviews are read on the issue"
    checks = [b for b in bodies if "kind=checks " in b]
    assert len(checks) == 1
    assert "wiki-check passed" in checks[0]
    assert_invariants(world, issue.number)
