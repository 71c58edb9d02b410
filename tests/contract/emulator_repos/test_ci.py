"""The CI runner: a `ci` check run per PR head, with the log's tail as its summary."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conveyor.emulator.app.server import ForgeServer
from tests.contract.emulator_repos.conftest import GitWorld, make_git_world, open_pr, wait_for

pytestmark = pytest.mark.contract

CI = 'echo "checking $(cat verdict.txt)"; test "$(cat verdict.txt)" = pass'


@pytest.fixture
def ci_world(forge_server: ForgeServer, tmp_path: Path) -> GitWorld:
    """A repository whose CI passes when `verdict.txt` says `pass`."""
    return make_git_world(forge_server, tmp_path, ci=CI)


def _ci_run(client: httpx.Client, gw: GitWorld, sha: str) -> dict[str, Any] | None:
    runs = client.get(f"{gw.repo_path}/commits/{sha}/check-runs", params={"check_name": "ci"})
    found = runs.json()["check_runs"]
    return found[0] if found else None


def _completed(client: httpx.Client, gw: GitWorld, sha: str) -> dict[str, Any]:
    def probe() -> dict[str, Any] | None:
        run = _ci_run(client, gw, sha)
        return run if run is not None and run["status"] == "completed" else None

    result: dict[str, Any] = wait_for(probe)
    return result


def test_opening_a_pr_runs_ci_on_its_head_and_reports_success_with_the_log(
    ci_world: GitWorld,
) -> None:
    """A passing command gives a completed `ci` run with success and the output."""
    with ci_world.client(ci_world.writer_token) as client:
        sha = ci_world.push_branch("good", {"verdict.txt": "pass\n"}, "Pass")
        assert _ci_run(client, ci_world, sha) is None  # a push alone runs nothing
        open_pr(client, ci_world, "good")
        run = _completed(client, ci_world, sha)
        assert run["conclusion"] == "success"
        assert "checking pass" in run["output"]["summary"]
        assert run["started_at"] is not None


def test_a_push_to_the_head_runs_ci_again_and_a_failure_is_reported(ci_world: GitWorld) -> None:
    """The new head gets its own run; a failing command concludes failure."""
    with ci_world.client(ci_world.writer_token) as client:
        first = ci_world.push_branch("flip", {"verdict.txt": "pass\n"}, "Pass")
        open_pr(client, ci_world, "flip")
        assert _completed(client, ci_world, first)["conclusion"] == "success"
        second = ci_world.push_branch("flip", {"verdict.txt": "fail\n"}, "Fail")
        run = _completed(client, ci_world, second)
        assert run["conclusion"] == "failure"
        assert "checking fail" in run["output"]["summary"]


@pytest.fixture
def seen_folder() -> Iterator[Path]:
    """A folder the CI's box sees (read-only: the command names a file in it): not in /tmp,
    which the box replaces with its own."""
    folder = Path(tempfile.mkdtemp(prefix="conveyor-ci-test-", dir="/var/tmp"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_one_run_at_a_time_later_runs_wait_queued(
    forge_server: ForgeServer, tmp_path: Path, seen_folder: Path
) -> None:
    """While one run waits on a gate, the next PR's run stays queued; both finish after."""
    gate = seen_folder / "gate"
    gw = make_git_world(
        forge_server, tmp_path, ci=f"while [ ! -e {gate} ]; do sleep 0.05; done; echo through"
    )
    with gw.client(gw.writer_token) as client:
        first = gw.push_branch("first", {"1.txt": "1\n"}, "One")
        second = gw.push_branch("second", {"2.txt": "2\n"}, "Two")
        try:
            open_pr(client, gw, "first")
            wait_for(lambda: (_ci_run(client, gw, first) or {}).get("status") == "in_progress")
            open_pr(client, gw, "second")
            waiting = _ci_run(client, gw, second)
            assert waiting is not None
            assert (waiting["status"], waiting["started_at"]) == ("queued", None)
        finally:
            gate.touch()  # never leave the shared server's worker blocked
        assert _completed(client, gw, first)["conclusion"] == "success"
        assert "through" in _completed(client, gw, second)["output"]["summary"]


