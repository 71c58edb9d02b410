"""How a writer stage reads a session's end: a rate limit, a handoff, its reply or a failure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import Field, dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from conveyor.core.replies import CheckFixReply, FixReply, ImplementReply, ResolverReply, SpecReply
from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.stages.effects import SessionEnded
from conveyor.stages.step import Inputs


class WriterRun(Protocol):
    """A writer stage's memory, as far as its session ends go."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]

    @property
    def inputs(self) -> Inputs:
        """The stage's fixed facts (the continuation limit among them)."""

    @property
    def state(self) -> IssueState:
        """The issue's state, which counts the stage's continuations."""

    @property
    def continuation(self) -> int:
        """Continuations of this stage so far."""

    @property
    def note(self) -> str:
        """Why the stage goes where it goes (a rate limit's error, for one)."""


# A failed writer session is tried once more before the stage stops ("failed twice").
WRITER_ATTEMPTS = 2
E = TypeVar("E", bound=StrEnum)
E_co = TypeVar("E_co", bound=StrEnum, covariant=True)
W = TypeVar("W", bound=WriterRun)
# Every writer may answer `handoff` when it runs out of room.
WriterReply = ImplementReply | FixReply | SpecReply | CheckFixReply | ResolverReply
R = TypeVar("R", bound=WriterReply)


class WriterEvents(Protocol[E_co]):
    """A writer stage's events for a rate limit, a continuation and one too many."""

    @property
    def DEFERRED(self) -> E_co:  # noqa: N802 - an enum member's name
        """Rate limited: the job ends and the lease is released."""

    @property
    def HANDOFF(self) -> E_co:  # noqa: N802 - an enum member's name
        """A fresh session continues from the handoff."""

    @property
    def TOO_MANY_HANDOFFS(self) -> E_co:  # noqa: N802 - an enum member's name
        """A handoff past max_continuations."""


@dataclass(frozen=True)
class Writer(Generic[E, W, R]):
    """A writer stage's own parts: its stage, reply and events, what a reply or a failure means.

    `forget` clears what a continuation starts without.
    """

    stage: Stage
    reply: type[R]
    events: WriterEvents[E]
    replied: Callable[[W, R], tuple[E, W]]
    failed: Callable[[W, SessionEnded], tuple[E, W]]
    forget: Callable[[W], W] | None = None

    def hand_off(self, run: W) -> tuple[E, W]:
        """One more continuation of the stage, or too many (IMPL-6 holds for every writer)."""
        if run.continuation >= run.inputs.limits.max_continuations:
            return self.events.TOO_MANY_HANDOFFS, run
        counts = {**run.state.continuations, self.stage: run.continuation + 1}
        run = replace(run, state=run.state.model_copy(update={"continuations": counts}))
        return self.events.HANDOFF, (run if self.forget is None else self.forget(run))

    def ended(self, run: W, ended: SessionEnded) -> tuple[E, W]:
        """The event a session's end is, and the memory it leaves."""
        if ended.deferred:
            return self.events.DEFERRED, replace(run, note=ended.error or "rate limited")
        if ended.status in (SessionStatus.HANDOFF, SessionStatus.CONTEXT_STOPPED):
            return self.hand_off(run)
        reply = ended.reply
        if ended.status is SessionStatus.REPLIED and isinstance(reply, self.reply):
            return self.hand_off(run) if reply.status == "handoff" else self.replied(run, reply)
        return self.failed(run, ended)
