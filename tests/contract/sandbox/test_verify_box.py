"""verify's commands in the job's box: the JUnit report comes through, the logs cannot be
touched, a link left where the report goes is never followed."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from conveyor.core.config import Commands
from conveyor.core.verify import Outcome
from conveyor.sandbox import Box, BoxPlan
from conveyor.sandbox.tools import tool_paths
from conveyor.verify.boxing import Boxing
from conveyor.verify.context import Context
from conveyor.verify.reports import read_report, report_path

pytestmark = pytest.mark.contract


def _context(box: Box, tmp_path: Path, test: str) -> Context:
    home = tmp_path / "conveyor-home"
    job = home / "acme__widgets" / "jobs" / "j1"
    checkout = job / "repo"
    for folder in (checkout, job / "home", job / "tmp", job / "logs"):
        folder.mkdir(parents=True)
    (checkout / "test_one.py").write_text("def test_one():\n    assert True\n")
    plan = BoxPlan(
        cwd=checkout,
        home=job / "home",
        tmp=job / "tmp",
        readable=tool_paths(os.environ, (home,)),
        hidden=(home,),
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(job / "home"), "LANG": "C.UTF-8"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return Context(
        checkout=checkout,
        commands=Commands(test=test, timeout_seconds=60),
        env=env,
        logs_dir=job / "logs",
        boxing=Boxing(box, plan),
    )


def test_a_boxed_test_run_writes_its_junit_report(box: Box, tmp_path: Path) -> None:
    """pytest in the box writes the report verify reads."""
    ctx = _context(box, tmp_path, f"{sys.executable} -m pytest -q -p no:cacheprovider")
    done = ctx.test("test", ctx.checkout, None)
    assert done.outcome is Outcome.PASSED, done.tail
    report = read_report(report_path(ctx.logs_dir, "test"))
    assert report is not None


def test_a_boxed_command_cannot_touch_the_logs_or_plant_a_link_there(
    box: Box, tmp_path: Path
) -> None:
    """Writing or linking in the logs folder fails inside; a link where the report goes is
    read as no report."""
    secret = tmp_path / "job-file.xml"
    secret.write_text('<testsuite tests="1"><testcase name="planted"/></testsuite>')
    logs = tmp_path / "conveyor-home" / "acme__widgets" / "jobs" / "j1" / "logs"
    planted = report_path(logs, "test")
    probe = (
        f"ln -s {secret} {logs}/lint.log 2>/dev/null && echo LINKED-LOG; "
        f"ln -s {secret} {planted} && echo LINKED-REPORT; true"
    )
    ctx = _context(box, tmp_path, probe)
    done = ctx.run("test", probe)
    said = done.tail.splitlines()[1:]  # the first line is the command itself
    assert "LINKED-LOG" not in said
    assert not (logs / "lint.log").is_symlink()
    assert "LINKED-REPORT" in said  # the reports' folder is writable: a link can be made
    assert planted.is_symlink()
    assert read_report(planted) is None


def test_a_boxed_teardown_sees_its_run_folder_read_only_and_writes_only_its_own_folder(
    box: Box, tmp_path: Path
) -> None:
    """Past weakness: teardown could write the run folder, which the job writes after it
    (events, its view), so a link planted there would have been written through by the job.
    Boxed, it runs there (DONE-3) but writes only `TEARDOWN_DIR`; unboxed, the same probe
    plants the link, so the test can fail."""
    from conveyor.ops.forge.close_out import TEARDOWN_DIR, run_teardown

    home = tmp_path / "conveyor-home"
    job = home / "acme__widgets" / "jobs" / "j1"
    run_dir = home / "acme__widgets" / "runs" / "issue-1"
    for folder in (job / "repo", job / "home", job / "tmp", run_dir):
        folder.mkdir(parents=True)
    target = tmp_path / "outside.txt"
    plan = BoxPlan(
        cwd=job / "repo",
        home=job / "home",
        tmp=job / "tmp",
        readable=tool_paths(os.environ, (home,)),
        hidden=(home,),
    )
    env = {"PATH": os.environ["PATH"], "HOME": str(job / "home"), "LANG": "C.UTF-8"}
    probe = (
        f"pwd > {TEARDOWN_DIR}/where.txt; ln -s {target} events.jsonl 2>/dev/null; "
        "touch made-here 2>/dev/null; true"
    )
    bare = tmp_path / "bare-run"
    (bare / TEARDOWN_DIR).mkdir(parents=True)
    run_teardown(probe, bare, env, timeout_s=30)
    assert (bare / "events.jsonl").is_symlink()  # unboxed, the link is made
    done = run_teardown(probe, run_dir, env, timeout_s=30, boxing=Boxing(box, plan))
    assert done.outcome is Outcome.PASSED, done.tail
    assert (run_dir / TEARDOWN_DIR / "where.txt").read_text().strip() == str(run_dir)
    assert not (run_dir / "events.jsonl").exists()
    assert not (run_dir / "events.jsonl").is_symlink()
    assert not (run_dir / "made-here").exists()
