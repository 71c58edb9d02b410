"""The stage job process: claim, job.json, events, lane, exit codes."""

from __future__ import annotations

import re

import pytest

from conveyor.core.state import Stage
from conveyor.job.events import read_events
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import VISITOR, World
from tests.contract.job.helpers import job_dirs, run_script


def test_a_visitors_issue_is_not_claimable_and_nothing_changes_on_the_forge(world: World) -> None:
    """Exit code 3 for an untrusted author's issue; no comment, label or state appears."""
    issue = world.open_issue("Please add a CSV export", "Visitors are not trusted.", VISITOR)
    done = world.job(issue.number, "triage")
    assert done.returncode == 3, done.stderr
    assert "untrusted" in done.stderr
    assert world.comments(issue.number) == ()
    assert world.labels(issue.number) == ()
    assert job_dirs(world, issue.number) == []


def test_a_job_at_the_wrong_stage_is_not_claimable(world: World) -> None:
    """A new issue waits for triage: an implement job exits 3 and changes nothing."""
    issue = world.open_issue("Add a low-stock report", "List items below N.")
    done = world.job(issue.number, "implement")
    assert done.returncode == 3, done.stderr
    assert world.comments(issue.number) == ()


@pytest.mark.parametrize(
    ("stage", "more", "named"),
    [
        ("deploy", (), "--stage"),
        ("triage", ("--lane", "two words"), "--lane"),
    ],
)
def test_a_usage_error_exits_2(world: World, stage: str, more: tuple[str, ...], named: str) -> None:
    """An unknown stage or a malformed lane is a usage error naming the option."""
    done = world.job(1, stage, *more)
    assert done.returncode == 2
    assert named in done.stderr
    assert not world.repo_home.exists()


def test_a_claimed_job_writes_job_json_and_events_and_removes_only_its_checkout(
    world: World,
) -> None:
    """job.json records the job and its end; events.jsonl has the claim; repo/ is removed."""
    issue = world.open_issue("Add a low-stock report", "List items below N.")
    code, err = run_script(world, issue.number, "triage", "save")
    assert code == 0, err
    (job_dir,) = job_dirs(world, issue.number)
    record = load_job_file(job_dir / "job.json")
    assert (record.schema_version, record.issue, record.stage, record.role) == (
        1,
        issue.number,
        "triage",
        "reader",
    )
    assert record.pid > 0
    assert record.heartbeat >= record.started_at
    assert record.finished is not None
    assert record.finished.outcome == "saved"
    assert not (job_dir / "repo").exists()
    events = read_events(world.repo_home / "runs" / f"issue-{issue.number}" / "events.jsonl")
    assert [e["kind"] for e in events] == ["claimed"]
    assert {"ts", "issue", "stage", "job", "kind"} <= events[0].keys()
    assert events[0]["job"] == job_dir.name
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.SPEC
    assert state.lease is not None
    assert state.lease.lane == record.lane
    assert "agent:working" in world.labels(issue.number)


def test_the_lane_is_created_once_and_the_next_job_keeps_the_lanes_lease(world: World) -> None:
    """Two jobs share the machine's lane; the second runs on the lane's lease without a claim."""
    issue = world.open_issue("Add a low-stock report", "List items below N.")
    assert run_script(world, issue.number, "triage", "save")[0] == 0
    lane = (world.repo_home / "lane").read_text().strip()
    assert re.fullmatch(r"[A-Za-z0-9._-]+-[0-9a-f]{8}", lane)
    claims_before = [c for c in world.comments(issue.number) if "conveyor:claim" in c.body]
    assert run_script(world, issue.number, "spec", "save")[0] == 0
    assert (world.repo_home / "lane").read_text().strip() == lane
    claims_after = [c for c in world.comments(issue.number) if "conveyor:claim" in c.body]
    assert claims_after == claims_before
    records = [load_job_file(d / "job.json") for d in job_dirs(world, issue.number)]
    assert [r.lane for r in records] == [lane, lane]
    state = world.state(issue.number)
    assert state is not None
    assert state.stage is Stage.IMPLEMENT


def test_a_failing_stage_exits_1_with_the_issue_saved_and_the_lease_cleared(world: World) -> None:
    """An error in the stage: exit 1, the stage kept, no lease, job.json says error."""
    issue = world.open_issue("Add a low-stock report", "List items below N.")
    code, err = run_script(world, issue.number, "triage", "boom")
    assert code == 1
    assert "stand-in failure" in err
    state = world.state(issue.number)
    assert state is not None
    assert (state.stage, state.lease) == (Stage.TRIAGE, None)
    (job_dir,) = job_dirs(world, issue.number)
    record = load_job_file(job_dir / "job.json")
    assert record.finished is not None
    assert record.finished.outcome == "error"
    assert not (job_dir / "repo").exists()
