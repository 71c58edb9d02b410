"""A stage job's role (JB-2) and its agent role, read from the stage registry."""

from __future__ import annotations

from conveyor.core.config import Role
from conveyor.core.state import Stage
from conveyor.stages.registry import definition
from conveyor.stages.stage_def import JobRole

__all__ = ["JobRole", "agent_role_of", "role_of"]


def role_of(stage: Stage) -> JobRole:
    """The role of a stage's job; `done` has no job; a person's PR's review only reads."""
    if stage is Stage.PR_REVIEW:
        return JobRole.READER
    return definition(stage).job_role


def agent_role_of(stage: Stage) -> Role:
    """The config role whose agent and budget a stage's main session uses; it also names
    the `Pipeline-Agent:` trailer of the stage's commits."""
    if stage is Stage.PR_REVIEW:
        return Role.REVIEW
    return definition(stage).agent_role
