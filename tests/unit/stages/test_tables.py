"""Properties of every stage table: total, terminal phases without exits, runs always end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.session import SessionStatus
from conveyor.core.state import IssueState
from conveyor.stages import implement, spec, triage
from conveyor.stages.diagram import stages_markdown
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Checked,
    CheckSpecCommits,
    CheckSpecTests,
    Done,
    Effect,
    LaunchSession,
    OpenDraftPr,
    PostComment,
    PrOpened,
    PrSettled,
    PushBranch,
    Pushed,
    Refused,
    ResetBranch,
    Result,
    RunTests,
    SaveSpecFile,
    SessionEnded,
    SettlePr,
    SuiteRan,
)
from conveyor.stages.step import End, Table
from tests.unit.stages.factory import (
    implement_reply,
    inputs,
    parts,
    spec_reply,
    triage_reply,
)

DOCS = Path(__file__).parents[3] / "docs" / "stages.md"
TABLES: dict[str, Table[Any, Any, Any]] = {
    "triage": triage.TABLE,
    "spec": spec.TABLE,
    "implement": implement.TABLE,
}
MACHINES: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "triage": (triage.start, triage.transition),
    "spec": (spec.start, spec.transition),
    "implement": (implement.start, implement.transition),
}
REPLIES = [
    *(triage_reply(d, questions=["?"], reason="why") for d in ("ready", "needs-info", "reject")),
    triage_reply("split-suggested", reason="big"),
    triage_reply("needs-info"),
    *(spec_reply(d, questions=["?"]) for d in ("ready", "needs-info", "no-work")),
    spec_reply("split", sub_issues=parts(2)),
    spec_reply(wiki_only=True, no_tests_reason="only the wiki changes", interfaces=[]),
    spec_reply(spec="no marker"),
    spec_reply(status="handoff"),
    *(implement_reply(s) for s in ("done", "handoff", "blocked")),
    None,
]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_terminal_phases_have_no_exits_and_are_exactly_the_ends(name: str) -> None:
    """A phase without exits is an end; an end has no exits; every other phase asks an effect."""
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


def _result(data: st.DataObject, effect: Effect, state: IssueState) -> Result:
    match effect:
        case ChargeBudget():
            refused: bool = data.draw(st.booleans())
            return Refused("over") if refused else Charged(state)
        case LaunchSession():
            status = data.draw(st.sampled_from(list(SessionStatus)))
            return SessionEnded(status, data.draw(st.sampled_from(REPLIES)), "boom")
        case PostComment() | SaveSpecFile() | ResetBranch():
            return Done()
        case CheckSpecCommits() | CheckSpecTests():
            return Checked(data.draw(st.booleans()), ("a.py: why",))
        case RunTests():
            return SuiteRan(data.draw(st.booleans()))
        case OpenDraftPr():
            return PrOpened(3, "f" * 40)
        case SettlePr(action=action):
            return PrSettled(3, action != "close")
        case PushBranch():
            changed = data.draw(st.sampled_from([(), ("a.py",)]))
            new = data.draw(st.sampled_from([(), ("a.py",)]))
            wiki_new = data.draw(st.sampled_from([(), ("Page.md",)]))
            return Pushed("f" * 40, changed, new, bool(wiki_new), wiki_new)
    raise AssertionError(effect)


@pytest.mark.parametrize("name", sorted(MACHINES))
@given(data=st.data(), depth=st.integers(0, 1))
def test_any_run_of_results_reaches_an_end_without_an_illegal_move(
    name: str, data: st.DataObject, depth: int
) -> None:
    """Totality: whatever each effect answers, the machine takes it and ends within bounds."""
    start, transition = MACHINES[name]
    step = start(inputs(), IssueState(depth=depth))
    for _ in range(60):
        if isinstance(step.action, End):
            return
        step = transition(step.memory, _result(data, step.action, step.memory.state))
    pytest.fail(f"{name} did not end within 60 steps")


def test_the_stages_page_is_generated_from_the_tables() -> None:
    """docs/stages.md is current: regenerate it with `conveyor.stages.diagram`."""
    assert DOCS.read_text(encoding="utf-8") == stages_markdown()
