"""Running the test suite in a tree and reading it: real failures, environment errors, the base's.

`run_suite` is setup then test, with the test run classified (`core.test_runs`) from
its JUnit report or else its output; an environment error comes back as the test
command's outcome `environment-error`. A run that reached the shared setup's copy of
the code (`verify.canary`) is thrown away: the bypass is recorded, the tree is set up
on its own and tested again.
`baseline` runs the suite once at a base commit in a temporary worktree and keeps
its failures (per commit and test command) so a suite that already fails there
is compared with them, not taken as the change's failure.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from conveyor.core.run_verdict import classify_run
from conveyor.core.test_runs import Cause, RunKind, TestVerdict
from conveyor.core.verify import CommandResult, Outcome, skipped
from conveyor.git import plain
from conveyor.git.plain import Tree
from conveyor.verify import canary, setup_step
from conveyor.verify.context import Context
from conveyor.verify.reports import read_report, report_path
from conveyor.verify.runner_of import runner_of
from conveyor.verify.setup_env import SharedEnv
from conveyor.verify.setup_step import Prepared

# Runs in two trees may go at once (`verify.beside`): git's worktree list and the base's
# suite (its logs are named `base *`, its failures kept in one file) are taken one at a time.
_WORKTREES = threading.Lock()
_BASELINE = threading.Lock()


@dataclass(frozen=True)
class Suite:
    """One setup-and-test run: its commands (setup, test) and what the test run showed."""

    setup: CommandResult
    test: CommandResult
    verdict: TestVerdict

    @property
    def runs(self) -> tuple[CommandResult, ...]:
        """The commands that ran, setup first."""
        return (self.setup, self.test)

    @property
    def environment(self) -> CommandResult | None:
        """The command whose environment error this run is, if it is one."""
        for run in self.runs:
            if run.outcome is Outcome.ENVIRONMENT:
                return run
        return None


def _read(result: CommandResult) -> str:
    if result.log_path is None:
        return result.tail
    try:
        return Path(result.log_path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return result.tail


def _held(prepared: Prepared, name: str) -> Suite:
    setup = prepared.result
    held = skipped(name, f"setup {setup.outcome.value}")
    return Suite(setup, held, TestVerdict(RunKind.ENVIRONMENT, why=setup.reason))


def _tested(
    ctx: Context, name: str, tree: Path, shared: SharedEnv | None, files: Sequence[str] | None
) -> tuple[CommandResult, TestVerdict, str]:
    """One test run, classified, and what of the shared copy it reached ("" for nothing)."""
    since = canary.mark(shared.env_dir) if shared is not None else 0
    test = ctx.test(name, tree, shared, files)
    if test.outcome is Outcome.SKIPPED or (
        test.outcome is Outcome.PASSED and test.exit_code is None
    ):
        return test, TestVerdict(RunKind.PASSED, frozenset()), ""
    output = _read(test)
    reached = canary.reached_since(shared.env_dir, since, output) if shared is not None else ""
    report = read_report(report_path(ctx.logs_dir, name))
    timed_out = test.outcome is Outcome.TIMED_OUT
    runner = runner_of(test.command, tree)
    verdict = classify_run(
        test.exit_code,
        output,
        timed_out=timed_out,
        report=report,
        root=str(tree),
        runner=runner,
        globs=ctx.test_globs,
    )
    test = replace(test, outcomes=verdict.source.value)
    if verdict.kind is RunKind.ENVIRONMENT:
        test = replace(test, outcome=Outcome.ENVIRONMENT, reason=verdict.why)
    return test, verdict, reached


def run_suite(
    ctx: Context,
    label: str = "",
    tree: Tree | None = None,
    files: Sequence[str] | None = None,
    *,
    set_up: Callable[[], None] | None = None,
) -> Suite:
    """Setup, then the tests, in `tree` (the checkout by default); named `<label> setup`.

    `files` runs only those test files, with `commands.test_files` (see `Context.test`).
    `set_up` is called once setup passed, before the tests (what may start beside them).
    """
    prefix = f"{label} " if label else ""
    tree = tree or ctx.tree
    command = ctx.test_command(tree.work, files) or ctx.commands.test
    prepared = setup_step.prepare(ctx, f"{prefix}setup", tree, command)
    if not prepared.result.ok:
        return _held(prepared, f"{prefix}test")
    if set_up is not None:
        set_up()
    test, verdict, reached = _tested(ctx, f"{prefix}test", tree.work, prepared.shared, files)
    if reached and prepared.shared is not None:
        canary.record_bypass(prepared.shared.env_dir, command, reached)
        why = f"the test command reached the shared setup's copy of the code ({reached})"
        prepared = setup_step.prepare_alone(ctx, f"{prefix}setup", tree, prepared.shared, why)
        if not prepared.result.ok:
            return _held(prepared, f"{prefix}test")
        test, verdict, _ = _tested(ctx, f"{prefix}test", tree.work, None, files)
    return Suite(prepared.result, test, verdict)


@contextmanager
def worktree(ctx: Context, sha: str, label: str) -> Iterator[Tree]:
    """A temporary worktree at `sha`, removed afterwards (git's worktree list taken one at a
    time: `_WORKTREES`).

    Its git folder lies in the checkout's keep (read-only in the box); Conveyor reads the
    worktree through that folder, never through the `.git` file in the tree."""
    holder = Path(tempfile.mkdtemp(prefix=f"conveyor-{label}-", dir=ctx.work_dir))
    where = holder / "tree"
    try:
        with _WORKTREES:
            tree = plain.add_worktree(ctx.tree, where, sha)
        yield tree
    finally:
        with _WORKTREES:
            plain.remove_worktree(ctx.tree, where)
        shutil.rmtree(holder, ignore_errors=True)


def in_worktree(
    ctx: Context,
    sha: str,
    label: str,
    prepare: Callable[[Tree], None],
    files: Sequence[str] | None = None,
) -> Suite:
    """`run_suite` in a temporary worktree at `sha` (`worktree`), after `prepare(tree)`."""
    with worktree(ctx, sha, label) as tree:
        prepare(tree)
        return run_suite(ctx, label, tree, files)


@dataclass(frozen=True)
class Baseline:
    """The suite at a base commit: its failures (None: unknown), or its environment error."""

    sha: str
    failures: frozenset[str] | None
    environment: CommandResult | None = None


def _cache_file(ctx: Context, sha: str) -> Path | None:
    if ctx.baselines_dir is None:
        return None
    command = hashlib.sha256(ctx.commands.test.encode()).hexdigest()[:12]
    # `-2`: failures read from the JUnit report (earlier files read pytest's output only).
    return ctx.baselines_dir / f"{sha}-{command}-2.json"


def baseline(ctx: Context, sha: str) -> Baseline:
    """The failures of the test suite at commit `sha` (kept for the next ask)."""
    with _BASELINE:
        return _baseline(ctx, sha)


def _baseline(ctx: Context, sha: str) -> Baseline:
    cache = _cache_file(ctx, sha)
    if cache is not None and cache.is_file():
        try:
            return Baseline(sha, frozenset(json.loads(cache.read_text())["failures"]))
        except (OSError, ValueError, KeyError, TypeError):
            cache.unlink(missing_ok=True)
    suite = in_worktree(ctx, sha, "base", lambda _tree: None)
    if suite.environment is not None:
        return Baseline(sha, None, suite.environment)
    failures = suite.verdict.failures
    if failures is not None and cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"failures": sorted(failures)}))
    return Baseline(sha, failures)


def blame_change(ctx: Context, suite: Suite, base: str) -> CommandResult | None:
    """The environment error of `suite` when the base has none (the change caused it), else None.

    A command that cannot run at the head but runs at the base was broken by the
    change (a stub that breaks the suite, a broken pyproject, a test that crashes the
    runner or does not compile): that is the change's failure, not the environment's.
    Returned as a plain failure. What the machine lacks (`Cause.MACHINE`) never is.
    """
    broken = suite.environment
    if broken is None or suite.verdict.cause is Cause.MACHINE:
        return None
    if baseline(ctx, base).environment is not None:
        return None
    why = f"{broken.reason}; it runs at the base {base[:12]}, so the change broke it"
    return replace(broken, outcome=Outcome.FAILED, reason=why)
