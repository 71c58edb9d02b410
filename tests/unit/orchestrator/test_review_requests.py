"""A request for the account's review starts a review of a person's PR (`on_request`): who made
the request that stands, whether they are trusted, and one request is one pass."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.review_request import (
    RequestAction,
    RequestEvent,
    ReviewRequest,
    standing_request,
)
from conveyor.core.state import Stage
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.plan import plan

from .factory import NOW, snapshot
from .test_people import people, pull

BOT = "conveyor-bot"
TRUSTED = frozenset({"alice", "bob"})


def asked(action: str, actor: str, ident: int, reviewer: str = BOT) -> RequestEvent:
    """One review request event."""
    verb: RequestAction = "requested" if action == "requested" else "removed"
    return RequestEvent(verb, reviewer, actor, ident, NOW - timedelta(minutes=60 - ident))


def decide(events: list[RequestEvent], *, claimed: frozenset[int] = frozenset(), **kw: Any) -> Any:
    """The review decisions for PR 50 whose events are `events` (alice wrote it)."""
    request = standing_request(events, BOT)
    view = pull(
        50, asked=request, asker_trusted=request is not None and request.by in TRUSTED,
        claimed_requests=claimed,
    )  # fmt: skip
    conf = people(**({"label": None, "on_request": True} | kw))
    return plan(snapshot(), conf, NOW, WatchMemory(), (view,)).reviews


def test_a_trusted_persons_request_starts_one_review() -> None:
    """alice asks for the account's review: one pr-review start under the PR's number."""
    got = decide([asked("requested", "alice", 1)])
    assert [(s.issue, s.stage) for s in got.starts] == [(50, Stage.PR_REVIEW)]
    assert "@alice" in got.starts[0].reason


def test_an_untrusted_persons_request_is_held_and_names_them() -> None:
    """mallory's request starts nothing; the hold names her and says she is not trusted."""
    got = decide([asked("requested", "mallory", 1)])
    assert got.starts == ()
    assert [(h.issue, h.reason) for h in got.holds] == [
        (50, "review requested by @mallory, who is not trusted: ignored")
    ]


def test_the_last_request_counts_so_an_untrusted_re_request_is_not_credited_to_alice() -> None:
    """alice asked, withdrew; mallory asked again: mallory's request is the one that stands."""
    got = decide([
        asked("requested", "alice", 1), asked("removed", "alice", 2),
        asked("requested", "mallory", 3),
    ])  # fmt: skip
    assert got.starts == ()
    assert "@mallory" in got.holds[0].reason


def test_a_removed_request_starts_nothing() -> None:
    """Asked and withdrawn (by anyone): no start, no hold."""
    for remover in ("alice", "mallory"):
        got = decide([asked("requested", "alice", 1), asked("removed", remover, 2)])
        assert (got.starts, got.holds) == ((), ())


def test_a_request_of_someone_elses_review_or_a_teams_starts_nothing() -> None:
    """alice asks bob, or a team (no reviewer login): not the account's review."""
    got = decide([asked("requested", "alice", 1, "bob"), asked("requested", "alice", 2, "")])
    assert (got.starts, got.holds) == ((), ())


def test_one_request_is_one_pass() -> None:
    """A request whose id a pass claimed starts nothing more, even left standing (a job killed
    before it took the account off)."""
    got = decide([asked("requested", "alice", 1)], claimed=frozenset({1}))
    assert (got.starts, got.holds) == ((), ())


def test_a_re_request_after_the_review_starts_another_pass() -> None:
    """The pass claimed request 1 (the account was taken off: event 2); alice asks again."""
    events = [
        asked("requested", "alice", 1), asked("removed", BOT, 2), asked("requested", "alice", 3)
    ]  # fmt: skip
    got = decide(events, claimed=frozenset({1}))
    assert [s.issue for s in got.starts] == [50]


def test_requests_start_nothing_unless_on_request_is_set() -> None:
    """The same trusted request with `on_request` off (the label configured): nothing."""
    got = decide([asked("requested", "alice", 1)], label="review-requested", on_request=False)
    assert (got.starts, got.holds) == ((), ())


def test_an_untrusted_request_on_a_trusted_authors_pr_with_assigned_reviews_is_not_held() -> None:
    """With review_assigned_prs, mallory's request is not a hold: alice's PR is reviewed as
    assigned (its head not reviewed yet)."""
    got = decide([asked("requested", "mallory", 1)], review_assigned_prs=True)
    assert "not reviewed yet" in got.starts[0].reason


@given(st.lists(st.tuples(st.booleans(), st.sampled_from(["alice", "mallory", BOT])), max_size=8))
def test_the_standing_request_is_the_last_unwithdrawn_one(
    steps: list[tuple[bool, str]],
) -> None:
    """Whatever the order of requests and withdrawals, the request that stands is the last
    event's when it is a request, and none when it is a withdrawal."""
    events = [asked("requested" if req else "removed", who, n) for n, (req, who) in
              enumerate(steps, 1)]  # fmt: skip
    expected = None
    if steps and steps[-1][0]:
        expected = ReviewRequest(steps[-1][1], len(steps))
    assert standing_request(reversed(events), BOT) == expected
