"""The watchdog's rules over recorded job.json files and a fixed clock (WD-*)."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import Any

from conveyor.core.state import Stage
from conveyor.core.stops import StopCode
from conveyor.orchestrator.decisions import Hold, StartJob, Steer, StopIssue, Terminate
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import JobView, Snapshot
from conveyor.orchestrator.watchdog import Watch, fence, watch

from .factory import NOW, config, issue, job, snapshot
from .recorded import recorded_job


def tick(snap: Snapshot, memory: WatchMemory | None = None, **limits: int) -> Watch:
    """One watchdog pass at the fixed clock."""
    return watch(snap, config(**limits), NOW, memory or WatchMemory())


def with_job(record: JobView, stage: Stage | None = None, **kw: Any) -> Snapshot:
    """A snapshot holding the job's issue (at the job's stage unless told) and the job."""
    return snapshot(issue(record.issue, stage or record.stage, **kw), jobs=(record,))


def test_a_healthy_job_gets_no_action() -> None:
    """A live job with a fresh heartbeat, no failures and context under budget is left alone."""
    result = tick(with_job(recorded_job("implement-healthy", alive=True)))
    assert result.decisions == ()


def test_a_finished_job_gets_no_action_even_when_its_process_is_gone() -> None:
    """A job that recorded `finished` is done, whatever its pid says."""
    assert tick(with_job(recorded_job("triage-finished", alive=False))).decisions == ()


def test_a_job_gone_without_finishing_is_resumed_and_counted() -> None:
    """The dead review job is resumed (`--resume`) and the issue's resume count becomes 1."""
    result = tick(with_job(recorded_job("review-gone", alive=False)))
    assert result.decisions == (
        StartJob(12, Stage.REVIEW, "job gone without finishing; resume 1 of 2", resume=True),
    )
    assert result.memory.resumes == ((12, 1),)


def test_a_resume_goes_through_the_start_gate_and_counts_against_the_caps() -> None:
    """The resumed job takes the one slot, so the scheduler starts nothing else that tick."""
    snap = snapshot(
        issue(12, Stage.REVIEW), issue(30), jobs=(recorded_job("review-gone", alive=False),)
    )
    conf = config(max_jobs=1)
    result = watch(snap, conf, NOW, WatchMemory())
    assert [type(d) for d in result.decisions] == [StartJob]
    decisions = schedule(snap, conf, NOW, gate=result.gate)
    assert decisions.starts == ()
    assert [(h.issue, h.reason) for h in decisions.holds] == [(30, "max-jobs 1/1")]


def test_a_resume_the_gate_holds_is_not_counted() -> None:
    """With every slot taken the resume is held with the gate's reason and costs no resume."""
    busy = job(40, Stage.TRIAGE)
    snap = snapshot(
        issue(12, Stage.REVIEW),
        issue(40),
        jobs=(recorded_job("review-gone", alive=False), busy),
    )
    result = tick(snap, max_jobs=1)
    assert result.decisions == (Hold(12, Stage.REVIEW, "resume held: max-jobs 1/1"),)
    assert result.memory.resumes == ()


def test_at_max_resumes_the_issue_stops_with_job_and_its_count_is_cleared() -> None:
    """After two resumes a third death stops the issue `job` and forgets the count (WD-6)."""
    memory = WatchMemory(resumes=((12, 2),))
    result = tick(with_job(recorded_job("review-gone", alive=False)), memory)
    assert [(type(d), getattr(d, "control", None)) for d in result.decisions] == [
        (StopIssue, StopCode.JOB)
    ]
    assert result.memory.resumes == ()


def test_a_dead_job_whose_issue_moved_on_is_not_resumed() -> None:
    """The issue is already at fix, so the dead review job is stale, not needed."""
    snap = with_job(recorded_job("review-gone", alive=False), Stage.FIX)
    assert tick(snap).decisions == ()


def test_a_silent_job_gets_sigterm_first_and_the_stop_once_it_has_exited() -> None:
    """Heartbeat 25 minutes old: SIGTERM now; while alive, nothing more; once gone, stop `job`."""
    record = recorded_job("implement-silent", alive=True)
    first = tick(with_job(record))
    assert [type(d) for d in first.decisions] == [Terminate]
    assert first.decisions[0].issue == 13
    still = tick(with_job(record), first.memory)
    assert still.decisions == ()
    gone = tick(with_job(replace(record, alive=False)), still.memory)
    assert [(type(d), getattr(d, "control", None)) for d in gone.decisions] == [
        (StopIssue, StopCode.JOB)
    ]


def test_a_watchdog_stop_is_asked_for_until_the_label_shows_then_released_when_removed() -> None:
    """Repeated until the stop label appears; once a person removes it the issue starts afresh."""
    alive = recorded_job("implement-silent", alive=True)
    record = replace(alive, alive=False)
    signalled = tick(with_job(alive))
    asked = tick(with_job(record), signalled.memory)
    again = tick(with_job(record), asked.memory)
    assert [type(d) for d in asked.decisions] == [StopIssue]
    assert again.decisions == asked.decisions
    seen = tick(with_job(record, stopped=StopCode.JOB), again.memory)
    assert seen.decisions == ()
    removed = with_job(record)
    after = tick(removed, seen.memory)
    assert after.decisions == ()
    assert 13 not in after.gate.busy
    decisions = schedule(removed, config(), NOW, gate=after.gate)
    assert [(s.issue, s.resume) for s in decisions.starts] == [(13, False)]


