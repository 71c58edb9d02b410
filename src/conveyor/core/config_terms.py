"""The config's shared terms: the strict section every table is, roles, stage and agent names."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    """A config section: unknown keys are errors and values never change after load."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Role(StrEnum):
    """Who a session is working as; budgets and agents are set per role."""

    TRIAGE = "triage"
    SPEC = "spec"
    IMPLEMENT = "implement"
    REVIEW = "review"
    AGGREGATE = "aggregate"
    FIX = "fix"
    REREVIEW = "rereview"
    CHECK_FIX = "check_fix"
    ACCEPT = "accept"
    SECURITY = "security"
    RESOLVER = "resolver"


PositiveInt = Annotated[int, Field(ge=0)]
StageName = Literal[
    "triage", "spec", "implement", "review", "fix", "sync", "checks", "accept", "security", "merge"
]
AgentName = Literal["claude", "codex", "opencode", "scripted"]
