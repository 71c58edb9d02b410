"""What a test command's run means: passed, real test failures, or an environment error.

A test run counts as failing tests only when the runner reported test results:
pytest's exit 1 (tests failed) or exit 2 with collection errors it names. A usage
error (exit 4), no tests collected (5), an internal error (3), a missing command or
interpreter (126, 127), a kill by a signal or a timeout is an environment error:
the run says nothing about the tests. Failures are pytest's node ids, read from the
run's JUnit XML report when it wrote one (`core.junit`), else from the output: pytest's
last short summary (`FAILED id - msg`, `ERROR id - msg`; the summaries of sessions run
inside the tests, printed in captured output, come before it). A collection error's id
is the file.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from enum import StrEnum

from conveyor.core.import_errors import ImportFailure, import_failure, not_the_change
from conveyor.core.junit import Report

_SUMMARY = re.compile(r"^(FAILED|ERROR) (\S.*?)(?: - .*)?$")
_SUMMARY_HEADER = re.compile(r"^=+ short test summary info =+$")
# Exit statuses that never mean "the tests ran and some failed".
ENVIRONMENT_CODES = {
    3: "the test runner hit an internal error (exit 3)",
    4: "the test command was used wrongly (exit 4: a usage error, e.g. a path that is missing)",
    5: "the test command collected no tests (exit 5)",
    126: "the test command could not be executed (exit 126)",
    127: "the test command or its interpreter was not found (exit 127)",
}
_SIGNALLED = 128
_INTERRUPTED = 2


class RunKind(StrEnum):
    """What one test run showed."""

    PASSED = "passed"
    FAILED = "failed"
    ENVIRONMENT = "environment-error"


class Source(StrEnum):
    """Where a run's outcomes were read."""

    REPORT = "the JUnit XML report"
    OUTPUT = "the output (no JUnit XML report)"


@dataclass(frozen=True)
class TestVerdict:
    """A test run's meaning; `failures` is None when the run named none (not pytest).

    `report` is the run's JUnit report when it wrote one (`source` says which was
    read); `imports` are the failures that are import errors, as the report shows them.
    """

    kind: RunKind
    failures: frozenset[str] | None = None
    why: str = ""
    source: Source = Source.OUTPUT
    report: Report | None = None
    imports: tuple[ImportFailure, ...] = ()


def parse_failures(output: str) -> frozenset[str]:
    """The test ids pytest's last short summary names as failed or erroring.

    Without a summary header (`-rN`, another runner) every line is read.
    """
    lines = output.splitlines()
    headers = [i for i, line in enumerate(lines) if _SUMMARY_HEADER.match(line.strip())]
    found: set[str] = set()
    for line in lines[headers[-1] + 1 :] if headers else lines:
        match = _SUMMARY.match(line.strip())
        if match and not match.group(2).startswith(("collecting", "session")):
            found.add(match.group(2).strip())
    return frozenset(found)


def summary_failures(output: str) -> frozenset[str] | None:
    """The failures of a run's output that has pytest's short summary; None when it has none.

    For a CI run's log, where lines of other tools are no test ids.
    """
    if not any(_SUMMARY_HEADER.match(line.strip()) for line in output.splitlines()):
        return None
    return parse_failures(output)


def file_of(test_id: str) -> str:
    """The file part of a test id (`tests/test_a.py::test_x[1]` is `tests/test_a.py`)."""
    return test_id.split("::", 1)[0]


def classify_run(
    exit_code: int | None,
    output: str,
    *,
    timed_out: bool = False,
    report: Report | None = None,
    root: str = "",
) -> TestVerdict:
    """Read one test run's exit status, and its `report` or else its output.

    `exit_code` None: it did not start. `root` is the tree the run tested (import
    errors' files are read relative to it).
    """
    verdict = _by_status(exit_code, output, timed_out=timed_out, report=report)
    if report is None:
        return verdict
    imports: tuple[ImportFailure, ...] = ()
    if verdict.kind is RunKind.FAILED:
        found = (import_failure(c.id, c.message, c.text, root) for c in report.failed_cases())
        imports = tuple(f for f in found if f is not None)
    return replace(verdict, source=Source.REPORT, report=report, imports=imports)


def _by_status(
    exit_code: int | None, output: str, *, timed_out: bool, report: Report | None
) -> TestVerdict:
    if timed_out:
        return TestVerdict(RunKind.ENVIRONMENT, why="the test command timed out")
    if exit_code is None:
        return TestVerdict(RunKind.ENVIRONMENT, why="the test command could not start")
    if exit_code == 0:
        return TestVerdict(RunKind.PASSED, frozenset())
    if exit_code in ENVIRONMENT_CODES:
        return TestVerdict(RunKind.ENVIRONMENT, why=ENVIRONMENT_CODES[exit_code])
    if exit_code < 0 or exit_code > _SIGNALLED:
        why = f"the test command was killed by a signal (exit {exit_code})"
        return TestVerdict(RunKind.ENVIRONMENT, why=why)
    failures = report.failures if report is not None else parse_failures(output)
    if exit_code == _INTERRUPTED and not failures and "Interrupted" in output:
        why = "the test run was interrupted before any test ran (exit 2)"
        return TestVerdict(RunKind.ENVIRONMENT, why=why)
    return TestVerdict(RunKind.FAILED, failures or None)


def new_failures(failures: frozenset[str], before: frozenset[str]) -> frozenset[str]:
    """The failures that were not there before."""
    return failures - before


def in_files(failures: Iterable[str], files: Iterable[str]) -> frozenset[str]:
    """The failures whose test id lies in one of `files`."""
    wanted = set(files)
    return frozenset(f for f in failures if file_of(f) in wanted)


def unrelated_collection_errors(failures: Iterable[str], files: Iterable[str]) -> frozenset[str]:
    """Erroring whole files (collection errors) that are not among `files`."""
    wanted = set(files)
    return frozenset(f for f in failures if "::" not in f and f not in wanted)


def foreign_imports(
    verdict: TestVerdict, ids: Iterable[str], changed: Collection[str]
) -> tuple[ImportFailure, ...]:
    """The import errors among the failures `ids` that the change cannot have caused.

    Such a failure is an environment error (issue 31): the module it could not
    import is one the change did not touch, nor the file it rose in.
    """
    wanted = set(ids)
    return tuple(f for f in verdict.imports if f.test_id in wanted and not_the_change(f, changed))


def imports_note(name: str, found: Iterable[ImportFailure], limit: int = 5) -> str:
    """The environment error a run with import errors the change did not cause is."""
    shown = sorted(found, key=lambda f: f.test_id)
    lines = [f"- {f.describe()}" for f in shown[:limit]]
    if len(shown) > limit:
        lines.append(f"- and {len(shown) - limit} more")
    return (
        f"{name}: tests fail on an import the change did not touch (a file setup makes, "
        "or a dependency, is missing):\n" + "\n".join(lines)
    )


def listing(ids: Iterable[str], limit: int = 10) -> str:
    """Up to `limit` ids, sorted and comma-separated, with how many more there are."""
    ordered = sorted(ids)
    shown = ", ".join(ordered[:limit])
    more = len(ordered) - limit
    return f"{shown} and {more} more" if more > 0 else shown
