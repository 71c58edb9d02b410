"""Secondary rate limits injected by the embedded forge pause the client as a primary one does."""

from __future__ import annotations

import pytest

from conveyor.forge.errors import RateLimited
from conveyor.forge.github import GitHubForge, token_forge
from conveyor.forge.retry import RetryPolicy
from tests.contract.forge.conftest import World

pytestmark = pytest.mark.contract


def _client(world: World, login: str, waits: list[float]) -> GitHubForge:
    """A client of its own account whose sleeps are recorded, not slept."""
    token = world.server.add_user(login)
    retry = RetryPolicy(sleep=waits.append)
    return token_forge(
        world.repo, token, base_url=world.server.url, transport=world.hook, retry=retry
    )


def test_a_secondary_403_with_retry_after_is_waited_out_and_the_call_succeeds(world: World) -> None:
    """Two injected 403s (`Retry-After: 2`): the client waits 2 s twice, then reads the issue."""
    number = world.trusted.create_issue("Rate me", "Body.").number
    waits: list[float] = []
    client = _client(world, "limited-one", waits)
    world.server.set_knobs(secondary_limit={"count": 2, "retry_after": 2, "login": "limited-one"})
    assert client.get_issue(number).number == number
    assert waits == [2.0, 2.0]


def test_a_long_secondary_429_pauses_the_client_without_further_requests(world: World) -> None:
    """A 429 asking for 10 minutes is raised, and the next call is refused before the forge."""
    number = world.trusted.create_issue("Rate me too", "Body.").number
    waits: list[float] = []
    client = _client(world, "limited-two", waits)
    limit = {"count": 1, "retry_after": 600, "status": 429, "login": "limited-two"}
    world.server.set_knobs(secondary_limit=limit)
    with pytest.raises(RateLimited) as caught:
        client.get_issue(number)
    assert caught.value.secondary
    before = world.server.stats()["requests"]
    with pytest.raises(RateLimited):
        client.list_comments(number)
    assert world.server.stats()["requests"] == before
    assert waits == []


def test_a_secondary_limit_without_retry_after_waits_at_least_a_minute(world: World) -> None:
    """GitHub's message alone (no `Retry-After`) is a secondary limit: a minute's wait."""
    number = world.trusted.create_issue("Rate me three", "Body.").number
    waits: list[float] = []
    client = _client(world, "limited-three", waits)
    limit = {"count": 1, "retry_after": None, "login": "limited-three"}
    world.server.set_knobs(secondary_limit=limit)
    assert client.get_issue(number).number == number
    assert waits == [60.0]
