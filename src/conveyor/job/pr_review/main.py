"""`conveyor job --issue N --stage pr-review`: one review of a person's PR N, as its own process.

Recorded like every job, under the PR's number (`jobs/issue-N-pr-review-<start>/`, its
sessions, transcripts and ledger rows; BB-DISP-13). It claims its pass first (the head
recorded, then the label removed), reads the PR's head in a detached checkout, runs the
read-only sessions and posts one review; it never pushes or merges. Exit codes as every
job's: 0 ended, 1 an error or an interrupt (the PR is held back, BB-DISP-14), 3 not
claimable (nothing changed).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Mapping
from pathlib import Path

from conveyor.agents.control import serve_control
from conveyor.core.config import Config
from conveyor.core.state import Stage
from conveyor.forge.answers import ANSWERS_FILE, AnswerFile
from conveyor.forge.connect import connect
from conveyor.forge.job_view import AnsweredForge
from conveyor.job.assemble import now_utc
from conveyor.job.events import EVENTS_FILE, EventLog
from conveyor.job.finish import discard
from conveyor.job.hub import JobHub
from conveyor.job.jobfile import JobFile, JobRecord, Outcome, process_start_ticks
from conveyor.job.layout import JobPaths, free_job_id, job_stamp, load_lane
from conveyor.job.ledger import save_job_sessions
from conveyor.job.pr_review.claim import ClaimRules, claim_review
from conveyor.job.pr_review.context import ReviewJob, review_context
from conveyor.job.pr_review.drive import Interrupted, drive_review
from conveyor.job.pr_review.record import load_record, save_record
from conveyor.job.pr_review.workspace import HeadMissing
from conveyor.job.signals import JobInterrupted, SignalGuard, handling_signals, heartbeat
from conveyor.ops.forge.context import OpContext

EXIT_NOT_CLAIMABLE = 3
OUTCOMES: dict[str, Outcome] = {
    "reviewed": "saved",
    "nothing": "saved",
    "gone": "released",
    "failed": "stopped",
}


def _say(text: str) -> None:
    print(f"conveyor job: {text}", file=sys.stderr)  # noqa: T201 - the job's stderr is its log


def _job_paths(home: Path, number: int) -> JobPaths:
    job_id = free_job_id(home, number, Stage.PR_REVIEW.value, job_stamp(now_utc()))
    return JobPaths(home, job_id, home / "jobs" / job_id, home / "runs" / f"issue-{number}")


def run_pr_review(
    config: Config, config_dir: Path, number: int, home: Path, environ: Mapping[str, str],
    *, lane: str | None = None,
) -> int:  # fmt: skip
    """Claim one review of PR `number`, run it, and always clean up; the exit code."""
    lane = lane or load_lane(home)
    forge = AnsweredForge(
        connect(config, environ, base_dir=config_dir), AnswerFile(home / ANSWERS_FILE, now_utc)
    )
    paths = _job_paths(home, number)
    ops = OpContext(forge, config, run_id=paths.job_id)
    settings = config.pr_reviews
    rules = ClaimRules(settings.label, settings.review_assigned_prs, settings.on_request)
    start = now_utc()
    claimed = claim_review(forge, home, ops.trust(), rules, number, job=paths.job_id, now=start)
    if isinstance(claimed, str):
        _say(f"PR #{number} is not claimable for a review: {claimed}")
        return EXIT_NOT_CLAIMABLE
    if claimed.note:
        _say(f"PR #{number}: {claimed.note}")
    paths.job_dir.mkdir(parents=True, exist_ok=True)
    record = JobRecord(
        issue=number, stage=Stage.PR_REVIEW.value, role="reader", lane=lane, job_id=paths.job_id,
        pid=os.getpid(), process_start=process_start_ticks(os.getpid()), started_at=start,
        heartbeat=start,
    )  # fmt: skip
    job_file = JobFile(paths.job_file, record, now_utc)
    events = EventLog(paths.run_dir / EVENTS_FILE, issue=number, stage=Stage.PR_REVIEW.value,
                      job=paths.job_id, now=now_utc)  # fmt: skip
    events.emit("claimed", lane=lane, fresh=True, head=claimed.head, trigger=claimed.trigger)
    job = ReviewJob(config, config_dir, environ, claimed, paths, ops, job_file, events, JobHub())
    guard = SignalGuard(job.hub)
    with handling_signals(guard), heartbeat(job_file.heartbeat):
        outcome, why = _work(job, guard)
    _finish(home, paths, job_file, outcome, why)
    return 0 if outcome in {"saved", "released"} else 1


def _work(job: ReviewJob, guard: SignalGuard) -> tuple[Outcome, str]:
    """Check out, gather and review; how it ended and why (the guard disarmed on the way out)."""
    try:
        try:
            ctx, inputs = review_context(job)
            with serve_control(ctx.where.control_socket, job.hub.handlers()):
                end = drive_review(ctx, inputs)
        finally:
            guard.disarm()
    except (JobInterrupted, Interrupted):
        return "interrupted", "interrupted"
    except HeadMissing as exc:
        return "released", str(exc)
    except Exception as exc:  # noqa: BLE001 - any failure is recorded and backs the PR off
        traceback.print_exc(file=sys.stderr)
        return "error", f"{type(exc).__name__}: {exc}"
    job.events.emit("stopped" if end.outcome == "failed" else "released", outcome=end.outcome,
                    reason=end.reason)  # fmt: skip
    return OUTCOMES[end.outcome], end.reason


def _finish(home: Path, paths: JobPaths, job_file: JobFile, outcome: Outcome, why: str) -> None:
    """Record how the pass ended (a failure backs the PR off), the job's end and its ledger
    rows, and let go of the checkout."""
    failed = outcome in {"stopped", "error", "interrupted"}
    record = load_record(home, job_file.record.issue)
    try:
        save_record(home, record.ended(paths.job_id, outcome, failed=now_utc() if failed else None,
                                       why=why))  # fmt: skip
    except OSError as exc:
        _say(f"could not record the review's end: {exc}")
    job_file.finish(outcome)
    try:
        save_job_sessions(home, job_file.record)
    except Exception as exc:  # noqa: BLE001 - the ledger's failure must not hide the review's end
        _say(f"could not write the ledger: {exc}")
    discard(paths.checkout, home)
