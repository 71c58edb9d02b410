"""`conveyor drive`: one issue's stage jobs in turn, in the foreground ("run by number")."""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from conveyor.core.config import Config
from conveyor.core.next_stage import Halt, next_stage
from conveyor.core.pickup import IssueFacts
from conveyor.core.state import IssueState, Stage
from conveyor.forge.answers import ANSWERS_FILE, AnswerFile
from conveyor.forge.connect import connect
from conveyor.forge.job_view import AnsweredForge
from conveyor.job.entry import conveyor_argv
from conveyor.job.fork_start import (
    ForkedChild,
    JobStart,
    can_fork,
    fork_job,
    job_start,
    preload,
    preload_sessions,
)
from conveyor.job.layout import load_lane, repo_home
from conveyor.job.main import EXIT_NOT_CLAIMABLE
from conveyor.job.view_file import read_view
from conveyor.ops.forge.claim import issue_facts
from conveyor.ops.forge.context import OpContext

MAX_JOBS = 40


@dataclass(frozen=True)
class DriveOptions:
    """The command line of one drive."""

    config: Config
    config_path: Path
    issue: int
    through: Stage | None = None
    take_stopped: bool = False
    lane: str | None = None
    start: JobStart = "fork"


class _Child(Protocol):
    """A started job: a `subprocess.Popen` or a `ForkedChild`."""

    def wait(self, timeout: float | None = None) -> int:
        """Wait for it to end; its exit code."""
        ...

    def kill(self) -> None:
        """SIGKILL it."""
        ...


def _progress(state: IssueState | None) -> tuple[Stage, dict[str, object]] | None:
    """What a job must change for the drive to go on: the state without lease and charges."""
    if state is None:
        return None
    return state.stage, state.model_dump(exclude={"lease", "charges"})


def _say(text: str) -> None:
    print(text, flush=True)  # noqa: T201 - drive reports progress on stdout


def _run_job(args: list[str], environ: Mapping[str, str], start: JobStart) -> int:
    """Run `conveyor ARGS` in drive's process group (a fork when safe); its exit code."""
    child: _Child
    if start == "fork" and job_start(environ) == "fork" and can_fork():
        preload()
        child = ForkedChild(fork_job(args, environ, new_session=False))
        preload_sessions()  # while the job runs: the next ones start with the SDK loaded
    else:
        child = subprocess.Popen([*conveyor_argv(), *args], env=dict(environ))
    try:
        return child.wait()
    except KeyboardInterrupt:
        # Ctrl-C reached the job too (same process group): let it save its issue (JOB-4);
        # a second Ctrl-C kills it.
        try:
            child.wait()
        except KeyboardInterrupt:
            child.kill()
            child.wait()
        raise


def _read_facts(ops: OpContext, number: int) -> IssueFacts:
    """The issue's pickup facts from the forge: the issue and its comments in one request."""
    thread = ops.forge.read_issue_thread(number)
    return issue_facts(thread.issue, thread.comments, ops)


def drive(
    opts: DriveOptions,
    environ: Mapping[str, str],
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> int:
    """Run the issue's next stage job until it halts or `through` ran; the last exit code."""
    config = opts.config
    home = repo_home(config, environ, opts.config_path.parent)
    lane = opts.lane or load_lane(home)
    answers = AnswerFile(home / ANSWERS_FILE, now)
    forge = AnsweredForge(connect(config, environ, base_dir=opts.config_path.parent), answers)
    ops = OpContext(forge, config, run_id="drive")
    run_dir = home / "runs" / f"issue-{opts.issue}"
    last: tuple[Stage, dict[str, object]] | None = None
    view: IssueFacts | None = None  # the issue as the last job left it (`view.json`)
    for count in range(MAX_JOBS):
        fresh = view is None
        facts = view or _read_facts(ops, opts.issue)
        progress = _progress(facts.state)
        after = facts.state.after if facts.state is not None else ()
        open_after = [n for n in after if forge.get_issue(n).state == "open"]
        step = next_stage(
            facts,
            ops.trust(),
            now(),
            config.limits.lease_hours,
            lane=lane,
            open_after=open_after,
            take_stopped=opts.take_stopped and count == 0,
        )
        if isinstance(step, Halt):
            _say(f"#{opts.issue}: {step.reason}")
            return 0
        if last is not None and last == progress:
            _say(f"#{opts.issue}: waiting (the {last[0].value} job made no progress)")
            return 0
        args = [
            "job",
            "--config",
            str(opts.config_path),
            "--issue",
            str(opts.issue),
            "--stage",
            step.value,
            "--lane",
            lane,
        ]
        if opts.take_stopped and count == 0:
            args.append("--take-stopped")
        _say(f"#{opts.issue}: {step.value} job")
        last = None if progress is None else (step, progress[1])
        launched = datetime.now(UTC)
        code = _run_job(args, environ, opts.start)
        kept = read_view(run_dir, since=launched) if code == 0 else None
        view = kept.facts if kept is not None else None
        if code == EXIT_NOT_CLAIMABLE and not fresh:
            last = None  # someone changed the issue since the last job: read the forge, decide
            continue
        if code == EXIT_NOT_CLAIMABLE:
            _say(f"#{opts.issue}: not claimable at {step.value}")
            return code
        if code != 0:
            _say(f"#{opts.issue}: the {step.value} job failed (exit {code})")
            return code
        if opts.through is not None and step is opts.through:
            _say(f"#{opts.issue}: ran through {step.value}")
            return 0
    _say(f"#{opts.issue}: stopped driving after {MAX_JOBS} jobs")
    return 1
