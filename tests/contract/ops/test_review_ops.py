"""prepare-review against real git, and review comments posted on the embedded forge's PR."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conveyor.core.signatures import Signature
from conveyor.git import Repo
from conveyor.ops.forge.findings import NoPullRequest, post_on_pr
from conveyor.ops.local.prepare_review import prepare_review
from tests.contract.ops.git_pr import open_pr
from tests.contract.ops.world import World


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` as a fixed identity and return its output."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()


def commit(repo: Path, name: str, text: str) -> str:
    """Write a file, commit it, and return the new head."""
    (repo / name).write_text(text)
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", f"edit {name}")
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def branch(tmp_path: Path) -> Path:
    """A repository whose `base` moved on after `agent/issue-1` left it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "base")
    commit(repo, "app.py", "x = 1\n")
    git(repo, "checkout", "-q", "-b", "agent/issue-1")
    commit(repo, "app.py", "x = 2\n")
    git(repo, "checkout", "-q", "base")
    commit(repo, "other.py", "y = 1\n")
    git(repo, "checkout", "-q", "agent/issue-1")
    return repo


def test_the_review_diff_is_the_change_since_the_merge_base_not_the_bases_new_commits(
    branch: Path, tmp_path: Path
) -> None:
    """REV-2: the base's later commits are not shown as the change's."""
    made = prepare_review(Repo(branch), "base", tmp_path / "out" / "review.diff")
    text = made.path.read_text()
    assert "+x = 2" in text
    assert "other.py" not in text
    assert (made.empty, made.head_sha) == (False, git(branch, "rev-parse", "HEAD"))
    assert made.paths == ("app.py",)


def test_a_gitattributes_the_change_adds_cannot_hide_lines_from_the_readers(
    branch: Path, tmp_path: Path
) -> None:
    """Issue 45: `*.py -diff` would show "Binary files differ"; the readers see the lines,
    after the facts of what the change does to the checks."""
    commit(branch, ".gitattributes", "*.py -diff\n")
    commit(branch, "app.py", "x = 2  # noqa\n")
    facts = "## What this change does to the checks\n- suppressions added: app.py:1"
    made = prepare_review(Repo(branch), "base", tmp_path / "review.diff", facts=facts)
    text = made.path.read_text()
    assert "+x = 2  # noqa" in text
    assert "Binary files" not in text
    assert text.index("# ## What this change does to the checks") < text.index("+x = 2")


def test_a_rereview_diff_holds_only_the_fix(branch: Path, tmp_path: Path) -> None:
    """FIX-2: base_sha..head."""
    reviewed = git(branch, "rev-parse", "HEAD")
    commit(branch, "app.py", "x = 3\n")
    made = prepare_review(Repo(branch), "base", tmp_path / "fix.diff", since=reviewed)
    text = made.path.read_text()
    assert "-x = 2" in text
    assert "+x = 3" in text
    assert "x = 1" not in text


def test_an_unchanged_branch_gives_an_empty_diff(branch: Path, tmp_path: Path) -> None:
    """REV-13: nothing to review is reported, not guessed."""
    head = git(branch, "rev-parse", "HEAD")
    assert prepare_review(Repo(branch), "base", tmp_path / "d.diff", since=head).empty


def test_each_reviewer_posts_its_own_signed_pr_comment_once_per_run(
    world: World, tmp_path: Path
) -> None:
    """REV-9, GH-11: signed by its role; running the step again does not post twice."""
    number = world.owner.create_issue("Fix it", "Please.").number
    pr = open_pr(world, number, tmp_path)
    ctx = world.ctx()
    scope = Signature("review", "scripted", "sonnet", "run1")
    for _ in range(2):
        post_on_pr(ctx, pr, "review-scope", "### Review: scope\n\nClean.", signature=scope)
    post_on_pr(ctx, pr, "nits", "### Nits\n\n- naming", signature=scope)
    bodies = [c.body for c in world.bot.list_comments(pr).comments]
    assert len(bodies) == 2
    assert bodies[0].startswith("**Conveyor · reviewer**")
    assert "kind=review-scope" in bodies[0]
    assert "### Nits" in bodies[1]
    assert world.bot.list_comments(number).comments == ()


def test_posted_review_text_is_redacted_of_the_token(world: World, tmp_path: Path) -> None:
    """Text quoting logs never carries the token."""
    number = world.owner.create_issue("Fix it", "Please.").number
    pr = open_pr(world, number, tmp_path)
    sig = Signature("fix", "scripted", "opus", "run1")
    post_on_pr(
        world.ctx(), pr, "fix-1", "log: ghp_secret123", signature=sig, secrets=["ghp_secret123"]
    )
    (comment,) = world.bot.list_comments(pr).comments
    assert "ghp_secret123" not in comment.body


def test_posting_without_a_pr_is_a_clear_error(world: World) -> None:
    """A review result needs the PR recorded in the state."""
    sig = Signature("review", "scripted", "opus", "run1")
    with pytest.raises(NoPullRequest, match="no pull request"):
        post_on_pr(world.ctx(), None, "review-tests", "x", signature=sig)
