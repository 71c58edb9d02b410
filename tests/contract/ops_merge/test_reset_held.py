"""A reset never discards a person's work (SPEC-128): the branch is left and the stage stops."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from conveyor.core.state import IssueState
from conveyor.job.effects.branch import reset_branch
from conveyor.job.effects.parts import BranchHeld, JobHands
from conveyor.job.effects.push import HeadsSeen
from conveyor.stages.effects import Done, ResetBranch
from tests.contract.ops_merge.merge_world import BRANCH, MergeWorld, commit, git
from tests.contract.ops_merge.test_push_refusals import parts

REF = f"refs/heads/{BRANCH}"
SPEC_TRAILER = "\n\nPipeline-Agent: spec writer"


def _spec_pushed(world: MergeWorld) -> tuple[str, str]:
    """The spec session's commit on a branch new at the base, pushed: (start, head)."""
    start = git(world.work.path, "rev-parse", "origin/main")
    git(world.work.path, "checkout", "-q", "-B", BRANCH, start)
    git(world.work.path, "commit", "-q", "--allow-empty", "-m", "Start work on #1")
    head = commit(
        world.work.path, {"tests/test_x.py": "def test_x(): ...\n"}, f"Test{SPEC_TRAILER}"
    )
    git(world.work.path, "push", "-q", "origin", f"{BRANCH}:{BRANCH}")
    return start, head


def _reset(world: MergeWorld, tmp: Path, start: str, seen: str | None) -> object:
    what, where, who, pulse, _ = parts(world, tmp)
    who = dataclasses.replace(who, seen=HeadsSeen({REF: seen}))
    assert isinstance(who, JobHands)
    return reset_branch(what, where, who, pulse, IssueState(), effect=ResetBranch(start))


def test_a_push_during_the_session_is_left_on_the_branch(world: MergeWorld, tmp_path: Path) -> None:
    """The forge's head is not the one the job pushed: nothing is reset, the stop names why."""
    start, head = _spec_pushed(world)
    theirs = world.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    done = _reset(world, tmp_path, start, head)
    assert isinstance(done, BranchHeld)
    assert theirs[:12] in done.reason
    branch = world.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == theirs
    assert git(world.work.path, "rev-parse", "HEAD") == head  # the checkout is not reset either


def test_a_person_s_commit_the_job_fetched_is_left_on_the_branch(
    world: MergeWorld, tmp_path: Path
) -> None:
    """Fetched before the session, a commit with no pipeline trailer since the start holds it."""
    start, _ = _spec_pushed(world)
    theirs = world.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    git(world.work.path, "fetch", "-q", "origin")
    git(world.work.path, "reset", "-q", "--hard", f"origin/{BRANCH}")
    done = _reset(world, tmp_path, start, theirs)
    assert isinstance(done, BranchHeld)
    assert "A person's commit" in done.reason
    branch = world.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == theirs


def test_a_branch_of_only_the_pipeline_s_commits_is_reset(
    world: MergeWorld, tmp_path: Path
) -> None:
    """The spec's commits and the empty start commit: the branch the stage made is deleted."""
    start, head = _spec_pushed(world)
    assert isinstance(_reset(world, tmp_path, start, head), Done)
    assert world.bot.get_branch(BRANCH) is None
    assert git(world.work.path, "rev-parse", "HEAD") == start
