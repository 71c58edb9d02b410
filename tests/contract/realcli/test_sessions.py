"""The real claude, codex and opencode each run a writer session against the loopback model."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from conveyor.agents.runner import run_session
from conveyor.core.backends import FACTS, BackendName
from conveyor.core.session import SessionIdentity, SessionRole, SessionSpec, SessionStatus
from conveyor.testing.fake_model import CallTool, FakeModel, RecordedRequest, Script, WriteFile
from tests.contract.realcli.clis import CliEnvironments, cli_path

pytestmark = [pytest.mark.contract, pytest.mark.realcli]

CANARIES = {
    "CONVEYOR_TEST_SECRET": "canary-secret-5b1e0c",
    "GH_TOKEN": "canary-gh-token-93d2aa",
    "GITHUB_TOKEN": "canary-github-token-0f77e4",
}
REPLY: dict[str, object] = {
    "status": "done",
    "summary": "wrote the note",
    "blocked_reason": None,
    "deviations": [],
}
NOTE = "written by the fake model\n"


@dataclass(frozen=True)
class Case:
    """How one CLI is pointed at the fake model: model name, variables, backend settings."""

    backend: BackendName
    model: str

    def environ(self, url: str) -> dict[str, str]:
        """The provider variables this CLI needs (all fake: its row's `demo_env`)."""
        fake = dict(FACTS[self.backend].demo_env)
        return fake if self.backend == "codex" else {"ANTHROPIC_BASE_URL": url, **fake}

    def settings(self, url: str) -> Mapping[str, object]:
        """The backend settings that point the CLI's provider at the fake model."""
        if self.backend == "codex":
            provider = {
                "name": "fake",
                "base_url": f"{url}/v1",
                "wire_api": "responses",
                "env_key": "OPENAI_API_KEY",
            }
            # A loaded CI machine can take longer than codex's default 10 s to start an MCP server.
            return {
                "model_provider": "fake",
                "model_providers.fake": provider,
                "mcp_servers.conveyor.startup_timeout_sec": 60,
            }
        if self.backend == "opencode":
            return {"provider": {"anthropic": {"options": {"baseURL": f"{url}/v1"}}}}
        return {}


CASES = [
    Case("claude", "claude-sonnet-4-5"),
    Case("codex", "fake-model"),
    Case("opencode", "anthropic/claude-sonnet-4-5"),
]


def _checkout(root: Path) -> Path:
    """A git checkout with one commit."""
    root.mkdir()
    for argv in (
        ["git", "init", "-q", "-b", "main"],
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "start",
        ],
    ):
        subprocess.run(argv, cwd=root, check=True, capture_output=True)
    return root


@pytest.mark.parametrize("case", CASES, ids=[case.backend for case in CASES])
def test_a_real_cli_session_edits_a_file_and_replies_through_conveyor_mcp(
    case: Case, clis_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI writes the file, `submit_reply` accepts the reply, usage is read, no token leaks."""
    executable = cli_path(clis_bin, case.backend)
    checkout = _checkout(tmp_path / "checkout")
    note = checkout / "NOTE.md"
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CONVEYOR_HOME", str(tmp_path / "home"))
    environments = CliEnvironments(root=clis_bin.parent.parent)

    def watch(request: RecordedRequest) -> None:
        environments.capture()

    script = Script(steps=(WriteFile(str(note), NOTE), CallTool("submit_reply", REPLY)))
    with FakeModel(script, on_request=watch) as model:
        spec = SessionSpec(
            role=SessionRole.WRITER,
            backend=case.backend,
            model=case.model,
            system_prompt="You are a test session.",
            task="Write NOTE.md, then submit your reply.",
            reply_model="implement",
            cwd=checkout,
            session_dir=tmp_path / "session",
            session_key=f"realcli-{case.backend}",
            identity=SessionIdentity(issue=1, stage="implement", kind="implement"),
            timeout_seconds=120,
            executable=str(executable),
            backend_settings=case.settings(model.url),
        )
        result = run_session(spec, {**os.environ, **case.environ(model.url)})
        requests = model.requests

    assert result.status is SessionStatus.REPLIED, (result.error, result.last_tool_failure)
    assert note.read_text() == NOTE
    assert result.reply is not None
    assert result.reply.model_dump(mode="json") == REPLY
    assert json.loads((spec.session_dir / "reply.json").read_text()) == REPLY
    assert result.usage.input >= 120
    assert result.usage.output >= 12
    assert result.turns >= 1  # codex reports one turn per `exec`, the others one per request
    assert result.tool_calls >= 2
    assert (result.cost_usd is None) == (case.backend == "codex"), "codex alone reports no cost"
    mcp_names = json.loads((spec.session_dir / "mcp-env.json").read_text())
    assert requests, "the CLI never reached the fake model"
    keys = {env.get("CONVEYOR_SESSION_KEY") for env in environments.seen.values()}
    assert keys == {spec.session_key}, "the CLI processes were not seen waiting on the model"
    for name, value in CANARIES.items():
        assert not any(r.contains(value) for r in requests), f"{name} reached the model"
        assert environments.contain(value) == [], f"{name} reached the CLI"
        assert environments.contain(name) == [], f"{name} reached the CLI"
        assert name not in mcp_names, f"{name} reached conveyor mcp"
