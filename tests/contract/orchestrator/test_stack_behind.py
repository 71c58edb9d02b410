"""STK-9 against the embedded forge and a real bare cache: a prerequisite's branch that lacks
the merge of another issue the follower waits on holds the follower."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conveyor.core.state import Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.orchestrator.shell.snapshot_store import SnapshotStore
from conveyor.orchestrator.shell.stack_facts import stack_behind
from conveyor.orchestrator.snapshot import IssueView
from tests.contract.ops_merge.merge_world import MergeWorld, git, make_merge_world

NOW = datetime.now(UTC)


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> Iterator[MergeWorld]:
    """A fresh repository on the session's embedded forge, with issue #1 open."""
    made = make_merge_world(forge_server, tmp_path / "repo")
    yield made
    made.bot.close()


def _views(p_head: str) -> tuple[IssueView, ...]:
    """P (#2) at checks on `p_head`, and #3 following both #1 (merged) and #2."""
    prereq = IssueView(number=2, created_at=NOW, stage=Stage.CHECKS, head=p_head)
    follower = IssueView(number=3, created_at=NOW, stage=Stage.TRIAGE, after=2, afters=(1, 2))
    return (prereq, follower)


def _behind(world: MergeWorld, tmp_path: Path, p_head: str) -> frozenset[int]:
    cache = tmp_path / "cache.git"
    if not cache.exists():
        git(tmp_path, "clone", "-q", "--bare", world.url, str(cache))
    git(cache, "fetch", "-q", "origin", "+refs/heads/*:refs/remotes/origin/*")
    with SnapshotStore(tmp_path / "snapshot.db", "conveyor-bot") as store:
        return stack_behind(
            world.bot, store, cache, _views(p_head), closed_unmerged=frozenset(), now=NOW
        )


def test_a_prerequisite_branch_without_the_other_merge_holds_the_follower(
    world: MergeWorld, tmp_path: Path
) -> None:
    """#1 merged after #2 left main: #3 is behind; once #2 is rebased onto it, it is not."""
    world.bot.create_issue("Second", "Two.")
    world.bot.create_issue("Third", "After #1 merges.\nAfter #2 merges.")
    git(world.work.path, "checkout", "-q", "-B", "agent/issue-2", "origin/main")
    (world.work.path / "two.py").write_text("two = 2\n")
    git(world.work.path, "add", "two.py")
    git(world.work.path, "commit", "-q", "-m", "Two")
    git(world.work.path, "push", "-q", "origin", "agent/issue-2:agent/issue-2")
    p_head = git(world.work.path, "rev-parse", "HEAD")
    first = world.branch_and_pr({"one.py": "one = 1\n"})
    world.bot.merge_pr(first, git(world.work.path, "rev-parse", "HEAD"), "First (#1)", "")
    assert _behind(world, tmp_path, p_head) == {3}
    git(world.work.path, "fetch", "-q", "origin")
    git(world.work.path, "checkout", "-q", "agent/issue-2")
    git(world.work.path, "rebase", "-q", "origin/main")
    git(world.work.path, "push", "-q", "-f", "origin", "agent/issue-2:agent/issue-2")
    rebased = git(world.work.path, "rev-parse", "HEAD")
    assert _behind(world, tmp_path, rebased) == frozenset()


def test_a_missing_cache_is_a_failed_read_and_holds_no_one(
    world: MergeWorld, tmp_path: Path
) -> None:
    """STK-9: a read that fails is treated as not behind."""
    with SnapshotStore(tmp_path / "snapshot.db", "conveyor-bot") as store:
        found = stack_behind(
            world.bot,
            store,
            tmp_path / "no-cache.git",
            _views("f" * 40),
            closed_unmerged=frozenset(),
            now=NOW,
        )
    assert found == frozenset()
