"""Turn what a launch left behind (stream, reply.json, handoff.md) into a result, and save it."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from conveyor.agents.backends.base import StreamState
from conveyor.agents.reply_gate import read_accepted
from conveyor.agents.scripted.scenario import SCENARIO_EXIT
from conveyor.core.agent_failure import InfraKind, classify_error
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
    went_silent: bool = False
    aborted: bool = False
    looped: str | None = None
    over_money: str | None = None
    exit_code: int | None = None


@dataclass(frozen=True)
class Outcome:
    """How a launch ended: its status, failure kind and error, reply, and infrastructure kind."""

    status: SessionStatus
    failure: FailureKind | None = None
    error: str | None = None
    reply: Reply | None = None
    infra: InfraKind | None = None


def _failed(kind: InfraKind, text: str, status: SessionStatus = SessionStatus.FAILED) -> Outcome:
    return Outcome(status, FailureKind.INFRASTRUCTURE, text, None, kind)


def _behaved(text: str) -> Outcome:
    return Outcome(SessionStatus.FAILED, FailureKind.BEHAVIOURAL, text)


def _status_of(reply: Reply | None) -> SessionStatus:
    status = getattr(reply, "status", None)
    return SessionStatus.HANDOFF if status == "handoff" else SessionStatus.REPLIED


def _outcome(
    spec: SessionSpec, state: StreamState, seen: Watch, reply: Reply | None, handoff: Path | None
) -> Outcome:
    """How the launch ended; the order of the checks is the rule."""
    if reply is not None:  # an accepted reply stands, even if a limit tripped afterwards
        return Outcome(_status_of(reply), reply=reply)
    stopped = _stopped_by_runner(spec, state, seen)
    if stopped is not None:
        return stopped
    broke = _stream_failure(spec, state, seen)
    if broke is not None:
        return broke
    if spec.role is SessionRole.WRITER and handoff is not None:
        return Outcome(SessionStatus.HANDOFF, reply=handoff_reply(spec.reply_model, "handoff.md"))
    said = f" (its last words: {_clip(state.final_text)})" if state.final_text else ""
    return _behaved(f"the session ended without an accepted reply{said}")


def _stopped_by_runner(spec: SessionSpec, state: StreamState, seen: Watch) -> Outcome | None:
    """A limit the runner enforced (context, abort, loop, money, time), in that order."""
    if seen.context_stopped:
        if spec.role is not SessionRole.WRITER:
            return Outcome(SessionStatus.CONTEXT_STOPPED, error="context passed the hard limit")
        reply = handoff_reply(spec.reply_model, "stopped at the hard context limit")
        return Outcome(SessionStatus.HANDOFF, reply=reply)
    if seen.aborted:
        return Outcome(SessionStatus.FAILED, error="aborted by the job")
    if seen.looped is not None:
        return _behaved(f"endless tool loop: {seen.looped}")
    if seen.over_money is not None:
        return _behaved(seen.over_money)
    if seen.timed_out:
        return _timed_out(spec, state, silent=seen.went_silent)
    return None


def _stream_failure(spec: SessionSpec, state: StreamState, seen: Watch) -> Outcome | None:
    """A failure the CLI's stream shows: a refusal, a usage limit, an error, or no final event."""
    if state.refusal is not None:
        return _behaved(f"the model refused the task: {_clip(state.refusal)}")
    if state.rate_limited:
        text = state.error or "usage limit reached"
        return _failed(InfraKind.USAGE_LIMIT, text, SessionStatus.RATE_LIMITED)
    if state.error is not None:
        return _failed(classify_error(state.error, rate_limited=False), state.error)
    if not state.ended and spec.scenario is not None and seen.exit_code == SCENARIO_EXIT:
        # The agent's last stderr line says why (the file, and the session no entry matched).
        lines = _stderr_tail(spec.session_dir, 4000).splitlines() or ["cannot play the session"]
        said = lines[-1].removeprefix("conveyor-scripted-agent: ")
        return Outcome(SessionStatus.FAILED, FailureKind.SCENARIO, f"the scripted agent: {said}")
    if not state.ended:
        text = f"the CLI exited ({seen.exit_code}) without a final event"
        if tail := _stderr_tail(spec.session_dir):
            text += f": {tail}"
        return _failed(InfraKind.CLI_CRASH, text)
    return None


def _timed_out(spec: SessionSpec, state: StreamState, *, silent: bool) -> Outcome:
    """A session that hung (no answer, or silent at the end) is infrastructure's trouble;
    one still working when its time ran out is the model's."""
    text = f"timed out after {spec.timeout_seconds:g} s"
    if state.turns == 0:
        return _failed(
            InfraKind.HUNG,
            f"{text} without a single answer from the model",
            SessionStatus.TIMED_OUT,
        )
    if silent:
        return _failed(
            InfraKind.HUNG, f"{text}, the CLI silent at the end", SessionStatus.TIMED_OUT
        )
    done = f"{text} ({state.turns} turns, {state.tool_calls} tool calls, no accepted reply)"
    return Outcome(SessionStatus.TIMED_OUT, FailureKind.BEHAVIOURAL, done)


def _clip(text: str, limit: int = 200) -> str:
    """One line of at most `limit` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


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
    outcome = _outcome(spec, state, seen, reply, handoff)
    status = outcome.status
    return SessionResult(
        status=status,
        model=model,
        reply=outcome.reply,
        usage=state.usage,
        cost_usd=state.cost_usd,
        peak_context=max(state.contexts, default=0),
        last_context=state.contexts[-1] if state.contexts else 0,
        turns=state.turns,
        cli_session_id=state.session_id,
        session_dir=spec.session_dir,
        transcript=transcript,
        handoff=handoff,
        error=outcome.error,
        failure=outcome.failure,
        infra=outcome.infra,
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
