"""JUnit XML reports read as outcomes: pytest's, unittest's (xmlrunner) and jest's shapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.junit import MAX_REPORT_BYTES, Report, parse_report
from conveyor.core.run_verdict import classify_run
from conveyor.core.test_runs import RunKind, Source

DATA = Path(__file__).parents[2] / "data" / "junit"


def report(name: str) -> Report:
    """The report `tests/data/junit/<name>.xml`, parsed."""
    parsed = parse_report((DATA / f"{name}.xml").read_text())
    assert parsed is not None
    return parsed


def test_pytest_cases_are_node_ids_with_their_file_class_and_parameters() -> None:
    """Module, nested package, class and parametrized cases get pytest's own node ids."""
    ids = {c.id for c in report("pytest-xunit1").cases}
    assert {
        "tests/pkg/test_deep.py::test_nested",
        "tests/test_mix.py::test_passes",
        "tests/test_mix.py::test_skipped",
        "tests/test_mix.py::TestMul::test_in_a_class",
        "tests/test_mix.py::TestMul::test_param[1]",
        "tests/test_mix.py::TestMul::test_param[2]",
    } <= ids


def test_pytest_failures_and_collection_errors_are_the_failing_ids() -> None:
    """A module failing to collect is its file; skipped and passed cases are not failures."""
    assert report("pytest-xunit1").failures == {
        "tests/test_broken.py",
        "tests/test_imports.py",
        "tests/test_mix.py::test_fails",
        "tests/test_mix.py::TestMul::test_in_a_class",
        "tests/test_mix.py::TestMul::test_param[2]",
    }


def test_a_failing_case_keeps_its_message_and_details() -> None:
    """The message attribute and the element's text are both kept (import errors read them)."""
    case = next(c for c in report("pytest-xunit1").cases if c.id == "tests/test_broken.py")
    assert case.message == "collection failure"
    assert "No module named 'calc._version'" in case.text


def test_a_report_knows_which_files_it_ran() -> None:
    """A skipped case counts as run; a file with no case in the report does not."""
    parsed = report("pytest-xunit1")
    assert parsed.ran_any(["tests/test_mix.py"])
    assert not parsed.ran_any(["tests/test_mul.py", "tests/conftest.py"])


def test_unittest_cases_take_the_file_and_class_xmlrunner_gives() -> None:
    """xmlrunner's `file` attribute makes ids like pytest's; a loader failure keeps its name."""
    parsed = report("unittest-xmlrunner")
    assert parsed.failures == frozenset(
        {
            "tests/test_mul.py::MulTest::test_multiplies",
            "unittest.loader._FailedTest::tests.test_broken",
        }
    )
    assert parsed.ran_any(["tests/test_mul.py"])


def test_jest_cases_without_files_are_classname_and_name() -> None:
    """jest-junit names no file: ids are `classname::name`, and no file counts as run."""
    parsed = report("jest-junit")
    assert parsed.failures == frozenset(
        {
            "mul multiplies::mul multiplies",
            "Test suite failed to run::src/broken.test.js",
        }
    )
    assert not parsed.ran_any(["src/mul.test.js"])


@pytest.mark.parametrize(
    "text",
    [
        "",
        "not xml at all",
        "<html><body>502</body></html>",
        "<testsuites><testsuite>",
        "<?xml version='1.0'?><coverage line-rate='1'/>",
    ],
)
def test_a_text_that_is_no_junit_report_is_none(text: str) -> None:
    """The report is written by the code under test: anything else is no report, not an error."""
    assert parse_report(text) is None


def test_a_report_over_the_size_limit_is_not_read() -> None:
    """A larger report is None (the run is then read from its output)."""
    padding = " " * (MAX_REPORT_BYTES + 1)
    assert parse_report(f"<testsuites>{padding}</testsuites>") is None


def test_a_bare_testsuite_root_is_a_report() -> None:
    """Runners that write one suite without `<testsuites>` are read too."""
    parsed = parse_report('<testsuite><testcase classname="a" name="b"/></testsuite>')
    assert parsed is not None
    assert [c.id for c in parsed.cases] == ["a::b"]


def test_a_run_read_from_its_report_says_so_and_ignores_the_outputs_summaries() -> None:
    """Outcomes come from the report; an inner session's summary in the output is not read."""
    inner = "=== short test summary info ===\nFAILED tests/test_inner.py::x - boom\n"
    verdict = classify_run(1, inner, report=report("pytest-xunit1"), root="/work/calc")
    assert verdict.kind is RunKind.FAILED
    assert verdict.source is Source.REPORT
    assert "tests/test_inner.py::x" not in (verdict.failures or set())
    assert "tests/test_mix.py::test_fails" in (verdict.failures or set())


def test_without_a_report_the_output_is_read_and_the_verdict_says_so() -> None:
    """The text fallback: pytest's last short summary, marked as read from the output."""
    output = "=== short test summary info ===\nFAILED tests/test_mul.py::test_mul - assert 7\n"
    verdict = classify_run(1, output)
    assert verdict.source is Source.OUTPUT
    assert verdict.failures == frozenset({"tests/test_mul.py::test_mul"})
