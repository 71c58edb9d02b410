"""The tick's read of handed-over PRs on the embedded forge: a PR waiting for a person costs
an idle tick little, and an issue a person closed with its PR is left as it is."""

from __future__ import annotations

from pathlib import Path

from conveyor.core.labels import Status
from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import TRUSTED, World
from tests.e2e.back.merge_helpers import handed_over

PERSON = {
    "limits": {"claim_wait_seconds": [0, 0], "ci_poll_seconds": 0.2},
    "handover": {"merge": "person"},
}


def _approved(forge_server: ForgeServer, tmp_path: Path, tag: str) -> tuple[World, int, int]:
    world, number, pr = handed_over(forge_server, tmp_path, tag, PERSON)
    return world, number, pr.number


def test_a_pr_waiting_for_a_person_costs_an_idle_tick_only_conditional_reads(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Nothing changed: every read of the tick is answered 304, the handed-over rule's is
    one read of the open PRs; no stop, no start, the issue stays approved."""
    world, number, _ = _approved(forge_server, tmp_path, "handedidle")
    first = world.run("tick")
    assert first.returncode == 0, first.stderr
    before = forge_server.stats()
    second = world.run("tick")
    after = forge_server.stats()
    assert second.returncode == 0, second.stderr
    count = after["requests"] - before["requests"]
    asked = forge_server.requests()[-count:]
    assert all(r["status"] == 304 for r in asked), asked
    assert [r["route"].rsplit("/", 1)[-1] for r in asked].count("pulls") == 1, asked
    assert count <= 3, asked
    assert world.labels(number) == (Status.APPROVED.value,)


def test_an_approved_issue_a_person_closed_with_its_pr_is_left_as_it_is(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The change is not wanted: no `pr-closed` stop on the closed issue, no landing, and
    once settled an idle tick is one request again."""
    world, number, pr = _approved(forge_server, tmp_path, "handedgone")
    person = world.forge_as(TRUSTED)
    person.close_pr(pr)
    person.close_issue(number, "not_planned")
    first = world.run("tick")
    assert first.returncode == 0, first.stderr
    assert world.labels(number) == (Status.APPROVED.value,)
    assert not [c for c in world.comments(number) if "kind=stop " in c.body]
    before = forge_server.stats()
    second = world.run("tick")
    after = forge_server.stats()
    assert second.returncode == 0, second.stderr
    assert after["requests"] - before["requests"] == 1


def test_the_handed_rule_and_the_review_rule_share_one_read_of_the_open_prs(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """An issue at `approved` and `[pr_reviews]` on: both rules read the open PRs, and a
    tick asks for them once, not once per rule (the second a 304)."""
    config = {**PERSON, "pr_reviews": {"label": "conveyor-review"}}
    world, number, _ = handed_over(forge_server, tmp_path, "handedshared", config)
    for _ in range(2):  # the first tick fetches the list, the second is answered 304
        before = forge_server.stats()["requests"]
        done = world.run("tick")
        count = forge_server.stats()["requests"] - before
        assert done.returncode == 0, done.stderr
        asked = forge_server.requests()[-count:]
        pulls = [r for r in asked if r["route"].rsplit("/", 1)[-1] == "pulls"]
        assert len(pulls) == 1, asked
    assert world.labels(number) == (Status.APPROVED.value,)
