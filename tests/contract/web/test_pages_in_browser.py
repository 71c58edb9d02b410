"""The forge's pages as a person sees them in a real browser: index, issue, PR and pipeline."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page

from conveyor.core.labels import all_labels
from conveyor.core.state import IssueState
from conveyor.core.state_codec import encode_state
from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.web.layout import contrast
from conveyor.job.ledger import save_job_sessions
from conveyor.ops.forge.labels import spec_of
from conveyor.orchestrator.shell.pipeline_files import PipelineFiles
from conveyor.orchestrator.shell.status_file import _job_entry
from tests.contract.emulator_repos.conftest import GitWorld, make_git_world, open_pr
from tests.unit.cli.live.recorded import NOW, copy_home, recorded_jobs

pytestmark = pytest.mark.contract
BODY = (
    "## Plan\n\n- a **bold** step\n- a `code` step\n\n<!-- HIDDEN-NOTE-42 -->\n"
    "<script>window.pwned = 1</script>\n"
)
_RGB = re.compile(r"rgba?\((\d+), (\d+), (\d+)")


@pytest.fixture
def gw(forge_server: ForgeServer, tmp_path: Path) -> GitWorld:
    """A fresh repository on the session's forge."""
    return make_git_world(forge_server, tmp_path)


@pytest.fixture
def writer(gw: GitWorld) -> Iterator[httpx.Client]:
    """A client with the writing collaborator's token."""
    with gw.client(gw.writer_token) as client:
        yield client


def _hex(css: str) -> str:
    found = _RGB.match(css)
    assert found is not None, css
    return "".join(f"{int(part):02x}" for part in found.groups())


def test_an_issue_page_renders_markdown_hides_hidden_comments_and_keeps_labels_readable(
    gw: GitWorld, writer: httpx.Client, page: Page
) -> None:
    """From the index to the issue: markdown as markup, scripts as text, no state blob."""
    issue = writer.post(f"{gw.repo_path}/issues", json={"title": "Ship <b>it</b>", "body": BODY})
    number = issue.json()["number"]
    state = encode_state(IssueState(plan="STATE-BLOB-PLAN"))
    writer.post(f"{gw.repo_path}/issues/{number}/comments", json={"body": state})
    specs = [spec_of(label) for label in all_labels()]
    for spec in specs:
        writer.post(f"{gw.repo_path}/labels", json={"name": spec.name, "color": spec.color})
    names = [spec.name for spec in specs]
    writer.post(f"{gw.repo_path}/issues/{number}/labels", json={"labels": names})
    page.goto(f"{gw.server.url}/")
    page.get_by_role("link", name="Ship <b>it</b>").click()
    assert page.url.endswith(f"/{gw.slug}/issues/{number}")
    body = page.locator("article").first
    assert body.locator("h2").inner_text() == "Plan"
    assert body.locator("strong").inner_text() == "bold"
    assert body.locator("code").inner_text() == "code"
    assert "<script>window.pwned = 1</script>" in body.inner_text()
    assert page.evaluate("typeof window.pwned") == "undefined"
    html = page.content()
    for hidden in ("HIDDEN-NOTE-42", "conveyor:state", state.split("<!--\n")[1][:40]):
        assert hidden not in html
    chips = page.locator(".label")
    assert chips.count() == len(specs)
    for i in range(chips.count()):
        colours = chips.nth(i).evaluate(
            "e => [getComputedStyle(e).color, getComputedStyle(e).backgroundColor]"
        )
        text, background = (_hex(c) for c in colours)
        assert contrast(text, background) >= 4.5, (chips.nth(i).inner_text(), colours)


def test_a_merged_pr_shows_as_merged_with_its_checks_and_diff(
    gw: GitWorld, writer: httpx.Client, page: Page
) -> None:
    """The index and the PR's page say merged; the check run and the added line are shown."""
    issue = writer.post(f"{gw.repo_path}/issues", json={"title": "Needs b"}).json()
    head = gw.push_branch("feature", {"b.py": "b = 2\n"}, "Add b")
    pr = open_pr(writer, gw, "feature", body=f"Closes #{issue['number']}")
    check = {"name": "lint", "head_sha": head, "conclusion": "success", "output": {
        "title": "no findings", "summary": "clean"}}  # fmt: skip
    writer.post(f"{gw.repo_path}/check-runs", json=check)
    merged = writer.put(f"{gw.repo_path}/pulls/{pr['number']}/merge", json={"sha": head})
    assert merged.status_code == 200, merged.text
    page.goto(f"{gw.server.url}/")
    row = page.locator(f'[id="{gw.slug}"] #pull-{pr["number"]}')
    assert row.locator(".state").inner_text() == "merged"
    row.get_by_role("link").click()
    assert page.locator("h1 + p .state").inner_text() == "merged"
    checks = page.locator("table", has=page.locator("th", has_text="Check"))
    assert checks.locator("td").all_inner_texts()[:3] == ["lint", "success", "no findings"]
    added = page.locator("pre.diff .add").all_inner_texts()
    assert "+b = 2" in added
    page.goto(f"{gw.server.url}/{gw.slug}/issues/{issue['number']}")
    assert page.get_by_role("link", name=f"#{pr['number']}").is_visible()


def test_the_pipeline_page_shows_the_queue_by_stage_running_jobs_and_spending(
    tmp_path: Path, page: Page
) -> None:
    """What the orchestrator's status and the jobs' ledger say, read from the Conveyor home."""
    repo_home = copy_home(tmp_path)
    jobs = recorded_jobs(repo_home)
    status = json.loads((repo_home / "status.json").read_text(encoding="utf-8"))
    status["jobs"] = [_job_entry(job, NOW) for job in jobs if job.alive]
    (repo_home / "status.json").write_text(json.dumps(status), encoding="utf-8")
    for job in jobs:
        save_job_sessions(repo_home, job.record)
    with ForgeServer(tmp_path / "forge", pipeline=PipelineFiles(repo_home.parent)) as server:
        page.goto(f"{server.url}/")
        page.get_by_role("link", name="Pipeline").click()
        # the click navigates; `all()` below reads whatever page is there now, so wait for ours
        page.get_by_role("heading", name="Queue by stage").wait_for()
        queue = page.locator("table", has=page.locator("th", has_text="Stage"))
        rows = {
            cells[0]: cells[2]
            for cells in (r.locator("td").all_inner_texts() for r in queue.locator("tr").all())
            if cells
        }
        assert rows["implement"] == "#4"
        assert rows["triage"] == "#11 #12"
        assert rows["review"] == "-"
        running = page.locator("table", has=page.locator("th", has_text="Running"))
        assert running.locator("td").all_inner_texts()[:2] == ["#7", "review"]
        text = page.locator("body").inner_text()
        assert "Today: $1.25 (+1 sessions of unknown cost)" in text
        assert "#9 stopped by fix-loop" in text
        spent = page.locator("table", has=page.locator("th", has_text="Sessions"))
        assert sorted(spent.locator("tr td:first-child").all_inner_texts()) == ["#7"]
