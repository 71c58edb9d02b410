"""The parts of a stage job the effect ops take: what it works on, where, and who acts.

A job's context (`conveyor.job.context.JobContext`) is these three plus its live
part (hub, job file, event log, clock), which stays in the job. Each op takes only
the parts it needs; what it tells the running job (events, heartbeat) and reads from
it (clock, interrupt) is a `JobPulse`. A push the forge refuses is a `PushRefused`
value, which the runner turns into the PUSH_REJECTED stop; a branch holding a person's work
a `BranchHeld`, a session the scripted agent cannot play a `ScenarioMissing`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Protocol

from conveyor.core.config import Config
from conveyor.core.stacking import BRANCH_PREFIX
from conveyor.core.state import Stage
from conveyor.forge.protocol import Forge
from conveyor.git.plain import Tree
from conveyor.git.runner import Repo
from conveyor.job.effects.push import HeadsSeen, Pusher
from conveyor.job.events import EventKind
from conveyor.ops.forge.context import OpContext
from conveyor.ops.local.wiki_branch import WikiCheckout
from conveyor.verify.boxing import Boxing


class Emit(Protocol):
    """Report one event of the job (`runs/issue-N/events.jsonl`)."""

    def __call__(self, kind: EventKind, **fields: object) -> None:
        """Append the event; values must be JSON-able."""
        ...


@dataclass(frozen=True)
class JobSubject:
    """What the job works on: the issue, its stage, the configuration and the run."""

    config: Config
    issue: int
    stage: Stage
    run_id: str
    resume: bool = False

    @property
    def branch(self) -> str:
        """The issue's branch, `agent/issue-N`."""
        return f"{BRANCH_PREFIX}{self.issue}"

    @property
    def branch_ref(self) -> str:
        """The issue's branch as a full ref name."""
        return f"refs/heads/{self.branch}"

    @property
    def base(self) -> str:
        """The base branch PRs merge into."""
        return self.config.base


@dataclass(frozen=True)
class JobPlace:
    """Where the job works: its folders, the checkout and its git, the wiki checkout."""

    home: Path
    job_dir: Path
    run_dir: Path
    checkout: Path
    sessions_dir: Path
    issue_file: Path
    control_socket: Path
    git_config: Path
    git: Repo
    # The wiki checkout inside `checkout`, when the wiki is on and has pages (WT-7, WT-11).
    wiki: WikiCheckout | None = None
    # The box the job's commands run in, and their base plan (`job.box_plans`).
    boxing: Boxing | None = None

    @property
    def tree(self) -> Tree:
        """The checkout as Conveyor's git reads it: through its keep."""
        return Tree(self.checkout, self.git.git_dir)


@dataclass(frozen=True)
class JobHands:
    """Who acts on the world: the forge, the ops' view of it, the push op, the environments.

    The job never reads a token: `push` and the ops hold the credentials;
    `token_secrets` is only for redacting posted text.
    """

    forge: Forge
    ops: OpContext
    push: Pusher
    environ: Mapping[str, str]
    command_env: Mapping[str, str]
    token_env: tuple[str, ...]
    token_secrets: tuple[str, ...]
    # Each remote ref's head as the job last fetched or pushed it (the push op records it).
    seen: HeadsSeen = field(default_factory=HeadsSeen)


@dataclass(frozen=True)
class JobPulse:
    """What ops tell the running job and read from it: events, heartbeat, clock, interrupt."""

    emit: Emit
    heartbeat: Callable[[], None]
    now: Callable[[], datetime]
    interrupted: threading.Event


@dataclass(frozen=True)
class PushRefused:
    """The forge refused a push the stage needs: the runner stops the issue (PUSH_REJECTED)."""

    reason: str


@dataclass(frozen=True)
class BranchHeld:
    """The branch holds work that is not the pipeline's, which the push or reset would have
    discarded: left as it is, and the runner stops the issue (BRANCH_CHANGED, SPEC-128)."""

    reason: str


@dataclass(frozen=True)
class ScenarioMissing:
    """The scripted agent's scenario cannot play the session: the runner stops the issue
    (`error`), naming the file and the session, and no agent is paused for it."""

    reason: str
