"""Who asked for a review of a person's PR, as the tick reads it: a label an untrusted person
removed and added again in the second of the last read is not credited to the trusted
person who added it before them."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from conveyor.cli.config_load import load_config
from conveyor.core.trust import Trust
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.pr_types import PullPage
from conveyor.orchestrator.people import PullView
from conveyor.orchestrator.shell.people_poll import people_pulls
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore
from conveyor.testing.faults import FaultyForge
from conveyor.testing.world import ACCOUNT, TRUSTED, VISITOR, World
from tests.e2e.people.helpers import LABEL, person_pr

TRUST = Trust(ACCOUNT, frozenset({TRUSTED}))


class SameSecondList(FaultyForge):
    """The real forge, except that the open PR list answers 304, as it does for a change made
    in the same second as the last read (`updated_at` has whole seconds: the body is the same)."""

    def list_open_prs(self, etag: str | None = None) -> PullPage:
        """Not modified, whatever changed."""
        return PullPage((), etag, not_modified=True)


def _world(forge_server: ForgeServer, tmp_path: Path) -> tuple[World, int]:
    """alice's PR, labelled by alice; mallory a collaborator with write access."""
    world = World.create(forge_server, tmp_path / "world", config={"pr_reviews": {"label": LABEL}})
    world.server.add_collaborator(world.repo, VISITOR, "write")
    pr = person_pr(world, tmp_path, "Title-case labels")
    world.forge_as(TRUSTED).add_labels(pr.number, [LABEL])
    return world, pr.number


def _view(world: World, store: SnapshotStore, forge: FaultyForge, after_s: float) -> PullView:
    """The PR as the tick sees it, `after_s` seconds past its last change."""
    (pull,) = world.forge_as(ACCOUNT).list_open_prs().pulls
    now = pull.updated_at + timedelta(seconds=after_s)
    config = load_config(world.config_path)
    (view,) = people_pulls(forge, store, config, TRUST, world.repo_home, now=now)
    return view


def test_a_label_re_added_by_an_untrusted_person_in_the_second_of_the_last_read_is_theirs(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The tick reads alice's label; in the same second mallory removes and adds it again and
    the list cannot show it: the next tick names mallory, not trusted."""
    world, number = _world(forge_server, tmp_path)
    bot = world.forge_as(ACCOUNT)
    with SnapshotStore(tmp_path / CACHE_FILE, ACCOUNT) as store:
        first = _view(world, store, FaultyForge(bot), 0.3)
        assert (first.requested_by, first.requester_trusted) == (TRUSTED, True)
        mallory = world.forge_as(VISITOR)
        mallory.remove_label(number, LABEL)
        mallory.add_labels(number, [LABEL])
        again = _view(world, store, SameSecondList(bot), 0.6)
    assert (again.requested_by, again.requester_trusted) == (VISITOR, False)


def test_once_settled_who_labelled_a_pr_is_not_asked_again(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Read long after the PR's last change, the requester is kept: the next tick asks the
    forge for the open PR list only."""
    world, _ = _world(forge_server, tmp_path)
    bot = world.forge_as(ACCOUNT)
    with SnapshotStore(tmp_path / CACHE_FILE, ACCOUNT) as store:
        _view(world, store, FaultyForge(bot), 120)
        before = forge_server.stats()
        view = _view(world, store, FaultyForge(bot), 180)
        after = forge_server.stats()
    assert view.requested_by == TRUSTED
    # The test's own look at the list, and the tick's conditional list (a 304).
    assert after["requests"] - before["requests"] == 2
