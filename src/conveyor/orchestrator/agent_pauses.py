"""Agent pauses: an agent CLI whose last session failed on infrastructure starts nothing new.

A failed sign-in, a missing or crashing CLI, an overloaded provider or a broken
network is not the issue's doing: the job gave its issue back (no attempt
counted, no stop label) and recorded why in job.json. This rule reads the
newest ended session of each agent CLI (`Snapshot.agent_ends`) and holds every
start whose sessions would use that CLI for a while (`HOLD_MINUTES`); the first
start after the hold is the probe, and a session that works lifts the pause.
A usage limit is the account's and holds every start (`gate.pauses`).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta

from conveyor.core.agent_failure import HOLD_MINUTES, InfraKind, what_to_do
from conveyor.core.backends import backend_of
from conveyor.core.config import Config, Role
from conveyor.core.state import Stage
from conveyor.orchestrator.decisions import Pause
from conveyor.orchestrator.snapshot import AgentEnd

# The roles whose sessions a stage's job may launch.
STAGE_ROLES: dict[Stage, tuple[Role, ...]] = {
    Stage.TRIAGE: (Role.TRIAGE,),
    Stage.SPEC: (Role.SPEC,),
    Stage.IMPLEMENT: (Role.IMPLEMENT,),
    Stage.REVIEW: (Role.REVIEW, Role.AGGREGATE, Role.REREVIEW),
    Stage.FIX: (Role.FIX,),
    Stage.SYNC: (Role.RESOLVER,),
    Stage.CHECKS: (Role.CHECK_FIX,),
    Stage.ACCEPT: (Role.ACCEPT,),
    Stage.SECURITY: (Role.SECURITY,),
}
WHAT: dict[InfraKind, str] = {
    InfraKind.AUTH: "is not signed in",
    InfraKind.CLI_MISSING: "cannot be started",
    InfraKind.CLI_CRASH: "exits without working",
    InfraKind.OVERLOADED: "meets an overloaded provider",
    InfraKind.NETWORK: "cannot reach its provider",
    InfraKind.HUNG: "got no answer from its provider",
    InfraKind.USAGE_LIMIT: "is at its usage limit",
}
DETAIL_CHARS = 160


def stage_backends(stage: Stage, config: Config) -> frozenset[str]:
    """The agent CLIs the sessions of `stage` would run (none for merge)."""
    roles = STAGE_ROLES.get(stage, ())
    return frozenset(backend_of(config.agents.for_role(role).agent) for role in roles)


def _clip(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= DETAIL_CHARS else line[: DETAIL_CHARS - 1] + "…"


def agent_pauses(ends: tuple[AgentEnd, ...], now: datetime) -> dict[str, Pause]:
    """The agent CLIs paused now, by name, each with the one line a person reads."""
    found: dict[str, Pause] = {}
    for end in ends:
        kind = end.infra
        if kind is None or kind is InfraKind.USAGE_LIMIT:
            continue
        until = end.at + timedelta(minutes=HOLD_MINUTES[kind])
        if now >= until:
            continue
        said = f" ({_clip(end.error)})" if end.error else ""
        # No clock time in the line: it stays the same while the pause lasts, so the
        # log says it once however many sessions met the same wall.
        reason = (
            f"{end.backend} {WHAT[kind]}{said}; {what_to_do(kind, end.backend)}; new starts "
            f"for {end.backend} wait, one try every {HOLD_MINUTES[kind]:g} min; "
            "no issue is charged or stopped for it"
        )
        found[end.backend] = Pause(f"agent-{kind.value}", reason)
    return found


def agent_hold(paused: Mapping[str, Pause], config: Config, stage: Stage) -> str | None:
    """Why a start of `stage` waits on a paused agent CLI, if it does."""
    for backend in sorted(stage_backends(stage, config)):
        pause = paused.get(backend)
        if pause is not None:
            return f"{pause.kind}: {pause.reason}"
    return None
