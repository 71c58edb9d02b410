"""A wiki-only change that follows a code change, under `conveyor run` (FLOW-5 with STK-8).

P changes code; D ("After #P merges.", written by the pipeline's account as a split
writes it) changes only the wiki. D starts on P's branch once P reached checks, as any
follower does, but has no code of its own to restack or merge: it publishes its pages
with finish-wiki, and only once P merged.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.job.events import EVENTS_FILE, read_events
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import assert_invariants, triage
from tests.e2e.orchestrator.chain import chain_config, implement_entry, spec_entry
from tests.e2e.wiki.flows import PAGE, PAGE_TEXT, wiki_only_spec

P_TAG, D_TAG = "prereq", "docs"


def _jobs(world: World, number: int, stage: str) -> list[tuple[float, float]]:
    """The issue's jobs at `stage`: (start, end) as timestamps, oldest first."""
    spans = []
    for path in world.repo_home.glob(f"jobs/issue-{number}-{stage}-*/job.json"):
        record = load_job_file(path)
        end = record.finished.at if record.finished is not None else record.heartbeat
        spans.append((record.started_at.timestamp(), end.timestamp()))
    return sorted(spans)


@pytest.mark.timeout(600)
def test_a_wiki_only_follower_starts_stacked_and_publishes_only_after_its_prerequisite_merged(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """D's first job is stacked on P; D never syncs, its finish-wiki began after P's merge
    ended, its pages are on the wiki's master and it is closed as merged with no PR."""
    config = chain_config(stage_caps={}, ci_poll_seconds=0.2)
    world = World.create(forge_server, tmp_path / "world", config=config, wiki=True)
    world.write_scenario([
        triage(P_TAG), spec_entry(P_TAG), implement_entry(P_TAG), *clean_back_half(P_TAG),
        triage(D_TAG), wiki_only_spec(D_TAG), *clean_back_half(D_TAG),
    ])  # fmt: skip
    prereq = world.open_issue(f"Add {P_TAG} [{P_TAG}]", f"{P_TAG}() returns 1.").number
    body = f"Document {P_TAG}() in the wiki.\n\nAfter #{prereq} merges.\n"
    dependent = world.open_issue(f"Document it [{D_TAG}]", body, author=ACCOUNT).number
    done = world.run("run", "--until-idle", timeout=400)
    assert done.returncode == 0, done.stdout + done.stderr
    for number in (prereq, dependent):
        state = world.state(number)
        assert state is not None
        assert state.stage is Stage.DONE, done.stdout
    events = read_events(world.repo_home / "runs" / f"issue-{dependent}" / EVENTS_FILE)
    stacked = [e for e in events if e.get("kind") == "stacked"]
    assert stacked, "the follower was never stacked"
    assert stacked[0]["on"] == prereq
    dependent_state = world.state(dependent)
    assert dependent_state is not None
    assert dependent_state.flows == "wiki"
    assert _jobs(world, dependent, "sync") == []
    assert _jobs(world, dependent, "merge")[-1][0] >= _jobs(world, prereq, "merge")[-1][1]
    assert world.wiki_file(PAGE) == PAGE_TEXT
    assert world.pr(dependent) is None
    assert world.issue(dependent).state == "closed"
    assert "agent:merged" in world.labels(dependent)
    assert_invariants(world, prereq, dependent)
