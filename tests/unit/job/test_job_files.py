"""job.json, events.jsonl, the lane file and job folders: what later tools read."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conveyor.job.events import EventLog, read_events
from conveyor.job.jobfile import (
    JobFile,
    JobRecord,
    SessionRecord,
    UsageRecord,
    load_job_file,
    process_start_ticks,
)
from conveyor.job.layout import JobPaths, job_alive, load_lane, make_job_paths

NOW = datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)


def _record(pid: int = 1) -> JobRecord:
    return JobRecord(
        issue=7,
        stage="implement",
        role="writer",
        lane="h-0123abcd",
        job_id="issue-7-implement-20260102T030405Z",
        pid=pid,
        process_start=process_start_ticks(pid),
        started_at=NOW,
        heartbeat=NOW,
    )


def test_events_are_json_lines_with_the_common_fields(tmp_path: Path) -> None:
    """Each event is one line with ts, issue, stage, job and kind first."""
    log = EventLog(tmp_path / "events.jsonl", issue=7, stage="spec", job="j1", now=lambda: NOW)
    log.emit("claimed", lane="L")
    log.emit("pushed", ref="refs/heads/agent/issue-7", sha="abc")
    events = read_events(tmp_path / "events.jsonl")
    assert events[0] == {
        "ts": "2026-01-02T03:04:05.678Z",
        "issue": 7,
        "stage": "spec",
        "job": "j1",
        "kind": "claimed",
        "lane": "L",
    }
    assert events[1]["kind"] == "pushed"


def test_an_unknown_event_kind_or_a_reserved_field_is_refused(tmp_path: Path) -> None:
    """Readers can rely on the kinds and the common fields."""
    log = EventLog(tmp_path / "e.jsonl", issue=7, stage="spec", job="j", now=lambda: NOW)
    with pytest.raises(ValueError, match="unknown event kind"):
        log.emit("exploded")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="issue"):
        log.emit("claimed", issue=8)


def test_job_json_records_sessions_by_key_and_the_end(tmp_path: Path) -> None:
    """A session recorded twice keeps its latest record; finish records outcome and time."""
    path = tmp_path / "job.json"
    job = JobFile(path, _record(), lambda: NOW)
    job.record_session(SessionRecord(key="spec", backend="claude", model="m", status="running"))
    usage = UsageRecord(input=10, output=2)
    done = SessionRecord(key="spec", backend="claude", model="m", status="replied", usage=usage)
    job.record_session(done)
    job.set_lost_changes(["b.txt", "a.txt", "a.txt"])
    job.finish("saved")
    loaded = load_job_file(path)
    assert [s.status for s in loaded.sessions] == ["replied"]
    assert loaded.sessions[0].cost_usd is None
    assert loaded.lost_changes == ["a.txt", "b.txt"]
    assert loaded.finished is not None
    assert loaded.finished.outcome == "saved"
    assert json.loads(path.read_text())["schema_version"] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["job.json"]


def test_the_lane_is_created_once(tmp_path: Path) -> None:
    """The first call writes `<host>-<8 hex>`; later calls read the same lane."""
    lane = load_lane(tmp_path)
    assert lane.rsplit("-", 1)[1].isalnum()
    assert len(lane.rsplit("-", 1)[1]) == 8
    assert load_lane(tmp_path) == lane
    assert (tmp_path / "lane").read_text().strip() == lane


def test_job_folders_are_named_by_issue_stage_and_utc_start(tmp_path: Path) -> None:
    """`jobs/issue-N-<stage>-<UTC start>`; a second job in the same second gets a suffix."""
    first = make_job_paths(tmp_path, 7, "spec", NOW)
    second = make_job_paths(tmp_path, 7, "spec", NOW)
    assert first.job_id == "issue-7-spec-20260102T030405Z"
    assert second.job_id != first.job_id
    assert first.run_dir == tmp_path / "runs" / "issue-7"


def test_a_job_is_alive_only_while_its_process_runs_unfinished(tmp_path: Path) -> None:
    """Own pid and start time: alive; a finished record or a dead pid: not."""
    job = JobFile(tmp_path / "job.json", _record(os.getpid()), lambda: NOW)
    assert job_alive(tmp_path)
    job.finish("saved")
    assert not job_alive(tmp_path)
    dead = tmp_path / "dead"
    JobFile(dead / "job.json", _record(2**22 + 12345), lambda: NOW)
    assert not job_alive(dead)


def test_a_deep_job_folder_gets_a_short_control_socket_path(tmp_path: Path) -> None:
    """Unix socket paths are limited to about 100 bytes."""
    deep = tmp_path / ("x" * 120)
    paths = JobPaths(tmp_path, "j", deep, tmp_path / "runs")
    assert len(str(paths.control_socket)) <= 100
    short = JobPaths(Path("/h"), "j", Path("/h/jobs/j"), Path("/h/runs"))
    assert short.control_socket == Path("/h/jobs/j/control.sock")
