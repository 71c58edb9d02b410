"""verify's plain git with real git: blobs at a commit, and throwaway worktrees removed whole."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conveyor.git import plain
from conveyor.git.plain import PlainGitError, Tree
from tests.contract.git.workrepo import WorkRepo


def _checkout(root: Path) -> tuple[Path, str]:
    """A repository with one commit; its path and that commit."""
    return root, WorkRepo.init(root).commit({"a.txt": "a\n"}, "a")


def _worktrees(checkout: Path) -> list[str]:
    listed = plain.git(Tree.of(checkout), "worktree", "list", "--porcelain").decode()
    return [line for line in listed.splitlines() if line.startswith("worktree ")]


def test_a_worktree_is_at_its_commit_and_gone_with_its_record_after_removal(
    tmp_path: Path,
) -> None:
    """The worktree holds the commit's files; afterwards git lists only the checkout."""
    checkout, sha = _checkout(tmp_path / "repo")
    where = tmp_path / "tree"
    tree = plain.add_worktree(Tree.of(checkout), where, sha)
    assert (where / "a.txt").read_text() == "a\n"
    assert plain.head(tree) == sha
    assert len(_worktrees(checkout)) == 2
    plain.remove_worktree(Tree.of(checkout), where)
    assert not where.exists()
    assert _worktrees(checkout) == [f"worktree {checkout}"]


def test_a_half_gone_worktree_leaves_no_record_and_a_half_made_one_no_folder(
    tmp_path: Path,
) -> None:
    """A worktree whose folder a crash deleted leaves no record; a folder git never recorded
    (a crash before `worktree add` wrote it) is deleted: the same place takes a worktree again."""
    checkout, sha = _checkout(tmp_path / "repo")
    where = tmp_path / "tree"
    plain.add_worktree(Tree.of(checkout), where, sha)
    shutil.rmtree(where)
    plain.remove_worktree(Tree.of(checkout), where)
    assert _worktrees(checkout) == [f"worktree {checkout}"]
    where.mkdir()
    (where / "left.txt").write_text("half made\n")
    plain.remove_worktree(Tree.of(checkout), where)
    assert not where.exists()
    plain.add_worktree(Tree.of(checkout), where, sha)
    assert (where / "a.txt").is_file()


def _commit_files(checkout: Path, files: dict[str, bytes]) -> str:
    """Write `files` as bytes (WorkRepo writes text) and commit them; the new commit."""
    for name, data in files.items():
        path = checkout / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return WorkRepo(checkout).commit({}, "files")


def test_a_blob_is_read_exactly_or_is_none_where_the_commit_lacks_the_path(
    tmp_path: Path,
) -> None:
    """Bytes as committed (binary, spaces, a newline in the name); None for a missing path."""
    checkout, first = _checkout(tmp_path / "repo")
    files = {
        "pkg/mod.py": b"print('x')\n",
        "with space.txt": b"spaced\n",
        "bin.dat": bytes(range(256)) * 3,
        "empty": b"",
        "new\nline.txt": b"odd name\n",
    }
    sha = _commit_files(checkout, files)
    for name, data in files.items():
        assert plain.blob(Tree.of(checkout), sha, name) == data, name
    assert plain.blob(Tree.of(checkout), sha, "no/such.py") is None
    assert plain.blob(Tree.of(checkout), first, "pkg/mod.py") is None
    assert plain.blob(Tree.of(checkout), "HEAD", "empty") == b""  # a revision, not a SHA: not kept


def test_a_blob_of_an_unknown_commit_is_an_error_and_of_a_folder_no_file(tmp_path: Path) -> None:
    """Not None: a commit the checkout lacks fails loudly. A path naming a folder holds no
    file (a change may turn a file, a link or a test into a folder: the readers of its
    paths then see no file there, and verify goes on)."""
    checkout, _ = _checkout(tmp_path / "repo")
    sha = _commit_files(checkout, {"pkg/mod.py": b"x\n", "odd\nname/f": b"y\n"})
    with pytest.raises(PlainGitError):
        plain.blob(Tree.of(checkout), "0" * 40, "pkg/mod.py")
    assert plain.blob(Tree.of(checkout), sha, "pkg") is None
    assert plain.blob(Tree.of(checkout), sha, "odd\nname") is None
    assert plain.blob(Tree.of(checkout), sha, "odd\nname/f") == b"y\n"
