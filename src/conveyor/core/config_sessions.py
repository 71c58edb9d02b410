"""The `[sessions]` section: how long and how hard each role's sessions may work.

`[sessions.default]` applies to every role, `[sessions.roles.<role>]` overrides it key by
key (as busybees sets them per role): `max_turns` (the CLI's turn cap, where the CLI has
one: claude's `--max-turns`), `effort` (claude's `--effort`, codex's
`model_reasoning_effort`, opencode's `--variant`) and `timeout_minutes` (the runner ends
the session past it; unset: `limits.session_timeout_minutes`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

from conveyor.core.config_terms import Role, Strict
from conveyor.core.session import Effort


class SessionLimits(Strict):
    """One role's session limits; a key left out takes the default's."""

    max_turns: Annotated[int, Field(gt=0)] | None = None
    effort: Effort | None = None
    timeout_minutes: Annotated[float, Field(gt=0)] | None = None


class Sessions(Strict):
    """The default session limits and the per-role overrides."""

    default: SessionLimits = SessionLimits()
    roles: dict[Role, SessionLimits] = Field(default_factory=dict)


@dataclass(frozen=True)
class RoleSessions:
    """What one role's sessions get: its turn cap, effort and timeout in seconds."""

    max_turns: int | None
    effort: Effort | None
    timeout_seconds: float


def role_sessions(sessions: Sessions, role: Role, default_timeout_minutes: float) -> RoleSessions:
    """`role`'s limits: its own keys, else the default's, else no cap and the limits' timeout."""
    own = sessions.roles.get(role, SessionLimits())
    base = sessions.default
    max_turns = own.max_turns if own.max_turns is not None else base.max_turns
    effort = own.effort if own.effort is not None else base.effort
    minutes = own.timeout_minutes or base.timeout_minutes or default_timeout_minutes
    return RoleSessions(max_turns, effort, minutes * 60)
