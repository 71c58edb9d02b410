"""Which people's PRs start a review, and why the others wait (BB-DISP-9..14)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.people import PullView
from conveyor.orchestrator.plan import plan

from .factory import NOW, config, issue, job, snapshot

LABEL = "review-requested"


def people(**reviews: Any) -> Config:
    """A config with `[pr_reviews]` (the label on by default) and these limits."""
    limits = reviews.pop("limits", {})
    made = config(**limits)
    settings = {"label": LABEL, **reviews}
    return made.model_copy(update={"pr_reviews": made.pr_reviews.model_validate(settings)})


def pull(number: int, **kw: Any) -> PullView:
    """An open PR by alice; a smaller number is older."""
    kw.setdefault("author", "alice")
    kw.setdefault("head_sha", f"{number:040d}")
    kw.setdefault("author_trusted", True)
    return PullView(number=number, created_at=NOW - timedelta(minutes=100 - number), **kw)


def labelled(number: int, by: str = "alice", *, trusted: bool = True, **kw: Any) -> PullView:
    """A PR whose label `by` added."""
    return pull(number, requested_by=by, requester_trusted=trusted, **kw)


def decide(pulls: list[PullView], conf: Config, *issues: Any, jobs: tuple[Any, ...] = ()) -> Any:
    """The plan of one tick with these PRs."""
    return plan(snapshot(*issues, jobs=jobs), conf, NOW, WatchMemory(), tuple(pulls)).reviews


def test_a_trusted_label_starts_a_review_job_under_the_prs_number() -> None:
    """One start, stage pr-review, for PR 50."""
    got = decide([labelled(50)], people())
    assert [(s.issue, s.stage) for s in got.starts] == [(50, Stage.PR_REVIEW)]


def test_an_untrusted_label_is_held_with_its_reason_and_never_started() -> None:
    """The visitor's label: held, saying who added it and that they are not trusted."""
    got = decide([labelled(50, "mallory", trusted=False)], people())
    assert got.starts == ()
    assert [h.reason for h in got.holds] == [
        "'review-requested' added by @mallory, who is not trusted: ignored"
    ]


def test_a_review_takes_only_a_slot_a_ready_issue_left() -> None:
    """One job slot and a ready issue: the issue starts, the review waits (BB-DISP-9)."""
    got = plan(
        snapshot(issue(3, Stage.IMPLEMENT)), people(limits={"max_jobs": 1}), NOW, WatchMemory(),
        (labelled(50),),
    )  # fmt: skip
    assert [s.issue for s in got.schedule.starts] == [3]
    assert got.reviews.starts == ()
    assert [h.reason for h in got.reviews.holds] == ["max-jobs 1/1"]


def test_conveyors_own_prs_and_those_under_review_get_nothing() -> None:
    """Own PRs and a PR with a live review job: neither started nor held."""
    running = (job(51, Stage.PR_REVIEW),)
    got = decide([labelled(50, own=True), labelled(51)], people(), jobs=running)
    assert (got.starts, got.holds) == ((), ())


def test_a_failed_review_backs_the_pr_off_for_five_poll_intervals() -> None:
    """Failed four polls ago: held; six polls ago: started (BB-DISP-14)."""
    conf = people(limits={"poll_seconds": 60})
    recent = decide([labelled(50, failed_at=NOW - timedelta(minutes=4))], conf)
    assert recent.starts == ()
    assert recent.holds[0].reason.startswith("backoff")
    later = decide([labelled(50, failed_at=NOW - timedelta(minutes=6))], conf)
    assert [s.issue for s in later.starts] == [50]


def test_assigned_prs_are_reviewed_once_per_head_drafts_and_untrusted_authors_excepted() -> None:
    """review_assigned_prs: a trusted author's new head starts; a draft, a reviewed head and
    an untrusted author's PR do not (the last is held with its reason)."""
    conf = people(label=None, review_assigned_prs=True)
    got = decide(
        [
            pull(50),
            pull(51, draft=True),
            pull(52, reviewed_heads=frozenset({f"{52:040d}"})),
            pull(53, author="mallory", author_trusted=False),
        ],
        conf,
    )
    assert [s.issue for s in got.starts] == [50]
    assert [(h.issue, "not trusted" in h.reason) for h in got.holds] == [(53, True)]


def test_the_reviews_cap_holds_more_reviews() -> None:
    """stage_caps pr-review = 1 and one review running: the next is held."""
    conf = people(limits={"stage_caps": {"pr-review": 1}, "max_jobs": 4})
    got = decide([labelled(50)], conf, jobs=(job(49, Stage.PR_REVIEW),))
    assert [h.reason for h in got.holds] == ["cap:pr-review 1/1"]


def test_nothing_is_reviewed_without_a_configured_trigger() -> None:
    """No label and no review_assigned_prs: no decision at all."""
    assert decide([labelled(50), pull(51)], config()).starts == ()


@given(st.integers(1, 4), st.integers(0, 5), st.integers(0, 5))
def test_issues_and_reviews_together_never_pass_max_jobs(
    max_jobs: int, ready: int, requested: int
) -> None:
    """However many ready issues and labelled PRs, the starts fit in `max_jobs`."""
    conf = people(limits={"max_jobs": max_jobs, "readers_per_stage": 9, "writers_per_stage": 9})
    issues = [issue(n, Stage.IMPLEMENT, where=(f"src/{n}.py",)) for n in range(1, ready + 1)]
    got = plan(snapshot(*issues), conf, NOW, WatchMemory(),
               tuple(labelled(100 + n) for n in range(requested)))  # fmt: skip
    assert len(got.schedule.starts) + len(got.reviews.starts) <= max_jobs
    assert len(got.schedule.starts) == min(ready, max_jobs)
