"""The open-pr ops on the embedded forge: one PR per issue, its conventions, ready at the end."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conveyor.core.config import AccountConfig, Commands, Config
from conveyor.emulator.app.server import ForgeServer
from conveyor.git import GitEnv, Repo, rev_parse
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.open_pr import (
    ensure_start_commit,
    find_or_open_draft,
    finish_pr,
    pr_body,
    pr_title,
)
from conveyor.testing.world import ACCOUNT, TOKEN_ENV, TRUSTED, World


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh repository on the session's embedded forge."""
    return World.create(forge_server, tmp_path / "world")


def _ops(world: World) -> OpContext:
    config = Config(
        repo=world.repo,
        account=AccountConfig(login=ACCOUNT, token_env=TOKEN_ENV),
        allowed_users=(TRUSTED,),
        commands=Commands(test="true"),
    )
    return OpContext(world.forge_as(ACCOUNT), config, run_id="test-run")


def _clone(world: World, where: Path) -> Repo:
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(where.parent)}
    subprocess.run(["git", "clone", "-q", str(world.bare().path), str(where)], check=True, env=env)
    repo = Repo(where, GitEnv())
    subprocess.run(["git", "checkout", "-q", "-b", "agent/issue-1"], cwd=where, check=True, env=env)
    return repo


def test_titles_end_with_the_issue_number_and_bodies_open_with_closes() -> None:
    """PR conventions, kept when the implementer's text repeats or omits them."""
    assert pr_title("Add a total", 7) == "Add a total (#7)"
    assert pr_title("Add a total (#7)", 7) == "Add a total (#7)"
    assert pr_body(7, "Closes #7\n\nSums.") == "Closes #7\n\nSums.\n"
    assert pr_body(7) == "Closes #7\n"


def test_an_empty_start_commit_is_made_only_when_the_branch_has_no_commit(tmp_path: Path) -> None:
    """PR-11: the empty "Start work on #N" commit appears once, on a branch at its base."""
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(tmp_path)}
    work = tmp_path / "w"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True, env=env)
    repo = Repo(work, GitEnv())
    (work / "a.txt").write_text("a\n")
    subprocess.run(["git", "add", "-A"], cwd=work, check=True, env=repo.env.variables())
    subprocess.run(["git", "commit", "-qm", "base"], cwd=work, check=True, env=repo.env.variables())
    base = rev_parse(repo, "HEAD")
    first = ensure_start_commit(repo, base, 5)
    assert first != base
    assert ensure_start_commit(repo, base, 5) == first
    assert rev_parse(repo, "HEAD") == first


def test_the_draft_is_found_again_never_opened_twice_and_finished_ready(
    world: World, tmp_path: Path
) -> None:
    """PR-9, PR-4: one PR per head branch; finishing sets its text and marks it ready."""
    issue = world.open_issue("Add a total", "Sum it.")
    repo = _clone(world, tmp_path / "clone")
    base = rev_parse(repo, "HEAD")
    head = ensure_start_commit(repo, base, issue.number)
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    branch = f"agent/issue-{issue.number}"
    subprocess.run(
        ["git", "push", "-q", "origin", f"{head}:refs/heads/{branch}"],
        cwd=repo.path,
        check=True,
        env=env,
    )
    ops = _ops(world)
    first = find_or_open_draft(ops, issue.number, branch=branch, base="main", title=issue.title)
    again = find_or_open_draft(ops, issue.number, branch=branch, base="main", title=issue.title)
    assert again.number == first.number
    assert first.draft
    assert first.title == f"Add a total (#{issue.number})"
    assert first.body.startswith(f"Closes #{issue.number}")
    done = finish_pr(ops, first.number, issue.number, title="Add a total", body="Sums it all.")
    assert not done.draft
    assert done.body == f"Closes #{issue.number}\n\nSums it all.\n"


def test_the_state_s_pr_is_read_by_number_and_taken_only_for_its_branch(
    world: World, tmp_path: Path
) -> None:
    """A PR the state names is taken when its head is the issue's branch (one read, no
    search by branch); one whose head is another branch is not: the branch's own PR is
    found, never a second one opened."""
    issue = world.open_issue("Add a total", "Sum it.")
    repo = _clone(world, tmp_path / "clone")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    head = ensure_start_commit(repo, rev_parse(repo, "HEAD"), issue.number)
    branch = f"agent/issue-{issue.number}"
    for name in (branch, "elsewhere"):
        subprocess.run(
            ["git", "push", "-q", "origin", f"{head}:refs/heads/{name}"],
            cwd=repo.path,
            check=True,
            env=env,
        )
    ops = _ops(world)
    own = find_or_open_draft(ops, issue.number, branch=branch, base="main", title=issue.title)
    other = world.forge_as(TRUSTED).create_pr("elsewhere", "main", "Another", "body")
    lists = world.server.stats()["by_route"]
    assert isinstance(lists, dict)
    route = f"GET /repos/{world.repo}/pulls"
    before = int(lists.get(route, 0))
    assert before >= 1  # the first call searched by branch
    kept = find_or_open_draft(
        ops, issue.number, branch=branch, base="main", title=issue.title, known=own.number
    )
    after = world.server.stats()["by_route"]
    assert isinstance(after, dict)
    assert (kept.number, int(after.get(route, 0)) - before) == (own.number, 0)
    wrong = find_or_open_draft(
        ops, issue.number, branch=branch, base="main", title=issue.title, known=other.number
    )
    assert wrong.number == own.number
