"""An issue's session transcripts from the job folders under a repository's home.

Each job folder (`jobs/issue-N-<stage>-<start>/`) holds `job.json`, whose session records
carry what the runner counted (tokens, cost, peak context, the error a session ended on),
and `sessions/<key>/transcript.jsonl`, the CLI's own stream; its backend's reader
(`agents.backends.registry.transcript_reader`) reads what was said from the stream.
Read-only; an unreadable `job.json` is skipped, named.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conveyor.agents.backends.registry import transcript_reader
from conveyor.core.config import repo_dirname
from conveyor.core.transcript import Found, SessionTranscript, Totals
from conveyor.core.transcript_read import read_entries
from conveyor.core.transcript_text import counted
from conveyor.job.jobfile import JOB_FILE, SessionRecord, load_job_file

TRANSCRIPT_FILE = "transcript.jsonl"  # as `conveyor.agents.runner` writes it


def _totals(record: SessionRecord) -> Totals:
    return Totals(
        input_tokens=record.usage.input,
        output_tokens=record.usage.output,
        cache_read_tokens=record.usage.cache_read,
        cache_write_tokens=record.usage.cache_write,
        cost_usd=record.cost_usd,
        peak_context=record.peak_context,
        error=record.error,
    )


def record_transcript(job_dir: Path, stage: str, record: SessionRecord) -> SessionTranscript:
    """One session of a job folder, as its job.json records it and its stream tells."""
    stream = job_dir / "sessions" / record.key / TRANSCRIPT_FILE
    text = stream.read_text(encoding="utf-8", errors="replace") if stream.is_file() else ""
    entries, unparsed = read_entries(transcript_reader(record.backend), text.splitlines())
    totals = counted(_totals(record), entries)
    return SessionTranscript(
        job=job_dir.name,
        stage=stage,
        key=record.key,
        backend=record.backend,
        model=record.model,
        status=record.status,
        ended_at=record.ended_at.isoformat() if record.ended_at else None,
        entries=entries,
        totals=Totals(**{**totals.__dict__, "unparsed_lines": unparsed}),
    )


def _started(job_dir: Path) -> str:
    return job_dir.name.removeprefix("issue-").split("-", 2)[-1]


def issue_transcripts(repo_home: Path, issue: int, stage: str | None = None) -> Found:
    """Every session of `issue` (of one `stage` when given), in the order the jobs ran."""
    jobs = sorted((repo_home / "jobs").glob(f"issue-{issue}-*"), key=_started)
    sessions: list[SessionTranscript] = []
    unreadable: list[str] = []
    for job_dir in jobs:
        try:
            record = load_job_file(job_dir / JOB_FILE)
        except (OSError, ValueError) as exc:
            unreadable.append(f"{job_dir / JOB_FILE}: {str(exc).splitlines()[0]}")
            continue
        if record.issue != issue or (stage is not None and record.stage != stage):
            continue
        sessions.extend(record_transcript(job_dir, record.stage, s) for s in record.sessions)
    return Found(tuple(sessions), tuple(unreadable))


def home_transcripts(home: Path) -> Callable[[str, int], Found]:
    """The reader the forge's transcript pages are given: `owner/name` and an issue's number
    to its sessions under `home` (a `$CONVEYOR_HOME`, one `owner__name` folder a repository).

    The forge may not import the job layer, so the CLI and the test harness hand it this.
    """

    def read(repo: str, issue: int) -> Found:
        return issue_transcripts(home / repo_dirname(repo), issue)

    return read