def test_an_op_that_allows_a_longer_quiet_is_not_silent() -> None:
    """A verify step allowing 60 minutes is not stopped at 40 minutes of quiet (WD-13)."""
    record = recorded_job("checks-long-verify", alive=True)
    assert tick(with_job(record)).decisions == ()
    late = watch(with_job(record), config(), NOW + timedelta(minutes=25), WatchMemory())
    assert [type(d) for d in late.decisions] == [Terminate]


def test_the_same_tool_failing_three_times_gets_one_steer_quoting_the_error_as_data() -> None:
    """One steer, the error inside a fence its own backticks cannot close, and no second steer."""
    record = recorded_job("fix-tool-failing", alive=True)
    first = tick(with_job(record))
    assert len(first.decisions) == 1
    steer = first.decisions[0]
    assert isinstance(steer, Steer)
    assert steer.issue == 15
    error = record.tool_failure.error if record.tool_failure else ""
    assert fence(error) in steer.text
    assert "````text\n" in steer.text
    assert tick(with_job(record), first.memory).decisions == ()


def test_two_failures_in_a_row_get_no_steer() -> None:
    """The streak must reach three."""
    assert tick(with_job(recorded_job("fix-tool-failed-twice", alive=True))).decisions == ()


def test_a_session_past_its_context_budget_gets_sigterm_then_a_budget_stop() -> None:
    """310.5k context over a 300k budget: SIGTERM, then once exited the stop `budget` (WD-10)."""
    record = recorded_job("spec-over-budget", alive=True)
    first = tick(with_job(record))
    assert [type(d) for d in first.decisions] == [Terminate]
    gone = tick(with_job(replace(record, alive=False)), first.memory)
    assert [(type(d), getattr(d, "control", None)) for d in gone.decisions] == [
        (StopIssue, StopCode.BUDGET)
    ]
    assert [(s.issue, s.control) for s in gone.memory.stops] == [(17, StopCode.BUDGET)]


def test_the_budget_rule_comes_before_the_dead_job_rule() -> None:
    """A dead job past its budget is stopped `budget`, never revived."""
    record = recorded_job("spec-over-budget", alive=False)
    result = tick(with_job(record))
    assert [(type(d), getattr(d, "control", None)) for d in result.decisions] == [
        (StopIssue, StopCode.BUDGET)
    ]


def test_memory_forgets_issues_that_are_no_longer_open() -> None:
    """Resume counts and stops of closed issues are dropped."""
    memory = WatchMemory(resumes=((99, 1),))
    assert tick(snapshot(), memory).memory == WatchMemory()


def test_fence_outgrows_any_backtick_run_in_the_text() -> None:
    """Five backticks inside need a fence of six."""
    fenced = fence("a ````` b")
    assert fenced.startswith("``````text\n")
    assert fenced.endswith("\n``````")


def test_a_budget_stop_released_by_a_person_is_never_made_again_for_that_job() -> None:
    """After the label is removed the old over-budget record is ignored, even while starts wait."""
    record = recorded_job("spec-over-budget", alive=False)
    stopped = tick(with_job(record))
    seen = tick(with_job(record, stopped=StopCode.BUDGET), stopped.memory)
    busy = job(40, Stage.TRIAGE)
    full = snapshot(issue(17, Stage.SPEC), issue(40), jobs=(record, busy))
    first = watch(full, config(max_jobs=1), NOW, seen.memory)
    second = watch(full, config(max_jobs=1), NOW, first.memory)
    assert first.decisions == second.decisions == ()
    assert 17 not in second.gate.busy
    held = schedule(full, config(max_jobs=1), NOW, gate=second.gate)
    assert [(h.issue, h.reason) for h in held.holds] == [(17, "max-jobs 1/1")]


def _dies_at(issue_number: int, stage: Stage, memory: WatchMemory) -> Watch:
    """One pass in which the issue's newest job, at `stage`, is gone without finishing."""
    dead = job(issue_number, stage, alive=False)
    return tick(snapshot(issue(issue_number, stage), jobs=(dead,)), memory)


def test_three_deaths_in_three_different_stages_never_stop_the_issue() -> None:
    """Resumes are counted per stage: a kill in spec, in implement and in review are one each."""
    memory = WatchMemory()
    for stage in (Stage.SPEC, Stage.IMPLEMENT, Stage.REVIEW):
        result = _dies_at(12, stage, memory)
        assert result.decisions == (
            StartJob(12, stage, "job gone without finishing; resume 1 of 2", resume=True),
        )
        memory = result.memory


def test_the_resume_count_starts_again_once_the_issue_moved_on() -> None:
    """Two resumes at review, then fix, then review again: the third review death is resume 1."""
    memory = _dies_at(12, Stage.REVIEW, WatchMemory()).memory
    memory = _dies_at(12, Stage.REVIEW, memory).memory
    moved = tick(snapshot(issue(12, Stage.FIX), jobs=(job(12, Stage.FIX),)), memory).memory
    again = _dies_at(12, Stage.REVIEW, moved)
    assert [getattr(d, "reason", "") for d in again.decisions] == [
        "job gone without finishing; resume 1 of 2"
    ]


def test_the_third_death_in_one_stage_still_stops_the_issue() -> None:
    """Per-stage counting keeps WD-6: past max_resumes in the same stage the issue stops `job`."""
    memory = WatchMemory()
    for _ in range(2):
        memory = _dies_at(12, Stage.IMPLEMENT, memory).memory
    third = _dies_at(12, Stage.IMPLEMENT, memory)
    assert [(type(d), getattr(d, "control", None)) for d in third.decisions] == [
        (StopIssue, StopCode.JOB)
    ]
