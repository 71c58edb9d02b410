"""The next-stage rule shared by `conveyor drive` and the orchestrator."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from conveyor.core.labels import Status
from conveyor.core.next_stage import Halt, next_stage
from conveyor.core.pickup import IssueFacts
from conveyor.core.state import IssueState, Lease, Stage, Stopped
from conveyor.core.stops import StopCode
from conveyor.core.trust import build_trust

NOW = datetime(2026, 1, 1, 12, tzinfo=UTC)
TRUST = build_trust("bot", ["alice"], {"alice": True})
LANE = "host-0123abcd"


def facts(
    state: IssueState | None = None, labels: tuple[str, ...] = (), *, author: str = "alice"
) -> IssueFacts:
    """An open issue by `author` with these labels and state."""
    return IssueFacts(number=7, author=author, open=True, labels=labels, state=state)


def step(
    issue: IssueFacts, *, open_after: tuple[int, ...] = (), take_stopped: bool = False
) -> Stage | Halt:
    """The rule with the test's clock, lease hours and lane."""
    return next_stage(
        issue, TRUST, NOW, 3.0, lane=LANE, open_after=open_after, take_stopped=take_stopped
    )


def leased(stage: Stage, lane: str = LANE) -> IssueState:
    """A state at `stage` leased by `lane` a minute ago."""
    return IssueState(
        stage=stage, lease=Lease(lane=lane, job_id="j", at=NOW - timedelta(minutes=1))
    )


def test_a_new_trusted_issue_starts_at_triage() -> None:
    """No state yet: triage."""
    assert step(facts()) is Stage.TRIAGE


def test_the_lanes_own_lease_runs_the_saved_stage() -> None:
    """A lane's jobs follow one another: its live lease does not hold the issue back."""
    working = (Status.WORKING.value,)
    assert step(facts(leased(Stage.IMPLEMENT), working)) is Stage.IMPLEMENT


def test_another_lanes_lease_halts() -> None:
    """Another lane's live lease: leased."""
    working = (Status.WORKING.value,)
    assert step(facts(leased(Stage.SPEC, "other-lane"), working)) == Halt("leased")


@pytest.mark.parametrize(
    ("labels", "reason"),
    [
        ((Status.MERGED.value,), "merged"),
        ((Status.SPLIT.value,), "split"),
        ((Status.NEEDS_INFO.value,), "asked"),
        (("agent:stopped-too-large",), "stopped"),
    ],
)
def test_status_labels_halt_with_their_reason(labels: tuple[str, ...], reason: str) -> None:
    """Merged, split, asked and stopped issues run no job."""
    halted = step(facts(IssueState(stage=Stage.REVIEW), labels))
    assert isinstance(halted, Halt)
    assert halted.reason == reason


def test_an_untrusted_authors_issue_halts() -> None:
    """Visitors' issues are never worked on."""
    assert step(facts(author="mallory")) == Halt("untrusted")


def test_take_stopped_restarts_where_the_restart_rule_says() -> None:
    """A stopped issue taken by number restarts (no implementation yet: at triage)."""
    stopped = Stopped(control=StopCode.NOT_DOABLE, reason="r", stage=Stage.IMPLEMENT, at=NOW)
    state = IssueState(stage=Stage.IMPLEMENT, stopped=stopped)
    labels = ("agent:stopped-not-doable",)
    assert step(facts(state, labels)) == Halt("stopped")
    assert step(facts(state, labels), take_stopped=True) is Stage.TRIAGE


def test_a_done_issue_halts_as_merged_and_open_prerequisites_hold_it() -> None:
    """Stage done means merged; an `after` issue still open means waiting."""
    assert step(facts(IssueState(stage=Stage.DONE))) == Halt("merged")
    assert step(facts(IssueState(stage=Stage.SPEC, after=(3,))), open_after=(3,)) == Halt("waiting")
