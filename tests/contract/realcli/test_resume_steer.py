"""codex and opencode, which read no message while they run, are steered by resuming them."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conveyor.agents.launch import launch
from conveyor.agents.process import SessionHandle
from conveyor.core.backends import BackendName
from conveyor.core.session import (
    HANDOFF_STEER,
    ContextLimits,
    SessionRole,
    SessionSpec,
    SessionStatus,
)
from conveyor.core.state import Stage
from conveyor.orchestrator.snapshot import JobRole, JobView, ToolFailure
from conveyor.orchestrator.watchdog import steer_text
from conveyor.testing.fake_model import (
    Branch,
    CallTool,
    FakeModel,
    RecordedRequest,
    RunCommand,
    Script,
    Usage,
)
from conveyor.testing.fake_model.playbook import HANDOFF_MARK
from tests.contract.realcli.launches import environ, session

pytestmark = [pytest.mark.contract, pytest.mark.realcli]

DONE: dict[str, object] = {
    "status": "done",
    "summary": "changed course",
    "blocked_reason": None,
    "deviations": [],
}
HANDOFF: dict[str, object] = {
    "status": "handoff",
    "summary": "half done",
    "blocked_reason": None,
    "deviations": [],
}
# What the watchdog sends after three failures of one tool (WD-8).
FAILING = ToolFailure(tool="shell", error="exit 1: make build", streak=3)
WATCHDOG = steer_text(
    JobView(1, Stage.IMPLEMENT, JobRole.WRITER, datetime(2026, 1, 1, tzinfo=UTC), 1, alive=True,
            tool_failure=FAILING)
)  # fmt: skip
WATCHDOG_MARK = "Stop retrying the same call"
HANDED_OFF = Script(
    (
        RunCommand("printf 'parser done' > \"$CONVEYOR_SESSION_DIR/handoff.md\""),
        CallTool("submit_reply", HANDOFF),
    )
)


def _writer(backend: BackendName, clis_bin: Path, tmp_path: Path, soft: int) -> SessionSpec:
    return session(
        backend, clis_bin, tmp_path, role=SessionRole.WRITER, reply_model="implement",
        context=ContextLimits(soft=soft, hard=10_000_000),
    )  # fmt: skip


@pytest.mark.parametrize("backend", ["codex", "opencode"])
def test_past_the_soft_limit_the_writer_is_resumed_with_the_handoff_steer(
    backend: BackendName, clis_bin: Path, tmp_path: Path
) -> None:
    """CTX-3: one steer past soft; the resumed session writes handoff.md and hands off."""
    big = Usage(input_tokens=5_000)
    script = Script(
        (RunCommand("echo working"),), final_text="Turn over.", usage=big,
        branches=(Branch(HANDOFF_MARK, HANDED_OFF),),
    )  # fmt: skip
    spec = _writer(backend, clis_bin, tmp_path, soft=1_000)
    with FakeModel(script) as model:
        result = launch(replace(spec, base_url=model.url), environ(backend, tmp_path))
        steered = [r for r in model.requests if r.contains(HANDOFF_STEER[:40])]
    assert result.status is SessionStatus.HANDOFF, (result.error, result.last_tool_failure)
    assert result.steered
    assert steered, "the resumed session carried the steer to the model"
    assert (spec.session_dir / "handoff.md").read_text() == "parser done"


def test_the_watchdogs_steer_resumes_codex_which_then_changes_course(
    clis_bin: Path, tmp_path: Path
) -> None:
    """WD-8 through the job's handle: the failing loop is ended, resumed with the steer."""
    failing = Script(
        (RunCommand("exit 1"),), repeat_last=True,
        branches=(Branch(WATCHDOG_MARK, Script((CallTool("submit_reply", DONE),))),),
    )  # fmt: skip
    handle = SessionHandle()
    sent = threading.Event()

    def watchdog(request: RecordedRequest) -> None:
        if request.contains("exit 1") and not sent.is_set():
            sent.set()
            handle.steer(WATCHDOG)

    spec = _writer("codex", clis_bin, tmp_path, soft=10_000_000)
    with FakeModel(failing, on_request=watchdog) as model:
        spec = replace(spec, base_url=model.url)
        result = launch(spec, environ("codex", tmp_path), handle)
        carried = [r for r in model.requests if r.contains(WATCHDOG_MARK)]
    assert result.status is SessionStatus.REPLIED, result.error
    assert result.reply is not None
    assert result.reply.model_dump(mode="json") == DONE
    assert carried, "the steer reached the model as the resumed session's message"
