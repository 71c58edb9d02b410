"""`discard`: a job's checkout leaves its place at once and is deleted in the background."""

from __future__ import annotations

import time
from pathlib import Path

from conveyor.job.finish import TRASH, discard


def _tree(root: Path) -> Path:
    """A checkout-shaped folder: nested files, a read-only one, a symlink out of it."""
    (root / "pkg" / "sub").mkdir(parents=True)
    for n in range(50):
        (root / "pkg" / "sub" / f"f{n}.py").write_text("x = 1\n")
    (root / "locked.txt").write_text("kept?")
    (root / "locked.txt").chmod(0o400)
    (root / "out").symlink_to(root.parent / "outside.txt")
    return root


def _emptied(trash: Path, timeout: float = 60.0) -> bool:
    """Whether the trash folder empties within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while any(trash.iterdir()):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_discarded_folder_is_gone_at_once_and_deleted_soon_after(tmp_path: Path) -> None:
    """The folder is not where it was when `discard` returns; the trash then empties, and
    what a symlink inside pointed to is untouched."""
    home = tmp_path / "home"
    home.mkdir()
    (tmp_path / "outside.txt").write_text("not the job's")
    repo = _tree(home / "jobs" / "issue-1-spec-x" / "repo")
    discard(repo, home)
    assert not repo.exists()
    assert repo.parent.is_dir()
    assert _emptied(home / TRASH)
    assert (tmp_path / "outside.txt").read_text() == "not the job's"


def test_a_leftover_in_the_trash_is_swept_with_the_next_discard(tmp_path: Path) -> None:
    """What an interrupted deletion left in the trash goes with the next job's checkout."""
    home = tmp_path / "home"
    left = _tree(home / TRASH / "issue-1-triage-x-repo-0000")
    discard(_tree(home / "jobs" / "issue-1-spec-x" / "repo"), home)
    assert _emptied(home / TRASH)
    assert not left.exists()


def test_a_missing_folder_is_nothing_to_discard(tmp_path: Path) -> None:
    """No checkout (a job that failed before making one): no trash folder appears."""
    discard(tmp_path / "jobs" / "issue-1-spec-x" / "repo", tmp_path)
    assert not (tmp_path / TRASH).exists()
