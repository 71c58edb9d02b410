"""Reading the demo's outcome back: each issue's facts from the forge and its job files."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from conveyor.cli.demo.issues import tag_of
from conveyor.cli.demo.table import IssueFacts, JobSpan
from conveyor.core.state_codec import find_state
from conveyor.forge.protocol import Forge
from conveyor.job.events import EVENTS_FILE, read_events
from conveyor.job.jobfile import load_job_file

_AFTER = re.compile(r"After #(\d+) merges")


def job_spans(repo_home: Path, number: int) -> tuple[JobSpan, ...]:
    """The issue's recorded stage jobs, oldest first (unreadable job files are skipped)."""
    spans = []
    for path in sorted((repo_home / "jobs").glob(f"issue-{number}-*/job.json")):
        try:
            record = load_job_file(path)
        except (OSError, ValueError):
            continue
        end = record.finished.at if record.finished is not None else record.heartbeat
        tokens = sum(
            s.usage.input + s.usage.output + s.usage.cache_read + s.usage.cache_write
            for s in record.sessions
        )
        spans.append(JobSpan(record.stage, record.started_at, end, len(record.sessions), tokens))
    return tuple(sorted(spans, key=lambda s: s.started))


def stacked_on(repo_home: Path, number: int) -> int | None:
    """The prerequisite the issue was first stacked on, from its `stacked` event (None: never)."""
    for event in read_events(repo_home / "runs" / f"issue-{number}" / EVENTS_FILE):
        on = event.get("on")
        if event.get("kind") == "stacked" and isinstance(on, int):
            return on
    return None


def issue_numbers(forge: Forge, opened: Iterable[int]) -> list[int]:
    """The issues the demo opened and every sub-issue the pipeline opened under them."""
    numbers = list(opened)
    for number in list(numbers):
        numbers += [sub.number for sub in forge.list_sub_issues(number)]
    return sorted(set(numbers))


def gather(
    forge: Forge, repo_home: Path, opened: Iterable[int], *, account: str, trusted: Iterable[str]
) -> list[IssueFacts]:
    """Facts about every demo issue, as a person (and the job files) would see them."""
    people = {account, *trusted}
    facts = []
    for number in issue_numbers(forge, opened):
        issue = forge.get_issue(number)
        state = find_state(forge.list_comments(number).comments, account).state
        facts.append(
            IssueFacts(
                number=number,
                tag=tag_of(issue.title),
                title=issue.title,
                author_trusted=issue.author in people,
                open=issue.state == "open",
                labels=issue.labels,
                pr=None if state is None else state.pr,
                fix_rounds=0 if state is None else state.rounds.fix,
                jobs=job_spans(repo_home, number),
                after=tuple(int(n) for n in _AFTER.findall(issue.body)),
                stacked_on=stacked_on(repo_home, number),
                stage=None if state is None else state.stage.value,
            )
        )
    return facts
