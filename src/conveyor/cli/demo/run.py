"""Running the demo: the forge, the stage, the config, the actor and the orchestrator loop."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from conveyor.cli.demo import fake_agent
from conveyor.cli.demo import issues as demo_issues
from conveyor.cli.demo.actor import Actor
from conveyor.cli.demo.bytecode import write_test_bytecode
from conveyor.cli.demo.config import demo_config, write_demo_config
from conveyor.cli.demo.gather import gather
from conveyor.cli.demo.scenario import advance_past_question, shipped_path
from conveyor.cli.demo.table import IssueFacts
from conveyor.job.entry import conveyor_argv

if TYPE_CHECKING:
    from rich.console import Console

    from conveyor.core.config import Config
    from conveyor.emulator.app.server import ForgeServer
    from conveyor.testing.fake_model.playbook import Playbook

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


def prepare(
    server: ForgeServer,
    files: DemoFiles,
    agent: str,
    model_url: str | None = None,
    sandbox: str = "auto",
) -> tuple[dict[str, str], list[int]]:
    """Set the stage and write the config; returns the orchestrator's env and the issue numbers.

    With `model_url` (the fake model's) the real CLI is pointed there, with fake keys;
    `sandbox` is the config's `[sandbox] mode`.
    """
    token, numbers = demo_issues.set_stage(server)
    files.root.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shipped_path(), files.scenario)
    model = None if model_url is None else (fake_agent.demo_model(agent), model_url)
    values = demo_config(
        api_url=server.url,
        home=files.home,
        scenario=files.scenario,
        agent=agent,
        model=model,
        sandbox=sandbox,
    )
    write_demo_config(files.config, values, token)
    write_test_bytecode()  # the boxed test runs cannot keep it
    extra = fake_agent.fake_environ() if model_url is not None else {}
    return {**os.environ, **extra}, sorted(numbers.values())


def run_pipeline(
    server: ForgeServer,
    files: DemoFiles,
    *,
    agent: str,
    console: Console,
    fake_model: bool = False,
    sandbox: str = "auto",
) -> DemoRun:
    """Run the orchestrator until nothing is left to do, the live view showing it.

    The orchestrator is `conveyor run --until-idle` in a child process: this one runs
    threads (the forge, the actor, the live view), and only a single-threaded
    orchestrator starts its jobs by fork. Its log goes to `orchestrator-run.log`.
    """
    from conveyor.cli.config_load import load_config

    began = time.monotonic()
    playbook = fake_agent.demo_playbook(shipped_path()) if fake_model else None
    model = None if playbook is None else fake_agent.start_fake_model(playbook)
    try:
        url = None if model is None else model.url
        environ, opened = prepare(server, files, agent, url, sandbox)
        config = load_config(files.config)
        return _run(
            server, files, config=config, environ=environ, opened=opened, agent=agent,
            console=console, began=began, playbook=playbook,
        )  # fmt: skip
    finally:
        if model is not None:
            model.__exit__(None, None, None)


def _run(
    server: ForgeServer,
    files: DemoFiles,
    *,
    config: Config,
    environ: dict[str, str],
    opened: list[int],
    agent: str,
    console: Console,
    began: float,
    playbook: Playbook | None,
) -> DemoRun:
    """The orchestrator passes, the actor answering, then the facts."""
    from conveyor.cli.live.follow import start_live
    from conveyor.forge.connect import connect
    from conveyor.forge.github import token_forge
    from conveyor.job.layout import repo_home

    person = token_forge(
        demo_issues.REPO, server.add_user(demo_issues.TRUSTED), base_url=server.url
    )

    def advance(tag: str, _number: int) -> None:
        if agent == "scripted":
            advance_past_question(files.scenario, tag)
        elif playbook is not None:
            playbook.drop(tag, "triage")

    actor = Actor(
        person, demo_issues.TRUSTED, demo_issues.ACCOUNT, demo_issues.ANSWERS, on_answer=advance
    )
    home = repo_home(config, environ, files.config.resolve().parent)
    live = start_live(home, console, money_per_day=config.money.per_day)
    argv = [*conveyor_argv(), "run", "--until-idle", "--config", str(files.config)]
    interrupted = False
    actor.start()
    try:
        for _ in range(MAX_PASSES):
            answered = len(actor.answered)
            if run_orchestrator(argv, environ, files.root / "orchestrator-run.log") != 0:
                interrupted = True
                break
            if actor.pass_once() == [] and len(actor.answered) == answered:
                break
    finally:
        actor.stop()
        live.stop()
    forge = connect(config, environ, base_dir=files.config.parent)
    facts = gather(forge, home, opened, account=demo_issues.ACCOUNT, trusted=config.allowed_users)
    return DemoRun(facts, time.monotonic() - began, interrupted=interrupted)


def run_orchestrator(argv: list[str], environ: dict[str, str], log: Path) -> int:
    """Run one `conveyor run --until-idle` to its end; its exit code.

    Ctrl-C reaches it too (same process group): the first makes it cool down, the
    second stops its jobs. This process waits for it either way.
    """
    with log.open("ab") as out:
        child = subprocess.Popen(
            argv, env=environ, stdin=subprocess.DEVNULL, stdout=out, stderr=out
        )
        while True:
            try:
                return child.wait()
            except KeyboardInterrupt:
                continue


def stalled_reason(home: Path) -> str | None:
    """Why nothing moved, as the orchestrator's last status said it: its pauses, one line."""
    import json

    from conveyor.orchestrator.shell.status_file import STATUS_FILE

    for status in sorted(home.glob(f"*/{STATUS_FILE}")):
        try:
            pauses = json.loads(status.read_text(encoding="utf-8")).get("pauses", [])
        except (OSError, ValueError):
            continue
        said = "; ".join(f"{p.get('kind')}: {p.get('reason')}" for p in pauses)
        if said:
            return said
    return None
