"""The snapshot cache against the embedded forge: an idle tick costs one request and no points."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conveyor.core.config import AccountConfig, Commands, Config
from conveyor.core.state import IssueState, Stage
from conveyor.core.state_codec import encode_state
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.github import GitHubForge, token_forge
from conveyor.forge.types import CommentPage
from conveyor.orchestrator.shell.snapshot_cache import ForgeSnapshot, build_snapshot
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore
from conveyor.testing.faults import FaultyForge

BOT = "snap-bot"
OWNER = "snap-owner"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
_repos = itertools.count(1)


class CommentReads(FaultyForge):
    """The real forge, noting each comment list read: its issue and whether it was a 304."""

    def __init__(self, inner: GitHubForge) -> None:
        super().__init__(inner)
        self.reads: list[tuple[int, bool]] = []

    def list_comments(self, number: int, etag: str | None = None) -> CommentPage:
        """Read through, and note the read."""
        page = super().list_comments(number, etag)
        self.reads.append((number, page.not_modified))
        return page


@dataclass
class Repo:
    """A fresh repository with three issues, the pipeline's account and a trusted owner."""

    server: ForgeServer
    bot: GitHubForge
    owner: GitHubForge
    config: Config
    cache: Path

    reads: CommentReads | None = None

    def build(self, now: datetime = NOW) -> tuple[ForgeSnapshot, dict[str, int]]:
        """One snapshot through a freshly opened cache, and what it cost on the forge."""
        before = self.server.stats()
        self.reads = CommentReads(self.bot)
        with SnapshotStore(self.cache, BOT) as store:
            snapshot = build_snapshot(self.reads, store, self.config, now)
        after = self.server.stats()
        return snapshot, {k: after[k] - before[k] for k in ("requests", "points")}


@pytest.fixture
def repo(forge_server: ForgeServer, tmp_path: Path) -> Iterator[Repo]:
    """Three open issues by the owner; #1 carries a state comment at the spec stage."""
    slug = f"snapcache/repo{next(_repos)}"
    src = tmp_path / "src"
    src.mkdir()
    (src / "README.md").write_text("sample\n")
    forge_server.create_repo(slug, src)
    for login in (BOT, OWNER):
        forge_server.add_collaborator(slug, login)
    bot = token_forge(slug, forge_server.add_user(BOT), base_url=forge_server.url)
    owner = token_forge(slug, forge_server.add_user(OWNER), base_url=forge_server.url)
    for n in range(3):
        owner.create_issue(f"issue {n + 1}", "please do it")
    bot.create_comment(1, encode_state(IssueState(stage=Stage.SPEC)))
    config = Config(
        repo=slug,
        account=AccountConfig(login=BOT, token_env="SNAP_TOKEN"),
        allowed_users=(OWNER,),
        commands=Commands(test="true"),
    )
    yield Repo(forge_server, bot, owner, config, tmp_path / "home" / CACHE_FILE)
    bot.close()
    owner.close()


def _stages(snapshot: ForgeSnapshot) -> dict[int, Stage | None]:
    return {e.issue.number: e.state.stage if e.state else None for e in snapshot.issues}


def test_an_idle_build_is_one_request_and_no_points_even_after_a_restart(repo: Repo) -> None:
    """With nothing changed, each build (each with the cache file reopened) is one 304."""
    first, _ = repo.build()
    assert _stages(first) == {1: Stage.SPEC, 2: None, 3: None}
    for _ in range(2):
        idle, cost = repo.build(NOW + timedelta(minutes=1))
        assert cost == {"requests": 1, "points": 0}
        assert idle.not_modified
        assert _stages(idle) == {1: Stage.SPEC, 2: None, 3: None}


def test_only_the_changed_issue_has_its_comments_read_again(repo: Repo) -> None:
    """A new comment on #2 costs points for the list and #2's comments only.

    Another issue's comments are asked again only when it was updated in the
    same second as the last read (timestamps have whole seconds), and then
    conditionally: the answer is a 304 and costs no point.
    """
    repo.build()
    repo.owner.create_comment(2, "one more thing")
    changed, cost = repo.build()
    assert changed.reread == {2}
    assert cost["points"] == 2
    assert repo.reads is not None
    assert [n for n, not_modified in repo.reads.reads if not not_modified] == [2]
    assert cost["requests"] == 1 + len(repo.reads.reads)
    assert [c.author for c in _entry(changed, 2).comments] == [OWNER]


def test_a_new_state_comment_is_decoded_on_the_next_build(repo: Repo) -> None:
    """The account saving a state on #3 shows in the next snapshot."""
    repo.build()
    repo.bot.create_comment(3, encode_state(IssueState(stage=Stage.REVIEW)))
    snapshot, _ = repo.build()
    assert _stages(snapshot) == {1: Stage.SPEC, 2: None, 3: Stage.REVIEW}


def test_a_label_change_alone_rereads_comments_conditionally(repo: Repo) -> None:
    """A label bumps `updated_at`; the comment list answers 304 and the state is kept."""
    repo.build()
    repo.bot.add_labels(1, ["agent:working"])
    snapshot, cost = repo.build()
    assert cost["points"] == 1
    assert _entry(snapshot, 1).issue.labels == ("agent:working",)
    assert _stages(snapshot)[1] is Stage.SPEC


def test_a_closed_issue_leaves_the_snapshot(repo: Repo) -> None:
    """Closing #2 removes it from the next snapshot and from the cache."""
    repo.build()
    repo.owner.close_issue(2)
    snapshot, _ = repo.build()
    assert sorted(e.issue.number for e in snapshot.issues) == [1, 3]
    idle, cost = repo.build()
    assert cost["requests"] == 1
    assert sorted(e.issue.number for e in idle.issues) == [1, 3]


def test_who_am_i_and_collaborators_are_asked_again_after_ten_minutes(repo: Repo) -> None:
    """Within ten minutes the answers come from the cache; after, the forge is asked again."""
    first, _ = repo.build()
    assert first.acting_as == BOT
    assert first.trust.user(OWNER)
    _, soon = repo.build(NOW + timedelta(minutes=9))
    _, later = repo.build(NOW + timedelta(minutes=11))
    assert soon["requests"] == 1
    assert later["requests"] == 3  # the list, who-am-I, one allowed user


def _entry(snapshot: ForgeSnapshot, number: int) -> Any:
    return next(e for e in snapshot.issues if e.issue.number == number)


def test_a_forged_state_is_ignored_and_a_broken_one_is_reported(repo: Repo) -> None:
    """The owner's state-looking comment is not the state; the account's broken one is a problem."""
    repo.owner.create_comment(2, encode_state(IssueState(stage=Stage.MERGE)))
    repo.bot.create_comment(3, "<!-- conveyor:state v=1 -->\n<!--\n!!!\n-->")
    snapshot, _ = repo.build()
    assert _entry(snapshot, 2).state is None
    broken = _entry(snapshot, 3)
    assert (broken.state, broken.state_problem) == (None, "undecodable")
