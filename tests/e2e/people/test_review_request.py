"""A request for the pipeline account's review starts a review of a person's PR
(`[pr_reviews] on_request`): a trusted person's request is one pass at the head, an
untrusted person's is held and named, and a re-request after the review is another pass."""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import httpx
import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing.world import ACCOUNT, TRUSTED, VISITOR, World
from tests.e2e.people.helpers import PLURAL, angle, brief, person_pr, reviewer

TAG = "req"


@pytest.fixture
def asked(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A repository whose config reviews a PR when a trusted person requests the account's
    review (no label); mallory a collaborator with write access, not trusted."""
    world = World.create(
        forge_server, tmp_path / "world", config={"pr_reviews": {"on_request": True}}
    )
    world.server.add_collaborator(world.repo, VISITOR, "write")
    world.write_scenario([brief(TAG), angle(TAG, "correctness", PLURAL), angle(TAG, "tests"),
                          reviewer(TAG, "One problem.")])  # fmt: skip
    return world


def pr_page(world: World, number: int) -> str:
    """The PR's page on the forge as a person reads it (tags dropped)."""
    answer = httpx.get(f"{world.server.url}/{world.repo}/pull/{number}", timeout=30)
    assert answer.status_code == 200
    return unescape(re.sub(r"<[^>]+>", "", answer.text))


def pipeline_reviews(world: World, number: int) -> list[tuple[str | None, str]]:
    """The (head, state) of each review the pipeline's account posted, oldest first."""
    reviews = world.forge_as(TRUSTED).list_reviews(number)
    return [(r.commit_id, r.state) for r in reviews if r.author == ACCOUNT]


def test_a_trusted_request_gets_one_review_at_the_head_and_a_re_request_another(
    asked: World, tmp_path: Path
) -> None:
    """alice asks for the account's review: the loop posts one COMMENT review at the head and
    takes the account off the requested reviewers; the loop again posts nothing; alice asks
    again and the next loop posts a second review."""
    pr = person_pr(asked, tmp_path, f"Title-case labels [{TAG}]")
    alice = asked.forge_as(TRUSTED)
    alice.request_reviewers(pr.number, [ACCOUNT])
    assert f"Review requested from {ACCOUNT}" in pr_page(asked, pr.number)
    done = asked.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    assert pipeline_reviews(asked, pr.number) == [(pr.head_sha, "COMMENTED")]
    assert alice.get_pr(pr.number).requested_reviewers == ()
    assert "Review requested from" not in pr_page(asked, pr.number)
    again = asked.run("run", "--until-idle")
    assert again.returncode == 0, again.stdout + again.stderr
    assert len(pipeline_reviews(asked, pr.number)) == 1
    alice.request_reviewers(pr.number, [ACCOUNT])
    third = asked.run("run", "--until-idle")
    assert third.returncode == 0, third.stdout + third.stderr
    assert pipeline_reviews(asked, pr.number) == [(pr.head_sha, "COMMENTED")] * 2
    log = (asked.repo_home / "orchestrator.log").read_text()
    assert log.count(f"start #{pr.number} pr-review") == 2


def test_an_untrusted_request_starts_nothing_and_is_held_with_its_name(
    asked: World, tmp_path: Path
) -> None:
    """mallory asks for the account's review: no review, the request stays, the loop holds
    the PR naming her; the job run by hand is not claimable and says why."""
    pr = person_pr(asked, tmp_path, f"Title-case labels [{TAG}]")
    asked.forge_as(VISITOR).request_reviewers(pr.number, [ACCOUNT])
    done = asked.run("run", "--until-idle")
    assert done.returncode == 0, done.stdout + done.stderr
    assert pipeline_reviews(asked, pr.number) == []
    assert asked.forge_as(TRUSTED).get_pr(pr.number).requested_reviewers == (ACCOUNT,)
    log = (asked.repo_home / "orchestrator.log").read_text()
    assert f"hold #{pr.number} pr-review: review requested by @{VISITOR}, who is not" in log
    job = asked.job(pr.number, "pr-review")
    assert job.returncode == 3, job.stdout + job.stderr
    assert f"@{VISITOR}, who is not trusted" in job.stderr
    assert pipeline_reviews(asked, pr.number) == []


def test_a_request_alice_withdrew_and_mallory_made_again_is_mallorys(
    asked: World, tmp_path: Path
) -> None:
    """alice asks and withdraws; mallory asks: the standing request is mallory's, so nothing
    is reviewed."""
    pr = person_pr(asked, tmp_path, f"Title-case labels [{TAG}]")
    alice = asked.forge_as(TRUSTED)
    alice.request_reviewers(pr.number, [ACCOUNT])
    alice.remove_requested_reviewers(pr.number, [ACCOUNT])
    asked.forge_as(VISITOR).request_reviewers(pr.number, [ACCOUNT])
    job = asked.job(pr.number, "pr-review")
    assert job.returncode == 3, job.stdout + job.stderr
    assert f"@{VISITOR}, who is not trusted" in job.stderr
    assert pipeline_reviews(asked, pr.number) == []
