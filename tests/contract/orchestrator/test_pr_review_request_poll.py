"""What the tick asks the forge to learn who requested the account's review: nothing more than
the open PR list without `on_request` or without a request naming the account, one events
read for a PR that names it, and nothing more once its answer has settled."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

from conveyor.cli.config_load import load_config
from conveyor.core.review_request import ReviewRequest
from conveyor.core.trust import Trust
from conveyor.emulator.app.server import ForgeServer
from conveyor.orchestrator.people import PullView
from conveyor.orchestrator.shell.people_poll import people_pulls
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore
from conveyor.testing.world import ACCOUNT, TRUSTED, VISITOR, World
from tests.e2e.people.helpers import person_pr

TRUST = Trust(ACCOUNT, frozenset({TRUSTED}))


def _world(forge_server: ForgeServer, tmp_path: Path, settings: dict[str, Any]) -> World:
    world = World.create(forge_server, tmp_path / "world", config={"pr_reviews": settings})
    world.server.add_collaborator(world.repo, VISITOR, "write")
    return world


def _tick(world: World, store: SnapshotStore, after_s: float) -> tuple[tuple[PullView, ...], int]:
    """The PRs as one tick sees them `after_s` seconds past the last change, and how many
    requests the tick made."""
    (pull,) = world.forge_as(ACCOUNT).list_open_prs().pulls
    now = pull.updated_at + timedelta(seconds=after_s)
    config = load_config(world.config_path)
    before = world.server.stats()["requests"]
    views = people_pulls(world.forge_as(ACCOUNT), store, config, TRUST, world.repo_home, now=now)
    return views, world.server.stats()["requests"] - before


def test_without_on_request_a_requested_account_costs_no_request(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The label alone is configured; alice requests the account's review: the tick reads the
    open PR list and nothing else, and sees no request."""
    world = _world(forge_server, tmp_path, {"label": "review-requested"})
    pr = person_pr(world, tmp_path, "Title-case labels")
    world.forge_as(TRUSTED).request_reviewers(pr.number, [ACCOUNT])
    with SnapshotStore(tmp_path / CACHE_FILE, ACCOUNT) as store:
        (view,), asked = _tick(world, store, 120)
    assert view.asked is None
    assert asked == 1


def test_a_request_of_someone_else_costs_no_request(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """on_request, and alice asks mallory for a review: the list says it is not the account's."""
    world = _world(forge_server, tmp_path, {"on_request": True})
    pr = person_pr(world, tmp_path, "Title-case labels")
    world.forge_as(TRUSTED).request_reviewers(pr.number, [VISITOR])
    with SnapshotStore(tmp_path / CACHE_FILE, ACCOUNT) as store:
        (view,), asked = _tick(world, store, 120)
    assert view.asked is None
    assert asked == 1


def test_a_request_of_the_account_is_read_once_and_kept_once_settled(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """on_request and alice's request: the first tick reads the list and the events; a later
    tick asks only for the list (a 304) and keeps who asked."""
    world = _world(forge_server, tmp_path, {"on_request": True})
    pr = person_pr(world, tmp_path, "Title-case labels")
    world.forge_as(TRUSTED).request_reviewers(pr.number, [ACCOUNT])
    with SnapshotStore(tmp_path / CACHE_FILE, ACCOUNT) as store:
        (first,), asked = _tick(world, store, 120)
        assert (first.asked is not None, asked) == (True, 2)
        assert isinstance(first.asked, ReviewRequest)
        assert (first.asked.by, first.asker_trusted) == (TRUSTED, True)
        (again,), asked_again = _tick(world, store, 180)
    assert again.asked == first.asked
    assert asked_again == 1


def test_a_request_made_again_by_an_untrusted_person_in_the_same_second_is_theirs(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The tick reads alice's request; in the same second (the PR's `updated_at` cannot show
    it) alice withdraws and mallory asks: the next tick, the answer not settled yet, reads the
    events again and names mallory, not trusted."""
    world = _world(forge_server, tmp_path, {"on_request": True})
    pr = person_pr(world, tmp_path, "Title-case labels")
    alice = world.forge_as(TRUSTED)
    alice.request_reviewers(pr.number, [ACCOUNT])
    with SnapshotStore(tmp_path / CACHE_FILE, ACCOUNT) as store:
        (first,), _ = _tick(world, store, 0.3)
        assert first.asked is not None
        alice.remove_requested_reviewers(pr.number, [ACCOUNT])
        world.forge_as(VISITOR).request_reviewers(pr.number, [ACCOUNT])
        (again,), _ = _tick(world, store, 0.6)
    assert again.asked is not None
    assert (again.asked.by, again.asker_trusted) == (VISITOR, False)
