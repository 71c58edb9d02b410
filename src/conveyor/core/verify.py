"""Verify's results as values: each command, fails-before-fix, the lockfile and migration checks."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    """How one command or check ended."""

    PASSED = "passed"
    FAILED = "failed"
    TIMED_OUT = "timed-out"
    SKIPPED = "skipped"
    # The command could not say anything about the change (setup failed, a usage
    # error, a missing interpreter, a timeout): the environment's fault, not the agent's.
    ENVIRONMENT = "environment-error"


@dataclass(frozen=True)
class CommandResult:
    """One configured command's run: outcome, exit code, duration, its full log and the tail.

    A skipped command has no exit code and no log; `reason` says why it was skipped
    (or, for a failure that is not the command's exit status, what went wrong).
    `command` is the shell command as it ran; `outcomes`, for a test run, where its
    outcomes were read (its JUnit report, or its output). `box` says what the box hid or
    blocked that explains a failure, each with the config line that fixes it.
    """

    name: str
    outcome: Outcome
    exit_code: int | None = None
    duration_s: float = 0.0
    log_path: str | None = None
    tail: str = ""
    reason: str = ""
    command: str = ""
    outcomes: str = ""
    box: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Passed or skipped: nothing here holds verify back."""
        return self.outcome in (Outcome.PASSED, Outcome.SKIPPED)


def skipped(name: str, reason: str) -> CommandResult:
    """A command that did not run, and why."""
    return CommandResult(name=name, outcome=Outcome.SKIPPED, reason=reason)


def environment_note(run: CommandResult, tail_chars: int = 1500) -> str:
    """An environment error as people read it: the command, why, and its output's tail."""
    head = f"`{run.command}`" if run.command else run.name
    why = f": {run.reason}" if run.reason else ""
    tail = run.tail[-tail_chars:].strip()
    box = "".join(f"\n- {line}" for line in run.box)
    box = f"\n\nThe box explains it:{box}" if box else ""
    return f"{run.name} ({head}){why}{box}" + (f"\n\n```\n{tail}\n```" if tail else "")


@dataclass(frozen=True)
class CheckResult:
    """A check built on commands (fails-before-fix, lockfiles, migrations).

    `paths` are the files the check is about: for fails-before-fix the non-test
    paths it reverted, for the lockfile check the lockfiles that differ (or, when
    it passed, the ones it regenerated). `runs` are the commands it ran.
    """

    name: str
    outcome: Outcome
    reason: str = ""
    paths: tuple[str, ...] = ()
    runs: tuple[CommandResult, ...] = ()

    @property
    def ok(self) -> bool:
        """Passed or skipped."""
        return self.outcome in (Outcome.PASSED, Outcome.SKIPPED)


NOT_RUN = CheckResult("migrations", Outcome.SKIPPED, "not run")


@dataclass(frozen=True)
class VerifyResult:
    """Everything verify found for one head, ready for a summary or a finding."""

    base_sha: str
    head_sha: str
    commands: tuple[CommandResult, ...]
    fails_before_fix: CheckResult
    lockfiles: CheckResult
    tests_only: bool = False
    migrations: CheckResult = NOT_RUN
    # The checks that the judges were not gamed: the spec's tests by name, the judges'
    # configuration, new suppressions (`verify.judges`).
    judges: tuple[CheckResult, ...] = ()
    # The keys of the judges' findings a person may accept at a `checks-config` stop.
    held: tuple[str, ...] = ()
    # "What this change does to the checks", as the readers see it (`core.check_facts`).
    facts: str = ""

    @property
    def checks(self) -> tuple[CheckResult, ...]:
        """The checks built on commands: fails-before-fix, lockfiles, migrations (CHK-2..5),
        then the judges' checks."""
        return (self.fails_before_fix, self.lockfiles, self.migrations, *self.judges)

    @property
    def passed(self) -> bool:
        """Every command and check passed or was skipped."""
        return all(c.ok for c in self.commands) and all(c.ok for c in self.checks)

    @property
    def environment(self) -> str:
        """The first environment error, naming the command with its output tail; "" if none."""
        runs = (*self.commands, *(run for check in self.checks for run in check.runs))
        for run in runs:
            if run.outcome is Outcome.ENVIRONMENT:
                return environment_note(run)
        for check in self.checks:
            if check.outcome is Outcome.ENVIRONMENT:
                return f"{check.name}: {check.reason}"
        return ""

    def command(self, name: str) -> CommandResult | None:
        """The result of the command called `name`, if verify has one."""
        return next((c for c in self.commands if c.name == name), None)

    def failed_run(self, name: str) -> CommandResult | None:
        """The command `name` ran, or the last failing run of the check called `name`."""
        check = next((c for c in self.checks if c.name == name), None)
        failing = [r for r in check.runs if not r.ok] if check is not None else []
        return self.command(name) or (failing[-1] if failing else None)

    def failures(self) -> tuple[str, ...]:
        """One line per command or check that held verify back."""
        lines = [
            f"{c.name}: {c.outcome.value}"
            + (f" (exit {c.exit_code})" if c.exit_code is not None else "")
            + (f": {c.reason}" if c.reason else "")
            for c in self.commands
            if not c.ok
        ]
        lines += [f"{c.name}: {c.outcome.value}: {c.reason}" for c in self.checks if not c.ok]
        return tuple(lines)

    def summary(self) -> str:
        """A short plain-text account, one line per command and check (not redacted)."""
        lines = [f"verify of {self.head_sha[:12]} against {self.base_sha[:12]}"]
        lines += [
            f"- {c.name}: {c.outcome.value}"
            + (f" ({c.reason})" if c.reason else "")
            + (f"; outcomes read from {c.outcomes}" if c.outcomes else "")
            for c in self.commands
        ]
        lines += [
            f"- {c.name}: {c.outcome.value}" + (f" ({c.reason})" if c.reason else "")
            for c in self.checks
        ]
        return "\n".join(lines) + (f"\n\n{self.facts}" if self.facts else "")
