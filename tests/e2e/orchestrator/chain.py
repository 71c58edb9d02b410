"""Scenario entries and checks the orchestrator's end-to-end tests share.

Each issue gets its own module (`inventory/<tag>.py`) so writers never overlap,
and the repository's test command is a trivial real command: it fails while a
module that has a test is missing or still raises `NotImplementedError`. These tests are
about coordination, not verification.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from conveyor.core.replies import SPEC_END
from conveyor.core.signatures import parse_marker
from conveyor.core.state_codec import is_state_body
from conveyor.job.jobfile import load_job_file
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.helpers import assert_invariants, reply, spec_answer, triage

TEST_COMMAND = (
    'for t in tests/test_*.py; do m="inventory/${t#tests/test_}"; '
    'if [ ! -f "$m" ] || grep -q NotImplementedError "$m"; then exit 1; fi; done'
)
STUB = '"""{tag}."""\n\n\ndef {tag}() -> int:\n    """One."""\n    raise NotImplementedError\n'
TEST = "from inventory.{tag} import {tag}\n\n\ndef test_{tag}() -> None:\n    assert {tag}() == 1\n"


def chain_config(**limits: Any) -> dict[str, Any]:
    """Config overrides: the trivial test command, a 1 s poll, and review not run by the loop.

    `stage_caps.review = 0` keeps the orchestrator from starting review jobs, so
    the chain ends at a ready PR whatever the back half does.
    """
    return {
        "commands": {"test": TEST_COMMAND, "timeout_seconds": 60},
        "limits": {"claim_wait_seconds": [0, 0], "poll_seconds": 1, "stage_caps": {"review": 0}}
        | limits,
    }


def spec_entry(tag: str) -> dict[str, Any]:
    """A spec writer that commits the tag's stub and failing test, then replies ready."""
    interface = {
        "name": tag, "kind": "function", "where": f"inventory/{tag}.py", "status": "new",
        "signature": f"def {tag}() -> int", "behaviours": [f"`{tag}()` returns 1."],
    }  # fmt: skip
    spec = (
        f"## Behaviour\n- `{tag}()` returns 1.\n\n## Out of scope\nNothing.\n\n## Design\n"
        f"`inventory/{tag}.py`.\n\n## Test interfaces\n`inventory.{tag}.{tag}`\n\n## Tests\n"
        f"`tests/test_{tag}.py`.\n\n## Wiki updates\nNone.\n\n## Assumptions and risks\nNone."
        f"\n\n## Sources\nThe issue.\n{SPEC_END}\n"
    )
    files = [
        {"write": {"path": f"inventory/{tag}.py", "content": STUB.format(tag=tag)}},
        {"write": {"path": f"tests/test_{tag}.py", "content": TEST.format(tag=tag)}},
        {"commit": f"Stub {tag}() and its failing test"},
    ]
    answer = spec_answer(spec=spec, interfaces=[interface])
    return {"tag": tag, "kind": "spec", "turns": [{"actions": files}, reply(answer)]}


def implement_entry(
    tag: str, *, pause: Path | None = None, commit_first: bool = False
) -> dict[str, Any]:
    """An implementer that makes the tag's test pass (after `pause` exists, when given).

    With `commit_first` it commits before it pauses, so a job killed in the pause leaves a
    local commit behind (a resumed session's commit then finds nothing to commit).
    """
    done = STUB.format(tag=tag).replace("raise NotImplementedError", "return 1")
    actions: list[dict[str, Any]] = [
        {"write": {"path": f"inventory/{tag}.py", "content": done}},
        {"commit": f"Implement {tag}()"},
    ]
    if pause is not None:
        waiting = [{"run": f"touch {pause}.started"}, {"pause_until": str(pause)}]
        actions = [*actions, *waiting] if commit_first else [*waiting, *actions]
    answer: dict[str, Any] = {"status": "done", "summary": f"{tag}() returns 1."}
    answer["blocked_reason"] = None
    answer["deviations"] = []
    return {"tag": tag, "kind": "implement", "turns": [{"actions": actions}, reply(answer)]}


def entries(tags: Iterable[str]) -> list[dict[str, Any]]:
    """Triage, spec and implement entries for each tag."""
    return [e for tag in tags for e in (triage(tag), spec_entry(tag), implement_entry(tag))]


def wait_for(what: str, check: Callable[[], bool], timeout: float = 120.0) -> None:
    """Poll `check` until true; fail naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            msg = f"timed out waiting for {what}"
            raise AssertionError(msg)
        time.sleep(0.2)


def job_spans(homes: Iterable[Path], issue: int) -> list[tuple[datetime, datetime]]:
    """Each recorded job of the issue, across orchestrator homes: (start, finish or heartbeat)."""
    spans = []
    for home in homes:
        for path in home.glob(f"jobs/issue-{issue}-*/job.json"):
            record = load_job_file(path)
            end = record.finished.at if record.finished is not None else record.heartbeat
            spans.append((record.started_at, end))
    return sorted(spans)


def assert_no_overlap(spans: list[tuple[datetime, datetime]]) -> None:
    """No job began before the one before it ended."""
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end, f"jobs overlapped: one ended {end}, the next began {start}"


def assert_one_state_comment(world: World, number: int) -> None:
    """Exactly one state comment by the pipeline's account."""
    states = [c for c in world.comments(number) if c.author == ACCOUNT and is_state_body(c.body)]
    assert len(states) == 1, f"#{number}: {len(states)} state comments"


def assert_no_repeated_signed_comment(world: World, *numbers: int) -> None:
    """No role posted the same kind of signed comment twice on one issue or PR.

    For an issue that went through each stage once (no review, fix or sync rounds), a
    repeat means a job's post was made again by a retried or doubled job.
    """
    for number in numbers:
        pr = world.pr(number)
        for target in (number, *((pr.number,) if pr is not None else ())):
            seen: list[tuple[str, str]] = []
            for comment in world.comments(target):
                marker = parse_marker(comment.body)
                if marker is not None and comment.author == ACCOUNT:
                    seen.append((marker.role, marker.kind))
            repeated = sorted({pair for pair in seen if seen.count(pair) > 1})
            assert not repeated, f"#{target}: posted more than once: {repeated}"


def log_lines(home: Path) -> list[str]:
    """orchestrator.log's lines without their time stamps."""
    text = (home / "orchestrator.log").read_text(encoding="utf-8")
    return [line.split(" ", 1)[1] for line in text.splitlines()]


def watchdog_resumes(home: Path) -> dict[str, int]:
    """The resume counts watchdog.json keeps."""
    data: dict[str, Any] = json.loads((home / "watchdog.json").read_text(encoding="utf-8"))
    resumes: dict[str, int] = data["resumes"]
    return resumes


__all__ = ["assert_invariants"]
