"""The migration check (CHK-5): changed migrations run up, down and up again on a scratch database.

When the change touches `paths.migrations` and both `commands.migrate_up` and
`commands.migrate_down` are set, the three runs go in order against a fresh scratch
database: `$CONVEYOR_SCRATCH_DB` names a file in an empty folder
(`$CONVEYOR_SCRATCH_DIR`) made for this check and removed after it, and
`$CONVEYOR_CHANGED_MIGRATIONS` lists the changed paths, one a line. The first run that
fails ends the check: its failure (with the log's tail) is a finding for the check
fixer. A command that cannot run at all (126, 127) or runs out of time is an
environment error, never charged to an agent.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from conveyor.core.config import Paths
from conveyor.core.paths import matches_any
from conveyor.core.verify import CheckResult, CommandResult, Outcome
from conveyor.git.plain import Change
from conveyor.verify import setup_env
from conveyor.verify.context import Context

NAME = "migrations"
SCRATCH_DB = "CONVEYOR_SCRATCH_DB"
SCRATCH_DIR = "CONVEYOR_SCRATCH_DIR"
CHANGED = "CONVEYOR_CHANGED_MIGRATIONS"
_CANNOT_RUN = {
    126: "the migration command could not be executed (exit 126)",
    127: "the migration command or its interpreter was not found (exit 127)",
}


def changed_migrations(paths: Paths, changes: Sequence[Change]) -> tuple[str, ...]:
    """The changed paths (added, modified or deleted) that are migrations."""
    return tuple(sorted(c.path for c in changes if matches_any(c.path, paths.migrations)))


def _classified(run: CommandResult) -> CommandResult:
    """A run that says nothing about the migrations is an environment error."""
    if run.outcome is Outcome.TIMED_OUT:
        return replace(run, outcome=Outcome.ENVIRONMENT, reason=run.reason or "timed out")
    if run.outcome is Outcome.FAILED and run.exit_code in _CANNOT_RUN:
        return replace(run, outcome=Outcome.ENVIRONMENT, reason=_CANNOT_RUN[run.exit_code])
    return run


def _env(ctx: Context, scratch: Path, touched: Sequence[str]) -> dict[str, str]:
    env = {**ctx.env, SCRATCH_DB: str(scratch / "scratch.sqlite3"), SCRATCH_DIR: str(scratch)}
    env[CHANGED] = "\n".join(touched)
    if ctx.envs_dir is not None and ctx.commands.setup is not None:
        env["PYTHONPATH"] = setup_env.python_path(ctx.checkout, (), env.get("PYTHONPATH"))
    return env


def check_migrations(ctx: Context, paths: Paths, changes: Sequence[Change]) -> CheckResult:
    """Run the changed migrations up, down and up again in the checkout."""
    touched = changed_migrations(paths, changes)
    if not touched:
        return CheckResult(NAME, Outcome.SKIPPED, "no migration changed")
    up, down = ctx.commands.migrate_up, ctx.commands.migrate_down
    if up is None or down is None:
        why = "migrations changed but commands.migrate_up and migrate_down are not configured"
        return CheckResult(NAME, Outcome.SKIPPED, why, touched)
    scratch = Path(tempfile.mkdtemp(prefix="conveyor-migrate-", dir=ctx.work_dir))
    runs: list[CommandResult] = []
    try:
        env = _env(ctx, scratch, touched)
        for step, command in (("migrate up", up), ("migrate down", down), ("migrate up", up)):
            name = f"{step} {len(runs) + 1}"
            run = _classified(ctx.run(name, command, env=env, writable=(scratch,)))
            runs.append(run)
            if not run.ok:
                detail = f": {run.reason}" if run.reason else f" (exit {run.exit_code})"
                why = f"{step} (run {len(runs)} of up, down, up) {run.outcome.value}{detail}"
                return CheckResult(NAME, run.outcome, why, touched, tuple(runs))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return CheckResult(NAME, Outcome.PASSED, "", touched, tuple(runs))
