"""A hostile writer session and a hostile committed test find nothing and change nothing.

The implementer runs `hostile_probe.py` (tokens in every environment, process and file it
reaches, a comment posted with them, files written outside the checkout, `kill -0` of the
test's and the orchestrator's pids, the forge's port and an outside host), then commits it
as a test, which verify runs. The issue still merges; the forge, the filesystem and both
probes' findings show nothing reached. With the box off the same probe finds the token.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import conveyor
from conveyor.emulator.app.server import ForgeServer
from conveyor.job.events import read_events
from conveyor.testing.world import ACCOUNT, World
from tests.e2e.back.merge_helpers import clean_back_half
from tests.e2e.helpers import IMPL, reply, spec_ready, triage

pytestmark = pytest.mark.e2e

PROBE_FILE = Path(__file__).with_name("hostile_probe.py")
COMMITTED = "tests/test_sandbox_probe.py"
MARKER = "hostile-probe-was-here"
EMPTY: dict[str, object] = {
    "tokens": {},
    "posted": [],
    "written": [],
    "signalled": [],
    "connected": [],
}


def _world(server: ForgeServer, root: Path, mode: str) -> World:
    config = {
        "limits": {"claim_wait_seconds": [0, 0], "ci_poll_seconds": 0.2},
        # -s: the committed probe prints its findings into verify's log.
        "commands": {"test": f"{sys.executable} -m pytest -s", "timeout_seconds": 120},
        "sandbox": {"mode": mode},
    }
    return World.create(server, root, config=config)


def _targets(world: World, issue: int, write_dirs: list[Path]) -> dict[str, Any]:
    return {
        "forge": world.server.url,
        "repo": world.repo,
        "issue": issue,
        "read_roots": [
            str(world.home),
            str(world.config_path.parent),
            str(world.root / "user-home"),
            os.environ.get("HOME", "/root"),
        ],
        "write_dirs": [str(d) for d in write_dirs],
        "pids": [os.getpid(), os.getppid()],
    }


def _probe_source(targets: dict[str, Any]) -> str:
    source = PROBE_FILE.read_text()
    line = "TARGETS: dict[str, Any] = {}\n"
    assert line in source
    # Our own lint's suppression stays here: in the sample repository a new suppression
    # comment is held for a person by the checks (issue 45), which this test is not about.
    source = source.replace("  # " + "noqa: S310", "")
    return source.replace(line, f"TARGETS: dict[str, Any] = json.loads({json.dumps(targets)!r})\n")


def _implementer(tag: str, source: str) -> dict[str, Any]:
    run = f'{sys.executable} {COMMITTED} "$CONVEYOR_SESSION_DIR/probe-findings.json"'
    actions = [
        {"write": {"path": COMMITTED, "content": source}},
        {"run": run},
        {"write": {"path": "inventory/total.py", "content": IMPL}},
        {"commit": "Sum every item in total()"},
    ]
    answer: dict[str, Any] = {"status": "done", "summary": "total() sums the stock."}
    answer |= {"blocked_reason": None, "deviations": []}
    return {"tag": tag, "kind": "implement", "turns": [{"actions": actions}, reply(answer)]}


def _session_dir(world: World, issue: int) -> Path:
    (found,) = (world.repo_home / "jobs").glob(f"issue-{issue}-implement-*/sessions/implement-1")
    return found


@pytest.fixture(autouse=True)
def exec_drive(monkeypatch: pytest.MonkeyPatch) -> None:
    """The drive is exec'd, as a person's shell starts `conveyor run`: its environment in
    /proc holds the token (a fork of the tests' fork server would show the server's)."""
    monkeypatch.setenv("CONVEYOR_TEST_EXEC", "1")


@pytest.fixture
def write_dirs() -> Iterator[list[Path]]:
    """The folders the probe writes into; its files are removed whatever the outcome."""
    folders: list[Path] = []
    yield folders
    for folder in folders:
        (folder / MARKER).unlink(missing_ok=True)


def test_a_hostile_session_and_test_file_find_nothing_and_change_nothing(
    forge_server: ForgeServer, tmp_path: Path, write_dirs: list[Path]
) -> None:
    """Boxed: no token found or used, nothing written outside, no pid signalled, no
    connection but through the proxy, which blocked and logged it; the issue merges."""
    world, tag = _world(forge_server, tmp_path / "world", "auto"), "hostile"
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    (world.repo_home / "jobs").mkdir(parents=True)
    package = Path(conveyor.__file__).parent
    write_dirs += [package, world.repo_home / "jobs", world.home, world.config_path.parent]
    write_dirs.append(world.root / "user-home")
    source = _probe_source(_targets(world, issue.number, write_dirs))
    entries = [triage(tag), spec_ready(tag), _implementer(tag, source), *clean_back_half(tag)]
    world.write_scenario(entries)
    done = world.drive(issue.number)
    assert done.returncode == 0, done.stdout + done.stderr

    session = _session_dir(world, issue.number)
    findings = json.loads((session / "probe-findings.json").read_text())
    assert findings["ran"] is True
    assert {k: findings[k] for k in EMPTY} == EMPTY
    assert world.tokens[ACCOUNT] not in json.dumps(findings)
    logged = (session / "network.log").read_text()
    forge_port = world.server.url.rsplit(":", 1)[1].rstrip("/")
    assert f"blocked 127.0.0.1:{forge_port}" in logged
    assert "blocked example.com:443" in logged
    events = read_events(world.repo_home / "runs" / f"issue-{issue.number}" / "events.jsonl")
    blocked = {(e["host"], e["port"]) for e in events if e["kind"] == "network-blocked"}
    assert ("example.com", 443) in blocked

    (checks_log,) = [
        log
        for log in (world.repo_home / "jobs").glob(f"issue-{issue.number}-checks-*/logs/*.log")
        if "HOSTILE-PROBE" in log.read_text()
    ]
    line = next(x for x in checks_log.read_text().splitlines() if "HOSTILE-PROBE " in x)
    verified = json.loads(line.split("HOSTILE-PROBE ", 1)[1].rsplit("}", 1)[0] + "}")
    assert {k: verified[k] for k in EMPTY} == EMPTY
    assert world.tokens[ACCOUNT] not in line

    pr = world.pr(issue.number)
    assert pr is not None
    assert pr.merged, "verify ran the committed probe and it passed"
    for number in (issue.number, pr.number):
        assert not [c for c in world.comments(number) if MARKER in c.body]
    for folder in write_dirs:
        assert not (folder / MARKER).exists(), folder


def test_the_same_probe_finds_the_token_when_the_box_is_off(
    forge_server: ForgeServer, tmp_path: Path, write_dirs: list[Path]
) -> None:
    """`mode = "none"`: the probe reads the token from the job's environment, reaches the
    forge's port, signals the test and writes beside the config: the probe can fail."""
    world, tag = _world(forge_server, tmp_path / "world", "none"), "unboxed"
    issue = world.open_issue(f"Add a stock total [{tag}]", "Sum the quantities of every item.")
    write_dirs.append(world.config_path.parent)
    source = _probe_source(_targets(world, issue.number, write_dirs))
    world.write_scenario([triage(tag), spec_ready(tag), _implementer(tag, source)])
    done = world.drive(issue.number, through="implement")
    assert done.returncode == 0, done.stdout + done.stderr
    findings = json.loads((_session_dir(world, issue.number) / "probe-findings.json").read_text())
    assert world.tokens[ACCOUNT] in json.dumps(findings["tokens"])
    assert findings["signalled"]
    assert findings["written"] == [str(world.config_path.parent / MARKER)]
    assert any(
        f"direct 127.0.0.1:{world.server.url.rsplit(':', 1)[1]}" in c for c in findings["connected"]
    )
