"""A job that ends while the tick reads the forge is never started again for the stage it did."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from conveyor.cli.config_load import load_config
from conveyor.core.state import IssueState, Stage
from conveyor.emulator.app.server import ForgeServer
from conveyor.forge.github import GitHubForge
from conveyor.forge.types import CommentPage
from conveyor.job.jobfile import Finished, JobRecord, process_start_ticks
from conveyor.ops.forge.context import OpContext
from conveyor.ops.forge.state_store import save_state
from conveyor.orchestrator.shell.executor import JobHandle
from conveyor.orchestrator.shell.snapshot_store import CACHE_FILE, SnapshotStore
from conveyor.orchestrator.shell.tick import Orchestrator, tick
from conveyor.orchestrator.shell.tick_files import LOG_FILE, OrchestratorLog
from conveyor.testing.world import ACCOUNT, World

LANE = "lane-a"


@dataclass
class Starts:
    """An executor that starts nothing and remembers what it was asked to start."""

    asked: list[tuple[int, Stage]] = field(default_factory=list)

    def start(
        self,
        issue: int,
        stage: Stage,
        now: datetime,
        *,
        resume: bool = False,
        stack_on: int | None = None,
    ) -> JobHandle:
        """Record the start (its fake pid never runs)."""
        self.asked.append((issue, stage))
        return JobHandle(issue, stage, 2_000_000_000, None, now)

    def alive(self, handle: JobHandle) -> bool:
        """Nothing started here runs."""
        return False

    def terminate(self, handle: JobHandle) -> None:
        """Nothing to stop."""


class EndsDuringRead:
    """The pipeline's forge; the first comment read is answered as it was asked, and then the
    triage job saves the issue at spec and records its end (as if in that very moment)."""

    def __init__(self, inner: GitHubForge, end: Callable[[], None]) -> None:
        self.inner = inner
        self.end = end
        self.done = False

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def list_comments(self, number: int, etag: str | None = None) -> CommentPage:
        """The comments as read; the job ends right after the first read."""
        page = self.inner.list_comments(number, etag)
        if not self.done:
            self.done = True
            self.end()
        return page


def test_a_job_ending_during_the_forge_read_is_not_started_again_for_its_own_stage(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """The tick reads the jobs before the forge: the triage job still ran then, so nothing is
    started; the next tick sees the issue at spec."""
    world = World.create(forge_server, tmp_path / "world", config={"commands": {"test": "true"}})
    number = world.open_issue("Add a total", "Sum it.").number
    config = load_config(world.config_path)
    home = world.repo_home
    folder = home / "jobs" / f"issue-{number}-triage-x"
    folder.mkdir(parents=True)
    started = datetime.now(UTC) - timedelta(seconds=5)
    record = JobRecord(
        issue=number, stage="triage", role="reader", lane=LANE, job_id=folder.name,
        pid=os.getpid(), process_start=process_start_ticks(os.getpid()),
        started_at=started, heartbeat=started,
    )  # fmt: skip
    (folder / "job.json").write_text(record.model_dump_json())
    bot = world.forge_as(ACCOUNT)

    def end() -> None:
        save_state(OpContext(bot, config, run_id="triage"), number, IssueState(stage=Stage.SPEC))
        done = record.model_copy(update={"finished": Finished(outcome="saved", at=started)})
        (folder / "job.json").write_text(done.model_dump_json())

    starts = Starts()
    forge = EndsDuringRead(bot, end)
    orc = Orchestrator(
        config, home, LANE, forge, SnapshotStore(home / CACHE_FILE, ACCOUNT),  # type: ignore[arg-type]
        starts, {}, OrchestratorLog(home / LOG_FILE),
    )  # fmt: skip
    tick(orc, datetime.now(UTC))
    assert starts.asked == []
    tick(orc, datetime.now(UTC))
    assert starts.asked == [(number, Stage.SPEC)]
