"""The doctor's checks: each returns what it found, named, and whether it passed.

Forge checks go through the `Forge` protocol; listing labels (which the
protocol has no call for) is one paged REST read with the account's token.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from conveyor.agents.launch import resolve_choice
from conveyor.core.backends import facts_of
from conveyor.core.config import Config, Role
from conveyor.core.invariants import IssueSnapshot, PrSnapshot, Snapshot, check_invariants
from conveyor.core.labels import all_labels
from conveyor.core.trust import same_login
from conveyor.forge.contact import cause
from conveyor.forge.errors import ForgeError
from conveyor.forge.protocol import Forge
from conveyor.ops.forge.labels import intake_specs, spec_of

WRITE = frozenset({"admin", "maintain", "write"})
MISSING = 127  # the shell's code for a command that is not there
VERSION_TIMEOUT_S = 20.0
SHELL_WORDS = frozenset({"!", "for", "if", "while", "until", "case", "[", "test", "true", "false"})
SHELL_WORDS |= frozenset({"exit", "cd", "export", "set", ":", "."})


@dataclass(frozen=True, slots=True)
class Check:
    """One finding: what was checked, whether it passed, and what was seen."""

    name: str
    ok: bool
    detail: str


Probe = Callable[[list[str]], tuple[int, str]]


def run_probe(argv: list[str]) -> tuple[int, str]:
    """Run a version command; its exit status and first output line (127 when missing)."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, timeout=VERSION_TIMEOUT_S, check=False
        )
    except FileNotFoundError:
        return MISSING, "not found"
    except (OSError, subprocess.TimeoutExpired) as error:
        return 126, str(error)
    lines = (done.stdout or done.stderr).strip().splitlines()
    return done.returncode, lines[0] if lines else ""


def check_repository(forge: Forge, config: Config) -> Check:
    """The repository exists and the token can see it (GitHub answers 404 for both)."""
    try:
        info = forge.repo_info()
    except ForgeError as error:
        return Check("repository", False, cause(error, config))
    return Check("repository", True, f"{config.repo} (default branch {info.default_branch})")


def check_account(forge: Forge, config: Config) -> list[Check]:
    """The token acts as the configured account, which can write; the allowed users collaborate."""
    login = config.account.login
    acting = forge.whoami()
    found = [Check("account", same_login(acting, login), f"the token acts as {acting!r}")]
    permission = forge.permission(login)
    found.append(
        Check("permission", permission in WRITE, f"{login} has {permission!r} on {config.repo}"
              " (writing issues, labels and pull requests needs write)")
    )  # fmt: skip
    for user in config.allowed_users:
        ok = forge.is_collaborator(user)
        detail = f"{user} is {'a' if ok else 'not a'} collaborator"
        found.append(Check(f"allowed user {user}", ok, detail))
    return found


def check_labels(forge: Forge, config: Config, *, fix: bool) -> Check:
    """Every pipeline label and the intake filter's labels exist (created with `--fix`, which
    also makes the priority and size labels people set; their absence fails nothing)."""
    extra = intake_specs(config.intake)
    required = {name.casefold() for name in config.intake.labels}
    wanted = [spec_of(label) for label in all_labels()]
    wanted += [spec for spec in extra if spec.name.casefold() in required]
    optional = [spec for spec in extra if spec.name.casefold() not in required]
    if fix:
        forge.ensure_labels([*wanted, *optional])
        made = len(wanted) + len(optional)
        return Check("labels", True, f"{made} labels exist (missing ones created)")
    if config.account.app is not None:
        return Check("labels", True, "not listed with a GitHub App; run with --fix to create")
    have = forge.label_names()
    missing = [spec.name for spec in wanted if spec.name.lower() not in have]
    if missing:
        return Check("labels", False, f"missing {', '.join(missing)} (run with --fix)")
    absent = [spec.name for spec in optional if spec.name.lower() not in have]
    later = f"; --fix also makes {', '.join(absent)}" if absent else ""
    return Check("labels", True, f"all {len(wanted)} labels exist{later}")


def check_tools(config: Config, probe: Probe = run_probe) -> list[Check]:
    """git, and each role's agent CLI, installed with their versions."""
    code, line = probe(["git", "--version"])
    found = [Check("git", code == 0, line or "git not found")]
    seen: set[tuple[str, str]] = set()
    for role in Role:
        choice = config.agents.for_role(role)
        backend, executable, scenario = resolve_choice(choice)
        program = executable or backend
        if (choice.agent, program) in seen:
            continue
        seen.add((choice.agent, program))
        name = f"agent {choice.agent}"
        if choice.agent == "scripted":
            ok = Path(program).is_file() and scenario is not None and scenario.is_file()
            found.append(Check(name, ok, f"{program}, scenario {scenario}"))
            continue
        code, line = probe([program, "--version"])
        facts = facts_of(choice.agent)
        if code == MISSING and facts is not None:
            line = (
                f"not found: install it ({facts.install}), or set `executable`"
                f" under [agents] to where it is"
            )
        found.append(Check(name, code == 0, f"{program}: {line or 'not found'}"))
    return found


def check_commands(config: Config) -> list[Check]:
    """Each configured command's program exists (shell words pass)."""
    found: list[Check] = []
    commands = config.commands
    named = {
        "setup": commands.setup, "test": commands.test, "lint": commands.lint,
        "typecheck": commands.typecheck, "teardown": commands.teardown,
        "lockfile": commands.lockfile,
    }  # fmt: skip
    for key, command in named.items():
        if command is None:
            continue
        try:
            words = shlex.split(command)
        except ValueError as error:
            found.append(Check(f"commands.{key}", False, f"cannot parse {command!r}: {error}"))
            continue
        program = words[0] if words else ""
        ok = program in SHELL_WORDS or "=" in program or shutil.which(program) is not None
        found.append(Check(f"commands.{key}", ok, f"{program!r} {'found' if ok else 'not found'}"))
    return found


def check_base(forge: Forge, config: Config) -> Check:
    """The base branch exists on the forge."""
    ok = forge.get_branch(config.base) is not None
    return Check("base branch", ok, f"{config.base} {'exists' if ok else 'does not exist'}")


def check_open_issues(forge: Forge, config: Config) -> Check:
    """C's invariants over every open issue (one state comment, one status label, claims, PR)."""
    issues = []
    for issue in forge.list_open_issues().issues:
        pr = forge.find_pr(f"agent/issue-{issue.number}")
        issues.append(
            IssueSnapshot(
                number=issue.number,
                open=True,
                labels=issue.labels,
                comments=forge.list_comments(issue.number).comments,
                pr=None if pr is None else PrSnapshot(pr.number, pr.title, pr.body),
            )
        )
    limits = config.limits
    snapshot = Snapshot(config.account.login, datetime.now(UTC), limits.lease_hours, tuple(issues))
    broken = check_invariants(snapshot)
    if broken:
        text = "; ".join(f"#{v.number} {v.rule}: {v.detail}" for v in broken)
        return Check("invariants", False, text)
    return Check("invariants", True, f"{len(issues)} open issues hold every invariant")
