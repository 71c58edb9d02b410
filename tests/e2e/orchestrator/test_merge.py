"""`conveyor run` takes issues all the way to merged when the whole stage chain is there."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from conveyor.emulator.app.server import ForgeServer
from conveyor.job.jobfile import load_job_file
from conveyor.orchestrator.shell.ledger import LEDGER_FILE, LedgerDb
from conveyor.testing.world import World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.orchestrator.chain import (
    assert_invariants,
    assert_no_overlap,
    assert_no_repeated_signed_comment,
    assert_one_state_comment,
    chain_config,
    entries,
    job_spans,
)

TAGS = ("mu", "nu", "xi", "omicron", "pi")
SINCE = datetime(2000, 1, 1, tzinfo=UTC)


def test_run_merges_five_issues_each_with_one_pr_and_no_live_claim(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Triage to merge under the loop: both PRs merged, issues closed, jobs never overlapped,
    and the ledger holds one row per session the jobs recorded."""
    config = chain_config(stage_caps={}, ci_poll_seconds=0.2)
    world = World.create(forge_server, tmp_path / "world", config=config)
    back = [entry for tag in TAGS for entry in clean_back_half(tag)]
    world.write_scenario([*entries(TAGS), *back])
    numbers = [world.open_issue(f"Add {tag} [{tag}]", f"{tag}() returns 1.").number for tag in TAGS]
    done = world.run("run", "--until-idle", timeout=280)
    assert done.returncode == 0, done.stdout + done.stderr
    for number, tag in zip(numbers, TAGS, strict=True):
        issue = world.issue(number)
        assert issue.state == "closed", done.stdout
        assert "agent:merged" in issue.labels
        pr = world.pr(number)
        assert pr is not None
        assert pr.merged
        assert world.base_file(f"inventory/{tag}.py") is not None
        assert_one_state_comment(world, number)
        assert_no_overlap(job_spans([world.repo_home], number))
    assert_invariants(world, *numbers)
    assert_no_repeated_signed_comment(world, *numbers)
    recorded = dict.fromkeys(numbers, 0)
    for path in world.repo_home.glob("jobs/*/job.json"):
        record = load_job_file(path)
        recorded[record.issue] += len(record.sessions)
    with LedgerDb(world.repo_home / LEDGER_FILE, readonly=True) as ledger:
        rows = {line.key: line.sessions for line in ledger.by("issue", SINCE)}
    assert rows == {str(n): count for n, count in recorded.items()}
    assert min(recorded.values()) > 0
