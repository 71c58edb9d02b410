"""The live view's model from recorded status.json, events and job.json, at a fixed clock."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from conveyor.cli.live.feed import EventState, absorb, parse_event
from conveyor.cli.live.files import EventTail
from conveyor.cli.live.model import View, build_view
from tests.unit.cli.live.recorded import NOW, copy_home, recorded_jobs


def recorded_view(tmp_path: Path, **changes: object) -> View:
    """The view of the recorded home at NOW, with status.json fields replaced by `changes`."""
    home = copy_home(tmp_path)
    status = json.loads((home / "status.json").read_text())
    status.update(changes)
    events = absorb(EventState(), EventTail(home / "runs").read_new())
    return build_view(status, events, recorded_jobs(home), NOW, money_per_day=20.0)


def test_the_queue_lists_issues_by_stage_in_pipeline_order(tmp_path: Path) -> None:
    """Triage comes before implement whatever order status.json lists the stages in."""
    view = recorded_view(tmp_path)
    assert view.queue == (("triage", (11, 12)), ("implement", (4,)))


def test_holds_and_waiting_issues_keep_their_reasons(tmp_path: Path) -> None:
    """A held issue shows its stage and reason; an issue waiting for an answer says so."""
    held = {(h.issue, h.stage, h.reason) for h in recorded_view(tmp_path).holds}
    assert held == {
        (4, "implement", "touches the same files as #7"),
        (5, "waiting", "waiting for an answer"),
    }


def test_a_stopped_issue_carries_its_control_and_how_to_resume(tmp_path: Path) -> None:
    """The stop of #9 names the fix-loop control, its stage and the resume command."""
    (stop,) = recorded_view(tmp_path).stopped
    assert (stop.issue, stop.control, stop.stage) == (9, "fix-loop", "fix")
    assert stop.resume == "conveyor resume --config /home/me/inventory.toml --issue 9"


def test_a_running_job_shows_its_open_session_and_recorded_usage(tmp_path: Path) -> None:
    """Only the live job is listed; its session is the one started but not yet ended."""
    (job,) = recorded_view(tmp_path).jobs
    assert (job.issue, job.stage, job.session) == (7, "review", "review-security-1")
    assert job.context is None  # job.json records a session only when it ends
    assert (job.tokens, job.cost_usd, job.running_seconds) == (30000, 0.42, 250)


def test_recent_events_are_the_notable_ones_oldest_first(tmp_path: Path) -> None:
    """Claims, PRs, findings, merges and stops across issues, in time order; no session noise."""
    recent = recorded_view(tmp_path).recent
    assert [(e.issue, e.kind) for e in recent] == [
        (3, "merged"),
        (7, "claimed"),
        (7, "pr-opened"),
        (7, "finding"),
        (9, "stopped"),
    ]


def test_spending_and_status_age_come_from_status_json_and_the_clock(tmp_path: Path) -> None:
    """Today's cost, unknown-cost sessions and tokens, the daily budget, and a 10 s old status."""
    view = recorded_view(tmp_path)
    assert view.today is not None
    assert (view.today.cost_usd, view.today.unknown_sessions, view.today.tokens) == (
        1.25,
        1,
        123456,
    )
    assert view.today.per_day == 20.0
    assert (view.status_age, view.stale) == (10, False)


def test_an_old_status_file_marks_the_view_stale(tmp_path: Path) -> None:
    """A status.json written ten minutes ago says the orchestrator may not be running."""
    view = recorded_view(tmp_path, written_at=(NOW - timedelta(minutes=10)).isoformat())
    assert (view.status_age, view.stale) == (600, True)


def test_no_status_file_yet_gives_an_empty_view_not_an_error() -> None:
    """Before the first pass the view has no age, no queue and no spending."""
    view = build_view(None, EventState(), [], NOW)
    assert (view.status_age, view.queue, view.today, view.problem) == (None, (), None, None)


def test_a_status_file_of_the_wrong_shape_is_named_as_the_problem(tmp_path: Path) -> None:
    """A queue that is a list instead of a table becomes a problem line, not a crash."""
    view = recorded_view(tmp_path, queue=[4, 5])
    assert view.problem is not None
    assert "status.json" in view.problem
    assert view.queue == ()


def test_a_session_that_ended_is_no_longer_open() -> None:
    """session-started then session-ended of the same key leaves no open session for the job."""
    head = {"ts": "2026-11-29T12:00:00Z", "issue": 1, "stage": "spec", "job": "j1"}
    started = parse_event({**head, "kind": "session-started", "key": "spec-1"})
    ended = parse_event(
        {**head, "ts": "2026-11-29T12:01:00Z", "kind": "session-ended", "key": "spec-1"}
    )
    assert absorb(EventState(), [started]).open_sessions == {"j1": "spec-1"}
    assert absorb(absorb(EventState(), [started]), [ended]).open_sessions == {}


def test_recent_events_keep_only_the_newest() -> None:
    """Past the limit, the oldest notable events are dropped."""
    claims = [
        parse_event({"ts": f"2026-11-29T12:00:{s:02d}Z", "issue": s, "kind": "claimed"})
        for s in range(10)
    ]
    state = absorb(EventState(), claims, keep=3)
    assert [e.issue for e in state.recent] == [7, 8, 9]


def test_a_job_on_a_remote_worker_is_listed_from_status_json(tmp_path: Path) -> None:
    """A job status.json places on a worker shows beside the local one, with its worker."""
    remote = {
        "issue": 12, "stage": "triage", "job_id": "issue-12-triage-x", "pid": 9, "worker": "7@w2",
        "session": "triage-1", "model": "m", "context": 900, "context_budget": 50_000,
        "cost_usd": 0.1, "tokens": 1100, "unknown_cost_sessions": 0, "running_seconds": 30,
        "heartbeat": "2026-01-01T00:00:00+00:00",
    }  # fmt: skip
    view = recorded_view(tmp_path, jobs=[remote])
    rows = {job.issue: job for job in view.jobs}
    assert rows[12].worker == "7@w2"
    assert (rows[12].stage, rows[12].tokens, rows[12].running_seconds) == ("triage", 1100, 30)
    assert rows[7].worker is None


def test_an_issue_held_for_what_it_waits_for_is_listed_once(tmp_path: Path) -> None:
    """A visitor's issue is both held at triage and waiting, both as untrusted: one line."""
    view = recorded_view(
        tmp_path,
        waiting=[{"issue": 7, "why": "untrusted"}],
        holds=[{"issue": 7, "stage": "triage", "reason": "untrusted"}],
    )
    assert [(h.issue, h.stage, h.reason) for h in view.holds] == [(7, "triage", "untrusted")]
