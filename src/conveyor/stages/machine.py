"""The plumbing every stage machine shares: its transition and start, charges, illegal moves."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from conveyor.core.budget import give_back_ahead
from conveyor.core.state import IssueState
from conveyor.stages.effects import Began, Charged, Refused, Result
from conveyor.stages.step import (
    Asked,
    IllegalMove,
    Inputs,
    Released,
    SavedAt,
    Split,
    Step,
    Stopped,
    Table,
    advance,
)

P = TypeVar("P", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)
E_co = TypeVar("E_co", bound=StrEnum, covariant=True)


class Memory(Protocol):
    """A stage machine's memory: a frozen dataclass that knows its phase."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def phase(self) -> Any:
        """Where the machine is (each stage has its own Phase enum)."""


M = TypeVar("M", bound=Memory)
END_TYPES = (SavedAt, Stopped, Released, Asked, Split)


def move(table: Table[P, E, M], event: E, run: M) -> Step[M]:
    """Look `event` up from the memory's phase, then act on the new phase."""
    run = replace(run, phase=advance(table.exits, run.phase, event))
    return Step(run, table.act(run.phase, run))


@dataclass(frozen=True)
class Machine(Generic[P, E, M]):
    """A stage machine: its table, how it reads a result, and its memory at the start."""

    table: Table[P, E, M]
    classify: Callable[[M, Result], tuple[E, M]]
    memory: Callable[[Inputs, IssueState], M]

    def transition(self, run: M, result: Result) -> Step[M]:
        """The stage's one transition: look the event up, then act on the new phase.

        An end gives back the charges still ahead: their sessions never launched."""
        step = move(self.table, *self.classify(run, result))
        action = step.action
        if isinstance(action, END_TYPES) and any(c.ahead for c in action.state.charges):
            return replace(step, action=replace(action, state=give_back_ahead(action.state)))
        return step

    def start(self, inputs: Inputs, state: IssueState) -> Step[M]:
        """The stage's first step; charges still ahead are a crashed job's, given back."""
        return self.transition(self.memory(inputs, give_back_ahead(state)), Began())


class ChargeEvents(Protocol[E_co]):
    """A stage's events for a saved charge and a refused one."""

    @property
    def CHARGED(self) -> E_co:  # noqa: N802 - an enum member's name
        """The charge was saved."""

    @property
    def REFUSED(self) -> E_co:  # noqa: N802 - an enum member's name
        """The charge would pass a pool's limit."""


class Charging(Memory, Protocol):
    """A stage machine's memory that counts the sessions it charged."""

    @property
    def attempt(self) -> int:
        """Sessions charged in this stage so far."""


C = TypeVar("C", bound=Charging)


def charge(run: C, result: Charged | Refused, events: ChargeEvents[E]) -> tuple[E, C]:
    """A saved charge counts one more attempt; a refused one keeps its reason (BUD-1)."""
    if isinstance(result, Refused):
        return events.REFUSED, replace(run, note=result.reason)
    return events.CHARGED, replace(run, state=result.state, attempt=run.attempt + 1)


def cannot_take(who: str, result: Result, phase: StrEnum) -> IllegalMove:
    """The bug a result is when `who` has no reading of it in `phase`."""
    return IllegalMove(f"{who} cannot take {type(result).__name__} in {phase.value!r}")
