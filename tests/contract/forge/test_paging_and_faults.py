"""Long lists across pages, and the client's retries against the forge's injected faults."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from conveyor.forge.github import token_forge
from conveyor.forge.retry import RetryPolicy
from tests.contract.forge.conftest import World


def test_the_open_list_reads_every_page(world: World) -> None:
    """With more than 100 open issues every one is listed, and the ETag is page 1's."""
    opened = {world.pipeline.create_issue(f"Issue {n}", "x").number for n in range(105)}
    page = world.pipeline.list_open_issues()
    assert {issue.number for issue in page.issues} >= opened
    assert world.pipeline.list_open_issues(page.etag).not_modified


def test_a_thread_longer_than_a_page_is_read_whole_without_an_etag(world: World) -> None:
    """101 comments come back in order; the page carries no ETag, so the next read is full."""
    issue = world.pipeline.create_issue("Long thread", "x")
    for n in range(101):
        world.pipeline.create_comment(issue.number, f"comment {n}")
    page = world.pipeline.list_comments(issue.number)
    assert [c.body for c in page.comments] == [f"comment {n}" for n in range(101)]
    assert page.etag is None


@pytest.fixture
def faulty(world: World) -> Iterator[World]:
    """The forge answers a third of requests with a 502 or a 429 (Retry-After: 1)."""
    knobs = f"{world.server.url}/_conveyor/knobs"
    httpx.post(knobs, json={"fail_rate": 0.33}).raise_for_status()
    yield world
    httpx.post(knobs, json={"fail_rate": 0.0}).raise_for_status()


def test_retries_ride_out_the_forge_s_injected_faults(faulty: World) -> None:
    """Every call succeeds through 502s and 429s; the waits asked for are the policy's."""
    waits: list[float] = []
    token = faulty.server.add_user("retry-user")
    forge = token_forge(
        faulty.repo,
        token,
        base_url=faulty.server.url,
        transport=faulty.hook,
        retry=RetryPolicy(attempts=12, sleep=waits.append),
    )
    issue = forge.create_issue("Retried", "body")
    for _ in range(30):
        assert forge.get_issue(issue.number).title == "Retried"
    assert waits
    assert set(waits) <= {1.0, 2.0, 4.0, 8.0, 16.0, 30.0}
