"""The close-out rule: a closed issue whose PR merged but whose close-out did not finish.

The merge closes the issue (`Closes #N`), so a merge job killed or failing before its
close-out leaves a closed issue labelled `agent:working` that no open-issue sweep sees
again (DONE-4). The tick lists those; this rule picks the ones no job may still finish:
no live job of the issue here, and no other lane's live lease on it. What a closed issue
the sweep lists gets is decided here too (`counted`, `closed_outcome`); the sweep
(`shell/closed_sweep.py`) only reads.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from conveyor.core.state import Stage
from conveyor.orchestrator.decisions import FinishCloseOut
from conveyor.orchestrator.snapshot import ClosedView, Snapshot

Outcome = Literal["landing", "close-out", "settled"]


def counted(stage: Stage, *, under_stop: bool) -> bool:
    """Whether a closed issue's PR is read at all: listed under a stop label the handed-over
    rule puts on (`pr-closed`, `branch-changed`), only an issue at `approved` counts (a
    mid-pipeline stop whose PR a person merged is left alone)."""
    return not under_stop or stage is Stage.APPROVED


def closed_outcome(stage: Stage, *, pr_merged: bool) -> Outcome:
    """What a closed issue with a PR gets: merged at `approved`, the handed-over rule's
    landing; merged at any other stage, the close-out; not merged (a person closed it, the
    change is not wanted), nothing: it is settled."""
    if not pr_merged:
        return "settled"
    return "landing" if stage is Stage.APPROVED else "close-out"


def _held_elsewhere(view: ClosedView, lane: str, now: datetime) -> bool:
    lease = view.lease
    return lease is not None and lease.lane != lane and lease.until > now


def close_outs(snapshot: Snapshot, now: datetime) -> tuple[FinishCloseOut, ...]:
    """One finish per merged, closed issue that nothing else is finishing, in issue order."""
    live = {job.issue for job in snapshot.jobs if job.alive}
    return tuple(
        FinishCloseOut(view.number, view.pr, f"PR #{view.pr} merged; its close-out did not finish")
        for view in sorted(snapshot.closed_merged, key=lambda v: v.number)
        if view.number not in live and not _held_elsewhere(view, snapshot.lane, now)
    )
