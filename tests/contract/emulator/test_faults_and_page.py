"""Fault knobs (502/429 with Retry-After, listing lag) and the HTML page's escaping."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.testing import http
from tests.contract.emulator.conftest import World, make_world


def test_fail_rate_answers_502s_and_429s_with_retry_after(tmp_path: Path) -> None:
    """At fail rate 1 every API answer is a 502 or a 429 carrying Retry-After; stats still work."""
    with ForgeServer(tmp_path / "forge", fail_rate=1.0, seed=7) as server:
        with http.client(base_url=server.url) as client:
            statuses = [client.get("/repos/a/b/issues") for _ in range(20)]
        assert {answer.status_code for answer in statuses} == {502, 429}
        for answer in statuses:
            if answer.status_code == 429:
                assert int(answer.headers["Retry-After"]) >= 1
            assert answer.json()["message"]
        assert server.stats()["faults"] == 20


def test_knobs_can_be_turned_on_a_running_server(tmp_path: Path) -> None:
    """POST /_conveyor/knobs sets the fail rate; bad values are 422."""
    with ForgeServer(tmp_path / "forge") as server, http.client(base_url=server.url) as client:
        assert client.get("/repos/a/b").status_code == 404
        assert client.post("/_conveyor/knobs", json={"fail_rate": 1}).status_code == 200
        assert client.get("/repos/a/b").status_code in {502, 429}
        assert client.post("/_conveyor/knobs", json={"fail_rate": 2}).status_code == 422
        assert client.post("/_conveyor/knobs", json={"list_lag_ms": -1}).status_code == 422


def test_an_injected_secondary_limit_answers_githubs_403_then_lifts(tmp_path: Path) -> None:
    """Two injected limits: two 403s in GitHub's words with Retry-After, then the real answer."""
    with ForgeServer(tmp_path / "forge") as server, http.client(base_url=server.url) as client:
        knobs = server.set_knobs(secondary_limit={"count": 2, "retry_after": 30})
        assert knobs["secondary_limit"]["count"] == 2
        limited = [client.get("/repos/a/b") for _ in range(2)]
        for answer in limited:
            assert answer.status_code == 403
            assert answer.headers["Retry-After"] == "30"
            assert "secondary rate limit" in answer.json()["message"]
        assert client.get("/repos/a/b").status_code == 404
        bad = {"secondary_limit": {"count": 1, "status": 500}}
        assert client.post("/_conveyor/knobs", json=bad).status_code == 422


def test_a_new_comment_is_listed_only_after_the_list_lag(tmp_path: Path) -> None:
    """With a 300 ms lag a fresh comment is missing from the list, then appears."""
    with ForgeServer(tmp_path / "forge", list_lag_ms=300) as server:
        world = make_world(server, tmp_path)
        with world.client(world.owner_token) as owner:
            number = owner.post(f"{world.repo_path}/issues", json={"title": "x"}).json()["number"]
            url = f"{world.repo_path}/issues/{number}/comments"
            made = owner.post(url, json={"body": "late"}).json()
            assert owner.get(url).json() == []
            assert owner.get(f"{world.repo_path}/issues/comments/{made['id']}").status_code == 200
            deadline = time.monotonic() + 5
            while not owner.get(url).json():
                assert time.monotonic() < deadline, "the comment never showed up"
                time.sleep(0.05)


def test_the_pages_list_issues_labels_and_comments_with_html_escaped(
    world: World, owner: httpx.Client
) -> None:
    """A visitor's `<script>` comment and title show as text on the index and the issue's page."""
    with world.client(world.visitor_token) as visitor:
        number = visitor.post(
            f"{world.repo_path}/issues", json={"title": "<b>bold</b> & co", "body": "x"}
        ).json()["number"]
        visitor.post(
            f"{world.repo_path}/issues/{number}/comments",
            json={"body": "<script>alert('pwned')</script>"},
        )
    owner.post(f"{world.repo_path}/issues/{number}/labels", json={"labels": ["<i>label</i>"]})
    index = owner.get("/")
    assert index.status_code == 200
    assert index.headers["content-type"].startswith("text/html")
    issue = owner.get(f"/{world.slug}/issues/{number}")
    assert issue.status_code == 200
    for html in (index.text, issue.text):
        assert world.slug in html
        assert "<script>" not in html
        assert "&lt;b&gt;bold&lt;/b&gt; &amp; co" in html
        assert "&lt;i&gt;label&lt;/i&gt;" in html
    assert "&lt;script&gt;alert('pwned')&lt;/script&gt;" in issue.text


def test_stopping_the_server_runs_the_shutdown_hooks(tmp_path: Path) -> None:
    """Callables in `state.on_shutdown` (e.g. the CI runner's stop) run when the server stops."""
    stopped: list[str] = []
    server = ForgeServer(tmp_path / "forge").start()
    assert server.state is not None
    server.state.on_shutdown.append(lambda: stopped.append("ci"))
    server.stop()
    assert stopped == ["ci"]
    with pytest.raises(httpx.ConnectError):
        http.get(f"{server.url}/_conveyor/stats", timeout=5)


def test_an_issue_html_url_leads_to_its_own_page_and_a_comments_to_its_anchor(
    world: World, owner: httpx.Client
) -> None:
    """Following an issue's `html_url` shows that issue; a comment's names its anchor there."""
    issue = owner.post(f"{world.repo_path}/issues", json={"title": "find me"}).json()
    comment = owner.post(
        f"{world.repo_path}/issues/{issue['number']}/comments", json={"body": "here"}
    ).json()
    shown = owner.get(issue["html_url"])
    assert shown.status_code == 200
    assert "find me" in shown.text
    page_url, _, anchor = comment["html_url"].partition("#")
    assert page_url == issue["html_url"]
    assert f'id="{anchor}"' in shown.text
    assert owner.get(f"/{world.slug}/issues/99999").status_code == 404


def test_the_request_log_lists_each_answered_request_with_its_route_and_status(
    tmp_path: Path,
) -> None:
    """`GET /_conveyor/requests` lists API answers oldest first, numbers folded; its own
    reads and the other `/_conveyor/` routes are not in it."""
    with ForgeServer(tmp_path / "forge") as server, http.client(base_url=server.url) as client:
        before = time.time()
        client.get("/repos/a/b/issues/7")
        client.get("/_conveyor/stats")
        client.get("/repos/a/b")
        log = server.requests()
        assert [(row["route"], row["status"]) for row in log] == [
            ("GET /repos/a/b/issues/N", 404),
            ("GET /repos/a/b", 404),
        ]
        assert before <= log[0]["at"] <= log[1]["at"] <= time.time()
        assert server.requests() == log
