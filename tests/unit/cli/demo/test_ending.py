"""What the demo says after its table: an honest verdict, no dead URL, runnable `next:` lines."""

from __future__ import annotations

import ast
import shlex
import subprocess
import sys
from pathlib import Path

from conveyor.cli.demo.ending import Verdict, next_steps, page_line, verdict_lines


def test_an_interrupted_demo_claims_no_issue_missed_its_outcome() -> None:
    """After Ctrl-C the table shows where each issue stopped; no `not as expected` line."""
    verdict = Verdict(8, compared=True, missed=["#3 [bug]: working (expected merged)"],
                      interrupted=True, stuck_reason=None)  # fmt: skip
    lines = verdict_lines(verdict)
    assert not any("not as expected" in line for line in lines)
    assert any("interrupted" in line for line in lines)


def test_a_clean_scripted_run_says_every_issue_ended_as_expected() -> None:
    """No miss, nothing stuck: one line saying all of the issues ended as expected."""
    verdict = Verdict(8, compared=True, missed=[], interrupted=False, stuck_reason=None)
    assert verdict_lines(verdict) == ["all 8 issues ended as expected"]


def test_a_run_with_misses_names_each_and_claims_no_clean_end() -> None:
    """Each miss is a line; the all-as-expected line is not printed."""
    miss = "#3 [bug]: working (expected merged)"
    verdict = Verdict(8, compared=True, missed=[miss], interrupted=False, stuck_reason=None)
    assert verdict_lines(verdict) == [f"not as expected: {miss}"]


def test_a_real_agent_run_is_reported_not_compared() -> None:
    """With a real CLI nothing is compared, so neither a miss nor a clean end is claimed."""
    verdict = Verdict(8, compared=False, missed=[], interrupted=False, stuck_reason=None)
    assert verdict_lines(verdict) == []


def test_no_forge_url_is_printed_when_nothing_serves_it_after_the_table() -> None:
    """`--no-serve` (or no terminal): the page line is left out; when serving it is there."""
    assert page_line("http://127.0.0.1:8123", serving=False) == []
    assert page_line("http://127.0.0.1:8123", serving=True)[0].startswith("forge page: http://")


def test_the_next_commands_run_as_printed_even_with_spaces_in_paths(tmp_path: Path) -> None:
    """Each `next:` line, cut at its comment, is a shell command whose words are as meant."""
    runner = shlex.join([sys.executable, "-c", "import sys; print(sys.argv[1:])"])
    data, config = tmp_path / "demo data", tmp_path / "demo data" / "conveyor.toml"
    steps = next_steps(runner, data, config)
    assert steps[0] == "next:"
    for line in steps[1:]:
        command = line.split("   #", 1)[0].strip()
        done = subprocess.run(command, shell=True, capture_output=True, text=True, check=True)  # noqa: S602 - the point is to run it as a shell would
        words = ast.literal_eval(done.stdout)
        assert str(data) in words or str(config) in words or "init" in words
