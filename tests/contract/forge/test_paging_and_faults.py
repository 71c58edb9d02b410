"""Long lists across pages, and the client's retries against the forge's injected faults."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.errors import RateLimited, Transient
from conveyor.forge.github import token_forge
from conveyor.forge.retry import RetryPolicy
from conveyor.testing import http
from tests.contract.forge.conftest import World, write_sample
from tests.contract.forge.validation import ValidatingTransport

pytestmark = pytest.mark.contract


def _seeder(world: World, login: str) -> httpx.Client:
    """A plain HTTP client of a new collaborator, to seed long lists quickly (not under test)."""
    token = world.server.add_user(login)
    world.server.add_collaborator(world.repo, login, "write")
    return http.client(
        base_url=f"{world.server.url}/repos/{world.repo}",
        headers={"Authorization": f"token {token}"},
        timeout=30,
    )


def test_the_open_list_reads_every_page(world: World) -> None:
    """With more than 100 open issues every one is listed; a 304 on page 1 fetches nothing more."""
    with _seeder(world, "issue-seeder") as seeder:
        opened = {
            seeder.post("/issues", json={"title": f"Issue {n}", "body": "x"}).json()["number"]
            for n in range(105)
        }
    page = world.pipeline.list_open_issues()
    assert {issue.number for issue in page.issues} >= opened
    before = world.server.stats()
    assert world.pipeline.list_open_issues(page.etag).not_modified
    after = world.server.stats()
    assert (after["requests"] - before["requests"], after["points"] - before["points"]) == (1, 0)


def test_a_thread_longer_than_a_page_is_read_whole_without_an_etag(world: World) -> None:
    """101 comments come back in order; the page carries no ETag, so the next read is full."""
    issue = world.pipeline.create_issue("Long thread", "x")
    with _seeder(world, "comment-seeder") as seeder:
        for n in range(101):
            url = f"/issues/{issue.number}/comments"
            seeder.post(url, json={"body": f"comment {n}"}).raise_for_status()
    page = world.pipeline.list_comments(issue.number)
    assert [c.body for c in page.comments] == [f"comment {n}" for n in range(101)]
    assert page.etag is None


@pytest.fixture
def faulty(tmp_path: Path) -> Iterator[ForgeServer]:
    """A forge of its own that answers a third of requests with a 502 or a 429 (seeded)."""
    with ForgeServer(tmp_path / "forge", fail_rate=0.33, seed=11) as server:
        server.create_repo("acme/faulty", write_sample(tmp_path / "sample"))
        yield server


def test_retries_ride_out_the_forge_s_injected_faults(faulty: ForgeServer) -> None:
    """Every call succeeds through 502s and 429s; the waits asked for are the policy's."""
    waits: list[float] = []
    hook = ValidatingTransport(http.transport())
    forge = token_forge(
        "acme/faulty",
        faulty.add_user("retry-user"),
        base_url=faulty.url,
        transport=hook,
        retry=RetryPolicy(attempts=12, sleep=waits.append),
    )
    with forge:
        issue = forge.create_issue("Retried", "body")
        for _ in range(30):
            assert forge.get_issue(issue.number).title == "Retried"
    assert waits
    assert set(waits) <= {1.0, 2.0, 4.0, 8.0, 16.0, 30.0}
    assert hook.take() == []
    statuses = faulty.stats()["by_status"]
    assert statuses.get("502", 0) + statuses.get("429", 0) == len(waits)


def test_when_retries_run_out_the_error_is_typed_and_names_the_call(tmp_path: Path) -> None:
    """Against a forge failing every call: RateLimited (429) or Transient (502), naming #7."""
    with ForgeServer(tmp_path / "forge", fail_rate=1.0, seed=3) as server:
        server.create_repo("acme/down", write_sample(tmp_path / "sample"))
        waits: list[float] = []
        forge = token_forge(
            "acme/down",
            server.add_user("patient"),
            base_url=server.url,
            retry=RetryPolicy(attempts=3, sleep=waits.append),
        )
        with forge, pytest.raises((RateLimited, Transient)) as caught:
            forge.get_issue(7)
    assert caught.value.number == 7
    assert "#7" in str(caught.value)
    assert len(waits) == 2
    if isinstance(caught.value, RateLimited):
        assert caught.value.retry_after == 1
