"""`/pipeline` reloads itself and links each issue to its page and PR, here or on GitHub."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from conveyor.emulator.app.server import ForgeServer
from conveyor.emulator.web.pipeline import REFRESH_SECONDS
from conveyor.job.transcripts import home_transcripts
from conveyor.orchestrator.shell.pipeline_files import PipelineFiles
from tests.contract.emulator_repos.conftest import make_git_world, open_pr
from tests.contract.web.job_folders import STARTS, write_job

pytestmark = pytest.mark.contract


def _status(home: Path, repo: str, **fields: Any) -> None:
    """An orchestrator's status of `repo` under `home`, as a tick writes it."""
    folder = home / repo.replace("/", "__")
    folder.mkdir(parents=True, exist_ok=True)
    status = {"repo": repo, "lane": "l", "written_at": "2026-12-04T12:00:00+00:00", **fields}
    (folder / "status.json").write_text(json.dumps(status), encoding="utf-8")


def test_an_issue_on_this_forge_links_to_its_page_and_the_pr_that_closes_it(
    tmp_path: Path, page: Page
) -> None:
    """The queue's `#N` opens the issue page, `PR #M` the PR's, a running job's session its
    transcript; the page reloads by itself."""
    home = tmp_path / "home"
    reader = home_transcripts(home)
    with ForgeServer(
        tmp_path / "forge", pipeline=PipelineFiles(home), transcripts=reader
    ) as server:
        gw = make_git_world(server, tmp_path)
        with gw.client(gw.writer_token) as writer:
            issue = writer.post(f"{gw.repo_path}/issues", json={"title": "Needs b"}).json()
            gw.push_branch("feature", {"b.py": "b = 2\n"}, "Add b")
            pr = open_pr(writer, gw, "feature", body=f"Closes #{issue['number']}")
        write_job(home / gw.slug.replace("/", "__"), issue["number"], "implement",
                  ("implement", "claude", "claude-2.1.332_mock_bash.jsonl"))  # fmt: skip
        job = {"issue": issue["number"], "stage": "implement", "session": "implement",
               "job_id": f"issue-{issue['number']}-implement-{STARTS['implement']}"}  # fmt: skip
        _status(home, gw.slug, queue={"review": [issue["number"]]}, jobs=[job])
        page.goto(f"{server.url}/pipeline")
        refresh = page.locator('meta[http-equiv="refresh"]').get_attribute("content")
        assert refresh == str(REFRESH_SECONDS)
        queue = page.locator("table", has=page.locator("th", has_text="Waiting"))
        queue.get_by_role("link", name=f"PR #{pr['number']}").click()
        assert page.url.endswith(f"/{gw.slug}/pull/{pr['number']}")
        page.go_back()
        queue.get_by_role("link", name=f"#{issue['number']}", exact=True).click()
        assert page.url.endswith(f"/{gw.slug}/issues/{issue['number']}")
        page.go_back()
        running = page.locator("table", has=page.locator("th", has_text="Running"))
        running.get_by_role("link", name="implement").click()
        assert "hello-from-tool" in page.locator("pre.transcript").inner_text()
        page.go_back()
        _status(home, gw.slug, queue={"fix": [issue["number"] + 7]})
        page.get_by_role("link", name=f"#{issue['number'] + 7}").wait_for(
            timeout=(REFRESH_SECONDS + 10) * 1000
        )


def test_a_github_deployment_s_issues_link_to_github_with_their_recorded_prs(
    tmp_path: Path, page: Page
) -> None:
    """A repository this forge does not hold links to the forge its status names."""
    home = tmp_path / "home"
    _status(home, "octo/widgets", forge_url="https://github.com", prs={"4": 9},
            queue={"implement": [4, 5]})  # fmt: skip
    with ForgeServer(tmp_path / "forge", pipeline=PipelineFiles(home)) as server:
        page.goto(f"{server.url}/pipeline")
        queue = page.locator("table", has=page.locator("th", has_text="Waiting"))
        hrefs = [a.get_attribute("href") for a in queue.get_by_role("link").all()]
        assert hrefs == [
            "https://github.com/octo/widgets/issues/4",
            "https://github.com/octo/widgets/pull/9",
            "https://github.com/octo/widgets/issues/5",
        ]
