"""Where drafts are refused the issue's PR opens as a normal one marked draft, then is finished."""

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
    DRAFT_MARK,
    DRAFT_NOTE,
    ensure_start_commit,
    find_or_open_draft,
    finish_pr,
)
from conveyor.testing.world import ACCOUNT, TOKEN_ENV, TRUSTED, World


@pytest.fixture
def world(forge_server: ForgeServer, tmp_path: Path) -> World:
    """A fresh private repository whose plan has no draft PRs."""
    made = World.create(forge_server, tmp_path / "world")
    forge_server.set_plan(made.repo, private=True, drafts=False)
    return made


def _push_start(world: World, number: int, where: Path) -> str:
    """Push the issue branch with its start commit; the branch name."""
    env = {"PATH": os.environ["PATH"], "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(where.parent)}
    subprocess.run(["git", "clone", "-q", str(world.bare().path), str(where)], check=True, env=env)
    repo = Repo(where, GitEnv())
    head = ensure_start_commit(repo, rev_parse(repo, "HEAD"), number)
    branch = f"agent/issue-{number}"
    push = ["git", "push", "-q", "origin", f"{head}:refs/heads/{branch}"]
    subprocess.run(push, cwd=where, check=True, env=env)
    return branch


def test_the_pr_opens_marked_draft_and_finishing_removes_the_marks(
    world: World, tmp_path: Path
) -> None:
    """One normal PR, `[draft]` in its title and the note in its body; ready: both gone."""
    issue = world.open_issue("Add a total", "Sum it.")
    branch = _push_start(world, issue.number, tmp_path / "clone")
    config = Config(
        repo=world.repo,
        account=AccountConfig(login=ACCOUNT, token_env=TOKEN_ENV),
        allowed_users=(TRUSTED,),
        commands=Commands(test="true"),
    )
    ops = OpContext(world.forge_as(ACCOUNT), config, run_id="test-run")
    first = find_or_open_draft(ops, issue.number, branch=branch, base="main", title=issue.title)
    again = find_or_open_draft(ops, issue.number, branch=branch, base="main", title=issue.title)
    assert again.number == first.number
    assert not first.draft
    assert first.title == f"{DRAFT_MARK} Add a total (#{issue.number})"
    assert first.body.startswith(f"Closes #{issue.number}")
    assert DRAFT_NOTE in first.body
    done = finish_pr(ops, first.number, issue.number, title="Add a total", body="Sums it all.")
    shown = world.forge_as(TRUSTED).get_pr(first.number)
    assert (shown.title, shown.body) == (f"Add a total (#{issue.number})", done.body)
    assert DRAFT_MARK not in shown.title
    assert DRAFT_NOTE not in shown.body
    assert not shown.draft
