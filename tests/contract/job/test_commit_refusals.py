"""The commit tool's refusals are values the control socket answers with, never raised."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conveyor.git import Repo
from conveyor.job.effects.push import CommitRefused, commit_paths
from conveyor.job.hub import JobHub

pytestmark = pytest.mark.contract


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """A real work tree with one commit."""
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=work, check=True)
    (work / "README.md").write_text("hello\n")
    made = Repo(work)
    assert not isinstance(commit_paths(made, ["README.md"], "Start", "spec"), CommitRefused)
    return made


def test_empty_outside_and_unchanged_paths_are_refused_with_the_reason(repo: Repo) -> None:
    """No paths, a path outside the checkout, and nothing changed each name what was wrong."""
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo.path, check=True, capture_output=True, text=True
    ).stdout.strip()
    assert commit_paths(repo, [], "x", "spec") == CommitRefused("commit needs at least one path")
    outside = commit_paths(repo, ["../elsewhere.txt"], "x", "spec")
    assert isinstance(outside, CommitRefused)
    assert outside.reason.startswith("refused: ")
    assert "../elsewhere.txt" in outside.reason
    unchanged = commit_paths(repo, ["README.md"], "x", "spec")
    assert unchanged == CommitRefused("nothing to commit in README.md")
    after = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo.path, check=True, capture_output=True, text=True
    ).stdout.strip()
    assert after == head


def test_the_control_socket_answers_a_refusal_as_an_error_and_a_commit_with_its_sha(
    repo: Repo,
) -> None:
    """`commit` over the hub: a refusal is `ok: false` with the reason, a commit its SHA."""
    hub = JobHub()
    hub.set_commit(lambda paths, message: commit_paths(repo, paths, message, "implementer"))
    handlers = hub.handlers()
    refused = handlers.answer({"op": "commit", "paths": ["README.md"], "message": "Again"})
    assert refused == {"ok": False, "error": "nothing to commit in README.md"}
    (repo.path / "NOTES.md").write_text("notes\n")
    done = handlers.answer({"op": "commit", "paths": ["NOTES.md"], "message": "Notes"})
    assert done["ok"] is True
    assert isinstance(done["sha"], str)
    assert len(done["sha"]) == 40
