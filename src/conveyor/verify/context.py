"""What every verify step shares: the checkout, its commands and environment, where logs go."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from conveyor.core.config import Commands
from conveyor.core.verify import CommandResult, Outcome, skipped
from conveyor.verify import setup_env
from conveyor.verify.commands import run_command
from conveyor.verify.test_paths import fit_command


@dataclass(frozen=True)
class Context:
    """One verify run's fixed inputs.

    `env` is the allowlisted session environment (verify adds nothing to it but
    PYTHONPATH when setup is shared); `work_dir` is where temporary worktrees go
    (None: the system's temp folder); `heartbeat` is called every few seconds
    while a command runs. `envs_dir` holds the shared set-up environments (None:
    setup runs in every tree); `baselines_dir` keeps the failures found at base
    commits; `test_globs` say which words of the test command are test paths.
    """

    checkout: Path
    commands: Commands
    env: Mapping[str, str]
    logs_dir: Path
    work_dir: Path | None = None
    heartbeat: Callable[[], None] | None = None
    envs_dir: Path | None = None
    baselines_dir: Path | None = None
    test_globs: tuple[str, ...] = ()
    lockfiles: tuple[str, ...] = ()

    def run(
        self,
        name: str,
        command: str | None,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run a configured command (skipped when not configured), logging to `<name>.log`."""
        if command is None:
            return skipped(name, "not configured")
        log = self.logs_dir / f"{name.replace(' ', '-')}.log"
        return run_command(
            name,
            command,
            cwd or self.checkout,
            env=self.env if env is None else env,
            timeout_s=float(self.commands.timeout_seconds),
            log_path=log,
            heartbeat=self.heartbeat,
        )

    def setup(self, name: str, tree: Path | None = None) -> CommandResult:
        """Set `tree` up: the shared environment for its dependency files (built once), linked in.

        A setup that does not pass is an environment error: nothing after it can
        say anything about the change.
        """
        tree = tree or self.checkout
        command = self.commands.setup
        if command is None or self.envs_dir is None:
            return _as_environment(self.run(name, command, tree))
        env_dir = self.envs_dir / setup_env.env_key(tree, command, self.lockfiles)
        with setup_env.env_lock(env_dir):
            made = setup_env.ready_products(env_dir)
            if made is None:
                build = setup_env.start_build(tree, env_dir)
                result = self.run(name, command, build)
                if not result.ok:
                    shutil.rmtree(env_dir, ignore_errors=True)
                    return _as_environment(result)
                made = setup_env.products(build)
                setup_env.finish_build(env_dir, made)
            else:
                result = skipped(name, f"environment {env_dir.name[:12]} reused")
        setup_env.link_products(env_dir / "tree", made, tree)
        return result

    def test(self, name: str, tree: Path | None = None) -> CommandResult:
        """Run the test command in `tree`, without the named test files `tree` lacks."""
        tree = tree or self.checkout
        command = fit_command(self.commands.test, tree, self.test_globs)
        if command is None:
            return replace(
                skipped(name, "none of the test files the command names exist here"),
                outcome=Outcome.PASSED,
            )
        env = self.env
        if self.envs_dir is not None and self.commands.setup is not None:
            env = {**env, "PYTHONPATH": setup_env.python_path(tree, env.get("PYTHONPATH"))}
        return self.run(name, command, tree, env)


def _as_environment(result: CommandResult) -> CommandResult:
    if result.ok:
        return result
    why = result.reason or f"the setup command failed (exit {result.exit_code})"
    return replace(result, outcome=Outcome.ENVIRONMENT, reason=why)
