"""The spec writer's commit check: what it may change, and that its tests fail for the right reason.

Allowed since the spec's start (SPEC-78): test files, stub files of new interfaces and the
added files they import, and type-only changes to the files of changed interfaces. Then
lint and typecheck pass (SPEC-81), a test file changed unless `no_tests_reason` (SPEC-82),
the tests fail at the head (SPEC-83) and pass with the spec writer's tests put back
(SPEC-84). Every failure names its file or rule, one per line (SPEC-86). A passed check
keeps its proof (`verify.spec_proof`), so verify's fails-before-fix does not run the same
tests again (SPEC-77, CHK-17).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from conveyor.core.config import Paths
from conveyor.core.config_judges import Judges
from conveyor.core.paths import matches_any
from conveyor.core.replies import Interface
from conveyor.core.spec_tests import SpecTests, spec_tests_seen
from conveyor.core.test_runs import Cause, RunKind, foreign_imports, imports_note, listing
from conveyor.core.verify import environment_note
from conveyor.git import plain
from conveyor.git.plain import Change
from conveyor.ops.local.spec_own import spec_own
from conveyor.ops.local.spec_scope import scope_findings, stub_findings
from conveyor.ops.local.ts_emit import NO_TYPESCRIPT
from conveyor.verify import setup_step
from conveyor.verify.beside import Beside
from conveyor.verify.context import Context
from conveyor.verify.fails_before_fix import CANNOT_RUN, failing_new_tests, run_tests_reverted
from conveyor.verify.spec_proof import save_spec_proof
from conveyor.verify.suites import baseline, blame_change, run_suite


@dataclass(frozen=True)
class SpecCheck:
    """The verdict: `findings` is empty when the commits pass.

    `environment` names an environment error (the command and its output's tail):
    the check could not judge the tests, which is not the spec writer's failure.
    """

    findings: tuple[str, ...]
    environment: str = ""
    spec_tests: SpecTests | None = None

    @property
    def ok(self) -> bool:
        """Whether every rule held."""
        return not self.findings and not self.environment


def check_spec_commits(
    ctx: Context,
    paths: Paths,
    *,
    start: str,
    interfaces: Sequence[Interface],
    no_tests_reason: str | None,
    judges: Judges | None = None,
) -> SpecCheck:
    """Run the whole commit check on the checkout's HEAD against `start`.

    A passed check keeps the spec's tests by name, the check configuration it changed and
    the suppressions it added (`SpecTests`): the judges' standard for every later verify.
    """
    head = plain.head(ctx.tree)
    changes = plain.changes(ctx.tree, start, head)
    tests = [c for c in changes if matches_any(c.path, paths.tests)]
    own = spec_own(ctx, judges or Judges(), start, head, changes)
    found = [
        *scope_findings(ctx, paths, start, head, changes, interfaces=interfaces, config=own.config)
    ]
    if unjudged := [f for f in found if NO_TYPESCRIPT in f]:
        return SpecCheck((), environment="\n".join(unjudged))
    found += stub_findings(ctx, head, interfaces)
    if no_tests_reason:
        if changes:
            found.append("no_tests_reason is set, so no test file and no stub may change")
        return SpecCheck(tuple(found), spec_tests=own.kept(SpecTests(no_tests=no_tests_reason)))
    if not tests:
        found.append("no test file changed: commit failing tests, or set no_tests_reason")
    if ctx.envs_dir is not None and ctx.commands.setup is not None:
        # Lint and typecheck may need what setup makes (`node_modules/.bin/tsc`, a venv's
        # mypy): the shared setup's products are linked in first; the suite reuses them.
        setup_step.prepare(ctx, "spec setup", ctx.tree, ctx.commands.test)
    for name, command in (("lint", ctx.commands.lint), ("typecheck", ctx.commands.typecheck)):
        run = ctx.run(f"spec {name}", command)
        if not run.ok:
            found.append(f"{name} fails at the spec's head:\n{run.tail[-1500:]}")
    if found:
        return SpecCheck(tuple(found))
    verdict = _fail_findings(ctx, start, head, changes, tests)
    if verdict.ok:  # verify's fails-before-fix need not run these tests again (CHK-17)
        save_spec_proof(ctx, start, head, [c.path for c in tests])
    seen = verdict.spec_tests
    return replace(verdict, spec_tests=None if seen is None else own.kept(seen))


@dataclass(frozen=True)
class _AtHead:
    """SPEC-83's findings at the spec's head, and the spec's tests as its run showed them."""

    found: list[str]
    seen: SpecTests


def _fail_findings(
    ctx: Context, start: str, head: str, changes: Sequence[Change], tests: Sequence[Change]
) -> SpecCheck:
    """The new tests fail at the head (only they, SPEC-83); with them put back, all pass (SPEC-84).

    Failures the start already had do not count either way; an environment error
    (setup, a usage error, a timeout, an unrelated collection error) is returned as
    such, never as the spec writer's failure. The reverted run, in its own worktree,
    starts once the head's setup passed and runs beside the head's tests; when the head
    decides alone (an environment error), it is stopped and counts for nothing.

    When the spec changed test files only, the tree with them put back is the start's own,
    whose failures are by definition the start's: SPEC-84 holds without that run.
    """
    if len(tests) == len(changes):
        at_head = _failing_at_head(ctx, start, changes, [c.path for c in tests], _nothing)
        if isinstance(at_head, SpecCheck):
            return at_head
        return SpecCheck(tuple(at_head.found), spec_tests=at_head.seen)
    with Beside(ctx, lambda c: _passing_reverted(c, start, head, changes, tests)) as beside:
        at_head = _failing_at_head(ctx, start, changes, [c.path for c in tests], beside.start)
        if isinstance(at_head, SpecCheck):
            beside.stop()
            return at_head
        reverted = beside.result()
    if isinstance(reverted, SpecCheck):
        return reverted
    return SpecCheck((*at_head.found, *reverted), spec_tests=at_head.seen)


def _nothing() -> None:
    """Nothing runs beside the head's tests."""


def _failing_at_head(
    ctx: Context,
    start: str,
    changes: Sequence[Change],
    files: list[str],
    set_up: Callable[[], None],
) -> SpecCheck | _AtHead:
    """SPEC-83's findings: the suite at the head must fail, and only in the new tests.

    The run's report names the spec's tests, kept for every later verify (`core.spec_tests`).
    """
    suite = run_suite(ctx, "spec", set_up=set_up)
    kept = [c.path for c in changes if c.path in set(files) and c.status != "D"]
    seen = spec_tests_seen(suite.verdict.report, kept)
    found: list[str] = []
    if (broken := suite.environment) is not None:
        mine = blame_change(ctx, suite, start)
        if mine is None:
            return SpecCheck((), environment_note(broken))
        # A crash or compile failure the start does not have is the new tests failing
        # (issue 47); with stubs changed too, the run with the tests put back judges them.
        if suite.verdict.cause is not Cause.CRASH:
            found.append(
                f"the test command cannot run at the spec's head: {environment_note(mine)}"
            )
    elif suite.verdict.kind is RunKind.PASSED:
        found.append("the test command passes at the spec's head: the new tests must fail")
    elif suite.verdict.failures is not None:
        theirs, note = failing_new_tests(ctx, suite, start, changes, files)
        if note:
            return SpecCheck((), note)
        if not theirs:
            found.append(
                "the test command fails at the spec's head, but none of the spec writer's "
                f"tests do: {listing(suite.verdict.failures)}"
            )
    return _AtHead(found, seen)


def _passing_reverted(
    ctx: Context, start: str, head: str, changes: Sequence[Change], tests: Sequence[Change]
) -> SpecCheck | list[str]:
    """SPEC-84's findings: with the spec writer's tests put back, the suite must pass.

    Failures on an import the spec did not touch are an environment error (issue 31).
    A command that ran at the head but cannot run there (usage error, nothing collected)
    nor at the start names the spec's new files itself (a script): the check is skipped.
    """
    found: list[str] = []
    reverted = run_tests_reverted(ctx, start, head, tests, label="spec-tests-reverted")
    if (broken := reverted.environment) is not None:
        mine = blame_change(ctx, reverted, start)
        if (
            mine is None
            and reverted.verdict.cause is Cause.COMMAND
            and broken.exit_code in CANNOT_RUN
        ):
            return found  # it names the spec's new files, as at the start: cannot judge
        if mine is None:
            return SpecCheck((), environment_note(broken))
        found.append(
            "the test command cannot run with the spec writer's tests put back as they were, "
            f"so the stubs broke something: {environment_note(mine)}"
        )
    elif reverted.verdict.kind is RunKind.FAILED:
        still = reverted.verdict.failures
        if still:
            before = baseline(ctx, start)
            if before.environment is not None:
                return SpecCheck((), environment_note(before.environment))
            still = still - (before.failures or frozenset())
            foreign = foreign_imports(reverted.verdict, still, {c.path for c in changes})
            if foreign:
                return SpecCheck((), imports_note(reverted.test.name, foreign))
        if still is None or still:
            what = f" ({listing(still)})" if still else ""
            found.append(
                f"the test command fails with the spec writer's tests put back as they were{what}, "
                f"so the stubs broke something:\n{reverted.test.tail[-1500:]}"
            )
    return found
