"""Verify's results as values: each command, fails-before-fix and the lockfile check."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    """How one command or check ended."""

    PASSED = "passed"
    FAILED = "failed"
    TIMED_OUT = "timed-out"
    SKIPPED = "skipped"


@dataclass(frozen=True)
class CommandResult:
    """One configured command's run: outcome, exit code, duration, its full log and the tail.

    A skipped command has no exit code and no log; `reason` says why it was skipped
    (or, for a failure that is not the command's exit status, what went wrong).
    """

    name: str
    outcome: Outcome
    exit_code: int | None = None
    duration_s: float = 0.0
    log_path: str | None = None
    tail: str = ""
    reason: str = ""

    @property
    def ok(self) -> bool:
        """Passed or skipped: nothing here holds verify back."""
        return self.outcome in (Outcome.PASSED, Outcome.SKIPPED)


def skipped(name: str, reason: str) -> CommandResult:
    """A command that did not run, and why."""
    return CommandResult(name=name, outcome=Outcome.SKIPPED, reason=reason)


@dataclass(frozen=True)
class CheckResult:
    """A check built on commands (fails-before-fix, lockfiles).

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


@dataclass(frozen=True)
class VerifyResult:
    """Everything verify found for one head, ready for a summary or a finding."""

    base_sha: str
    head_sha: str
    commands: tuple[CommandResult, ...]
    fails_before_fix: CheckResult
    lockfiles: CheckResult
    tests_only: bool = False

    @property
    def passed(self) -> bool:
        """Every command and check passed or was skipped."""
        checks = (self.fails_before_fix, self.lockfiles)
        return all(c.ok for c in self.commands) and all(c.ok for c in checks)

    def command(self, name: str) -> CommandResult | None:
        """The result of the command called `name`, if verify has one."""
        return next((c for c in self.commands if c.name == name), None)

    def failures(self) -> tuple[str, ...]:
        """One line per command or check that held verify back."""
        lines = [
            f"{c.name}: {c.outcome.value}"
            + (f" (exit {c.exit_code})" if c.exit_code is not None else "")
            + (f": {c.reason}" if c.reason else "")
            for c in self.commands
            if not c.ok
        ]
        lines += [
            f"{c.name}: {c.outcome.value}: {c.reason}"
            for c in (self.fails_before_fix, self.lockfiles)
            if not c.ok
        ]
        return tuple(lines)

    def summary(self) -> str:
        """A short plain-text account, one line per command and check (not redacted)."""
        lines = [f"verify of {self.head_sha[:12]} against {self.base_sha[:12]}"]
        lines += [
            f"- {c.name}: {c.outcome.value}" + (f" ({c.reason})" if c.reason else "")
            for c in self.commands
        ]
        lines += [
            f"- {c.name}: {c.outcome.value}" + (f" ({c.reason})" if c.reason else "")
            for c in (self.fails_before_fix, self.lockfiles)
        ]
        return "\n".join(lines)
