"""The judges-config check: a change to what configures a check is judged with the judges' own.

Per kind (`core.check_config.Judge`), and why:

- lint and typecheck configuration: lint and typecheck run again in a worktree at the
  head with the judges' configuration put back (the base's, or the spec's), against the
  head's code. A loosened config (`extend-exclude`, `per-file-ignores`, a mypy override
  with `ignore_errors`) fails there; a tightened one passes there and at the head.
- test configuration (conftest files, pytest's ini sections, plugins, the scripts a test
  command runs, start-up hooks): the suite runs again at the head with the judges' test
  configuration put back and the test files the spec did not write put back as the base
  has them (a test module's import-time code is test configuration too). There the spec's
  tests must run and pass by name, and a test of a file the change did not touch that runs
  and passes there must not be missing or skipped at the head. A conftest that only adds
  fixtures for the implementer's own tests changes none of that, so it merges.
- CI and pre-commit configuration: the forge runs the head's own, so nothing here can run
  the base's; it is held for a person (as is a section that cannot be put back alone).

Everything held, and every failing judged run, names the keys a person may accept: the
issue stops `checks-config` showing the diffs, and removing the label accepts exactly them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from conveyor.core.check_config import Judge
from conveyor.core.config import Paths
from conveyor.core.config_changes import UNSPLICEABLE, ConfigChange
from conveyor.core.junit import Report
from conveyor.core.paths import matches_any
from conveyor.core.spec_tests import SpecTests, judge
from conveyor.core.verify import CheckResult, CommandResult, Outcome
from conveyor.git.plain import Change
from conveyor.verify.config_read import text_at
from conveyor.verify.context import Context
from conveyor.verify.judged_runs import checks_with_judges, suite_with_judges

NAME = "judges-config"


@dataclass(frozen=True)
class Heads:
    """What the config check knows of the head: base, head, the changes, the head's report."""

    base: str
    head: str
    changes: Sequence[Change]
    report: Report | None
    tests_only: bool = False


def _puts(changes: Sequence[ConfigChange]) -> tuple[dict[str, str | None], list[ConfigChange]]:
    """The judges' text of each change's file, and the changes that cannot be put back alone."""
    puts: dict[str, str | None] = {}
    stuck: list[ConfigChange] = []
    for change in changes:
        text = change.put_back()
        if text == UNSPLICEABLE:
            stuck.append(change)
        else:
            puts[change.path] = text
    return puts, stuck


def _lint(
    ctx: Context, heads: Heads, puts: Mapping[str, str | None], changes: Sequence[ConfigChange]
) -> tuple[list[str], tuple[CommandResult, ...]]:
    judges = {j for c in changes for j in c.judges}
    names = [n for n, j in (("lint", Judge.LINT), ("typecheck", Judge.TYPECHECK)) if j in judges]
    if heads.tests_only or not names:
        return [], ()
    runs = checks_with_judges(ctx, heads.head, puts, names)
    files = ", ".join(c.path for c in changes)
    problems = [
        f"{run.name} fails with the judges' configuration ({files} as the base or the spec has "
        f"it):\n{run.tail[-1200:].strip()}"
        for run in runs
        if not run.ok
    ]
    return problems, runs


def _hidden(judged: Report | None, head: Report | None, touched: set[str]) -> list[str]:
    """Tests of untouched files that ran and passed with the judges' configuration but are
    missing or skipped at the head."""
    if judged is None or head is None:
        return []
    at_head = {c.id: c for c in head.cases}
    found: list[str] = []
    for case in judged.cases:
        if case.failed or case.skipped or case.file in touched:
            continue
        there = at_head.get(case.id)
        if there is None or there.skipped:
            what = "missing" if there is None else there.status
            found.append(f"{case.id}: runs with the judges' test configuration, {what} at the head")
    return found


def _tests(
    ctx: Context, paths: Paths, spec: SpecTests | None, heads: Heads, puts: Mapping[str, str | None]
) -> tuple[list[str], tuple[CommandResult, ...]]:
    own = set(spec.files) if spec is not None else set()
    put = dict(puts)
    for change in heads.changes:
        if (
            matches_any(change.path, paths.tests)
            and change.path not in own
            and change.path not in put
        ):
            put[change.path] = text_at(ctx, heads.base, change.path)
    suite = suite_with_judges(ctx, heads.head, put)
    if (broken := suite.environment) is not None:
        return [
            f"the suite cannot run with the judges' test configuration: {broken.reason}"
        ], suite.runs
    judged = judge(spec, suite.verdict.report)
    problems = [f"with the judges' test configuration, {line}" for line in judged.lines]
    if judged.ok is None and suite.verdict.kind.value != "passed":
        problems.append(
            f"the suite fails with the judges' test configuration:\n{suite.test.tail[-1200:]}"
        )
    touched = {c.path for c in heads.changes}
    problems += _hidden(suite.verdict.report, heads.report, touched)
    return problems, suite.runs


def config_check(
    ctx: Context,
    paths: Paths,
    spec: SpecTests | None,
    heads: Heads,
    changes: Sequence[ConfigChange],
) -> tuple[CheckResult, tuple[str, ...]]:
    """The check's result over the changes no person accepted, and the keys it holds."""
    if not changes:
        return CheckResult(NAME, Outcome.SKIPPED, "no check configuration changed"), ()
    puts, stuck = _puts([c for c in changes if Judge.CI not in c.judges])
    problems = [
        f"{c.what}: the forge's checks run the head's own, so it cannot be judged with the base's"
        for c in changes
        if Judge.CI in c.judges
    ]
    problems += [f"{c.what}: its judged sections cannot be put back alone" for c in stuck]
    held = [c.key for c in changes if Judge.CI in c.judges or c in stuck]
    judged = [c for c in changes if c.path in puts]
    lint_changes = [c for c in judged if {Judge.LINT, Judge.TYPECHECK} & set(c.judges)]
    found, runs = _lint(ctx, heads, puts, lint_changes)
    problems += found
    held += [c.key for c in lint_changes] if found else []
    test_changes = [c for c in judged if Judge.TESTS in c.judges]
    if test_changes:
        found, suite = _tests(ctx, paths, spec, heads, puts)
        problems += found
        runs = (*runs, *suite)
        held += [c.key for c in test_changes] if found else []
    paths_of = tuple(c.path for c in changes)
    if problems:
        return CheckResult(NAME, Outcome.FAILED, "; ".join(problems), paths_of, runs), tuple(held)
    what = ", ".join(c.what for c in changes)
    return CheckResult(
        NAME, Outcome.PASSED, f"judged with the judges' own: {what}", paths_of, runs
    ), ()
