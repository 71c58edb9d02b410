"""The stages on the wiki paths, driven with data: wiki-only spec, the shared flow step,
wiki-check in checks, finish-wiki and publish at merge (FLOW-2..10, CHK-8, MRG-16)."""

from __future__ import annotations

from conveyor.core.config import Limits
from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.stages import checks, fix, implement, merge, spec
from conveyor.stages.effects import (
    ChargeBudget,
    Charged,
    Checked,
    CheckSpecCommits,
    Done,
    LaunchSession,
    PostComment,
    PrSettled,
    PushBranch,
    Pushed,
    ResetBranch,
    Result,
    SettlePr,
)
from conveyor.stages.effects_merge import (
    BehindRead,
    CheckWiki,
    CloseOut,
    FinishWiki,
    GuardBranch,
    MergePr,
    MergeTried,
    PublishWiki,
    VerifyHead,
    WikiPublished,
)
from conveyor.stages.effects_review import PostPrComment
from conveyor.stages.step import SavedAt, Stopped
from tests.unit.stages.factory import START, implement_reply, inputs, replied, spec_reply
from tests.unit.stages.factory_merge import HEAD, run_through
from tests.unit.stages.factory_review import FIXED, stored
from tests.unit.stages.test_fix import fix_reply
from tests.unit.stages.test_implement import launched
from tests.unit.stages.test_spec import launched as spec_launched

WIKI_HEAD = "9" * 40
WIKI_ONLY = spec_reply(wiki_only=True, no_tests_reason="only the wiki changes", interfaces=[])


def test_a_wiki_only_spec_pushes_its_pages_and_goes_to_review_with_no_pr() -> None:
    """FLOW-10, SPEC-115: check asks for a wiki change, push, save at review as wiki only."""
    given = inputs(wiki_dir="wiki", wiki_head=WIKI_HEAD)
    step = spec_launched(given=given)
    assert step.memory.state.start_wiki_sha == WIKI_HEAD, "SPEC-124: kept at the first start"
    step = spec.transition(step.memory, replied(WIKI_ONLY))
    assert isinstance(step.action, CheckSpecCommits)
    assert step.action.wiki_only
    step = spec.transition(step.memory, Checked(True))
    assert isinstance(step.action, PostComment)
    step = spec.transition(step.memory, Done())
    assert step.action == PushBranch(START)
    end = spec.transition(step.memory, Pushed(START, (), (), True, ("Page.md",))).action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.REVIEW
    state = end.state
    assert (state.flows, state.wiki_only, state.implemented, state.pr) == ("wiki", True, True, None)


def test_a_wiki_only_spec_closes_the_pr_an_earlier_spec_opened() -> None:
    """PR-13: a PR from before is closed (the note names the wiki branch)."""
    step = spec_launched(IssueState(stage=Stage.SPEC, pr=5))
    step, _ = run_through(step, spec.transition, [replied(WIKI_ONLY), Checked(True), Done()])
    step = spec.transition(step.memory, Pushed(START, (), (), True, ("Page.md",)))
    assert step.action == SettlePr("close")
    end = spec.transition(step.memory, PrSettled(5, open=False)).action
    assert isinstance(end, SavedAt)
    assert (end.stage, end.state.pr, end.state.pr_closed) == (Stage.REVIEW, 5, True)


def test_questions_reset_the_wiki_branch_to_where_the_spec_began() -> None:
    """SPEC-99: needs-info resets both branches to their start heads."""
    step = spec_launched(given=inputs(wiki_head=WIKI_HEAD))
    asking = spec_reply("needs-info", questions=["Which page?"])
    step = spec.transition(step.memory, replied(asking))
    assert step.action == ResetBranch(START, WIKI_HEAD)


def test_an_implementation_that_changed_only_the_wiki_closes_the_pr() -> None:
    """FLOW-5: wiki only after open-pr's push; the shared step closes the PR."""
    step = implement.transition(launched().memory, replied(implement_reply()))
    step = implement.transition(step.memory, Checked(ok=True))
    step = implement.transition(step.memory, Pushed(HEAD, (), (), True, ("Page.md",)))
    assert step.action == SettlePr("close")
    end = implement.transition(step.memory, PrSettled(12, open=False)).action
    assert isinstance(end, SavedAt)
    assert (end.state.flows, end.state.pr_closed, end.stage) == ("wiki", True, Stage.REVIEW)


