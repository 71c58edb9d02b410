"""The client's retry policy against injected 5xx, 429, spent limits and dropped connections."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from githubkit.exception import RequestError

from conveyor.forge.errors import NotFound, RateLimited, Transient
from conveyor.forge.github.failure import to_forge_error
from conveyor.forge.retry import RetryPolicy
from tests.unit.forge.scripted import NOW, Script, example, status


def _issue() -> httpx.Response:
    return httpx.Response(200, json=example("issue"))


def test_a_502_is_retried_with_exponential_backoff_until_it_succeeds() -> None:
    """Two 502s then a 200: the client waits 1 s then 2 s and returns the issue."""
    script = Script(status(502), status(502), _issue())
    issue = script.forge().get_issue(1347)
    assert issue.number == 1347
    assert script.waits == [1.0, 2.0]
    assert len(script.requests) == 3


def test_a_429_waits_as_long_as_retry_after_says() -> None:
    """A 429 with `Retry-After: 7` makes the client wait 7 s, then it succeeds."""
    script = Script(status(429, {"Retry-After": "7"}), _issue())
    script.forge().get_issue(1347)
    assert script.waits == [7.0]


def test_a_spent_rate_limit_waits_until_x_ratelimit_reset() -> None:
    """A 403 with no points left waits until the reset time the forge gave."""
    reset = int((NOW + timedelta(seconds=30)).timestamp())
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(reset)}
    script = Script(status(403, headers, {"message": "API rate limit exceeded"}), _issue())
    script.forge().get_issue(1347)
    assert script.waits == [30.0]


def test_a_rate_limit_resetting_beyond_max_wait_is_raised_at_once_with_its_reset_time() -> None:
    """A reset an hour away is not slept through: RateLimited says when it resets."""
    reset = NOW + timedelta(hours=1)
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(reset.timestamp()))}
    script = Script(status(403, headers, {"message": "API rate limit exceeded"}))
    with pytest.raises(RateLimited) as caught:
        script.forge().get_issue(5)
    assert caught.value.reset_at == reset
    assert caught.value.number == 5
    assert script.waits == []
    assert len(script.requests) == 1


def test_retries_are_bounded_and_the_last_failure_is_transient() -> None:
    """A forge that keeps answering 502 is tried four times, then Transient names the call."""
    script = Script(status(502))
    with pytest.raises(Transient) as caught:
        script.forge().get_issue(3)
    assert str(caught.value).startswith("get issue (#3): 502")
    assert script.waits == [1.0, 2.0, 4.0]
    assert len(script.requests) == 4


def test_backoff_is_capped_and_a_502_retry_after_is_honoured() -> None:
    """Backoff never exceeds max_backoff; a 503's Retry-After replaces the backoff."""
    script = Script(status(502), status(502), status(503, {"Retry-After": "3"}), _issue())
    script.forge(backoff=2.0, max_backoff=3.0).get_issue(1)
    assert script.waits == [2.0, 3.0, 3.0]


def test_a_dropped_connection_is_retried() -> None:
    """A connection error is transient: the client waits and tries again."""
    script = Script(httpx.ConnectError("connection reset"), _issue())
    script.forge().get_issue(1347)
    assert script.waits == [1.0]


def test_a_404_is_not_retried() -> None:
    """NotFound is an answer, not a blip: one request, no wait."""
    script = Script(status(404, body={"message": "Not Found"}))
    with pytest.raises(NotFound):
        script.forge().get_issue(9)
    assert script.waits == []
    assert len(script.requests) == 1


def test_a_comment_whose_post_got_a_502_is_posted_again() -> None:
    """Creating a comment is retried after a 502 (writes are found again by their marker)."""
    comment = httpx.Response(201, json=example("issue-comment"))
    script = Script(status(502), comment)
    posted = script.forge().create_comment(1347, "<!-- conveyor:x --> hello")
    assert posted.id == example("issue-comment")["id"]
    assert [r.method for r in script.requests] == ["POST", "POST"]


def test_a_policy_with_no_tries_is_refused() -> None:
    """`attempts` below 1 is a configuration mistake, named as such."""
    with pytest.raises(ValueError, match=r"RetryPolicy\.attempts"):
        RetryPolicy(attempts=0)


def test_a_dropped_connection_after_a_stop_request_is_raised_without_waiting() -> None:
    """Once `stop` says a person asked to stop, a failure is not slept on before a retry."""
    script = Script(httpx.ConnectError("connection reset"), _issue())
    with pytest.raises(Transient):
        script.forge(stop=lambda: True).get_issue(1347)
    assert script.waits == []
    assert len(script.requests) == 1


def test_a_refused_connection_names_the_forge_url_and_the_error() -> None:
    """The forge's port is closed: the error says `cannot reach <origin>: <what the OS said>`."""
    request = httpx.Request("GET", "http://127.0.0.1:9/repos/o/r/issues/1")
    refused = httpx.ConnectError("[Errno 111] Connection refused", request=request)
    error = to_forge_error(RequestError(refused), "get issue", 1)
    assert isinstance(error, Transient)
    assert "cannot reach http://127.0.0.1:9: [Errno 111] Connection refused" in str(error)