def test_reopening_a_pr_runs_ci_again(ci_world: GitWorld) -> None:
    """Closed and reopened at the same head, the PR gets a second `ci` run."""
    with ci_world.client(ci_world.writer_token) as client:
        sha = ci_world.push_branch("again", {"verdict.txt": "pass\n"}, "Pass")
        number = open_pr(client, ci_world, "again")["number"]
        _completed(client, ci_world, sha)
        client.patch(f"{ci_world.repo_path}/pulls/{number}", json={"state": "closed"})
        client.patch(f"{ci_world.repo_path}/pulls/{number}", json={"state": "open"})

        def two_runs() -> bool:
            runs = client.get(
                f"{ci_world.repo_path}/commits/{sha}/check-runs", params={"filter": "all"}
            ).json()["check_runs"]
            return len(runs) == 2 and all(r["status"] == "completed" for r in runs)

        wait_for(two_runs)


def test_the_log_tail_is_capped_at_60_kb(forge_server: ForgeServer, tmp_path: Path) -> None:
    """A chatty command's summary keeps its last 60,000 characters, the end included."""
    chatty = "python3 -c \"print('x' * 100000)\"; echo THE-END"
    gw = make_git_world(forge_server, tmp_path, ci=chatty)
    with gw.client(gw.writer_token) as client:
        sha = gw.push_branch("chatty", {"c.txt": "c\n"}, "Chatty")
        open_pr(client, gw, "chatty")
        summary = _completed(client, gw, sha)["output"]["summary"]
        assert len(summary) <= 60_000
        assert summary.rstrip().endswith("THE-END")


def test_the_command_gets_a_minimal_environment_without_tokens(
    forge_server: ForgeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Secrets in the server's environment never reach the CI command."""
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_server_secret")
    gw = make_git_world(forge_server, tmp_path, ci="env")
    with gw.client(gw.writer_token) as client:
        sha = gw.push_branch("env", {"e.txt": "e\n"}, "Env")
        open_pr(client, gw, "env")
        summary = _completed(client, gw, sha)["output"]["summary"]
    assert "CI=true" in summary
    assert "ghp_server_secret" not in summary
    assert "GITHUB_TOKEN" not in summary


def _running(marker: str) -> list[int]:
    """The pids (as this process sees them) whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if entry.name.isdigit() and marker.encode() in words:
            found.append(int(entry.name))
    return found


def test_stopping_the_server_kills_the_running_command(tmp_path: Path) -> None:
    """The command and what it started are gone once the server has stopped.

    The command runs boxed in a pid namespace of its own, so it is found by its command
    line (a `sleep` with a duration no other process uses), not by the pid it sees.
    """
    marker = f"{60 + os.getpid() % 1000 / 1000:.3f}"
    command = f"sleep {marker}"
    with ForgeServer(tmp_path / "forge") as server:
        gw = make_git_world(server, tmp_path, ci=command)
        with gw.client(gw.writer_token) as client:
            gw.push_branch("slow", {"s.txt": "s\n"}, "Slow")
            open_pr(client, gw, "slow")
            wait_for(lambda: _running(marker))
    wait_for(lambda: not _running(marker))


def test_the_command_runs_boxed_away_from_the_forge_and_the_server(
    forge_server: ForgeServer, tmp_path: Path
) -> None:
    """A CI command cannot signal the server, read the forge's data or reach its port.

    Without the box each probe would succeed: the server runs in this very process.
    """
    port = forge_server.url.rsplit(":", 1)[1]
    probe = (
        f"kill -0 {os.getpid()} 2>/dev/null && echo SIGNALLED || echo NO-SIGNAL; "
        f'ls {forge_server.data_dir} >/dev/null 2>&1 && test -n "$(ls -A {forge_server.data_dir})"'
        " && echo SEES-DATA || echo NO-DATA; "
        f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5)\""
        " 2>/dev/null && echo CONNECTED || echo NO-NETWORK"
    )
    gw = make_git_world(forge_server, tmp_path, ci=probe)
    with gw.client(gw.writer_token) as client:
        sha = gw.push_branch("boxed", {"b.txt": "b\n"}, "Boxed")
        open_pr(client, gw, "boxed")
        summary = _completed(client, gw, sha)["output"]["summary"]
    assert "NO-SIGNAL" in summary, summary
    assert "NO-DATA" in summary, summary
    assert "NO-NETWORK" in summary, summary
