"""The demo's closing table: what became of each issue, read from the forge and job files."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from conveyor.core.labels import Status, labelled_outcome


@dataclass(frozen=True)
class JobSpan:
    """One stage job of an issue: its stage, when it ran, its sessions and tokens."""

    stage: str
    started: datetime
    finished: datetime
    sessions: int
    tokens: int


@dataclass(frozen=True)
class IssueFacts:
    """What the forge and the job files say about one issue."""

    number: int
    tag: str | None
    title: str
    author_trusted: bool
    open: bool
    labels: tuple[str, ...]
    pr: int | None
    fix_rounds: int
    jobs: tuple[JobSpan, ...] = ()
    after: tuple[int, ...] = ()  # the issues it waited for (a split's `After #N merges.`)
    stacked_on: int | None = None  # the prerequisite it began on the branch of (STK-1)
    stage: str | None = None  # the stage its saved state is at, if it has one


def moved(facts: Iterable[IssueFacts]) -> bool:
    """Whether any issue got anywhere: past triage, asked its question, split or merged."""
    done = {Status.MERGED.value, Status.SPLIT.value, Status.NEEDS_INFO.value}
    return any(f.stage not in (None, "triage") or done & set(f.labels) for f in facts)


@dataclass(frozen=True)
class Row:
    """One line of the table."""

    number: int
    tag: str | None
    title: str
    outcome: str
    pr: int | None
    fix_rounds: int
    sessions: int
    tokens: int


def outcome(facts: IssueFacts) -> str:
    """merged, stopped (<control>), waiting for an answer, split, skipped, or in progress."""
    labels = facts.labels
    said = labelled_outcome(labels)
    if said is not None:
        return said
    if Status.SPLIT.value in labels:
        return "split" if not facts.open else "split (parent open)"
    if not facts.jobs and not facts.author_trusted:
        return "skipped"
    return "in progress"


def build_rows(facts: Iterable[IssueFacts]) -> list[Row]:
    """One row per issue, by number."""
    return [
        Row(
            number=f.number,
            tag=f.tag,
            title=f.title,
            outcome=outcome(f),
            pr=f.pr,
            fix_rounds=f.fix_rounds,
            sessions=sum(j.sessions for j in f.jobs),
            tokens=sum(j.tokens for j in f.jobs),
        )
        for f in sorted(facts, key=lambda f: f.number)
    ]


def misses(rows: Sequence[Row], expected: Mapping[str, str]) -> list[str]:
    """Each issue that did not reach the outcome the demo expects, named, with what it reached."""
    by_tag = {row.tag: row for row in rows if row.tag is not None}
    out = []
    for tag, want in expected.items():
        row = by_tag.get(tag)
        if row is None:
            out.append(f"[{tag}]: never opened (expected {want})")
        elif row.outcome != want:
            out.append(f"#{row.number} [{tag}]: {row.outcome} (expected {want})")
    return out


def table_lines(rows: Sequence[Row]) -> list[str]:
    """The table as plain text lines, a header and one issue a line."""
    head = ("issue", "outcome", "PR", "fix rounds", "sessions", "tokens", "title")
    lines = [
        (f"#{r.number}", r.outcome, f"#{r.pr}" if r.pr else "-", str(r.fix_rounds),
         str(r.sessions), f"{r.tokens:,}", r.title)
        for r in rows
    ]  # fmt: skip
    widths = [max(len(str(c)) for c in col) for col in zip(head, *lines, strict=False)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths[:-1]) + "  {}"
    return [fmt.format(*line) for line in (head, *lines)]


def render(rows: Sequence[Row]) -> str:
    """The table as plain text, one issue a line."""
    return "\n".join(table_lines(rows))


def _steps(jobs: Sequence[JobSpan]) -> list[str]:
    """`stage Ns` per run of consecutive jobs of one stage (`merge ×3 4s` when repeated)."""
    out: list[tuple[str, int, float]] = []
    for job in jobs:
        took = (job.finished - job.started).total_seconds()
        if out and out[-1][0] == job.stage:
            stage, count, total = out[-1]
            out[-1] = (stage, count + 1, total + took)
        else:
            out.append((job.stage, 1, took))
    return [f"{s}{f' x{n}' if n > 1 else ''} {t:.0f}s" for s, n, t in out]


def critical_path(facts: Iterable[IssueFacts]) -> str:
    """Which issue finished last, and the stage jobs that took it there."""
    done = [f for f in facts if f.jobs]
    if not done:
        return "no job ran"
    last = max(done, key=lambda f: max(j.finished for j in f.jobs))
    jobs = sorted(last.jobs, key=lambda j: j.started)
    start = min(j.started for f in done for j in f.jobs)
    end = max(j.finished for j in jobs)
    steps = ", ".join(_steps(jobs))
    waited = (jobs[0].started - start).total_seconds()
    tag = f" [{last.tag}]" if last.tag else ""
    why = f", after #{', #'.join(map(str, last.after))} merged" if last.after else ""
    if last.stacked_on is not None:
        why = f", stacked on #{last.stacked_on}'s branch"
    return (
        f"#{last.number}{tag} finished last, {(end - start).total_seconds():.0f}s after the first"
        f" job began: it started {waited:.0f}s in{why} and ran {len(jobs)} jobs ({steps})"
    )


def stacking_lines(facts: Iterable[IssueFacts]) -> list[str]:
    """For each stacked issue: when it began against when its prerequisite merged."""
    known = list(facts)
    by_number = {f.number: f for f in known}
    out = []
    for f in sorted(known, key=lambda f: f.number):
        prereq = by_number.get(f.stacked_on) if f.stacked_on is not None else None
        if prereq is None or not f.jobs:
            continue
        began = min(j.started for j in f.jobs)
        merges = [j.finished for j in prereq.jobs if j.stage == "merge"]
        tag = f" [{f.tag}]" if f.tag else ""
        if not merges:
            out.append(f"#{f.number}{tag} began on #{prereq.number}'s branch")
            continue
        ahead = (max(merges) - began).total_seconds()
        out.append(
            f"#{f.number}{tag} began on #{prereq.number}'s branch {ahead:.0f}s before"
            f" #{prereq.number} merged (stacked, STK-8)"
        )
    return out
