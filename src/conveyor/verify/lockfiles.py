"""The lockfile check: lockfiles the change touched, regenerated, must match the committed ones."""

from __future__ import annotations

from collections.abc import Sequence

from conveyor.core.config import Paths
from conveyor.core.paths import matches_any
from conveyor.core.verify import CheckResult, Outcome
from conveyor.git import plain
from conveyor.git.plain import Change
from conveyor.verify.context import Context

NAME = "lockfiles"


def check_lockfiles(
    ctx: Context, paths: Paths, head: str, changes: Sequence[Change]
) -> CheckResult:
    """Regenerate the touched lockfiles in the checkout and compare them with `head`'s.

    The checkout's copies are put back to `head`'s content afterwards.
    """
    touched = tuple(
        sorted(c.path for c in changes if c.status != "D" and matches_any(c.path, paths.lockfiles))
    )
    if not touched:
        return CheckResult(NAME, Outcome.SKIPPED, "no lockfile changed")
    if ctx.commands.lockfile is None:
        why = "lockfiles changed but no lockfile command is configured"
        return CheckResult(NAME, Outcome.SKIPPED, why, touched)
    try:
        run = ctx.run("lockfile", ctx.commands.lockfile, setup=True)
        if not run.ok:
            why = f"the lockfile command {run.outcome.value}"
            return CheckResult(NAME, Outcome.FAILED, why, touched, (run,))
        differ = tuple(p for p in touched if _on_disk(ctx, p) != plain.blob(ctx.tree, head, p))
    finally:
        plain.restore(ctx.tree, head, touched)
    if differ:
        why = f"regenerated lockfiles differ from the committed ones: {', '.join(differ)}"
        return CheckResult(NAME, Outcome.FAILED, why, differ, (run,))
    return CheckResult(NAME, Outcome.PASSED, "", touched, (run,))


def _on_disk(ctx: Context, path: str) -> bytes | None:
    target = ctx.checkout / path
    return target.read_bytes() if target.is_file() else None
