"""An issue's agent sessions on the forge: a link per session from the issue page to its
transcript, drawn as the CLIs draw their own sessions, every text escaped."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from conveyor.emulator.app.server import ForgeServer
from conveyor.job.transcripts import home_transcripts
from conveyor.orchestrator.shell.pipeline_files import PipelineFiles
from tests.contract.emulator_repos.conftest import GitWorld, make_git_world
from tests.contract.web.job_folders import write_job as _job

pytestmark = pytest.mark.contract
HOSTILE = "<script>window.pwned = 1</script> \u202eexe\x1b]0;owned\x07"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[GitWorld, Path]]:
    """A forge told where a Conveyor home is, a repository on it, and that home's folder."""
    home = tmp_path / "home"
    with ForgeServer(
        tmp_path / "forge", pipeline=PipelineFiles(home), transcripts=home_transcripts(home)
    ) as server:
        gw = make_git_world(server, tmp_path)
        yield gw, home / gw.slug.replace("/", "__")


def test_the_issue_page_links_each_session_to_its_transcript_drawn_like_the_cli(
    world: tuple[GitWorld, Path], page: Page
) -> None:
    """Each session is a row; its page shows messages, calls with results, errors and cost."""
    gw, repo_home = world
    with gw.client(gw.writer_token) as writer:
        number = writer.post(f"{gw.repo_path}/issues", json={"title": "Add b"}).json()["number"]
    result = {"type": "tool_result", "tool_use_id": "t", "content": HOSTILE, "is_error": True}
    failed = json.dumps({"type": "user", "message": {"content": [result]}}) + "\n"
    failed += json.dumps({"type": "result", "is_error": True, "result": "API Error: 529"}) + "\n"
    _job(repo_home, number, "implement",
         ("implement", "claude", "claude-2.1.332_mock_bash.jsonl"), failed)  # fmt: skip
    _job(repo_home, number, "review", ("review-tests", "codex", "codex-mcp-tool.jsonl"))
    _job(repo_home, number + 1, "implement",
         ("implement", "claude", "claude-mcp-tool.stream.jsonl"))  # fmt: skip
    page.goto(f"{gw.server.url}/{gw.slug}/issues/{number}")
    table = page.locator("table", has=page.locator("th", has_text="Session"))
    assert table.locator("tr td:nth-child(2)").all_inner_texts() == ["implement", "review-tests"]
    assert table.locator("tr td:nth-child(6)").all_inner_texts() == ["$0.0004", "cost unknown"]
    table.get_by_role("link", name="implement").click()
    assert "/sessions/" in page.url
    shown = page.locator("pre.transcript")
    assert "● Running a command." in shown.inner_text()
    assert "⏺ Bash(echo hello-from-tool > out.txt && cat out.txt)" in shown.inner_text()
    assert page.locator(".t-result").first.inner_text().strip() == "⎿  hello-from-tool"
    assert "$0.0004" in page.locator(".t-totals").inner_text()
    assert page.locator(".t-failed").inner_text().startswith("  ⎿  ✗ <script>")
    assert r"\u202eexe\x1b]0;owned\x07" in page.locator(".t-failed").inner_text()
    assert page.locator(".t-error").inner_text().strip() == "! API Error: 529"
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert "\u202e" not in page.content()
    page.get_by_role("link", name=f"#{number}").click()
    page.get_by_role("link", name="review-tests").click()
    assert "⏺ pipeline.submit_reply(verdict=approve, summary=looks fine)" in shown.inner_text()
    assert "cost unknown" in page.locator(".t-totals").inner_text()


def test_a_session_the_issue_never_had_is_not_found(
    world: tuple[GitWorld, Path], page: Page
) -> None:
    """Another issue's job, or no job at all, answers 404 naming what was asked for."""
    gw, repo_home = world
    with gw.client(gw.writer_token) as writer:
        number = writer.post(f"{gw.repo_path}/issues", json={"title": "Add c"}).json()["number"]
    _job(repo_home, number + 1, "implement",
         ("implement", "claude", "claude-mcp-tool.stream.jsonl"))  # fmt: skip
    job = f"issue-{number + 1}-implement-20261204T110000Z"
    answer = page.goto(f"{gw.server.url}/{gw.slug}/issues/{number}/sessions/{job}/implement")
    assert answer is not None
    assert answer.status == 404
    assert f"#{number} has no session implement of job {job}" in page.inner_text("body")
    page.goto(f"{gw.server.url}/{gw.slug}/issues/{number}")
    assert page.locator("#sessions").count() == 0
