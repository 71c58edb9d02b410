"""The embedded forge delivers signed webhooks in GitHub's shapes to a hook's URL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from githubkit.exception import RequestFailed
from githubkit.webhooks import parse, verify

from conveyor.forge.github import token_forge
from tests.contract.forge.conftest import (
    OWNER,
    PIPELINE,
    TRUSTED,
    World,
    git,
    push_change,
    write_sample,
)
from tests.contract.forge.webhook_receiver import Received, Receiver, payload_errors

pytestmark = pytest.mark.contract
SECRET = "s3cret-for-hooks"
EVENTS = ["issues", "issue_comment", "pull_request", "check_run"]
REVIEW_EVENTS = ["pull_request", "pull_request_review", "pull_request_review_comment", "status"]
SIX_LINES = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A recording receiver on loopback."""
    made = Receiver()
    yield made
    made.close()


def _hook(world: World, url: str, events: list[str] = EVENTS) -> int:
    config: Any = {"url": url, "content_type": "json", "secret": SECRET}
    answer = world.admin.kit.rest.repos.create_webhook(
        OWNER, world.repo.split("/")[1], config=config, events=events, active=True
    )
    return int(answer.parsed_data.id)


def _checked(got: Received, action: str | None) -> dict[str, Any]:
    """The payload, after its signature, its schema and githubkit's model are checked."""
    assert verify(SECRET, got.body, got.headers["x-hub-signature-256"])
    assert got.headers["content-type"] == "application/json"
    assert got.headers["x-github-delivery"]
    errors = payload_errors(got.event, action, got.payload)
    assert not errors, "\n".join(errors[:10])
    parse(got.event, got.body)
    return got.payload


def test_a_new_hook_is_pinged_and_shown_with_its_secret_masked(
    world: World, receiver: Receiver
) -> None:
    """GitHub pings a new hook; reading the hook never shows its secret."""
    hook_id = _hook(world, receiver.url)
    ping = _checked(receiver.one("ping"), None)
    assert ping["hook_id"] == hook_id
    assert ping["repository"]["full_name"] == world.repo
    shown = world.admin.kit.rest.repos.get_webhook(OWNER, world.repo.split("/")[1], hook_id)
    assert shown.parsed_data.config.secret == "********"
    receiver.wait("the ping's record", lambda: bool(_deliveries(world, hook_id)))
    assert [(d.event, d.status_code) for d in _deliveries(world, hook_id)] == [("ping", 200)]
    world.admin.kit.rest.repos.delete_webhook(OWNER, world.repo.split("/")[1], hook_id)


def _deliveries(world: World, hook_id: int) -> list[Any]:
    answer = world.admin.kit.rest.repos.list_webhook_deliveries(
        OWNER, world.repo.split("/")[1], hook_id
    )
    return list(answer.parsed_data)


def test_issue_comment_pr_and_check_events_arrive_in_githubs_shapes(
    world: World, receiver: Receiver
) -> None:
    """Each change sends its event and action, signed, matching GitHub's payload description."""
    hook_id = _hook(world, receiver.url)
    issue = world.trusted.create_issue("Hooked", "Body.")
    opened = _checked(receiver.one("issues", "opened"), "opened")
    assert (opened["issue"]["number"], opened["sender"]["login"]) == (issue.number, "alice")
    comment = world.trusted.create_comment(issue.number, "A trusted comment.")
    said = _checked(receiver.one("issue_comment", "created"), "created")
    assert (said["comment"]["id"], said["issue"]["number"]) == (comment.id, issue.number)
    world.trusted.edit_comment(comment.id, "Edited.")
    edited = _checked(receiver.one("issue_comment", "edited"), "edited")
    assert edited["changes"]["body"]["from"] == "A trusted comment."
    world.pipeline.add_labels(issue.number, ["agent:working"])
    labeled = _checked(receiver.one("issues", "labeled"), "labeled")
    assert labeled["label"]["name"] == "agent:working"
    world.pipeline.close_issue(issue.number)
    _checked(receiver.one("issues", "closed"), "closed")
    sha = push_change(world, "hooked/pr", "src/hooked.py", "H = 1\n")
    pr = world.pipeline.create_draft_pr("hooked/pr", "main", "Hooked PR", "Body.")
    assert _checked(receiver.one("pull_request", "opened"), "opened")["number"] == pr.number
    world.pipeline.mark_pr_ready(pr.number)
    _checked(receiver.one("pull_request", "ready_for_review"), "ready_for_review")
    run = world.pipeline.create_check_run(sha, "conveyor/verify", "in_progress")
    _checked(receiver.one("check_run", "created"), "created")
    world.pipeline.update_check_run(run.id, "completed", "success", "green")
    done = _checked(receiver.one("check_run", "completed"), "completed")
    assert done["check_run"]["conclusion"] == "success"
    world.admin.kit.rest.repos.delete_webhook(OWNER, world.repo.split("/")[1], hook_id)


