"""Pickup and restart: which issues wait for work and where a restart begins."""

from __future__ import annotations

from datetime import timedelta
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.pickup import IssueFacts, pickup
from conveyor.core.restart import restart, restart_stage
from conveyor.core.state import Charge, Finding, IssueState, Lease, Pool, Rounds, Stage, Stopped
from conveyor.core.stops import StopCode
from conveyor.core.trust import build_trust
from tests.unit.core.factory import ACCOUNT, T0

TRUST = build_trust(ACCOUNT, ["owner"], {"owner": True})
LABELS = (
    "bug",
    "agent:working",
    "agent:needs-info",
    "agent:split",
    "agent:merged",
    "agent:stopped-error",
    "agent:stopped-too-large",
)
STOPPED = Stopped(control=StopCode.ERROR, reason="boom", stage=Stage.REVIEW, at=T0)


def facts(
    labels: tuple[str, ...] = (),
    state: IssueState | None = None,
    *,
    author: str = "owner",
    open: bool = True,  # noqa: A002 - the issue's field name
    state_problem: Literal["too-new", "undecodable"] | None = None,
    answered: bool = False,
) -> IssueFacts:
    """An issue with the given labels, state and facts."""
    return IssueFacts(1, author, open, labels, state, state_problem, answered)


@pytest.mark.parametrize(
    ("issue", "action", "reason"),
    [
        (facts(), "take", "new"),
        (facts(author="visitor"), "skip", "untrusted"),
        (facts(open=False), "skip", "closed"),
        (facts(("agent:needs-info",)), "skip", "waiting-for-answer"),
        (facts(("agent:needs-info",), answered=True), "take", "answered"),
        (facts(("agent:stopped-error",), IssueState(stopped=STOPPED)), "skip", "stopped"),
        (facts((), IssueState(stopped=STOPPED)), "restart", "restart"),
        (facts(("agent:split",)), "skip", "split"),
        (facts(("agent:merged",)), "skip", "merged"),
        (facts(state_problem="too-new"), "skip", "state-too-new"),
        (facts(state_problem="undecodable"), "skip", "state-undecodable"),
        (
            facts(("agent:working",), IssueState(lease=Lease(lane="a", job_id="j", at=T0))),
            "skip",
            "leased",
        ),
        (
            facts(
                ("agent:working",),
                IssueState(lease=Lease(lane="a", job_id="j", at=T0, released=True)),
            ),
            "take",
            "released",
        ),
        (
            facts(
                ("agent:working",),
                IssueState(lease=Lease(lane="a", job_id="j", at=T0 - timedelta(hours=3))),
            ),
            "take",
            "lease-expired",
        ),
    ],
)
def test_a_sweep_picks_exactly_the_waiting_issues(
    issue: IssueFacts, action: str, reason: str
) -> None:
    """Each kind of issue gets its decision and reason (CLAIM-4, CLAIM-7, TRUST-3)."""
    decision = pickup(issue, TRUST, T0 + timedelta(minutes=1), lease_hours=3)
    assert (decision.action, decision.reason) == (action, reason)


def test_a_run_by_number_leaves_a_stopped_issue_unless_asked_to_take_it() -> None:
    """By number, a stopped issue is `left-stopped`; with take_stopped it restarts (CLAIM-6)."""
    issue = facts(("agent:stopped-error",), IssueState(stopped=STOPPED))
    assert pickup(issue, TRUST, T0, 3, by_number=True).reason == "left-stopped"
    assert pickup(issue, TRUST, T0, 3, by_number=True, take_stopped=True).action == "restart"


def test_an_untrusted_author_is_refused_even_by_number() -> None:
    """Naming an outsider's issue by number does not make it trusted (TRUST-3)."""
    decision = pickup(facts(author="visitor"), TRUST, T0, 3, by_number=True, take_stopped=True)
    assert decision.reason == "untrusted"


def test_a_restart_resets_every_limit_and_clears_the_stop() -> None:
    """Rounds, continuations, resumes and the rebase pool start again (STOP-12, BUD-6)."""
    charges = (Charge(role="resolver", pool=Pool.REBASE, tokens=100_000),)
    state = IssueState(
        implemented=True,
        rounds=Rounds(fix=2, resumes=2, spec_attempts=2),
        continuations={Stage.FIX: 1},
        charges=charges,
        stopped=STOPPED,
    )
    fresh = restart(state)
    assert (fresh.rounds, fresh.continuations, fresh.stopped) == (Rounds(), {}, None)
    assert fresh.rebase_from == 1
    assert fresh.charges == charges


