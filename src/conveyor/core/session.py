"""Session specs and results, and the context-watch and retry rules as pure functions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from conveyor.core.agent_failure import InfraKind, retried
from conveyor.core.backends import BackendName
from conveyor.core.replies import Reply, reply_model, reply_schema
from conveyor.core.session_box import SessionSandbox


class SessionRole(StrEnum):
    """What a session may do: readers get read-only tools, writers may edit and commit."""

    READER = "reader"
    WRITER = "writer"


class SessionStatus(StrEnum):
    """How a session ended."""

    REPLIED = "replied"
    HANDOFF = "handoff"
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    RATE_LIMITED = "rate_limited"
    CONTEXT_STOPPED = "context_stopped"


class FailureKind(StrEnum):
    """Infrastructure failures are retried (with the fallback model); behavioural ones are not.

    `scenario`: the scripted agent's scenario cannot play the session (no entry matches, or
    the file is unreadable). It is neither the model's doing nor the CLI's: the job stops
    that issue at once, naming the file, and no agent is paused for it.
    """

    INFRASTRUCTURE = "infrastructure"
    BEHAVIOURAL = "behavioural"
    SCENARIO = "scenario"


@dataclass(frozen=True)
class SessionIdentity:
    """Which issue, stage, session kind and stage attempt a session belongs to."""

    issue: int
    stage: str
    kind: str
    attempt: int = 1


@dataclass(frozen=True)
class ContextLimits:
    """Per-turn context limits (CTX-1): one steer past `soft`, a stop past `hard`."""

    soft: int = 150_000
    hard: int = 175_000


# How hard the model thinks: levels claude, codex and opencode all take (`[sessions]`).
Effort = Literal["low", "medium", "high"]


@dataclass(frozen=True)
class SessionSpec:
    """Everything the runner needs to launch one session.

    `executable` overrides the backend's CLI (else `CONVEYOR_<BACKEND>_EXECUTABLE`, else the
    CLI's name on PATH); `scenario` is set for the scripted agent. `session_dir` is created by
    the runner and holds the transcript, the result file and `reply.json`.
    """

    role: SessionRole
    backend: BackendName
    model: str
    system_prompt: str
    task: str
    reply_model: str
    cwd: Path
    session_dir: Path
    session_key: str
    identity: SessionIdentity
    fallback_model: str | None = None
    context: ContextLimits = ContextLimits()
    timeout_seconds: float = 45 * 60
    max_turns: int | None = None
    effort: Effort | None = None
    executable: str | None = None
    scenario: Path | None = None
    issue_file: Path | None = None
    control_socket: Path | None = None
    git_config: Path | None = None
    passthrough_env: tuple[str, ...] = ()
    token_env: tuple[str, ...] = ()
    infra_retries: int = 1
    reply_check_rounds: int = 3
    extra_args: tuple[str, ...] = ()
    backend_settings: Mapping[str, object] = field(default_factory=dict)
    money_per_session: float | None = None
    base_url: str | None = None
    sandbox: SessionSandbox = field(default_factory=SessionSandbox)


@dataclass(frozen=True)
class Usage:
    """Tokens by kind."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
        )

    @property
    def total(self) -> int:
        """All tokens of every kind."""
        return self.input + self.output + self.cache_read + self.cache_write


@dataclass(frozen=True)
class SessionResult:
    """What one launch (and the launches before it, in `earlier`) came to.

    `cost_usd` is None when the CLI reported no cost: unknown, never zero. `reply` is only
    ever the reply the MCP server accepted into `reply.json`.
    """

    status: SessionStatus
    model: str
    reply: Reply | None = None
    usage: Usage = Usage()
    cost_usd: float | None = None
    peak_context: int = 0
    last_context: int = 0
    turns: int = 0
    cli_session_id: str | None = None
    session_dir: Path | None = None
    transcript: Path | None = None
    handoff: Path | None = None
    error: str | None = None
    failure: FailureKind | None = None
    infra: InfraKind | None = None
    rate_limit_reset: float | None = None
    tool_calls: int = 0
    tool_failures: int = 0
    last_tool_failure: str | None = None
    unparsed_lines: int = 0
    check_findings: tuple[str, ...] = ()
    steered: bool = False
    earlier: tuple[SessionResult, ...] = field(default=())

    @property
    def total_usage(self) -> Usage:
        """This launch's usage plus every earlier launch's."""
        total = self.usage
        for result in self.earlier:
            total = total + result.usage
        return total

    @property
    def total_cost_usd(self) -> float | None:
        """Summed cost, or None when any launch's cost is unknown."""
        costs = [r.cost_usd for r in (*self.earlier, self)]
        return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


