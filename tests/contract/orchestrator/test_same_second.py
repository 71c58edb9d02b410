"""The snapshot cache and the second of the last read: an edit the issue list cannot show."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from conveyor.cli.config_load import load_config
from conveyor.core.state import IssueState, Stage
from conveyor.core.state_codec import encode_state
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.types import IssuePage
from conveyor.orchestrator.shell.snapshot_cache import build_snapshot
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore
from conveyor.testing.faults import FaultyForge
from conveyor.testing.world import ACCOUNT, World


class SameSecondList(FaultyForge):
    """The real forge, except that the issue list answers 304 (as it does for an edit made in
    the same second as the last read: `updated_at` has whole seconds, so the body is the same).
    """

    def list_open_issues(self, etag: str | None = None) -> IssuePage:
        """Not modified, whatever changed."""
        return IssuePage((), etag, not_modified=True)


def _stage(world: World, store: SnapshotStore, forge: FaultyForge, when_s: float) -> Stage | None:
    config = load_config(world.config_path)
    issue = world.issue(1)
    snapshot = build_snapshot(forge, store, config, issue.updated_at + timedelta(seconds=when_s))
    states = {e.issue.number: e.state for e in snapshot.issues}
    state = states[1]
    return None if state is None else state.stage


def test_an_edit_in_the_second_of_the_last_read_is_seen_though_the_list_is_unchanged(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The state comment moves to spec right after a read: the next build still sees spec."""
    world = World.create(forge_server, tmp_path / "world", config={"commands": {"test": "true"}})
    world.open_issue("Add a total", "Sum it.")
    bot = world.forge_as(ACCOUNT)
    comment = bot.create_comment(1, encode_state(IssueState(stage=Stage.TRIAGE)))
    with SnapshotStore(tmp_path / CACHE_FILE, ACCOUNT) as store:
        assert _stage(world, store, FaultyForge(bot), 0.2) is Stage.TRIAGE
        bot.edit_comment(comment.id, encode_state(IssueState(stage=Stage.SPEC)), 1)
        assert _stage(world, store, SameSecondList(bot), 0.6) is Stage.SPEC


def test_once_a_second_has_passed_an_unchanged_list_is_the_only_request(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """Long after the last change, a 304 list means nothing is asked about any issue."""
    world = World.create(forge_server, tmp_path / "world", config={"commands": {"test": "true"}})
    world.open_issue("Add a total", "Sum it.")
    with SnapshotStore(tmp_path / CACHE_FILE, ACCOUNT) as store:
        _stage(world, store, FaultyForge(world.forge_as(ACCOUNT)), 5)
        before = forge_server.stats()
        _stage(world, store, FaultyForge(world.forge_as(ACCOUNT)), 60)
        after = forge_server.stats()
    # One request for the test's own look at the issue, one for the build's issue list.
    assert after["requests"] - before["requests"] == 2
    assert after["points"] - before["points"] == 1
