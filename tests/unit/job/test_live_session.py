"""A running session in job.json: its live context, its tool-failure streak, the throttle."""

from __future__ import annotations

import itertools
import json
import time
from datetime import UTC, datetime
from pathlib import Path

from conveyor.agents.backends.claude import ClaudeParser
from conveyor.core.session import SessionIdentity, SessionRole, SessionSpec
from conveyor.job.jobfile import (
    RUNNING,
    JobFile,
    JobRecord,
    SessionRecord,
    ToolFailureRecord,
    load_job_file,
)
from conveyor.job.live_session import LiveSession

NOW = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
KEY = "triage-1"
_IDS = itertools.count(1)


class Clock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _spec(model: str = "sonnet") -> SessionSpec:
    return SessionSpec(
        role=SessionRole.READER,
        backend="claude",
        model=model,
        system_prompt="sys",
        task="task",
        reply_model="triage",
        cwd=Path("/checkout"),
        session_dir=Path("/sessions/triage-1"),
        session_key=KEY,
        identity=SessionIdentity(3, "triage", "triage"),
    )


def _job_file(tmp_path: Path) -> JobFile:
    record = JobRecord(
        issue=3, stage="triage", role="reader", lane="lane-a", job_id="issue-3-triage-x",
        pid=1, process_start=None, started_at=NOW, heartbeat=NOW,
    )  # fmt: skip
    return JobFile(tmp_path / "job.json", record, lambda: NOW)


def _on_file(job_file: JobFile) -> SessionRecord:
    sessions = load_job_file(job_file.path).sessions
    assert [s.key for s in sessions] == [KEY]
    return sessions[0]


def _call(parser: ClaudeParser, tool: str, *, context: int = 1000) -> str:
    """Feed an assistant turn calling `tool`; returns the call's id."""
    ident = f"toolu_{next(_IDS)}"
    block = {"type": "tool_use", "id": ident, "name": tool, "input": {}}
    message = {"id": f"msg_{ident}", "content": [block], "usage": {"input_tokens": context}}
    parser.feed(json.dumps({"type": "assistant", "message": message}))
    return ident


def _result(parser: ClaudeParser, ident: str, *, error: str | None = None) -> None:
    """Feed the call's result, failed when `error` is given."""
    block: dict[str, object] = {"type": "tool_result", "tool_use_id": ident}
    block |= {"content": error, "is_error": True} if error else {"content": "ok"}
    parser.feed(json.dumps({"type": "user", "message": {"content": [block]}}))


def _fail(live: LiveSession, parser: ClaudeParser, tool: str, error: str) -> None:
    spec = _spec()
    ident = _call(parser, tool)
    live(spec, parser.state)
    _result(parser, ident, error=error)
    live(spec, parser.state)


def test_a_session_is_recorded_as_running_when_it_starts(tmp_path: Path) -> None:
    """Before any event the session is in job.json: running, its budget, no context yet."""
    job_file = _job_file(tmp_path)
    live = LiveSession(job_file, KEY, 50_000, clock=Clock())
    live(_spec(), ClaudeParser().state)
    record = _on_file(job_file)
    assert (record.status, record.budget, record.last_context) == (RUNNING, 50_000, 0)
    assert record.tool_failure is None


def test_the_same_tool_failing_three_times_in_a_row_shows_a_streak_of_three(
    tmp_path: Path,
) -> None:
    """Each failure is written at once, with the tool, its last error and the streak."""
    job_file = _job_file(tmp_path)
    live = LiveSession(job_file, KEY, 50_000, clock=Clock())
    parser = ClaudeParser()
    live(_spec(), parser.state)
    for n in (1, 2, 3):
        _fail(live, parser, "Bash", f"exit {n}")
        assert _on_file(job_file).tool_failure == ToolFailureRecord(
            tool="Bash", error=f"exit {n}", streak=n
        )


def test_a_call_that_did_not_fail_in_between_starts_the_streak_again(tmp_path: Path) -> None:
    """Bash fails, Read succeeds, Bash fails: the streak is 1, not 2."""
    job_file = _job_file(tmp_path)
    live = LiveSession(job_file, KEY, 50_000, clock=Clock())
    parser = ClaudeParser()
    _fail(live, parser, "Bash", "exit 1")
    ident = _call(parser, "Read")
    _result(parser, ident)
    live(_spec(), parser.state)
    _fail(live, parser, "Bash", "exit 1")
    failure = _on_file(job_file).tool_failure
    assert failure is not None
    assert failure.streak == 1


