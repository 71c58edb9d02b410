"""Running the demo: the forge, the stage, the config, the actor and the orchestrator loop."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from conveyor.cli.demo import issues as demo_issues
from conveyor.cli.demo.actor import Actor
from conveyor.cli.demo.config import TOKEN_ENV, demo_config, write_demo_config
from conveyor.cli.demo.gather import gather
from conveyor.cli.demo.scenario import advance_past_question, shipped_path
from conveyor.cli.demo.table import IssueFacts

if TYPE_CHECKING:
    from rich.console import Console

    from conveyor.testing.emulator import ForgeServer

# Enough loop passes for every answer the actor can give, with room to spare.
MAX_PASSES = 5


@dataclass(frozen=True)
class DemoFiles:
    """Where the demo keeps its config, scenario and Conveyor's home, beside the forge's data."""

    root: Path

    @property
    def config(self) -> Path:
        """The config file (outside the repository, as for any target)."""
        return self.root / "conveyor.toml"

    @property
    def scenario(self) -> Path:
        """The run's copy of the shipped scenario (the actor advances it)."""
        return self.root / "scenario.json"

    @property
    def home(self) -> Path:
        """`$CONVEYOR_HOME` of the demo."""
        return self.root / "home"


@dataclass(frozen=True)
class DemoRun:
    """What the run left: the facts per issue, the wall time, and the loop's exit code."""

    facts: list[IssueFacts]
    seconds: float
    interrupted: bool


def prepare(server: ForgeServer, files: DemoFiles, agent: str) -> tuple[dict[str, str], list[int]]:
    """Set the stage and write the config; returns the orchestrator's env and the issue numbers."""
    token, numbers = demo_issues.set_stage(server)
    files.root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shipped_path(), files.scenario)
    values = demo_config(api_url=server.url, home=files.home, scenario=files.scenario, agent=agent)
    write_demo_config(files.config, values)
    return {**os.environ, TOKEN_ENV: token}, sorted(numbers.values())


def run_pipeline(server: ForgeServer, files: DemoFiles, *, agent: str, console: Console) -> DemoRun:
    """Run the orchestrator until nothing is left to do, the live view showing it."""
    from conveyor.cli.config_load import load_config, repo_home
    from conveyor.cli.live.follow import start_live
    from conveyor.forge.github import token_forge
    from conveyor.orchestrator.shell.loop import Interrupts, catching, open_orchestrator, run_loop

    began = time.monotonic()
    environ, opened = prepare(server, files, agent)
    config = load_config(files.config)
    person = token_forge(
        demo_issues.REPO, server.add_user(demo_issues.TRUSTED), base_url=server.url
    )

    def advance(tag: str, _number: int) -> None:
        if agent == "scripted":
            advance_past_question(files.scenario, tag)

    actor = Actor(
        person, demo_issues.TRUSTED, demo_issues.ACCOUNT, demo_issues.ANSWERS, on_answer=advance
    )
    home = repo_home(config)
    orc = open_orchestrator(config, files.config, environ, echo=False)
    live = start_live(home, console, money_per_day=config.money.per_day)
    interrupts = Interrupts()
    actor.start()
    try:
        with catching(interrupts), orc.store:
            for _ in range(MAX_PASSES):
                answered = len(actor.answered)
                run_loop(orc, interrupts, until_idle=True)
                if interrupts.count or (
                    actor.pass_once() == [] and len(actor.answered) == answered
                ):
                    break
    finally:
        actor.stop()
        live.stop()
    facts = gather(
        orc.forge, home, opened, account=demo_issues.ACCOUNT, trusted=config.allowed_users
    )
    return DemoRun(facts, time.monotonic() - began, interrupted=interrupts.count > 0)
