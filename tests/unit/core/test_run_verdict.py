"""Each runner's exit statuses and output read as it means them (issue 47, point 3).

pytest's statuses were read for every runner: mocha's 3 failing tests (exit 3) became
"the test runner hit an internal error". The outputs are real runs
(`tests/data/runners/README.md`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conveyor.core.import_errors import not_the_change
from conveyor.core.junit import parse_report
from conveyor.core.run_verdict import classify_run, runner_shown
from conveyor.core.runners import RUNNERS, runner_named
from conveyor.core.test_runs import Cause, RunKind

DATA = Path(__file__).parents[2] / "data" / "runners"
GLOBS = ("test/**", "tests/**", "spec2/**")


def output(name: str) -> str:
    """A captured run's output."""
    return (DATA / f"{name}.txt").read_text()


FAILING = {
    "mocha's exit status is its count of failures": (
        "mocha",
        3,
        "mocha-3-failing",
        {"spec2/c.js::x", "spec2/c.js::y", "spec2/c.js::z"},
    ),
    "jest names the file of each case, and a suite that failed to run": (
        "jest",
        1,
        "jest-failing",
        {"test/a.test.js::calc › adds", "test/b.test.js", "test/c.test.js"},
    ),
    "libtest's failures under the file its Running line names": (
        "cargo-test",
        101,
        "cargo-failing",
        {"src/lib.rs::tests::it_adds"},
    ),
    "ctest's failed list, a segfaulting test among them": (
        "ctest",
        8,
        "ctest-failing",
        {"a_test", "b_test"},
    ),
    "go's failing tests under their package": (
        "go-test",
        1,
        "go-failing",
        {"example.com/calc::TestMul"},
    ),
    "go test -json's fail events": ("go-test", 1, "go-json-failing", {"example.com/calc::TestMul"}),
}


@pytest.mark.parametrize(("name", "code", "log", "ids"), FAILING.values(), ids=FAILING.keys())
def test_a_runners_failing_status_is_failing_tests_with_their_ids(
    name: str, code: int, log: str, ids: set[str]
) -> None:
    """The tests ran and these failed: never an environment error."""
    verdict = classify_run(code, output(log), runner=runner_named(name), globs=GLOBS)
    assert verdict.kind is RunKind.FAILED, verdict.why
    assert set(verdict.failures or ()) == ids


def test_a_runner_is_known_by_its_output_where_the_command_hides_it() -> None:
    """`npm test`, a script: the output's end shows which runner it was."""
    shown = {log: runner_shown(output(log)) for log in ("mocha-3-failing", "jest-failing")}
    assert {k: r.name if r else None for k, r in shown.items()} == {
        "mocha-3-failing": "mocha",
        "jest-failing": "jest",
    }
    verdict = classify_run(3, output("mocha-3-failing"), globs=GLOBS)
    assert (verdict.kind, len(verdict.failures or ())) == (RunKind.FAILED, 3)


CRASHES = {
    "pytest's internal error (pytest-7168: a __repr__ raising in a plugin)": (
        "pytest",
        3,
        "pytest-internalerror",
    ),
    "mocha exits without its summary: a test file that cannot load": (
        "mocha",
        1,
        "mocha-load-error",
    ),
    "cargo's compile failure": ("cargo-test", 101, "cargo-compile-error"),
    "cmake's build step fails before ctest": ("ctest", 2, "cmake-compile-error"),
    "go's package that does not build": ("go-test", 1, "go-build-failed"),
}


@pytest.mark.parametrize(("name", "code", "log"), CRASHES.values(), ids=CRASHES.keys())
def test_a_run_that_stopped_before_reporting_is_a_crash_the_tests_may_have_caused(
    name: str, code: int, log: str
) -> None:
    """A crash: an environment error unless the base runs clean (the callers weigh it)."""
    verdict = classify_run(code, output(log), runner=runner_named(name), globs=GLOBS)
    assert (verdict.kind, verdict.cause) == (RunKind.ENVIRONMENT, Cause.CRASH), verdict.why


