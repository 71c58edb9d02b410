"""The runner's session effect: launch one agent session for a stage and report how it ended."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from conveyor.agents.launch import launch, resolve_choice
from conveyor.agents.process import SessionHandle
from conveyor.core.config_sessions import role_sessions
from conveyor.core.replies import SpecReply, validate_reply
from conveyor.core.session import (
    ContextLimits,
    FailureKind,
    SessionIdentity,
    SessionResult,
    SessionSpec,
    SessionStatus,
)
from conveyor.core.session_box import SandboxMode, SessionSandbox
from conveyor.core.state import IssueState, Stage
from conveyor.job.context import JobContext
from conveyor.job.effects.parts import ScenarioMissing
from conveyor.job.hub import CheckReply
from conveyor.job.jobfile import SessionRecord, UsageRecord
from conveyor.job.live_session import LiveSession
from conveyor.sandbox.proxy import Blocked
from conveyor.stages.effects import LaunchSession, SessionEnded
from conveyor.stages.registry import definition

HANDOFF_MD = "handoff.md"


def session_spec(ctx: JobContext, effect: LaunchSession) -> SessionSpec:
    """The runner's session spec for one launch, from the config's choice for the role."""
    choice = ctx.what.config.agents.for_role(effect.budget_role)
    backend, executable, scenario = resolve_choice(choice)
    limits = ctx.what.config.limits
    key = f"{effect.kind}-{effect.attempt}"
    own = role_sessions(
        ctx.what.config.sessions, effect.budget_role, limits.session_timeout_minutes
    )
    return SessionSpec(
        role=effect.role,
        backend=backend,
        model=effect.model or choice.model,
        fallback_model=choice.fallback_model,
        system_prompt=effect.system_prompt,
        task=effect.task,
        reply_model=effect.reply_model,
        cwd=ctx.where.checkout,
        session_dir=ctx.where.sessions_dir / key,
        session_key=key,
        identity=SessionIdentity(ctx.what.issue, ctx.what.stage.value, effect.kind, effect.attempt),
        context=ContextLimits(limits.context_soft, limits.context_hard),
        timeout_seconds=own.timeout_seconds,
        max_turns=own.max_turns,
        effort=own.effort,
        executable=executable,
        scenario=scenario,
        issue_file=ctx.where.issue_file,
        control_socket=ctx.where.control_socket,
        git_config=ctx.where.git_config,
        passthrough_env=ctx.what.config.passthrough_env,
        token_env=ctx.who.token_env,
        infra_retries=limits.infra_retries,
        reply_check_rounds=limits.reply_check_rounds,
        money_per_session=ctx.what.config.money.per_session,
        base_url=choice.base_url,
        sandbox=session_sandbox(ctx),
    )


def session_sandbox(ctx: JobContext) -> SessionSandbox:
    """The session's box as the job's: its mode, hosts, and what it hides and gives back."""
    config = ctx.what.config.sandbox
    boxing = ctx.where.boxing
    if boxing is None:
        return SessionSandbox(mode=config.mode, allow_hosts=config.allow_hosts)
    plan = boxing.plan
    mode: SandboxMode = "bwrap" if boxing.box.confined else "none"
    return SessionSandbox(mode, config.allow_hosts, plan.hidden, plan.readable, plan.writable)


def _blocked(ctx: JobContext, spec: SessionSpec) -> Blocked:
    """A connection the session's box refused, as a job event (`network-blocked`)."""

    def blocked(host: str, port: int) -> None:
        ctx.live.events.emit("network-blocked", key=spec.session_key, host=host, port=port)

    return blocked


