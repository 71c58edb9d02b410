"""The handed-over rule: what becomes of an approved issue once a person acts on its PR.

Pure, over the snapshot's `handed` views (`handover.merge = "person"` left the PR for a
person). What a person did decides:

- **merged**: a merge job lands the issue, as the pipeline's own merge ends one (the wiki
  published, the close-out, teardown, the parent closed, `agent:merged`, done); it is a
  merge start through the same gate, before the scheduler's starts (merges go first);
- **closed without a merge**: the issue stops `pr-closed` (a person lifts it to have the PR
  handed over again, or closes the issue);
- **pushed after the handover** (the open PR's head is not the one Conveyor verified and
  handed over): the issue stops `branch-changed`, as a push to the branch mid-pipeline does.
  `agent:approved` comes off, so nobody reads the new commits as verified; lifting the stop
  reviews the person's head from scratch, then verify, CI, acceptance and the security
  review run again before a new handover. A person who merges it anyway still lands it,
  and the closing comment names the head Conveyor did not verify.

An issue with a live job, a stop (until a person lifts it), or another lane's live lease
gets nothing else here; a merge lands whatever stop the issue carries.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from conveyor.core.config import Config
from conveyor.core.labels import stop_code_of
from conveyor.core.state import Stage, Stopped
from conveyor.core.stops import StopCode
from conveyor.orchestrator.decisions import Hold, StartJob, StopIssue
from conveyor.orchestrator.gate import Gate, admit, reserve
from conveyor.orchestrator.snapshot import HandedView, IssueView, Snapshot


@dataclass(frozen=True, slots=True)
class Handed:
    """The landings to start, the stops to make, the holds, and the gate the scheduler goes
    on with."""

    gate: Gate
    starts: tuple[StartJob, ...] = ()
    stops: tuple[StopIssue, ...] = ()
    holds: tuple[Hold, ...] = ()


def standing_stop(labels: Iterable[str], recorded: Stopped | None) -> StopCode | None:
    """The issue's stop label, or the stop its state records when a person lifted the label
    and the restart has not run yet (the restart, not a new stop, answers what they did)."""
    labelled = stop_code_of(labels)
    if labelled is not None:
        return labelled
    return recorded.control if recorded is not None else None


def moved(view: HandedView) -> bool:
    """The open PR's head is not the one Conveyor verified and handed over."""
    return view.head is not None and view.verified is not None and view.head != view.verified


def _as_issue(view: HandedView, gate: Gate) -> IssueView:
    """The view the start gate reads of a landing (a closed issue has no scheduler view)."""
    return IssueView(view.number, gate.now, Stage.MERGE, lease=view.lease, pr=view.pr)


def _stop(view: HandedView) -> StopIssue | None:
    """The stop a person's act on the open or closed, unmerged PR asks for, if any."""
    if view.stopped is not None or not view.issue_open:
        return None
    if view.pr_state == "closed":
        why = f"PR #{view.pr} was closed without being merged after its handover"
        return StopIssue(view.number, StopCode.PR_CLOSED, why)
    if view.pr_state == "open" and moved(view):
        assert view.head is not None
        assert view.verified is not None
        why = (
            f"PR #{view.pr}'s head moved to {view.head[:12]} after its handover at"
            f" {view.verified[:12]}: Conveyor did not verify the new commits"
        )
        return StopIssue(view.number, StopCode.BRANCH_CHANGED, why)
    return None


def handed(snapshot: Snapshot, config: Config, gate: Gate) -> Handed:
    """The decisions for every handed-over issue, in issue order."""
    starts: list[StartJob] = []
    stops: list[StopIssue] = []
    holds: list[Hold] = []
    for view in sorted(snapshot.handed, key=lambda v: v.number):
        if view.number in gate.busy:
            continue
        if view.pr_state == "merged":
            admitted = admit(gate, config, _as_issue(view, gate), Stage.MERGE)
            if isinstance(admitted, str):
                holds.append(Hold(view.number, Stage.MERGE, admitted))
                continue
            gate = admitted
            why = f"PR #{view.pr} merged by a person: its close-out, as the pipeline's own merge"
            starts.append(StartJob(view.number, Stage.MERGE, why))
        elif (stop := _stop(view)) is not None:
            gate = reserve(gate, view.number)
            stops.append(stop)
    return Handed(gate, tuple(starts), tuple(stops), tuple(holds))
