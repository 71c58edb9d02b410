"""What a test command's run means: passed, real test failures, or an environment error.

A test run counts as failing tests only when the runner reported test results:
pytest's exit 1 (tests failed) or exit 2 with collection errors it names. A usage
error (exit 4), no tests collected (5), an internal error (3), a missing command or
interpreter (126, 127), a kill by a signal or a timeout is an environment error:
the run says nothing about the tests. Failures are pytest's node ids, read from its
short summary (`FAILED id - msg`, `ERROR id - msg`); a collection error's id is the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

_SUMMARY = re.compile(r"^(FAILED|ERROR) (\S.*?)(?: - .*)?$")
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


@dataclass(frozen=True)
class TestVerdict:
    """A test run's meaning; `failures` is None when the output named none (not pytest)."""

    kind: RunKind
    failures: frozenset[str] | None = None
    why: str = ""


def parse_failures(output: str) -> frozenset[str]:
    """The test ids pytest's short summary names as failed or erroring."""
    found: set[str] = set()
    for line in output.splitlines():
        match = _SUMMARY.match(line.strip())
        if match and not match.group(2).startswith(("collecting", "session")):
            found.add(match.group(2).strip())
    return frozenset(found)


def file_of(test_id: str) -> str:
    """The file part of a test id (`tests/test_a.py::test_x[1]` is `tests/test_a.py`)."""
    return test_id.split("::", 1)[0]


def classify_run(exit_code: int | None, output: str, *, timed_out: bool = False) -> TestVerdict:
    """Read one test run's exit status and output (`exit_code` None: it did not start)."""
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
    failures = parse_failures(output)
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


def listing(ids: Iterable[str], limit: int = 10) -> str:
    """Up to `limit` ids, sorted and comma-separated, with how many more there are."""
    ordered = sorted(ids)
    shown = ", ".join(ordered[:limit])
    more = len(ordered) - limit
    return f"{shown} and {more} more" if more > 0 else shown
