"""The spec writer's tests by name: kept from the spec's run, judged in every head's report."""

from __future__ import annotations

from conveyor.core.junit import Report, parse_report
from conveyor.core.spec_tests import SpecTests, judge, spec_tests_check, spec_tests_seen
from conveyor.core.verify import CommandResult, Outcome


def _report(*cases: str) -> Report:
    """A pytest-shaped report from `(file, name, body)` lines joined by `|`."""
    rows = []
    for case in cases:
        file, name, body = case.split("|")
        module = file.removesuffix(".py").replace("/", ".")
        module = "" if name == module else module  # pytest's collection error: the file
        rows.append(f'<testcase classname="{module}" name="{name}" file="{file}">{body}</testcase>')
    parsed = parse_report(f"<testsuites><testsuite>{''.join(rows)}</testsuite></testsuites>")
    assert parsed is not None
    return parsed


SPEC_RUN = _report(
    "tests/test_mul.py|test_mul|<failure message='assert 7 == 12'/>",
    "tests/test_mul.py|test_zero|",
    "tests/test_mul.py|test_windows|<skipped message='not here'/>",
    "tests/test_add.py|test_add|",
)
SPEC = spec_tests_seen(SPEC_RUN, ["tests/test_mul.py"])
PASSED = CommandResult("test", Outcome.PASSED, exit_code=0)


def test_the_spec_keeps_the_cases_of_its_files_that_ran_there() -> None:
    """Failed and passed cases of the spec's files are kept; skipped ones and others not."""
    assert SPEC.ids == ("tests/test_mul.py::test_mul", "tests/test_mul.py::test_zero")
    assert SPEC.read


def test_a_head_where_every_spec_test_passed_is_judged_passed() -> None:
    """Both ids in the report, passed."""
    head = _report("tests/test_mul.py|test_mul|", "tests/test_mul.py|test_zero|")
    assert judge(SPEC, head).ok is True


def test_each_spec_test_that_did_not_run_and_pass_is_named_with_what_happened() -> None:
    """Skipped, xfailed, failed and missing are each named."""
    skipped = _report(
        "tests/test_mul.py|test_mul|<skipped type='pytest.skip' message='later'/>",
        "tests/test_mul.py|test_zero|<skipped type='pytest.xfail' message='known'/>",
    )
    assert judge(SPEC, skipped).lines == (
        "tests/test_mul.py::test_mul: skipped: later",
        "tests/test_mul.py::test_zero: xfailed: known",
    )
    missing = _report("tests/test_mul.py|test_zero|<failure message='boom'/>")
    assert judge(SPEC, missing).lines == (
        "tests/test_mul.py::test_mul: missing from the report (deselected, not collected, "
        "or renamed)",
        "tests/test_mul.py::test_zero: failed: boom",
    )


def test_a_head_run_without_a_report_is_not_verified_when_the_spec_had_one() -> None:
    """A plugin switched off or a command that drops the report: nothing shows they ran."""
    judged = judge(SPEC, None)
    assert judged.ok is False
    assert "wrote no JUnit report" in judged.lines[0]


def test_without_a_report_at_the_spec_head_it_says_what_is_not_proved() -> None:
    """Another runner: only the files are known, and the check is skipped saying so."""
    spec = spec_tests_seen(None, ["spec/mul.test.js"])
    judged = judge(spec, None)
    assert judged.ok is None
    assert "not proved that they ran" in judged.note
    check = spec_tests_check(spec, None, PASSED)
    assert check.outcome is Outcome.SKIPPED


def test_a_spec_file_that_could_not_be_collected_at_its_head_stands_for_its_cases() -> None:
    """Its id is the file: every case of it must run and pass at the head."""
    broken = _report("tests/test_new.py|tests.test_new|<error message='ImportError'/>")
    spec = spec_tests_seen(broken, ["tests/test_new.py"])
    assert spec.ids == ("tests/test_new.py",)
    assert judge(spec, _report("tests/test_new.py|test_a|", "tests/test_new.py|test_b|")).ok
    skipped_one = _report("tests/test_new.py|test_a|", "tests/test_new.py|test_b|<skipped/>")
    assert judge(spec, skipped_one).ok is False
    assert judge(spec, _report("tests/test_other.py|test_a|")).ok is False


def test_no_record_and_no_tests_are_skipped_with_why() -> None:
    """An issue specified before the record, and a spec with no_tests_reason."""
    assert spec_tests_check(None, SPEC_RUN, PASSED).outcome is Outcome.SKIPPED
    none = spec_tests_check(SpecTests(no_tests="docs only"), SPEC_RUN, PASSED)
    assert none.outcome is Outcome.SKIPPED
    assert "docs only" in none.reason


def test_the_check_fails_naming_the_tests_and_is_held_when_setup_did_not_pass() -> None:
    """A failed check names the test; a test run that did not happen holds it."""
    failed = spec_tests_check(SPEC, _report("tests/test_mul.py|test_zero|"), PASSED)
    assert failed.outcome is Outcome.FAILED
    assert "tests/test_mul.py::test_mul: missing" in failed.reason
    held = spec_tests_check(SPEC, None, CommandResult("test", Outcome.SKIPPED))
    assert held.outcome is Outcome.SKIPPED
