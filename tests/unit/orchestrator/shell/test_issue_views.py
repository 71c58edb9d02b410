"""From cached forge issues to the scheduler's IssueView: pickup's rule, stops, leases, order."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from conveyor.core.state import Finding, IssueState, Lease, StackedOn, Stage, Stopped
from conveyor.core.stops import StopCode
from conveyor.core.trust import build_trust
from conveyor.forge.types import Issue
from conveyor.job.jobfile import Finished, JobRecord, SessionRecord
from conveyor.orchestrator.shell.executor import RecordedJob
from conveyor.orchestrator.shell.issue_views import issue_view, job_view, newest_jobs
from conveyor.orchestrator.shell.snapshot_store import CachedIssue, CommentHead
from conveyor.orchestrator.snapshot import JobRole
from conveyor.orchestrator.snapshot import Lease as ViewLease

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TRUST = build_trust("bot", ["owner"], {"owner": True})
QUESTIONS = "<!-- conveyor:comment role=triage kind=questions run=r1 -->"


def _entry(
    *,
    author: str = "owner",
    labels: tuple[str, ...] = (),
    body: str = "do it",
    state: IssueState | None = None,
    comments: tuple[CommentHead, ...] = (),
) -> CachedIssue:
    issue = Issue(5, 1005, "I_5", "t", body, "open", None, author, labels, NOW, NOW, "u")
    return CachedIssue(issue, "etag", state, 1 if state else None, comments=comments)


def _head(cid: int, author: str, body: str = "") -> CommentHead:
    return CommentHead(cid, author, body, NOW, NOW)


def test_a_new_trusted_issue_waits_for_triage() -> None:
    """No state, no label, a trusted author: the view is at triage and not waiting."""
    view = issue_view(_entry(), TRUST, NOW, 3)
    assert (view.stage, view.waiting, view.stopped, view.lease) == (Stage.TRIAGE, None, None, None)


def test_an_untrusted_authors_issue_rests_with_its_reason() -> None:
    """A visitor's issue is never queued; status can say why."""
    assert issue_view(_entry(author="visitor"), TRUST, NOW, 3).waiting == "untrusted"


def test_a_stop_label_gives_its_control() -> None:
    """The stop label's code is the view's `stopped`."""
    view = issue_view(_entry(labels=("agent:stopped-fix-loop",)), TRUST, NOW, 3)
    assert view.stopped is StopCode.FIX_LOOP


def test_a_removed_stop_label_restarts_at_the_stage_the_rule_chooses() -> None:
    """A state that records a stop with no label on the issue restarts (triage: not implemented)."""
    stop = Stopped(control=StopCode.BUDGET, reason="r", stage=Stage.FIX, at=NOW)
    view = issue_view(_entry(state=IssueState(stage=Stage.FIX, stopped=stop)), TRUST, NOW, 3)
    assert (view.stage, view.stopped, view.waiting) == (Stage.TRIAGE, None, None)


def test_needs_info_waits_until_a_trusted_person_answers() -> None:
    """A visitor's reply leaves the issue waiting; the owner's reply makes it ready."""
    asked = (_head(10, "bot", QUESTIONS), _head(11, "visitor"))
    labels = ("agent:needs-info",)
    waiting = issue_view(_entry(labels=labels, comments=asked), TRUST, NOW, 3)
    answered = issue_view(
        _entry(labels=labels, comments=(*asked, _head(12, "owner"))), TRUST, NOW, 3
    )
    assert (waiting.waiting, answered.waiting) == ("waiting-for-answer", None)


def test_a_live_lease_is_passed_on_with_its_expiry() -> None:
    """Another lane's fresh lease reaches the scheduler as lane and `until`."""
    state = IssueState(stage=Stage.REVIEW, lease=Lease(lane="m2", job_id="j", at=NOW))
    view = issue_view(_entry(labels=("agent:working",), state=state), TRUST, NOW, 3)
    assert view.lease == ViewLease("m2", NOW + timedelta(hours=3))
    assert view.stage is Stage.REVIEW


def test_a_released_lease_is_still_held_while_its_lanes_claim_is_live() -> None:
    """CLAIM-12/14: a lane that released the issue keeps it while its claim comment lives;
    a visitor's fake claim holds nothing, and an expired claim lets another lane take it."""
    lease = Lease(lane="m2", job_id="j", at=NOW, released=True)
    state = IssueState(stage=Stage.SPEC, lease=lease)
    claim = "<!-- conveyor:claim lane=m2 sweep=j -->"
    held = issue_view(
        _entry(labels=("agent:working",), state=state, comments=(_head(9, "bot", claim),)),
        TRUST,
        NOW,
        3,
    )
    assert held.lease == ViewLease("m2", NOW + timedelta(hours=3))
    fake = _entry(labels=("agent:working",), state=state, comments=(_head(9, "visitor", claim),))
    assert issue_view(fake, TRUST, NOW, 3).lease is None
    own = _entry(labels=("agent:working",), state=state, comments=(_head(9, "bot", claim),))
    assert issue_view(own, TRUST, NOW + timedelta(hours=3), 3).lease is None


