"""Properties of the review, fix, accept and security tables: total, ends exact, runs end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conveyor.core.replies import AggregateReply
from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState, Rereview, Rounds
from conveyor.stages import accept, fix, review, security
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Done,
    LaunchSession,
    PushBranch,
    Pushed,
    Refused,
    ResetBranch,
    Result,
    SessionEnded,
)
from conveyor.stages.effects_review import PostPrComment, PrepareReview, ReviewPrepared
from conveyor.stages.step import End, Table
from tests.unit.stages.factory import inputs
from tests.unit.stages.factory_review import (
    HEAD,
    issue_finding,
    rereview_reply,
    review_reply,
    stored,
)
from tests.unit.stages.test_accept_security import harm, verdict
from tests.unit.stages.test_fix import fix_reply

TABLES: dict[str, Table[Any, Any, Any]] = {
    "review": review.TABLE,
    "fix": fix.TABLE,
    "accept": accept.TABLE,
    "security": security.TABLE,
}
MACHINES: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "review": (review.start, review.transition),
    "fix": (fix.start, fix.transition),
    "accept": (accept.start, accept.transition),
    "security": (security.start, security.transition),
}
REPLIES = [
    review_reply("correctness"),
    review_reply(
        "tests", issue_finding("a"), issue_finding("b", line=8), issue_finding("n", "nit")
    ),
    rereview_reply(),
    rereview_reply(still_open=[1], findings=[issue_finding("new", line=50)]),
    rereview_reply(rulings=[{"finding": 1, "upheld": True, "reason": "ok"}]),
    AggregateReply(findings=[], summary=""),
    fix_reply(),
    fix_reply(status="handoff"),
    fix_reply({"finding": 1, "reason": "no", "spec_quote": None}),
    verdict("pass"),
    verdict("fail"),
    harm(),
    harm("abuse-risk"),
    None,
]
STATES = [
    IssueState(pr=3, head_sha=HEAD),
    IssueState(pr=3, head_sha=HEAD, findings=(stored(1), stored(2, "acceptance"))),
    IssueState(
        pr=3,
        head_sha=HEAD,
        findings=(stored(1), stored(2, "tests", status="resolved")),
        rounds=Rounds(fix=1, security=2),
        rereview=Rereview(base_sha=HEAD, lenses=("correctness", "tests")),
    ),
]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_terminal_phases_have_no_exits_and_are_exactly_the_ends(name: str) -> None:
    """A phase without exits is an end; every other phase asks an effect."""
    table = TABLES[name]
    assert table.terminal() == frozenset(table.ends)
    for phase in table.exits:
        if phase is not table.start and phase not in table.ends:
            assert phase in table.effects, f"{name}: {phase} neither acts nor ends"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_every_exit_leads_to_a_phase_of_the_table_and_every_phase_is_reachable(name: str) -> None:
    """The table is closed and has no dead phases."""
    table = TABLES[name]
    seen, todo = {table.start}, [table.start]
    while todo:
        for target in table.exits[todo.pop()].values():
            assert target in table.exits
            if target not in seen:
                seen.add(target)
                todo.append(target)
    assert seen == set(table.exits)


def _result(data: st.DataObject, effect: object, state: IssueState) -> Result:
    match effect:
        case ChargeBudget():
            return Refused("over") if data.draw(st.booleans()) else Charged(state)
        case LaunchSession():
            status = data.draw(st.sampled_from(list(SessionStatus)))
            return SessionEnded(status, data.draw(st.sampled_from(REPLIES)), "boom")
        case PrepareReview():
            return ReviewPrepared("/d", HEAD, data.draw(st.booleans()))
        case PostPrComment() | ResetBranch():
            return Done()
        case PushBranch():
            return Pushed("f" * 40, ("a.py",), data.draw(st.sampled_from([(), ("a.py",)])))
    raise AssertionError(effect)


@pytest.mark.parametrize("name", sorted(MACHINES))
@settings(max_examples=60, deadline=None)
@given(data=st.data(), which=st.integers(0, len(STATES) - 1))
def test_any_run_of_results_reaches_an_end_without_an_illegal_move(
    name: str, data: st.DataObject, which: int
) -> None:
    """Totality: whatever each effect answers, the machine takes it and ends within bounds."""
    start, transition = MACHINES[name]
    step = start(inputs(), STATES[which])
    for _ in range(80):
        if isinstance(step.action, End):
            return
        step = transition(step.memory, _result(data, step.action, step.memory.state))
    pytest.fail(f"{name} did not end within 80 steps")
