"""A request for the pipeline's review through the client, checked against GitHub's description:
the events name who asked whom (`review_requested`, `review_request_removed`), the PR and
its list carry the requested reviewers, and a review by the requested account answers it."""

from __future__ import annotations

import pytest

from conveyor.core.review_request import ReviewRequest, standing_request
from tests.contract.forge.conftest import PIPELINE, TRUSTED, World, push_change

pytestmark = pytest.mark.contract


def _person_pr(world: World, branch: str) -> int:
    """A PR the trusted person opened."""
    push_change(world, branch, "src/calc.py", "def add(a, b):\n    return a - b\n")
    return world.trusted.create_pr(branch, "main", f"Change {branch}", "Subtract.").number


def _requested(world: World, number: int) -> tuple[str, ...]:
    """The requested reviewers as `GET .../requested_reviewers` lists them."""
    owner, name = world.repo.split("/")
    answer = world.pipeline.kit.rest.pulls.list_requested_reviewers(owner, name, number)
    return tuple(user.login for user in answer.parsed_data.users)


def test_a_request_and_its_withdrawal_are_events_naming_who_asked_whom(world: World) -> None:
    """alice asks for the pipeline's review, withdraws it, asks again; the owner asks too: each
    change is an event with `actor` (who asked) and `requested_reviewer` (whom), oldest first."""
    number = _person_pr(world, "requests/events-1")
    world.trusted.request_reviewers(number, [PIPELINE])
    assert world.pipeline.get_pr(number).requested_reviewers == (PIPELINE,)
    assert _requested(world, number) == (PIPELINE,)
    listed = {p.number: p for p in world.pipeline.list_open_prs().pulls}[number]
    assert listed.requested == (PIPELINE,)
    world.trusted.remove_requested_reviewers(number, [PIPELINE])
    assert _requested(world, number) == ()
    world.trusted.request_reviewers(number, [PIPELINE])
    events = world.pipeline.list_review_requests(number)
    assert [(e.action, e.actor, e.reviewer) for e in events] == [
        ("requested", TRUSTED, PIPELINE),
        ("removed", TRUSTED, PIPELINE),
        ("requested", TRUSTED, PIPELINE),
    ]
    assert standing_request(events, PIPELINE) == ReviewRequest(TRUSTED, events[-1].id)


def test_asking_again_while_asked_and_withdrawing_an_absent_request_change_nothing(
    world: World,
) -> None:
    """A second request of a reviewer already asked, and the removal of one never asked, record
    no event (as on GitHub)."""
    number = _person_pr(world, "requests/idempotent-1")
    world.trusted.request_reviewers(number, [PIPELINE])
    world.admin.request_reviewers(number, [PIPELINE])
    world.admin.remove_requested_reviewers(number, [TRUSTED])
    events = world.pipeline.list_review_requests(number)
    assert [(e.action, e.actor) for e in events] == [("requested", TRUSTED)]


def test_a_review_by_the_requested_account_takes_it_off_the_requested_reviewers(
    world: World,
) -> None:
    """The pipeline reviews: it is no longer requested, and no `review_request_removed` event
    says so (GitHub records none); a request afterwards asks again."""
    number = _person_pr(world, "requests/answered-1")
    world.trusted.request_reviewers(number, [PIPELINE])
    world.pipeline.create_review(number, "Looked.", "COMMENT")
    assert _requested(world, number) == ()
    assert [e.action for e in world.pipeline.list_review_requests(number)] == ["requested"]
    world.trusted.request_reviewers(number, [PIPELINE])
    assert world.pipeline.get_pr(number).requested_reviewers == (PIPELINE,)
    assert [e.action for e in world.pipeline.list_review_requests(number)] == [
        "requested",
        "requested",
    ]


def test_label_events_and_review_requests_read_apart_from_one_event_list(world: World) -> None:
    """A label change and a request on one PR: each read sees only its own kind."""
    number = _person_pr(world, "requests/mixed-1")
    world.trusted.add_labels(number, ["review-requested"])
    world.trusted.request_reviewers(number, [PIPELINE])
    assert [e.label for e in world.pipeline.list_label_events(number)] == ["review-requested"]
    assert [e.reviewer for e in world.pipeline.list_review_requests(number)] == [PIPELINE]
