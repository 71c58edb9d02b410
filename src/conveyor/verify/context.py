"""What every verify step shares: the checkout, its commands and environment, where logs go."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from conveyor.core.config import Commands
from conveyor.core.verify import CommandResult, skipped
from conveyor.verify.commands import run_command


@dataclass(frozen=True)
class Context:
    """One verify run's fixed inputs.

    `env` is the allowlisted session environment (verify adds nothing to it);
    `work_dir` is where temporary worktrees go (None: the system's temp folder);
    `heartbeat` is called every few seconds while a command runs.
    """

    checkout: Path
    commands: Commands
    env: Mapping[str, str]
    logs_dir: Path
    work_dir: Path | None = None
    heartbeat: Callable[[], None] | None = None

    def run(self, name: str, command: str | None, cwd: Path | None = None) -> CommandResult:
        """Run a configured command (skipped when not configured), logging to `<name>.log`."""
        if command is None:
            return skipped(name, "not configured")
        log = self.logs_dir / f"{name.replace(' ', '-')}.log"
        return run_command(
            name,
            command,
            cwd or self.checkout,
            env=self.env,
            timeout_s=float(self.commands.timeout_seconds),
            log_path=log,
            heartbeat=self.heartbeat,
        )
