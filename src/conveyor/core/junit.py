"""A JUnit XML test report read as outcomes: each test case's id, whether it failed, and why.

pytest writes one with `--junitxml` (verify asks for it through `PYTEST_ADDOPTS`, in
the `xunit1` family, which gives every case its file), and so do unittest's and
nose2's plugins, jest-junit and go's converters. A case's id is pytest's node id,
`file::Class::name`, with the file the report gives; a collection error's id is its
file. A report without files (another runner) gives `classname::name`.

The report is written by the code under test, so it is parsed as data: a text that
is not a JUnit report is None, never an error.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass

# A larger report is not read (the run is then read from its output).
MAX_REPORT_BYTES = 32 * 1024 * 1024


# How a case that did not fail ended, as the report marks it: pytest's `<skipped
# type="pytest.xfail">` is an expected failure, any other `<skipped>` a skip.
SKIPPED = "skipped"
XFAILED = "xfailed"


@dataclass(frozen=True)
class Case:
    """One test case: its id, whether it failed or errored, the message and the details.

    `skipped` is "" for a case that ran, else `SKIPPED` or `XFAILED` (its reason in
    `message`).
    """

    id: str
    failed: bool
    message: str = ""
    text: str = ""
    skipped: str = ""

    @property
    def file(self) -> str:
        """The file part of the id."""
        return self.id.split("::", 1)[0]

    @property
    def status(self) -> str:
        """`failed`, `skipped`, `xfailed` or `passed`."""
        return "failed" if self.failed else self.skipped or "passed"


@dataclass(frozen=True)
class Report:
    """Every test case a run reported."""

    cases: tuple[Case, ...]

    @property
    def failures(self) -> frozenset[str]:
        """The ids of the cases that failed or errored."""
        return frozenset(c.id for c in self.cases if c.failed)

    def failed_cases(self) -> tuple[Case, ...]:
        """The cases that failed or errored, in the report's order."""
        return tuple(c for c in self.cases if c.failed)

    def ran_any(self, files: Iterable[str]) -> bool:
        """Whether the report has a case (passed, failed or skipped) in one of `files`."""
        wanted = set(files)
        return any(c.file in wanted for c in self.cases)


def _case_id(attrs: dict[str, str]) -> str:
    classname, name, file = attrs.get("classname", ""), attrs.get("name", ""), attrs.get("file", "")
    if not file:
        return f"{classname}::{name}" if classname else name
    module = file.removesuffix(".py").replace("/", ".")
    if not classname and name == module:  # pytest's collection error: the whole file
        return file
    rest = classname
    if classname == module or classname.startswith(f"{module}."):
        rest = classname[len(module) :]
    return "::".join([file, *(p for p in rest.split(".") if p), name])


def _case(element: ET.Element) -> Case:
    problem = next((c for c in element if c.tag in ("failure", "error")), None)
    if problem is None:
        skip = next((c for c in element if c.tag == "skipped"), None)
        if skip is None:
            return Case(_case_id(dict(element.attrib)), failed=False)
        kind = XFAILED if skip.get("type") == "pytest.xfail" else SKIPPED
        why = skip.get("message") or skip.text or ""
        return Case(_case_id(dict(element.attrib)), False, why, skipped=kind)
    message = problem.get("message") or ""
    return Case(_case_id(dict(element.attrib)), True, message, problem.text or "")


def parse_report(text: str) -> Report | None:
    """The report's test cases; None when `text` is not a JUnit XML report."""
    if len(text) > MAX_REPORT_BYTES:
        return None
    try:
        root = ET.fromstring(text)  # noqa: S314 - the report is parsed as data, entities unexpanded
    except ET.ParseError:
        return None
    if root.tag not in ("testsuites", "testsuite"):
        return None
    return Report(tuple(_case(c) for c in root.iter("testcase")))
