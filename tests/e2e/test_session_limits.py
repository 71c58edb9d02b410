"""Per-role session limits from the config's `[sessions]` reach the session (max_turns, timeout)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conveyor.core.labels import Status
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import World
from tests.e2e.helpers import triage


def _triage_records(world: World, number: int) -> list[Any]:
    jobs = sorted(world.repo_home.glob(f"jobs/issue-{number}-triage-*/job.json"))
    return [s for job in jobs for s in load_job_file(job).sessions]


def test_a_role_s_max_turns_cuts_its_session_as_the_model_s_doing(world: World) -> None:
    """Triage may take one turn; its scenario replies on the second: no reply is taken, the
    session fails as the model's doing (no agent pause), and the issue is not triaged."""
    slow = triage("turns")
    slow["turns"] = [{"text": "Reading the code first."}, *slow["turns"]]
    world.write_scenario([slow])
    world.write_config({"sessions": {"roles": {"triage": {"max_turns": 1}}}})
    issue = world.open_issue("Add a stock total [turns]", "Sum the quantities.")
    done = world.drive(issue.number, through="triage")
    assert done.returncode == 0, done.stdout + done.stderr
    records = _triage_records(world, issue.number)
    assert records
    assert all(r.status == "failed" and r.infra is None for r in records)
    assert any("max_turns" in (r.error or "") for r in records)
    assert Status.WORKING.value not in world.labels(issue.number)


def test_without_a_cap_the_same_session_replies(world: World) -> None:
    """The same two-turn triage with no `[sessions]` replies and is taken."""
    slow = triage("free")
    slow["turns"] = [{"text": "Reading the code first."}, *slow["turns"]]
    world.write_scenario([slow])
    issue = world.open_issue("Add a stock total [free]", "Sum the quantities.")
    done = world.drive(issue.number, through="triage")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [r.status for r in _triage_records(world, issue.number)] == ["replied"]


def test_a_role_s_timeout_ends_its_session(world: World, tmp_path: Path) -> None:
    """Triage's own timeout (seconds here) ends a session that would wait forever."""
    stuck = {
        "tag": "slow",
        "kind": "triage",
        "turns": [{"actions": [{"pause_until": str(tmp_path / "never")}]}],
    }
    world.write_scenario([stuck])
    world.write_config({"sessions": {"roles": {"triage": {"timeout_minutes": 0.05}}}})
    issue = world.open_issue("Add a stock total [slow]", "Sum the quantities.")
    done = world.drive(issue.number, through="triage", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    records = _triage_records(world, issue.number)
    assert records
    assert records[0].status == "timed_out"
    assert "3 s" in (records[0].error or "")
