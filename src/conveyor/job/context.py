"""`JobContext`: everything the stage runner needs to run one stage of one issue.

The job process (`job/main.py`) builds it after the claim and the checkout;
the runner (`job/runner.py`) gets it with the claimed state and returns a
`StageEnd`. The runner never reads a token: `push` and the ops hold the
credentials, `token_secrets` is only for redacting posted text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol

from conveyor.core.config import Config
from conveyor.core.state import IssueState, Stage
from conveyor.forge.protocol import Forge
from conveyor.git.runner import Repo
from conveyor.git.token_push import PushResult
from conveyor.job.events import EventLog
from conveyor.job.hub import JobHub
from conveyor.job.jobfile import JobFile
from conveyor.job.roles import JobRole
from conveyor.ops.context import OpContext
from conveyor.ops.wiki_branch import WikiCheckout

BRANCH_PREFIX = "agent/issue-"


class Pusher(Protocol):
    """The push op bound to this job's checkout and credentials.

    `src` is a revision of the checkout (None deletes `dst`); `dst` a full ref
    name (`refs/heads/agent/issue-7`). `lease` is the SHA the remote ref must
    still hold (`""`: must not exist); without `lease` or `force` only a
    fast-forward is accepted. Refusals come back as `ok=False`, not raised.
    """

    def __call__(
        self, src: str | None, dst: str, *, lease: str | None = None, force: bool = False
    ) -> PushResult:
        """Push one ref to the forge."""
        ...


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
class JobContext:
    """One stage job's fixed inputs and the handles to its effects."""

    config: Config
    forge: Forge
    ops: OpContext
    issue: int
    stage: Stage
    role: JobRole
    lane: str
    job_id: str
    run_id: str
    home: Path
    job_dir: Path
    run_dir: Path
    checkout: Path
    sessions_dir: Path
    issue_file: Path
    environ: Mapping[str, str]
    command_env: Mapping[str, str]
    token_env: tuple[str, ...]
    token_secrets: tuple[str, ...]
    events: EventLog
    job_file: JobFile
    hub: JobHub
    control_socket: Path
    git_config: Path
    git: Repo
    now: Callable[[], datetime]
    push: Pusher
    resume: bool = False
    # The wiki checkout inside `checkout`, when the wiki is on and has pages (WT-7, WT-11).
    wiki: WikiCheckout | None = None

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

    def interrupted(self) -> bool:
        """Whether SIGTERM/SIGINT arrived: end the stage with outcome `interrupted`."""
        return self.hub.interrupted.is_set()
