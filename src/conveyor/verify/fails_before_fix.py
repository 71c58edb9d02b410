"""fails-before-fix: with the non-test changes reverted, the tests must fail."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from conveyor.core.comments import comments_only
from conveyor.core.config import Paths
from conveyor.core.ecosystems import of_path
from conveyor.core.paths import classify
from conveyor.core.test_runs import (
    Cause,
    RunKind,
    file_of,
    foreign_imports,
    imports_note,
    in_files,
    listing,
    unrelated_collection_errors,
)
from conveyor.core.typeonly import comments_and_docstrings_only
from conveyor.core.verify import CheckResult, Outcome, environment_note
from conveyor.git import plain
from conveyor.git.plain import Change, Tree
from conveyor.verify.context import Context
from conveyor.verify.spec_proof import proved_by_spec
from conveyor.verify.suites import Suite, baseline, in_worktree

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
    """Whether the file's change is comments only, read in its language (CHK-3)."""
    ecosystem = of_path(path)
    if ecosystem is None:
        return False
    old = _text(plain.blob(ctx.tree, base, path))
    new = _text(plain.blob(ctx.tree, head, path))
    if old is None or new is None:
        return False
    if path.endswith(PYTHON_SUFFIXES):
        return comments_and_docstrings_only(old, new)
    return comments_only(old, new, ecosystem.comments)


def skip_reason(
    ctx: Context,
    paths: Paths,
    base: str,
    head: str,
    changes: Sequence[Change],
    *,
    infra: frozenset[str] = frozenset(),
) -> str | None:
    """Why fails-before-fix does not apply to this change, or None when it does.

    A change to test infrastructure (`infra`: test configuration, a conftest, the scripts the
    test command runs) is never "no code changed": that is where a failing test is made to
    stop counting.
    """
    if not changes:
        return "nothing changed between the base and the head"
    kinds = classify([c.path for c in changes], paths)
    if infra:
        return None
    if not kinds.code:
        what = "test and non-code paths" if kinds.tests else "non-code paths"
        return f"no code changed: only {what}"
    if all(_comments_only(ctx, base, head, p) for p in kinds.code):
        return "the code changes are comments and docstrings only"
    return None


def _revert(tree: Tree, base: str, changes: Sequence[Change]) -> None:
    """Put every listed change back as it was at `base` (added files are deleted)."""
    for change in changes:
        if change.status == "A":
            (tree.work / change.path).unlink(missing_ok=True)
    plain.restore(tree, base, [c.path for c in changes if c.status != "A"])


def run_tests_reverted(
    ctx: Context,
    base: str,
    head: str,
    reverted: Sequence[Change],
    label: str = NAME,
    *,
    files: Sequence[str] | None = None,
) -> Suite:
    """Setup and test in a temporary worktree at `head` with `reverted` put back as at `base`.

    Logged as `<label> setup` and `<label> test`. The worktree is removed
    afterwards, whatever happened. The spec writer's commit check reuses this
    with the test files reverted. `files` runs only those (`commands.test_files`).
    """
    revert = lambda tree: _revert(tree, base, reverted)  # noqa: E731 - a one-line step
    return in_worktree(ctx, head, label, revert, files)


_ASK_TEST_FILES = (
    "set `commands.test_files` to a command that runs given test files "
    "(`{tests}` is replaced with their paths) for this check to run"
)
# Changed test files that hold no test cases of their own.
_HELPERS = ("conftest.py", "__init__.py")
# Exit statuses of a command that could not run the tests here (a usage error, none collected).
CANNOT_RUN = (4, 5)


def cannot_run_tests(ctx: Context, suite: Suite, tests: Iterable[str]) -> str:
    """Why the test command, not built to run given files, shows nothing of `tests` here.

    A usage error or no tests collected where the head ran them (a script naming
    files the tree lacks), or a report without any case of them: fails-before-fix
    is then skipped with this note rather than stopping the issue (issue 31).
    """
    if ctx.commands.test_files is not None:
        return ""
    test = suite.test
    unusable = suite.verdict.cause is Cause.COMMAND and test.exit_code in CANNOT_RUN
    if test.outcome is Outcome.ENVIRONMENT and unusable:
        return f"the test command cannot run here ({test.reason}): {_ASK_TEST_FILES}"
    report = suite.verdict.report
    modules = [t for t in tests if t.endswith(".py") and t.rsplit("/", 1)[-1] not in _HELPERS]
    if suite.environment is None and report is not None and modules and not report.ran_any(modules):
        return f"the test command's report has none of the changed tests: {_ASK_TEST_FILES}"
    return ""


def failing_new_tests(
    ctx: Context, suite: Suite, base: str, changes: Sequence[Change], tests: Iterable[str]
) -> tuple[frozenset[str], str]:
    """The failures of the changed `tests` that the base did not have, or an environment error.

    A collection error in a file the change did not touch, that the base does not
    have, is an environment error (returned as its note): it says nothing about
    the new tests. So is a changed test failing on an import the change did not
    touch (issue 31). Failures in added test files are new by definition; the base is
    run only when a modified test file, or another file, fails.
    """
    failures = suite.verdict.failures or frozenset()
    if not suite.verdict.files_known:
        return _new_at_base(ctx, failures, base)
    theirs = in_files(failures, tests)
    foreign = foreign_imports(suite.verdict, theirs, {c.path for c in changes})
    if foreign:
        return frozenset(), imports_note(suite.test.name, foreign)
    errors = unrelated_collection_errors(failures, tests)
    added = {c.path for c in changes if c.status == "A"}
    if errors or any(file_of(f) not in added for f in theirs):
        fresh, note = _new_at_base(ctx, theirs | errors, base)
        if note:
            return frozenset(), note
        theirs, errors = theirs & fresh, errors & fresh
    if errors:
        note = (
            f"{suite.test.name}: collection errors in files the change did not touch: "
            f"{listing(errors)}\n\n```\n{suite.test.tail[-1500:].strip()}\n```"
        )
        return frozenset(), note
    return theirs, ""


