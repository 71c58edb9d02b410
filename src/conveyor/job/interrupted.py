"""Telling a job's first session that the stage's previous job was interrupted, and how far
it got (`core/interrupted.py`): read from that job's `job.json` and its last transcript."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from conveyor.core.interrupted import Interrupted, interrupted_note
from conveyor.core.state import IssueState
from conveyor.job.context import JobContext
from conveyor.job.earlier_work import branch_commits
from conveyor.job.jobfile import JOB_FILE, JobRecord, load_job_file
from conveyor.job.transcripts import record_transcript
from conveyor.stages.effects import LaunchSession

LAST_STEPS = 5


def with_interrupted(ctx: JobContext, state: IssueState, effect: LaunchSession) -> LaunchSession:
    """The launch with the note at the top of its task (and its alongside sessions'), on the
    job's first launch when the stage's previous job was interrupted."""
    if ctx.live.told_interrupted.is_set():
        return effect
    ctx.live.told_interrupted.set()
    earlier = find_interrupted(ctx.where.job_dir, ctx.what.issue, ctx.what.stage.value)
    if earlier is None:
        return effect
    note = interrupted_note(replace(earlier, commits=branch_commits(ctx, state)))

    def told(launch: LaunchSession) -> LaunchSession:
        return replace(launch, task=f"{note}\n\n{launch.task}")

    return replace(told(effect), alongside=tuple(told(e) for e in effect.alongside))


def find_interrupted(job_dir: Path, issue: int, stage: str) -> Interrupted | None:
    """The issue's previous job, when it ran `stage` and ended before the stage did."""
    earlier = _previous_job(job_dir, issue)
    if earlier is None:
        return None
    folder, record = earlier
    finished = record.finished
    if record.stage != stage or (finished is not None and finished.outcome != "interrupted"):
        return None
    steps: tuple[str, ...] = ()
    calls = 0
    if record.sessions:
        session = record_transcript(folder, record.stage, record.sessions[-1])
        made = [e for e in session.entries if e.kind == "call"]
        calls = len(made)
        steps = tuple(f"{e.name}: {e.text}" for e in made[-LAST_STEPS:])
    return Interrupted(folder.name, finished is not None, len(record.sessions), calls, steps, ())


def _previous_job(job_dir: Path, issue: int) -> tuple[Path, JobRecord] | None:
    """The newest other job folder of the issue with a readable `job.json`."""
    found: list[tuple[Path, JobRecord]] = []
    for folder in job_dir.parent.glob(f"issue-{issue}-*"):
        if folder == job_dir:
            continue
        try:
            record = load_job_file(folder / JOB_FILE)
        except (OSError, ValueError):
            continue
        if record.issue == issue:
            found.append((folder, record))
    return max(found, key=lambda f: f[1].started_at, default=None)
