"""Secondary rate limits and the client's pause after any rate limit, on scripted answers."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest

from conveyor.forge.errors import RateLimited
from tests.unit.forge.scripted import NOW, Script, example, status

SECONDARY = {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."}
# The primary bucket still has points and resets in an hour: a secondary limit ignores it.
BUCKET = {
    "X-RateLimit-Remaining": "4000",
    "X-RateLimit-Reset": str(int((NOW + timedelta(hours=1)).timestamp())),
}


def _issue() -> httpx.Response:
    return httpx.Response(200, json=example("issue"))


def test_a_secondary_403_waits_its_retry_after_not_the_primary_reset() -> None:
    """A 403 secondary limit with `Retry-After: 5` is waited 5 s, then the call succeeds."""
    script = Script(status(403, BUCKET | {"Retry-After": "5"}, SECONDARY), _issue())
    assert script.forge().get_issue(1347).number == 1347
    assert script.waits == [5.0]


def test_a_secondary_limit_without_retry_after_waits_a_minute_then_doubles() -> None:
    """No `Retry-After`: at least a minute, then two, as GitHub asks; then it succeeds."""
    limited = status(403, BUCKET, SECONDARY)
    script = Script(limited, limited, _issue())
    script.forge(max_wait=300.0).get_issue(1347)
    assert script.waits == [60.0, 120.0]


def test_a_429_secondary_limit_is_rate_limited_and_says_so() -> None:
    """A 429 with `Retry-After` beyond the longest wait is raised at once, marked secondary."""
    script = Script(status(429, BUCKET | {"Retry-After": "600"}, SECONDARY))
    with pytest.raises(RateLimited) as caught:
        script.forge().get_issue(4)
    assert caught.value.secondary
    assert caught.value.retry_after == 600.0
    assert caught.value.reset_at is None
    assert script.waits == []


def test_a_client_paused_by_a_secondary_limit_sends_nothing_until_it_ends() -> None:
    """After a 10-minute secondary limit the client's next call is refused without a request."""
    script = Script(status(403, BUCKET | {"Retry-After": "600"}, SECONDARY), _issue())
    forge = script.forge()
    with pytest.raises(RateLimited):
        forge.get_issue(4)
    with pytest.raises(RateLimited) as caught:
        forge.list_comments(4)
    assert caught.value.secondary
    assert caught.value.operation == "list comments"
    assert len(script.requests) == 1


def test_a_client_paused_by_a_spent_primary_limit_sends_nothing_until_the_reset() -> None:
    """A spent primary bucket (reset in an hour) pauses the client the same way."""
    spent = BUCKET | {"X-RateLimit-Remaining": "0"}
    script = Script(status(403, spent, {"message": "API rate limit exceeded"}), _issue())
    forge = script.forge()
    with pytest.raises(RateLimited):
        forge.get_issue(4)
    with pytest.raises(RateLimited) as caught:
        forge.get_issue(4)
    assert not caught.value.secondary
    assert caught.value.reset_at == NOW + timedelta(hours=1)
    assert len(script.requests) == 1


def test_a_short_pause_is_waited_out_before_the_next_call() -> None:
    """Tries spent on a 20 s limit: the next call first waits the 20 s, then is sent."""
    script = Script(status(403, BUCKET | {"Retry-After": "20"}, SECONDARY), _issue())
    forge = script.forge(attempts=1)
    with pytest.raises(RateLimited):
        forge.get_issue(4)
    assert forge.get_issue(1347).number == 1347
    assert script.waits == [20.0]
    assert len(script.requests) == 2
