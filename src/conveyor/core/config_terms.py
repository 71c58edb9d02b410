"""The config's shared terms: the strict section every table is, roles, stage and agent names."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidatorFunctionWrapHandler
from pydantic_core import InitErrorDetails, PydanticCustomError

from conveyor.core.backends import BackendName


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
    "triage",
    "spec",
    "implement",
    "review",
    "fix",
    "sync",
    "checks",
    "accept",
    "security",
    "merge",
    "pr-review",
]
# A backend of `core.backends`, or the scripted agent (`backends.SCRIPTED`).
AgentName = Literal[BackendName, "scripted"]


def validate_beside(data: Any, handler: ValidatorFunctionWrapHandler, problem: str | None) -> Any:
    """`handler(data)` with `problem`, a mistake of the whole table found in its raw keys,
    reported beside its fields' own mistakes: an after-validator is skipped while any field
    is wrong, so its mistake would show only once those are fixed (every mistake at once)."""
    try:
        checked = handler(data)
    except ValidationError as exc:
        if problem is None:
            raise
        found: list[InitErrorDetails] = [
            {
                "type": PydanticCustomError(error["type"], "{message}", {"message": error["msg"]}),
                "loc": error["loc"],
                "input": error["input"],
            }
            for error in exc.errors()
        ]
        found.append(
            {"type": PydanticCustomError("value_error", problem), "loc": (), "input": data}
        )
        raise ValidationError.from_exception_data(exc.title, found) from None
    if problem is not None:
        raise ValueError(problem)
    return checked
