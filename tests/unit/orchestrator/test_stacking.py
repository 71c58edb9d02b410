"""The orchestrator's stacking rules through the scheduler (STK-7..13, MRG-12)."""

from __future__ import annotations

from typing import Any

import pytest

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.decisions import Decisions, StartJob
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import IssueView, JobRole

from .factory import NOW, config, issue, job, snapshot

P_HEAD, P_MOVED = "a" * 40, "b" * 40


def prereq(stage: Stage = Stage.CHECKS, **kw: Any) -> IssueView:
    """Issue #1, the prerequisite, with a branch head."""
    kw.setdefault("head", P_HEAD)
    return issue(1, stage, **kw)


def follower(stage: Stage = Stage.TRIAGE, **kw: Any) -> IssueView:
    """Issue #2, which follows #1 and is not stacked."""
    return issue(2, stage, after=1, afters=(1,), **kw)


def stacked(stage: Stage, head: str = P_HEAD, **kw: Any) -> IssueView:
    """Issue #2, stacked on #1 at `head`."""
    return issue(2, stage, after=1, afters=(1,), stacked_on=1, stacked_head=head, **kw)


def start_of(decisions: Decisions, number: int) -> StartJob | None:
    """The issue's start, if it starts."""
    return next((s for s in decisions.starts if s.issue == number), None)


def hold_of(decisions: Decisions, number: int) -> str | None:
    """The issue's hold reason, if held."""
    return next((h.reason for h in decisions.holds if h.issue == number), None)


@pytest.mark.parametrize("stage", [Stage.TRIAGE, Stage.SPEC, Stage.IMPLEMENT])
@pytest.mark.parametrize("at", [Stage.CHECKS, Stage.ACCEPT, Stage.SECURITY, Stage.MERGE])
def test_a_follower_starts_on_its_prerequisites_branch_once_it_reached_checks(
    stage: Stage, at: Stage
) -> None:
    """STK-8: P at checks or later with no open findings: the follower's job is stacked on P."""
    decisions = schedule(snapshot(prereq(at), follower(stage)), config(), NOW)
    start = start_of(decisions, 2)
    assert start is not None
    assert (start.stage, start.stack_on) == (stage, 1)


@pytest.mark.parametrize(
    "prerequisite",
    [
        prereq(Stage.REVIEW),
        prereq(Stage.CHECKS, open_findings=1),
        prereq(Stage.CHECKS, stacked_on=9, stacked_head="c" * 40),
        prereq(Stage.CHECKS, head=None),
    ],
    ids=["before-checks", "open-findings", "itself-stacked", "no-branch"],
)
def test_a_follower_stays_held_until_its_prerequisite_can_be_built_on(
    prerequisite: IssueView,
) -> None:
    """STK-8: before checks, with findings open, or stacked itself (one level deep): `after:#P`."""
    decisions = schedule(snapshot(prerequisite, follower()), config(), NOW)
    assert hold_of(decisions, 2) == "after:#1"


def test_a_follower_of_two_open_issues_is_not_stacked() -> None:
    """STK-7: P is the single open issue the `after` mark names, else the issue waits."""
    two = issue(3, Stage.TRIAGE, after=1, afters=(1, 2))
    decisions = schedule(snapshot(prereq(), issue(2, Stage.REVIEW), two), config(), NOW)
    assert hold_of(decisions, 3) == "after:#1"


def test_a_follower_whose_prerequisite_lacks_another_merge_is_held_behind() -> None:
    """STK-9: the gathered fact holds it `stacked-on-behind:#P` instead of stacking it."""
    snap = snapshot(prereq(), follower(), stack_behind=frozenset({2}))
    assert hold_of(schedule(snap, config(), NOW), 2) == "stacked-on-behind:#1"


def test_a_prerequisite_at_done_counts_as_merged() -> None:
    """STK-14: an open P whose PR merged frees its follower, which starts unstacked."""
    decisions = schedule(snapshot(prereq(Stage.DONE, waiting="done"), follower()), config(), NOW)
    start = start_of(decisions, 2)
    assert start is not None
    assert start.stack_on is None


def test_a_stacked_issue_at_merge_is_held_while_its_prerequisite_is_open() -> None:
    """STK-10, MRG-12: `stacked-on:#P`, and no rank in the merge queue."""
    decisions = schedule(snapshot(prereq(Stage.MERGE), stacked(Stage.MERGE)), config(), NOW)
    assert hold_of(decisions, 2) == "stacked-on:#1"
    assert 2 not in decisions.merge_queue


@pytest.mark.parametrize("stage", [Stage.TRIAGE, Stage.IMPLEMENT, Stage.REVIEW, Stage.ACCEPT])
def test_a_stacked_issue_goes_on_before_merge_while_its_prerequisite_is_open(stage: Stage) -> None:
    """STK-8: stacked, it runs its own stages; only merge waits for P."""
    start = start_of(schedule(snapshot(prereq(), stacked(stage)), config(), NOW), 2)
    assert start is not None
    assert (start.stage, start.stack_on) == (stage, None)


