"""The review's lens charges on the embedded forge: one save for the three lenses, each still
charged before its launch, usage beside its own charge, and nothing lost or doubled when a
job crashes between lenses or ends early (BUD-1, BUD-3, BUD-9)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from conveyor.core.agent_failure import InfraKind
from conveyor.core.config import Role
from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.job.effects.parts import JobSubject
from conveyor.job.effects.writes import run_charge
from conveyor.ops.forge.state_store import fetch_state, save_state
from conveyor.stages import review
from conveyor.stages.effects import ChargeBudget, LaunchSession, Result, SessionEnded
from conveyor.stages.step import End, Released, SavedAt, Step, Stopped
from tests.contract.ops.world import World
from tests.unit.stages.factory import failed, inputs
from tests.unit.stages.factory_review import HEAD, answer, review_reply

LENSES = ("correctness", "tests", "scope")
USED = {"correctness": 111, "tests": 222, "scope": 333}


def ended(launch: LaunchSession) -> SessionEnded:
    """A lens's clean reply, reporting its own usage."""
    lens = launch.kind.removeprefix("review-")
    return SessionEnded(SessionStatus.REPLIED, review_reply(lens), None, USED[lens])


def saved(world: World, number: int) -> IssueState:
    """The issue's state as saved on the forge."""
    state = fetch_state(world.ctx(), number).state
    assert state is not None
    return state


def start(world: World) -> tuple[int, IssueState]:
    """An issue at review with its state saved on the forge."""
    issue = world.owner.create_issue("Totals", "Sum them.")
    state = IssueState(stage=Stage.REVIEW, pr=12, head_sha=HEAD, spec="## Behaviour\n- totals")
    save_state(world.ctx(), issue.number, state)
    return issue.number, saved(world, issue.number)


class Job:
    """One review job: the machine, its charges run against the forge, sessions answered."""

    def __init__(self, world: World, number: int, session: Callable[[LaunchSession], Result]):
        self.ctx = world.ctx()
        self.what = JobSubject(world.config, number, Stage.REVIEW, "run1")
        self.session = session
        self.charges: list[ChargeBudget] = []

    def result(self, action: object, state: IssueState) -> Result:
        if isinstance(action, ChargeBudget):
            self.charges.append(action)
            return run_charge(self.what, self.ctx, state, action)
        if isinstance(action, LaunchSession):
            return self.session(action)
        return answer(action, state, self.session)

    def run(self, step: Step[Any], until: Callable[[object], bool] = lambda _: False) -> Any:
        """Answer effects until the machine ends (the end) or `until` holds (the step)."""
        for _ in range(80):
            if isinstance(step.action, End) or until(step.action):
                return step
            step = review.transition(step.memory, self.result(step.action, step.memory.state))
        raise AssertionError("the review did not end within 80 steps")


def saves(world: World, since: int) -> int:
    """State saves (comment edits) the forge answered since `since` requests."""
    rows = world.server.requests()[since:]
    return sum(1 for row in rows if str(row["route"]).startswith("PATCH /repos/"))


def test_the_three_lenses_are_charged_in_one_save_before_the_first_launches(world: World) -> None:
    number, state = start(world)
    job = Job(world, number, ended)
    seen = len(world.server.requests())
    launched: list[IssueState] = []

    def session(launch: LaunchSession) -> Result:
        launched.append(saved(world, number))
        return ended(launch)

    job.session = session
    end = job.run(review.start(inputs(), state)).action
    assert saves(world, seen) == 1
    assert len(job.charges) == 3  # each launch still asks for its charge
    # BUD-1: on the forge before each launch, a charge for it (and for the lenses after it)
    assert [len(s.charges) for s in launched] == [3, 3, 3]
    assert isinstance(end, SavedAt)
    assert [(c.role, c.used, c.ahead) for c in end.state.charges] == [
        (Role.REVIEW.value, USED[lens], False) for lens in LENSES
    ]


def test_a_job_that_crashed_between_lenses_is_charged_once_for_each_launch(world: World) -> None:
    number, state = start(world)
    crashed = Job(world, number, ended)

    def second_lens(action: object) -> bool:
        """The crash: after the first lens ended, before the second's charge."""
        return isinstance(action, ChargeBudget) and len(crashed.charges) == 1

    crashed.run(review.start(inputs(), state), until=second_lens)
    on_forge = saved(world, number)
    assert [c.ahead for c in on_forge.charges] == [False, True, True]
    # the next job reads the state the crashed one saved and reviews again: it gives back
    # the two charges saved ahead and saves its own three with its first launch's
    launched: list[tuple[bool, ...]] = []

    def session(launch: LaunchSession) -> Result:
        launched.append(tuple(c.ahead for c in saved(world, number).charges))
        return ended(launch)

    end = Job(world, number, session).run(review.start(inputs(), on_forge)).action
    assert launched == [(False, False, True, True)] * 3
    assert isinstance(end, SavedAt)
    # one charge for the crashed job's one launch, three for the new job's
    assert [c.ahead for c in end.state.charges] == [False] * 4
    assert [c.used for c in end.state.charges] == [None, *USED.values()]


def test_a_lens_that_fails_twice_ends_the_review_without_the_later_lenses_charges(
    world: World,
) -> None:
    number, state = start(world)
    job = Job(world, number, lambda launch: failed())
    end = job.run(review.start(inputs(), state)).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.ERROR
    # two launches of the first lens, two charges: the second took one saved ahead
    assert len(end.state.charges) == 2
    assert not any(c.ahead for c in end.state.charges)


def test_an_infrastructure_failure_gives_back_its_own_charge_not_a_later_lens(
    world: World,
) -> None:
    number, state = start(world)

    def session(launch: LaunchSession) -> Result:
        if launch.kind == "review-tests":
            return replace(failed("the network went away"), infra=InfraKind.NETWORK)
        return ended(launch)

    end = Job(world, number, session).run(review.start(inputs(), state)).action
    assert isinstance(end, Released)  # deferred: the stage is kept for the next job
    # the first lens's charge with its usage; the second's given back, the third's too
    assert [(c.used, c.ahead) for c in end.state.charges] == [(USED["correctness"], False)]


def test_a_pool_that_holds_two_lenses_charges_two_and_stops_the_third_at_its_launch(
    world: World,
) -> None:
    """BUD-3: the lens whose launch would pass the ceiling is refused, as one at a time was."""
    tokens = world.config.budgets.for_role(Role.REVIEW)
    world.limits = world.limits.model_copy(update={"issue_token_ceiling": 2 * tokens})
    number, state = start(world)
    job = Job(world, number, ended)
    end = job.run(review.start(inputs(), state)).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.BUDGET
    assert [c.used for c in end.state.charges] == [USED["correctness"], USED["tests"]]
