"""The start gate: every start and restart passes it and counts against the caps (ORC-13, WD-4)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from conveyor.core.config import Budgets, Config, Limits, Role
from conveyor.core.findings import CODE_LENSES
from conveyor.core.state import Stage
from conveyor.orchestrator.agent_pauses import agent_hold, agent_pauses
from conveyor.orchestrator.decisions import Pause
from conveyor.orchestrator.overlap import Globs, compile_globs, overlaps
from conveyor.orchestrator.snapshot import IssueView, Snapshot, busy_issues

# Spec is scheduled as a reader though its job runs as a writer (SPEC-9, ORC-16).
READERS = frozenset({Stage.TRIAGE, Stage.SPEC, Stage.REVIEW, Stage.ACCEPT, Stage.SECURITY})
WRITERS = frozenset({Stage.IMPLEMENT, Stage.FIX, Stage.SYNC, Stage.CHECKS})
RUNNABLE = READERS | WRITERS | {Stage.MERGE}


def stage_cap(stage: Stage, limits: Limits) -> int:
    """How many jobs of `stage` may run at once: `stage_caps`, else the reader or writer cap."""
    for name, cap in limits.stage_caps.items():
        if name == stage.value:
            return cap
    return limits.readers_per_stage if stage in READERS else limits.writers_per_stage


def first_review_charge(budgets: Budgets, lenses: Sequence[str] = CODE_LENSES) -> int:
    """Tokens a first review charges up front: every lens it runs (the review machine's
    `lenses`, the code lenses by default: their charges are saved ahead) and the aggregator."""
    return len(lenses) * budgets.review + budgets.aggregate


def launch_charge(issue: IssueView, stage: Stage, budgets: Budgets) -> int:
    """Tokens the job's first launches charge (BUD-1); stages whose sessions are conditional
    (sync's resolver, checks' fixer) and merge (no model) charge nothing up front.
    """
    match stage:
        case Stage.REVIEW if issue.rereview_lenses > 0:
            return issue.rereview_lenses * budgets.rereview
        case Stage.REVIEW:
            return first_review_charge(budgets)
        case (
            Stage.TRIAGE | Stage.SPEC | Stage.IMPLEMENT | Stage.FIX | Stage.ACCEPT | Stage.SECURITY
        ):
            return budgets.for_role(Role(stage.value))
        case _:
            return 0


@dataclass(frozen=True, slots=True)
class LiveWriter:
    """A running (or just admitted) writer and the compiled globs it may touch."""

    issue: int
    globs: Globs


@dataclass(frozen=True, slots=True)
class Gate:
    """What is running and spent so far this tick; `admit` returns the next gate."""

    lane: str
    now: datetime
    running: int
    by_stage: Mapping[Stage, int]
    writers: tuple[LiveWriter, ...]
    charges: int
    busy: frozenset[int]
    pause: Pause | None
    agents: Mapping[str, Pause] = field(default_factory=dict)


def money_pause(snapshot: Snapshot, config: Config) -> Pause | None:
    """The daily money pause with its resume threshold (BB-PAUSE-2); unknown cost counts as 0."""
    per_day = config.money.per_day
    if per_day is None:
        return None
    spent = snapshot.ledger.spent_today
    resume_at = per_day * config.money.resume_percent / 100
    paused = spent >= resume_at if snapshot.money_paused else spent >= per_day
    if not paused:
        return None
    reason = f"spent {spent:.2f} of {per_day:.2f} USD today; resumes under {resume_at:.2f}"
    unknown = snapshot.ledger.unknown_cost_sessions
    if unknown:
        reason += f" ({unknown} sessions of unknown cost counted as 0)"
    return Pause("money", reason)


def pauses(snapshot: Snapshot, config: Config, now: datetime) -> tuple[Pause, ...]:
    """Every pause in force: cool-down, the provider's usage limit, the money budget."""
    found: list[Pause] = []
    if snapshot.cooling_down:
        found.append(Pause("cool-down", snapshot.cooling_reason))
    until = snapshot.usage_limit_until
    if until is not None and now < until:
        found.append(Pause("usage-limit", f"provider usage limit until {until.isoformat()}"))
    money = money_pause(snapshot, config)
    if money is not None:
        found.append(money)
    paused = agent_pauses(snapshot.agent_ends, now)
    found.extend(paused[backend] for backend in sorted(paused))
    return tuple(found)


