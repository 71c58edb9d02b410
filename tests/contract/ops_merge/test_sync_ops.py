"""sync-base and finish-sync against real git and the embedded forge, with a real conflict."""

from __future__ import annotations

import subprocess

from conveyor.git import rev_parse
from conveyor.git.rebase import rebase_in_progress
from conveyor.ops.local.finish_sync import finish_sync
from conveyor.ops.local.sync_base import refresh_remote_refs, restore_branch, sync_base
from tests.contract.ops_merge.merge_world import BRANCH, MergeWorld, git


def _refresh(world: MergeWorld) -> None:
    refresh_remote_refs(world.work, world.home / "cache.git", world.url)


def _continue(world: MergeWorld) -> None:
    subprocess.run(
        ["git", "-c", "core.editor=true", "rebase", "--continue"],
        cwd=world.work.path,
        check=True,
        capture_output=True,
        env={**world.work.env.variables(), "GIT_EDITOR": "true"},
    )


def _conflicted(world: MergeWorld) -> None:
    world.branch_and_pr({"app.py": "x = 1\ny = 20\nz = 3\n"})
    world.person_push("main", {"app.py": "x = 1\ny = 200\nz = 3\n"}, "Change y on main")
    _refresh(world)


def test_a_conflicting_rebase_is_left_stopped_with_its_paths(world: MergeWorld) -> None:
    """SYNC-2: the conflict stays in the work tree for the resolver, naming app.py."""
    _conflicted(world)
    done = sync_base(world.work, "main")
    assert done.outcome == "conflict"
    assert done.conflicts == ("app.py",)
    assert rebase_in_progress(world.work)
    assert "<<<<<<<" in (world.work.path / "app.py").read_text()


def test_finish_sync_refuses_an_unfinished_rebase_and_pushes_a_resolved_one(
    world: MergeWorld,
) -> None:
    """SYNC-3: not pushed while stopped; once resolved, pushed with lease onto the current base."""
    _conflicted(world)
    sync_base(world.work, "main")
    stopped = finish_sync(world.work, world.push, base="main", branch=BRANCH)
    assert not stopped.ok
    assert "still stopped" in stopped.findings[0]
    (world.work.path / "app.py").write_text("x = 1\ny = 220\nz = 3\n")
    git(world.work.path, "add", "app.py")
    _continue(world)
    done = finish_sync(world.work, world.push, base="main", branch=BRANCH)
    assert done.ok, done.findings
    branch = world.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == done.head_sha == rev_parse(world.work, "HEAD")
    main = world.bot.get_branch("main")
    assert main is not None
    assert git(world.work.path, "merge-base", "--is-ancestor", main.sha, done.head_sha) == ""


def test_finish_sync_names_a_committed_conflict_marker(world: MergeWorld) -> None:
    """SYNC-3: markers committed by the resolver are refused with their place."""
    _conflicted(world)
    sync_base(world.work, "main")
    git(world.work.path, "add", "app.py")
    _continue(world)
    done = finish_sync(world.work, world.push, base="main", branch=BRANCH)
    assert not done.ok
    assert any(f.startswith("app.py:") and "marker" in f for f in done.findings)
    assert world.bot.get_branch(BRANCH) is not None


def test_a_gitattributes_in_the_work_tree_hides_no_committed_conflict_marker(
    world: MergeWorld,
) -> None:
    """SYNC-3 against the resolver's own attributes: `*.py -diff`, left uncommitted in the work
    tree where git reads attributes, would show the commit's markers as "Binary files
    differ"; they are still named."""
    _conflicted(world)
    sync_base(world.work, "main")
    git(world.work.path, "add", "app.py")
    _continue(world)
    (world.work.path / ".gitattributes").write_text("*.py -diff\n")
    done = finish_sync(world.work, world.push, base="main", branch=BRANCH)
    assert not done.ok
    assert any(f.startswith("app.py:") and "marker" in f for f in done.findings)


def test_a_clean_rebase_is_pushed_with_lease_and_refused_when_someone_pushed_meanwhile(
    world: MergeWorld,
) -> None:
    """The lease is the branch as last fetched: a person's push in between is never overwritten."""
    world.branch_and_pr({"new.txt": "new\n"})
    world.person_push("main", {"other.txt": "other\n"}, "Move main on")
    _refresh(world)
    assert sync_base(world.work, "main").outcome == "clean"
    theirs = world.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    refused = finish_sync(world.work, world.push, base="main", branch=BRANCH)
    assert not refused.ok
    branch = world.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == theirs


def test_a_branch_already_on_the_base_is_up_to_date(world: MergeWorld) -> None:
    """No base movement: nothing to rebase, and finish-sync has nothing to push."""
    world.branch_and_pr({"new.txt": "new\n"})
    _refresh(world)
    head = rev_parse(world.work, "HEAD")
    assert sync_base(world.work, "main").outcome == "up-to-date"
    done = finish_sync(world.work, world.push, base="main", branch=BRANCH)
    assert done.ok
    assert done.head_sha == head


def test_restoring_the_branch_aborts_the_rebase_and_leaves_nothing_to_push(
    world: MergeWorld,
) -> None:
    """A resolver that gave up: the checkout is back at the pushed branch, no rebase stopped."""
    _conflicted(world)
    pushed = rev_parse(world.work, f"refs/remotes/origin/{BRANCH}")
    sync_base(world.work, "main")
    restore_branch(world.work, BRANCH)
    assert not rebase_in_progress(world.work)
    assert rev_parse(world.work, "HEAD") == pushed
    assert "<<<<<<<" not in (world.work.path / "app.py").read_text()