@pytest.mark.parametrize("spec", RUNNERS, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("mkdir: cannot create directory 'build': Read-only file system", "read-only"),
        ("sh: 1: cmake: not found", "`cmake` is not installed"),
        ("/usr/bin/env: 'node': No such file or directory", "`node` is not installed"),
        ("npm ERR! getaddrinfo ENOTFOUND registry.npmjs.org", "network"),
        ("error: no matching package named `serde` found", "dependency"),
        ("-- Could NOT find GTest (missing: GTEST_LIBRARY)", "toolchain or library"),
        ("error: rustup could not choose a version of cargo to run", "toolchain or library"),
    ],
)
def test_what_the_machine_lacks_is_an_environment_error_for_every_runner(
    spec: object, text: str, says: str
) -> None:
    """Whatever the runner and its status, the machine's lack is never the tests' failure."""
    known = runner_named(getattr(spec, "name", ""))
    assert known is not None
    failing = next(iter(known.exits.failed or {1}))
    verdict = classify_run(failing, f"building…\n{text}\n", runner=known, globs=GLOBS)
    assert (verdict.kind, verdict.cause) == (RunKind.ENVIRONMENT, Cause.MACHINE), verdict.why
    assert says in verdict.why


def test_a_missing_package_is_the_machines_and_a_missing_relative_module_the_codes() -> None:
    """mocha: `chai` not installed is environment; `../lib/nope` may be the change's."""
    mocha = runner_named("mocha")
    package = classify_run(1, output("mocha-missing-package"), runner=mocha)
    relative = classify_run(1, output("mocha-load-error"), runner=mocha)
    assert package.cause is Cause.MACHINE
    assert relative.cause is Cause.CRASH


def test_jests_missing_modules_are_import_failures_judged_against_the_change() -> None:
    """A suite failing on a module the change did not touch is foreign; one it added is not."""
    verdict = classify_run(1, output("jest-failing"), runner=runner_named("jest"))
    failures = {f.test_id: f for f in verdict.imports}
    assert set(failures) == {"test/b.test.js", "test/c.test.js"}
    assert not not_the_change(failures["test/b.test.js"], {"lib/nope.js"})
    assert not_the_change(failures["test/b.test.js"], {"lib/other.js"})
    assert not_the_change(failures["test/c.test.js"], {"lib/nope.js"})


@pytest.mark.parametrize(
    ("code", "cause"),
    [(139, Cause.CRASH), (134, Cause.CRASH), (137, Cause.COMMAND), (143, Cause.COMMAND)],
)
def test_a_crash_signal_is_a_crash_and_a_kill_is_the_commands(code: int, cause: Cause) -> None:
    """A segfault or an abort may be the new test's; SIGKILL or SIGTERM came from outside."""
    verdict = classify_run(code, "", runner=runner_named("ctest"))
    assert (verdict.kind, verdict.cause) == (RunKind.ENVIRONMENT, cause)


def test_pytests_statuses_stay_pytests_own() -> None:
    """Exit 4 and 5 say the command could not run the tests; other runners do not have them."""
    pytest_runner = runner_named("pytest")
    assert classify_run(4, "", runner=pytest_runner).cause is Cause.COMMAND
    assert classify_run(5, "", runner=pytest_runner).kind is RunKind.ENVIRONMENT
    assert classify_run(4, output("mocha-3-failing"), runner=runner_named("mocha")).kind is (
        RunKind.FAILED
    )


XUNIT = """<testsuite name="Mocha Tests" tests="2" failures="1">
<testcase classname="titleCase" name="capitalises every word" time="0.001">
<failure message="expected">AssertionError</failure></testcase>
<testcase classname="capitalise" name="capitalises the first letter" time="0"/>
</testsuite>"""


def test_a_report_whose_cases_name_no_file_is_known_only_against_the_base() -> None:
    """mocha's xunit reporter names no file: which tests failed is not read as files."""
    report = parse_report(XUNIT)
    assert report is not None
    verdict = classify_run(1, "", report=report, runner=runner_named("mocha"))
    assert verdict.failures == frozenset({"titleCase::capitalises every word"})
    assert not verdict.files_known
    pytest_like = parse_report(XUNIT.replace('classname="titleCase"', 'file="test/t.js"'))
    assert pytest_like is not None
    assert classify_run(1, "", report=pytest_like, runner=runner_named("mocha")).files_known
