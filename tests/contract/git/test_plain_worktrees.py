"""verify's throwaway worktrees, with real git: made at a commit, and removed without a trace."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from conveyor.git import plain


def _checkout(root: Path) -> tuple[Path, str]:
    """A repository with one commit; its path and that commit."""
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    ident = ["-c", "user.name=t", "-c", "user.email=t@t"]
    for argv in (["init", "-q", "-b", "main"], ["add", "."], [*ident, "commit", "-q", "-m", "a"]):
        subprocess.run(["git", *argv], cwd=root, check=True, capture_output=True)
    return root, plain.head(root)


def _worktrees(checkout: Path) -> list[str]:
    done = subprocess.run(
        ["git", "worktree", "list", "--porcelain"],
        cwd=checkout,
        check=True,
        capture_output=True,
        text=True,
    )
    return [line for line in done.stdout.splitlines() if line.startswith("worktree ")]


def test_a_worktree_is_at_its_commit_and_gone_with_its_record_after_removal(
    tmp_path: Path,
) -> None:
    """The worktree holds the commit's files; afterwards git lists only the checkout."""
    checkout, sha = _checkout(tmp_path / "repo")
    where = tmp_path / "tree"
    plain.add_worktree(checkout, where, sha)
    assert (where / "a.txt").read_text() == "a\n"
    assert plain.head(where) == sha
    assert len(_worktrees(checkout)) == 2
    plain.remove_worktree(checkout, where)
    assert not where.exists()
    assert _worktrees(checkout) == [f"worktree {checkout}"]


def test_a_half_gone_worktree_leaves_no_record_and_a_half_made_one_no_folder(
    tmp_path: Path,
) -> None:
    """A worktree whose folder a crash deleted leaves no record; a folder git never recorded
    (a crash before `worktree add` wrote it) is deleted: the same place takes a worktree again."""
    checkout, sha = _checkout(tmp_path / "repo")
    where = tmp_path / "tree"
    plain.add_worktree(checkout, where, sha)
    shutil.rmtree(where)
    plain.remove_worktree(checkout, where)
    assert _worktrees(checkout) == [f"worktree {checkout}"]
    where.mkdir()
    (where / "left.txt").write_text("half made\n")
    plain.remove_worktree(checkout, where)
    assert not where.exists()
    plain.add_worktree(checkout, where, sha)
    assert (where / "a.txt").is_file()
