"""What a test run means: passed, real test failures, or an environment error.

A test run counts as failing tests only when the runner reported test results: what
each runner's exit statuses mean is in `core.runners`, and `core.run_verdict` reads a
run with them. An environment error has a cause: the command could not run the tests
(a usage error, no tests collected, a missing command, a kill, a timeout), the runner
crashed or the build failed before any test ran (which the new tests may have caused),
or the machine lacks something (`core.environment_signs`: never the change's doing).
Failures are test ids: pytest's node ids, read from the run's JUnit XML report when it
wrote one (`core.junit`), else from the output: pytest's last short summary (`FAILED id
- msg`, `ERROR id - msg`; the summaries of sessions run inside the tests, printed in
captured output, come before it), or another runner's (`core.run_output`). A collection
error's id is the file.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from enum import StrEnum

from conveyor.core.import_errors import ImportFailure, not_the_change
from conveyor.core.junit import Report

_SUMMARY = re.compile(r"^(FAILED|ERROR) (\S.*?)(?: - .*)?$")
_SUMMARY_HEADER = re.compile(r"^=+ short test summary info =+$")


class RunKind(StrEnum):
    """What one test run showed."""

    PASSED = "passed"
    FAILED = "failed"
    ENVIRONMENT = "environment-error"


class Cause(StrEnum):
    """Why a run is an environment error (`RunKind.ENVIRONMENT`)."""

    COMMAND = "command"  # the command could not run the tests: the change may have broken it
    CRASH = "crash"  # the runner crashed or the build failed: the new tests may be why
    MACHINE = "machine"  # the machine lacks something: never the change's doing


class Source(StrEnum):
    """Where a run's outcomes were read."""

    REPORT = "the JUnit XML report"
    OUTPUT = "the output (no JUnit XML report)"


@dataclass(frozen=True)
class TestVerdict:
    """A test run's meaning; `failures` is None when the run named none (a runner unknown).

    `report` is the run's JUnit report when it wrote one (`source` says which was
    read); `imports` are the failures that are import errors, as the report or the
    output shows them. `files_known` is False when some failure's id names no file
    (mocha, go, ctest): which tests failed is then known only against the base's
    failures. `cause` says why an environment error is one.
    """

    kind: RunKind
    failures: frozenset[str] | None = None
    why: str = ""
    source: Source = Source.OUTPUT
    report: Report | None = None
    imports: tuple[ImportFailure, ...] = ()
    files_known: bool = True
    cause: Cause = Cause.COMMAND


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
