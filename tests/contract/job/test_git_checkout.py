"""The bare cache, the job's checkout, the push op and leftover rescue, with real git."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from conveyor.git import GitEnv, Identity, Repo, list_refs, rev_parse, run_git
from conveyor.git.checkout import (
    create_checkout,
    dirty_paths,
    install_checkout_hooks,
    update_cache,
    write_git_config,
)
from conveyor.git.rescue import find_unpushed, rescue_ref
from conveyor.git.token_push import PushAuth, push_ref, write_askpass

ENV = GitEnv(identity=Identity("Tester", "t@example.invalid"), date="1700000000 +0000")


def _remote(tmp_path: Path) -> tuple[Repo, str]:
    """A bare remote with `main` holding one commit; its file:// URL."""
    work = tmp_path / "seed"
    work.mkdir()
    run_git(["init", "--quiet", "--initial-branch=main"], cwd=work, env=ENV)
    (work / "a.txt").write_text("a\n")
    run_git(["add", "."], cwd=work, env=ENV)
    run_git(["commit", "--quiet", "-m", "first"], cwd=work, env=ENV)
    bare = tmp_path / "remote.git"
    run_git(["clone", "--quiet", "--bare", str(work), str(bare)], cwd=tmp_path, env=ENV)
    return Repo(bare, ENV), f"file://{bare}"


def _commit(repo: Repo, name: str) -> str:
    (repo.path / name).write_text(name)
    run_git(["add", name], cwd=repo.path, env=repo.env)
    run_git(["commit", "--quiet", "--no-verify", "-m", name], cwd=repo.path, env=repo.env)
    return rev_parse(repo, "HEAD")


def test_a_checkout_starts_at_the_issue_branch_or_the_base(tmp_path: Path) -> None:
    """Without a remote branch the checkout is at origin/main; later fetches see new branches."""
    remote, url = _remote(tmp_path)
    cache = update_cache(tmp_path / "cache.git", url, ENV)
    first = create_checkout(
        cache, tmp_path / "c1", url, branch="agent/issue-1", base="main", env=ENV
    )
    assert rev_parse(first, "HEAD") == rev_parse(remote, "refs/heads/main")
    assert list(list_refs(first, "refs/heads/")) == ["refs/heads/agent/issue-1"]
    origin = run_git(["remote", "get-url", "origin"], cwd=first.path, env=ENV).stdout.decode()
    assert origin.strip() == url
    work = create_checkout(cache, tmp_path / "w", url, branch="main", base="main", env=ENV)
    pushed = _commit(work, "b.txt")
    run_git(["push", "--quiet", url, "HEAD:refs/heads/agent/issue-1"], cwd=work.path, env=ENV)
    update_cache(tmp_path / "cache.git", url, ENV)
    second = create_checkout(
        cache, tmp_path / "c2", url, branch="agent/issue-1", base="main", env=ENV
    )
    assert rev_parse(second, "HEAD") == pushed


def test_the_push_op_passes_the_hook_and_never_writes_the_token(tmp_path: Path) -> None:
    """Only a push carrying the job's nonce gets through; the token stays out of the checkout."""
    remote, url = _remote(tmp_path)
    config = write_git_config(tmp_path / "gitconfig", Identity("Bot", "bot@x.invalid"))
    env = GitEnv(config_global=config, identity=Identity("Bot", "bot@x.invalid"))
    cache = update_cache(tmp_path / "cache.git", url, env)
    repo = create_checkout(cache, tmp_path / "c", url, branch="agent/issue-2", base="main", env=env)
    install_checkout_hooks(repo, "nonce-123", "#!/bin/sh\nexit 0\n")
    sha = _commit(repo, "c.txt")
    auth = PushAuth(write_askpass(tmp_path / "askpass.sh"), "secret-token-xyz", "nonce-123")
    wrong = PushAuth(auth.askpass, auth.token, "other-nonce")
    refused = push_ref(repo, "origin", "HEAD", "refs/heads/agent/issue-2", wrong)
    assert not refused.ok
    done = push_ref(repo, "origin", "HEAD", "refs/heads/agent/issue-2", auth)
    assert done.ok, done.error
    assert rev_parse(remote, "refs/heads/agent/issue-2") == sha
    _commit(repo, "d.txt")
    again = push_ref(repo, "origin", "HEAD", "refs/heads/agent/issue-2", auth, lease="")
    assert not again.ok
    assert rev_parse(remote, "refs/heads/agent/issue-2") == sha
    for path in [*repo.path.rglob("*"), config]:
        if path.is_file():
            assert b"secret-token-xyz" not in path.read_bytes(), path


def test_a_leftovers_unpushed_commits_are_found_and_dirty_paths_listed(tmp_path: Path) -> None:
    """Commits neither the branch nor the base has are found; uncommitted paths are listed."""
    _, url = _remote(tmp_path)
    cache = update_cache(tmp_path / "cache.git", url, ENV)
    leftover = create_checkout(
        cache, tmp_path / "old", url, branch="agent/issue-3", base="main", env=ENV
    )
    sha = _commit(leftover, "d.txt")
    (leftover.path / "e.txt").write_text("new")
    (leftover.path / "a.txt").write_text("changed")
    assert dirty_paths(leftover) == ["a.txt", "e.txt"]
    fresh = create_checkout(
        cache, tmp_path / "new", url, branch="agent/issue-3", base="main", env=ENV
    )
    refs = ("refs/remotes/origin/agent/issue-3", "refs/remotes/origin/main")
    found = find_unpushed(fresh, leftover.path, refs)
    assert found is not None
    assert (found.head, found.commits) == (sha, (sha,))
    assert find_unpushed(fresh, fresh.path, refs) is None
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert rescue_ref(3, moment) == "refs/conveyor/rescue/3/20260102T030405Z"
