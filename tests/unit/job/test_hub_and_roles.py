"""The control hub's answers and the stage-to-role table."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conveyor.agents.process import SessionHandle
from conveyor.core.state import FINAL, Stage
from conveyor.job.hub import JobHub
from conveyor.job.roles import JobRole, role_of


def test_every_stage_has_its_role() -> None:
    """Readers: triage, review, accept, security and a person's PR's review; merger: merge;
    the rest write (JB-2)."""
    readers = {Stage.TRIAGE, Stage.REVIEW, Stage.ACCEPT, Stage.SECURITY, Stage.PR_REVIEW}
    for stage in Stage:
        if stage in FINAL:
            continue
        expected = (
            JobRole.READER
            if stage in readers
            else JobRole.MERGER
            if stage is Stage.MERGE
            else JobRole.WRITER
        )
        assert role_of(stage) is expected


def test_check_reply_asks_the_registered_checks() -> None:
    """The runner's quick checks answer check-reply; none registered accepts."""
    hub = JobHub()
    handlers = hub.handlers()
    request = {"op": "check-reply", "session": "k", "reply": {"a": 1}}
    assert handlers.answer(request) == {"ok": True, "findings": []}

    def check(key: str, reply: Mapping[str, Any]) -> list[str]:
        return [f"{key}: {sorted(reply)}"]

    hub.set_check_reply(check)
    assert handlers.answer(request) == {"ok": True, "findings": ["k: ['a']"]}


def test_commit_is_refused_when_the_job_does_not_write() -> None:
    """Readers' jobs register no commit: the request gets an error, not a crash."""
    answer = JobHub().handlers().answer({"op": "commit", "paths": ["a"], "message": "m"})
    assert answer["ok"] is False


def test_steer_and_interrupt_reach_the_tracked_sessions() -> None:
    """Steers go to running sessions; an interrupt aborts them and marks the hub."""
    hub = JobHub()
    handle = SessionHandle()
    with hub.track("k", handle):
        assert hub.handlers().answer({"op": "steer", "text": "wrap up"})["sessions"] == 1
        hub.interrupt()
    events = handle.events()
    kinds = [events.get_nowait().kind for _ in range(events.qsize())]
    assert kinds == ["steer", "abort"]
    assert hub.interrupted.is_set()
    assert hub.running() == []