def test_a_refusing_receiver_is_recorded_as_a_failed_delivery(world: World) -> None:
    """A 401 from the receiver shows in the hook's deliveries with its status code."""
    refusing = Receiver(status=401)
    try:
        hook_id = _hook(world, refusing.url)
        refusing.one("ping")
        refusing.wait("the record", lambda: bool(_deliveries(world, hook_id)))
        assert [d.status_code for d in _deliveries(world, hook_id)] == [401]
    finally:
        refusing.close()
    world.admin.kit.rest.repos.delete_webhook(OWNER, world.repo.split("/")[1], hook_id)


def test_only_admins_see_or_make_hooks(world: World, receiver: Receiver) -> None:
    """A writer's request for the hooks is answered 404, as GitHub hides them."""
    with pytest.raises(RequestFailed) as caught:
        world.trusted.kit.rest.repos.create_webhook(
            OWNER, world.repo.split("/")[1], config={"url": receiver.url}, events=EVENTS
        )
    assert caught.value.response.status_code == 404


def test_the_forges_own_ci_reports_its_check_run_by_webhook(
    world: World, receiver: Receiver, tmp_path: Path
) -> None:
    """A repository with a CI command: its `ci` run's completion is delivered as check_run."""
    slug = f"{OWNER}/webhooks-ci"
    created = world.server.create_repo(slug, write_sample(tmp_path / "src"), ci="true")
    admin = token_forge(
        slug, world.server.add_user(OWNER), base_url=world.server.url, transport=world.hook
    )
    config: Any = {"url": receiver.url, "content_type": "json", "secret": SECRET}
    admin.kit.rest.repos.create_webhook(OWNER, "webhooks-ci", config=config, events=["check_run"])
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "--quiet", created.clone_url, clone.name)
    git(clone, "checkout", "--quiet", "-b", "topic")
    (clone / "src" / "more.py").write_text("MORE = 1\n")
    git(clone, "add", "-A")
    git(clone, "commit", "--quiet", "-m", "More")
    git(clone, "push", "--quiet", "origin", "HEAD:refs/heads/topic")
    sha = git(clone, "rev-parse", "HEAD")
    admin.create_draft_pr("topic", created.default_branch, "More", "Body.")
    done = _checked(receiver.one("check_run", "completed"), "completed")
    assert (done["check_run"]["name"], done["check_run"]["head_sha"]) == ("ci", sha)
    assert done["check_run"]["conclusion"] == "success"
    admin.close()


def _all(receiver: Receiver, event: str, count: int) -> list[dict[str, Any]]:
    """The first `count` deliveries of `event`, each checked, waiting for them."""
    receiver.wait(f"{count} {event}", lambda: len(_of(receiver, event)) >= count)
    return [_checked(got, got.payload.get("action")) for got in _of(receiver, event)[:count]]


def _of(receiver: Receiver, event: str) -> list[Received]:
    return [got for got in list(receiver.got) if got.event == event]