def _new_at_base(ctx: Context, failures: frozenset[str], base: str) -> tuple[frozenset[str], str]:
    """Failures whose ids name no file (mocha, go, ctest): those the base does not have.

    The tree differs from the base in the changed tests (and, in the spec check, the
    stubs), so a failure the base does not have is theirs.
    """
    before = baseline(ctx, base)
    if before.environment is not None:
        return frozenset(), environment_note(before.environment)
    return failures - (before.failures or frozenset()), ""


def crash_counted(ctx: Context, suite: Suite, base: str) -> str:
    """Why a crash of the run with the changed tests counts as their failing ("" when not).

    Only the changed tests differ from the base there: when the base runs clean, the
    tests crashed the runner or do not compile, which is how they fail (issue 47).
    """
    if suite.verdict.cause is not Cause.CRASH or baseline(ctx, base).environment is not None:
        return ""
    return (
        f"counted as failing: the changed tests make the test run crash ({suite.verdict.why}), "
        f"where the base {base[:12]} runs clean"
    )


def skip_check(  # noqa: PLR0917 - verify's inputs, passed on
    ctx: Context,
    paths: Paths,
    base: str,
    head: str,
    changes: Sequence[Change],
    infra: frozenset[str] = frozenset(),
) -> CheckResult | None:
    """fails-before-fix skipped, with why, or None when it runs (git reads only).

    Besides `skip_reason`: tests that are exactly the spec writer's, whose commit check
    saw them fail before the fix from this base, are not run again (CHK-17), unless the
    change touched test infrastructure (`infra`): then it always runs.
    """
    reason = skip_reason(ctx, paths, base, head, changes, infra=infra)
    if reason is not None:
        return CheckResult(NAME, Outcome.SKIPPED, reason)
    if infra:
        return None
    tests = classify([c.path for c in changes], paths).tests
    if (spec_head := proved_by_spec(ctx, base, head, tests)) is not None:
        why = (
            "the changed tests are the spec writer's, unchanged: its commit check saw them "
            f"fail before the fix at {spec_head[:12]}"
        )
        return CheckResult(NAME, Outcome.SKIPPED, why)
    return None


def run_fails_before_fix(
    ctx: Context,
    paths: Paths,
    base: str,
    head: str,
    changes: Sequence[Change],
    *,
    infra: frozenset[str] = frozenset(),
) -> CheckResult:
    """Run the tests at `head` with its non-test changes since `base` reverted; they must fail.

    Only real failures of the changed tests count: an environment error is its
    own outcome, and failures the base already had are not the change's.
    `base` is the merge base the changes are measured from. The caller asks
    `skip_check` first, and counts this only once the tests pass at the head. With the
    test infrastructure changed (`infra`), a run that cannot show the changed tests fails.
    """
    tests = classify([c.path for c in changes], paths).tests
    reverted = [c for c in changes if c.path not in tests]
    reverted_paths = tuple(sorted(c.path for c in reverted))
    files = sorted(tests) if ctx.commands.test_files is not None else None
    suite = run_tests_reverted(ctx, base, head, reverted, files=files)
    runs = suite.runs
    if note := cannot_run_tests(ctx, suite, tests):
        if infra:  # the change's own test infrastructure is why: never a skip
            why = f"{note.split(':', 1)[0]}, and the change touched the test infrastructure"
            return CheckResult(
                NAME, Outcome.FAILED, f"{why} ({', '.join(sorted(infra))})", reverted_paths, runs
            )
        return CheckResult(NAME, Outcome.SKIPPED, note, reverted_paths, runs)
    if (broken := suite.environment) is not None:
        if counted := crash_counted(ctx, suite, base):
            failed = replace(suite.test, outcome=Outcome.FAILED, reason=counted)
            return CheckResult(NAME, Outcome.PASSED, counted, reverted_paths, (suite.setup, failed))
        return CheckResult(NAME, Outcome.ENVIRONMENT, broken.reason, reverted_paths, runs)
    if suite.verdict.kind is RunKind.PASSED:
        why = "the tests pass with the non-test changes reverted, so they do not show the fix"
        return CheckResult(NAME, Outcome.FAILED, why, reverted_paths, runs)
    if suite.verdict.failures is None:  # not pytest: the exit status is all there is
        return CheckResult(NAME, Outcome.PASSED, "", reverted_paths, runs)
    theirs, note = failing_new_tests(ctx, suite, base, changes, tests)
    if note:
        return CheckResult(NAME, Outcome.ENVIRONMENT, note, reverted_paths, runs)
    if not theirs:
        why = (
            "with the non-test changes reverted only other tests fail, none of the changed "
            f"tests: {listing(suite.verdict.failures)}"
        )
        return CheckResult(NAME, Outcome.FAILED, why, reverted_paths, runs)
    return CheckResult(NAME, Outcome.PASSED, f"failing: {listing(theirs)}", reverted_paths, runs)
