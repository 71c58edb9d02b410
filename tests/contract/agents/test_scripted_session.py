"""Scripted-agent sessions end to end: replies, environment, failures, commits."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from conveyor.agents.control import ControlHandlers, refused_paths, serve_control
from conveyor.agents.hooks import commit_msg_hook
from conveyor.agents.launch import launch
from conveyor.agents.runner import run_session
from conveyor.core.backends import BackendName
from conveyor.core.replies import AcceptReply
from conveyor.core.session import FailureKind, SessionRole, SessionStatus
from tests.contract.agents.conftest import ACCEPT, IMPLEMENT_DONE, Sessions, git

pytestmark = pytest.mark.contract

SECRETS = {
    "GH_TOKEN": "gh-canary",
    "GITHUB_TOKEN": "github-canary",
    "MY_FORGE_TOKEN": "configured-canary",
    "CONVEYOR_TEST_SECRET": "test-canary",
}


SESSION_VARIABLES = {
    "CONVEYOR_ISSUE",
    "CONVEYOR_STAGE",
    "CONVEYOR_SESSION_KIND",
    "CONVEYOR_ATTEMPT",
    "CONVEYOR_SESSION_KEY",
    "CONVEYOR_SESSION_DIR",
    "CONVEYOR_REPLY_MODEL",
}


def process_state(pid: int) -> str:
    """A process's state letter from /proc, or "gone"."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "gone"


def environ(**extra: str) -> dict[str, str]:
    """This process's environment plus the given variables."""
    return {**os.environ, **extra}


def test_a_scripted_reader_replies_through_the_mcp_server(sessions: Sessions) -> None:
    """The reply comes from reply.json via submit_reply; usage, cost and turns are reported."""
    scenario = sessions.scenario(
        {
            "tag": "t",
            "turns": [
                {"usage": {"input": 900, "output": 40, "cache_read": 100}, "cost": 0.02},
                {"usage": {"input": 1200, "output": 60, "cache_write": 300}, "cost": 0.03,
                 "actions": [{"reply": ACCEPT}]},
            ],
        }
    )  # fmt: skip
    result = launch(sessions.spec(scenario), environ())
    assert result.status is SessionStatus.REPLIED
    assert isinstance(result.reply, AcceptReply)
    assert result.reply.verdict == "pass"
    assert (result.turns, result.peak_context, result.usage.output) == (2, 1500, 100)
    assert result.cost_usd == pytest.approx(0.05)
    assert result.transcript is not None
    assert result.transcript.read_text().count('"type": "assistant"') == 2
    saved = json.loads((sessions.root / "sessions" / "s1" / "result.json").read_text())
    assert saved["status"] == "replied"
    assert saved["reply"] == ACCEPT


def test_no_forge_token_reaches_the_agent_or_the_mcp_server(sessions: Sessions) -> None:
    """The agent and `conveyor mcp` receive no token or canary; an unreported cost is None."""
    scenario = sessions.scenario({"turns": [{"actions": [{"reply": ACCEPT}]}]})
    spec = sessions.spec(scenario, token_env=("MY_FORGE_TOKEN",))
    result = run_session(spec, environ(**SECRETS))
    assert result.status is SessionStatus.REPLIED
    assert result.cost_usd is None
    for record in ("agent-env.json", "mcp-env.json"):
        names = set(json.loads((spec.session_dir / record).read_text()))
        assert not set(SECRETS) & names, record
        assert {"CONVEYOR_ISSUE", "CONVEYOR_SESSION_DIR", "CONVEYOR_REPLY_MODEL"} <= names
    agent = set(json.loads((spec.session_dir / "agent-env.json").read_text()))
    assert agent >= SESSION_VARIABLES


def test_a_clean_exit_without_a_reply_is_a_behavioural_failure_not_retried(
    sessions: Sessions,
) -> None:
    """A session that ends cleanly with no accepted reply failed, and is not retried."""
    scenario = sessions.scenario({"turns": [{"text": "I am done."}]})
    result = launch(sessions.spec(scenario), environ())
    assert result.status is SessionStatus.FAILED
    assert result.failure is FailureKind.BEHAVIOURAL
    assert result.earlier == ()