def test_a_fix_that_adds_code_to_a_wiki_only_change_reopens_the_pr() -> None:
    """FLOW-7, FIX-12: flows recomputed after the round; the PR is reopened and readied."""
    state = IssueState(
        stage=Stage.FIX, pr=12, pr_closed=True, flows="wiki", head_sha=HEAD,
        reviewed_sha=HEAD, findings=(stored(1),),
    )  # fmt: skip
    step = fix.start(inputs(head_sha=HEAD), state)
    step, _ = run_through(step, fix.transition, [Charged(state), replied(fix_reply())])
    assert step.action == PushBranch(HEAD)
    step = fix.transition(step.memory, Pushed(FIXED, ("app.py",), ("app.py",), True))
    assert step.action == SettlePr("reopen")
    step = fix.transition(step.memory, PrSettled(12, open=True))
    assert isinstance(step.action, PostPrComment)
    end = fix.transition(step.memory, Done()).action
    assert isinstance(end, SavedAt)
    assert (end.state.flows, end.state.pr_closed) == ("both", False)


def test_a_fix_that_leaves_neither_code_nor_wiki_stops_not_doable() -> None:
    """FLOW-4 after a fix round."""
    state = IssueState(
        stage=Stage.FIX, pr=12, head_sha=HEAD, reviewed_sha=HEAD, findings=(stored(1),)
    )
    step = fix.start(inputs(head_sha=HEAD), state)
    step, _ = run_through(step, fix.transition, [Charged(state), replied(fix_reply())])
    end = fix.transition(step.memory, Pushed(FIXED, (), ("app.py",), False)).action
    assert isinstance(end, Stopped)
    assert end.code is StopCode.NOT_DOABLE


def test_wiki_only_checks_run_only_wiki_check_and_skip_verify_and_ci() -> None:
    """FLOW-5, CHK-8: guard (no code head), wiki-check, report, accept."""
    state = IssueState(stage=Stage.CHECKS, flows="wiki", head_sha=HEAD)
    step = checks.start(inputs(head_sha=HEAD), state)
    step, asked = run_through(step, checks.transition, [Checked(True), Checked(True), Done()])
    assert asked[:2] == [GuardBranch(None), CheckWiki()]
    assert isinstance(asked[2], PostComment)
    assert "wiki-check passed" in asked[2].text
    assert isinstance(step.action, SavedAt)
    assert step.action.stage is Stage.ACCEPT


def test_with_code_and_wiki_wiki_check_runs_first_and_a_failure_goes_to_the_check_fixer() -> None:
    """FLOW-6, CHK-8: wiki-check before verify; red wiki-check is a check fix round."""
    state = IssueState(stage=Stage.CHECKS, flows="both", head_sha=HEAD, pr=12)
    step = checks.start(inputs(head_sha=HEAD), state)
    step, asked = run_through(step, checks.transition, [Checked(True), Checked(True)])
    assert asked == [GuardBranch(HEAD), CheckWiki()]
    assert step.action == VerifyHead()
    step = checks.start(inputs(head_sha=HEAD), state)
    found = ("wiki-check: Page.md: links to 'Gone', which is no page or file of the wiki",)
    step, _ = run_through(step, checks.transition, [Checked(True), Checked(False, found)])
    assert isinstance(step.action, ChargeBudget)
    step = checks.transition(step.memory, Charged(step.memory.state))
    assert isinstance(step.action, LaunchSession)
    assert "links to 'Gone'" in step.action.task


def test_a_wiki_only_merge_is_finish_wiki_and_a_conflict_stops_it() -> None:
    """FLOW-5: no PR merge; finish-wiki ends at done, commits that no longer apply stop."""
    state = IssueState(stage=Stage.MERGE, flows="wiki", head_sha=HEAD, verified_sha=HEAD)
    step = merge.start(inputs(head_sha=HEAD), state)
    step, asked = run_through(step, merge.transition, [Checked(True)])
    assert asked == [GuardBranch(None)]
    assert step.action == FinishWiki()
    end = merge.transition(step.memory, WikiPublished("published")).action
    assert isinstance(end, SavedAt)
    assert end.stage is Stage.DONE
    step = merge.start(inputs(head_sha=HEAD), state)
    step, _ = run_through(step, merge.transition, [Checked(True)])
    stopped = merge.transition(step.memory, WikiPublished("conflict", "Home.md changed")).action
    assert isinstance(stopped, Stopped)
    assert (stopped.code, stopped.details) == (StopCode.CONFLICT, "Home.md changed")


def test_a_merged_pr_with_wiki_pages_publishes_them_before_the_close_out() -> None:
    """MRG-16: merge, publish the wiki, then close out."""
    state = IssueState(
        stage=Stage.MERGE, flows="both", head_sha=HEAD, verified_sha=HEAD, passed_sha=HEAD, pr=12
    )
    step = merge.start(inputs(head_sha=HEAD, limits=Limits(merge_order=False)), state)
    results: list[Result] = [
        Checked(True), BehindRead(None), MergeTried("merged", "m" * 40), Done(), Done()
    ]  # fmt: skip
    step, asked = run_through(step, merge.transition, results)
    assert asked[2:] == [MergePr(HEAD), PublishWiki(), CloseOut("m" * 40, tests_only=False)]
    assert isinstance(step.action, SavedAt)
    assert step.action.stage is Stage.DONE
