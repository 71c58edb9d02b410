"""A real branch pushed to the embedded forge and its draft PR, for ops that touch the PR."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.contract.ops.world import World


def git(cwd: Path, *args: str) -> None:
    """Run git in `cwd`, failing loudly."""
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def open_pr(world: World, number: int, scratch: Path) -> int:
    """Push `agent/issue-N` with one commit and open its draft PR as the pipeline."""
    branch = f"agent/issue-{number}"
    clone = scratch / f"clone-{number}"
    git(scratch, "clone", "-q", world.bot.repo_info().clone_url, str(clone))
    git(clone, "checkout", "-q", "-b", branch)
    (clone / "change.txt").write_text("change\n")
    git(clone, "add", "change.txt")
    git(clone, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "change")
    git(clone, "push", "-q", "origin", branch)
    pr = world.bot.create_draft_pr(branch, "main", f"Fix it (#{number})", f"Closes #{number}\n")
    return pr.number
