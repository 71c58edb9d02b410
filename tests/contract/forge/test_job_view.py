"""A job's forge view: repeated reads are answered from what it saw and wrote."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conveyor.forge.answers import AnswerFile
from conveyor.forge.job_view import JobForge
from conveyor.forge.types import LabelSpec
from tests.contract.forge.conftest import TRUSTED, VISITOR, World

pytestmark = pytest.mark.contract

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def requests(world: World, route: str) -> int:
    """How many requests the forge answered on `route` of this module's repository."""
    by_route = world.server.stats()["by_route"]
    assert isinstance(by_route, dict)
    method, _, path = route.partition(" ")
    return int(by_route.get(f"{method} /repos/{world.repo}{path}", 0))


def graphql_requests(world: World) -> int:
    """How many GraphQL requests the forge answered (any repository's)."""
    by_route = world.server.stats()["by_route"]
    assert isinstance(by_route, dict)
    return int(by_route.get("POST /graphql", 0))


def test_repeated_reads_ask_the_forge_once(world: World) -> None:
    """The first read of an issue takes its comments with it (one GraphQL request); the
    repeated reads of both make none."""
    issue = world.pipeline.create_issue("Read twice", "body")
    view = JobForge(world.pipeline)
    routes = ("GET /issues/N", "GET /issues/N/comments")
    before = (*(requests(world, r) for r in routes), graphql_requests(world))
    for _ in range(3):
        view.get_issue(issue.number)
        view.list_comments(issue.number)
    after = (*(requests(world, r) for r in routes), graphql_requests(world))
    assert tuple(a - b for a, b in zip(after, before, strict=True)) == (0, 0, 1)


def test_the_jobs_own_posts_edits_and_labels_show_in_its_view(world: World) -> None:
    """What the job writes is in what it reads next, exactly as the forge has it."""
    issue = world.pipeline.create_issue("Own writes", "body")
    view = JobForge(world.pipeline)
    view.list_comments(issue.number)
    view.get_issue(issue.number)
    posted = view.create_comment(issue.number, "first")
    view.edit_comment(posted.id, "edited", issue.number)
    view.add_labels(issue.number, ["agent:working"])
    kept = [c.body for c in view.list_comments(issue.number).comments]
    fresh = world.pipeline.list_comments(issue.number).comments
    assert kept == [c.body for c in fresh] == ["edited"]
    assert view.get_issue(issue.number).labels == ("agent:working",)
    view.remove_label(issue.number, "agent:working")
    assert view.get_issue(issue.number).labels == world.pipeline.get_issue(issue.number).labels


def test_forget_reads_other_peoples_comments_again(world: World) -> None:
    """After `forget`, a comment someone else posted meanwhile is seen."""
    issue = world.pipeline.create_issue("Forget", "body")
    view = JobForge(world.pipeline)
    assert view.list_comments(issue.number).comments == ()
    world.visitor.create_comment(issue.number, "a rival claim")
    assert view.list_comments(issue.number).comments == ()
    view.forget(issue.number)
    assert [c.author for c in view.list_comments(issue.number).comments] == [VISITOR]


def test_answers_are_shared_between_jobs_for_ten_minutes(world: World, tmp_path: Path) -> None:
    """A second job reuses the repository and collaborator answers; after ten minutes it asks."""
    clock = [NOW]
    answers = AnswerFile(tmp_path / "answers.json", lambda: clock[0])
    before = (requests(world, "GET "), requests(world, f"GET /collaborators/{TRUSTED}"))
    first = JobForge(world.pipeline, answers)
    assert first.is_collaborator(TRUSTED)
    info = first.repo_info()
    second = JobForge(world.pipeline, answers)
    assert (second.is_collaborator(TRUSTED), second.repo_info()) == (True, info)
    middle = (requests(world, "GET "), requests(world, f"GET /collaborators/{TRUSTED}"))
    assert (middle[0] - before[0], middle[1] - before[1]) == (1, 1)
    clock[0] = NOW + timedelta(minutes=10)
    third = JobForge(world.pipeline, answers)
    assert third.is_collaborator(TRUSTED)
    assert requests(world, f"GET /collaborators/{TRUSTED}") - middle[1] == 1