LOOP_CALLS = 20
"""The same tool call (name and input) this many times in a row is an endless loop: the
session is stopped and fails as the model's doing."""


def over_session_money(result: SessionResult, per_session: float | None) -> bool:
    """BB-PAUSE-5: the launch's known cost passed `money.per_session` (unknown never does)."""
    return per_session is not None and result.cost_usd is not None and result.cost_usd > per_session


def money_message(result: SessionResult, per_session: float) -> str:
    """Why a session over its money budget failed."""
    return (
        f"the session cost {result.cost_usd or 0:.2f} USD, over money.per_session "
        f"({per_session:.2f}), twice in a row"
    )


def turn_context(usage: Usage) -> int:
    """One assistant turn's context (CTX-2): input + cache read + cache write."""
    return usage.input + usage.cache_read + usage.cache_write


class WatchAction(StrEnum):
    """What the runner does after seeing one turn's context."""

    CONTINUE = "continue"
    STEER = "steer"
    STOP = "stop"


def watch(
    context: int, limits: ContextLimits, role: SessionRole, *, steered: bool, steerable: bool
) -> WatchAction:
    """CTX-3/CTX-4: stop past hard; one steer to a steerable writer past soft."""
    if context > limits.hard:
        return WatchAction.STOP
    if context > limits.soft and role is SessionRole.WRITER and steerable and not steered:
        return WatchAction.STEER
    return WatchAction.CONTINUE


class ContextOutcome(StrEnum):
    """What a context stop turns into (CTX-4..6)."""

    HANDOFF = "handoff"
    RETRY = "retry"
    FAIL = "fail"


def after_context_stop(role: SessionRole, stops_so_far: int) -> ContextOutcome:
    """A stopped writer hands off; others are retried once fresh, then fail."""
    if role is SessionRole.WRITER:
        return ContextOutcome.HANDOFF
    return ContextOutcome.RETRY if stops_so_far <= 1 else ContextOutcome.FAIL


HANDOFF_STEER = (
    "Your context is nearly full. Stop now: commit what builds, write handoff.md in "
    "$CONVEYOR_SESSION_DIR saying what is done and what is left, and submit your reply "
    "with status handoff."
)
READ_IN_PARTS = (
    "An earlier attempt at this task ran out of context. Read large files and diffs in "
    "parts (a range of lines at a time) and keep your context small."
)


def twice_message(hard: int) -> str:
    """CTX-6's failure text."""
    return f"context passed the hard limit ({hard}) twice"


def retry_infra(result: SessionResult, retries_done: int, allowed: int) -> bool:
    """BB-OUT-5: only infrastructure failures are retried, `allowed` times.

    A usage limit, a failed sign-in or a missing CLI is not retried: a new launch
    meets the same wall, and the orchestrator pauses that agent's starts instead.
    """
    if result.infra is not None and not retried(result.infra):
        return False
    if result.status is SessionStatus.RATE_LIMITED:
        return False
    return result.failure is FailureKind.INFRASTRUCTURE and retries_done < allowed


def retry_model(spec: SessionSpec, retries_done: int) -> str:
    """The model of the next launch: the fallback model once any retry has happened."""
    if retries_done > 0 and spec.fallback_model:
        return spec.fallback_model
    return spec.model


def _empty(node: Mapping[str, Any], defs: Mapping[str, Any]) -> object:
    if "$ref" in node:
        return _empty(defs[str(node["$ref"]).rsplit("/", 1)[-1]], defs)
    if "anyOf" in node:
        return None
    if "enum" in node:
        return node["enum"][0]
    kind = node.get("type")
    empties: dict[str, object] = {"string": "", "array": [], "boolean": False, "integer": 0}
    if kind == "object":
        return {k: _empty(v, defs) for k, v in node.get("properties", {}).items()}
    return empties.get(str(kind))


def handoff_reply(name: str, summary: str) -> Reply | None:
    """The reply built for a writer stopped on context: empty fields, status handoff.

    None when the model has no `handoff` status (readers are retried, not handed off).
    """
    schema = reply_schema(name)
    status = schema["properties"].get("status", {})
    if "handoff" not in status.get("enum", []):
        return None
    data = _empty(schema, schema.get("$defs", {}))
    assert isinstance(data, dict)
    data |= {"status": "handoff", "summary": summary}
    return reply_model(name).model_validate(data)
