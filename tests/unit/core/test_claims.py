"""Claim comments and the race: earliest live claim wins, fakes and stale claims do not count."""

from __future__ import annotations

from datetime import timedelta

from conveyor.core.claims import (
    Keep,
    Post,
    Skip,
    before_posting,
    claim_body,
    claim_wait,
    closed_body,
    parse_claims,
    race_winner,
    renewal_due,
    still_working_body,
)
from conveyor.core.signatures import Signature
from tests.unit.core.factory import ACCOUNT, T0, comment

SIG = Signature("coordinator", "conveyor", "-", "run1")


def test_the_earliest_live_claim_wins_the_race() -> None:
    """Three lanes posted; the lowest comment id wins, including one's own unlisted claim."""
    claims = parse_claims(
        [comment(i, ACCOUNT, claim_body(SIG, f"l{i}", "s")) for i in (5, 3, 8)], ACCOUNT
    )
    own = claims[2]
    assert race_winner(claims, own, T0, 3).lane == "l3"
    assert race_winner((), own, T0, 3) == own


def test_a_visitors_fake_claim_does_not_count() -> None:
    """A claim marker from another account is not a claim (TRUST-9)."""
    assert parse_claims([comment(1, "visitor", claim_body(SIG, "evil", "s"))], ACCOUNT) == ()


def test_before_posting_a_lane_posts_keeps_or_skips() -> None:
    """No live claim: post; own claim first: keep without posting; another's: skip (CLAIM-12)."""
    mine = parse_claims([comment(4, ACCOUNT, claim_body(SIG, "me", "s"))], ACCOUNT)
    theirs = parse_claims([comment(2, ACCOUNT, claim_body(SIG, "you", "s"))], ACCOUNT)
    assert before_posting((), "me", T0, 3) == Post()
    assert before_posting(mine, "me", T0, 3) == Keep(mine[0])
    assert before_posting((*theirs, *mine), "me", T0, 3) == Skip("you", mine)


def test_a_claim_expires_after_lease_hours_and_a_closed_claim_is_dead() -> None:
    """A claim not edited for lease_hours is no longer live; neither is a closed one (CLAIM-13)."""
    claim = parse_claims([comment(4, ACCOUNT, claim_body(SIG, "me", "s"))], ACCOUNT)[0]
    assert claim.live(T0 + timedelta(hours=2.9), 3)
    assert not claim.live(T0 + timedelta(hours=3), 3)
    closed = closed_body(SIG, claim, "lane you claimed the issue first.")
    assert parse_claims([comment(4, ACCOUNT, closed)], ACCOUNT)[0].closed


def test_the_still_working_line_is_replaced_not_repeated() -> None:
    """Releasing twice leaves one "still working at" line with the latest time (CLAIM-14)."""
    body = claim_body(SIG, "me", "s")
    once = still_working_body(body, "me", T0)
    twice = still_working_body(once, "me", T0 + timedelta(hours=1))
    assert twice.count("still working at") == 1
    assert "13:00:00Z" in twice


def test_the_still_working_line_is_written_first_then_every_twelfth_of_the_lease() -> None:
    """A release adds the missing line, then renews it only 15 minutes (of 3 h) after an edit."""
    body = claim_body(SIG, "me", "s")
    claim = parse_claims([comment(4, ACCOUNT, body)], ACCOUNT)[0]
    assert renewal_due(claim, body, T0, 3)
    working = still_working_body(body, "me", T0)
    assert not renewal_due(claim, working, T0 + timedelta(minutes=14), 3)
    assert renewal_due(claim, working, T0 + timedelta(minutes=15), 3)


def test_the_claim_wait_stays_within_its_bounds() -> None:
    """The random unit is scaled into claim_wait_seconds (CLAIM-10)."""
    assert claim_wait((5.0, 20.0), 0.0) == 5.0
    assert claim_wait((5.0, 20.0), 0.5) == 12.5
