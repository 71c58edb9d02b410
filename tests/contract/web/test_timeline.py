"""An issue's timeline read from its job folders: bars in order, durations, the text bars,
and the SVG on the forge's issue and pipeline pages in a browser."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page

from conveyor.core.timeline import render_text
from conveyor.emulator.app.server import ForgeServer
from conveyor.job.timeline_read import read_timeline
from conveyor.orchestrator.shell.pipeline_files import PipelineFiles
from tests.contract.emulator_repos.conftest import make_git_world
from tests.contract.web.timeline_home import EXPECTED, write_jobs

pytestmark = pytest.mark.contract


def test_the_bars_are_each_job_then_its_sessions_and_commands_with_their_durations(
    tmp_path: Path,
) -> None:
    """Jobs oldest first, each followed by what ran in it by start; seconds from the records."""
    write_jobs(tmp_path, 7)
    bars = read_timeline(tmp_path, 7).bars
    assert [(b.kind, b.label, b.seconds) for b in bars] == [
        (kind, label, end - start) for kind, label, start, end in EXPECTED
    ]


def test_the_text_timeline_scales_each_bar_to_the_width_and_ends_with_the_total(
    tmp_path: Path,
) -> None:
    """One line per bar, no line wider than asked; a bar's length follows its share."""
    write_jobs(tmp_path, 7)
    lines = render_text(read_timeline(tmp_path, 7), width=80)
    assert len(lines) == len(EXPECTED) + 1
    assert all(len(line) <= 80 for line in lines)
    for line, (_, label, start, end) in zip(lines, EXPECTED, strict=False):
        assert line.strip().startswith(label)
        assert line.endswith(f"{end - start:7.2f} s")
    assert lines[-1].startswith("total")
    assert lines[-1].endswith(" 40.00 s")
    drawn = [len(re.findall("[█▒░]", line)) for line in lines[:-1]]
    assert drawn[2] > drawn[0] > drawn[1] > drawn[4]  # 28 s > 10 s > 6 s > 2 s
    checks, test = lines[2], lines[3]
    assert test.index("░") > checks.index("█")  # the test run starts inside its job


def test_the_issue_page_and_the_pipeline_page_draw_the_timeline(tmp_path: Path, page: Page) -> None:
    """In a browser: one rect per job, session and command run, each saying what and how long."""
    home = tmp_path / "home"
    with ForgeServer(tmp_path / "forge", pipeline=PipelineFiles(home)) as server:
        gw = make_git_world(server, tmp_path)
        with gw.client(gw.writer_token) as writer:
            issue = writer.post(f"{gw.repo_path}/issues", json={"title": "Timed"}).json()
        repo_home = home / gw.slug.replace("/", "__")
        write_jobs(repo_home, issue["number"])
        status = {"repo": gw.slug, "lane": "l", "written_at": "2026-12-04T12:00:40+00:00"}
        (repo_home / "status.json").write_text(json.dumps(status))
        page.goto(f"{server.url}/{gw.slug}/issues/{issue['number']}")
        rects = page.locator("svg.timeline rect")
        assert [rects.nth(i).get_attribute("data-kind") for i in range(rects.count())] == [
            kind for kind, *_ in EXPECTED
        ]
        tips = page.locator("svg.timeline rect title").all_text_contents()
        assert tips[0] == "job triage: 10.00 s, saved"
        assert tips[3] == "command test: 10.00 s, passed"
        assert page.locator("svg.timeline").bounding_box() is not None
        page.goto(f"{server.url}/pipeline")
        section = page.locator("section.timeline", has_text=f"Timeline of #{issue['number']}")
        assert section.locator("rect").count() == len(EXPECTED)