def test_an_api_error_is_retried_once_with_the_fallback_model(sessions: Sessions) -> None:
    """An infrastructure failure is retried in a fresh folder with the fallback model."""
    scenario = sessions.scenario(
        {"retry": 0, "turns": [{"actions": [{"fail": "api-error"}]}]},
        {"retry": 1, "turns": [{"actions": [{"reply": ACCEPT}]}]},
    )
    result = launch(sessions.spec(scenario), environ())
    assert result.status is SessionStatus.REPLIED
    assert result.model == "fallback-model"
    [first] = result.earlier
    assert first.failure is FailureKind.INFRASTRUCTURE
    assert first.model == "main-model"
    assert "529" in (first.error or "")


def test_a_rate_limit_is_reported_with_its_reset_time_and_not_retried(sessions: Sessions) -> None:
    """A provider usage limit is its own status carrying the reset time."""
    fail = {"kind": "rate-limit", "reset": 1_900_000_000}
    scenario = sessions.scenario({"turns": [{"actions": [{"fail": fail}]}]})
    result = launch(sessions.spec(scenario), environ())
    assert result.status is SessionStatus.RATE_LIMITED
    assert result.rate_limit_reset == 1_900_000_000
    assert result.earlier == ()


def test_an_exit_without_a_final_event_is_an_infrastructure_failure(sessions: Sessions) -> None:
    """No `result` event: infrastructure, with the exit named."""
    scenario = sessions.scenario({"turns": [{"actions": [{"fail": "no-final"}]}]})
    result = launch(sessions.spec(scenario, infra_retries=0), environ())
    assert result.status is SessionStatus.FAILED
    assert result.failure is FailureKind.INFRASTRUCTURE
    assert "final event" in (result.error or "")


