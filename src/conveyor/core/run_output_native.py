"""What a native test runner's output says: `go test` (text or `-json`), libtest, ctest.

Like `core.run_output`'s readers: `ran` is whether the runner's summary is there (a
build that failed before any test ran has none, which is a crash for the caller).
Ids: go's `package::TestName` (`files_known` False: go names packages, not files),
libtest's `file::path::name` with the file its `Running` line names (the crate's
`src/lib.rs`, an integration test's `tests/x.rs`), ctest's test names.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from conveyor.core.run_output import Reading, plain_text

_GO_FAIL = re.compile(r"^(\s*)--- FAIL: (\S+)")
_GO_PACKAGE = re.compile(r"^(ok|FAIL|\?)\s+(\S+)\s+(?:[\d.]+s|\(cached\)|\[no test files\])")
_GO_BROKEN = re.compile(r"^FAIL\s+(\S+)\s+\[(?:build|setup) failed\]")
_LIBTEST_RUNNING = re.compile(r"^\s*Running (?:unittests )?(\S+)")
_LIBTEST_CASE = re.compile(r"^test (\S+) \.\.\. (FAILED|ok|ignored)")
_LIBTEST_RESULT = re.compile(r"^test result: ", re.MULTILINE)
_CTEST_SUMMARY = re.compile(
    r"^\d+% tests passed, \d+ tests? failed out of \d+|^No tests were found", re.MULTILINE
)
_CTEST_FAILED = re.compile(r"^\s*\d+ - (.+?) \((?:[^()]+)\)\s*$")


def _go_json(lines: list[str]) -> Reading | None:
    """`go test -json` events, when the output is made of them (None when not)."""
    events = []
    for line in lines:
        if line.startswith("{"):
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if isinstance(event, dict):
                events.append(event)
    if not events:
        return None
    failed = {
        f"{e.get('Package', '')}::{e['Test']}"
        for e in events
        if e.get("Action") == "fail" and isinstance(e.get("Test"), str) and "/" not in e["Test"]
    }
    packages = {e.get("Package") for e in events if e.get("Action") in ("pass", "fail")}
    broken = [e for e in events if e.get("Action") == "build-fail" or e.get("FailedBuild")]
    if broken or not packages:
        return Reading(ran=False)
    return Reading(True, frozenset(failed), files_known=False)


def read_go(output: str, globs: Sequence[str], root: str = "") -> Reading:
    """`go test`'s `--- FAIL: TestX` lines under their package's `FAIL pkg` line.

    A package that did not build (`[build failed]`) means nothing was tested there: the
    whole run reads as not reported (a compile failure, which the caller weighs).
    """
    lines = plain_text(output).splitlines()
    from_json = _go_json(lines)
    if from_json is not None:
        return from_json
    if any(_GO_BROKEN.match(line) for line in lines):
        return Reading(ran=False)
    found: set[str] = set()
    pending: list[str] = []
    ran = False
    for line in lines:
        failed = _GO_FAIL.match(line)
        if failed is not None and not failed.group(1):  # subtests are indented
            pending.append(failed.group(2))
            continue
        package = _GO_PACKAGE.match(line)
        if package is not None:
            ran = True
            name = package.group(2)
            found.update(f"{name}::{test}" for test in pending)
            if package.group(1) == "FAIL" and not pending:  # a panic or TestMain exit
                found.add(name)
            pending = []
    return Reading(ran, frozenset(found), files_known=False)


def read_libtest(output: str, globs: Sequence[str], root: str = "") -> Reading:
    """libtest's `test path ... FAILED` lines, each under the `Running FILE` line before it."""
    text = plain_text(output)
    if not _LIBTEST_RESULT.search(text):
        return Reading(ran=False)
    found: set[str] = set()
    current = ""
    for line in text.splitlines():
        running = _LIBTEST_RUNNING.match(line)
        if running is not None:
            current = running.group(1)
            continue
        case = _LIBTEST_CASE.match(line)
        if case is not None and case.group(2) == "FAILED":
            found.add(f"{current}::{case.group(1)}" if current else case.group(1))
    return Reading(True, frozenset(found), files_known=all("::" in f for f in found))


def read_ctest(output: str, globs: Sequence[str], root: str = "") -> Reading:
    """ctest's `The following tests FAILED:` list (a crash there, `SEGFAULT`, is a failure)."""
    text = plain_text(output)
    summary = _CTEST_SUMMARY.search(text)
    if summary is None or summary.group(0).startswith("No tests"):
        return Reading(ran=False)
    found: set[str] = set()
    listed = text.split("The following tests FAILED:", 1)
    if len(listed) == 2:
        for line in listed[1].splitlines()[1:]:
            case = _CTEST_FAILED.match(line)
            if case is None:
                break
            found.add(case.group(1))
    return Reading(True, frozenset(found), files_known=False)
