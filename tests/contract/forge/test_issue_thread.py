"""An issue and its comments in one GraphQL read: the same values as REST's two reads."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from graphql import build_schema, parse, validate

from conveyor.core.trust import NEVER_EDITED
from conveyor.forge.errors import NotFound
from conveyor.forge.github import AppIdentity
from conveyor.forge.github.thread import ISSUE_THREAD
from conveyor.forge.job_view import FIRST_REREAD_S, JobForge
from conveyor.forge.types import IssueThread
from conveyor.ops.forge.branch_guard import guard_branch
from tests.contract.forge.conftest import VISITOR, World, push_change

pytestmark = pytest.mark.contract

SCHEMA = Path(__file__).parents[2] / "data" / "github-schema.graphql"


def rest_thread(world: World, number: int) -> IssueThread:
    """The issue and its comments as REST's two reads give them."""
    return IssueThread(
        world.pipeline.get_issue(number), world.pipeline.list_comments(number).comments
    )


def without_edits(thread: IssueThread) -> IssueThread:
    """The thread as REST reads it: REST does not say who edited a text."""
    return IssueThread(
        replace(thread.issue, edits=None),
        tuple(replace(c, edits=None) for c in thread.comments),
        thread.pulls,
    )


def test_the_query_is_valid_against_github_s_schema() -> None:
    """The document validates against GitHub's published schema, not only the forge's."""
    schema = build_schema(SCHEMA.read_text(), assume_valid_sdl=True, assume_valid=True)
    assert validate(schema, parse(ISSUE_THREAD)) == []


def test_the_thread_is_what_rest_reads_give(world: World) -> None:
    """Issue fields, labels and every comment (a person's, a visitor's, a bot's) match REST's,
    the bot's login with its `[bot]` suffix."""
    created = world.server.add_app("thread-app", install=world.repo)
    assert created.installation_id is not None
    app = AppIdentity(created.app_id, "thread-app", created.installation_id)
    bot = world.app_client(app, created.private_key_path.read_text())
    issue = world.trusted.create_issue("Thread", "the body")
    world.pipeline.add_labels(issue.number, ["agent:working", "bug"])
    world.trusted.create_comment(issue.number, "a trusted comment")
    world.visitor.create_comment(issue.number, "a visitor's comment")
    bot.create_comment(issue.number, "the app's comment")
    world.pipeline.close_issue(issue.number, "not_planned")
    thread = world.pipeline.read_issue_thread(issue.number)
    assert without_edits(thread) == rest_thread(world, issue.number)
    assert {thread.issue.edits, *(c.edits for c in thread.comments)} == {NEVER_EDITED}
    assert [c.author for c in thread.comments][1:] == [VISITOR, "thread-app[bot]"]
    assert (thread.issue.state, thread.issue.state_reason) == ("closed", "not_planned")


def test_more_than_a_page_of_comments_is_read_whole(world: World) -> None:
    """Past 100 comments the read follows the cursor; nothing is lost or doubled."""
    issue = world.pipeline.create_issue("Long thread", "body")
    for n in range(103):
        world.pipeline.create_comment(issue.number, f"comment {n}")
    thread = world.pipeline.read_issue_thread(issue.number)
    assert [c.body for c in thread.comments] == [f"comment {n}" for n in range(103)]
    assert without_edits(thread) == rest_thread(world, issue.number)


def test_a_pull_request_s_number_is_read_through_rest(world: World) -> None:
    """GitHub's issue read answers for a PR's number; the thread read does too."""
    push_change(world, "thread-pr", "thread.txt", "x\n")
    pr = world.pipeline.create_pr("thread-pr", world.default_branch, "A PR", "body")
    world.trusted.create_comment(pr.number, "on the PR")
    assert world.pipeline.read_issue_thread(pr.number) == rest_thread(world, pr.number)


def test_a_missing_issue_is_not_found(world: World) -> None:
    """No issue by that number: NotFound naming the number, as REST's read."""
    with pytest.raises(NotFound) as caught:
        world.pipeline.read_issue_thread(99_999)
    assert caught.value.number == 99_999


def test_a_comment_posted_after_the_job_s_read_is_seen_when_it_reads_again(world: World) -> None:
    """The job's view keeps the thread it read; a person's comment after it is seen by the
    claim's fresh read (`forget`) and by a reread."""
    issue = world.trusted.create_issue("Later comment", "body")
    view = JobForge(world.pipeline, clock=iter(range(0, 1000, 10)).__next__)
    view.get_issue(issue.number)
    assert view.list_comments(issue.number).comments == ()
    world.visitor.create_comment(issue.number, "posted after the read")
    assert [c.body for c in view.reread_comments(issue.number)] == ["posted after the read"]
    world.trusted.create_comment(issue.number, "and another")
    view.forget(issue.number)
    assert [c.body for c in view.list_comments(issue.number).comments] == [
        "posted after the read",
        "and another",
    ]