def test_another_tool_failing_starts_the_streak_again(tmp_path: Path) -> None:
    """WD-8 counts one tool: Bash, Bash, then Grep failing is a Grep streak of 1."""
    job_file = _job_file(tmp_path)
    live = LiveSession(job_file, KEY, 50_000, clock=Clock())
    parser = ClaudeParser()
    _fail(live, parser, "Bash", "exit 1")
    _fail(live, parser, "Bash", "exit 1")
    _fail(live, parser, "Grep", "no such file")
    assert _on_file(job_file).tool_failure == ToolFailureRecord(
        tool="Grep", error="no such file", streak=1
    )


def test_context_within_the_interval_waits_and_after_it_is_written(tmp_path: Path) -> None:
    """A new context inside the second is held back (flushed by the timer); past it, written."""
    job_file = _job_file(tmp_path)
    clock = Clock()
    live = LiveSession(job_file, KEY, 50_000, clock=clock)
    parser = ClaudeParser()
    live(_spec(), parser.state)
    _call(parser, "Read", context=20_000)
    clock.now += 0.5
    live(_spec(), parser.state)
    assert _on_file(job_file).last_context == 0
    live.flush()
    assert _on_file(job_file).last_context == 20_000
    _call(parser, "Read", context=30_000)
    clock.now += 1.0
    live(_spec(), parser.state)
    record = _on_file(job_file)
    assert (record.last_context, record.peak_context) == (30_000, 30_000)
    live.close()


def test_a_held_back_change_is_written_by_the_timer_without_more_events(tmp_path: Path) -> None:
    """The last turn before a long tool call still reaches job.json."""
    job_file = _job_file(tmp_path)
    live = LiveSession(job_file, KEY, 50_000, interval=0.05)
    parser = ClaudeParser()
    live(_spec(), parser.state)
    _call(parser, "Bash", context=60_000)
    live(_spec(), parser.state)
    deadline = time.monotonic() + 10
    while _on_file(job_file).last_context != 60_000:
        assert time.monotonic() < deadline, "the held-back context was never written"
        time.sleep(0.01)
    live.close()


def test_nothing_is_written_after_close(tmp_path: Path) -> None:
    """Once the session ended its end record must stand: a late event or flush changes nothing."""
    job_file = _job_file(tmp_path)
    clock = Clock()
    live = LiveSession(job_file, KEY, 50_000, clock=clock)
    parser = ClaudeParser()
    live(_spec(), parser.state)
    live.close()
    _fail(live, parser, "Bash", "exit 1")
    live.flush()
    assert _on_file(job_file).tool_failure is None


def test_a_retry_carries_the_earlier_usage_and_starts_a_fresh_streak(tmp_path: Path) -> None:
    """A second launch: usage adds up, the context is the new launch's, the streak restarts."""
    job_file = _job_file(tmp_path)
    live = LiveSession(job_file, KEY, 50_000, clock=Clock())
    first = ClaudeParser()
    _call(first, "Read", context=40_000)
    live(_spec(), first.state)
    _fail(live, first, "Bash", "exit 1")
    second = ClaudeParser()
    live(_spec("opus"), second.state)
    record = _on_file(job_file)
    assert record.model == "opus"
    assert record.usage.input == first.state.usage.input
    assert (record.last_context, record.peak_context) == (0, 40_000)
    assert record.tool_failure is None


def test_a_launch_that_raised_leaves_its_session_marked_failed_not_running(
    tmp_path: Path,
) -> None:
    """No end record follows a crash, so the running record is closed with the given status."""
    job_file = _job_file(tmp_path)
    live = LiveSession(job_file, KEY, 50_000, clock=Clock())
    parser = ClaudeParser()
    _call(parser, "Read", context=20_000)
    live(_spec(), parser.state)
    live.close("failed")
    record = _on_file(job_file)
    assert (record.status, record.last_context) == ("failed", 20_000)
