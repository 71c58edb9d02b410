"""verify: setup, test, lint and typecheck in the checkout, fails-before-fix beside them in its
own worktree, then lockfiles and migrations."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TypedDict

from conveyor.core.config import Commands, Paths
from conveyor.core.junit import Report
from conveyor.core.test_runs import RunKind, TestVerdict, foreign_imports, imports_note, listing
from conveyor.core.verify import CheckResult, CommandResult, Outcome, VerifyResult, skipped
from conveyor.git import plain
from conveyor.git.plain import Change
from conveyor.verify.beside import Beside
from conveyor.verify.boxing import Boxing
from conveyor.verify.config_check import Heads
from conveyor.verify.context import Context
from conveyor.verify.fails_before_fix import NAME as FBF
from conveyor.verify.fails_before_fix import run_fails_before_fix, skip_check
from conveyor.verify.judges import Judging, judge_head, test_infrastructure
from conveyor.verify.lockfiles import check_lockfiles
from conveyor.verify.migrations import NAME as MIGRATIONS
from conveyor.verify.migrations import check_migrations
from conveyor.verify.suites import baseline, blame_change, run_suite


class SharedDirs(TypedDict, total=False):
    """Where shared set-up environments and base failures live, what names test files, and
    the box commands run in."""

    envs_dir: Path | None
    baselines_dir: Path | None
    test_globs: tuple[str, ...]
    lockfiles: tuple[str, ...]
    non_code: tuple[str, ...]
    boxing: Boxing | None


class VerifyInputError(ValueError):
    """verify was asked for something it cannot do (e.g. the checkout is not at the head)."""


def _against_base(
    ctx: Context, test: CommandResult, verdict: TestVerdict, base: str, changed: set[str]
) -> CommandResult:
    """A failing test run measured against the base: failures it already had do not count.

    New failures on an import the change did not touch are an environment error.
    """
    failures = verdict.failures or frozenset()
    before = baseline(ctx, base)
    if before.environment is not None or before.failures is None:
        return _foreign(test, verdict, failures, changed)
    old = failures & before.failures
    new = failures - before.failures
    if foreign_imports(verdict, new, changed):
        return _foreign(test, verdict, new, changed)
    if not old:
        return test
    there = f"already failing at the base {base[:12]}: {listing(old)}"
    if new:
        return replace(test, reason=f"new failures: {listing(new)} ({there})")
    return replace(test, outcome=Outcome.PASSED, reason=f"{len(old)} {there}")


def _foreign(
    test: CommandResult, verdict: TestVerdict, failures: frozenset[str], changed: set[str]
) -> CommandResult:
    found = foreign_imports(verdict, failures, changed)
    if not found:
        return test
    return replace(test, outcome=Outcome.ENVIRONMENT, reason=imports_note(test.name, found))


def _commands(
    ctx: Context, tests_only: bool, base: str, changed: set[str], set_up: Callable[[], None]
) -> tuple[tuple[CommandResult, ...], Report | None]:
    suite = run_suite(ctx, set_up=set_up)
    report = suite.verdict.report
    setup, test = suite.runs
    if (mine := blame_change(ctx, suite, base)) is not None:
        setup, test = (mine, test) if mine.name == setup.name else (setup, mine)
    if not setup.ok:
        held = f"setup {setup.outcome.value}"
        return (setup, *(skipped(n, held) for n in ("test", "lint", "typecheck"))), None
    if suite.verdict.kind is RunKind.FAILED and suite.verdict.failures:
        test = _against_base(ctx, test, suite.verdict, base, changed)
    if tests_only:
        why = "tests only: lint and typecheck stand from the verified head"
        return (setup, test, skipped("lint", why), skipped("typecheck", why)), report
    lint = ctx.run("lint", ctx.commands.lint)
    typecheck = ctx.run("typecheck", ctx.commands.typecheck)
    return (setup, test, lint, typecheck), report


def _with_fails_before_fix(  # noqa: PLR0917 - verify's inputs, passed on
    ctx: Context,
    paths: Paths,
    judging: Judging,
    tests_only: bool,
    base: str,
    head: str,
    changes: Sequence[Change],
) -> tuple[tuple[CommandResult, ...], Report | None, CheckResult]:
    """The checkout's commands, their test report, and fails-before-fix: counted only once
    the tests pass.

    A fails-before-fix that runs does so in its own worktree, so it starts once setup
    passed and runs beside the checkout's test, lint and typecheck (`verify.beside`).
    """
    infra = test_infrastructure(ctx, judging, base, head, changes)
    skip = None if tests_only else skip_check(ctx, paths, base, head, changes, infra)
    work = lambda c: run_fails_before_fix(c, paths, base, head, changes, infra=infra)  # noqa: E731
    with Beside(ctx, work) as beside:
        start = beside.start if skip is None and not tests_only else _nothing
        results, report = _commands(ctx, tests_only, base, {c.path for c in changes}, start)
        if tests_only:
            return results, report, CheckResult(FBF, Outcome.SKIPPED, _TESTS_ONLY)
        if results[1].outcome is not Outcome.PASSED:
            beside.stop()
            return results, report, CheckResult(FBF, Outcome.SKIPPED, _COUNTED_ONCE)
        return results, report, skip or beside.result()


_TESTS_ONLY = "tests only: not rerun after a clean rebase"
_COUNTED_ONCE = "counted only once the tests pass at the head"


def _nothing() -> None:
    """Nothing starts beside the checkout's tests."""


