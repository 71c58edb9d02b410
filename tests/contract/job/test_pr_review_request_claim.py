"""Claiming a review a person requested of the account: the head and the request recorded
first, then the account taken off the requested reviewers; a removal that fails still
spends the request (the review answers it), and a label and a request together make one
pass."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from conveyor.core.trust import Trust
from conveyor.emulator.app.server import ForgeServer
from conveyor.job.pr_review.claim import Claimed, ClaimRules, claim_review
from conveyor.job.pr_review.record import load_record
from conveyor.testing.faults import FaultyForge
from conveyor.testing.world import ACCOUNT, TRUSTED, World
from tests.e2e.people.helpers import LABEL, person_pr

TRUST = Trust(ACCOUNT, frozenset({TRUSTED}))
NOW = datetime(2026, 12, 1, tzinfo=UTC)
RULES = ClaimRules(LABEL, assigned=False, on_request=True)


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A repository reviewing PRs on a label or on request."""
    config = {"pr_reviews": {"label": LABEL, "on_request": True}}
    return World.create(forge_server, tmp_path / "world", config=config)


def test_a_claim_whose_removal_fails_still_claims_and_spends_the_request(
    world: World, tmp_path: Path
) -> None:
    """The removal fails (the forge drops it): the pass goes on (its review will answer the
    request) and says so; the record holds the head and the request; the request still shows
    on the PR, but the next claim refuses it; a new request is claimed and taken off."""
    pr = person_pr(world, tmp_path, "Title-case labels")
    alice = world.forge_as(TRUSTED)
    alice.request_reviewers(pr.number, [ACCOUNT])
    home = world.repo_home
    failing = FaultyForge(world.forge_as(ACCOUNT), fail_at=1)
    first = claim_review(failing, home, TRUST, RULES, pr.number, job="job-1", now=NOW)
    assert isinstance(first, Claimed)
    assert "could not take the account off" in first.note
    assert failing.log == ["remove_requested_reviewers"]
    (claim,) = load_record(home, pr.number).claims
    assert (claim.head, claim.trigger, claim.request is not None) == (pr.head_sha, "request", True)
    assert alice.get_pr(pr.number).requested_reviewers == (ACCOUNT,)
    bot = world.forge_as(ACCOUNT)
    again = claim_review(bot, home, TRUST, RULES, pr.number, job="job-2", now=NOW)
    assert isinstance(again, str)
    assert "no trusted" in again
    alice.remove_requested_reviewers(pr.number, [ACCOUNT])
    alice.request_reviewers(pr.number, [ACCOUNT])
    third = claim_review(bot, home, TRUST, RULES, pr.number, job="job-3", now=NOW)
    assert isinstance(third, Claimed)
    assert (third.trigger, third.note) == ("request", "")
    assert alice.get_pr(pr.number).requested_reviewers == ()


def test_a_label_and_a_request_together_are_one_pass(world: World, tmp_path: Path) -> None:
    """alice labels the PR and requests the account's review: one claim takes both off, and a
    second claim finds nothing to answer."""
    pr = person_pr(world, tmp_path, "Title-case labels")
    alice = world.forge_as(TRUSTED)
    alice.add_labels(pr.number, [LABEL])
    alice.request_reviewers(pr.number, [ACCOUNT])
    bot = world.forge_as(ACCOUNT)
    first = claim_review(bot, world.repo_home, TRUST, RULES, pr.number, job="job-1", now=NOW)
    assert isinstance(first, Claimed)
    assert LABEL not in world.labels(pr.number)
    assert alice.get_pr(pr.number).requested_reviewers == ()
    second = claim_review(bot, world.repo_home, TRUST, RULES, pr.number, job="job-2", now=NOW)
    assert isinstance(second, str)