def _issue_with_pr(world: World, name: str) -> tuple[int, int]:
    """An issue and a PR from branch `name` with a review, a pending review (not the
    pipeline's) and a conversation comment by a trusted person."""
    issue = world.trusted.create_issue(name, "body")
    push_change(world, name, f"{name}.txt", "x\n")
    pr = world.pipeline.create_pr(name, world.default_branch, name, "body")
    world.trusted.create_review(pr.number, "Looks off", "REQUEST_CHANGES")
    world.trusted.create_review(pr.number, "Draft thoughts", None)
    world.trusted.create_comment(pr.number, "on the PR")
    return issue.number, pr.number


def test_the_branch_s_prs_come_with_their_reviews_and_comments(world: World) -> None:
    """With a branch, the same request answers its PR's reviews and comments as REST lists
    them for the pipeline (another's pending review unseen)."""
    issue, pr = _issue_with_pr(world, "thread-talk")
    thread = world.pipeline.read_issue_thread(issue, "thread-talk")
    assert [t.number for t in thread.pulls] == [pr]
    assert thread.pulls[0].reviews == world.pipeline.list_reviews(pr)
    assert [r.state for r in thread.pulls[0].reviews] == ["CHANGES_REQUESTED"]
    assert (
        tuple(replace(c, edits=None) for c in thread.pulls[0].comments)
        == world.pipeline.list_comments(pr).comments
    )
    assert world.pipeline.read_issue_thread(issue, "no-such-branch").pulls == ()


def test_the_job_s_first_feedback_read_is_its_start_read_only_moments_after_it(
    world: World,
) -> None:
    """Within `FIRST_REREAD_S` of the start read the PR's first review and comment reads make
    no request; a second read, or one later than that, asks the forge and sees what a person
    posted after the start read."""
    issue, pr = _issue_with_pr(world, "agent/issue-talk")
    clock = [0.0]
    view = JobForge(
        world.pipeline, clock=lambda: clock[0], issue_branch=lambda _n: "agent/issue-talk"
    )
    view.get_issue(issue)
    before = world.server.stats()["by_route"]
    assert isinstance(before, dict)
    world.trusted.create_review(pr, "One more thing", "COMMENT")
    assert [r.body for r in view.list_reviews(pr)] == ["Looks off"]
    assert [c.body for c in view.list_comments(pr).comments] == ["on the PR"]
    after = world.server.stats()["by_route"]
    assert isinstance(after, dict)
    reads = {k for k in after if k.startswith("GET ") or k == "POST /graphql"}
    assert {k: after[k] - before.get(k, 0) for k in reads if after[k] != before.get(k, 0)} == {}
    assert [r.body for r in view.list_reviews(pr)] == ["Looks off", "One more thing"]
    late = JobForge(
        world.pipeline, clock=lambda: clock[0], issue_branch=lambda _n: "agent/issue-talk"
    )
    late.get_issue(issue)
    world.trusted.create_comment(pr, "posted later")
    clock[0] = FIRST_REREAD_S
    assert [c.body for c in late.list_comments(pr).comments] == ["on the PR", "posted later"]


def test_the_guard_takes_the_start_read_s_head_only_moments_after_it(world: World) -> None:
    """The branch guard right after the start read makes no PR request; later it reads the
    PR and a person's push since the start read stops the issue (`ok` is False)."""
    issue = world.trusted.create_issue("Guarded", "body")
    branch = "agent/issue-guarded"
    recorded = push_change(world, branch, "guarded.txt", "x\n")
    pr = world.pipeline.create_pr(branch, world.default_branch, "Guarded", "body")
    clock = [0.0]
    view = JobForge(world.pipeline, clock=lambda: clock[0], issue_branch=lambda _n: branch)
    view.get_issue(issue.number)
    route = f"GET /repos/{world.repo}/pulls/N"
    before = world.server.stats()["by_route"]
    assert isinstance(before, dict)
    assert guard_branch(view, pr.number, branch, recorded).ok
    after = world.server.stats()["by_route"]
    assert isinstance(after, dict)
    assert after.get(route, 0) == before.get(route, 0)
    late = JobForge(world.pipeline, clock=lambda: clock[0], issue_branch=lambda _n: branch)
    late.get_issue(issue.number)
    push_change(world, branch, "guarded.txt", "a person's push\n", base=branch)
    clock[0] = FIRST_REREAD_S
    assert not guard_branch(late, pr.number, branch, recorded).ok
    last = world.server.stats()["by_route"]
    assert isinstance(last, dict)
    assert last[route] == after.get(route, 0) + 1  # the late guard asked the forge
