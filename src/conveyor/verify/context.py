"""What every verify step shares: the checkout, its commands and environment, where logs go."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from conveyor.core.config import Commands
from conveyor.core.runners import report_vars
from conveyor.core.verify import CommandResult, Outcome, skipped
from conveyor.git.plain import Tree
from conveyor.verify import setup_env
from conveyor.verify.box_hints import explained
from conveyor.verify.boxing import Boxing, Opening, setup_proxy, wrapped
from conveyor.verify.commands import run_command
from conveyor.verify.reports import clear_report, report_path, with_report
from conveyor.verify.setup_env import SharedEnv
from conveyor.verify.test_paths import fit_command


@dataclass(frozen=True)
class Context:
    """One verify run's fixed inputs.

    `env` is the allowlisted session environment (verify adds to it only PYTHONPATH
    when setup is shared, and the JUnit report's variables for test runs);
    `work_dir` is where temporary worktrees go (None: the system's temp folder);
    `heartbeat` is called every few seconds while a command runs. `envs_dir` holds
    the shared set-up environments (None: setup runs in every tree); `baselines_dir`
    keeps the failures found at base commits; `test_globs` say which words of the test
    command are test paths, and with `non_code` which changed files are no input of
    what setup generates. `boxing` is the job's box every command runs in (None: bare);
    with `explain_failures`, every failed command says what the box hid (not only one
    that could not run). `git_dir` is the git directory the checkout is read through (the
    job's keep; None: its own `.git`, for a repository no agent writes); `tree` pairs them.
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
    non_code: tuple[str, ...] = ()
    boxing: Boxing | None = None
    explain_failures: bool = False  # every failure says what the box hid (the doctor's trial)
    git_dir: Path | None = None

    @property
    def tree(self) -> Tree:
        """The checkout as git reads it: through its keep."""
        return Tree.of(self.checkout, self.git_dir)

    def run(
        self,
        name: str,
        command: str | None,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        *,
        setup: bool = False,
        writable: tuple[Path, ...] = (),
    ) -> CommandResult:
        """Run a configured command (skipped when not configured), logging to `<name>.log`.

        It runs in the job's box, writing only its tree, the checkout, the JUnit reports'
        folder and `writable`; a `setup` (or lockfile) command also fills the caches and gets the
        network `[sandbox] setup_network` allows.
        """
        if command is None:
            return skipped(name, "not configured")
        log = self.logs_dir / f"{name.replace(' ', '-')}.log"
        where = cwd or self.checkout
        used = self.env if env is None else env
        readable = (self.envs_dir,) if self.envs_dir is not None else ()
        reports = report_path(self.logs_dir, name).parent
        reports.mkdir(parents=True, exist_ok=True)
        opening = Opening(where, (self.checkout, reports, *writable), readable, setup)
        blocked: list[tuple[str, int]] = []
        told = lambda host, port: blocked.append((host, port))  # noqa: E731
        proxy = setup_proxy(self.boxing, opening, self.logs_dir / "network.log", told)
        try:
            result = run_command(
                name,
                command,
                where,
                env=used,
                timeout_s=float(self.commands.timeout_seconds),
                log_path=log,
                heartbeat=self.heartbeat,
                wrap=lambda argv: wrapped(self.boxing, opening, used, argv, proxy),
            )
        finally:
            if proxy is not None:
                proxy.close()
        return explained(result, self.boxing, opening, used, blocked, always=self.explain_failures)

    def test_command(self, tree: Path, files: Sequence[str] | None = None) -> str | None:
        """The command that runs the tests in `tree`: `commands.test` without the named test
        files `tree` lacks, or, for `files`, `commands.test_files` with them in `{tests}`.

        None when there is nothing to run.
        """
        if files is None or self.commands.test_files is None:
            return fit_command(self.commands.test, tree, self.test_globs)
        present = [f for f in files if (tree / f).exists()]
        if not present:
            return None
        return self.commands.test_files.replace("{tests}", shlex.join(present))

    def test(
        self,
        name: str,
        tree: Path,
        shared: SharedEnv | None,
        files: Sequence[str] | None = None,
    ) -> CommandResult:
        """Run the tests in `tree` (see `test_command`), asking for a JUnit report, with
        `CI=true` as on a CI runner (unless CI is set).

        A tree given the `shared` environment gets its import roots first on PYTHONPATH.
        """
        command = self.test_command(tree, files)
        if command is None:
            return replace(
                skipped(name, "none of the test files the command names exist here"),
                outcome=Outcome.PASSED,
            )
        env = dict(self.env)
        if shared is not None:
            roots = shared.record.roots
            env["PYTHONPATH"] = setup_env.python_path(tree, roots, env.get("PYTHONPATH"))
        report = report_path(self.logs_dir, name)
        clear_report(report)
        asked = with_report(env, report) | dict.fromkeys(report_vars(), str(report))
        # As on a CI runner: jest then never writes a missing snapshot (its --ci), vitest and
        # jest never wait in watch mode. A CI the user passes through is kept.
        asked.setdefault("CI", "true")
        return self.run(name, command, tree, asked)
