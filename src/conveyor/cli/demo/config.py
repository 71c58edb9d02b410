"""The demo's config file: the embedded forge, fast polls, no budgets, the scripted agent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conveyor.cli.demo.issues import ACCOUNT, REPO, TRUSTED, test_command
from conveyor.core.backends import NAMES

# The pipeline account's token, in a file beside the config (owner-only): the config
# still works after the demo exits (`conveyor status`, `doctor`, `run` against the forge
# served again), and no process environment carries the token.
TOKEN_FILE = "token"  # noqa: S105 - the file's name, not a secret
REAL_AGENTS: tuple[str, ...] = NAMES
# A real agent's run is capped: the demo's issues are small, this is a safety net.
REAL_AGENT_DAY_BUDGET = 5.0


def demo_config(
    *,
    api_url: str,
    home: Path,
    scenario: Path,
    agent: str = "scripted",
    model: tuple[str, str] | None = None,
    sandbox: str = "auto",
) -> dict[str, Any]:
    """The config's values: claim wait 0, 1 s polls, three jobs, token and money caps off.

    A real `agent` replaces the scripted one and gets a daily money budget; `model`
    (a model name and a base URL) points it at another model server (the fake model).
    `sandbox` is `[sandbox] mode` (`conveyor demo --sandbox`).
    """
    choice: dict[str, Any] = {"agent": "scripted", "scenario": str(scenario)}
    money: dict[str, Any] = {}
    if agent != "scripted":
        choice = {"agent": agent}
        money = {"per_day": REAL_AGENT_DAY_BUDGET}
    if agent != "scripted" and model is not None:
        choice |= {"model": model[0], "base_url": model[1]}
    values: dict[str, Any] = {
        "repo": REPO,
        "base": "main",
        "home": str(home),
        "allowed_users": [TRUSTED],
        "forge": {"kind": "local", "api_url": api_url},
        "account": {"login": ACCOUNT, "token_file": TOKEN_FILE},
        "commands": {"test": test_command(), "timeout_seconds": 120},
        "limits": {
            "claim_wait_seconds": [0, 0],
            "poll_seconds": 1,
            "ci_poll_seconds": 1,
            "max_jobs": 3,
            "tokens_per_hour": 0,
            # The orchestrator's merge queue and the merge job's PR-age order can disagree
            # and hold each other forever (see the demo's notes); one merge slot keeps order.
            "merge_order": False,
        },
        "agents": {"default": choice},
        "wiki": True,
        "sandbox": {"mode": sandbox},
    }
    if money:
        values["money"] = money
    return values


def write_demo_config(path: Path, values: dict[str, Any], token: str | None = None) -> Path:
    """Write the config as TOML at `path` (outside the repository), validated first, and the
    account's `token` (when given) owner-only beside it."""
    import os

    from conveyor.cli.config_load import ConfigError, parse_config
    from conveyor.testing.world import config_toml

    text = config_toml(values)
    try:
        parse_config(text, str(path))  # as it will be read back: the same text, parsed once
    except ConfigError as exc:
        raise ValueError(str(exc)) from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    if token is not None:
        secret = path.with_name(TOKEN_FILE)
        descriptor = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as out:
            out.write(token + "\n")
    path.write_text(text, encoding="utf-8")
    return path
