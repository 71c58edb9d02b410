"""The sessions stages launch: what every writer's and reader's launch is made of."""

from __future__ import annotations

from typing import Protocol, TypedDict

from conveyor.core.config import Commands, Role
from conveyor.core.session import SessionRole
from conveyor.stages.effects import LaunchSession
from conveyor.stages.prompts.common import Prompt
from conveyor.stages.step import Inputs


class Launching(Protocol):
    """A writer stage's memory, as far as its launches go."""

    @property
    def attempt(self) -> int:
        """Sessions charged in this stage so far."""

    @property
    def continuation(self) -> int:
        """Continuations of this stage so far."""


class Frame(TypedDict):
    """What every writer's prompt starts with: the issue, its files, the base and the budget."""

    issue: int
    issue_file: str
    handoff_file: str
    base: str
    soft: int
    hard: int


def frame(inputs: Inputs) -> Frame:
    """The start of a writer's prompt data, from the stage's inputs."""
    return Frame(
        issue=inputs.issue,
        issue_file=inputs.issue_file,
        handoff_file=inputs.handoff_file,
        base=inputs.base,
        soft=inputs.limits.context_soft,
        hard=inputs.limits.context_hard,
    )


def commands(configured: Commands) -> tuple[tuple[str, str], ...]:
    """The configured commands a writer runs, by name (the unset ones left out)."""
    named = (
        ("setup", configured.setup),
        ("test", configured.test),
        ("lint", configured.lint),
        ("typecheck", configured.typecheck),
    )
    return tuple((name, command) for name, command in named if command)


def writer(kind: str, budget: Role, text: Prompt, run: Launching) -> LaunchSession:
    """A writer's session: its reply model is its kind, and its continuation counts."""
    return LaunchSession(
        kind=kind,
        role=SessionRole.WRITER,
        budget_role=budget,
        reply_model=kind,
        system_prompt=text.system,
        task=text.task,
        attempt=run.attempt,
        continuation=run.continuation,
    )


def reader(kind: str, budget: Role, text: Prompt, attempt: int, model: str = "") -> LaunchSession:
    """A reader's session (never continued: a reader is retried fresh); `model` defaults to kind."""
    return LaunchSession(
        kind=kind,
        role=SessionRole.READER,
        budget_role=budget,
        reply_model=model or kind,
        system_prompt=text.system,
        task=text.task,
        attempt=attempt,
    )
