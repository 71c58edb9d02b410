"""The PR as the flows move: closed for wiki only, reopened by a fix that adds code (FLOW-7),
left alone for code only, and no change at all stops `not-doable` (FLOW-4)."""

from __future__ import annotations

from typing import Any

from conveyor.core.labels import Status
from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.git import list_refs
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import (
    IMPL,
    TEST,
    assert_invariants,
    implement_done,
    reply,
    spec_answer,
    spec_ready,
    triage,
)
from tests.e2e.wiki.flows import PAGE, page_actions, wiki_world

__all__ = ["wiki_world"]  # the fixture, imported for pytest

DONE: dict[str, Any] = {"status": "done", "summary": "Documented it.", "blocked_reason": None}
FINDING = {
    "severity": "blocking",
    "file": f"wiki/{PAGE}",
    "line": 1,
    "evidence": "the page names total(), which the code does not have",
    "suggestion": "add inventory/total.py's total() with its test",
}


def no_tests_spec(tag: str) -> dict[str, Any]:
    """A spec writer that commits nothing: the change is left to the implementer."""
    answer = spec_answer(interfaces=[], no_tests_reason="a documentation change")
    return {"tag": tag, "kind": "spec", "turns": [reply(answer)]}


def implementer(tag: str, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """An implementer that does `actions`, then replies done."""
    answer = DONE | {"deviations": []}
    return {"tag": tag, "kind": "implement", "turns": [{"actions": actions}, reply(answer)]}


def lens(tag: str, name: str, *found: dict[str, Any]) -> dict[str, Any]:
    """A first-review lens's entry."""
    answer = {"lens": name, "findings": list(found), "summary": name}
    return {"tag": tag, "kind": f"review-{name}", "turns": [reply(answer)]}


def code_fixer(tag: str) -> dict[str, Any]:
    """A fixer that resolves F1 by adding the code the page describes."""
    files = [
        {"write": {"path": "inventory/total.py", "content": IMPL}},
        {"write": {"path": "tests/test_total.py", "content": TEST}},
        {"commit": "Add total()"},
    ]
    answer = {
        "status": "done",
        "summary": "Added total().",
        "addressed": [{"finding": 1, "how": "total() exists now"}],
        "disputes": [],
    }
    return {"tag": tag, "kind": "fix", "turns": [{"actions": files}, reply(answer)]}


def test_a_wiki_only_implementation_closes_the_pr_and_a_fix_adding_code_reopens_it(
    wiki_world: World,
) -> None:
    """FLOW-5, FLOW-7, FIX-12: closed with a note naming the wiki branch, then reopened, ready."""
    world, tag = wiki_world, "reopen"
    review = [lens(tag, "correctness", FINDING), lens(tag, "tests"), lens(tag, "scope")]
    world.write_scenario(
        [
            triage(tag),
            no_tests_spec(tag),
            implementer(tag, page_actions()),
            *review,
            code_fixer(tag),
        ]
    )
    issue = world.open_issue(f"Document the stock total [{tag}]", "Say how totals work.")
    first = world.drive(issue.number, through="implement")
    assert first.returncode == 0, first.stdout + first.stderr
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.flows, state.pr_closed) == (Stage.REVIEW, "wiki", True)
    pr = world.pr(issue.number)
    assert pr is not None
    assert pr.state == "closed"
    assert not pr.merged
    notes = [c.body for c in world.comments(pr.number) if "kind=wiki-only " in c.body]
    assert len(notes) == 1
    assert f"`agent/issue-{issue.number}`" in notes[0]
    assert world.wiki_file(PAGE, f"agent/issue-{issue.number}") is not None

    second = world.drive(issue.number, through="fix")
    assert second.returncode == 0, second.stdout + second.stderr
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.flows, state.pr_closed, state.pr) == (
        Stage.REVIEW,
        "both",
        False,
        pr.number,
    )
    reopened = world.pr(issue.number)
    assert reopened is not None
    assert (reopened.number, reopened.state, reopened.draft) == (pr.number, "open", False)
    bodies = [c.body for c in world.comments(issue.number)]
    assert any("kind=review-correctness " in b for b in bodies), "reviewed on the issue"
    assert any("kind=fix-1 " in c.body for c in world.comments(pr.number))
    assert_invariants(world, issue.number)


def test_an_implementation_that_changes_nothing_stops_not_doable(wiki_world: World) -> None:
    """FLOW-4: neither code nor wiki changed; the issue stops with its label."""
    world, tag = wiki_world, "neither"
    world.write_scenario([triage(tag), no_tests_spec(tag), implementer(tag, [])])
    issue = world.open_issue(f"Document the stock total [{tag}]", "Say how totals work.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    assert world.labels(issue.number) == (StopCode.NOT_DOABLE.label,)
    state = world.state(issue.number)
    assert state is not None
    assert state.flows == "neither"
    assert world.wiki_file("Home.md") is not None
    assert world.ref(f"refs/heads/agent/issue-{issue.number}") is not None
    assert_invariants(world, issue.number)


def test_a_code_only_change_merges_and_leaves_the_wiki_alone(wiki_world: World) -> None:
    """FLOW-1: with the wiki on but untouched, the code flow merges and nothing is published."""
    world, tag = wiki_world, "codeonly"
    wiki_before = list_refs(world.wiki())
    world.write_scenario([triage(tag), spec_ready(tag), implement_done(tag), *clean_back_half(tag)])
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.flows) == (Stage.DONE, "code")
    assert Status.MERGED.value in world.labels(issue.number)
    assert world.base_file("inventory/total.py") == IMPL
    assert list_refs(world.wiki()) == wiki_before, "no wiki branch, nothing published"
    assert not [c for c in world.comments(issue.number) if "kind=wiki " in c.body]
    assert_invariants(world, issue.number)
