"""`notify.command`: the operator's own command, told of every stop and every handover.

Run through the shell in the repository's home with what happened in its environment:
`CONVEYOR_NOTIFY_EVENT` (`stopped` or `approved`), `CONVEYOR_NOTIFY_REPO`,
`CONVEYOR_NOTIFY_ISSUE` and `CONVEYOR_NOTIFY_URL` (the issue's page), and for a stop
`CONVEYOR_NOTIFY_CONTROL`, `CONVEYOR_NOTIFY_STAGE` and `CONVEYOR_NOTIFY_REASON`, for a
handover `CONVEYOR_NOTIFY_PR` and `CONVEYOR_NOTIFY_PR_URL`. The rest of the environment is
Conveyor's own, without the variables that hold the forge's token. A failing, missing or
slow command is reported in one line, never fatal: the stop or handover stands.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from conveyor.core.config import Config

Event = Literal["stopped", "approved"]


@dataclass(frozen=True)
class Happened:
    """What the command is told: the event, the issue, and its details."""

    event: Event
    issue: int
    pr: int | None = None
    control: str = ""
    stage: str = ""
    reason: str = ""


def notify_env(
    config: Config, environ: Mapping[str, str], happened: Happened, hidden: tuple[str, ...]
) -> dict[str, str]:
    """The command's environment: Conveyor's own less `hidden` (token variables), and the news."""
    web = f"{config.forge.web_url}/{config.repo}"
    env = {name: value for name, value in environ.items() if name not in hidden}
    env |= {
        "CONVEYOR_NOTIFY_EVENT": happened.event,
        "CONVEYOR_NOTIFY_REPO": config.repo,
        "CONVEYOR_NOTIFY_ISSUE": str(happened.issue),
        "CONVEYOR_NOTIFY_URL": f"{web}/issues/{happened.issue}",
    }
    if happened.pr is not None:
        env["CONVEYOR_NOTIFY_PR"] = str(happened.pr)
        env["CONVEYOR_NOTIFY_PR_URL"] = f"{web}/pull/{happened.pr}"
    if happened.event == "stopped":
        env["CONVEYOR_NOTIFY_CONTROL"] = happened.control
        env["CONVEYOR_NOTIFY_STAGE"] = happened.stage
        env["CONVEYOR_NOTIFY_REASON"] = happened.reason
    return env


def run_notify(
    config: Config, environ: Mapping[str, str], happened: Happened, *, cwd: Path,
    hidden: tuple[str, ...] = (),
) -> str | None:  # fmt: skip
    """Run `notify.command` (when set); why it failed, in one line, or None."""
    command = config.notify.command
    if command is None:
        return None
    env = notify_env(config, environ, happened, (*hidden, *_token_names(config)))
    try:
        cwd.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(  # noqa: S602 - the operator's own configured command
            command, shell=True, env=env, cwd=cwd, timeout=config.notify.timeout_seconds,
            capture_output=True, text=True, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return f"notify.command ran past {config.notify.timeout_seconds:g} s for #{happened.issue}"
    except OSError as error:
        return f"notify.command could not run for #{happened.issue}: {error}"
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        tail = f": {said[-1][:200]}" if said else ""
        return f"notify.command exited {done.returncode} for #{happened.issue}{tail}"
    return None


def _token_names(config: Config) -> tuple[str, ...]:
    """The variable the config reads the token from, never handed on."""
    return () if config.account.token_env is None else (config.account.token_env,)
