"""Launch a session with its retries: one fresh context retry for readers, infra retries."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from conveyor.agents.follow import Progress
from conveyor.agents.process import SessionHandle
from conveyor.agents.runner import run_session
from conveyor.core import backends
from conveyor.core.backends import SCRIPTED_BACKEND, BackendName
from conveyor.core.config import AgentChoice
from conveyor.core.session import (
    READ_IN_PARTS,
    ContextOutcome,
    FailureKind,
    SessionResult,
    SessionSpec,
    SessionStatus,
    after_context_stop,
    money_message,
    over_session_money,
    retry_infra,
    retry_model,
    twice_message,
)
from conveyor.sandbox.proxy import Blocked

SCRIPTED = "conveyor-scripted-agent"


def _retry_spec(spec: SessionSpec, suffix: str, *, task: str, model: str) -> SessionSpec:
    key = f"{spec.session_key}.{suffix}"
    folder = spec.session_dir.with_name(f"{spec.session_dir.name}.{suffix}")
    return replace(spec, session_key=key, session_dir=folder, task=task, model=model)


def launch(
    spec: SessionSpec,
    environ: Mapping[str, str],
    handle: SessionHandle | None = None,
    progress: Progress | None = None,
    on_blocked: Blocked | None = None,
) -> SessionResult:
    """Run `spec` until it ends in a way no retry changes (CTX-4..6, BB-OUT-4/5).

    `progress` hears each launch's stream state as it goes (retries included);
    `on_blocked` each connection the session's box refused (host, port).
    """
    earlier: list[SessionResult] = []
    context_stops = 0
    infra_done = 0
    money_done = 0
    current = spec
    while True:
        result = run_session(
            current,
            environ,
            retry=len(earlier),
            handle=handle,
            progress=progress,
            on_blocked=on_blocked,
        )
        per_session = spec.money_per_session
        if per_session is not None and over_session_money(result, per_session):
            # BB-PAUSE-5: once like an infrastructure failure, the second time the model's.
            if money_done == 0:
                money_done += 1
                earlier.append(result)
                model = spec.fallback_model or current.model
                current = _retry_spec(current, "money", task=current.task, model=model)
                continue
            result = replace(
                result,
                status=SessionStatus.FAILED,
                failure=FailureKind.BEHAVIOURAL,
                reply=None,
                error=money_message(result, per_session),
            )
        elif result.status is SessionStatus.CONTEXT_STOPPED:
            context_stops += 1
            outcome = after_context_stop(spec.role, context_stops)
            if outcome is ContextOutcome.RETRY:
                earlier.append(result)
                task = f"{spec.task}\n\n{READ_IN_PARTS}"
                current = _retry_spec(spec, "retry", task=task, model=current.model)
                continue
            if outcome is ContextOutcome.FAIL:
                result = replace(
                    result,
                    status=SessionStatus.FAILED,
                    failure=FailureKind.BEHAVIOURAL,
                    error=twice_message(spec.context.hard),
                )
        elif retry_infra(result, infra_done, spec.infra_retries):
            infra_done += 1
            earlier.append(result)
            model = retry_model(spec, infra_done)
            current = _retry_spec(current, f"infra{infra_done}", task=current.task, model=model)
            continue
        return replace(result, earlier=tuple(earlier))


def scripted_executable() -> str:
    """The scripted agent installed next to this interpreter (absolute, so PATH never matters)."""
    beside = Path(sys.executable).parent / SCRIPTED
    return str(beside) if beside.exists() else SCRIPTED


def resolve_choice(choice: AgentChoice) -> tuple[BackendName, str | None, Path | None]:
    """Backend, executable and scenario of a role's agent choice.

    `agent = "scripted"` is the claude backend with the scripted agent and its scenario.
    """
    if choice.agent == backends.SCRIPTED:
        scenario = Path(choice.scenario) if choice.scenario else None
        return SCRIPTED_BACKEND, choice.executable or scripted_executable(), scenario
    return choice.agent, choice.executable, None
