"""One test run read: its exit status as its runner means it, and its report or output.

The runner is the one the command starts (`core.runner_calls`, found by the caller),
else the one the output shows (pytest's last line, mocha's or jest's summary…), else
none: any non-zero status is then failing tests whose ids are unknown. Whatever the
runner, a timeout, a command that did not start, 126 and 127 and a kill are
environment errors; a crash signal (a segfault, an abort) is a crash. A status the
runner reads as failing, with no test results in the output of a runner that always
shows them, is a crash too (a compile failure, an uncaught error while loading the
tests). A crash, or failures whose ids are unknown, whose output shows the machine
lacking something (`core.environment_signs`) is that environment error instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from conveyor.core.environment_signs import machine_sign
from conveyor.core.import_errors import import_failure
from conveyor.core.junit import Report
from conveyor.core.run_output import Reading, read_jest, read_mocha, read_vitest
from conveyor.core.run_output_native import read_ctest, read_go, read_libtest
from conveyor.core.runners import CRASH_SIGNALS, Exits, Runner, runner_named
from conveyor.core.test_runs import Cause, RunKind, Source, TestVerdict, parse_failures

Reader = Callable[[str, Sequence[str], str], Reading]
READERS: dict[str, Reader] = {
    "mocha": read_mocha,
    "jest": read_jest,
    "vitest": read_vitest,
    "go": read_go,
    "libtest": read_libtest,
    "ctest": read_ctest,
}
_FILE_SUFFIX = re.compile(r"\.(?:py|[cm]?[jt]sx?|go|rs|c|cc|cpp|java|kt)$")
_SIGNALLED = 128
_INTERRUPTED = 2
_NOT_RUN = {
    126: "the test command could not be executed (exit 126)",
    127: "the test command or its interpreter was not found (exit 127)",
}
_GENERIC = Exits(failed=None, results_shown=False)
# What each runner's output shows at its end, to know it where the command hides it.
_SHOWN_BY = (
    (
        "pytest",
        re.compile(
            r"^INTERNALERROR>|^ERROR: (?:usage|file or directory not found)|^(?:=+ )?(?:no tests"
            r" ran|\d+ (?:passed|failed|errors?|skipped|deselected|xfailed|xpassed)\b.*) in [\d.]"
            r"+m?s\b",
            re.MULTILINE,
        ),
    ),
    ("jest", re.compile(r"^Test Suites: .*\btotal$", re.MULTILINE)),
    ("vitest", re.compile(r"^\s*Test Files\s+\d", re.MULTILINE)),
    ("mocha", re.compile(r"^\s*\d+ passing \(\d+m?s\)$", re.MULTILINE)),
    ("cargo-test", re.compile(r"^test result: (?:ok|FAILED)\. ", re.MULTILINE)),
    ("ctest", re.compile(r"^\d+% tests passed, \d+ tests? failed out of ", re.MULTILINE)),
    ("go-test", re.compile(r"^(?:ok|FAIL)\s+\S+\s+[\d.]+s$", re.MULTILINE)),
)


def runner_shown(output: str) -> Runner | None:
    """The runner whose end of run the output shows (the last one there), if any."""
    found: tuple[int, str] | None = None
    for name, pattern in _SHOWN_BY:
        for match in pattern.finditer(output):
            if found is None or match.start() > found[0]:
                found = (match.start(), name)
    return runner_named(found[1]) if found is not None else None


def _names_file(part: str) -> bool:
    """Whether an id's first part is a file's path (`tests/test_a.py`, `test/a.test.js`)."""
    return "/" in part or bool(_FILE_SUFFIX.search(part))


def _environment(why: str, cause: Cause = Cause.COMMAND) -> TestVerdict:
    return TestVerdict(RunKind.ENVIRONMENT, why=why, cause=cause)


def _crash(why: str) -> TestVerdict:
    return _environment(why, Cause.CRASH)


def _reading(runner: Runner | None, output: str, globs: Sequence[str], root: str) -> Reading:
    if runner is None or runner.reader == "pytest":
        return Reading(ran=True, failures=parse_failures(output))
    return READERS[runner.reader](output, globs, root)


def _by_code(exit_code: int | None, runner: Runner | None) -> TestVerdict | None:
    """What the exit status alone says, when it says it all."""
    if exit_code is None:
        return _environment("the test command could not start")
    if exit_code == 0:
        return TestVerdict(RunKind.PASSED, frozenset())
    exits = runner.exits if runner is not None else _GENERIC
    name = runner.name if runner is not None else "the test command"
    if exit_code in exits.environment:
        return _environment(exits.environment[exit_code])
    if exit_code in _NOT_RUN:
        return _environment(_NOT_RUN[exit_code])
    if exit_code < 0 or exit_code > _SIGNALLED:
        number = -exit_code if exit_code < 0 else exit_code - _SIGNALLED
        why = f"the test command was killed by signal {number} (exit {exit_code})"
        return _crash(f"{why}: it crashed") if number in CRASH_SIGNALS else _environment(why)
    if exit_code in exits.crash:
        return _crash(f"{name} crashed: an internal error (exit {exit_code})")
    if exits.failed is not None and exit_code not in exits.failed:
        return _crash(f"{name} exited {exit_code} before reporting test results (a build step?)")
    return None


def _by_status(
    exit_code: int,
    output: str,
    report: Report | None,
    runner: Runner | None,
    reading: Callable[[], Reading],
) -> TestVerdict:
    """A status that means failing tests, read with the report or the output."""
    if report is not None:
        # A report whose failed cases name no file (mocha's xunit, ctest's, jest-junit
        # without its file attribute: `suite::title`) is known only against the base's.
        filed = all(_names_file(f.split("::", 1)[0]) for f in report.failures)
        return TestVerdict(RunKind.FAILED, report.failures or None, files_known=filed)
    read = reading()
    if runner is not None and runner.exits.results_shown and not read.ran:
        why = f"{runner.name} exited {exit_code} without reporting any test"
        return _crash(f"{why}: a crash or a compile failure")
    failures = read.failures
    if exit_code == _INTERRUPTED and not failures and "Interrupted" in output:
        return _environment("the test run was interrupted before any test ran (exit 2)")
    return TestVerdict(
        RunKind.FAILED, failures or None, files_known=read.files_known, imports=read.imports
    )


def classify_run(
    exit_code: int | None,
    output: str,
    *,
    timed_out: bool = False,
    report: Report | None = None,
    root: str = "",
    runner: Runner | None = None,
    globs: Sequence[str] = (),
) -> TestVerdict:
    """Read one test run's exit status, and its `report` or else its output.

    `exit_code` None: it did not start. `root` is the tree the run tested (import
    errors' files are read relative to it); `runner` the one its command starts (None:
    the one its output shows, if any); `globs` name the test files (mocha's stack frames).
    """
    if timed_out:
        return _environment("the test command timed out")
    runner = runner or runner_shown(output)
    verdict = _by_code(exit_code, runner)
    if verdict is None:
        assert exit_code is not None, "a run that did not start is answered by its status"
        read = lambda: _reading(runner, output, globs, root)  # noqa: E731 - read only if needed
        verdict = _by_status(exit_code, output, report, runner, read)
    unknown = verdict.kind is RunKind.FAILED and verdict.failures is None
    if verdict.cause is Cause.CRASH or unknown:
        sign = machine_sign(output)
        if sign:
            verdict = _environment(f"the test command cannot run here: {sign}", Cause.MACHINE)
    if report is None:
        return verdict
    imports = verdict.imports
    if verdict.kind is RunKind.FAILED:
        found = (import_failure(c.id, c.message, c.text, root) for c in report.failed_cases())
        imports = tuple(f for f in found if f is not None)
    return replace(verdict, source=Source.REPORT, report=report, imports=imports)
