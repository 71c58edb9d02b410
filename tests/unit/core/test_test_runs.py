"""What a test run means: passed, real test failures, or an environment error (issue 13)."""

from __future__ import annotations

import pytest

from conveyor.core.run_verdict import classify_run
from conveyor.core.test_runs import (
    RunKind,
    in_files,
    parse_failures,
    summary_failures,
    unrelated_collection_errors,
)

SUMMARY = """
=========================== short test summary info ============================
FAILED tests/test_a.py::test_one - AssertionError: assert 1 == 2
FAILED tests/test_a.py::test_param[a b] - ValueError
ERROR tests/test_b.py::test_fixture - RuntimeError: no database
ERROR tests/test_c.py - ModuleNotFoundError: No module named 'missing'
2 failed, 3 passed, 2 errors in 0.12s
"""


def test_the_short_summary_names_every_failing_and_erroring_test() -> None:
    """Failures, errors and collection errors are read as test ids, parameters kept."""
    assert parse_failures(SUMMARY) == {
        "tests/test_a.py::test_one",
        "tests/test_a.py::test_param[a b]",
        "tests/test_b.py::test_fixture",
        "tests/test_c.py",
    }


@pytest.mark.parametrize("code", [3, 4, 5, 126, 127, 137])
def test_exit_statuses_that_say_nothing_about_the_tests_are_environment_errors(code: int) -> None:
    """Internal and usage errors, no tests, a missing command or a kill are not failures."""
    verdict = classify_run(code, SUMMARY)
    assert verdict.kind is RunKind.ENVIRONMENT
    assert str(code) in verdict.why


def test_a_timeout_or_a_command_that_never_started_is_an_environment_error() -> None:
    """Neither run tells whether the tests pass."""
    assert classify_run(1, SUMMARY, timed_out=True).kind is RunKind.ENVIRONMENT
    assert classify_run(None, "").kind is RunKind.ENVIRONMENT


def test_exit_one_is_test_failures_with_their_ids_or_unknown_ids_for_other_runners() -> None:
    """pytest's failures are named; a runner that names none leaves them unknown (None)."""
    assert classify_run(1, SUMMARY).failures == parse_failures(SUMMARY)
    other = classify_run(1, "make: *** [test] Error 1")
    assert (other.kind, other.failures) == (RunKind.FAILED, None)
    assert classify_run(0, "").kind is RunKind.PASSED


def test_an_interruption_with_no_test_named_is_an_environment_error() -> None:
    """pytest's exit 2 counts as failures only when it names the files that failed to collect."""
    assert classify_run(2, "Interrupted: 1 error during collection").kind is RunKind.ENVIRONMENT
    named = classify_run(2, "ERROR tests/test_c.py - ImportError\nInterrupted: 1 error")
    assert (named.kind, named.failures) == (RunKind.FAILED, frozenset({"tests/test_c.py"}))


def test_failures_are_sorted_into_the_given_files_and_unrelated_collection_errors() -> None:
    """Only the new tests' files count; a whole file erroring elsewhere is set apart."""
    failures = parse_failures(SUMMARY)
    assert in_files(failures, ["tests/test_a.py"]) == {
        "tests/test_a.py::test_one",
        "tests/test_a.py::test_param[a b]",
    }
    assert unrelated_collection_errors(failures, ["tests/test_a.py"]) == {"tests/test_c.py"}
    assert unrelated_collection_errors(failures, ["tests/test_c.py"]) == frozenset()


def test_a_ci_logs_failures_are_read_only_under_pytests_short_summary() -> None:
    """A CI run's log (base comparison of failing checks): no summary header, no test ids."""
    log = f"$ make lint\nFAILED lint step - ruff found 3 errors\n{SUMMARY}"
    assert summary_failures(log) == parse_failures(SUMMARY)
    assert summary_failures("FAILED lint step - ruff found 3 errors\n") is None
