"""Steps of a stage machine: the ends a stage reaches, the step type and the table lookup."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Generic, Protocol, TypeVar

from conveyor.core.budget import keep_spent, launch_tokens, record_usage, refund_at
from conveyor.core.config import Budgets, Commands, Limits, Paths, ReviewSettings, Role
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages.effects import Checked, Effect, PrSettled, SessionEnded

# -- ends ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SavedAt:
    """The stage is done: the issue is saved at `stage` for the next job."""

    stage: Stage
    state: IssueState


@dataclass(frozen=True)
class Stopped:
    """The issue stops with a control code (a visible, resumable stop)."""

    code: StopCode
    reason: str
    state: IssueState
    details: str = ""


@dataclass(frozen=True)
class Released:
    """The job ends unfinished: the lease is released, the stage kept. `paused` when no agent
    session could run (an agent CLI missing, signed out, rate limited: `deferred`): nothing
    works on the issue until that lifts, so it must not look claimed meanwhile."""

    state: IssueState
    reason: str
    paused: bool = False


@dataclass(frozen=True)
class Asked:
    """Questions for the issue's author; the issue waits at triage for a trusted answer."""

    questions: tuple[str, ...]
    state: IssueState


@dataclass(frozen=True)
class SplitPart:
    """One sub-issue: `after` holds 0-based indexes of earlier parts it waits for."""

    title: str
    body: str
    after: tuple[int, ...] = ()


@dataclass(frozen=True)
class Split:
    """The issue is cut into sub-issues; the parent is labelled split."""

    parts: tuple[SplitPart, ...]
    state: IssueState


End = SavedAt | Stopped | Released | Asked | Split


class Noted(Protocol):
    """A stage's memory, as far as the shared ends go: the state and why the stage ends."""

    @property
    def state(self) -> IssueState:
        """The issue's state to save with the end."""

    @property
    def note(self) -> str:
        """Why: the refused charge, the rate limit, the guard's findings."""


def over_budget(run: Noted) -> Stopped:
    """A charge would pass a token pool's limit: the issue stops over budget (BUD-1)."""
    return Stopped(StopCode.BUDGET, run.note, run.state)


def deferred(run: Noted) -> Released:
    """The agent could not run (rate limited, CLI missing, …): the job ends, the lease is
    released and the stage kept, and the issue is set aside until a job claims it again."""
    return Released(run.state, run.note, paused=True)


def branch_changed(run: Noted) -> Stopped:
    """The PR's head on the forge moved away from the recorded one (STOP-*: branch-changed)."""
    return Stopped(
        StopCode.BRANCH_CHANGED,
        "the PR's head on the forge is not the head the pipeline recorded",
        run.state,
        run.note,
    )


def adopt_head(state: IssueState, checked: Checked) -> IssueState:
    """The state after a passed branch guard: a head the pipeline pushed itself is recorded."""
    if checked.adopted is None:
        return state
    return state.model_copy(update={"head_sha": checked.adopted})


# -- what every machine gets ----------------------------------------------------------


@dataclass(frozen=True)
class Inputs:
    """The fixed facts a stage machine decides from (no I/O: the job gathers them).

    `head_sha` is the checkout's head when the job started; `withheld` how many
    comments `issue.md` left out; the file paths are what prompts point sessions at.
    `wiki_dir` is the wiki checkout's folder and `wiki_head` its head at the start, when
    the job has a wiki checkout (WT-7). `oversize` says why a person's size label asks for a
    split first (intake's `max_size`), None when it does not; `hand_over` leaves a finished
    PR for a person to merge (`handover.merge = "person"`). `branch_commits` are the issue
    branch's commits past the base as the job fetched it (`<short sha> <subject>`, oldest
    first), and `handoff_kept` whether the run folder holds a writer's handoff (TRI-14);
    `instructions` name the copies of the repository's instruction files read from the base
    branch.
    """

    issue: int
    title: str
    base: str
    limits: Limits
    commands: Commands
    paths: Paths
    head_sha: str
    issue_file: str
    spec_file: str
    handoff_file: str
    withheld: int = 0
    wiki_dir: str | None = None
    wiki_head: str | None = None
    review: ReviewSettings = field(default_factory=ReviewSettings)  # sized review, lens models
    oversize: str | None = None
    hand_over: bool = False
    branch_commits: tuple[str, ...] = ()
    handoff_kept: bool = False
    instructions: tuple[str, ...] = ()


M = TypeVar("M")
P = TypeVar("P", bound=StrEnum)
E = TypeVar("E", bound=StrEnum)


@dataclass(frozen=True)
class Step(Generic[M]):
    """The machine's memory after a transition, and what to do next: an effect or an end."""

    memory: M
    action: Effect | End


def with_usage(state: IssueState, ended: SessionEnded, at: int | None = None) -> IssueState:
    """The state with a session's reported tokens and cost beside its launch charge (BUD-9):
    the charge at index `at`, or the last.

    An infrastructure failure gives its launch charge back: it is never the issue's.
    """
    if not state.charges:
        return state
    index = len(state.charges) - 1 if at is None else at
    if ended.infra is not None:
        return refund_at(state, index)
    return record_usage(state, index, ended.used, ended.cost_usd)


def with_unasked_usage(
    state: IssueState, role: Role, budgets: Budgets, limits: Limits, ended: SessionEnded
) -> IssueState:
    """The state with a charge for a session started ahead that its stage never asked for,
    when it reported what it spent (`keep_spent`); one that reported nothing, or failed on
    infrastructure, owes nothing, as a charge given back."""
    if ended.infra is not None or (ended.used is None and ended.cost_usd is None):
        return state
    tokens = launch_tokens(role, budgets, limits)
    return keep_spent(state, role, tokens, ended.used, ended.cost_usd)


def with_pr(state: IssueState, settled: PrSettled) -> IssueState:
    """The state after settle-pr: the PR's number, and whether it is closed now."""
    closed = settled.number is not None and not settled.open
    return state.model_copy(update={"pr": settled.number, "pr_closed": closed})


class IllegalMove(RuntimeError):
    """A result arrived that the table has no exit for: a bug in the machine or the runner."""


def advance(table: Mapping[P, Mapping[E, P]], phase: P, event: E) -> P:
    """The phase the table names for `event` in `phase`; there is no default branch."""
    exits = table[phase]
    if event not in exits:
        msg = f"no exit from {phase.value!r} on {event.value!r}"
        raise IllegalMove(msg)
    return exits[event]


@dataclass(frozen=True)
class Table(Generic[P, E, M]):
    """A stage machine's table, its start, and how each phase turns into an effect or an end."""

    name: str
    start: P
    exits: Mapping[P, Mapping[E, P]]
    effects: Mapping[P, Callable[[M], Effect]]
    ends: Mapping[P, Callable[[M], End]]

    def terminal(self) -> frozenset[P]:
        """The phases with no exits: each is an end."""
        return frozenset(p for p, out in self.exits.items() if not out)

    def act(self, phase: P, memory: M) -> Effect | End:
        """The effect a phase asks for, or the end it is."""
        if phase in self.ends:
            return self.ends[phase](memory)
        return self.effects[phase](memory)