def test_after_lines_count_only_in_the_accounts_own_body() -> None:
    """A sub-issue the account wrote follows its open sibling; a person's line orders nothing."""
    body = "part two\n\nAfter #3 merges.\nAfter #4 merges.\n"
    ours = issue_view(_entry(author="bot", body=body), TRUST, NOW, 3, open_numbers={4})
    theirs = issue_view(_entry(body=body), TRUST, NOW, 3, open_numbers={4})
    assert (ours.after, theirs.after) == (4, None)


def test_the_view_carries_the_stacking_facts_the_rules_read() -> None:
    """STK-7: the issue's stacking, its head, its open blocking findings and every `after`."""
    finding = Finding(id="F1", lens="tests", severity="blocking", evidence="no test")
    resolved = finding.model_copy(update={"id": "F2", "status": "resolved"})
    state = IssueState(
        stage=Stage.REVIEW,
        head_sha="h" * 40,
        after=(3, 4),
        stacked_on=StackedOn(issue=3, head_sha="p" * 40),
        findings=(finding, resolved),
    )
    view = issue_view(_entry(state=state), TRUST, NOW, 3, open_numbers={3})
    assert (view.stacked_on, view.stacked_head, view.head) == (3, "p" * 40, "h" * 40)
    assert (view.open_findings, view.after, view.afters) == (1, 3, (3, 4))


def test_the_view_says_whether_the_change_has_a_code_flow() -> None:
    """FLOW-5: a wiki-only change has no code of its own for the stacking rules to restack."""
    for name, code in (("code", True), ("both", True), ("wiki", False)):
        state = IssueState.model_validate({"stage": "checks", "flows": name})
        assert issue_view(_entry(state=state), TRUST, NOW, 3).code_flow is code


def test_writer_paths_come_from_the_interfaces_and_the_pushed_changes() -> None:
    """`where` of each interface plus the changed paths; unreadable interfaces add nothing."""
    interfaces = json.dumps([{"name": "f", "where": "src/a.py"}, {"name": "g", "where": "b/*"}])
    state = IssueState(stage=Stage.IMPLEMENT, interfaces=interfaces, changed_paths=("c.py",))
    view = issue_view(_entry(state=state), TRUST, NOW, 3)
    assert view.writer_paths == ("src/a.py", "b/*", "c.py")
    broken = IssueState(stage=Stage.IMPLEMENT, interfaces="{not json")
    assert issue_view(_entry(state=broken), TRUST, NOW, 3).where == ()


def _job(issue: int, minutes_ago: int, *, alive: bool, done: bool = False) -> RecordedJob:
    start = NOW - timedelta(minutes=minutes_ago)
    record = JobRecord(
        issue=issue, stage="fix", role="writer", lane="l", job_id=f"issue-{issue}-{minutes_ago}",
        pid=40 + minutes_ago, process_start=1, started_at=start, heartbeat=start,
        sessions=[SessionRecord(key="fix.1", backend="claude", model="m", status="replied")],
        finished=Finished(outcome="saved", at=NOW) if done else None,
    )  # fmt: skip
    return RecordedJob(Path("/j"), record, alive)


def test_each_issue_keeps_only_its_newest_job() -> None:
    """An older finished job of #2 is not the one judged; #1's only job is kept."""
    jobs = [_job(2, 30, alive=False, done=True), _job(1, 20, alive=True), _job(2, 5, alive=True)]
    assert [(j.record.issue, j.record.pid) for j in newest_jobs(jobs)] == [(1, 60), (2, 45)]


def test_a_job_view_carries_its_process_heartbeat_and_last_session() -> None:
    """The view says what job.json says, and leaves the live context unknown."""
    view = job_view(_job(3, 10, alive=False, done=True))
    assert (view.issue, view.stage, view.role, view.pid) == (3, Stage.FIX, JobRole.WRITER, 50)
    assert (view.alive, view.finished, view.session) == (False, True, "fix.1")
    assert view.heartbeat == NOW - timedelta(minutes=10)
    assert view.context_tokens is None