@pytest.mark.parametrize(
    ("stage", "restart"),
    [
        (Stage.SYNC, Stage.SYNC),
        (Stage.CHECKS, Stage.SYNC),
        (Stage.ACCEPT, Stage.SYNC),
        (Stage.SECURITY, Stage.SYNC),
        (Stage.MERGE, Stage.MERGE),
    ],
)
@pytest.mark.parametrize("moved", [True, False], ids=["moved", "merged"])
def test_a_stacked_issue_restacks_when_its_prerequisite_moves_or_merges(
    stage: Stage, restart: Stage, moved: bool
) -> None:
    """STK-11: from sync to security it restarts at sync; from merge the merge stage restacks."""
    issues = (prereq(Stage.ACCEPT, head=P_MOVED), stacked(stage)) if moved else (stacked(stage),)
    start = start_of(schedule(snapshot(*issues), config(), NOW), 2)
    assert start is not None
    assert start.stage is restart


def test_a_restack_goes_before_a_ci_wait() -> None:
    """A stacked issue waiting on CI at a head that is about to move restacks first."""
    from conveyor.orchestrator.snapshot import CiWait

    waiting = stacked(Stage.CHECKS, ci_wait=CiWait(sha="d" * 40, since=NOW, last_read=NOW))
    start = start_of(schedule(snapshot(waiting), config(ci_poll_seconds=600), NOW), 2)
    assert start is not None
    assert start.stage is Stage.SYNC


@pytest.mark.parametrize("issue_stacked", [True, False], ids=["stacked", "waiting"])
def test_a_stopped_prerequisite_holds_its_dependents_without_a_stop(issue_stacked: bool) -> None:
    """STK-12, STK-13: `after:#P:stopped`, a hold: the dependent gets no stop decision."""
    dependent = stacked(Stage.REVIEW) if issue_stacked else follower()
    snap = snapshot(prereq(stopped=StopCode.ERROR), dependent)
    decisions = schedule(snap, config(), NOW)
    assert hold_of(decisions, 2) == "after:#1:stopped"


def test_a_prerequisite_closed_unmerged_holds_a_stacked_issue() -> None:
    """STK-12: `after:#P:closed-unmerged` at any stage; it goes on once P is reopened."""
    snap = snapshot(stacked(Stage.ACCEPT), closed_unmerged=frozenset({1}))
    assert hold_of(schedule(snap, config(), NOW), 2) == "after:#1:closed-unmerged"
    reopened = start_of(schedule(snapshot(prereq(), stacked(Stage.ACCEPT)), config(), NOW), 2)
    assert reopened is not None


@pytest.mark.parametrize("live", [1, 2], ids=["prerequisite-running", "dependent-running"])
def test_the_writers_overlap_gate_ignores_the_stacked_pair_both_ways(live: int) -> None:
    """STK-10: the pair touches the same files by design; neither holds the other."""
    paths = ("inventory/**",)
    issues = (
        prereq(Stage.CHECKS, where=paths),
        stacked(Stage.IMPLEMENT, where=paths),
        issue(3, Stage.IMPLEMENT, where=paths),
    )
    running = job(live, issues[live - 1].stage, role=JobRole.WRITER)
    decisions = schedule(
        snapshot(*issues, jobs=(running,)), config(max_jobs=5, writers_per_stage=5), NOW
    )
    other = 2 if live == 1 else 1
    assert start_of(decisions, other) is not None
    assert hold_of(decisions, 3) == f"overlap:#{live}"


def test_a_prerequisite_still_running_is_followed_once_its_job_ends() -> None:
    """P's saved head lags the pushes of its live job: the restack waits for that job."""
    moved = prereq(Stage.ACCEPT, head=P_MOVED)
    running = job(1, Stage.ACCEPT)
    decisions = schedule(snapshot(moved, stacked(Stage.CHECKS), jobs=(running,)), config(), NOW)
    assert hold_of(decisions, 2) == "stacked-on:#1"
    ended = job(1, Stage.ACCEPT, alive=False, finished=True)
    after = schedule(snapshot(moved, stacked(Stage.CHECKS), jobs=(ended,)), config(), NOW)
    start = start_of(after, 2)
    assert start is not None
    assert start.stage is Stage.SYNC


@pytest.mark.parametrize("stage", [Stage.SYNC, Stage.CHECKS, Stage.ACCEPT, Stage.SECURITY])
@pytest.mark.parametrize("moved", [True, False], ids=["moved", "merged"])
def test_a_stacked_wiki_only_change_goes_on_at_its_own_stage_instead_of_restacking(
    stage: Stage, moved: bool
) -> None:
    """FLOW-5: a wiki-only change has no commits of its own to restack when P moves or merges."""
    wiki = stacked(stage, code_flow=False)
    issues = (prereq(Stage.ACCEPT, head=P_MOVED), wiki) if moved else (wiki,)
    start = start_of(schedule(snapshot(*issues), config(), NOW), 2)
    assert start is not None
    assert start.stage is stage


def test_a_stacked_wiki_only_change_publishes_only_after_its_prerequisite_merges() -> None:
    """Its `after` mark still holds at merge while P is open (moved or not); once P merged it
    starts its merge job, where finish-wiki publishes it."""
    for head in (P_HEAD, P_MOVED):
        held = schedule(
            snapshot(prereq(head=head), stacked(Stage.MERGE, code_flow=False)), config(), NOW
        )
        assert hold_of(held, 2) == "stacked-on:#1"
    start = start_of(schedule(snapshot(stacked(Stage.MERGE, code_flow=False)), config(), NOW), 2)
    assert start is not None
    assert start.stage is Stage.MERGE


def test_nothing_is_stacked_on_a_wiki_only_prerequisite() -> None:
    """A wiki-only P has no code branch to build on: its follower waits `after:#P` unstacked."""
    decisions = schedule(snapshot(prereq(code_flow=False), follower()), config(), NOW)
    assert hold_of(decisions, 2) == "after:#1"
