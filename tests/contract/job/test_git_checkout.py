"""The bare cache, the job's checkout, the push op and leftover rescue, with real git."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from conveyor.git import GitEnv, Identity, Repo, list_refs, rev_parse, run_git
from conveyor.git.agent_repo import agent_git, harvest
from conveyor.git.checkout import (
    agent_checkout,
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
    """A commit as the agent makes one, in its own repository; then taken into the keep."""
    (repo.path / name).write_text(name)
    agent_git(repo, "add", name)
    agent_git(repo, "commit", "--quiet", "-m", name)
    harvest(repo)
    return rev_parse(repo, "HEAD")


def test_a_checkout_starts_at_the_issue_branch_or_the_base(tmp_path: Path) -> None:
    """Without a remote branch the checkout is at origin/main; later fetches see new branches."""
    remote, url = _remote(tmp_path)
    cache = update_cache(tmp_path / "cache.git", url, ENV)
    first = agent_checkout(
        cache, tmp_path / "c1", url, branch="agent/issue-1", base="main", env=ENV
    )
    assert rev_parse(first, "HEAD") == rev_parse(remote, "refs/heads/main")
    assert list(list_refs(first, "refs/heads/")) == ["refs/heads/agent/issue-1"]
    origin = run_git(["remote", "get-url", "origin"], cwd=first.path, env=ENV).stdout.decode()
    assert origin.strip() == url
    work = agent_checkout(cache, tmp_path / "w", url, branch="main", base="main", env=ENV)
    pushed = _commit(work, "b.txt")
    run_git(["push", "--quiet", url, "HEAD:refs/heads/agent/issue-1"], cwd=work.path, env=ENV)
    update_cache(tmp_path / "cache.git", url, ENV)
    second = agent_checkout(
        cache, tmp_path / "c2", url, branch="agent/issue-1", base="main", env=ENV
    )
    assert rev_parse(second, "HEAD") == pushed


def test_the_push_op_pushes_from_the_keep_and_never_writes_the_token(tmp_path: Path) -> None:
    """The push op pushes the keep's commits; the agent's own push is refused by its pre-push
    hook (no nonce); the token stays out of the checkout and the keep."""
    remote, url = _remote(tmp_path)
    config = write_git_config(tmp_path / "gitconfig", Identity("Bot", "bot@x.invalid"))
    env = GitEnv(config_global=config, identity=Identity("Bot", "bot@x.invalid"))
    cache = update_cache(tmp_path / "cache.git", url, env)
    repo = agent_checkout(cache, tmp_path / "c", url, branch="agent/issue-2", base="main", env=env)
    install_checkout_hooks(repo, "nonce-123", "#!/bin/sh\nexit 0\n")
    sha = _commit(repo, "c.txt")
    auth = PushAuth(write_askpass(tmp_path / "askpass.sh"), "secret-token-xyz", "nonce-123")
    own = run_git(
        ["push", "--quiet", url, "HEAD:refs/heads/agent/issue-2"],
        cwd=repo.path,
        env=GitEnv(identity=env.identity),
        ok_codes=(0, 1),
    )
    assert own.returncode == 1
    assert b"go through the job's push op" in own.stderr
    done = push_ref(repo, url, "HEAD", "refs/heads/agent/issue-2", auth)
    assert done.ok, done.error
    assert rev_parse(remote, "refs/heads/agent/issue-2") == sha
    _commit(repo, "d.txt")
    again = push_ref(repo, url, "HEAD", "refs/heads/agent/issue-2", auth, lease="")
    assert not again.ok
    assert rev_parse(remote, "refs/heads/agent/issue-2") == sha
    for path in [*repo.path.rglob("*"), *repo.git_dir.rglob("*"), config]:
        if path.is_file():
            assert b"secret-token-xyz" not in path.read_bytes(), path


def test_a_leftovers_unpushed_commits_are_found_and_dirty_paths_listed(tmp_path: Path) -> None:
    """Commits neither the branch nor the base has are found; uncommitted paths are listed."""
    _, url = _remote(tmp_path)
    cache = update_cache(tmp_path / "cache.git", url, ENV)
    leftover = agent_checkout(
        cache, tmp_path / "old", url, branch="agent/issue-3", base="main", env=ENV
    )
    sha = _commit(leftover, "d.txt")
    (leftover.path / "e.txt").write_text("new")
    (leftover.path / "a.txt").write_text("changed")
    assert dirty_paths(leftover) == ["a.txt", "e.txt"]
    fresh = agent_checkout(
        cache, tmp_path / "new", url, branch="agent/issue-3", base="main", env=ENV
    )
    refs = ("refs/remotes/origin/agent/issue-3", "refs/remotes/origin/main")
    found = find_unpushed(fresh, leftover.path, refs, leftover.git_dir)
    assert found is not None
    assert (found.head, found.commits) == (sha, (sha,))
    assert find_unpushed(fresh, fresh.path, refs) is None
    moment = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert rescue_ref(3, moment) == "refs/conveyor/rescue/3/20260102T030405Z"
