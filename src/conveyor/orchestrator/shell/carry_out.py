"""Carrying out the rules' decisions: start jobs, steer, SIGTERM, stop, escalate.

Each effect reports what happened as one line for `orchestrator.log`; a
failed effect is a line too (and a degraded-operation streak), never an
exception that would skip the rest of the tick.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import assert_never

from conveyor.agents.control import ControlError, request_control
from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.core.verify import Outcome
from conveyor.job.boundary import command_env
from conveyor.job.layout import JobPaths
from conveyor.job.notify import Happened, run_notify
from conveyor.ops.forge.close_out import finish_close_out, run_teardown
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.stop import stop
from conveyor.orchestrator.decisions import (
    Decision,
    Escalate,
    FinishCloseOut,
    Hold,
    StartJob,
    Steer,
    StopIssue,
    Terminate,
    describe,
)
from conveyor.orchestrator.shell.executor import Executor, JobHandle, RecordedJob
from conveyor.orchestrator.shell.status_file import note_operation
from conveyor.orchestrator.shell.tick_files import end_line

STEER_TIMEOUT_S = 10.0
ESCALATION_TIMEOUT_S = 60.0


@dataclass
class Effects:
    """What carrying out needs: the executor, the ops context, the jobs on record, the log."""

    config: Config
    executor: Executor
    ops: OpContext
    home: Path
    environ: Mapping[str, str]
    say: Callable[[str], None]
    recorded: Mapping[int, RecordedJob]
    handles: dict[int, JobHandle]
    degraded: dict[str, int] = field(default_factory=dict)

    def note(self, operation: str, ok: bool) -> None:
        """Keep the operation's failure streak; the third failure in a row is one error line."""
        self.degraded, alert = note_operation(self.degraded, operation, ok)
        if alert:
            self.say(f"error op={operation}: failed 3 times in a row")


def _socket_of(job: RecordedJob) -> Path:
    """The control socket of a recorded job (maybe a short path under the temp folder)."""
    record = job.record
    run_dir = job.job_dir.parent.parent / "runs" / f"issue-{record.issue}"
    return JobPaths(job.job_dir.parent.parent, record.job_id, job.job_dir, run_dir).control_socket


def _start(fx: Effects, decision: StartJob, now: datetime) -> None:
    try:
        handle = fx.executor.start(
            decision.issue,
            decision.stage,
            now,
            resume=decision.resume,
            stack_on=decision.stack_on,
        )
    except OSError as error:
        fx.say(f"failed to start #{decision.issue} {decision.stage.value}: {error}")
        fx.note("start-job", ok=False)
        return
    fx.note("start-job", ok=True)
    old = fx.handles.get(decision.issue)
    if old is not None and old.pid != handle.pid:  # its end is logged before it is replaced
        fx.say(end_line(fx.home, decision.issue, old, fx.executor))
    fx.handles[decision.issue] = handle
    where = f"pid {handle.pid}" if handle.pid else "as a workflow for the worker pool"
    fx.say(f"started #{decision.issue} {decision.stage.value} {where}")


def _steer(fx: Effects, decision: Steer) -> None:
    job = fx.recorded.get(decision.issue)
    if job is None or job.record.started_at != decision.job_started_at:
        fx.say(f"steer #{decision.issue}: the job is no longer on record")
        return
    if job.worker is not None:
        fx.say(f"steer #{decision.issue}: not sent, the job runs on worker {job.worker}")
        return
    try:
        answer = request_control(
            _socket_of(job), {"op": "steer", "text": decision.text}, timeout=STEER_TIMEOUT_S
        )
    except ControlError as error:
        fx.say(f"steer #{decision.issue} failed: {error}")
        fx.note("steer", ok=False)
        return
    fx.note("steer", ok=bool(answer.get("ok")))
    if not answer.get("ok"):
        fx.say(f"steer #{decision.issue} refused: {answer.get('error', 'no reason given')}")


