"""A stage's definition: everything the job needs to run the stage, as data.

Each stage module (or package) exposes one `STAGE: StageDef`; `stages.registry` maps every
stage with a job to its definition, so the job looks a stage up instead of switching on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, TypeVar

from conveyor.core.config import Role
from conveyor.core.replies import Reply
from conveyor.core.state import Stage
from conveyor.stages.machine import Machine

R = TypeVar("R", bound=Reply)


class JobRole(StrEnum):
    """What a stage job may do: readers only read, writers push, the merger merges (JB-2)."""

    READER = "reader"
    WRITER = "writer"
    MERGER = "merger"


def no_rules(_reply: Any, _depth: int) -> tuple[str, ...]:
    """A reply with nothing to check past its schema."""
    return ()


@dataclass(frozen=True)
class QuickCheck(Generic[R]):
    """The check a session runs on its reply before it ends: the schema, then the stage's rules.

    `schema` names the reply model (`core.replies.validate_reply`); `rules` gets the
    validated reply and the issue's split depth and returns findings (none when good).
    """

    schema: str
    model: type[R]
    rules: Callable[[R, int], tuple[str, ...]] = no_rules


@dataclass(frozen=True)
class StageDef:
    """One stage as the job runs it.

    `restores_spec`: the job rebuilds `spec.md` from the signed spec comment first.
    `measures_start`: the stage's own commits are measured from where the branch leaves
    the base (or its prerequisite), so the job fixes `start_sha` first and the commit
    scope check also runs in the session (the spec writer's start).
    """

    stage: Stage
    machine: Machine[Any, Any, Any]
    job_role: JobRole
    agent_role: Role
    restores_spec: bool = False
    measures_start: bool = False
    quick_check: QuickCheck[Any] | None = None