def test_reviews_review_comments_pushes_and_statuses_arrive_in_githubs_shapes(
    world: World, receiver: Receiver
) -> None:
    """A review, a lone review comment, a push to the PR's head and a commit status each
    send GitHub's event; a pending review sends none (deliveries leave in order)."""
    hook_id = _hook(world, receiver.url, REVIEW_EVENTS)
    first = push_change(world, "hooked/review", "src/six.py", SIX_LINES)
    pr = world.pipeline.create_draft_pr("hooked/review", "main", "Six lines", "Body.")
    inline = ("src/six.py", 5, "Call it `second`.")
    review = world.trusted.create_review(pr.number, "Rename it.", "REQUEST_CHANGES", [inline])
    (said,) = _all(receiver, "pull_request_review_comment", 1)
    assert (said["comment"]["body"], said["comment"]["line"]) == ("Call it `second`.", 5)
    assert said["comment"]["position"] == 5  # the fifth line below the file's `@@` header
    assert (said["pull_request"]["number"], said["sender"]["login"]) == (pr.number, "alice")
    (submitted,) = _all(receiver, "pull_request_review", 1)
    assert submitted["review"]["id"] == review.id
    assert (submitted["review"]["state"], submitted["action"]) == ("changes_requested", "submitted")
    world.visitor.create_review_comment(
        pr.number, "Why two?", commit_id=first, path="src/six.py", line=2
    )
    lone = _all(receiver, "pull_request_review", 2)[1]
    assert (lone["review"]["state"], lone["review"]["body"]) == ("commented", None)
    assert lone["sender"]["login"] == "mallory"
    world.trusted.create_review(pr.number, "Still thinking.", None)
    second = push_change(world, "hooked/review", "src/six.py", "ONE = 1\n", base="hooked/review")
    (moved,) = _all(receiver, "pull_request", 2)[1:]
    assert (moved["action"], moved["before"], moved["after"]) == ("synchronize", first, second)
    assert moved["pull_request"]["head"]["sha"] == second
    assert moved["sender"]["login"] == "conveyor-bot"  # git pushes: the PR's author
    assert len(_of(receiver, "pull_request_review")) == 2  # the pending review sent nothing
    world.admin.kit.rest.repos.create_commit_status(
        OWNER, world.repo.split("/")[1], second, data={"state": "success", "context": "lint"}
    )
    (status,) = _all(receiver, "status", 1)
    assert (status["sha"], status["state"], status["context"]) == (second, "success", "lint")
    assert [b["name"] for b in status["branches"]] == ["hooked/review"]
    world.admin.kit.rest.repos.delete_webhook(OWNER, world.repo.split("/")[1], hook_id)


def test_a_review_request_and_its_withdrawal_arrive_in_githubs_shapes(
    world: World, receiver: Receiver
) -> None:
    """alice asks the pipeline for a review and withdraws it: `pull_request` with
    `review_requested` then `review_request_removed`, each naming the reviewer."""
    hook_id = _hook(world, receiver.url, ["pull_request"])
    push_change(world, "hooked/request", "src/asked.py", "A = 1\n")
    pr = world.trusted.create_pr("hooked/request", "main", "Asked PR", "Body.")
    world.trusted.request_reviewers(pr.number, [PIPELINE])
    asked = _checked(receiver.one("pull_request", "review_requested"), "review_requested")
    assert (asked["number"], asked["requested_reviewer"]["login"]) == (pr.number, PIPELINE)
    assert [u["login"] for u in asked["pull_request"]["requested_reviewers"]] == [PIPELINE]
    assert asked["sender"]["login"] == TRUSTED
    world.trusted.remove_requested_reviewers(pr.number, [PIPELINE])
    gone = _checked(
        receiver.one("pull_request", "review_request_removed"), "review_request_removed"
    )
    assert gone["requested_reviewer"]["login"] == PIPELINE
    world.admin.kit.rest.repos.delete_webhook(OWNER, world.repo.split("/")[1], hook_id)
