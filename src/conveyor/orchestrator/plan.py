"""One tick's rules in their order: watchdog, escalation, the handed-over issues, the scheduler
(ORC-12), then the reviews of people's PRs on what the issues left (BB-DISP-9)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from conveyor.core.config import Config
from conveyor.orchestrator.closeout import close_outs
from conveyor.orchestrator.decisions import (
    Decision,
    Decisions,
    Escalate,
    FinishCloseOut,
    Hold,
    describe,
)
from conveyor.orchestrator.escalate import escalate
from conveyor.orchestrator.handed import Handed, handed
from conveyor.orchestrator.memory import WatchMemory
from conveyor.orchestrator.people import PullView, ReviewDecisions, schedule_reviews
from conveyor.orchestrator.schedule import schedule
from conveyor.orchestrator.snapshot import Snapshot
from conveyor.orchestrator.watchdog import watch


@dataclass(frozen=True, slots=True)
class Plan:
    """Everything one tick decided, and the memory the tick keeps for the next one.

    The tick carries out `watchdog` first (a resume there is already counted by the
    scheduler's gate), then `escalations`, then what the handed-over issues ask
    (`handed_decisions`), then `schedule`'s starts, then `closeouts`; it saves `memory` to
    watchdog.json and passes `schedule.money_paused` into the next snapshot.
    """

    watchdog: tuple[Decision, ...]
    escalations: tuple[Escalate, ...]
    schedule: Decisions
    memory: WatchMemory
    closeouts: tuple[FinishCloseOut, ...] = ()
    reviews: ReviewDecisions = field(default_factory=ReviewDecisions)
    handed: Handed | None = None

    def handed_decisions(self) -> tuple[Decision, ...]:
        """The handed-over issues' stops and landings, in the order they are carried out."""
        if self.handed is None:
            return ()
        return (*self.handed.stops, *self.handed.starts)

    def holds(self) -> tuple[Hold, ...]:
        """Every hold of the pass: the scheduler's, the landings', the reviews'."""
        landings = self.handed.holds if self.handed is not None else ()
        return (*self.schedule.holds, *landings, *self.reviews.holds)

    def log_lines(self) -> tuple[str, ...]:
        """Every decision as one `orchestrator.log` line, holds included (ORC-7), in order."""
        decisions = (*self.watchdog, *self.escalations, *self.handed_decisions(),
                     *self.schedule.starts, *self.closeouts, *self.reviews.starts)  # fmt: skip
        holds = self.holds()
        lines = [describe(decision) for decision in (*decisions, *holds)]
        lines.extend(f"pause {pause.kind}: {pause.reason}" for pause in self.schedule.pauses)
        return tuple(lines)


def plan(
    snapshot: Snapshot,
    config: Config,
    now: datetime,
    memory: WatchMemory,
    pulls: tuple[PullView, ...] = (),
) -> Plan:
    """Run the watchdog, escalation and the scheduler over one snapshot, sharing one start gate;
    people's PRs (`pulls`) get the slots the issues left."""
    watched = watch(snapshot, config, now, memory)
    escalations, remembered = escalate(snapshot, watched.memory)
    landed = handed(snapshot, config, watched.gate)
    decisions = schedule(snapshot, config, now, gate=landed.gate)
    started = (*landed.starts, *decisions.starts)
    reviews = schedule_reviews(pulls, config, now, watched.gate, started)
    return Plan(
        watched.decisions, escalations, decisions, remembered, close_outs(snapshot, now), reviews,
        landed,
    )  # fmt: skip
