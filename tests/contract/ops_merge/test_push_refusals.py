"""A push the forge refuses comes back from the branch ops as a value, never raised."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

from conveyor.core.state import IssueState, Stage
from conveyor.job.effects.branch import push_branch
from conveyor.job.effects.parts import (
    JobHands,
    JobPlace,
    JobPulse,
    JobSubject,
    PushRefused,
)
from conveyor.job.events import EventKind
from conveyor.stages.effects import PushBranch, Pushed
from tests.contract.ops_merge.merge_world import BRANCH, MergeWorld, commit, git


def parts(
    world: MergeWorld, folder: Path
) -> tuple[JobSubject, JobPlace, JobHands, JobPulse, list[str]]:
    """The job parts the branch ops take, over the test's checkout; the events it emitted."""
    events: list[str] = []

    def emit(kind: EventKind, **_fields: object) -> None:
        events.append(kind)

    what = JobSubject(config=world.config, issue=1, stage=Stage.IMPLEMENT, run_id="run1")
    where = JobPlace(
        home=world.home,
        job_dir=folder / "job",
        run_dir=folder / "run",
        checkout=world.work.path,
        sessions_dir=folder / "sessions",
        issue_file=folder / "run" / "issue.md",
        control_socket=folder / "control.sock",
        git_config=folder / "gitconfig",
        git=world.work,
    )
    who = JobHands(
        forge=world.bot,
        ops=world.ctx(),
        push=world.push,
        environ={},
        command_env={},
        token_env=(),
        token_secrets=(),
    )
    pulse = JobPulse(emit, lambda: None, lambda: datetime.now(UTC), threading.Event())
    return what, where, who, pulse, events


def test_a_push_over_a_persons_commit_is_refused_as_a_value_and_theirs_stays(
    world: MergeWorld, tmp_path: Path
) -> None:
    """The implementation's push is not a fast-forward: `PushRefused`, the person's head kept."""
    world.branch_and_pr({"new.txt": "new\n"})
    spec_sha = git(world.work.path, "rev-parse", "HEAD")
    theirs = world.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    commit(world.work.path, {"impl.txt": "impl\n"}, "Implement")
    what, where, who, pulse, events = parts(world, tmp_path)
    done = push_branch(what, where, who, pulse, IssueState(), effect=PushBranch(spec_sha))
    assert isinstance(done, PushRefused)
    assert BRANCH in done.reason
    assert "pushed" not in events
    branch = world.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == theirs


def test_a_push_the_forge_accepts_is_pushed_and_reported(world: MergeWorld, tmp_path: Path) -> None:
    """A fast-forward push goes through: the branch is at the head and a `pushed` event says so."""
    world.branch_and_pr({"new.txt": "new\n"})
    spec_sha = git(world.work.path, "rev-parse", "HEAD")
    head = commit(world.work.path, {"impl.txt": "impl\n"}, "Implement")
    what, where, who, pulse, events = parts(world, tmp_path)
    done = push_branch(what, where, who, pulse, IssueState(), effect=PushBranch(spec_sha))
    assert isinstance(done, Pushed)
    assert done.new_paths == ("impl.txt",)
    assert events == ["pushed"]
    branch = world.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == head
