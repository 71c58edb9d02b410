"""A push the forge refuses ends the stage with the `push-rejected` stop a person sees."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from conveyor.core.state import IssueState, Stage
from conveyor.core.stops import StopCode
from conveyor.emulator.app.server import ForgeServer
from conveyor.job.context import JobContext, JobLive
from conveyor.job.effects.parts import JobHands, JobPlace, JobSubject
from conveyor.job.events import EventLog, read_events
from conveyor.job.hub import JobHub
from conveyor.job.jobfile import JobFile, JobRecord
from conveyor.job.roles import JobRole
from conveyor.job.runner import drive
from conveyor.stages.effects import PushBranch, Result
from conveyor.stages.step import Inputs, Step
from tests.contract.ops_merge.merge_world import BRANCH, MergeWorld, commit, git, make_merge_world

pytestmark = pytest.mark.contract


@dataclass(frozen=True)
class Held:
    """The one-push machine's memory: the state it was given."""

    state: IssueState


class OnePush:
    """A machine whose first effect pushes the spec commit, and which must never go on."""

    def __init__(self, sha: str) -> None:
        self.sha = sha

    def start(self, _inputs: Inputs, state: IssueState) -> Step[Held]:
        """Push first."""
        return Step(Held(state), PushBranch(self.sha))

    def transition(self, _run: Held, _result: Result) -> Step[Held]:
        """Never reached."""
        pytest.fail("a refused push must not reach the machine")


def now() -> datetime:
    """The test job's clock."""
    return datetime.now(UTC)


@pytest.fixture
def back(forge_server: ForgeServer, tmp_path: Path) -> Iterator[MergeWorld]:
    """A fresh repository with issue #1 and a job-like checkout."""
    made = make_merge_world(forge_server, tmp_path / "world")
    yield made
    made.bot.close()


def job_context(back: MergeWorld, folder: Path) -> JobContext:
    """A stage job's context over the world's checkout, with a real hub, job file and events."""
    what = JobSubject(config=back.config, issue=1, stage=Stage.IMPLEMENT, run_id="run1")
    where = JobPlace(
        home=back.home,
        job_dir=folder / "job",
        run_dir=folder / "run",
        checkout=back.work.path,
        sessions_dir=folder / "sessions",
        issue_file=folder / "run" / "issue.md",
        control_socket=folder / "control.sock",
        git_config=folder / "gitconfig",
        git=back.work,
    )
    who = JobHands(back.bot, back.ctx(), back.push, {}, {}, (), ())
    record = JobRecord(
        issue=1,
        stage="implement",
        role="writer",
        lane="lane1",
        job_id="job1",
        pid=os.getpid(),
        process_start=None,
        started_at=now(),
        heartbeat=now(),
    )
    live = JobLive(
        job_id="job1",
        role=JobRole.WRITER,
        lane="lane1",
        events=EventLog(folder / "events.jsonl", issue=1, stage="implement", job="job1", now=now),
        job_file=JobFile(folder / "job.json", record, now),
        hub=JobHub(),
        now=now,
    )
    return JobContext(what, where, who, live)


def test_a_push_over_a_persons_commit_stops_the_issue_push_rejected(
    back: MergeWorld, tmp_path: Path
) -> None:
    """The runner turns the refused push into the stop: its label, and the person's head kept."""
    back.branch_and_pr({"new.txt": "new\n"})
    spec_sha = git(back.work.path, "rev-parse", "HEAD")
    theirs = back.person_push(BRANCH, {"mine.txt": "mine\n"}, "A person's commit")
    commit(back.work.path, {"impl.txt": "impl\n"}, "Implement")
    ctx = job_context(back, tmp_path)

    end = drive(ctx, OnePush(spec_sha), IssueState(stage=Stage.IMPLEMENT))
    assert end.outcome == "stopped"
    assert StopCode.PUSH_REJECTED.label in back.bot.get_issue(1).labels
    branch = back.bot.get_branch(BRANCH)
    assert branch is not None
    assert branch.sha == theirs
    events = read_events(tmp_path / "events.jsonl")
    assert [e["kind"] for e in events if e["kind"] == "stopped"] == ["stopped"]
    assert all(e.get("ref") != f"refs/heads/{BRANCH}" for e in events)
    said = [c.body for c in back.bot.list_comments(1).comments if "refused" in c.body]
    assert said