def _terminate(fx: Effects, decision: Terminate) -> None:
    job = fx.recorded.get(decision.issue)
    start = job.record.process_start if job is not None else None
    handle = fx.handles.get(decision.issue)
    if handle is None or handle.pid != decision.pid:
        stage = job.record.stage if job is not None else "triage"
        handle = JobHandle(
            decision.issue, Stage(stage), decision.pid, start, decision.job_started_at
        )
    fx.executor.terminate(handle)


def _stop(fx: Effects, decision: StopIssue, now: datetime) -> None:
    try:
        done = stop(fx.ops, decision.issue, decision.control, decision.reason, now=now)
    except Exception as error:  # noqa: BLE001 - any forge failure is retried next tick
        fx.say(f"stop #{decision.issue} failed (retried next tick): {error}")
        fx.note("stop", ok=False)
        return
    fx.note("stop", ok=True)
    job = fx.recorded.get(decision.issue)
    stage = job.record.stage if job is not None else ""
    happened = Happened(
        "stopped", decision.issue, done.pr, decision.control.value, stage, decision.reason
    )
    problem = run_notify(fx.config, fx.environ, happened, cwd=fx.home)
    fx.note("notify", ok=problem is None)
    if problem is not None:
        fx.say(problem)


def _escalate(fx: Effects, decision: Escalate) -> None:
    command = fx.config.escalation_command
    if command is None:
        return
    env = dict(fx.environ) | {
        "CONVEYOR_ESCALATION_ISSUE": str(decision.issue),
        "CONVEYOR_ESCALATION_KIND": decision.kind,
        "CONVEYOR_ESCALATION_CONTROL": decision.control.value,
        "CONVEYOR_ESCALATION_REASON": decision.reason,
    }
    try:
        done = subprocess.run(  # noqa: S602 - the operator's own configured command
            command, shell=True, env=env, timeout=ESCALATION_TIMEOUT_S, check=False, cwd=fx.home
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        fx.say(f"escalation command failed for #{decision.issue}: {error}")
        fx.note("escalation-command", ok=False)
        return
    fx.note("escalation-command", ok=done.returncode == 0)
    if done.returncode != 0:
        fx.say(f"escalation command exited {done.returncode} for #{decision.issue}")


def _close_out(fx: Effects, decision: FinishCloseOut, now: datetime) -> None:
    """Finish a merged issue's close-out, then its teardown command (DONE-3, DONE-4)."""
    try:
        sha = finish_close_out(fx.ops, decision.issue, now=now)
    except Exception as error:  # noqa: BLE001 - any forge failure is retried next tick
        fx.say(f"close-out #{decision.issue} failed (retried next tick): {error}")
        fx.note("close-out", ok=False)
        return
    fx.note("close-out", ok=True)
    if sha is None:
        return
    fx.say(f"closed out #{decision.issue}: PR #{decision.pr} merged as {sha}")
    commands = fx.config.commands
    run_dir = fx.home / "runs" / f"issue-{decision.issue}"
    env = command_env(fx.config, fx.environ, home=run_dir, git_config=Path(os.devnull))
    ended = run_teardown(commands.teardown, run_dir, env, timeout_s=commands.timeout_seconds)
    if ended.outcome not in (Outcome.PASSED, Outcome.SKIPPED):
        fx.say(f"teardown of #{decision.issue} failed: see {run_dir / 'teardown.log'}")


def carry_out(fx: Effects, decision: Decision, now: datetime) -> None:
    """Log the decision with its reason, then carry it out (a hold only logs)."""
    fx.say(describe(decision))
    match decision:
        case StartJob():
            _start(fx, decision, now)
        case Steer():
            _steer(fx, decision)
        case Terminate():
            _terminate(fx, decision)
        case StopIssue():
            _stop(fx, decision, now)
        case Escalate():
            _escalate(fx, decision)
        case FinishCloseOut():
            _close_out(fx, decision, now)
        case Hold():
            pass
        case _:
            assert_never(decision)


def terminate_all(executor: Executor, handles: Mapping[int, JobHandle]) -> list[JobHandle]:
    """SIGTERM every live job (the second Ctrl-C); the ones that were still running."""
    live = [handle for handle in handles.values() if executor.alive(handle)]
    for handle in live:
        executor.terminate(handle)
    return live
