"""Issue 13, point 7: `forge create-repo --from` imports a git repository faithfully."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conveyor.job.entry import conveyor_argv
from tests.e2e.realrepo.project import git_project

GIT = ["git", "-c", "user.name=p", "-c", "user.email=p@p", "-c", "core.hooksPath=/dev/null"]


def _source(tmp_path: Path) -> Path:
    """A project with a tracked file its .gitignore matches, a tag, and a second commit."""
    src = git_project(tmp_path / "calc", tag="v0.1")
    (src / "build").mkdir()
    (src / "build" / "data.txt").write_text("kept though ignored\n")
    subprocess.run([*GIT, "add", "-f", "build/data.txt"], cwd=src, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "Track a built file"], cwd=src, check=True)
    return src


def _create(data: Path, slug: str, *more: str) -> Path:
    done = subprocess.run(
        [*conveyor_argv(), "forge", "create-repo", "--data", str(data), slug, *more],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return data / "git" / f"{slug}.git"


def _git(bare: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=bare, capture_output=True, text=True, check=True
    ).stdout


def test_a_git_source_keeps_tracked_ignored_files_its_history_and_its_tags(
    tmp_path: Path,
) -> None:
    """Every tracked file (whatever .gitignore says), every commit and the tags in them."""
    src = _source(tmp_path)
    bare = _create(tmp_path / "forge", "acme/calc", "--from", str(src))
    files = _git(bare, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert "build/data.txt" in files
    assert len(_git(bare, "rev-list", "HEAD").split()) == 2
    assert _git(bare, "tag").split() == ["v0.1"]


def test_a_git_source_imports_one_commit_when_asked(tmp_path: Path) -> None:
    """`--one-commit --at REV` imports that commit's files as the only commit, without tags."""
    src = _source(tmp_path)
    bare = _create(tmp_path / "forge", "acme/one", "--from", str(src), "--one-commit")
    assert len(_git(bare, "rev-list", "HEAD").split()) == 1
    assert "build/data.txt" in _git(bare, "ls-tree", "-r", "--name-only", "HEAD").split()
    first = _create(tmp_path / "forge", "acme/first", "--from", str(src), "--at", "HEAD~1")
    assert "build/data.txt" not in _git(first, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert _git(first, "tag").split() == ["v0.1"]