def test_a_restart_without_an_implementation_begins_at_triage() -> None:
    """A draft that holds no implementation restarts at triage (STOP-8)."""
    assert restart_stage(IssueState(stopped=STOPPED)) is Stage.TRIAGE


def test_a_restart_after_too_large_goes_to_triage_and_keeps_the_pr() -> None:
    """too-large restarts at triage even with work on the branch (STOP-11)."""
    big = Stopped(control=StopCode.TOO_LARGE, reason="x", stage=Stage.IMPLEMENT, at=T0)
    fresh = restart(IssueState(implemented=True, pr=4, head_sha="a", stopped=big))
    assert (fresh.stage, fresh.pr) == (Stage.TRIAGE, 4)


def test_an_unchanged_reviewed_branch_with_no_blocking_finding_skips_review() -> None:
    """head == reviewed and nothing blocking open: straight to sync (STOP-7); else review."""
    ok = IssueState(implemented=True, head_sha="a", reviewed_sha="a", stopped=STOPPED)
    assert restart_stage(ok) is Stage.SYNC
    blocking = Finding(id="1", lens="c", severity="blocking", evidence="e")
    assert restart_stage(ok.model_copy(update={"findings": (blocking,)})) is Stage.REVIEW
    assert restart_stage(ok.model_copy(update={"head_sha": "b"})) is Stage.REVIEW


def test_a_reviewed_wiki_only_change_restarts_at_checks_with_nothing_to_rebase() -> None:
    """FLOW-5: a wiki-only change has no code branch to sync; wiki-check runs again."""
    ok = IssueState(implemented=True, head_sha="a", reviewed_sha="a", flows="wiki", stopped=STOPPED)
    assert restart_stage(ok) is Stage.CHECKS


@given(
    labels=st.lists(st.sampled_from(LABELS), max_size=3).map(tuple),
    author=st.sampled_from(["owner", "visitor", ACCOUNT]),
    stopped=st.booleans(),
    answered=st.booleans(),
    hours=st.floats(0, 10),
)
def test_a_sweep_never_takes_an_untrusted_or_stop_labelled_issue(
    labels: tuple[str, ...], author: str, stopped: bool, answered: bool, hours: float
) -> None:
    """Whatever the labels and state, untrusted authors and stop labels are never picked."""
    state = IssueState(
        stopped=STOPPED if stopped else None,
        lease=Lease(lane="a", job_id="j", at=T0 - timedelta(hours=hours)),
    )
    issue = facts(labels, state, author=author, answered=answered)
    decision = pickup(issue, TRUST, T0, lease_hours=3)
    if author == "visitor" or any(label.startswith("agent:stopped-") for label in labels):
        assert decision.action == "skip"
    if decision.action == "restart":
        assert stopped


def test_a_restart_after_branch_changed_adopts_the_persons_head_and_reviews_it() -> None:
    """The person's push is the work now: review it; the old SHAs would stop it again."""
    moved = Stopped(control=StopCode.BRANCH_CHANGED, reason="x", stage=Stage.CHECKS, at=T0)
    state = IssueState(
        implemented=True, pr=4, head_sha="a", reviewed_sha="a", verified_sha="a", stopped=moved
    )
    fresh = restart(state)
    assert fresh.stage is Stage.REVIEW
    assert (fresh.head_sha, fresh.reviewed_sha, fresh.verified_sha) == (None, None, None)
    assert fresh.pr == 4


@given(
    control=st.sampled_from(list(StopCode)),
    stage=st.sampled_from([Stage.SPEC, Stage.REVIEW, Stage.CHECKS, Stage.MERGE, Stage.APPROVED]),
    implemented=st.booleans(),
    reviewed=st.sampled_from([None, "a", "b"]),
)
def test_the_stage_a_restart_is_scheduled_at_is_the_stage_it_claims_at(
    control: StopCode, stage: Stage, implemented: bool, reviewed: str | None
) -> None:
    """The orchestrator starts a restart's job at `restart_stage`, the claim expects
    `restart(...).stage`: they must agree, or the job is refused (wrong-stage) every tick.
    A branch-changed stop after the handover (state at approved, head reviewed) was one."""
    stopped = Stopped(control=control, reason="x", stage=stage, at=T0)
    state = IssueState(
        stage=stage, implemented=implemented, pr=4, head_sha="a", reviewed_sha=reviewed,
        verified_sha="a", stopped=stopped,
    )  # fmt: skip
    assert restart_stage(state) is restart(state).stage
