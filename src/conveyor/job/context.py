"""`JobContext`: everything the stage runner needs to run one stage of one issue, in four parts.

The job process (`job/main.py`) builds it after the claim and the checkout
(`job/assemble.py`); the runner (`job/runner.py`) gets it with the claimed state
and returns a `StageEnd`. What the job works on, where and who acts are the
ops' parts (`conveyor.job.effects.parts`): each op takes only those it needs. The
live part (hub, job file, event log, clock, the sessions started ahead) stays with the job.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from conveyor.core.state import IssueState
from conveyor.job.alongside import Alongside
from conveyor.job.effects.parts import JobHands, JobPlace, JobPulse, JobSubject, ScenarioMissing
from conveyor.job.events import EventLog
from conveyor.job.hub import JobHub
from conveyor.job.jobfile import JobFile
from conveyor.job.roles import JobRole
from conveyor.stages.effects import SessionEnded

# How a session ended, and whether it kept a handoff for a continuation.
Launched = tuple[SessionEnded | ScenarioMissing, bool]
StageOutcome = Literal["saved", "stopped", "asked", "split", "merged", "released", "interrupted"]


@dataclass(frozen=True)
class StageEnd:
    """How the runner ended the stage; `state` is what it last saved on the forge.

    saved: at the next stage; stopped / asked / split / merged: the issue's end
    for now; released: unfinished, lease released (CLAIM-14); interrupted: the
    hub was interrupted (SIGTERM/SIGINT) and the runner stopped early.
    """

    outcome: StageOutcome
    state: IssueState
    detail: str = ""


@dataclass(frozen=True)
class JobLive:
    """The running job: its id, role and lane, its hub, job file, event log and clock, and
    the sessions its stage started ahead (`job/alongside.py`: a first review's later lenses),
    and whether its first session was told the previous job was interrupted
    (`job/interrupted.py`: one note a job)."""

    job_id: str
    role: JobRole
    lane: str
    events: EventLog
    job_file: JobFile
    hub: JobHub
    now: Callable[[], datetime]
    alongside: Alongside[Launched] = field(default_factory=Alongside)
    told_interrupted: threading.Event = field(default_factory=threading.Event)

    @property
    def pulse(self) -> JobPulse:
        """The part of the running job the ops see: events, heartbeat, clock, interrupt."""
        return JobPulse(self.events.emit, self.job_file.heartbeat, self.now, self.hub.interrupted)

    def interrupted(self) -> bool:
        """Whether SIGTERM/SIGINT arrived: end the stage with outcome `interrupted`."""
        return self.hub.interrupted.is_set()


@dataclass(frozen=True)
class JobContext:
    """One stage job: what it works on, where, who acts, and the running job itself."""

    what: JobSubject
    where: JobPlace
    who: JobHands
    live: JobLive

    def interrupted(self) -> bool:
        """Whether SIGTERM/SIGINT arrived: end the stage with outcome `interrupted`."""
        return self.live.interrupted()
