"""What `conveyor demo` says once its table is shown: the verdict, the page, what to run next.

The verdict is honest about what was compared: an interrupted run compares nothing (the
table shows where each issue stopped, not a miss), a clean scripted run says every issue
ended as expected. A URL is printed only while something serves it, and every `next:`
command is runnable as printed: `runner` is this install's `conveyor` as a person types it
(its path when the bare name is not on PATH) and every path is shell-quoted.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Verdict:
    """How the run went: the misses against the expected outcomes (when compared)."""

    issues: int
    compared: bool
    missed: Sequence[str]
    interrupted: bool
    stuck_reason: str | None


def verdict_lines(verdict: Verdict) -> list[str]:
    """The lines saying how the run ended (no miss is claimed for a run cut short)."""
    if verdict.interrupted:
        return ["interrupted: the table shows where each issue stopped"]
    lines = [f"not as expected: {line}" for line in verdict.missed] if verdict.compared else []
    if verdict.stuck_reason is not None:
        lines.append(f"no issue moved: {verdict.stuck_reason}")
    if verdict.compared and not lines:
        lines.append(f"all {verdict.issues} issues ended as expected")
    return lines


def next_steps(runner: str, data_dir: Path, config: Path) -> list[str]:
    """What to run after the demo: its forge again (same port) and the commands on its config."""
    data, conf = shlex.quote(str(data_dir)), shlex.quote(str(config))
    return [
        "next:",
        f"  {runner} forge serve --data {data}   # the forge again, on the same port",
        f"  {runner} status --config {conf}   # every issue's outcome and PR",
        f"  {runner} status --config {conf} --issue 1   # one issue: state, events, stops",
        f"  {runner} transcript --config {conf} --issue 2   # its agent sessions, as on its page",
        f"  {runner} cost --config {conf} --by issue   # tokens and cost per issue",
        f"  {runner} doctor --config {conf}   # what a real repository needs (forge served)",
        f"  {runner} init --repo OWNER/NAME --user LOGIN   # your own config, found by any command",
    ]


def page_line(url: str, *, serving: bool) -> list[str]:
    """The forge page's address, only when the demo goes on serving it after the table."""
    return [f"forge page: {url}/  (the pipeline: {url}/pipeline)"] if serving else []