def open_gate(snapshot: Snapshot, config: Config, now: datetime) -> Gate:
    """The gate before anything starts this tick: live jobs counted, live writers' globs compiled,
    and every issue with a live job (or a dead one the watchdog owns) marked busy.
    """
    issues = snapshot.job_issues()
    live = sorted((job for job in snapshot.jobs if job.alive), key=lambda job: job.issue)
    by_stage: dict[Stage, int] = {}
    writers: list[LiveWriter] = []
    for job in live:
        by_stage[job.stage] = by_stage.get(job.stage, 0) + 1
        if job.stage in WRITERS:
            issue = issues.get(job.issue)
            paths = issue.writer_paths if issue is not None else ()
            writers.append(LiveWriter(job.issue, compile_globs(paths)))
    found = [p for p in pauses(snapshot, config, now) if not p.kind.startswith("agent-")]
    return Gate(
        lane=snapshot.lane,
        now=now,
        running=len(live),
        by_stage=by_stage,
        writers=tuple(writers),
        charges=snapshot.ledger.charges_last_hour,
        busy=busy_issues(snapshot, issues),
        pause=found[0] if found else None,
        agents=agent_pauses(snapshot.agent_ends, now),
    )


def admit(
    gate: Gate,
    config: Config,
    issue: IssueView,
    stage: Stage,
    *,
    partners: frozenset[int] = frozenset(),
) -> Gate | str:
    """Admit one start (the next gate), or say why it is held (a reason starting with its code).

    A writer in `partners` (the issue's stacking pair, STK-10) never holds it for overlap.
    """
    full = full_reason(gate, config)
    if full is not None:
        return lease_hold(gate, issue) or full
    lease = lease_hold(gate, issue)
    if lease is not None:
        return lease
    if gate.agents and (held := agent_hold(gate.agents, config, stage)):
        return held
    limits = config.limits
    in_stage = gate.by_stage.get(stage, 0)
    cap = stage_cap(stage, limits)
    if in_stage >= cap:
        return f"cap:{stage.value} {in_stage}/{cap}"
    globs: Globs | None = None
    if stage in WRITERS:
        globs = compile_globs(issue.writer_paths)
        for writer in gate.writers:
            if writer.issue not in partners and overlaps(globs, writer.globs):
                return f"overlap:#{writer.issue}"
    charge = launch_charge(issue, stage, config.budgets)
    per_hour = limits.tokens_per_hour
    if per_hour and gate.charges + charge > per_hour:
        return f"tokens-per-hour: {gate.charges} charged this hour + {charge} > {per_hour}"
    by_stage = dict(gate.by_stage)
    by_stage[stage] = in_stage + 1
    writers = gate.writers if globs is None else (*gate.writers, LiveWriter(issue.number, globs))
    return replace(
        gate,
        running=gate.running + 1,
        by_stage=by_stage,
        writers=writers,
        charges=gate.charges + charge,
        busy=gate.busy | {issue.number},
    )


def full_reason(gate: Gate, config: Config) -> str | None:
    """Why nothing at all can start any more this tick (a pause, or max_jobs reached)."""
    if gate.pause is not None:
        return f"{gate.pause.kind}: {gate.pause.reason}"
    if gate.running >= config.limits.max_jobs:
        return f"max-jobs {gate.running}/{config.limits.max_jobs}"
    return None


def lease_hold(gate: Gate, issue: IssueView) -> str | None:
    """Another lane's unexpired lease holds the issue."""
    lease = issue.lease
    if lease is not None and lease.lane != gate.lane and gate.now < lease.until:
        return f"leased:{lease.lane} until {lease.until.isoformat()}"
    return None


def reserve(gate: Gate, issue: int) -> Gate:
    """Mark an issue as dealt with this tick (stopped or signalled), so nothing starts for it."""
    return replace(gate, busy=gate.busy | {issue})
