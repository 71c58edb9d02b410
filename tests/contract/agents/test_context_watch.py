"""The context watch with scripted usage: soft steer, hard stop, reader retry, writer handoff."""

from __future__ import annotations

import os
from typing import Any

import pytest

from conveyor.agents.launch import launch
from conveyor.agents.process import SessionHandle
from conveyor.core.replies import ImplementReply
from conveyor.core.session import SessionRole, SessionStatus
from tests.contract.agents.conftest import ACCEPT, Sessions

pytestmark = pytest.mark.contract

HANDOFF: dict[str, Any] = {
    "status": "handoff",
    "summary": "half done",
    "blocked_reason": None,
    "deviations": [],
}
OVER_SOFT = {"input": 10_000, "cache_read": 145_000, "output": 100}
OVER_HARD = {"input": 5_000, "cache_read": 160_000, "cache_write": 15_000, "output": 100}
NEVER = "never-created-file"


def test_a_writer_past_soft_is_steered_once_and_hands_off(sessions: Sessions) -> None:
    """The steer arrives as a user message; the scenario's on_steer hands off with handoff.md."""
    scenario = sessions.scenario(
        {
            "on_steer": "handoff",
            "handoff": "Done: parser. Left: the CLI flag.",
            "handoff_reply": HANDOFF,
            "turns": [{"usage": OVER_SOFT, "await_steer": True}, {"text": "never reached"}],
        }
    )
    spec = sessions.spec(scenario, role=SessionRole.WRITER, reply_model="implement")
    result = launch(spec, dict(os.environ))
    assert result.steered
    assert result.status is SessionStatus.HANDOFF
    assert isinstance(result.reply, ImplementReply)
    assert result.reply.summary == "half done"
    assert result.handoff is not None
    assert "Left: the CLI flag." in result.handoff.read_text()
    assert result.turns == 1


def test_a_reader_past_soft_is_not_steered(sessions: Sessions) -> None:
    """Readers get no handoff steer; they carry on and reply."""
    scenario = sessions.scenario(
        {"on_steer": "handoff", "turns": [{"usage": OVER_SOFT}, {"actions": [{"reply": ACCEPT}]}]}
    )
    result = launch(sessions.spec(scenario), dict(os.environ))
    assert not result.steered
    assert result.status is SessionStatus.REPLIED


def test_a_writer_past_hard_is_stopped_and_its_result_is_a_handoff(sessions: Sessions) -> None:
    """The stopped writer's result is a handoff built with empty fields (CTX-4)."""
    scenario = sessions.scenario(
        {"turns": [{"usage": OVER_HARD, "actions": [{"pause_until": NEVER}]}]}
    )
    spec = sessions.spec(scenario, role=SessionRole.WRITER, reply_model="implement")
    result = launch(spec, dict(os.environ))
    assert result.status is SessionStatus.HANDOFF
    assert isinstance(result.reply, ImplementReply)
    assert result.reply.status == "handoff"
    assert result.peak_context == 180_000
    assert result.earlier == ()


def test_a_reader_past_hard_is_retried_once_fresh(sessions: Sessions) -> None:
    """CTX-5: a fresh `<key>.retry` session runs, and its result carries both usages."""
    scenario = sessions.scenario(
        {"retry": 0, "turns": [{"usage": OVER_HARD, "actions": [{"pause_until": NEVER}]}]},
        {"retry": 1, "turns": [{"usage": {"input": 50_000}, "actions": [{"reply": ACCEPT}]}]},
    )
    result = launch(sessions.spec(scenario), dict(os.environ), SessionHandle())
    assert result.status is SessionStatus.REPLIED
    [stopped] = result.earlier
    assert stopped.status is SessionStatus.CONTEXT_STOPPED
    assert result.session_dir is not None
    assert result.session_dir.name == "s1.retry"
    assert result.total_usage.input == 55_000


def test_a_reader_past_hard_twice_fails(sessions: Sessions) -> None:
    """CTX-6: the second overrun fails the launch, naming the limit."""
    scenario = sessions.scenario(
        {"turns": [{"usage": OVER_HARD, "actions": [{"pause_until": NEVER}]}]}
    )
    result = launch(sessions.spec(scenario), dict(os.environ))
    assert result.status is SessionStatus.FAILED
    assert result.error == "context passed the hard limit (175000) twice"
    assert len(result.earlier) == 1


def test_a_steer_from_the_job_reaches_a_running_session(sessions: Sessions) -> None:
    """A steer sent through the session's handle arrives as a user message."""
    scenario = sessions.scenario(
        {
            "on_steer": "handoff",
            "handoff": "Stopped on request.",
            "handoff_reply": HANDOFF,
            "turns": [{"usage": {"input": 10}, "await_steer": True}],
        }
    )
    spec = sessions.spec(scenario, role=SessionRole.WRITER, reply_model="implement")
    handle = SessionHandle()
    handle.steer("The operator asks you to stop and hand off.")
    result = launch(spec, dict(os.environ), handle)
    assert result.status is SessionStatus.HANDOFF
    assert result.handoff is not None
    assert result.handoff.read_text() == "Stopped on request.\n"
