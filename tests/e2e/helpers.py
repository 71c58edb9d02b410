"""What the end-to-end tests share: scenario entries for the sample library and invariants."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conveyor.core.invariants import IssueSnapshot, PrSnapshot, Snapshot, check_invariants
from conveyor.core.replies import SPEC_END
from conveyor.testing.world import ACCOUNT, World

STUB = (
    '"""Totals of the stock."""\n\nfrom inventory.stock import Stock\n\n\n'
    "def total(stock: Stock) -> int:\n"
    '    """Every item\'s quantity, summed."""\n'
    "    raise NotImplementedError\n"
)
IMPL = STUB.replace(
    "raise NotImplementedError", "return sum(stock.quantity(n) for n in stock.names())"
)
TEST = (
    "from inventory.stock import Stock\nfrom inventory.total import total\n\n\n"
    "def test_total_sums_every_item() -> None:\n"
    "    stock = Stock()\n    stock.add('bolt', 2)\n    stock.add('nut', 3)\n"
    "    assert total(stock) == 5\n"
)
BEHAVIOUR = "`total(stock)` sums the quantity of every item."
SPEC = f"""## Behaviour
- {BEHAVIOUR}

## Out of scope
Nothing else.

## Design
A new module `inventory/total.py`.

## Test interfaces
`inventory.total.total`

## Tests
`tests/test_total.py` drives `total`.

## Wiki updates
None.

## Assumptions and risks
None.

## Sources
The issue.
{SPEC_END}
"""
INTERFACE = {
    "name": "total",
    "kind": "function",
    "where": "inventory/total.py",
    "status": "new",
    "signature": "def total(stock: Stock) -> int",
    "behaviours": [BEHAVIOUR],
}


def reply(entry: dict[str, Any]) -> dict[str, Any]:
    """A turn that submits `entry` as the reply."""
    return {"actions": [{"reply": entry}]}


def triage(tag: str, decision: str = "ready", **more: Any) -> dict[str, Any]:
    """A triage session's entry."""
    answer: dict[str, Any] = {"decision": decision, "notes": "New module.", "questions": []}
    answer |= {"reason": None}
    answer |= {"summary": f"triage: {decision}"} | more
    return {"tag": tag, "kind": "triage", "turns": [reply(answer)]}


def spec_answer(decision: str = "ready", **more: Any) -> dict[str, Any]:
    """A spec writer's reply."""
    answer: dict[str, Any] = {
        "decision": decision,
        "spec": SPEC,
        "questions": [],
        "sub_issues": [],
        "interfaces": [INTERFACE],
        "no_tests_reason": None,
        "wiki_only": False,
        "spec_in_draft": False,
        "status": "done",
        "summary": "spec ready",
    }
    return answer | more


def spec_ready(tag: str, **match: Any) -> dict[str, Any]:
    """A spec writer that commits the stub and a failing test, then replies ready."""
    files = [
        {"write": {"path": "inventory/total.py", "content": STUB}},
        {"write": {"path": "tests/test_total.py", "content": TEST}},
        {"commit": "Stub total() and its failing test"},
    ]
    return {
        "tag": tag,
        "kind": "spec",
        **match,
        "turns": [{"actions": files}, reply(spec_answer())],
    }


def implement_done(tag: str, **match: Any) -> dict[str, Any]:
    """An implementer that makes the test pass."""
    files = [
        {"write": {"path": "inventory/total.py", "content": IMPL}},
        {"commit": "Sum every item in total()"},
    ]
    answer: dict[str, Any] = {"status": "done", "summary": "total() sums the stock."}
    answer |= {"blocked_reason": None}
    answer |= {"deviations": []}
    return {"tag": tag, "kind": "implement", **match, "turns": [{"actions": files}, reply(answer)]}


def assert_invariants(world: World, *numbers: int) -> None:
    """C's invariants hold for every issue named (one state, one label, PR conventions)."""
    issues = []
    for number in numbers:
        issue = world.issue(number)
        pr = world.pr(number)
        issues.append(
            IssueSnapshot(
                number=number,
                open=issue.state == "open",
                labels=issue.labels,
                comments=world.comments(number),
                pr=None if pr is None else PrSnapshot(pr.number, pr.title, pr.body),
            )
        )
    snapshot = Snapshot(ACCOUNT, datetime.now(UTC), 3.0, tuple(issues))
    assert check_invariants(snapshot) == ()


def session_tasks(world: World, number: int, kind: str) -> list[str]:
    """The tasks every `kind` session of the issue was given, oldest job first."""
    jobs = sorted((world.repo_home / "jobs").glob(f"issue-{number}-*"))
    return [
        task.read_text(encoding="utf-8")
        for job in jobs
        for task in sorted(job.glob(f"sessions/{kind}-*/task.md"))
    ]


def run_tests_at(world: World, ref: str, workdir: Path) -> int:
    """The sample's test command's exit status at `ref` of the forge's repository."""
    env = {"PATH": os.environ["PATH"], "HOME": str(workdir), "PYTHONDONTWRITEBYTECODE": "1"}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    tree = workdir / "tree"
    git = ["git", "-c", f"core.hooksPath={os.devnull}"]
    subprocess.run([*git, "clone", "-q", str(world.bare().path), str(tree)], check=True, env=env)
    subprocess.run([*git, "checkout", "-q", ref], cwd=tree, check=True, env=env)
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    return subprocess.run(argv, cwd=tree, env=env, capture_output=True, check=False).returncode


def committed_then_paused(tag: str, reached: Path, release: Path) -> dict[str, Any]:
    """An implementer that commits the total, touches `reached`, then waits for `release`."""
    actions = [
        {"write": {"path": "inventory/total.py", "content": IMPL}},
        {"commit": "Sum every item in total()"},
        {"run": f"touch {reached}"},
        {"pause_until": str(release)},
    ]
    return {"tag": tag, "kind": "implement", "turns": [{"actions": actions}]}


def wait_for_file(path: Path, timeout: float = 120) -> None:
    """Wait until `path` exists (a scripted session touches it when it got there)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


def person_pushes(world: World, tmp_path: Path, branch: str) -> str:
    """A person commits a file on `branch` (made from main when the forge lacks it) and pushes."""
    clone = tmp_path / "person"
    git = ["git", "-c", "user.name=p", "-c", "user.email=p@p", "-c", "core.hooksPath=/dev/null"]
    subprocess.run([*git, "clone", "-q", str(world.bare().path), str(clone)], check=True)
    has = world.ref(f"refs/heads/{branch}") is not None
    start = f"origin/{branch}" if has else "origin/main"
    subprocess.run([*git, "checkout", "-q", "-b", "mine", start], cwd=clone, check=True)
    (clone / "MINE.md").write_text("A person's change.\n")
    subprocess.run([*git, "add", "MINE.md"], cwd=clone, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "A person's change"], cwd=clone, check=True)
    subprocess.run([*git, "push", "-q", "origin", f"HEAD:{branch}"], cwd=clone, check=True)
    head = world.ref(f"refs/heads/{branch}")
    assert head is not None
    return head
