"""fails-before-fix: with the non-test changes reverted, the tests must fail."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from conveyor.core.config import Paths
from conveyor.core.paths import classify
from conveyor.core.typeonly import comments_and_docstrings_only
from conveyor.core.verify import CheckResult, CommandResult, Outcome
from conveyor.verify import gitwork
from conveyor.verify.context import Context
from conveyor.verify.gitwork import Change

NAME = "fails-before-fix"
PYTHON_SUFFIXES = (".py", ".pyi")


def _text(data: bytes | None) -> str | None:
    """A blob as source text; a missing file is empty; undecodable content is None."""
    if data is None:
        return ""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _comments_only(ctx: Context, base: str, head: str, path: str) -> bool:
    if not path.endswith(PYTHON_SUFFIXES):
        return False
    old = _text(gitwork.blob(ctx.checkout, base, path))
    new = _text(gitwork.blob(ctx.checkout, head, path))
    return old is not None and new is not None and comments_and_docstrings_only(old, new)


def skip_reason(
    ctx: Context, paths: Paths, base: str, head: str, changes: Sequence[Change]
) -> str | None:
    """Why fails-before-fix does not apply to this change, or None when it does."""
    if not changes:
        return "nothing changed between the base and the head"
    kinds = classify([c.path for c in changes], paths)
    if not kinds.code:
        what = "test and non-code paths" if kinds.tests else "non-code paths"
        return f"no code changed: only {what}"
    if all(_comments_only(ctx, base, head, p) for p in kinds.code):
        return "the Python changes are comments and docstrings only"
    return None


def _revert(tree: Path, base: str, changes: Sequence[Change]) -> None:
    """Put every listed change back as it was at `base` (added files are deleted)."""
    for change in changes:
        if change.status == "A":
            (tree / change.path).unlink(missing_ok=True)
    gitwork.restore(tree, base, [c.path for c in changes if c.status != "A"])


def run_tests_reverted(
    ctx: Context, base: str, head: str, reverted: Sequence[Change], label: str = NAME
) -> tuple[CommandResult, ...]:
    """Setup and test in a temporary worktree at `head` with `reverted` put back as at `base`.

    Returns the runs (setup, then test unless setup did not pass), logged as
    `<label> setup` and `<label> test`. The worktree is removed afterwards, whatever
    happened. The spec writer's commit check reuses this with the test files reverted.
    """
    holder = Path(tempfile.mkdtemp(prefix=f"conveyor-{label}-", dir=ctx.work_dir))
    tree = holder / "tree"
    try:
        gitwork.add_worktree(ctx.checkout, tree, head)
        _revert(tree, base, reverted)
        setup = ctx.run(f"{label} setup", ctx.commands.setup, tree)
        if not setup.ok:
            return (setup,)
        return setup, ctx.run(f"{label} test", ctx.commands.test, tree)
    finally:
        gitwork.remove_worktree(ctx.checkout, tree)
        shutil.rmtree(holder, ignore_errors=True)


def check_fails_before_fix(
    ctx: Context,
    paths: Paths,
    base: str,
    head: str,
    changes: Sequence[Change],
) -> CheckResult:
    """Run the tests at `head` with its non-test changes since `base` reverted; they must fail.

    `base` is the merge base the changes are measured from. The caller runs this
    only once the tests pass at the head.
    """
    reason = skip_reason(ctx, paths, base, head, changes)
    if reason is not None:
        return CheckResult(NAME, Outcome.SKIPPED, reason)
    tests = classify([c.path for c in changes], paths).tests
    reverted = [c for c in changes if c.path not in tests]
    reverted_paths = tuple(sorted(c.path for c in reverted))
    runs = run_tests_reverted(ctx, base, head, reverted)
    test = runs[-1]
    if len(runs) == 1:
        why = "the setup command did not pass in the reverted worktree"
        return CheckResult(NAME, Outcome.FAILED, why, reverted_paths, runs)
    if test.outcome is Outcome.PASSED:
        why = "the tests pass with the non-test changes reverted, so they do not show the fix"
        return CheckResult(NAME, Outcome.FAILED, why, reverted_paths, runs)
    if test.outcome is Outcome.TIMED_OUT:
        why = "the tests time out with the non-test changes reverted"
        return CheckResult(NAME, Outcome.PASSED, why, reverted_paths, runs)
    return CheckResult(NAME, Outcome.PASSED, "", reverted_paths, runs)
