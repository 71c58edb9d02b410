"""People's PRs under review are visible as issues are: `conveyor status`, `/pipeline`, and the
forge's PR page with the review, its inline comments and its sessions' transcripts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import httpx
import pytest

from conveyor.emulator.app.server import ForgeServer
from conveyor.job.transcripts import home_transcripts
from conveyor.orchestrator.shell.pipeline_files import PipelineFiles
from conveyor.testing.world import TRUSTED, VISITOR, World
from tests.e2e.helpers import reply, wait_for_file
from tests.e2e.people.helpers import (
    LABEL,
    LABELS_PY,
    PLURAL,
    angle,
    brief,
    person_pr,
    reviewer,
)

TAG = "vis"


@pytest.fixture
def seen(tmp_path: Path) -> Iterator[World]:
    """A World on a forge of its own that reads the World's Conveyor home (pages, transcripts)."""
    home = tmp_path / "world" / "conveyor-home"
    with ForgeServer(tmp_path / "forge", pipeline=PipelineFiles(home),
                     transcripts=home_transcripts(home)) as server:  # fmt: skip
        yield World.create(server, tmp_path / "world", config={"pr_reviews": {"label": LABEL}})


def _page(world: World, path: str) -> str:
    """The page's text as a person reads it (tags dropped, entities read)."""
    answer = httpx.get(f"{world.server.url}{path}", timeout=30)
    assert answer.status_code == 200, (path, answer.status_code)
    return unescape(re.sub(r"<[^>]+>", "", answer.text))


def test_a_person_s_pr_under_review_shows_in_status_the_pipeline_and_its_page(
    seen: World, tmp_path: Path
) -> None:
    """While the review runs: status and /pipeline name the PR under review with its session,
    and a PR whose label an untrusted person added as held. After: the PR page shows the
    review with its comment on `labels.py:11` and links each session to its transcript."""
    world = seen
    reached, release = tmp_path / "reached", tmp_path / "release"
    actions = [{"run": f"touch {reached}"}, {"pause_until": str(release)}]
    found = {"angle": "correctness", "findings": [PLURAL], "summary": "one"}
    paused = {"tag": TAG, "kind": "angle-correctness",
              "turns": [{"actions": actions}, reply(found)]}  # fmt: skip
    world.write_scenario([brief(TAG), paused, angle(TAG, "tests"),
                          reviewer(TAG, "Count the items.", (1, "Use count."))])  # fmt: skip
    pr = person_pr(world, tmp_path, f"Plural [{TAG}]")
    other = person_pr(world, tmp_path, f"Other [{TAG}]", branch="alice/other")
    world.server.add_collaborator(world.repo, VISITOR, "write")
    world.forge_as(VISITOR).add_labels(other.number, [LABEL])
    world.forge_as(TRUSTED).add_labels(pr.number, [LABEL])
    running = world.start("job", "--issue", str(pr.number), "--stage", "pr-review")
    wait_for_file(reached)
    ticked = world.run("tick")
    assert ticked.returncode == 0, ticked.stdout + ticked.stderr
    status = world.run("status")
    assert f"#{pr.number} pr-review: session angle-correctness-1" in status.stdout
    assert (
        f"hold #{other.number} pr-review: 'review-requested' added by @{VISITOR}" in status.stdout
    )
    pipeline = _page(world, "/pipeline")
    assert "People's PRs under review" in pipeline
    assert f"PR #{pr.number} under review: session angle-correctness-1" in pipeline
    assert f"PR #{other.number} held" in pipeline
    release.touch()
    assert running.wait(timeout=240) == 0

    shown = _page(world, f"/{world.repo}/pull/{pr.number}")
    assert "Reviews" in shown
    assert f"conveyor-bot reviewed on {pr.head_sha[:7]}" in shown
    assert "Count the items." in shown
    assert f"{LABELS_PY}:11" in shown
    assert '+    return name + "s"' in shown  # the diff lines above the comment
    assert "Use count." in shown
    assert "conveyor:pr-review" not in shown  # the hidden record stays hidden
    assert "Agent sessions" in shown
    for key in ("brief-1", "angle-correctness-1", "angle-tests-1", "pr-review-1"):
        assert key in shown
    detail = world.run("status", "--issue", str(pr.number))
    assert detail.returncode == 0, detail.stdout + detail.stderr
    assert "pr-review" in detail.stdout
    (job,) = (world.repo_home / "jobs").glob(f"issue-{pr.number}-pr-review-*")
    transcript = _page(world, f"/{world.repo}/issues/{pr.number}/sessions/{job.name}/pr-review-1")
    assert "submit_reply" in transcript
