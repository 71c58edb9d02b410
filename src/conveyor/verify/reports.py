"""The JUnit XML report a test run is asked for, without touching the user's command.

Each test run gets a report path of its own (beside its log, removed before the run)
in two variables: `PYTEST_ADDOPTS` gains `--junitxml=PATH -o junit_family=xunit1`, so
any pytest the command starts writes it (pytest's `pytester` clears the variable for
the sessions it runs inside the tests, so those never write it), and
`CONVEYOR_JUNIT_XML` names the path for other runners (nose2's `--junit-xml-path`,
jest-junit's `JEST_JUNIT_OUTPUT_FILE`, `go-junit-report > "$CONVEYOR_JUNIT_XML"`).
A command that strips the environment (`env -i`, tox without `passenv`) writes none,
and the run is read from its output instead; the checks comment says which was read.
A command that runs pytest several times in a row leaves the last session's report.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Mapping
from pathlib import Path

from conveyor.core.junit import MAX_REPORT_BYTES, Report, parse_report

REPORT_VAR = "CONVEYOR_JUNIT_XML"


REPORTS = "reports"


def report_path(logs_dir: Path, name: str) -> Path:
    """Where the run called `name` writes its report: in `logs/reports/`, the one folder of
    the logs a boxed command may write (the logs themselves it cannot touch)."""
    return logs_dir / REPORTS / f"{name.replace(' ', '-')}.junit.xml"


def with_report(env: Mapping[str, str], path: Path) -> dict[str, str]:
    """`env` asking for a JUnit report at `path` (the user's `PYTEST_ADDOPTS` kept first)."""
    asked = f"--junitxml={shlex.quote(str(path))} -o junit_family=xunit1"
    before = env.get("PYTEST_ADDOPTS", "").strip()
    return {
        **env,
        "PYTEST_ADDOPTS": f"{before} {asked}" if before else asked,
        REPORT_VAR: str(path),
    }


def clear_report(path: Path) -> None:
    """Remove an earlier run's report, so only this run's is read."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)


def read_report(path: Path) -> Report | None:
    """The report the run wrote at `path`; None when it wrote none, or not a JUnit one.

    A symbolic link there is no report: the command may have left one pointing at a file
    of the job's user (it is never followed).
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as report:
        data = report.read(MAX_REPORT_BYTES + 1)
    return parse_report(data.decode("utf-8", errors="replace"))