def test_an_unreadable_answer_file_is_asked_again(world: World, tmp_path: Path) -> None:
    """A damaged answers.json costs a request, never a wrong answer."""
    path = tmp_path / "answers.json"
    path.write_text("{not json")
    view = JobForge(world.pipeline, AnswerFile(path, lambda: NOW))
    assert view.is_collaborator(VISITOR) is False
    assert AnswerFile(path, lambda: NOW).get(f"collaborator:{VISITOR}") is False


def test_a_reread_returns_only_what_others_posted_and_costs_a_304_when_nothing_did(
    world: World,
) -> None:
    """The job's own posts are not news; someone else's comment is; no change answers 304."""
    issue = world.pipeline.create_issue("Reread", "body")
    view = JobForge(world.pipeline)
    view.list_comments(issue.number)
    assert view.reread_comments(issue.number) == ()
    view.create_comment(issue.number, "the job's own")
    assert view.reread_comments(issue.number) == ()
    posted = world.trusted.create_comment(issue.number, "a person's")
    assert [c.id for c in view.reread_comments(issue.number)] == [posted.id]
    assert [c.body for c in view.list_comments(issue.number).comments] == [
        "the job's own",
        "a person's",
    ]
    before = world.server.stats()["by_status"]
    assert view.reread_comments(issue.number) == ()
    after = world.server.stats()["by_status"]
    assert isinstance(before, dict)
    assert isinstance(after, dict)
    assert int(after.get("304", 0)) == int(before.get("304", 0)) + 1


def test_the_first_reread_right_after_the_jobs_read_asks_nothing_and_the_next_asks(
    world: World,
) -> None:
    """Before a job's first session the claim's read, seconds old, is the reread; the
    reread before a later session reads the forge and sees what someone posted."""
    issue = world.pipeline.create_issue("First reread", "body")
    clock = [100.0]
    view = JobForge(world.pipeline, clock=lambda: clock[0])
    view.list_comments(issue.number)
    before = requests(world, "GET /issues/N/comments")
    clock[0] += 1.0
    assert view.reread_comments(issue.number) == ()
    assert requests(world, "GET /issues/N/comments") == before
    posted = world.trusted.create_comment(issue.number, "while the session ran")
    assert [c.id for c in view.reread_comments(issue.number)] == [posted.id]
    assert requests(world, "GET /issues/N/comments") == before + 1


def test_a_first_reread_long_after_the_jobs_read_asks_the_forge(world: World) -> None:
    """A read older than the window (a long set-up before the session) is not trusted."""
    issue = world.pipeline.create_issue("Late reread", "body")
    clock = [100.0]
    view = JobForge(world.pipeline, clock=lambda: clock[0])
    view.list_comments(issue.number)
    posted = world.trusted.create_comment(issue.number, "during the set-up")
    clock[0] += 60.0
    assert [c.id for c in view.reread_comments(issue.number)] == [posted.id]


def test_labels_known_to_exist_are_not_created_again_for_ten_minutes(
    world: World, tmp_path: Path
) -> None:
    """A label one job made is known to the next job's view; a missing one costs one request."""
    clock = [NOW]
    answers = AnswerFile(tmp_path / "answers.json", lambda: clock[0])
    spec = LabelSpec(name="agent:bench-label", color="#112233", description="a label")
    before = (requests(world, "GET /labels"), requests(world, "POST /labels"))
    JobForge(world.pipeline, answers).ensure_labels([spec])
    JobForge(world.pipeline, answers).ensure_labels([spec])
    after = (requests(world, "GET /labels"), requests(world, "POST /labels"))
    assert (after[0] - before[0], after[1] - before[1]) == (0, 1)
    owner, name = world.repo.split("/")
    made = world.pipeline.kit.rest.issues.get_label(owner, name, spec.name)
    assert made.parsed_data.color == "112233"
    clock[0] = NOW + timedelta(minutes=10)
    JobForge(world.pipeline, answers).ensure_labels([spec])  # exists: answered, not made twice
    assert requests(world, "POST /labels") - after[1] == 1


def test_a_jobs_required_checks_are_read_once(world: World) -> None:
    """A CI wait's polls judge against the checks the job read at its first poll."""
    view = JobForge(world.pipeline)
    before = requests(world, "GET /branches/main/protection/required_status_checks")
    assert view.required_checks("main") == view.required_checks("main")
    assert requests(world, "GET /branches/main/protection/required_status_checks") == before + 1
