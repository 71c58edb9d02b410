"""Properties of the checks, sync and merge tables: closed, ends exact, any run ends."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.ci_gate import Verdict
from conveyor.core.merge_rules import Behind
from conveyor.core.session import SessionStatus
from conveyor.core.state import Flows, IssueState
from conveyor.stages import checks, merge, sync
from conveyor.stages.diagram_merge import merge_markdown
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Checked,
    Done,
    Effect,
    LaunchSession,
    PostComment,
    PrSettled,
    PushBranch,
    Pushed,
    Refused,
    Result,
    SessionEnded,
    SettlePr,
)
from conveyor.stages.effects_merge import (
    BehindRead,
    CheckBehind,
    CheckWiki,
    CiRead,
    CloseOut,
    FinishSync,
    FinishWiki,
    GuardBranch,
    HandedOver,
    HandOver,
    MergePr,
    MergeTried,
    PublishWiki,
    QueueRead,
    ReadCi,
    ReadQueue,
    Rebased,
    RebaseHere,
    RestoreBranch,
    SyncBase,
    SyncFinished,
    Verified,
    VerifyHead,
    WikiPublished,
)
from conveyor.stages.step import End, Table
from tests.unit.stages.factory import inputs
from tests.unit.stages.factory_merge import HEAD, check_fix_reply, gate, resolver_reply

TABLES: dict[str, Table[Any, Any, Any]] = {
    "checks": checks.TABLE,
    "sync": sync.TABLE,
    "merge": merge.TABLE,
}
MACHINES: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "checks": (checks.start, checks.transition),
    "sync": (sync.start, sync.transition),
    "merge": (merge.start, merge.transition),
}
REPLIES = [
    *(check_fix_reply(s) for s in ("done", "handoff", "cannot-fix")),
    *(resolver_reply(s) for s in ("done", "handoff", "cannot-fix")),
    None,
]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_terminal_phases_are_exactly_the_ends_and_every_phase_is_reachable(name: str) -> None:
    """A phase without exits is an end; every other phase acts; the table has no dead phase."""
    table = TABLES[name]
    assert table.terminal() == frozenset(table.ends)
    seen, todo = {table.start}, [table.start]
    while todo:
        phase = todo.pop()
        if phase is not table.start and phase not in table.ends:
            assert phase in table.effects, f"{name}: {phase} neither acts nor ends"
        for target in table.exits[phase].values():
            assert target in table.exits
            if target not in seen:
                seen.add(target)
                todo.append(target)
    assert seen == set(table.exits)


def _ci(data: st.DataObject) -> CiRead:
    verdict = data.draw(st.sampled_from(list(Verdict)))
    return CiRead(gate(verdict, ("ci",)), data.draw(st.sampled_from([(), ("ci",)])))


def _result(data: st.DataObject, effect: Effect, state: IssueState) -> Result:
    match effect:
        case ChargeBudget():
            return Refused("over") if data.draw(st.booleans()) else Charged(state)
        case LaunchSession():
            status = data.draw(st.sampled_from(list(SessionStatus)))
            return SessionEnded(status, data.draw(st.sampled_from(REPLIES)), "boom")
        case PostComment() | CloseOut() | RestoreBranch() | PublishWiki():
            return Done()
        case GuardBranch() | CheckWiki():
            return Checked(data.draw(st.booleans()), ("moved",))
        case SettlePr(action=action):
            return PrSettled(3, action != "close")
        case VerifyHead():
            return Verified(data.draw(st.booleans()), HEAD, "s", ("test: failed",))
        case ReadCi():
            return _ci(data)
        case PushBranch():
            changed = data.draw(st.sampled_from([(), ("a.py",)]))
            wiki_new = data.draw(st.sampled_from([(), ("Page.md",)]))
            new = data.draw(st.sampled_from([(), ("a.py",)]))
            return Pushed(HEAD, changed, new, data.draw(st.booleans()), wiki_new)
    return _moving_result(data, effect)


def _moving_result(data: st.DataObject, effect: Effect) -> Result:
    """Results of the effects that move the branch or the PR: sync, rebase, merge, publish."""
    match effect:
        case FinishWiki():
            outcomes = [WikiPublished("published"), WikiPublished("nothing")]
            return data.draw(st.sampled_from([*outcomes, WikiPublished("conflict", "a.md")]))
        case SyncBase() | RebaseHere():
            made: list[Rebased] = [
                Rebased("clean", HEAD),
                Rebased("up-to-date", HEAD),
                Rebased("conflict", HEAD, ("a.py",)),
            ]
            return data.draw(st.sampled_from(made))
        case FinishSync():
            ok, code, wiki = (data.draw(st.booleans()) for _ in range(3))
            return SyncFinished(ok, HEAD, ("marker",), code, wiki)
        case ReadQueue():
            return QueueRead(data.draw(st.sampled_from([(), (3,)])))
        case CheckBehind():
            return BehindRead(data.draw(st.sampled_from([None, *Behind])))
        case MergePr():
            tried = [MergeTried("merged", "m"), MergeTried("behind"), MergeTried("refused")]
            return data.draw(st.sampled_from(tried))
        case HandOver():
            return HandedOver(3, data.draw(st.sampled_from([(), ("x cannot be assigned",)])))
    raise AssertionError(effect)


@pytest.mark.parametrize("name", sorted(MACHINES))
@given(data=st.data(), passed=st.booleans(), flows=st.sampled_from(["code", "wiki", "both"]))
def test_any_run_of_results_reaches_an_end_without_an_illegal_move(
    name: str, data: st.DataObject, passed: bool, flows: Flows
) -> None:
    """Totality: whatever each effect answers, the machine takes it and ends within bounds."""
    start, transition = MACHINES[name]
    sha = HEAD if passed else None
    state = IssueState(head_sha=HEAD, verified_sha=sha, passed_sha=sha, flows=flows, pr=3)
    step = start(inputs(head_sha=HEAD, hand_over=data.draw(st.booleans())), state)
    for _ in range(60):
        if isinstance(step.action, End):
            return
        step = transition(step.memory, _result(data, step.action, step.memory.state))
    pytest.fail(f"{name} did not end within 60 steps")


def test_the_checks_sync_and_merge_page_is_generated_from_the_tables() -> None:
    """docs/stages-merge.md is what `diagram_merge.merge_markdown()` draws from the tables."""
    page = Path(__file__).parents[3] / "docs" / "stages-merge.md"
    assert page.read_text(encoding="utf-8") == merge_markdown()