def verify(
    checkout: Path,
    commands: Commands,
    env: Mapping[str, str],
    paths: Paths,
    *,
    base_sha: str,
    head_sha: str,
    logs_dir: Path,
    tests_only: bool = False,
    work_dir: Path | None = None,
    heartbeat: Callable[[], None] | None = None,
    shared: SharedDirs | None = None,
    judging: Judging | None = None,
    git_dir: Path | None = None,
) -> VerifyResult:
    """Verify the checkout, which must be at `head_sha`, against `base_sha`.

    Every command runs with exactly `env` (the sessions' allowlisted environment),
    in its own process group with the configured timeout, its log kept under
    `logs_dir`. `tests_only` (after a clean rebase at merge) runs setup, test, the
    lockfile and the migration checks only. `heartbeat` is called every few seconds while a
    command runs. `shared` names the shared set-up environments and baselines
    (see `Context`). `judging` is what the head is held to beyond its commands
    (`verify.judges`): the spec writer's tests by name, the judges' own configuration, no
    new suppression no rule allows. `git_dir` is the checkout's keep (None: its own
    `.git`, a repository no agent writes). Git failures raise `PlainGitError`.
    """
    ctx = Context(
        checkout,
        commands,
        env,
        logs_dir,
        work_dir,
        heartbeat,
        **(shared or SharedDirs()),
        git_dir=git_dir,
    )
    at = plain.head(ctx.tree)
    wanted = f"{head_sha}^{{commit}}"
    found = plain.git(ctx.tree, "rev-parse", "--verify", "--end-of-options", wanted)
    head = found.decode().strip()
    if at != head:
        msg = f"verify: the checkout {checkout} is at {at}, not at the head to verify {head_sha}"
        raise VerifyInputError(msg)
    base = plain.merge_base(ctx.tree, base_sha, head)
    changes = plain.changes(ctx.tree, base, head)
    judging = judging or Judging()
    results, report, fbf = _with_fails_before_fix(
        ctx, paths, judging, tests_only, base, head, changes
    )
    heads = Heads(base, head, changes, report, tests_only)
    judged = judge_head(ctx, paths, judging, heads, results[0], results[1])
    lockfiles = check_lockfiles(ctx, paths, head, changes)
    if results[0].ok:
        migrations = check_migrations(ctx, paths, changes)
    else:
        migrations = CheckResult(MIGRATIONS, Outcome.SKIPPED, "held back: setup did not pass")
    return VerifyResult(
        base_sha=base_sha,
        head_sha=head,
        commands=results,
        fails_before_fix=fbf,
        lockfiles=lockfiles,
        tests_only=tests_only,
        migrations=migrations,
        judges=judged.checks,
        held=judged.held,
        facts=judged.facts,
    )