def _record(ctx: JobContext, spec: SessionSpec, result: SessionResult, live: LiveSession) -> None:
    """The session's end record, under the key its running record had."""
    usage = result.total_usage
    reset = result.rate_limit_reset
    ctx.live.job_file.record_session(
        SessionRecord(
            key=spec.session_key,
            backend=spec.backend,
            model=result.model,
            status=result.status.value,
            usage=UsageRecord(
                input=usage.input,
                output=usage.output,
                cache_read=usage.cache_read,
                cache_write=usage.cache_write,
            ),
            cost_usd=result.total_cost_usd,
            peak_context=result.peak_context,
            last_context=result.last_context,
            budget=live.budget,
            last_tool_failure=result.last_tool_failure,
            tool_failure=live.tool_failure,
            rate_limit_reset=None if reset is None else datetime.fromtimestamp(reset, UTC),
            infra=None if result.infra is None else result.infra.value,
            error=result.error,
            ended_at=datetime.now(UTC),
        )
    )


def keep_handoff(ctx: JobContext, result: SessionResult) -> bool:
    """Copy a writer's handoff.md into the run folder, so a continuation finds it."""
    source = result.handoff
    if source is None and result.session_dir is not None:
        source = result.session_dir / HANDOFF_MD
    if source is None or not source.is_file():
        return False
    ctx.where.run_dir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, ctx.where.run_dir / HANDOFF_MD)
    return True


def run_launch(
    ctx: JobContext, effect: LaunchSession, handle: SessionHandle | None = None
) -> tuple[SessionEnded | ScenarioMissing, bool]:
    """Launch the session (reachable by steer and SIGTERM, and by `handle` when given) and
    return how it ended.

    The second value says whether a handoff.md was kept for a continuation.
    """
    spec = session_spec(ctx, effect)
    budget = ctx.what.config.budgets.for_role(effect.budget_role)
    ctx.live.events.emit(
        "session-started", key=spec.session_key, session_kind=effect.kind, attempt=effect.attempt
    )
    spec.session_dir.mkdir(parents=True, exist_ok=True)
    # The task and the system prompt are kept beside the transcript, so a person
    # (and the demo's test) can read exactly what the session was told.
    (spec.session_dir / "task.md").write_text(spec.task, encoding="utf-8")
    (spec.session_dir / "system.md").write_text(spec.system_prompt, encoding="utf-8")
    handle = handle or SessionHandle()
    live = LiveSession(ctx.live.job_file, spec.session_key, budget)
    try:
        with ctx.live.hub.track(spec.session_key, handle):
            result = launch(
                spec, ctx.who.environ, handle, progress=live, on_blocked=_blocked(ctx, spec)
            )
    except BaseException:
        live.close(SessionStatus.FAILED.value)
        raise
    live.close()
    _record(ctx, spec, result, live)
    kept = keep_handoff(ctx, result)
    ctx.live.events.emit(
        "session-ended",
        key=spec.session_key,
        status=result.status.value,
        tokens=result.total_usage.total,
        error=result.error,
    )
    if result.failure is FailureKind.SCENARIO:
        return ScenarioMissing(result.error or "the scripted agent cannot play the session"), kept
    status = result.status
    if status is SessionStatus.REPLIED and result.reply is None:
        status = SessionStatus.FAILED
    used = result.total_usage.total
    findings = result.check_findings
    if result.reply is None and result.last_tool_failure:
        findings = (*findings, result.last_tool_failure.strip())
    ended = SessionEnded(
        status,
        result.reply,
        result.error,
        used,
        findings,
        infra=result.infra,
        cost_usd=result.total_cost_usd,
    )
    return ended, kept


def quick_checks(
    stage: Stage, state: IssueState, scope: Callable[[SpecReply], list[str]] | None = None
) -> CheckReply:
    """The stage's check-reply handler: schema findings, then the stage's own rules.

    `scope` is the git-only part of the spec's commit check, run in the session too.
    """
    quick = definition(stage).quick_check

    def check(_key: str, reply: Mapping[str, Any]) -> list[str]:
        if quick is None:
            return []
        checked = validate_reply(quick.schema, dict(reply))
        if checked.reply is None:
            return list(checked.findings)
        found = list(quick.rules(checked.reply, state.depth))
        spec = checked.reply
        if not found and scope is not None and isinstance(spec, SpecReply):
            found = scope(spec) if spec.decision == "ready" else []
        return found

    return check
