"""Turn what a launch left behind (stream, reply.json, handoff.md) into a result, and save it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from conveyor.agents.backends.base import StreamState
from conveyor.agents.reply_gate import read_accepted
from conveyor.core.replies import Reply, validate_reply
from conveyor.core.session import (
    FailureKind,
    SessionResult,
    SessionRole,
    SessionSpec,
    SessionStatus,
    handoff_reply,
)

RESULT_FILE = "result.json"
HANDOFF_FILE = "handoff.md"


@dataclass
class Watch:
    """What the runner saw while the CLI ran."""

    steered: bool = False
    context_stopped: bool = False
    timed_out: bool = False
    aborted: bool = False
    exit_code: int | None = None


def _status_of(reply: Reply | None) -> SessionStatus:
    status = getattr(reply, "status", None)
    return SessionStatus.HANDOFF if status == "handoff" else SessionStatus.REPLIED


def _outcome(
    spec: SessionSpec, state: StreamState, seen: Watch, reply: Reply | None, handoff: Path | None
) -> tuple[SessionStatus, FailureKind | None, str | None, Reply | None]:
    """Status, failure kind, error text and reply; the order of the checks is the rule."""
    writer = spec.role is SessionRole.WRITER
    if reply is not None:  # an accepted reply stands, even if a limit tripped afterwards
        return _status_of(reply), None, None, reply
    if seen.context_stopped:
        if not writer:
            return SessionStatus.CONTEXT_STOPPED, None, "context passed the hard limit", None
        reply = handoff_reply(spec.reply_model, "stopped at the hard context limit")
        return SessionStatus.HANDOFF, None, None, reply
    if seen.aborted:
        return SessionStatus.FAILED, None, "aborted by the job", None
    if seen.timed_out:
        text = f"timed out after {spec.timeout_seconds:g} s"
        return SessionStatus.TIMED_OUT, FailureKind.INFRASTRUCTURE, text, None
    if state.rate_limited:
        text = state.error or "usage limit reached"
        return SessionStatus.RATE_LIMITED, FailureKind.INFRASTRUCTURE, text, None
    if state.error is not None:
        return SessionStatus.FAILED, FailureKind.INFRASTRUCTURE, state.error, None
    if not state.ended:
        text = f"the CLI exited ({seen.exit_code}) without a final event"
        if tail := _stderr_tail(spec.session_dir):
            text += f": {tail}"
        return SessionStatus.FAILED, FailureKind.INFRASTRUCTURE, text, None
    if writer and handoff is not None:
        return SessionStatus.HANDOFF, None, None, handoff_reply(spec.reply_model, "handoff.md")
    text = "the session ended without an accepted reply"
    return SessionStatus.FAILED, FailureKind.BEHAVIOURAL, text, None


def _stderr_tail(session_dir: Path, limit: int = 600) -> str:
    """The end of the CLI's stderr: where a CLI that never streamed says why."""
    try:
        text = (session_dir / "stderr.log").read_bytes()[-limit:]
    except OSError:
        return ""
    return text.decode("utf-8", "replace").strip()


def build_result(
    spec: SessionSpec, model: str, state: StreamState, seen: Watch, transcript: Path
) -> SessionResult:
    """The launch's result; the reply comes only from `reply.json`."""
    data, findings = read_accepted(spec.session_dir)
    reply = validate_reply(spec.reply_model, data).reply if data is not None else None
    handoff_path = spec.session_dir / HANDOFF_FILE
    handoff = handoff_path if handoff_path.is_file() else None
    status, failure, error, reply = _outcome(spec, state, seen, reply, handoff)
    return SessionResult(
        status=status,
        model=model,
        reply=reply,
        usage=state.usage,
        cost_usd=state.cost_usd,
        peak_context=max(state.contexts, default=0),
        last_context=state.contexts[-1] if state.contexts else 0,
        turns=state.turns,
        cli_session_id=state.session_id,
        session_dir=spec.session_dir,
        transcript=transcript,
        handoff=handoff,
        error=error,
        failure=failure,
        rate_limit_reset=state.rate_limit_reset if status is SessionStatus.RATE_LIMITED else None,
        tool_calls=state.tool_calls,
        tool_failures=state.tool_failures,
        last_tool_failure=state.last_tool_failure,
        unparsed_lines=state.unparsed,
        check_findings=findings,
        steered=seen.steered,
    )


def result_json(result: SessionResult) -> dict[str, Any]:
    """The result as plain JSON (paths as strings, the reply as its JSON form)."""
    out = asdict(result)
    out["reply"] = result.reply.model_dump(mode="json") if result.reply is not None else None
    out["earlier"] = [result_json(r) for r in result.earlier]
    for key, value in out.items():
        if isinstance(value, Path):
            out[key] = str(value)
    return out


def save_result(result: SessionResult) -> None:
    """Write `result.json` into the session folder."""
    if result.session_dir is None:
        return
    path = result.session_dir / RESULT_FILE
    path.write_text(json.dumps(result_json(result), indent=2, default=str) + "\n")
