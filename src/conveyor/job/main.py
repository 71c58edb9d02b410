"""`conveyor job`: one stage of one issue as its own process (JOB-1, JB-*).

Exit codes: 0 the stage ended (saved at the next stage, stopped, asked, split,
merged or released); 1 an error or an interrupt, with the issue saved at its
stage and the lease cleared; 2 a usage error (the CLI's); 3 not claimable,
having changed nothing.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from conveyor.agents.control import serve_control
from conveyor.core.config import Config
from conveyor.core.state import IssueState, Stage
from conveyor.forge.answers import ANSWERS_FILE, AnswerFile
from conveyor.forge.connect import connect
from conveyor.forge.job_view import JobForge
from conveyor.job.assemble import Started, build_context, now_utc
from conveyor.job.boundary import boundary_line
from conveyor.job.claiming import Claimed, claim_for_job
from conveyor.job.context import JobContext, StageEnd
from conveyor.job.events import EVENTS_FILE, EventLog
from conveyor.job.finish import finish_job
from conveyor.job.hub import JobHub
from conveyor.job.jobfile import JobFile, JobRecord, Outcome, process_start_ticks
from conveyor.job.layout import JobPaths, free_job_id, job_stamp, load_lane, repo_home
from conveyor.job.pr_review.main import run_pr_review
from conveyor.job.roles import role_of
from conveyor.job.signals import JobInterrupted, SignalGuard, handling_signals, heartbeat
from conveyor.job.stacking import has_prereq_branch
from conveyor.ops.forge.context import OpContext

EXIT_NOT_CLAIMABLE = 3
StageRunner = Callable[[JobContext, IssueState], StageEnd]


@dataclass(frozen=True)
class JobOptions:
    """The command line of one job."""

    config: Config
    config_dir: Path
    issue: int
    stage: Stage
    lane: str | None = None
    resume: bool = False
    take_stopped: bool = False
    stack_on: int | None = None


def print_boundary(opts: JobOptions, environ: Mapping[str, str]) -> int:
    """Print the boundary line and start nothing (JB-14)."""
    home = repo_home(opts.config, environ, opts.config_dir)
    job_id = f"issue-{opts.issue}-{opts.stage.value}-{job_stamp(now_utc())}"
    job_dir = home / "jobs" / job_id
    line = boundary_line(
        opts.config,
        environ,
        opts.stage,
        job_dir=job_dir,
        issue=opts.issue,
        config_dir=opts.config_dir,
    )
    print(line)  # noqa: T201 - the command's output
    return 0


def _default_runner() -> StageRunner:
    module = importlib.import_module("conveyor.job.runner")
    runner: StageRunner = module.run_stage
    return runner


def run_job(opts: JobOptions, environ: Mapping[str, str], runner: StageRunner | None = None) -> int:
    """Claim, prepare, run the stage, and always clean up; returns the exit code."""
    config = opts.config
    home = repo_home(config, environ, opts.config_dir)
    if opts.stage is Stage.PR_REVIEW:  # a person's PR, not an issue: no stage machine
        return run_pr_review(config, opts.config_dir, opts.issue, home, environ, lane=opts.lane)
    lane = opts.lane or load_lane(home)
    answers = AnswerFile(home / ANSWERS_FILE, now_utc)
    forge = JobForge(connect(config, environ, base_dir=opts.config_dir), answers)
    start = now_utc()
    job_id = free_job_id(home, opts.issue, opts.stage.value, job_stamp(start))
    ops = OpContext(forge, config, run_id=job_id)
    run_dir = home / "runs" / f"issue-{opts.issue}"
    if opts.stack_on is not None and not has_prereq_branch(forge, opts.stack_on):
        why = f"conveyor job: issue #{opts.issue} cannot stack: #{opts.stack_on} has no branch"
        print(why, file=sys.stderr)  # noqa: T201 - the job's stderr is its log
        return EXIT_NOT_CLAIMABLE
    claimed = claim_for_job(
        ops,
        opts.issue,
        stage=opts.stage,
        lane=lane,
        now=start,
        run_dir=run_dir,
        take_stopped=opts.take_stopped,
        wait=time.sleep,
        unit=random.random(),
    )
    if not isinstance(claimed, Claimed):
        why = f"conveyor job: issue #{opts.issue} is not claimable: {claimed.reason}"
        print(why, file=sys.stderr)  # noqa: T201 - the job's stderr is its log
        return EXIT_NOT_CLAIMABLE
    paths = JobPaths(home, job_id, home / "jobs" / job_id, run_dir)
    paths.job_dir.mkdir(parents=True, exist_ok=True)
    role = role_of(opts.stage)
    record = JobRecord(
        issue=opts.issue,
        stage=opts.stage.value,
        role=role.value,
        lane=lane,
        job_id=job_id,
        pid=os.getpid(),
        process_start=process_start_ticks(os.getpid()),
        started_at=start,
        heartbeat=start,
    )
    job_file = JobFile(paths.job_file, record, now_utc)
    events = EventLog(
        run_dir / EVENTS_FILE, issue=opts.issue, stage=opts.stage.value, job=job_id, now=now_utc
    )
    events.emit("claimed", lane=lane, fresh=claimed.fresh)
    started = Started(
        config=config,
        config_dir=opts.config_dir,
        issue=opts.issue,
        stage=opts.stage,
        resume=opts.resume,
        environ=environ,
        paths=paths,
        claimed=claimed,
        lane=lane,
        role=role,
        job_file=job_file,
        events=events,
        hub=JobHub(),
        ops=ops,
        stack_on=opts.stack_on,
    )
    guard = SignalGuard(started.hub)
    with handling_signals(guard), heartbeat(job_file.heartbeat):
        held: list[JobContext] = []
        outcome = _work(started, runner, guard, held)
        return finish_job(started, held[0] if held else None, outcome)


def _work(
    started: Started, runner: StageRunner | None, guard: SignalGuard, held: list[JobContext]
) -> Outcome:
    """Prepare the checkout and run the stage; how it ended (the context goes into `held`).

    The guard is disarmed before leaving, so no signal can cut the exit path short:
    one landing before that is caught here as an interrupt.
    """
    try:
        try:
            ctx, state = build_context(started)
            held.append(ctx)
            run = runner or _default_runner()
            with serve_control(ctx.where.control_socket, ctx.live.hub.handlers()):
                end = run(ctx, state)
        finally:
            guard.disarm()
    except JobInterrupted:
        return "interrupted"
    except Exception:  # noqa: BLE001 - any failure still saves the issue and cleans up
        traceback.print_exc(file=sys.stderr)
        return "error"
    return end.outcome
