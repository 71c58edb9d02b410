"""sync-base and finish-sync against real git and the embedded forge, with a real conflict."""

from __future__ import annotations

import subprocess

from conveyor.git import rev_parse
from conveyor.git.rebase import rebase_in_progress
from conveyor.ops.finish_sync import finish_sync
from conveyor.ops.sync_base import refresh_remote_refs, restore_branch, sync_base
from tests.contract.ops_back.backworld import BRANCH, Back, git


def _refresh(back: Back) -> None:
    refresh_remote_refs(back.work, back.home / "cache.git", back.url)


def _continue(back: Back) -> None:
    subprocess.run(
        ["git", "-c", "core.editor=true", "rebase", "--continue"],
        cwd=back.work.path,
        check=True,
        capture_output=True,
        env={**back.work.env.variables(), "GIT_EDITOR": "true"},
    )


def _conflicted(back: Back) -> None:
    back.branch_and_pr({"app.py": "x = 1\ny = 20\nz = 3\n"})
    back.person_push("main", {"app.py": "x = 1\ny = 200\nz = 3\n"}, "Change y on main")
    _refresh(back)


def test_a_conflicting_rebase_is_left_stopped_with_its_paths(back: Back) -> None:
    """SYNC-2: the conflict stays in the work tree for the resolver, naming app.py."""
    _conflicted(back)
    done = sync_base(back.work, "main")
    assert done.outcome == "conflict"
    assert done.conflicts == ("app.py",)
    assert rebase_in_progress(back.work)
    assert "<<<<<<<" in (back.work.path / "app.py").read_text()


def test_finish_sync_refuses_an_unfinished_rebase_and_pushes_a_resolved_one(back: Back) -> None:
    """SYNC-3: not pushed while stopped; once resolved, pushed with lease onto the current base."""
    _conflicted(back)
    sync_base(back.work, "main")
    stopped = finish_sync(back.work, back.push, base="main", branch=BRANCH)
    assert not stopped.ok
    assert "still stopped" in stopped.findings[0]
    (back.work.path / "app.py").write_text("x = 1\ny = 220\nz = 3\n")
    git(back.work.path, "add", "app.py")
    _continue(back)
    done = finish_sync(back.work, back.push, base="main", branch=BRANCH)
    assert done.ok, done.findings
    branch = back.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == done.head_sha == rev_parse(back.work, "HEAD")
    main = back.bot.get_branch("main")
    assert main is not None
    assert git(back.work.path, "merge-base", "--is-ancestor", main.sha, done.head_sha) == ""


def test_finish_sync_names_a_committed_conflict_marker(back: Back) -> None:
    """SYNC-3: markers committed by the resolver are refused with their place."""
    _conflicted(back)
    sync_base(back.work, "main")
    git(back.work.path, "add", "app.py")
    _continue(back)
    done = finish_sync(back.work, back.push, base="main", branch=BRANCH)
    assert not done.ok
    assert any(f.startswith("app.py:") and "marker" in f for f in done.findings)
    assert back.bot.get_branch(BRANCH) is not None


def test_a_clean_rebase_is_pushed_with_lease_and_refused_when_someone_pushed_meanwhile(
    back: Back,
) -> None:
    """The lease is the branch as last fetched: a person's push in between is never overwritten."""
    back.branch_and_pr({"new.txt": "new\n"})
    back.person_push("main", {"other.txt": "other\n"}, "Move main on")
    _refresh(back)
    assert sync_base(back.work, "main").outcome == "clean"
    theirs = back.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    refused = finish_sync(back.work, back.push, base="main", branch=BRANCH)
    assert not refused.ok
    branch = back.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == theirs


def test_a_branch_already_on_the_base_is_up_to_date(back: Back) -> None:
    """No base movement: nothing to rebase, and finish-sync has nothing to push."""
    back.branch_and_pr({"new.txt": "new\n"})
    _refresh(back)
    head = rev_parse(back.work, "HEAD")
    assert sync_base(back.work, "main").outcome == "up-to-date"
    done = finish_sync(back.work, back.push, base="main", branch=BRANCH)
    assert done.ok
    assert done.head_sha == head


def test_restoring_the_branch_aborts_the_rebase_and_leaves_nothing_to_push(back: Back) -> None:
    """A resolver that gave up: the checkout is back at the pushed branch, no rebase stopped."""
    _conflicted(back)
    pushed = rev_parse(back.work, f"refs/remotes/origin/{BRANCH}")
    sync_base(back.work, "main")
    restore_branch(back.work, BRANCH)
    assert not rebase_in_progress(back.work)
    assert rev_parse(back.work, "HEAD") == pushed
    assert "<<<<<<<" not in (back.work.path / "app.py").read_text()