def _alive_with(marker: str) -> list[int]:
    """The live (not zombie) processes whose command line holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in argv and process_state(int(entry.name)) not in {"gone", "Z"}:
            found.append(int(entry.name))
    return found


def test_a_hung_session_times_out_and_its_whole_process_group_dies(sessions: Sessions) -> None:
    """The timeout kills the group: a background child of the agent dies too (boxed, it
    dies with the box's pid namespace; its pid inside means nothing outside)."""
    marker = f"hung-child-{os.getpid()}-{sessions.root.name}"
    started = sessions.root / "sessions" / "s1" / "child.started"
    child = f"{sys.executable} -c 'import time; time.sleep(300)' {marker}"
    spawn = f'{child} > /dev/null 2>&1 & touch "$CONVEYOR_SESSION_DIR/child.started"'
    scenario = sessions.scenario({"turns": [{"actions": [{"run": spawn}, {"fail": "hang"}]}]})
    spec = sessions.spec(scenario, timeout_seconds=6.0, infra_retries=0)
    result = launch(spec, environ())
    assert result.status is SessionStatus.TIMED_OUT
    assert result.failure is FailureKind.INFRASTRUCTURE
    assert started.exists(), "the background child never started"
    deadline = time.monotonic() + 10
    while _alive_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _alive_with(marker) == []


def test_a_missing_cli_is_an_error_naming_it_and_how_to_install_it(sessions: Sessions) -> None:
    """No executable: the error names the CLI and the install command."""
    scenario = sessions.scenario({"turns": []})
    spec = replace(sessions.spec(scenario), backend="codex", executable="/nonexistent/codex")
    result = run_session(spec, environ())
    assert result.status is SessionStatus.FAILED
    assert "codex" in (result.error or "")
    assert "npm install" in (result.error or "")


def test_a_plain_git_commit_in_a_session_gets_the_pipeline_agent_trailer(
    sessions: Sessions,
) -> None:
    """The commit-msg hook appends the trailer to commits made with plain git."""
    hook = sessions.checkout / ".git" / "hooks" / "commit-msg"
    hook.write_text(commit_msg_hook("implement"))
    hook.chmod(0o755)
    diff = "--- /dev/null\n+++ b/src/other.py\n@@ -0,0 +1 @@\n+Y = 2\n"
    actions = [
        {"pause_until": "README.md"},
        {"write": {"path": "src/thing.py", "content": "X = 1\n"}},
        {"apply": diff},
        {"commit": {"message": "Add the thing"}},
        {"reply": IMPLEMENT_DONE},
    ]
    scenario = sessions.scenario({"turns": [{"actions": actions}]})
    spec = sessions.spec(scenario, role=SessionRole.WRITER, reply_model="implement")
    result = run_session(spec, environ())
    assert result.status is SessionStatus.REPLIED
    assert result.tool_failures == 0
    files = git(sessions.checkout, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(files) == ["src/other.py", "src/thing.py"]
    message = git(sessions.checkout, "log", "-1", "--format=%B")
    assert "Pipeline-Agent: implementer" in message
    assert git(sessions.checkout, "log", "-1", "--format=%an") == "Conveyor agent\n"


def test_the_commit_tool_goes_through_the_jobs_control_socket(sessions: Sessions) -> None:
    """A good commit reaches the job; a path outside the checkout never does."""
    seen: list[Mapping[str, Any]] = []

    def commit(request: Mapping[str, Any]) -> dict[str, Any]:
        seen.append(request)
        if refused := refused_paths(sessions.checkout, list(request["paths"])):
            return {"ok": False, "error": "; ".join(refused)}
        git(sessions.checkout, "add", "--", *request["paths"])
        git(sessions.checkout, "commit", "-q", "-m", request["message"])
        return {"ok": True, "sha": git(sessions.checkout, "rev-parse", "HEAD").strip()}

    actions = [
        {"write": {"path": "a.py", "content": "A = 1\n"}},
        {"commit_tool": {"paths": ["../escape.py"], "message": "bad"}},
        {"commit_tool": {"paths": ["a.py"], "message": "Add a"}},
        {"reply": IMPLEMENT_DONE},
    ]
    scenario = sessions.scenario({"turns": [{"actions": actions}]})
    sock = sessions.root / "c.sock"
    spec = sessions.spec(
        scenario, role=SessionRole.WRITER, reply_model="implement", control_socket=sock
    )
    with serve_control(sock, ControlHandlers(commit=commit)):
        result = run_session(spec, environ())
    assert result.status is SessionStatus.REPLIED
    assert [r["paths"] for r in seen] == [["a.py"]]
    assert result.tool_failures == 1
    assert git(sessions.checkout, "log", "-1", "--format=%s") == "Add a\n"
    assert subprocess.run(["git", "status", "--porcelain"], cwd=sessions.checkout,
                          capture_output=True, text=True, check=True).stdout == ""  # fmt: skip


def fake_cli(root: Path, script: str) -> str:
    """A stand-in CLI: a shell script in tmp_path, launched by absolute path."""
    path = root / "fake-cli"
    path.write_text("#!/bin/sh\nread -r task\n" + script)
    path.chmod(0o755)
    return str(path)


def test_an_unparseable_stream_line_is_kept_counted_and_not_fatal(sessions: Sessions) -> None:
    """Garbage between events stays in the transcript; the session still ends normally."""
    result_event = '{"type":"result","subtype":"success","is_error":false,"result":"ok"}'
    script = f"echo 'this is not json'\necho '{result_event}'\n"
    scenario = sessions.scenario({"turns": []})
    spec = sessions.spec(scenario, executable=fake_cli(sessions.root, script))
    result = run_session(spec, environ())
    assert result.unparsed_lines == 1
    assert result.transcript is not None
    assert "this is not json" in result.transcript.read_text()
    assert result.status is SessionStatus.FAILED
    assert result.failure is FailureKind.BEHAVIOURAL


def test_a_model_the_cli_rejects_is_an_infrastructure_failure_with_its_message(
    sessions: Sessions,
) -> None:
    """A CLI that exits on a bad model with no stream: infra failure carrying its stderr."""
    script = "echo \"error: model 'claude-nope' is not available\" >&2\nexit 1\n"
    scenario = sessions.scenario({"turns": []})
    spec = sessions.spec(scenario, executable=fake_cli(sessions.root, script), infra_retries=0)
    result = launch(spec, environ())
    assert result.status is SessionStatus.FAILED
    assert result.failure is FailureKind.INFRASTRUCTURE
    assert "model 'claude-nope' is not available" in (result.error or "")


@pytest.mark.parametrize("backend", ["claude", "codex", "opencode"])
def test_under_pytest_a_real_cli_taken_from_path_fails_loudly(
    sessions: Sessions, backend: BackendName
) -> None:
    """With no executable named, PATH finds the refusing stand-in, whose refusal is the error."""
    scenario = sessions.scenario({"turns": []})
    spec = replace(sessions.spec(scenario), backend=backend, executable=None, infra_retries=0)
    result = launch(spec, environ())
    assert result.status is SessionStatus.FAILED
    assert f"refused: a test tried to launch the real {backend} CLI" in (result.error or "")
