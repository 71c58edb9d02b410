"""Which stage job an issue runs next, or why none runs: one rule for drive and the orchestrator."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from conveyor.core.pickup import IssueFacts, pickup
from conveyor.core.restart import restart
from conveyor.core.state import Stage
from conveyor.core.trust import Trust

HaltReason = Literal[
    "merged",
    "approved",
    "stopped",
    "asked",
    "split",
    "waiting",
    "closed",
    "untrusted",
    "leased",
    "broken",
]
_SKIPS: dict[str, HaltReason] = {
    "closed": "closed",
    "untrusted": "untrusted",
    "stopped": "stopped",
    "left-stopped": "stopped",
    "waiting-for-answer": "asked",
    "merged": "merged",
    "approved": "approved",
    "split": "split",
    "leased": "leased",
    "state-too-new": "broken",
    "state-undecodable": "broken",
}


@dataclass(frozen=True)
class Halt:
    """No job runs: why (merged, stopped, asked, split, waiting on `after`, closed, …)."""

    reason: HaltReason


def next_stage(
    facts: IssueFacts,
    trust: Trust,
    now: datetime,
    lease_hours: float,
    *,
    lane: str,
    open_after: Iterable[int] = (),
    take_stopped: bool = False,
) -> Stage | Halt:
    """The stage of the issue's next job for `lane`, or why there is none.

    `open_after` lists the issues this one must wait for that are not yet done
    (`drive` holds an `after` mark; only the orchestrator stacks, STK-8). The
    lane's own live lease does not hold it back: a lane's jobs follow one another.
    """
    decision = pickup(facts, trust, now, lease_hours, by_number=True, take_stopped=take_stopped)
    state = facts.state
    if decision.action == "skip":
        lease = state.lease if state is not None else None
        own = decision.reason == "leased" and lease is not None and lease.lane == lane
        if not own:
            return Halt(_SKIPS.get(decision.reason, "waiting"))
    if state is None:
        return Stage.TRIAGE
    if decision.action == "restart" and state.stopped is not None:
        state = restart(state)
    if state.stage is Stage.DONE:
        return Halt("merged")
    if state.stage is Stage.APPROVED:
        return Halt("approved")
    if tuple(open_after):
        return Halt("waiting")
    return state.stage
